/* Cacheray answers to the common commands: info, dump, validate, convert. */
#include <stdlib.h>
#include <string.h>

#include <tracekit/cacheray.h>
#include <tracekit/format.h>

#include "cacheray/cacheray_int.h"
#include "cacheray/cmd/cmd.h"
#include "cacheray/sim/sim_int.h"
#include "core/bytes.h"
#include "core/format_ops.h"
#include "core/hashmap.h"

static tk_status parse_endian(const tk_options *o, const char *key,
                              tk_endian dflt, tk_endian *out, tk_error *err)
{
    const char *v = tk_options_get(o, key);
    *out = dflt;
    if (!v || strcmp(v, "auto") == 0)
        return TK_OK;
    if (strcmp(v, "little") == 0 || strcmp(v, "le") == 0)
        *out = TK_ENDIAN_LITTLE;
    else if (strcmp(v, "big") == 0 || strcmp(v, "be") == 0)
        *out = TK_ENDIAN_BIG;
    else
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--%s: expected little, big or auto, not '%s'", key, v);
    return TK_OK;
}

tk_cacheray_reader *tk_cacheray_open(tk_input *in, const tk_options *o, unsigned select_flags,
                               tk_error *err)
{
    tk_endian e;
    if (parse_endian(o, "endian", TK_ENDIAN_AUTO, &e, err) != TK_OK)
        return NULL;
    tk_selection *sel = tk_selection_new(o, err);
    tk_cacheray_reader *r = sel ? tk_cacheray_reader_new(in, e, err) : NULL;
    if (r && tk_cacheray_reader_select(r, sel, select_flags, err) != TK_OK) {
        tk_cacheray_reader_free(r);
        r = NULL;
    }
    tk_selection_free(sel);
    return r;
}

const char *tk_cacheray_endian_name(tk_endian e)
{
    return e == TK_ENDIAN_BIG ? "big" : "little";
}

/* ---------------------------------------------------------------- dump */

void tk_cacheray_sink_record(tk_sink *s, const tk_cacheray_record *rec,
                       uint64_t index, uint64_t offset)
{
    tk_sink_record_begin(s);
    tk_sink_u64(s, "record", index, TK_SINK_BARE);
    tk_sink_u64(s, "offset", offset, TK_SINK_BARE | TK_SINK_HEX);
    tk_sink_cstr(s, "kind", tk_cacheray_type_name(rec->type), TK_SINK_BARE | TK_SINK_ENUM);
    tk_sink_u64(s, "addr", rec->addr, TK_SINK_ADDR);
    switch (rec->type) {
    case TK_CACHERAY_READ:
    case TK_CACHERAY_WRITE:
        tk_sink_u64(s, "size", rec->size, 0);
        tk_sink_u64(s, "thread", rec->thread, 0);
        if (tk_sink_get_style(s) == TK_SINK_JSON) {
            tk_sink_bool(s, "atomic", (rec->flags & TK_CACHERAY_ATOMIC) != 0);
            tk_sink_bool(s, "unaligned", (rec->flags & TK_CACHERAY_UNALIGNED) != 0);
        } else { /* text lines name only the flags that are set */
            if (rec->flags & TK_CACHERAY_ATOMIC)
                tk_sink_cstr(s, "atomic", "atomic", TK_SINK_BARE);
            if (rec->flags & TK_CACHERAY_UNALIGNED)
                tk_sink_cstr(s, "unaligned", "unaligned", TK_SINK_BARE);
        }
        break;
    case TK_CACHERAY_RTTA_ADD:
        tk_sink_u64(s, "thread", rec->thread, 0);
        tk_sink_u64(s, "elem_size", rec->elemsize, 0);
        tk_sink_u64(s, "elem_count", rec->elemcount, 0);
        tk_sink_str(s, "type_name", rec->type_name, rec->typename_len, 0);
        break;
    case TK_CACHERAY_RTTA_REMOVE:
        tk_sink_u64(s, "thread", rec->thread, 0);
        break;
    }
    tk_sink_record_end(s);
}

static tk_status cr_dump(tk_input *in, const tk_options *o, tk_sink *s,
                         tk_error *err)
{
    uint64_t skip, limit;
    if (tk_options_get_u64(o, "skip", 0, &skip, err) != TK_OK ||
        tk_options_get_u64(o, "limit", UINT64_MAX, &limit, err) != TK_OK)
        return err->status;
    tk_cacheray_reader *r = tk_cacheray_open(in, o, TK_CACHERAY_SELECT_STOP, err);
    if (!r)
        return err->status;
    tk_cacheray_record rec;
    int rc = 0;
    uint64_t shown = 0, seen = 0;
    while (shown < limit && (rc = tk_cacheray_next(r, &rec, err)) > 0) {
        if (seen++ < skip) /* counts the records selected */
            continue;
        tk_cacheray_sink_record(s, &rec, tk_cacheray_reader_index(r), tk_cacheray_reader_offset(r));
        shown++;
    }
    tk_cacheray_reader_free(r);
    return shown < limit && rc < 0 ? err->status : TK_OK;
}

/* ------------------------------------------------------------ validate */

static void sink_warning(tk_sink *s, const tk_cacheray_warning *w)
{
    tk_sink_record_begin(s);
    tk_sink_cstr(s, "severity", "warning", TK_SINK_BARE);
    tk_sink_u64(s, "record", w->record, 0);
    tk_sink_u64(s, "offset", w->offset, TK_SINK_HEX);
    tk_sink_cstr(s, "code", w->code, TK_SINK_ENUM);
    tk_sink_u64(s, "addr", w->addr, TK_SINK_ADDR);
    if (w->kind == TK_CACHERAY_WARN_OVERLAP)
        tk_sink_u64(s, "region_addr", w->other_addr, TK_SINK_ADDR);
    tk_sink_cstr(s, "message", w->message, 0);
    tk_sink_record_end(s);
}

static tk_status cr_validate(tk_input *in, const tk_options *o, tk_sink *s,
                             uint64_t *nwarnings, tk_error *err)
{
    tk_cacheray_reader *r = tk_cacheray_open(in, o, 0, err);
    if (!r)
        return err->status;
    tk_cacheray_checker *c = tk_cacheray_checker_new(err);
    tk_status st = TK_OK;
    if (!c) {
        tk_cacheray_reader_free(r);
        return err->status;
    }
    tk_cacheray_record rec;
    int rc = 0;
    while ((rc = tk_cacheray_next(r, &rec, err)) > 0) {
        /* Accesses of non-zero size are the common case and need no check. */
        if (rec.type <= TK_CACHERAY_WRITE && rec.size)
            continue;
        int n = tk_cacheray_check(c, &rec, tk_cacheray_reader_offset(r),
                                  tk_cacheray_reader_index(r), NULL, 0, err);
        if (n < 0) {
            st = err->status;
            break;
        }
        /* One record can end many overlapped regions: list them all. */
        const tk_cacheray_warning *w = tk_cacheray_checker_warnings(c);
        *nwarnings += (uint64_t)n;
        for (int i = 0; s && i < n; i++)
            sink_warning(s, &w[i]);
    }
    if (rc < 0)
        st = err->status;
    tk_cacheray_checker_free(c);
    tk_cacheray_reader_free(r);
    return st;
}

/* ------------------------------------------------------------- convert */

static const char *const cr_targets[] = {"cacheray", "jsonl", "perfetto", "parquet", NULL};

static tk_status cr_convert(tk_input *in, const tk_options *o, const char *target,
                            FILE *out, tk_error *err)
{
    if (strcmp(target, "perfetto") == 0)
        return tk_cacheray_perfetto(in, o, out, err);
    /* a Cacheray subset keeps the annotations its accesses are typed by */
    unsigned flags = TK_CACHERAY_SELECT_STOP |
                     (strcmp(target, "cacheray") == 0 ? TK_CACHERAY_SELECT_CONTEXT : 0);
    tk_cacheray_reader *r = tk_cacheray_open(in, o, flags, err);
    if (!r)
        return err->status;
    tk_status st = TK_OK;
    tk_cacheray_record rec;
    int rc = 0;
    if (strcmp(target, "jsonl") == 0) {
        tk_sink *s = tk_fmt_jsonl_sink(out, o, err);
        if (!s) {
            tk_cacheray_reader_free(r);
            return err->status;
        }
        while ((rc = tk_cacheray_next(r, &rec, err)) > 0)
            tk_cacheray_sink_record(s, &rec, tk_cacheray_reader_index(r),
                              tk_cacheray_reader_offset(r));
        st = rc < 0 ? err->status : tk_sink_finish(s, err);
        tk_sink_free(s);
    } else {
        tk_endian e;
        st = parse_endian(o, "out-endian", tk_cacheray_reader_endian(r), &e, err);
        tk_cacheray_writer *w = st == TK_OK ? tk_cacheray_writer_new(out, e, err) : NULL;
        if (w) {
            while (st == TK_OK && (rc = tk_cacheray_next(r, &rec, err)) > 0)
                st = tk_cacheray_write(w, &rec, err);
            if (st == TK_OK && rc < 0)
                st = err->status;
            tk_error tmp;
            tk_status fst = tk_cacheray_writer_free(w, &tmp);
            if (st == TK_OK && fst != TK_OK) {
                *err = tmp;
                st = fst;
            }
        } else if (st == TK_OK) {
            st = err->status;
        }
    }
    tk_cacheray_reader_free(r);
    return st;
}

/* --------------------------------------------------------------- probe */

/* Whether a complete record at d holds what a recorder writes: a nonzero
 * address in a 48-bit space, a thread id below 2^32, a nonzero access size,
 * RTTA sizes below 2^24 and a short printable type name. Zeros and random
 * bytes fail; the byte-order detection weighs the same facts. */
static int cr_plausible(const uint8_t *d, uint8_t base, int big)
{
    uint64_t addr = tk_ld64(d + 1, big), top = addr >> 47;
    if (addr == 0 || (top != 0 && top != 0x1FFFF))
        return 0;
    if (base == TK_CACHERAY_READ || base == TK_CACHERAY_WRITE)
        return d[9] != 0 && tk_ld64(d + 10, big) < ((uint64_t)1 << 32);
    if (tk_ld64(d + 9, big) >= ((uint64_t)1 << 32))
        return 0;
    if (base == TK_CACHERAY_RTTA_REMOVE)
        return 1;
    uint32_t len = tk_ld32(d + 25, big);
    if (tk_ld32(d + 17, big) >= (1u << 24) || tk_ld32(d + 21, big) >= (1u << 24) ||
        len == 0 || len >= 4096)
        return 0;
    for (uint32_t i = 0; i < len; i++)
        if (d[29 + i] < 0x20 || d[29 + i] >= 0x7F)
            return 0;
    return 1;
}

/* No magic number: the first records (up to 64) must all decode in the
 * detected byte order and at least 3 in 4 of them look real. Input too short
 * for one whole record is not recognised (only --format reads it). Low
 * confidence, so any format with a signature wins. */
static int cr_probe(const uint8_t *d, size_t n, int whole)
{
    (void)whole;
    int big = tk_cacheray_detect_endian(d, n) == TK_ENDIAN_BIG;
    size_t i = 0;
    int records = 0, real = 0;
    while (i < n && records < 64) {
        uint8_t tag = d[i], base = tag & (uint8_t)~TK_CACHERAY_FLAG_MASK;
        size_t len;
        if (base == TK_CACHERAY_READ || base == TK_CACHERAY_WRITE) {
            len = TK_CACHERAY_ACCESS_SIZE;
        } else if (base == TK_CACHERAY_RTTA_REMOVE && !(tag & TK_CACHERAY_FLAG_MASK)) {
            len = TK_CACHERAY_RTTA_REMOVE_SIZE;
        } else if (base == TK_CACHERAY_RTTA_ADD && !(tag & TK_CACHERAY_FLAG_MASK)) {
            if (n - i < TK_CACHERAY_RTTA_ADD_FIXED)
                break;
            len = TK_CACHERAY_RTTA_ADD_FIXED + (size_t)tk_ld32(d + i + 25, big);
        } else {
            return 0;
        }
        if (len > n - i) /* cut short: the reader says where */
            break;
        real += cr_plausible(d + i, base, big);
        i += len;
        records++;
    }
    return records && real * 4 >= records * 3 ? 20 : 0;
}

/* The shared Parquet tables (src/cacheray/parquet.c). */
static const char *const dir_targets[] = {"parquet", NULL};

static tk_status convert_dir(tk_input *in, const tk_options *o, const char *target,
                             const char *source, const char *dir, tk_error *err)
{
    (void)target; /* "parquet", the only one */
    return tk_cacheray_parquet(in, o, source, dir, err);
}

const struct tk_format tk_fmt_cacheray = {
    .name = "cacheray",
    .description = "Cacheray memory-access trace with run-time type annotations",
    .probe = cr_probe,
    .info = tk_cacheray_info,
    .dump = cr_dump,
    .validate = cr_validate,
    .convert = cr_convert,
    .report = tk_cacheray_sim_report,
    .report_html = tk_cacheray_report_html,
    .convert_dir = convert_dir,
    .dir_targets = dir_targets,
    .targets = cr_targets,
    .options = (const char *const[]){"endian", "out-endian", "thread", "range", "addr",
                                     "window", "max-tracks", "cachesim", "level", "config",
                                     "debug-info", NULL},
    .commands = tk_cacheray_commands,
    .command_options = tk_cacheray_command_options,
    .help = tk_cacheray_help,
};
