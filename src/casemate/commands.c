/* casemate answers to the common commands: probe, dump, validate, convert. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casemate/casemate_int.h"
#include "casemate/cmd/cmd.h"
#include "casemate/html_int.h"
#include "core/format_ops.h"
#include "core/select.h"
#include "core/strbuf.h"

/* ---------------------------------------------------------------- dump */

void tk_casemate_sink_record(tk_sink *s, const tk_casemate_record *r, uint64_t index,
                       uint64_t line, uint64_t col)
{
    int json = tk_sink_get_style(s) == TK_SINK_JSON;
    tk_sink_record_begin(s);
    tk_sink_u64(s, "record", index, TK_SINK_BARE);
    if (json) {
        tk_sink_u64(s, "line", line, 0);
        tk_sink_u64(s, "col", col, 0);
    } else {
        char at[48];
        snprintf(at, sizeof at, "%llu:%llu", (unsigned long long)line,
                 (unsigned long long)col);
        tk_sink_cstr(s, "at", at, TK_SINK_BARE);
    }
    tk_sink_cstr(s, "kind", tk_casemate_kind_name(r->kind), TK_SINK_BARE | TK_SINK_ENUM);
    tk_sink_u64(s, "id", r->id, 0);
    tk_sink_u64(s, "thread", r->tid, 0);
    switch (r->kind) {
    case TK_CASEMATE_MEM_WRITE:
        tk_sink_cstr(s, "mem_order", tk_casemate_mem_order_name(r->mem_order), TK_SINK_ENUM);
        tk_sink_u64(s, "addr", r->address, TK_SINK_ADDR);
        tk_sink_u64(s, "value", r->value, TK_SINK_HEX);
        break;
    case TK_CASEMATE_MEM_READ:
        tk_sink_u64(s, "addr", r->address, TK_SINK_ADDR);
        tk_sink_u64(s, "value", r->value, TK_SINK_HEX);
        break;
    case TK_CASEMATE_MEM_INIT:
    case TK_CASEMATE_MEM_FREE:
        tk_sink_u64(s, "addr", r->address, TK_SINK_ADDR);
        tk_sink_u64(s, "size", r->size, TK_SINK_HEX);
        break;
    case TK_CASEMATE_MEM_SET:
        tk_sink_u64(s, "addr", r->address, TK_SINK_ADDR);
        tk_sink_u64(s, "size", r->size, TK_SINK_HEX);
        tk_sink_u64(s, "value", r->value, TK_SINK_HEX);
        break;
    case TK_CASEMATE_SYSREG_WRITE:
        tk_sink_cstr(s, "sysreg", tk_casemate_sysreg_name(r->sysreg), TK_SINK_ENUM);
        tk_sink_u64(s, "value", r->value, TK_SINK_HEX);
        break;
    case TK_CASEMATE_BARRIER:
        if (r->barrier == TK_CASEMATE_ISB) {
            tk_sink_cstr(s, "barrier", "isb", 0);
        } else {
            tk_sink_cstr(s, "barrier", "dsb", 0);
            tk_sink_cstr(s, "domain", tk_casemate_barrier_name(r->barrier) + 4, 0);
        }
        break;
    case TK_CASEMATE_TLBI:
        tk_sink_cstr(s, "tlbi", tk_casemate_tlbi_name(r->tlbi), TK_SINK_ENUM);
        if (r->tlbi_operand == TK_CASEMATE_OPERAND_VALUE) {
            tk_sink_u64(s, "value", r->value, TK_SINK_HEX);
        } else if (r->tlbi_operand == TK_CASEMATE_OPERAND_ADDR_LEVEL) {
            tk_sink_u64(s, "addr", r->address, TK_SINK_ADDR);
            tk_sink_u64(s, "level", r->level, 0);
        }
        break;
    case TK_CASEMATE_HINT:
        tk_sink_cstr(s, "hint", tk_casemate_hint_name(r->hint), TK_SINK_ENUM);
        tk_sink_u64(s, "addr", r->location, TK_SINK_ADDR);
        tk_sink_u64(s, "value", r->value, TK_SINK_HEX);
        break;
    case TK_CASEMATE_LOCK:
    case TK_CASEMATE_TRYLOCK:
    case TK_CASEMATE_UNLOCK:
        tk_sink_u64(s, "addr", r->address, TK_SINK_ADDR);
        break;
    default:
        break;
    }
    if (r->src_kind == TK_CASEMATE_SRC_STRING)
        tk_sink_str(s, "src", r->src, r->src_len, 0);
    else if (r->src_kind == TK_CASEMATE_SRC_INT) /* one type per name: its own key */
        tk_sink_u64(s, "src_id", r->src_int, 0);
    tk_sink_record_end(s);
}

static tk_status open_reader(tk_input *in, const tk_options *o, tk_casemate_reader **r,
                             tk_error *err)
{
    *r = tk_casemate_open(in, o, err);
    return *r ? TK_OK : err->status;
}

static tk_status cm_dump(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err)
{
    uint64_t skip, limit;
    if (tk_options_get_u64(o, "skip", 0, &skip, err) != TK_OK ||
        tk_options_get_u64(o, "limit", UINT64_MAX, &limit, err) != TK_OK)
        return err->status;
    tk_casemate_reader *r;
    if (open_reader(in, o, &r, err) != TK_OK)
        return err->status;
    tk_casemate_record rec;
    int rc = 0;
    uint64_t shown = 0, seen = 0;
    while (shown < limit && (rc = tk_casemate_next(r, &rec, err)) > 0) {
        if (seen++ < skip) /* counts the records selected */
            continue;
        tk_casemate_sink_record(s, &rec, tk_casemate_reader_index(r), tk_casemate_reader_line(r),
                          tk_casemate_reader_col(r));
        shown++;
    }
    tk_casemate_reader_free(r);
    return shown < limit && rc < 0 ? err->status : TK_OK;
}

/* ------------------------------------------------------------ validate */

tk_casemate_warning tk_casemate_check(const tk_casemate_record *rec, int first, uint64_t prev_id)
{
    if (!first && rec->id <= prev_id)
        return TK_CMW_ID_ORDER;
    if (rec->kind == TK_CASEMATE_MEM_SET && ((rec->address | rec->size) & 7))
        return TK_CMW_MEMSET_ALIGN;
    return TK_CMW_NONE;
}

const char *tk_casemate_warning_code(tk_casemate_warning w)
{
    return w == TK_CMW_ID_ORDER ? "id-order" : w == TK_CMW_MEMSET_ALIGN ? "mem-set-unaligned" : "";
}

const char *tk_casemate_warning_message(tk_casemate_warning w)
{
    return w == TK_CMW_ID_ORDER ? "id not greater than the previous record's"
           : w == TK_CMW_MEMSET_ALIGN ? "mem-set address or size not a multiple of 8"
           : "";
}

static tk_status cm_validate(tk_input *in, const tk_options *o, tk_sink *s,
                             uint64_t *nwarnings, tk_error *err)
{
    (void)o;
    tk_casemate_reader *r;
    if (open_reader(in, o, &r, err) != TK_OK)
        return err->status;
    tk_casemate_record rec;
    int rc, first = 1;
    uint64_t prev = 0;
    while ((rc = tk_casemate_next(r, &rec, err)) > 0) {
        tk_casemate_warning w = tk_casemate_check(&rec, first, prev);
        first = 0;
        prev = rec.id;
        if (!w)
            continue;
        ++*nwarnings;
        if (!s)
            continue;
        tk_sink_record_begin(s);
        tk_sink_cstr(s, "severity", "warning", TK_SINK_BARE);
        tk_sink_u64(s, "record", tk_casemate_reader_index(r), 0);
        tk_sink_u64(s, "line", tk_casemate_reader_line(r), 0);
        tk_sink_cstr(s, "code", tk_casemate_warning_code(w), TK_SINK_ENUM);
        tk_sink_u64(s, "id", rec.id, 0);
        tk_sink_cstr(s, "message", tk_casemate_warning_message(w), 0);
        tk_sink_record_end(s);
    }
    tk_status st = rc < 0 ? err->status : TK_OK;
    tk_casemate_reader_free(r);
    return st;
}

/* ------------------------------------------------------------- convert */

static const char *const cm_targets[] = {"casemate", "casemate-compact", "jsonl", "perfetto",
                                         "parquet", NULL};

static tk_status cm_convert(tk_input *in, const tk_options *o, const char *target,
                            FILE *out, tk_error *err)
{
    if (strcmp(target, "perfetto") == 0)
        return tk_casemate_perfetto(in, o, out, err);
    tk_casemate_reader *r;
    if (open_reader(in, o, &r, err) != TK_OK)
        return err->status;
    tk_casemate_record rec;
    tk_status st = TK_OK;
    int rc = 0;
    if (strcmp(target, "jsonl") == 0) {
        tk_sink *s = tk_fmt_jsonl_sink(out, o, err);
        if (!s) {
            tk_casemate_reader_free(r);
            return err->status;
        }
        while ((rc = tk_casemate_next(r, &rec, err)) > 0)
            tk_casemate_sink_record(s, &rec, tk_casemate_reader_index(r),
                              tk_casemate_reader_line(r), tk_casemate_reader_col(r));
        st = rc < 0 ? err->status : tk_sink_finish(s, err);
        tk_sink_free(s);
    } else {
        tk_casemate_style style = strcmp(target, "casemate") == 0 ? TK_CASEMATE_KEYWORD : TK_CASEMATE_COMPACT;
        tk_casemate_writer *w = tk_casemate_writer_new(out, style, err);
        if (!w) {
            tk_casemate_reader_free(r);
            return err->status;
        }
        while (st == TK_OK && (rc = tk_casemate_next(r, &rec, err)) > 0)
            st = tk_casemate_write(w, &rec, err);
        if (st == TK_OK && rc < 0)
            st = err->status;
        size_t len;
        const char *expected = tk_casemate_reader_expected(r, &len);
        /* the log's verdict is not a selection's */
        if (st == TK_OK && expected && !tk_sel_option_given(o))
            st = tk_casemate_write_expected(w, expected, len, err);
        tk_error tmp;
        tk_status fst = tk_casemate_writer_free(w, &tmp);
        if (st == TK_OK && fst != TK_OK) {
            *err = tmp;
            st = fst;
        }
    }
    tk_casemate_reader_free(r);
    return st;
}

/* --------------------------------------------------------------- probe */

/* The rest of a '!' line is text: printable ASCII, tabs, valid UTF-8
 * (so a stray '!' at the start of binary data does not make a log). */
static int cm_text_line(const uint8_t *d, size_t n)
{
    size_t i = 0;
    while (i < n && d[i] != '\n') {
        size_t len = d[i] >= 0x80 ? tk_utf8_len(d + i, n - i) : 1;
        if (len == 0 || (d[i] < 0x20 && d[i] != '\t' && d[i] != '\r') || d[i] == 0x7F)
            return 0;
        i += len;
    }
    return 1;
}

/* Text whose first thing after blanks and ; comments is '(' and a record
 * kind, or a '!' line of text (a log with no records). */
static int cm_probe(const uint8_t *d, size_t n, int whole)
{
    (void)whole;
    size_t i = 0;
    if (n >= 3 && memcmp(d, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    for (;;) {
        while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r' ||
                         d[i] == '\v' || d[i] == '\f'))
            i++;
        if (i < n && d[i] == ';') {
            const uint8_t *nl = memchr(d + i, '\n', n - i);
            if (!nl)
                return 0;
            i = (size_t)(nl - d);
            continue;
        }
        break;
    }
    if (i >= n)
        return 0;
    if (d[i] == '!')
        return cm_text_line(d + i + 1, n - i - 1) ? 10 : 0;
    if (d[i] != '(')
        return 0;
    i++;
    while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r'))
        i++;
    size_t w = i;
    while (i < n && d[i] != ' ' && d[i] != '\t' && d[i] != '\n' && d[i] != '\r' &&
           d[i] != '(' && d[i] != ')' && d[i] != ';' && d[i] != '"')
        i++;
    if (i >= n && !whole)
        return 0;
    return tk_casemate_lookup(&tk_casemate_kinds, d + w, i - w) >= 0 ? 80 : 0;
}

/* The shared Parquet tables (src/casemate/parquet.c). */
static const char *const dir_targets[] = {"parquet", NULL};

static tk_status convert_dir(tk_input *in, const tk_options *o, const char *target,
                             const char *source, const char *dir, tk_error *err)
{
    (void)target; /* "parquet", the only one */
    return tk_casemate_parquet(in, o, source, dir, err);
}

const struct tk_format tk_fmt_casemate = {
    .name = "casemate",
    .description = "casemate page-table log (writes, barriers, TLBIs, locks, hints)",
    .probe = cm_probe,
    .info = tk_casemate_info,
    .dump = cm_dump,
    .validate = cm_validate,
    .convert = cm_convert,
    .report = tk_casemate_report,
    .report_html = tk_casemate_report_html,
    .convert_dir = convert_dir,
    .dir_targets = dir_targets,
    .targets = cm_targets,
    .options = (const char *const[]){"thread", "range", "addr", "racy", "ignore-uninit",
                                     "no-sysreg-defaults", "promote-tlbi-by-id", "hw-af", NULL},
    .commands = tk_casemate_commands,
    .command_options = tk_casemate_command_options,
    .help = tk_casemate_help,
};
