/* `tracekit report` for casemate: the log in one page — records by kind,
 * threads, and the break-before-make verdict (the checker run with
 * casemate-check's defaults, as `tracekit bbm` does without options). */
#include <string.h>

#include <tracekit/casemate_check.h>

#include "casemate/casemate_int.h"
#include "core/select.h"
#include "core/hashmap.h"

typedef struct summary {
    uint64_t records, by_kind[TK_CASEMATE_KIND_COUNT];
    tk_map threads;
    int verdict;            /* 0 ok, 1 violation, -1 the model gave up */
    uint64_t at_line, at_record;
    tk_error gave_up;       /* verdict -1: why */
} summary;

/* The violation as `tracekit bbm --json` writes it. */
static void emit_violation(tk_sink *s, const tk_casemate_violation *v, const summary *sm)
{
    tk_sink_object_begin(s, "violation");
    tk_sink_cstr(s, "code", v->code, TK_SINK_ENUM);
    tk_sink_cstr(s, "message", v->message, 0);
    tk_sink_u64(s, "record", sm->at_record, 0);
    tk_sink_u64(s, "line", sm->at_line, 0);
    tk_sink_u64(s, "id", v->id, 0);
    tk_sink_u64(s, "thread", v->tid, 0);
    if (v->src_kind == TK_CASEMATE_SRC_STRING)
        tk_sink_str(s, "src", v->src, v->src_len, 0);
    else if (v->src_kind == TK_CASEMATE_SRC_INT)
        tk_sink_u64(s, "src_id", v->src_int, 0);
    tk_sink_object_end(s);
}

static void emit_verdict(tk_sink *s, const summary *sm, const tk_casemate_checker *k,
                         tk_casemate_reader *r)
{
    const tk_casemate_violation *v = tk_casemate_check_violation(k);
    tk_sink_object_begin(s, "bbm");
    tk_sink_cstr(s, "verdict", sm->verdict == 0 ? "ok"
                               : sm->verdict > 0 ? "violation" : "not_checked", 0);
    if (v)
        emit_violation(s, v, sm);
    else
        tk_sink_null(s, "violation");
    if (sm->verdict < 0) { /* where and why the model gave up */
        tk_sink_object_begin(s, "check_error");
        tk_sink_cstr(s, "message", sm->gave_up.message, 0);
        tk_sink_u64(s, "record", sm->at_record, 0);
        tk_sink_u64(s, "line", sm->at_line, 0);
        tk_sink_object_end(s);
    } else {
        tk_sink_null(s, "check_error");
    }
    size_t len;
    const char *expected = tk_casemate_reader_expected(r, &len);
    if (expected) /* the log's own "! message" line: does the verdict agree? */
        tk_sink_bool(s, "as_expected", v && strlen(v->message) == len &&
                                           memcmp(v->message, expected, len) == 0);
    else
        tk_sink_null(s, "as_expected");
    tk_sink_object_end(s);
}

static void emit(tk_sink *s, tk_input *in, tk_casemate_reader *r, const summary *sm,
                 const tk_casemate_checker *k)
{
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "file", tk_input_name(in), 0);
    tk_sink_cstr(s, "format", "casemate", 0);
    tk_sink_u64(s, "records", sm->records, 0);
    tk_sink_u64(s, "thread_count", sm->threads.n, 0);
    tk_sink_array_begin(s, "by_kind");
    for (int i = 0; i < TK_CASEMATE_KIND_COUNT; i++) {
        if (!sm->by_kind[i])
            continue;
        tk_sink_object_begin(s, NULL);
        tk_sink_cstr(s, "kind", tk_casemate_kind_name((tk_casemate_kind)i), TK_SINK_ENUM);
        tk_sink_u64(s, "count", sm->by_kind[i], 0);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    size_t len;
    const char *expected = tk_casemate_reader_expected(r, &len);
    if (expected)
        tk_sink_str(s, "expected", expected, len, 0);
    else
        tk_sink_null(s, "expected");
    emit_verdict(s, sm, k, r);
    tk_sink_object_end(s);
}

/* Count the record and step the checker (until its verdict). */
static int step(summary *sm, tk_casemate_checker *k, tk_casemate_reader *r,
                const tk_casemate_record *rec)
{
    sm->records++;
    sm->by_kind[rec->kind]++;
    if (!tk_map_u64(&sm->threads, rec->tid))
        return -1;
    if (sm->verdict != 0)
        return 0;
    tk_error e;
    tk_error_clear(&e);
    sm->verdict = tk_casemate_check_feed(k, rec, &e);
    if (sm->verdict != 0) {
        sm->at_line = tk_casemate_reader_line(r);
        sm->at_record = tk_casemate_reader_index(r);
        sm->gave_up = e;
    }
    return 0;
}

tk_status tk_casemate_report(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err)
{
    const char *sel = tk_sel_option_given(o); /* a subset's verdict is not the log's */
    if (sel)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "casemate's report checks break-before-make over the whole "
                            "log: %s does not apply (dump, info and convert select)",
                            sel);
    tk_casemate_reader *r = tk_casemate_reader_new(in, err);
    if (!r)
        return err->status;
    tk_casemate_check_options opt;
    tk_casemate_check_options_init(&opt);
    tk_casemate_checker *k = tk_casemate_check_new(&opt, err);
    summary sm;
    memset(&sm, 0, sizeof sm);
    tk_map_init(&sm.threads, 0);
    tk_casemate_record rec;
    int rc = k ? 0 : -1;
    while (k && (rc = tk_casemate_next(r, &rec, err)) > 0)
        if (step(&sm, k, r, &rec) != 0) {
            rc = -1;
            tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
            break;
        }
    if (rc == 0)
        emit(s, in, r, &sm, k);
    tk_map_free(&sm.threads);
    tk_casemate_check_free(k);
    tk_casemate_reader_free(r);
    return rc < 0 ? err->status : TK_OK;
}
