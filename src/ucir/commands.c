/* UCIR answers to the common commands: probe, dump, validate, convert.
 * Two registry entries share them: "ucir" (the 2016 spec) and "usercorn"
 * (.uc files), told apart by the header. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/format_ops.h"
#include "core/select.h"
#include <tracekit/ucir_export.h>

#include "ucir/cmd/cmd.h"
#include "ucir/ucir_int.h"

/* Text dumps show at most this many data bytes per record. */
#define TEXT_DATA_MAX 32

tk_status tk_ucir_cmd_options(const tk_options *o, tk_ucir_reader_options *ro, tk_error *err)
{
    uint64_t threads, max_frame;
    memset(ro, 0, sizeof *ro);
    if (tk_options_get_u64(o, "threads", 0, &threads, err) != TK_OK ||
        tk_options_get_u64(o, "max-frame", TK_UCIR_DEFAULT_MAX_FRAME, &max_frame, err) != TK_OK)
        return err->status;
    if (threads > 1024 || max_frame == 0)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            threads > 1024 ? "--threads: at most 1024" : "--max-frame: must not be 0");
    ro->threads = (unsigned)threads;
    ro->max_frame = max_frame;
    return TK_OK;
}

tk_ucir_reader *tk_ucir_cmd_open(tk_input *in, const tk_options *o, tk_error *err)
{
    tk_ucir_reader_options ro;
    if (tk_ucir_cmd_options(o, &ro, err) != TK_OK)
        return NULL;
    return tk_ucir_reader_new(in, &ro, err);
}

/* ---------------------------------------------------------------- dump */

static void hex_field(tk_sink *s, const char *key, const uint8_t *d, uint64_t n, int text)
{
    static const char digits[] = "0123456789abcdef";
    uint64_t shown = text && n > TEXT_DATA_MAX ? TEXT_DATA_MAX : n;
    char small[2 * TEXT_DATA_MAX + 8] = "";
    char *buf = shown <= TEXT_DATA_MAX ? small : malloc((size_t)shown * 2 + 4);
    if (!buf) {
        tk_sink_null(s, key);
        return;
    }
    size_t k = 0;
    for (uint64_t i = 0; i < shown; i++) {
        buf[k++] = digits[d[i] >> 4];
        buf[k++] = digits[d[i] & 15];
    }
    if (shown < n) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    tk_sink_str(s, key, buf, k, 0);
    if (buf != small)
        free(buf);
}

/* Without snprintf: once per map of a million-map trace. */
const char *ucir_prot_text(uint8_t prot, char buf[8])
{
    buf[0] = prot & 1 ? 'r' : '-';
    buf[1] = prot & 2 ? 'w' : '-';
    buf[2] = prot & 4 ? 'x' : '-';
    buf[3] = prot & ~7 ? '+' : '\0';
    buf[4] = '\0';
    return buf;
}

static void prot_field(tk_sink *s, uint8_t prot)
{
    char p[8];
    if (tk_sink_get_style(s) == TK_SINK_JSON)
        tk_sink_u64(s, "prot", prot, 0);
    else
        tk_sink_cstr(s, "prot", ucir_prot_text(prot, p), 0);
}

static void reg_fields(tk_sink *s, const tk_ucir_header *h, uint32_t reg, int json)
{
    char buf[24];
    const char *name = tk_ucir_reg_label(h->arch, h->mode, reg, buf, sizeof buf);
    tk_sink_cstr(s, "reg", name, 0);
    if (json)
        tk_sink_u64(s, "reg_num", reg, 0);
}

void tk_ucir_sink_op_fields(tk_sink *s, const tk_ucir_header *h, const tk_ucir_op *op,
                            const tk_ucir_pos *pos)
{
    int json = tk_sink_get_style(s) == TK_SINK_JSON;
    tk_sink_u64(s, "record", pos->record, TK_SINK_BARE);
    if (json) {
        if (pos->frame == TK_NO_RECORD)
            tk_sink_null(s, "frame");
        else
            tk_sink_u64(s, "frame", pos->frame, 0);
        tk_sink_u64(s, "frame_offset", pos->frame_offset, 0);
        tk_sink_u64(s, "op_offset", pos->op_offset, 0);
    } else {
        char at[64];
        if (pos->frame == TK_NO_RECORD)
            snprintf(at, sizeof at, "@0x%llx", (unsigned long long)pos->frame_offset);
        else
            snprintf(at, sizeof at, "f%llu+0x%llx", (unsigned long long)pos->frame,
                     (unsigned long long)pos->op_offset);
        tk_sink_cstr(s, "at", at, TK_SINK_BARE);
    }
    tk_sink_cstr(s, "kind", tk_ucir_kind_name(op->kind), TK_SINK_BARE | TK_SINK_ENUM);
    if (json || op->depth)
        tk_sink_u64(s, "depth", op->depth, 0);
    switch (op->kind) {
    case TK_UCIR_FRAME:
        tk_sink_bool(s, "keyframe", op->keyframe);
        tk_sink_u64(s, "op_count", op->op_count, 0);
        if (h->variant == TK_UCIR_SPEC)
            tk_sink_u64(s, "compressed_size", op->csize, 0);
        else
            tk_sink_u64(s, "pid", op->pid, 0);
        break;
    case TK_UCIR_EXEC_ABS:
    case TK_UCIR_JMP:
        tk_sink_u64(s, "addr", op->addr, TK_SINK_ADDR);
        tk_sink_u64(s, "size", op->size, 0);
        break;
    case TK_UCIR_EXEC_REL:
    case TK_UCIR_STEP:
        tk_sink_u64(s, "size", op->size, 0);
        break;
    case TK_UCIR_REG_CHANGE:
        reg_fields(s, h, op->reg, json);
        tk_sink_u64(s, "value", op->value, TK_SINK_HEX);
        break;
    case TK_UCIR_SPREG_CHANGE:
        reg_fields(s, h, op->reg, json);
        hex_field(s, "data", op->data, op->len, !json);
        break;
    case TK_UCIR_MEM_READ:
    case TK_UCIR_MEM_WRITE:
        tk_sink_u64(s, "addr", op->addr, TK_SINK_ADDR);
        tk_sink_u64(s, "size", op->size, 0);
        if (h->variant == TK_UCIR_SPEC || op->kind == TK_UCIR_MEM_WRITE)
            hex_field(s, "data", op->data, op->len, !json);
        break;
    case TK_UCIR_MEM_MAP:
        tk_sink_u64(s, "addr", op->addr, TK_SINK_ADDR);
        tk_sink_u64(s, "size", op->size, TK_SINK_HEX);
        prot_field(s, op->prot);
        if (h->variant == TK_UCIR_USERCORN) {
            tk_sink_u64(s, "map_offset", op->map_off, TK_SINK_HEX);
            tk_sink_u64(s, "map_size", op->map_len, TK_SINK_HEX);
            tk_sink_str(s, "desc", op->desc, op->desc_len, 0);
            tk_sink_str(s, "map_file", op->path, op->path_len, 0);
        }
        break;
    case TK_UCIR_MEM_UNMAP:
        tk_sink_u64(s, "addr", op->addr, TK_SINK_ADDR);
        tk_sink_u64(s, "size", op->size, TK_SINK_HEX);
        break;
    case TK_UCIR_MEM_PROT:
        tk_sink_u64(s, "addr", op->addr, TK_SINK_ADDR);
        tk_sink_u64(s, "size", op->size, TK_SINK_HEX);
        prot_field(s, op->prot);
        break;
    case TK_UCIR_SYSCALL:
        tk_sink_u64(s, "num", op->num, 0);
        tk_sink_u64(s, "ret", op->ret, TK_SINK_HEX);
        if (json) {
            tk_sink_array_begin(s, "args");
            for (uint32_t i = 0; i < op->argc; i++)
                tk_sink_u64(s, NULL, op->args[i], 0);
            tk_sink_array_end(s);
        } else {
            char buf[24 * 8 + 8];
            size_t k = 0;
            buf[0] = '\0';
            for (uint32_t i = 0; i < op->argc && k < sizeof buf - 24; i++)
                k += (size_t)snprintf(buf + k, sizeof buf - k, "%s0x%llx", i ? "," : "",
                                      (unsigned long long)op->args[i]);
            if (k >= sizeof buf - 24 && op->argc)
                snprintf(buf + k, sizeof buf - k, ",...");
            tk_sink_cstr(s, "args", buf, 0);
        }
        tk_sink_u64(s, "op_count", op->op_count, 0);
        break;
    default:
        break;
    }
}

void tk_ucir_sink_op(tk_sink *s, const tk_ucir_header *h, const tk_ucir_op *op,
                     const tk_ucir_pos *pos)
{
    tk_sink_record_begin(s);
    tk_ucir_sink_op_fields(s, h, op, pos);
    tk_sink_record_end(s);
}

/* ------------------------------------------------------------ validate */

const char *ucir_warning_code(ucir_warning w)
{
    return w == UCIR_W_FIRST_NOT_KEY ? "first-frame-not-key" : w == UCIR_W_NO_ADDRESS ? "no-address" : "";
}

const char *ucir_warning_message(ucir_warning w)
{
    return w == UCIR_W_FIRST_NOT_KEY ? "the first frame is not a keyframe (it should hold the setup)"
           : w == UCIR_W_NO_ADDRESS ? "an instruction before any address is known (no EXEC_ABS or JMP yet)"
           : "";
}

static void warn(tk_sink *s, uint64_t *nwarnings, ucir_warning w, uint64_t record, uint64_t frame)
{
    ++*nwarnings;
    if (!s)
        return;
    tk_sink_record_begin(s);
    tk_sink_cstr(s, "severity", "warning", TK_SINK_BARE);
    tk_sink_u64(s, "record", record, 0);
    if (frame == TK_NO_RECORD)
        tk_sink_null(s, "frame");
    else
        tk_sink_u64(s, "frame", frame, 0);
    tk_sink_cstr(s, "code", ucir_warning_code(w), TK_SINK_ENUM);
    tk_sink_cstr(s, "message", ucir_warning_message(w), 0);
    tk_sink_record_end(s);
}

/* Spec traces: whole frames as the workers scanned them. */
static tk_status validate_frames(tk_ucir_reader *r, tk_sink *s, uint64_t *nwarnings, tk_error *err)
{
    int first = 1, addr_known = 0, rc;
    do {
        const ucir_frame *fr = NULL;
        tk_ucir_pos pos;
        rc = ucir_reader_next_frame(r, &fr, err);
        if (!fr)
            break;
        tk_ucir_reader_pos(r, &pos);
        if (first && !fr->keyframe)
            warn(s, nwarnings, UCIR_W_FIRST_NOT_KEY, pos.record, fr->index);
        first = 0;
        if (!fr->failed && !addr_known && fr->scan.first_exec) {
            if (fr->scan.first_exec == TK_UCIR_EXEC_REL)
                warn(s, nwarnings, UCIR_W_NO_ADDRESS, pos.record + 1 + fr->scan.first_exec_record,
                     fr->index);
            addr_known = 1;
        }
    } while (rc > 0);
    return rc < 0 ? err->status : TK_OK;
}

static tk_status validate_records(tk_ucir_reader *r, tk_sink *s, uint64_t *nwarnings, tk_error *err)
{
    int first = 1, addr_known = 0, rc;
    tk_ucir_op op;
    tk_ucir_pos pos;
    while ((rc = tk_ucir_next(r, &op, err)) > 0) {
        tk_ucir_reader_pos(r, &pos);
        if (op.kind == TK_UCIR_FRAME && first) {
            first = 0;
            if (!op.keyframe)
                warn(s, nwarnings, UCIR_W_FIRST_NOT_KEY, pos.record, pos.frame);
        } else if (op.kind == TK_UCIR_EXEC_ABS || op.kind == TK_UCIR_JMP) {
            addr_known = 1;
        } else if ((op.kind == TK_UCIR_EXEC_REL || op.kind == TK_UCIR_STEP) && !addr_known) {
            warn(s, nwarnings, UCIR_W_NO_ADDRESS, pos.record, pos.frame);
            addr_known = 1;
        }
    }
    return rc < 0 ? err->status : TK_OK;
}

static tk_status uc_validate(tk_input *in, const tk_options *o, tk_sink *s, uint64_t *nwarnings,
                             tk_error *err)
{
    tk_ucir_reader *r = tk_ucir_cmd_open(in, o, err);
    if (!r)
        return err->status;
    tk_status st = tk_ucir_reader_header(r)->variant == TK_UCIR_SPEC
                       ? validate_frames(r, s, nwarnings, err)
                       : validate_records(r, s, nwarnings, err);
    tk_ucir_reader_free(r);
    return st;
}

/* ------------------------------------------------------------- convert */

static const char *const spec_targets[] = {"ucir", "jsonl", "tenet", "drcov", "perfetto", "parquet", NULL};
static const char *const uc_targets[] = {"jsonl", "tenet", "drcov", "perfetto", "parquet", NULL};

/* The same frames (boundaries and keyframe flags kept), recompressed. */
static tk_status to_ucir(tk_ucir_reader *r, const tk_options *o, FILE *out, tk_error *err)
{
    uint64_t level;
    if (tk_options_get_u64(o, "level", 6, &level, err) != TK_OK)
        return err->status;
    if (level > 9)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD, "--level: 0..9, not %llu",
                            (unsigned long long)level);
    const tk_ucir_header *h = tk_ucir_reader_header(r);
    if (h->variant != TK_UCIR_SPEC)
        return tk_error_set(err, TK_EUNSUPPORTED, TK_NO_OFFSET, TK_NO_RECORD,
                            "converting .uc traces to the 2016 layout needs a replay (its MEM_READs carry no data)");
    tk_ucir_writer_options wo = {0, 0, (int)level};
    tk_ucir_writer *w = tk_ucir_writer_new(out, h, &wo, err);
    if (!w)
        return err->status;
    tk_ucir_op op;
    tk_status st = TK_OK;
    int rc = 0;
    while (st == TK_OK && (rc = tk_ucir_next(r, &op, err)) > 0)
        st = tk_ucir_write(w, &op, err);
    if (st == TK_OK && rc < 0)
        st = err->status;
    tk_error tmp;
    tk_status fst = tk_ucir_writer_free(w, &tmp);
    if (st == TK_OK && fst != TK_OK) {
        *err = tmp;
        st = fst;
    }
    return st;
}

/* What each target selects: jsonl records, tenet and drcov a window of
 * instructions; a cut UCIR trace would need the machine state at its
 * start (a keyframe made from a replay), which is not written. */
static tk_status convert_selection(const tk_selection *s, const char *target, tk_error *err)
{
    const char *opt = tk_selection_option(s);
    if (!opt || strcmp(target, "jsonl") == 0)
        return ucir_check_selection(s, err);
    if (strcmp(target, "ucir") == 0)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "%s does not apply to --to ucir: a trace cut at an instruction "
                            "would need the machine state there (tenet, drcov and jsonl "
                            "take --range)",
                            opt);
    if (s->naddrs)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--addr does not apply to --to %s, which follows consecutive "
                            "instructions (jsonl takes --addr; %s takes --range)",
                            target, target);
    return ucir_check_selection(s, err);
}

static tk_status uc_convert(tk_input *in, const tk_options *o, const char *target, FILE *out,
                            tk_error *err)
{
    if (strcmp(target, "perfetto") == 0) /* reads the whole trace: its own checks */
        return tk_ucir_perfetto(in, o, out, err);
    tk_selection *sel = tk_selection_new(o, err);
    if (!sel)
        return err->status;
    uint64_t from = 0, to = UINT64_MAX;
    tk_ucir_reader *r = NULL;
    if (convert_selection(sel, target, err) == TK_OK) {
        from = sel->has_range ? sel->from : 0;
        to = sel->has_range ? sel->to : UINT64_MAX;
        r = strcmp(target, "jsonl") == 0 ? ucir_cmd_open_selected(in, o, TK_UCIR_SELECT_STOP, err)
                                         : tk_ucir_cmd_open(in, o, err);
    }
    tk_selection_free(sel);
    if (!r)
        return err->status;
    tk_status st;
    if (strcmp(target, "ucir") == 0) {
        st = to_ucir(r, o, out, err);
    } else if (strcmp(target, "tenet") == 0) {
        st = tk_ucir_export_tenet_window(r, out, from, to, err);
    } else if (strcmp(target, "drcov") == 0) {
        st = tk_ucir_export_drcov_window(r, out, from, to, NULL, err);
    } else {
        tk_sink *s = tk_fmt_jsonl_sink(out, o, err);
        if (!s) {
            tk_ucir_reader_free(r);
            return err->status;
        }
        const tk_ucir_header *h = tk_ucir_reader_header(r);
        tk_ucir_op op;
        tk_ucir_pos pos;
        int rc;
        while ((rc = tk_ucir_next(r, &op, err)) > 0) {
            tk_ucir_reader_pos(r, &pos);
            tk_ucir_sink_op(s, h, &op, &pos);
        }
        st = rc < 0 ? err->status : tk_sink_finish(s, err);
        tk_sink_free(s);
    }
    tk_ucir_reader_free(r);
    return st;
}

/* --------------------------------------------------------------- probe */

static int is_uc(const uint8_t *d, size_t n)
{
    static const uint8_t ident[10] = {0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59};
    return (n >= 84 && memcmp(d + UCIR_UC_HEADER, ident, 10) == 0) ||
           (n >= 8 && tk_ld32(d + 4, 1) == 1);
}

static int probe_spec(const uint8_t *d, size_t n, int whole)
{
    if (n < 4 || memcmp(d, "UCIR", 4) != 0)
        return 0;
    if (n < 8) /* too short to tell the two apart: the spec reader says so */
        return whole ? 50 : 0;
    if (is_uc(d, n))
        return 0;
    return tk_ld32(d + 4, 1) == 0 ? 100 : 60;
}

static int probe_uc(const uint8_t *d, size_t n, int whole)
{
    (void)whole;
    return n >= 8 && memcmp(d, "UCIR", 4) == 0 && is_uc(d, n) ? 100 : 0;
}

/* Frame decoding (threads, max-frame), dump's view (records), the zlib
 * level of a rewrite (level), selections (range, addr), the counters'
 * window on a Perfetto timeline (window). */
static const char *const ucir_option_keys[] = {"threads", "max-frame", "records", "level",
                                                  "range", "addr", "window", NULL};

/* The shared Parquet tables (src/ucir/parquet.c). */
static const char *const dir_targets[] = {"parquet", NULL};

static tk_status convert_dir(tk_input *in, const tk_options *o, const char *target,
                             const char *source, const char *dir, tk_error *err)
{
    (void)target; /* "parquet", the only one */
    return tk_ucir_parquet(in, o, source, dir, err);
}

const struct tk_format tk_fmt_ucir = {
    .name = "ucir",
    .description = "Usercorn replay trace, 2016 spec (big-endian, zlib frames)",
    .probe = probe_spec,
    .info = tk_ucir_info_cmd,
    .dump = tk_ucir_dump,
    .validate = uc_validate,
    .convert = uc_convert,
    .report = tk_ucir_report,
    .report_html = tk_ucir_report_html,
    .convert_dir = convert_dir,
    .dir_targets = dir_targets,
    .targets = spec_targets,
    .options = ucir_option_keys,
    .commands = tk_ucir_commands,
    .command_options = tk_ucir_command_options,
    .help = tk_ucir_help,
};

const struct tk_format tk_fmt_usercorn = {
    .name = "usercorn",
    .description = "usercorn .uc trace (Snappy stream, little-endian ops)",
    .probe = probe_uc,
    .info = tk_ucir_info_cmd,
    .dump = tk_ucir_dump,
    .validate = uc_validate,
    .convert = uc_convert,
    .report = tk_ucir_report,
    .report_html = tk_ucir_report_html,
    .convert_dir = convert_dir,
    .dir_targets = dir_targets,
    .targets = uc_targets,
    .options = ucir_option_keys,
    .commands = tk_ucir_commands,
    .command_options = tk_ucir_command_options,
    .help = tk_ucir_help,
};
