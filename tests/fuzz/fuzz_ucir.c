/* Fuzz target: UCIR reader (spec frames and .uc streams), writer and the
 * common commands.
 *
 * The input is read to the end (or its first error) on one thread and on
 * three: both must give the same records, positions and error. Errors are
 * malformed-trace errors with an offset inside the input and the index of
 * the record that failed. A spec trace's records, written again, read back
 * equal, and writing those again gives the same bytes. Then info, dump,
 * validate and convert run through the format API and must agree with what
 * the reader saw (records, validate's two warnings). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

typedef struct recs {
    tk_ucir_op *v;     /* data/args/desc/path: owned copies */
    tk_ucir_pos *pos;
    size_t n, cap;
    int rc;            /* 0 end, -1 error, -2 no header */
    tk_error err;
    tk_ucir_header h;
} recs;

static void *dup(const void *p, size_t n)
{
    void *c = malloc(n ? n : 1);
    TKF_CHECK(c != NULL, "out of memory");
    if (n)
        memcpy(c, p, n);
    return c;
}

static void push(recs *r, const tk_ucir_op *op, const tk_ucir_pos *pos)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
        r->pos = realloc(r->pos, r->cap * sizeof *r->pos);
        TKF_CHECK(r->v && r->pos, "out of memory");
    }
    tk_ucir_op *c = &r->v[r->n];
    *c = *op;
    c->data = op->len ? dup(op->data, (size_t)op->len) : NULL;
    c->args = op->argc ? dup(op->args, op->argc * sizeof *op->args) : NULL;
    c->desc = op->desc_len ? dup(op->desc, op->desc_len) : NULL;
    c->path = op->path_len ? dup(op->path, op->path_len) : NULL;
    r->pos[r->n++] = *pos;
}

static void recs_free(recs *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free((void *)r->v[i].data);
        free((void *)r->v[i].args);
        free((void *)r->v[i].desc);
        free((void *)r->v[i].path);
    }
    free(r->v);
    free(r->pos);
    memset(r, 0, sizeof *r);
}

static void read_mem(const void *d, size_t n, unsigned threads, recs *out)
{
    memset(out, 0, sizeof *out);
    tk_error_clear(&out->err);
    tk_input *in = tk_input_from_memory(d, n, "fuzz-input", &out->err);
    TKF_CHECK(in != NULL, "tk_input_from_memory");
    tk_ucir_reader_options o = {threads, 0};
    tk_ucir_reader *r = tk_ucir_reader_new(in, &o, &out->err);
    if (!r) {
        out->rc = -2;
        tk_input_close(in);
        return;
    }
    out->h = *tk_ucir_reader_header(r);
    tk_ucir_op op;
    tk_ucir_pos pos;
    int rc;
    while ((rc = tk_ucir_next(r, &op, &out->err)) > 0) {
        tk_ucir_reader_pos(r, &pos);
        TKF_CHECK(pos.record == out->n, "record index %llu, expected %zu",
                  (unsigned long long)pos.record, out->n);
        TKF_CHECK(op.kind < TK_UCIR_KIND_COUNT && op.depth <= 1, "kind %d depth %u", (int)op.kind,
                  op.depth);
        push(out, &op, &pos);
    }
    out->rc = rc;
    TKF_CHECK(rc == 0 || rc == -1, "tk_ucir_next returned %d", rc);
    tk_error again;
    TKF_CHECK(tk_ucir_next(r, &op, &again) == rc, "the end is not sticky");
    tk_ucir_reader_free(r);
    tk_input_close(in);
}

static void check_same(const recs *a, const recs *b, const char *what)
{
    TKF_CHECK(a->rc == b->rc, "%s: ends with %d, not %d", what, b->rc, a->rc);
    TKF_CHECK(a->n == b->n, "%s: %zu records, not %zu", what, b->n, a->n);
    for (size_t i = 0; i < a->n; i++) {
        TKF_CHECK(tk_ucir_op_equal(&a->v[i], &b->v[i]), "%s: record %zu differs", what, i);
        TKF_CHECK(memcmp(&a->pos[i], &b->pos[i], sizeof a->pos[i]) == 0, "%s: position %zu differs",
                  what, i);
    }
    if (a->rc < 0)
        TKF_CHECK(a->err.offset == b->err.offset && a->err.record == b->err.record &&
                      strcmp(a->err.message, b->err.message) == 0,
                  "%s: error '%s' (offset %llu record %llu), not '%s' (offset %llu record %llu)",
                  what, b->err.message, (unsigned long long)b->err.offset,
                  (unsigned long long)b->err.record, a->err.message,
                  (unsigned long long)a->err.offset, (unsigned long long)a->err.record);
}

/* Write the records (the writer must take every record read from a spec
 * trace). */
static void write_recs(const recs *r, tkf_memfile *m)
{
    tkf_memfile_open(m);
    tk_error err;
    tk_ucir_writer_options o = {0, 0, 6}; /* frames exactly where the records say */
    tk_ucir_writer *w = tk_ucir_writer_new(m->fp, &r->h, &o, &err);
    TKF_CHECK(w != NULL, "tk_ucir_writer_new: %s", err.message);
    /* a trace that failed inside a SYSCALL leaves nested ops missing */
    size_t n = r->n;
    uint32_t left = 0;
    size_t last_complete = 0;
    for (size_t i = 0; i < n; i++) {
        if (left)
            left--;
        else if (r->v[i].kind == TK_UCIR_SYSCALL)
            left = r->v[i].op_count;
        if (!left)
            last_complete = i + 1;
    }
    for (size_t i = 0; i < last_complete; i++)
        TKF_CHECK(tk_ucir_write(w, &r->v[i], &err) == TK_OK, "write record %zu (%s): %s", i,
                  tk_ucir_kind_name(r->v[i].kind), err.message);
    TKF_CHECK(tk_ucir_writer_free(w, &err) == TK_OK, "writer free: %s", err.message);
    tkf_memfile_close(m);
}

static void check_writer(const recs *r)
{
    tkf_memfile m1, m2;
    write_recs(r, &m1);
    recs back;
    read_mem(m1.buf, m1.len, 1, &back);
    TKF_CHECK(back.rc == 0, "the writer's output does not read: %s", back.err.message);
    TKF_CHECK(back.n <= r->n, "rewritten: %zu records from %zu", back.n, r->n);
    /* equal records, except op_count of a last frame cut short by an error */
    for (size_t i = 0; i < back.n; i++) {
        tk_ucir_op want = r->v[i];
        if (want.kind == TK_UCIR_FRAME)
            want.op_count = back.v[i].op_count;
        TKF_CHECK(tk_ucir_op_equal(&want, &back.v[i]), "rewritten record %zu differs", i);
    }
    if (r->rc == 0)
        TKF_CHECK(back.n == r->n, "rewritten: %zu records, not %zu", back.n, r->n);
    write_recs(&back, &m2);
    TKF_CHECK(m1.len == m2.len && memcmp(m1.buf, m2.buf, m1.len) == 0,
              "write -> read -> write changed the bytes");
    recs_free(&back);
    tkf_memfile_free(&m1);
    tkf_memfile_free(&m2);
}

static uint64_t count_warnings(const recs *r)
{
    uint64_t w = 0;
    int first = 1, addr = 0;
    for (size_t i = 0; i < r->n; i++) {
        tk_ucir_kind k = r->v[i].kind;
        if (k == TK_UCIR_FRAME && first) {
            first = 0;
            w += !r->v[i].keyframe;
        } else if (k == TK_UCIR_EXEC_ABS || k == TK_UCIR_JMP) {
            addr = 1;
        } else if ((k == TK_UCIR_EXEC_REL || k == TK_UCIR_STEP) && !addr) {
            w++;
            addr = 1;
        }
    }
    return w;
}

/* The replay engine: a full replay applies every record read; a second
 * one stopped half way is at the instruction asked for; state queries
 * answer within what the replay saw. */
/* Replays the whole trace and to its middle; returns its instructions. */
static uint64_t check_replay(const uint8_t *data, size_t size, const recs *one)
{
    uint64_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        tk_error err;
        tk_input *in = tk_input_from_memory(data, size, "fuzz-input", &err);
        TKF_CHECK(in != NULL, "input");
        tk_ucir_reader *r = tk_ucir_reader_new(in, NULL, &err);
        TKF_CHECK(r != NULL, "reader");
        tk_ucir_replay *rp = tk_ucir_replay_new(tk_ucir_reader_header(r), &err);
        TKF_CHECK(rp != NULL, "replay");
        tk_ucir_replay_info info;
        if (pass == 0) {
            int rc = tk_ucir_replay_run_all(rp, r, &err);
            TKF_CHECK(rc == (one->rc < 0 ? -1 : 0), "replay ended %d, reading %d", rc, one->rc);
            tk_ucir_replay_info_get(rp, &info);
            TKF_CHECK(info.records == one->n, "replay applied %llu of %zu records",
                      (unsigned long long)info.records, one->n);
            total = info.instructions;
        } else if (total > 0) {
            /* finishing an instruction reads up to the next one: an error
             * in between is the trace's */
            int rc = tk_ucir_replay_run_to(rp, r, total / 2, &err);
            TKF_CHECK(rc == 1 || (rc == -1 && one->rc < 0), "replay to %llu of %llu: %d",
                      (unsigned long long)(total / 2), (unsigned long long)total, rc);
            tk_ucir_replay_info_get(rp, &info);
            TKF_CHECK(rc < 0 || info.instruction == (int64_t)(total / 2),
                      "replay stopped at %lld", (long long)info.instruction);
        }
        tk_ucir_map maps[4];
        size_t nm = tk_ucir_replay_maps(rp, maps, 4);
        for (size_t i = 1; i < nm && i < 4; i++)
            TKF_CHECK(maps[i - 1].addr + maps[i - 1].size <= maps[i].addr ||
                          maps[i - 1].addr + maps[i - 1].size == 0,
                      "maps overlap or are out of order");
        uint8_t b[32], k[32];
        uint64_t at = nm ? maps[0].addr : 0;
        TKF_CHECK(tk_ucir_replay_read(rp, at - 16, 32, b, k, &err) == TK_OK, "read");
        tk_ucir_replay_free(rp);
        tk_ucir_reader_free(r);
        tk_input_close(in);
    }
    return total;
}

/* Run a replaying command (report, the dump listing) on the input: its
 * status, and the lines it wrote. */
static tk_status run_replaying(const uint8_t *data, size_t size, const recs *one, int report,
                               tk_sink_style style, size_t *lines)
{
    tk_error err;
    tk_input *in = tk_input_from_memory(data, size, "fuzz-input", &err);
    TKF_CHECK(in != NULL, "input");
    tkf_memfile m;
    tkf_memfile_open(&m);
    tk_sink *s = tk_sink_new(m.fp, style, &err);
    TKF_CHECK(s != NULL, "sink");
    const tk_format *f = tk_format_find(one->h.variant == TK_UCIR_SPEC ? "ucir" : "usercorn");
    tk_status st = report ? tk_report(f, in, NULL, s, &err) : tk_dump(f, in, NULL, s, &err);
    tk_error ferr;
    TKF_CHECK(tk_sink_finish(s, &ferr) == TK_OK, "sink finish");
    tk_sink_free(s);
    tkf_memfile_close(&m);
    *lines = style == TK_SINK_JSON ? (size_t)tkf_check_json_lines(m.buf, m.len) : 0;
    for (size_t i = 0; style == TK_SINK_TEXT && i < m.len; i++)
        *lines += m.buf[i] == '\n';
    tkf_memfile_free(&m);
    tk_input_close(in);
    return st;
}

/* report and the dump listing replay everything: they succeed exactly
 * when reading does; report's JSON is one line, the JSON listing has one
 * object per record read, the text listing at least one line per
 * instruction. */
static void check_replaying(const uint8_t *data, size_t size, const recs *one,
                            uint64_t instructions)
{
    tk_status want = one->rc == 0 ? TK_OK : TK_EMALFORMED;
    size_t lines;
    tk_status st = run_replaying(data, size, one, 1, TK_SINK_JSON, &lines);
    TKF_CHECK(st == want, "report returned %d (reading %d)", (int)st, one->rc);
    TKF_CHECK(st != TK_OK || lines == 1, "report is not one JSON line");
    st = run_replaying(data, size, one, 0, TK_SINK_JSON, &lines);
    TKF_CHECK(st == want, "dump --json returned %d (reading %d)", (int)st, one->rc);
    TKF_CHECK(lines == one->n, "dump --json wrote %zu objects for %zu records", lines, one->n);
    st = run_replaying(data, size, one, 0, TK_SINK_TEXT, &lines);
    TKF_CHECK(st == want, "dump returned %d (reading %d)", (int)st, one->rc);
    TKF_CHECK(st != TK_OK || lines >= instructions,
              "the listing has %zu lines for %llu instructions", lines,
              (unsigned long long)instructions);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    recs one, three;
    read_mem(data, size, 1, &one);
    read_mem(data, size, 3, &three);
    check_same(&one, &three, "three threads");
    if (one.rc < 0) {
        TKF_CHECK(one.err.status == TK_EMALFORMED, "error status %d: %s", (int)one.err.status,
                  one.err.message);
        TKF_CHECK(one.err.offset <= size, "error offset %llu past the input",
                  (unsigned long long)one.err.offset);
        TKF_CHECK(one.err.message[0] && !strchr(one.err.message, '\n'), "error message '%s'",
                  one.err.message);
        TKF_CHECK(one.rc == -2 ? one.err.record == TK_NO_RECORD : one.err.record == one.n,
                  "error in record %llu after %zu records", (unsigned long long)one.err.record,
                  one.n);
    }
    if (one.rc != -2 && one.h.variant == TK_UCIR_SPEC)
        check_writer(&one);
    if (one.rc != -2) {
        uint64_t instructions = check_replay(data, size, &one);
        check_replaying(data, size, &one, instructions);
    }

    tkf_expect ex = {one.rc == 0, one.n, count_warnings(&one), 0};
    static const char *const kv[] = {"threads", "2", "records", "raw", NULL};
    int uc = one.rc != -2 && one.h.variant == TK_UCIR_USERCORN;
    tkf_run_commands(uc ? "usercorn" : "ucir", data, size, kv, &ex);
    recs_free(&one);
    recs_free(&three);
    return 0;
}
