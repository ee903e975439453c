/* Helpers shared by the casemate tests: whole logs read into owned
 * records, one-record parses, error capture and record comparison. */
#ifndef TK_CASEMATE_TEST_H
#define TK_CASEMATE_TEST_H

#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct cm_recs {
    tk_casemate_record *v;  /* src strings point into owned copies */
    uint64_t *line, *col, *off;
    size_t n, cap;
    char *expected;         /* the '!' text (owned), NULL if none */
    size_t expected_len;
    uint64_t expected_line, lines, tell;
} cm_recs;

static inline void cm_push(cm_recs *r, const tk_casemate_record *rec, uint64_t line,
                    uint64_t col, uint64_t off)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
        r->line = realloc(r->line, r->cap * sizeof *r->line);
        r->col = realloc(r->col, r->cap * sizeof *r->col);
        r->off = realloc(r->off, r->cap * sizeof *r->off);
        assert_true(r->v && r->line && r->col && r->off);
    }
    tk_casemate_record *c = &r->v[r->n];
    *c = *rec;
    if (rec->src_kind == TK_CASEMATE_SRC_STRING) {
        char *s = malloc(rec->src_len + 1);
        assert_non_null(s);
        if (rec->src_len)
            memcpy(s, rec->src, rec->src_len);
        s[rec->src_len] = '\0';
        c->src = s;
    }
    r->line[r->n] = line;
    r->col[r->n] = col;
    r->off[r->n] = off;
    r->n++;
}

/* Read all of `in`; returns the last tk_casemate_next result (0 or -1). */
static inline int cm_read_input(tk_input *in, cm_recs *out, tk_error *err)
{
    memset(out, 0, sizeof *out);
    tk_error_clear(err);
    tk_casemate_reader *r = tk_casemate_reader_new(in, err);
    assert_non_null(r);
    tk_casemate_record rec;
    int rc;
    while ((rc = tk_casemate_next(r, &rec, err)) > 0) {
        assert_int_equal(tk_casemate_reader_index(r), out->n);
        cm_push(out, &rec, tk_casemate_reader_line(r), tk_casemate_reader_col(r),
                tk_casemate_reader_offset(r));
    }
    size_t len;
    const char *e = tk_casemate_reader_expected(r, &len);
    if (e) {
        out->expected = malloc(len + 1);
        assert_non_null(out->expected);
        memcpy(out->expected, e, len + 1);
        out->expected_len = len;
        out->expected_line = tk_casemate_reader_expected_line(r);
    }
    out->lines = tk_casemate_reader_lines(r);
    out->tell = tk_casemate_reader_tell(r);
    /* the end is sticky */
    assert_int_equal(tk_casemate_next(r, &rec, err), rc);
    tk_casemate_reader_free(r);
    return rc;
}

static inline int cm_read_mem(const void *d, size_t n, cm_recs *out, tk_error *err)
{
    tk_input *in = tk_input_from_memory(d, n, "mem", err);
    assert_non_null(in);
    int rc = cm_read_input(in, out, err);
    tk_input_close(in);
    return rc;
}

static inline void cm_recs_free(cm_recs *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].src_kind == TK_CASEMATE_SRC_STRING)
            free((char *)r->v[i].src);
    free(r->v);
    free(r->line);
    free(r->col);
    free(r->off);
    free(r->expected);
    memset(r, 0, sizeof *r);
}

/* Equal records, else fail showing both in keyword form. */
static inline void cm_assert_equal(const tk_casemate_record *want, const tk_casemate_record *got)
{
    if (tk_casemate_record_equal(want, got))
        return;
    char a[1024], b[1024];
    tk_casemate_format(want, TK_CASEMATE_KEYWORD, a, sizeof a);
    tk_casemate_format(got, TK_CASEMATE_KEYWORD, b, sizeof b);
    fail_msg("records differ:\n  want %s\n  got  %s", a, b);
}

/* The single record of `text` (which must read cleanly). */
static inline tk_casemate_record cm_one(const char *text)
{
    static char src[4096];
    cm_recs r;
    tk_error err;
    int rc = cm_read_mem(text, strlen(text), &r, &err);
    if (rc != 0)
        fail_msg("'%s': %s (line %llu col %llu)", text, err.message,
                 (unsigned long long)err.line, (unsigned long long)err.col);
    if (r.n != 1)
        fail_msg("'%s': %zu records", text, r.n);
    tk_casemate_record rec = r.v[0];
    if (rec.src_kind == TK_CASEMATE_SRC_STRING) {
        assert_true(rec.src_len < sizeof src);
        memcpy(src, rec.src, rec.src_len + 1);
        rec.src = src;
    }
    cm_recs_free(&r);
    return rec;
}

#endif
