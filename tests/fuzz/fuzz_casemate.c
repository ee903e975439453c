/* Fuzz target: casemate reader, writer and the common commands.
 *
 * The input is read to the end (or its first error) from memory. Every
 * record must be acceptable to the writer, and must read back equal from
 * its keyword and its compact form, whose keyword form is then a fixed
 * point; the whole log written in both forms (with its '!' line) must read
 * back as the same records and line, and the keyword writer's output must
 * reproduce itself. The same input read through a pipe (inputs up to
 * 64 KiB) and placed just before the reader's 4 MiB window edge (after a
 * comment line) must give the same records and the same error, moved by
 * that one line. Errors must carry a 1-based line and column and the index
 * of the record. Then info, dump, validate and convert run through the
 * format API and must agree with what the reader saw. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"

#define PIPE_MAX ((size_t)1 << 16)

typedef struct log {
    tk_casemate_record *v; /* src strings are owned copies */
    uint64_t *line, *col;
    size_t n, cap;
    int rc;                /* 0 end, -1 error */
    tk_error err;
    char *expected;
    size_t expected_len;
    uint64_t expected_line;
} log_t;

static void log_free(log_t *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].src_kind == TK_CASEMATE_SRC_STRING)
            free((char *)l->v[i].src);
    free(l->v);
    free(l->line);
    free(l->col);
    free(l->expected);
    memset(l, 0, sizeof *l);
}

static void push(log_t *l, const tk_casemate_record *rec, uint64_t line, uint64_t col)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        l->line = realloc(l->line, l->cap * sizeof *l->line);
        l->col = realloc(l->col, l->cap * sizeof *l->col);
        TKF_CHECK(l->v && l->line && l->col, "out of memory");
    }
    tk_casemate_record *c = &l->v[l->n];
    *c = *rec;
    if (rec->src_kind == TK_CASEMATE_SRC_STRING) {
        char *s = malloc(rec->src_len + 1);
        TKF_CHECK(s != NULL, "out of memory");
        if (rec->src_len)
            memcpy(s, rec->src, rec->src_len);
        c->src = s;
    }
    l->line[l->n] = line;
    l->col[l->n] = col;
    l->n++;
}

static void read_input(tk_input *in, log_t *l)
{
    memset(l, 0, sizeof *l);
    tk_error_clear(&l->err);
    tk_casemate_reader *r = tk_casemate_reader_new(in, &l->err);
    TKF_CHECK(r != NULL, "tk_casemate_reader_new: %s", l->err.message);
    tk_casemate_record rec;
    int rc;
    while ((rc = tk_casemate_next(r, &rec, &l->err)) > 0) {
        TKF_CHECK(tk_casemate_reader_index(r) == l->n, "record index %llu, expected %zu",
                  (unsigned long long)tk_casemate_reader_index(r), l->n);
        TKF_CHECK(tk_casemate_reader_line(r) >= 1 && tk_casemate_reader_col(r) >= 1,
                  "record %zu at line %llu col %llu", l->n,
                  (unsigned long long)tk_casemate_reader_line(r),
                  (unsigned long long)tk_casemate_reader_col(r));
        push(l, &rec, tk_casemate_reader_line(r), tk_casemate_reader_col(r));
    }
    l->rc = rc;
    TKF_CHECK(rc == 0 || rc == -1, "tk_casemate_next returned %d", rc);
    TKF_CHECK(tk_casemate_next(r, &rec, &l->err) == rc, "the end is not sticky");
    size_t len;
    const char *e = tk_casemate_reader_expected(r, &len);
    if (e) {
        TKF_CHECK(rc == 0, "an expected line and an error");
        TKF_CHECK(e[len] == '\0', "expected text not NUL-terminated");
        TKF_CHECK(memchr(e, '\n', len) == NULL, "expected text spans lines");
        l->expected = malloc(len + 1);
        TKF_CHECK(l->expected != NULL, "out of memory");
        memcpy(l->expected, e, len + 1);
        l->expected_len = len;
        l->expected_line = tk_casemate_reader_expected_line(r);
    }
    tk_casemate_reader_free(r);
}

static void read_mem(const void *d, size_t n, log_t *l)
{
    tk_error err;
    tk_input *in = tk_input_from_memory(d, n, "fuzz-input", &err);
    TKF_CHECK(in != NULL, "tk_input_from_memory failed");
    read_input(in, l);
    tk_input_close(in);
}

static void check_same(const log_t *a, const log_t *b, uint64_t line_shift, const char *what)
{
    TKF_CHECK(a->n == b->n, "%s: %zu records, not %zu", what, b->n, a->n);
    for (size_t i = 0; i < a->n; i++) {
        TKF_CHECK(tk_casemate_record_equal(&a->v[i], &b->v[i]), "%s: record %zu differs", what, i);
        TKF_CHECK(b->line[i] == a->line[i] + line_shift && b->col[i] == a->col[i],
                  "%s: record %zu at %llu:%llu, not %llu:%llu", what, i,
                  (unsigned long long)b->line[i], (unsigned long long)b->col[i],
                  (unsigned long long)(a->line[i] + line_shift), (unsigned long long)a->col[i]);
    }
    TKF_CHECK(a->rc == b->rc, "%s: ends with %d, not %d", what, b->rc, a->rc);
    if (a->rc < 0)
        TKF_CHECK(b->err.status == a->err.status && b->err.line == a->err.line + line_shift &&
                      b->err.col == a->err.col && b->err.record == a->err.record,
                  "%s: error %llu:%llu (record %llu) '%s', not %llu:%llu (record %llu) '%s'", what,
                  (unsigned long long)b->err.line, (unsigned long long)b->err.col,
                  (unsigned long long)b->err.record, b->err.message,
                  (unsigned long long)(a->err.line + line_shift), (unsigned long long)a->err.col,
                  (unsigned long long)a->err.record, a->err.message);
    TKF_CHECK(!a->expected == !b->expected, "%s: expected line present in one reading only", what);
    if (a->expected)
        TKF_CHECK(a->expected_len == b->expected_len &&
                      memcmp(a->expected, b->expected, a->expected_len) == 0 &&
                      b->expected_line == a->expected_line + line_shift,
                  "%s: expected line differs", what);
}

/* Each record reads back from both forms; the keyword form of the reread
 * record is the same text. */
static void check_records(const log_t *l)
{
    static char buf[TK_CASEMATE_FORMAT_MAX + 70000];
    for (size_t i = 0; i < l->n; i++) {
        const tk_casemate_record *r = &l->v[i];
        const char *problem = tk_casemate_record_problem(r);
        TKF_CHECK(problem == NULL, "record %zu read but not writable: %s", i, problem);
        if (r->src_kind == TK_CASEMATE_SRC_STRING && r->src_len > 65536)
            continue;
        for (int style = 0; style < 2; style++) {
            size_t n = tk_casemate_format(r, (tk_casemate_style)style, buf, sizeof buf);
            TKF_CHECK(n < sizeof buf && n <= TK_CASEMATE_FORMAT_MAX + (r->src_kind == TK_CASEMATE_SRC_STRING ? r->src_len : 0),
                      "record %zu formats to %zu bytes", i, n);
            log_t back;
            read_mem(buf, n, &back);
            TKF_CHECK(back.rc == 0 && back.n == 1, "record %zu in form %d does not read back: '%s' (%s)",
                      i, style, buf, back.err.message);
            TKF_CHECK(tk_casemate_record_equal(r, &back.v[0]),
                      "record %zu in form %d reads back differently: '%s'", i, style, buf);
            static char again[sizeof buf];
            size_t m = tk_casemate_format(&back.v[0], (tk_casemate_style)style, again, sizeof again);
            TKF_CHECK(m == n && memcmp(buf, again, n) == 0, "record %zu: form %d not a fixed point", i,
                      style);
            log_free(&back);
        }
    }
}

/* The whole log through the writer in each form. */
static void check_writer(const log_t *l)
{
    tkf_memfile first = {0};
    for (int style = 0; style < 2; style++) {
        tkf_memfile m;
        tkf_memfile_open(&m);
        tk_error err;
        tk_casemate_writer *w = tk_casemate_writer_new(m.fp, (tk_casemate_style)style, &err);
        TKF_CHECK(w != NULL, "tk_casemate_writer_new: %s", err.message);
        for (size_t i = 0; i < l->n; i++)
            TKF_CHECK(tk_casemate_write(w, &l->v[i], &err) == TK_OK, "write record %zu: %s", i,
                      err.message);
        if (l->expected)
            TKF_CHECK(tk_casemate_write_expected(w, l->expected, l->expected_len, &err) == TK_OK,
                      "write_expected: %s", err.message);
        TKF_CHECK(tk_casemate_writer_free(w, &err) == TK_OK, "writer flush: %s", err.message);
        tkf_memfile_close(&m);
        log_t back;
        read_mem(m.buf, m.len, &back);
        TKF_CHECK(back.rc == 0, "the writer's form %d does not read: %llu:%llu %s", style,
                  (unsigned long long)back.err.line, (unsigned long long)back.err.col,
                  back.err.message);
        TKF_CHECK(back.n == l->n, "form %d reads %zu records, not %zu", style, back.n, l->n);
        for (size_t i = 0; i < l->n; i++) {
            TKF_CHECK(tk_casemate_record_equal(&l->v[i], &back.v[i]), "form %d: record %zu differs",
                      style, i);
            TKF_CHECK(back.col[i] == 1, "form %d: record %zu not at the start of a line", style, i);
        }
        TKF_CHECK(!back.expected == !l->expected &&
                      (!l->expected || (back.expected_len == l->expected_len &&
                                        memcmp(back.expected, l->expected, l->expected_len) == 0)),
                  "form %d: expected line lost", style);
        if (style == 0) {
            /* written again from what it reads: the same bytes */
            tkf_memfile m2;
            tkf_memfile_open(&m2);
            w = tk_casemate_writer_new(m2.fp, TK_CASEMATE_KEYWORD, &err);
            for (size_t i = 0; i < back.n; i++)
                TKF_CHECK(tk_casemate_write(w, &back.v[i], &err) == TK_OK, "rewrite: %s", err.message);
            if (back.expected)
                TKF_CHECK(tk_casemate_write_expected(w, back.expected, back.expected_len, &err) == TK_OK,
                          "rewrite expected: %s", err.message);
            TKF_CHECK(tk_casemate_writer_free(w, &err) == TK_OK, "rewrite flush");
            tkf_memfile_close(&m2);
            TKF_CHECK(m2.len == m.len && memcmp(m2.buf, m.buf, m.len) == 0,
                      "the keyword form is not a fixed point");
            tkf_memfile_free(&m2);
            first = m;
        } else {
            tkf_memfile_free(&m);
        }
        log_free(&back);
    }
    tkf_memfile_free(&first);
}

/* ---- the same input through a pipe, and near the window edge */

static void pipe_pass(const uint8_t *data, size_t size, const log_t *l)
{
    int fds[2];
    if (size > PIPE_MAX || pipe(fds) != 0)
        return;
    (void)fcntl(fds[1], F_SETFL, O_NONBLOCK);
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fds[1], data + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    close(fds[1]);
    if (done < size) {
        close(fds[0]);
        return;
    }
    tk_error err;
    tk_input *in = tk_input_from_fd(fds[0], "pipe", &err);
    TKF_CHECK(in != NULL, "tk_input_from_fd: %s", err.message);
    log_t p;
    read_input(in, &p);
    check_same(l, &p, 0, "pipe");
    log_free(&p);
    tk_input_close(in);
    close(fds[0]);
}

#define EDGE ((size_t)4 << 20)

static uint8_t *edge_buf;
static size_t edge_cap;

/* The input after a comment line that ends 1..64 bytes before the 4 MiB
 * edge of the reader's first window. */
static void edge_pass(const uint8_t *data, size_t size, const log_t *l)
{
    if (size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        return; /* a byte order mark counts only at the start */
    size_t fill = EDGE - 1 - (size_t)(tkf_hash(data, size) >> 8) % 64;
    if (edge_cap < EDGE + size) {
        free(edge_buf);
        edge_cap = EDGE + size;
        edge_buf = malloc(edge_cap);
        TKF_CHECK(edge_buf != NULL, "out of memory");
        memset(edge_buf, 'x', EDGE);
        edge_buf[0] = ';';
    }
    /* the comment's last bytes, where earlier inputs were placed */
    memset(edge_buf + EDGE - 128, 'x', 128);
    edge_buf[fill - 1] = '\n';
    if (size)
        memcpy(edge_buf + fill, data, size);
    log_t e;
    read_mem(edge_buf, fill + size, &e);
    check_same(l, &e, 1, "near the window edge");
    log_free(&e);
}

/* ---- records built from the bytes: the writer accepts exactly what
 * tk_casemate_record_problem accepts, and what it writes reads back */

static void writer_pass(const uint8_t *data, size_t size)
{
    if (size < 8)
        return;
    tk_casemate_record r;
    memset(&r, 0, sizeof r);
    r.kind = (tk_casemate_kind)(data[0] % 14);
    r.mem_order = (tk_casemate_mem_order)(data[1] % 3);
    r.barrier = (tk_casemate_barrier)(data[2] % 6);
    r.tlbi = (tk_casemate_tlbi)(data[3] % 13);
    r.tlbi_operand = (tk_casemate_tlbi_operand)(data[4] % 4);
    r.sysreg = (tk_casemate_sysreg)(data[5] % 8);
    r.hint = (tk_casemate_hint)(data[6] % 5);
    r.src_kind = (tk_casemate_src_kind)(data[7] % 4);
    r.id = tkf_hash(data, size);
    r.tid = r.id >> 7;
    r.address = r.id * 3;
    r.value = ~r.id;
    r.size = r.id >> 3;
    r.location = r.id << 5;
    r.level = data[0];
    r.src_int = r.id ^ 0x55;
    r.src = (const char *)data + 8;
    r.src_len = size - 8;
    const char *problem = tk_casemate_record_problem(&r);
    tkf_memfile m;
    tkf_memfile_open(&m);
    tk_error err;
    tk_casemate_writer *w = tk_casemate_writer_new(m.fp, (tk_casemate_style)(data[1] & 1), &err);
    tk_status st = tk_casemate_write(w, &r, &err);
    TKF_CHECK(problem ? st == TK_EUSAGE : st == TK_OK, "write returned %d for a record with problem '%s'",
              (int)st, problem ? problem : "none");
    TKF_CHECK(tk_casemate_writer_free(w, &err) == TK_OK, "writer flush");
    tkf_memfile_close(&m);
    if (!problem) {
        log_t back;
        read_mem(m.buf, m.len, &back);
        TKF_CHECK(back.rc == 0 && back.n == 1 && tk_casemate_record_equal(&r, &back.v[0]),
                  "a written record does not read back (%s)", back.err.message);
        log_free(&back);
    } else {
        TKF_CHECK(m.len == 0, "a rejected record wrote %zu bytes", m.len);
    }
    tkf_memfile_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    log_t l;
    read_mem(data, size, &l);
    if (l.rc < 0) {
        TKF_CHECK(l.err.status == TK_EMALFORMED, "error status %d: %s", (int)l.err.status,
                  l.err.message);
        TKF_CHECK(l.err.line >= 1 && l.err.col >= 1 && l.err.offset == TK_NO_OFFSET,
                  "error without a line and column: %s", l.err.message);
        TKF_CHECK(l.err.record == l.n, "error in record %llu after %zu records",
                  (unsigned long long)l.err.record, l.n);
        TKF_CHECK(l.err.message[0] && !strchr(l.err.message, '\n'), "error message '%s'",
                  l.err.message);
    }
    check_records(&l);
    check_writer(&l);
    pipe_pass(data, size, &l);
    edge_pass(data, size, &l);

    /* validate's warnings: ids not increasing, unaligned mem-set */
    tkf_expect ex = {l.rc == 0, l.n, 0, 0};
    for (size_t i = 0; i < l.n; i++) {
        const tk_casemate_record *r = &l.v[i];
        if (i > 0 && r->id <= l.v[i - 1].id)
            ex.warnings++;
        else if (r->kind == TK_CASEMATE_MEM_SET && ((r->address | r->size) & 7))
            ex.warnings++;
    }
    tkf_run_commands("casemate", data, size, NULL, &ex);
    writer_pass(data, size);
    log_free(&l);
    return 0;
}
