/* Fuzz target: the break-before-make checker (tk_casemate_check_*).
 *
 * The input is read as a casemate log and its records fed to the checker
 * under options picked from a hash of the input, with a few watched
 * addresses taken from the records. The checker must end in one of three
 * ways: the end of the log (no violation, consistent statistics), a
 * violation (a known code with its message, the violating record's id and
 * tid, and it sticks), or an error (unsupported configuration or no
 * memory, which sticks too). Every printer -- state, entries, the context
 * block, the Graphviz graph -- must write clean text lines whatever the
 * log held. A second run must reach the same result (no hidden state). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

typedef struct result {
    int rc;
    uint64_t events;
    char code[64];
    uint64_t id, tid;
} result;

static void check_text(tkf_memfile *m)
{
    tkf_memfile_close(m);
    tkf_check_text_lines(m->buf, m->len);
    tkf_memfile_free(m);
}

static void check_dot(const tk_casemate_checker *k)
{
    tkf_memfile m;
    tk_error err;
    tkf_memfile_open(&m);
    tk_status st = tk_casemate_check_write_dot(k, m.fp, &err);
    tkf_memfile_close(&m);
    TKF_CHECK(st == TK_OK || st == TK_ENOMEM, "write_dot: %s", err.message);
    tkf_check_text_lines(m.buf, m.len);
    TKF_CHECK(m.len >= 2 && strncmp(m.buf, "digraph casemate {\n", 19) == 0 &&
                  strcmp(m.buf + m.len - 2, "}\n") == 0,
              "not a whole graph");
    tkf_memfile_free(&m);
}

static result run(const uint8_t *data, size_t size, const tk_casemate_check_options *o, int print)
{
    result res = {0};
    tk_error err;
    tk_error_clear(&err);
    tk_input *in = tk_input_from_memory(data, size, "fuzz-input", &err);
    TKF_CHECK(in != NULL, "tk_input_from_memory: %s", err.message);
    tk_casemate_reader *r = tk_casemate_reader_new(in, &err);
    TKF_CHECK(r != NULL, "reader: %s", err.message);
    tk_casemate_checker *k = tk_casemate_check_new(o, &err);
    TKF_CHECK(k != NULL, "tk_casemate_check_new: %s", err.message);
    uint64_t watched[4];
    size_t nwatch = 0;
    tk_casemate_record rec;
    uint64_t fed = 0;
    while (tk_casemate_next(r, &rec, &err) > 0) {
        if (nwatch < 4 && (rec.address || rec.location)) {
            watched[nwatch] = rec.address ? rec.address : rec.location;
            TKF_CHECK(tk_casemate_check_watch(k, watched[nwatch], &err) == TK_OK, "watch");
            nwatch++;
        }
        res.rc = tk_casemate_check_feed(k, &rec, &err);
        fed++;
        if (print && fed <= 64) {
            tkf_memfile m;
            tkf_memfile_open(&m);
            tk_casemate_check_print_record(&rec, m.fp);
            tk_casemate_check_print_state(k, m.fp);
            for (size_t i = 0; i < nwatch; i++) {
                tk_casemate_entry e;
                tk_casemate_check_entry(k, watched[i], &e);
                TKF_CHECK(e.address == (watched[i] & ~(uint64_t)7), "entry address");
                tk_casemate_check_print_entry(&e, m.fp);
            }
            check_text(&m);
        }
        if (res.rc == 1) {
            const tk_casemate_violation *v = tk_casemate_check_violation(k);
            TKF_CHECK(v != NULL, "violation without details");
            const char *msg = NULL;
            size_t i = 0;
            for (; i < tk_casemate_check_code_count(); i++)
                if (strcmp(tk_casemate_check_code(i, &msg), v->code) == 0)
                    break;
            TKF_CHECK(i < tk_casemate_check_code_count(), "unknown code %s", v->code);
            TKF_CHECK(strcmp(msg, v->message) == 0, "message of %s", v->code);
            TKF_CHECK(v->id == rec.id && v->tid == rec.tid, "violation names another record");
            snprintf(res.code, sizeof res.code, "%s", v->code);
            res.id = v->id;
            res.tid = v->tid;
            break;
        }
        TKF_CHECK(res.rc == 0 || res.rc == -1, "feed returned %d", res.rc);
        if (res.rc < 0) {
            TKF_CHECK(err.status == TK_EUNSUPPORTED || err.status == TK_ENOMEM,
                      "error status %d: %s", (int)err.status, err.message);
            TKF_CHECK(err.message[0] != '\0', "error without a message");
            TKF_CHECK(tk_casemate_check_violation(k) == NULL, "error and violation");
            break;
        }
    }
    res.events = tk_casemate_check_events(k);
    TKF_CHECK(res.events == fed, "%llu events for %llu records",
              (unsigned long long)res.events, (unsigned long long)fed);
    if (res.rc) { /* stopped for good */
        tk_casemate_record isb = {.kind = TK_CASEMATE_BARRIER, .barrier = TK_CASEMATE_ISB};
        TKF_CHECK(tk_casemate_check_feed(k, &isb, &err) == res.rc, "the checker did not stay stopped");
        TKF_CHECK(tk_casemate_check_events(k) == fed, "a stopped checker counted a record");
    } else {
        TKF_CHECK(tk_casemate_check_violation(k) == NULL, "a violation after a pass");
    }
    tk_casemate_check_stats st;
    tk_casemate_check_get_stats(k, &st);
    TKF_CHECK(st.entries == st.valid + st.invalid_unclean + st.invalid_clean, "entry counts");
    TKF_CHECK(st.roots == st.roots_stage1 + st.roots_stage2, "root counts");
    if (print) {
        tkf_memfile m;
        tkf_memfile_open(&m);
        tk_casemate_check_print_context(k, m.fp);
        check_text(&m);
        check_dot(k);
    }
    tk_casemate_check_free(k);
    tk_casemate_reader_free(r);
    tk_input_close(in);
    return res;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = tkf_hash(data, size);
    tk_casemate_check_options o = {
        .racy = (int)(h & 1),
        .ignore_uninit = (int)(h >> 1 & 1),
        .promote_tlbi_by_id = (int)(h >> 2 & 1),
        .no_sysreg_defaults = (h >> 3 & 7) == 0,
        .hw_af = (int)(h >> 6 & 1),
    };
    result a = run(data, size, &o, 1), b = run(data, size, &o, 0);
    TKF_CHECK(a.rc == b.rc && a.events == b.events && strcmp(a.code, b.code) == 0 &&
                  a.id == b.id && a.tid == b.tid,
              "two runs differ: %d/%s vs %d/%s", a.rc, a.code, b.rc, b.code);
    return 0;
}
