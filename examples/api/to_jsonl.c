/* Convert any trace to JSON Lines with the generic reader: one object per
 * record, its common header and a few of its format's own fields, in
 * docs/json.md's names (tracekit convert --to jsonl writes them all).
 * KEY=VALUE arguments are options, with the command line's keys: a
 * selection (thread=1001, range=0:100, addr=0x1000-0x2000, func=main) or
 * a format's own (endian=big); the reader applies them.
 *   cc to_jsonl.c $(pkg-config --cflags --libs tracekit) -o to_jsonl
 *   ./to_jsonl examples/cacheray/heap.trace thread=1001 */
#include <stdio.h>
#include <string.h>
#include <tracekit/tracekit.h>

/* The format's own record, through the member of `as` that `format` names. */
static void format_fields(tk_sink *s, const tk_record *rec)
{
    switch (rec->format) {
    case TK_RECORD_CACHERAY: {
        const tk_cacheray_record *c = rec->as.cacheray;
        tk_sink_u64(s, "addr", c->addr, TK_SINK_ADDR);
        if (c->type == TK_CACHERAY_READ || c->type == TK_CACHERAY_WRITE)
            tk_sink_u64(s, "size", c->size, 0);
        if (c->type == TK_CACHERAY_RTTA_ADD) /* not NUL-terminated */
            tk_sink_str(s, "type_name", c->type_name, c->typename_len, 0);
        break;
    }
    case TK_RECORD_CASEMATE:
        tk_sink_u64(s, "id", rec->as.casemate->id, 0);
        if (rec->as.casemate->src_kind == TK_CASEMATE_SRC_STRING)
            tk_sink_str(s, "src", rec->as.casemate->src, rec->as.casemate->src_len, 0);
        break;
    case TK_RECORD_UCIR: {
        const tk_ucir_op *op = rec->as.ucir;
        if (op->kind == TK_UCIR_EXEC_ABS ||
            (op->kind >= TK_UCIR_MEM_READ && op->kind <= TK_UCIR_MEM_UNMAP)) {
            tk_sink_u64(s, "addr", op->addr, TK_SINK_ADDR);
            tk_sink_u64(s, "size", op->size, 0);
        }
        break;
    }
    case TK_RECORD_XRAY:
        if (rec->as.xray->kind <= TK_XRAY_ENTER_ARG) /* a function's, not an event */
            tk_sink_i64(s, "func_id", rec->as.xray->func_id);
        break;
    }
}

/* The header every format fills. */
static void write_record(tk_sink *s, const tk_record *rec)
{
    tk_sink_record_begin(s);
    tk_sink_u64(s, "record", rec->index, 0);
    if (rec->offset != TK_NO_OFFSET) /* UCIR: the offset of the record's frame */
        tk_sink_u64(s, rec->format == TK_RECORD_UCIR ? "frame_offset" : "offset",
                    rec->offset, 0);
    if (rec->line)
        tk_sink_u64(s, "line", rec->line, 0);
    tk_sink_cstr(s, "kind", rec->kind, TK_SINK_ENUM);
    if (rec->has_thread)
        tk_sink_u64(s, "thread", rec->thread, 0);
    if (rec->has_time) /* XRay's, the only time recorded today: a TSC */
        tk_sink_u64(s, "tsc", rec->time, 0);
    format_fields(s, rec);
    tk_sink_record_end(s);
}

/* KEY=VALUE arguments into `o`. */
static tk_status parse_options(tk_options *o, int argc, char **argv, tk_error *err)
{
    for (int i = 0; i < argc; i++) {
        char key[64];
        const char *eq = strchr(argv[i], '=');
        if (!eq || (size_t)(eq - argv[i]) >= sizeof key)
            return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                                "'%s': options are KEY=VALUE", argv[i]);
        snprintf(key, sizeof key, "%.*s", (int)(eq - argv[i]), argv[i]);
        if (tk_options_set(o, key, eq + 1, err) != TK_OK)
            return err->status;
    }
    return TK_OK;
}

int main(int argc, char **argv)
{
    tk_error err;
    tk_record rec;
    tk_reader *r = NULL;
    tk_sink *s = NULL;
    int rc = -1;

    if (argc < 2) {
        fprintf(stderr, "usage: to_jsonl TRACE [KEY=VALUE]...\n");
        return 2;
    }
    tk_options *o = tk_options_new(&err);
    if (o && parse_options(o, argc - 2, argv + 2, &err) == TK_OK &&
        (r = tk_reader_open(argv[1], NULL, o, &err)) &&
        (s = tk_sink_new(stdout, TK_SINK_JSON, &err))) {
        while ((rc = tk_reader_next(r, &rec, &err)) == 1)
            write_record(s, &rec);
        tk_error werr; /* the records before a reading error are written too */
        if (tk_sink_finish(s, &werr) != TK_OK && rc == 0) {
            err = werr;
            rc = -1;
        }
    }
    tk_sink_free(s);
    tk_reader_free(r);
    tk_options_free(o);
    if (rc < 0) {
        char msg[600];
        fprintf(stderr, "to_jsonl: %s\n", tk_error_format(&err, argv[1], msg, sizeof msg));
        return err.status == TK_EUSAGE ? 2 : 1;
    }
    return 0;
}
