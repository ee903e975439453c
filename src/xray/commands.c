/* XRay answers to the common commands: probe, dump, validate, convert. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/select.h"
#include "core/format_ops.h"
#include "core/strbuf.h"
#include "xray/cmd/cmd.h"
#include "xray/sort.h"
#include "xray/xray_int.h"

#include <tracekit/xray_export.h>
#include <tracekit/xray_map.h>
#include <tracekit/xray_yaml.h>
#include <tracekit/xray_stack.h>

/* The header starts with a version and a mode LLVM writes. */
static int xr_header_start(const uint8_t *d)
{
    uint16_t version = tk_ld16(d, 0), type = tk_ld16(d + 2, 0);
    return (type == TK_XRAY_FDR && version >= 1 && version <= 5) ||
           (type == TK_XRAY_BASIC && version >= 1 && version <= 3);
}

static int xr_probe(const uint8_t *d, size_t n, int whole)
{
    int yaml = tk_xray_yaml_probe(d, n);
    if (yaml >= 50)
        return yaml * 9 / 10;
    if (n < 4 || !xr_header_start(d))
        return 0;
    /* Bytes 5-7 pad the TSC flags and are zero in the files LLVM writes; a
     * big-endian Cacheray trace can start 02 00 00 00 too, and then has
     * address bytes there: below Cacheray's score (when its records look
     * real), above the threshold. */
    int padded = n >= 8 && (d[5] | d[6] | d[7]);
    if (n < TK_XRAY_HEADER_SIZE) /* the reader says the header is cut short */
        return whole && !padded ? 50 : 0;
    if (padded)
        return 15;
    if (tk_ld16(d + 2, 0) == TK_XRAY_BASIC && whole &&
        (n - TK_XRAY_HEADER_SIZE) % TK_XRAY_BASIC_RECORD_SIZE)
        return 60;
    return 90;
}

struct tk_xray_map *tk_xr_open_map(const tk_options *o, tk_error *err)
{
    const char *path = tk_options_get(o, "instr-map");
    const char *demangle = tk_options_get(o, "demangle");
    tk_error_clear(err);
    if (!path)
        return NULL;
    tk_xray_map *m = tk_xray_map_open(path, err);
    if (m && demangle && strcmp(demangle, "0") == 0)
        tk_xray_map_set_demangle(m, 0);
    return m;
}

const char *tk_xr_map_name(void *map, int32_t id)
{
    return tk_xray_map_name(map, id);
}

/* A --func name is looked up in -m's map (opened for the lookup only). */
tk_xray_reader *tk_xr_open(tk_input *in, const tk_options *o, tk_error *err)
{
    tk_selection *sel = tk_selection_new(o, err);
    if (!sel)
        return NULL;
    const char *func = tk_options_get(o, "func");
    tk_xray_map *map = NULL;
    tk_xray_reader *r = NULL;
    tk_status st = TK_OK;
    if (func && tk_xr_func_is_name(func) && !(map = tk_xr_open_map(o, err)))
        st = err->status; /* TK_OK without -m: the selection says a name needs it */
    if (st == TK_OK)
        r = tk_xray_reader_new_selected(in, sel, map, err);
    tk_xray_map_free(map);
    tk_selection_free(sel);
    return r;
}

/* ---------------------------------------------------------------- dump */

/* The llvm-xray fdr-dump line for a raw record (payloads escaped, and the
 * typed-event line gets its closing '>'). */
static void fdr_line(tk_strbuf *b, const tk_xray_fdr_record *x, unsigned version,
                     tk_xray_map *map)
{
    static const char *const fn[] = {"Function Enter", "Function Exit",
                                     "Function Tail Exit", "Function Enter With Arg"};
    sb_reset(b);
    switch (x->kind) {
    case TK_XRAY_FDR_FUNCTION:
        if (map) /* -m: the name after the id (fdr-dump has no -m) */
            sb_printf(b, "<%s: #%" PRIu32 " %s delta = +%" PRIu32 ">", fn[x->action & 3],
                      x->func_id, tk_xray_map_name(map, (int32_t)x->func_id), x->delta);
        else
            sb_printf(b, "<%s: #%" PRIu32 " delta = +%" PRIu32 ">", fn[x->action & 3],
                      x->func_id, x->delta);
        break;
    case TK_XRAY_FDR_NEW_BUFFER:
        sb_printf(b, "<Thread ID: %" PRId32 ">", x->tid);
        break;
    case TK_XRAY_FDR_END_OF_BUFFER:
        sb_puts(b, "<End of Buffer>");
        break;
    case TK_XRAY_FDR_NEW_CPU:
        sb_printf(b, "<CPU: id = %u, tsc = %" PRIu64 ">", x->cpu, x->tsc);
        break;
    case TK_XRAY_FDR_TSC_WRAP:
        sb_printf(b, "<TSC Wrap: base = %" PRIu64 ">", x->tsc);
        break;
    case TK_XRAY_FDR_WALLTIME:
        sb_printf(b, "<Wall Time: seconds = %" PRIu64 ".%06" PRIu32 ">", x->seconds,
                  x->micros);
        break;
    case TK_XRAY_FDR_CALL_ARG:
        sb_printf(b, "<Call Argument: data = %" PRIu64 " (hex = 0x%" PRIx64 ")>", x->value,
                  x->value);
        break;
    case TK_XRAY_FDR_BUFFER_EXTENTS:
        sb_printf(b, "<Buffer: size = %" PRIu64 " bytes>", x->value);
        break;
    case TK_XRAY_FDR_PID:
        sb_printf(b, "<PID: %" PRId32 ">", x->pid);
        break;
    case TK_XRAY_FDR_CUSTOM_EVENT:
    case TK_XRAY_FDR_TYPED_EVENT:
        if (x->kind == TK_XRAY_FDR_TYPED_EVENT)
            sb_printf(b, "<Typed Event: delta = %+" PRId32 ", type = %u, size = %" PRId32,
                      x->event_delta, x->event_type, x->size);
        else if (version >= 5)
            sb_printf(b, "<Custom Event: delta = %+" PRId32 ", size = %" PRId32,
                      x->event_delta, x->size);
        else
            sb_printf(b, "<Custom Event: tsc = %" PRIu64 ", cpu = %u, size = %" PRId32,
                      x->tsc, x->cpu, x->size);
        sb_puts(b, ", data = '");
        sb_text_str(b, (const char *)x->payload, (size_t)x->size, 0);
        sb_puts(b, "'>");
        break;
    }
}

/* Event payloads as hex, like every byte string in tracekit's JSON. */
static void hex_data(tk_sink *s, const uint8_t *d, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    char small[256];
    char *buf = 2 * n < sizeof small ? small : malloc(2 * n + 1);
    if (!buf) {
        tk_sink_null(s, "data");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        buf[2 * i] = digits[d[i] >> 4];
        buf[2 * i + 1] = digits[d[i] & 15];
    }
    buf[2 * n] = '\0';
    tk_sink_cstr(s, "data", buf, 0);
    if (buf != small)
        free(buf);
}

static void fdr_json(tk_sink *s, const tk_xray_fdr_record *x, uint64_t i,
                     unsigned version, tk_xray_map *map)
{
    static const char *const actions[] = {"enter", "exit", "tail-exit", "enter-arg"};
    tk_sink_record_begin(s);
    tk_sink_u64(s, "record", i, 0);
    tk_sink_u64(s, "offset", x->offset, TK_SINK_HEX);
    tk_sink_cstr(s, "kind", tk_xray_fdr_kind_name(x->kind), TK_SINK_ENUM);
    switch (x->kind) {
    case TK_XRAY_FDR_FUNCTION:
        tk_sink_cstr(s, "action", actions[x->action & 3], TK_SINK_ENUM);
        tk_sink_u64(s, "func_id", x->func_id, 0);
        if (map)
            tk_sink_cstr(s, "function", tk_xray_map_name(map, (int32_t)x->func_id), 0);
        tk_sink_u64(s, "delta", x->delta, 0);
        break;
    case TK_XRAY_FDR_NEW_BUFFER: tk_sink_i64(s, "thread", x->tid); break;
    case TK_XRAY_FDR_PID: tk_sink_i64(s, "pid", x->pid); break;
    case TK_XRAY_FDR_NEW_CPU:
        tk_sink_u64(s, "cpu", x->cpu, 0);
        tk_sink_u64(s, "tsc", x->tsc, 0);
        break;
    case TK_XRAY_FDR_TSC_WRAP: tk_sink_u64(s, "tsc", x->tsc, 0); break;
    case TK_XRAY_FDR_WALLTIME:
        tk_sink_u64(s, "seconds", x->seconds, 0);
        tk_sink_u64(s, "micros", x->micros, 0);
        break;
    case TK_XRAY_FDR_CALL_ARG: tk_sink_u64(s, "arg", x->value, 0); break;
    case TK_XRAY_FDR_BUFFER_EXTENTS: tk_sink_u64(s, "size", x->value, 0); break;
    case TK_XRAY_FDR_CUSTOM_EVENT:
    case TK_XRAY_FDR_TYPED_EVENT:
        tk_sink_i64(s, "size", x->size);
        if (x->kind == TK_XRAY_FDR_TYPED_EVENT || version >= 5)
            tk_sink_i64(s, "delta", x->event_delta);
        if (x->kind == TK_XRAY_FDR_TYPED_EVENT) {
            tk_sink_u64(s, "event_type", x->event_type, 0);
        } else if (version < 5) {
            tk_sink_u64(s, "tsc", x->tsc, 0);
            tk_sink_u64(s, "cpu", x->cpu, 0);
        }
        hex_data(s, x->payload, x->size > 0 ? (size_t)x->size : 0);
        break;
    case TK_XRAY_FDR_END_OF_BUFFER: break;
    }
    tk_sink_record_end(s);
}

void tk_xr_sink_record(tk_sink *s, const tk_xray_record *r, uint64_t i, uint64_t off,
                       tk_xray_map *map)
{
    tk_sink_record_begin(s);
    tk_sink_u64(s, "record", i, TK_SINK_BARE);
    if (off == TK_NO_OFFSET) /* YAML records have no byte offset */
        tk_sink_null(s, "offset");
    else
        tk_sink_u64(s, "offset", off, TK_SINK_BARE | TK_SINK_HEX);
    tk_sink_cstr(s, "kind", tk_xray_kind_name(r->kind), TK_SINK_BARE | TK_SINK_ENUM);
    if (r->kind <= TK_XRAY_ENTER_ARG)
        tk_sink_i64(s, "func_id", r->func_id);
    if (r->kind <= TK_XRAY_ENTER_ARG && map)
        tk_sink_cstr(s, "function", tk_xray_map_name(map, r->func_id), 0);
    tk_sink_u64(s, "tsc", r->tsc, 0);
    tk_sink_u64(s, "cpu", r->cpu, 0);
    tk_sink_u64(s, "thread", r->tid, 0);
    tk_sink_u64(s, "pid", r->pid, 0);
    if (r->nargs || tk_sink_get_style(s) == TK_SINK_JSON) {
        tk_sink_array_begin(s, "args");
        for (uint32_t k = 0; k < r->nargs; k++)
            tk_sink_u64(s, NULL, r->args[k], 0);
        tk_sink_array_end(s);
    }
    if (r->kind == TK_XRAY_TYPED_EVENT)
        tk_sink_u64(s, "event_type", r->event_type, 0);
    if (r->kind >= TK_XRAY_CUSTOM_EVENT)
        hex_data(s, (const uint8_t *)r->data, r->data_len);
    tk_sink_record_end(s);
}

static tk_status options(const tk_options *o, uint64_t *skip, uint64_t *limit,
                         int *logical, tk_error *err)
{
    if (tk_options_get_u64(o, "skip", 0, skip, err) != TK_OK ||
        tk_options_get_u64(o, "limit", UINT64_MAX, limit, err) != TK_OK)
        return err->status;
    const char *v = tk_options_get(o, "records"), *sel = tk_sel_option_given(o);
    *logical = v ? strcmp(v, "logical") == 0 : sel != NULL;
    if (v && !*logical && strcmp(v, "raw") != 0)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--records: expected raw or logical, not '%s'", v);
    if (v && !*logical && sel) /* raw FDR records have no thread, time or call of their own */
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--records raw and %s exclude each other: a selection keeps "
                            "logical records (--records logical, its default)",
                            sel);
    return TK_OK;
}

static tk_status xr_dump(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err)
{
    uint64_t skip, limit, shown = 0, i = 0;
    int logical, rc = 0;
    if (options(o, &skip, &limit, &logical, err) != TK_OK)
        return err->status;
    tk_xray_map *map = tk_xr_open_map(o, err);
    if (!map && err->status != TK_OK)
        return err->status;
    tk_xray_reader *r = tk_xr_open(in, o, err);
    if (!r) {
        tk_xray_map_free(map);
        return err->status;
    }
    const tk_xray_header *h = tk_xray_reader_header(r);
    if (tk_xray_reader_layout(r) == TK_XRAY_FDR && !logical && !tk_xray_reader_is_yaml(r)) {
        tk_strbuf line = {0};
        tk_xray_fdr_record x;
        while (shown < limit && (rc = tk_xray_next_fdr(r, &x, err)) > 0) {
            if (i++ < skip)
                continue;
            if (tk_sink_get_style(s) == TK_SINK_JSON) {
                fdr_json(s, &x, i - 1, h->version, map);
            } else {
                fdr_line(&line, &x, h->version, map);
                tk_sink_record_begin(s);
                tk_sink_str(s, "record", line.p, line.len, TK_SINK_BARE);
                tk_sink_record_end(s);
            }
            shown++;
        }
        sb_free(&line);
    } else {
        tk_xray_record rec;
        while (shown < limit && (rc = tk_xray_next(r, &rec, err)) > 0) {
            if (i++ < skip) /* counts the records the selection keeps */
                continue;
            tk_xr_sink_record(s, &rec, tk_xray_reader_index(r), tk_xray_reader_offset(r), map);
            shown++;
        }
    }
    tk_xray_reader_free(r);
    tk_xray_map_free(map);
    return shown < limit && rc < 0 ? err->status : TK_OK;
}

/* ------------------------------------------------------------- convert */

static const char *const xr_targets[] = {"xray-basic", "xray-fdr", "jsonl", "chrome",
                                         "perfetto", "folded", "yaml", "parquet", NULL};

/* Folded stacks (self time, threads merged) for flame graph tools. */
static tk_status write_folded(tk_xray_reader *r, FILE *out, tk_xray_map *map,
                              tk_error *err)
{
    tk_xray_stacks *s = tk_xray_stacks_new(err);
    if (!s)
        return err->status;
    tk_xray_record rec;
    int rc;
    tk_status st = TK_OK;
    while ((rc = tk_xray_next(r, &rec, err)) > 0)
        if (tk_xray_stacks_add(s, &rec, err) < 0) {
            st = err->status;
            break;
        }
    if (rc < 0 && st == TK_OK)
        st = err->status;
    if (st == TK_OK) {
        tk_xray_stacks_print_options o = {.view = TK_XRAY_STACKS_FOLDED,
                                          .threads = TK_XRAY_STACKS_AGGREGATE,
                                          .name = tk_xr_map_name,
                                          .name_ctx = map};
        st = tk_xray_stacks_print(s, out, &o, err);
    }
    tk_xray_stacks_free(s);
    return st;
}

/* A record with its own copies of arguments and payload. */
/* llvm-xray's YAML form. Like `llvm-xray convert` the records are sorted
 * by TSC (stable), in bounded memory (sort.c: option "memory-limit"); with
 * the option "sort" set to "0" they stream in file order instead. */
static tk_status write_yaml(tk_xray_reader *r, const tk_options *o, FILE *out,
                            tk_error *err)
{
    const char *sort = tk_options_get(o, "sort");
    int sorted = !(sort && strcmp(sort, "0") == 0);
    /* llvm-xray's -symbolize without a map names every function "#<id>" */
    int named = tk_options_get(o, "instr-map") || tk_options_get(o, "symbolize");
    uint64_t limit;
    if (tk_options_get_u64(o, "memory-limit", 0, &limit, err) != TK_OK)
        return err->status;
    tk_xray_map *map = tk_xr_open_map(o, err);
    if (!map && err->status != TK_OK)
        return err->status;
    tk_xray_yaml_writer *w = tk_xray_yaml_writer_new(out, tk_xray_reader_header(r), err);
    tk_status st = w ? TK_OK : err->status;
    tk_xr_sorter *sorter = NULL;
    if (st == TK_OK && sorted && !(sorter = tk_xr_sorter_new(limit)))
        st = tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    tk_xray_record rec;
    int rc = 0;
    while (st == TK_OK && (rc = tk_xray_next(r, &rec, err)) > 0)
        st = sorted ? tk_xr_sorter_add(sorter, &rec, err)
                    : tk_xray_yaml_write(w, &rec,
                                         named ? tk_xray_map_name(map, rec.func_id) : NULL, err);
    if (st == TK_OK && rc < 0)
        st = err->status;
    while (st == TK_OK && sorted && (rc = tk_xr_sorter_next(sorter, &rec, err)) != 0)
        st = rc < 0 ? err->status
                    : tk_xray_yaml_write(w, &rec,
                                         named ? tk_xray_map_name(map, rec.func_id) : NULL, err);
    tk_xr_sorter_free(sorter);
    if (w) {
        tk_error tmp;
        tk_status fst = tk_xray_yaml_writer_free(w, &tmp);
        if (st == TK_OK && fst != TK_OK) {
            *err = tmp;
            st = fst;
        }
    }
    tk_xray_map_free(map);
    return st;
}

static tk_status xr_convert(tk_input *in, const tk_options *o, const char *target,
                            FILE *out, tk_error *err)
{
    if (strcmp(target, "perfetto") == 0) /* opens its own reader */
        return tk_xray_perfetto(in, o, out, err);
    tk_xray_reader *r = tk_xr_open(in, o, err);
    if (!r)
        return err->status;
    tk_status st = TK_OK;
    tk_xray_record rec;
    int rc = 0;
    if (strcmp(target, "jsonl") == 0) {
        tk_sink *s = tk_fmt_jsonl_sink(out, o, err);
        if (!s) {
            tk_xray_reader_free(r);
            return err->status;
        }
        while ((rc = tk_xray_next(r, &rec, err)) > 0)
            tk_xr_sink_record(s, &rec, tk_xray_reader_index(r), tk_xray_reader_offset(r), NULL);
        st = rc < 0 ? err->status : tk_sink_finish(s, err);
        tk_sink_free(s);
        tk_xray_reader_free(r);
        return st;
    }
    if (strcmp(target, "yaml") == 0) {
        st = write_yaml(r, o, out, err);
        tk_xray_reader_free(r);
        return st;
    }
    if (strcmp(target, "chrome") == 0 || strcmp(target, "folded") == 0) {
        tk_xray_map *map = tk_xr_open_map(o, err);
        if (!map && err->status != TK_OK) {
            tk_xray_reader_free(r);
            return err->status;
        }
        st = target[0] == 'c' ? tk_xray_write_chrome(r, out, tk_xr_map_name, map, err)
                              : write_folded(r, out, map, err);
        tk_xray_map_free(map);
        tk_xray_reader_free(r);
        return st;
    }
    int fdr = strcmp(target, "xray-fdr") == 0;
    uint64_t version;
    if (tk_options_get_u64(o, "xray-version", fdr ? 5 : 3, &version, err) != TK_OK) {
        tk_xray_reader_free(r);
        return err->status;
    }
    tk_xray_header h = *tk_xray_reader_header(r);
    if (h.type != (fdr ? TK_XRAY_FDR : TK_XRAY_BASIC)) {
        memset(h.raw, 0, sizeof h.raw);
        h.buffer_size = 0;
    }
    /* an input's buffer size the writer cannot use: its default */
    if (h.buffer_size < 128 || h.buffer_size > (1u << 30))
        h.buffer_size = 0;
    h.type = fdr ? TK_XRAY_FDR : TK_XRAY_BASIC;
    h.version = (uint16_t)(version > 0xFFFF ? 0 : version);
    tk_xray_writer *w = tk_xray_writer_new(out, &h, err);
    if (!w) {
        tk_xray_reader_free(r);
        return err->status;
    }
    while (st == TK_OK && (rc = tk_xray_next(r, &rec, err)) > 0) {
        st = tk_xray_write(w, &rec, err);
        if (st == TK_EUNSUPPORTED && !fdr) /* basic mode has no events */
            st = TK_OK;
    }
    if (st == TK_OK && rc < 0)
        st = err->status;
    tk_error tmp;
    tk_status fst = tk_xray_writer_free(w, &tmp);
    if (st == TK_OK && fst != TK_OK) {
        *err = tmp;
        st = fst;
    }
    tk_xray_reader_free(r);
    return st;
}

/* The shared Parquet tables (src/xray/parquet.c). */
static const char *const dir_targets[] = {"parquet", NULL};

static tk_status convert_dir(tk_input *in, const tk_options *o, const char *target,
                             const char *source, const char *dir, tk_error *err)
{
    (void)target; /* "parquet", the only one */
    return tk_xray_parquet(in, o, source, dir, err);
}

const struct tk_format tk_fmt_xray = {
    .name = "xray",
    .description = "LLVM XRay function trace (basic mode v1-3, FDR v1-5)",
    .probe = xr_probe,
    .info = tk_xr_info,
    .dump = xr_dump,
    .validate = tk_xr_validate,
    .convert = xr_convert,
    .report = tk_xr_report,
    .report_html = tk_xr_report_html,
    .convert_dir = convert_dir,
    .dir_targets = dir_targets,
    .targets = xr_targets,
    .options = (const char *const[]){"instr-map", "demangle", "records", "sort", "memory-limit",
                                     "symbolize", "xray-version", "thread", "range", "func",
                                     "deduce-sibling-calls", NULL},
    .commands = tk_xray_commands,
    .command_options = tk_xray_command_options,
    .help = tk_xray_help,
};
