/* Writes the Parquet files tests/parquet/check.mjs reads back with DuckDB
 * and hyparquet: every column type x encoding x nullability under each
 * codec, with many pages and row groups; the dictionary's fallback to
 * PLAIN; the default row groups of 2^20 rows; an empty table. Values are
 * formulas of the row number that check.mjs computes again (keep the two
 * in step: gen() here, value() there).
 * Usage: tk_pq_write DIR   (writes DIR/NAME.parquet) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/parquet/parquet.h"

enum kind { K_BOOL, K_INT8, K_INT16, K_INT32, K_INT64, K_UINT8, K_UINT16, K_UINT32,
            K_UINT64, K_TS, K_DOUBLE, K_STRING, K_BINARY, K_N };
static const char *const kind_names[K_N] = {
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "ts", "double", "string", "binary"};
static const tk_pq_type kind_types[K_N] = {
    TK_PQ_BOOL, TK_PQ_INT8, TK_PQ_INT16, TK_PQ_INT32, TK_PQ_INT64, TK_PQ_UINT8,
    TK_PQ_UINT16, TK_PQ_UINT32, TK_PQ_UINT64, TK_PQ_TIMESTAMP_NS, TK_PQ_DOUBLE,
    TK_PQ_STRING, TK_PQ_BINARY};

#define ROWS 5000
#define MAX_COLS 128

typedef struct table {
    tk_pq_column cols[MAX_COLS];
    int kind[MAX_COLS]; /* -1: seq, -2: all null */
    char names[MAX_COLS][40];
    size_t n;
} table;

static void add(table *t, const char *name, int kind, tk_pq_type type, unsigned flags,
                tk_pq_encoding enc)
{
    snprintf(t->names[t->n], sizeof t->names[t->n], "%s", name);
    t->cols[t->n] = (tk_pq_column){t->names[t->n], type, flags, enc};
    t->kind[t->n++] = kind;
}

/* KIND_ENC_req|opt for every kind and the encodings it takes. */
static void all_columns(table *t)
{
    add(t, "seq", -1, TK_PQ_INT64, 0, TK_PQ_ENC_AUTO);
    for (int k = 0; k < K_N; k++) {
        int is_bytes = k == K_STRING || k == K_BINARY;
        int is_int = !is_bytes && k != K_BOOL && k != K_DOUBLE;
        static const char *const enc_names[] = {"auto", "plain", "dict", "delta"};
        for (int e = TK_PQ_ENC_PLAIN; e <= TK_PQ_ENC_DELTA; e++) {
            if ((e == TK_PQ_ENC_DICT && !is_bytes) || (e == TK_PQ_ENC_DELTA && !is_int))
                continue;
            for (int opt = 0; opt < 2; opt++) {
                char name[40];
                snprintf(name, sizeof name, "%s_%s_%s", kind_names[k], enc_names[e],
                         opt ? "opt" : "req");
                add(t, name, k, kind_types[k], opt ? TK_PQ_NULLABLE : 0, (tk_pq_encoding)e);
            }
        }
    }
    add(t, "all_null", -2, TK_PQ_INT64, TK_PQ_NULLABLE, TK_PQ_ENC_AUTO);
}

static int is_null(uint64_t i) { return i % 4 == 1 || (i >= 3000 && i < 4500); }

/* Row i's value of a kind (check.mjs: value()). */
static void gen(tk_pq_writer *w, size_t col, int kind, uint64_t i)
{
    uint64_t m = i % 1000;
    char buf[160];
    switch (kind) {
    case K_BOOL: tk_pq_put_bool(w, col, i % 3 == 0); break;
    case K_INT8: tk_pq_put_i64(w, col, (int64_t)((i * 7) % 256) - 128); break;
    case K_INT16: tk_pq_put_i64(w, col, (int64_t)((i * 31) % 65536) - 32768); break;
    case K_INT32:
        tk_pq_put_i64(w, col, m == 1 ? INT32_MIN : m == 2 ? INT32_MAX
                                                         : (int32_t)(uint32_t)(i * 2654435761u));
        break;
    case K_INT64:
        tk_pq_put_i64(w, col, m == 1 ? INT64_MIN : m == 2 ? INT64_MAX
                                                         : (int64_t)(i * 1000 + i % 7));
        break;
    case K_UINT8: tk_pq_put_u64(w, col, i % 256); break;
    case K_UINT16: tk_pq_put_u64(w, col, (i * 17) % 65536); break;
    case K_UINT32:
        tk_pq_put_u64(w, col, m == 1 ? 0 : m == 2 ? UINT32_MAX : (uint32_t)(i * 2654435761u));
        break;
    case K_UINT64:
        tk_pq_put_u64(w, col, m == 2 ? UINT64_MAX : i * 0x9E3779B97F4A7C15ull);
        break;
    case K_TS: tk_pq_put_i64(w, col, 1700000000000000000 + (int64_t)i * 1000003); break;
    case K_DOUBLE:
        tk_pq_put_f64(w, col, m == 3 ? NAN : m == 4 ? -0.0 : m == 5 ? INFINITY
                              : m == 6 ? -INFINITY : (double)i * 0.25 - 100);
        break;
    case K_STRING:
        if (m == 7) {
            tk_pq_put_str(w, col, "");
        } else if (m == 8) { /* past the 64 bytes kept in bounds */
            memset(buf, 'z', 100);
            snprintf(buf + 100, 21, "%llu", (unsigned long long)i);
            tk_pq_put_str(w, col, buf);
        } else if (m == 9) { /* invalid UTF-8: U+FFFD twice */
            tk_pq_put_bytes(w, col, "bad\xff\xfe", 5);
        } else if (m == 10) {
            tk_pq_put_str(w, col, "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80");
        } else {
            snprintf(buf, sizeof buf, "func_%llu", (unsigned long long)(i % 50));
            tk_pq_put_str(w, col, buf);
        }
        break;
    default: {
        uint8_t b[8];
        for (uint64_t k = 0; k < i % 5; k++)
            b[k] = (uint8_t)(i * 13 + k * 101);
        tk_pq_put_bytes(w, col, b, i % 5);
    }
    }
}

static int fail(const char *what, const tk_error *err)
{
    fprintf(stderr, "tk_pq_write: %s: %s\n", what, err->message);
    return 1;
}

static tk_pq_writer *open_file(const char *dir, const char *name, FILE **f, const table *t,
                               const tk_pq_options *o, tk_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.parquet", dir, name);
    if (!(*f = fopen(path, "wb"))) {
        perror(path);
        return NULL;
    }
    tk_pq_writer *w = tk_pq_writer_new(*f, t->cols, t->n, o, err);
    if (!w)
        fclose(*f);
    return w;
}

static int close_file(tk_pq_writer *w, FILE *f, const char *name)
{
    tk_error err;
    tk_status st = tk_pq_finish(w, &err);
    if (fclose(f) != 0 || st != TK_OK)
        return fail(name, &err);
    return 0;
}

/* all_<codec>: every column, 5000 rows, row groups of 1500, 2 KiB pages */
static int write_all(const char *dir, tk_pq_codec codec, const char *name)
{
    static table t;
    t.n = 0;
    all_columns(&t);
    tk_pq_kv kv[] = {{"trace_id", "t1"}, {"empty", NULL}};
    tk_pq_options o;
    tk_pq_options_init(&o);
    o.codec = codec;
    o.row_group_rows = 1500;
    o.page_bytes = 2048;
    o.kv = kv;
    o.nkv = 2;
    tk_error err;
    FILE *f;
    tk_pq_writer *w = open_file(dir, name, &f, &t, &o, &err);
    if (!w)
        return fail(name, &err);
    for (uint64_t i = 0; i < ROWS; i++) {
        for (size_t c = 0; c < t.n; c++) {
            if (t.kind[c] == -1)
                tk_pq_put_i64(w, c, (int64_t)i);
            else if (t.kind[c] >= 0 && !((t.cols[c].flags & TK_PQ_NULLABLE) && is_null(i)))
                gen(w, c, t.kind[c], i);
            else if (i % 2) /* nulls both ways: put_null, or left out */
                tk_pq_put_null(w, c);
        }
        if (tk_pq_row_end(w, &err) != TK_OK) {
            tk_pq_free(w);
            fclose(f);
            return fail(name, &err);
        }
    }
    return close_file(w, f, name);
}

/* fallback: a string column whose dictionary passes 4 KiB in each chunk
 * (row groups of 8000), beside one that stays small */
static int write_fallback(const char *dir)
{
    static table t;
    t.n = 0;
    add(&t, "uniq", 0, TK_PQ_STRING, 0, TK_PQ_ENC_DICT);
    add(&t, "rep", 0, TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_AUTO);
    tk_pq_options o;
    tk_pq_options_init(&o);
    o.row_group_rows = 8000;
    o.dict_bytes = 4096;
    o.page_bytes = 4096;
    tk_error err;
    FILE *f;
    tk_pq_writer *w = open_file(dir, "fallback", &f, &t, &o, &err);
    if (!w)
        return fail("fallback", &err);
    char buf[64];
    for (uint64_t i = 0; i < 20000; i++) {
        snprintf(buf, sizeof buf, "value_%llu", (unsigned long long)i);
        tk_pq_put_str(w, 0, buf);
        snprintf(buf, sizeof buf, "r%llu", (unsigned long long)(i % 7));
        if (i % 10)
            tk_pq_put_str(w, 1, buf);
        if (tk_pq_row_end(w, &err) != TK_OK) {
            tk_pq_free(w);
            fclose(f);
            return fail("fallback", &err);
        }
    }
    return close_file(w, f, "fallback");
}

/* big: defaults (NULL options), 2.5 M rows: row groups of 2^20; a constant
 * column (tk_pq_set_constant) over them */
static int write_big(const char *dir)
{
    static table t;
    t.n = 0;
    add(&t, "seq", 0, TK_PQ_INT64, 0, TK_PQ_ENC_AUTO);
    add(&t, "name", 0, TK_PQ_STRING, 0, TK_PQ_ENC_AUTO);
    add(&t, "val", 0, TK_PQ_DOUBLE, 0, TK_PQ_ENC_AUTO);
    add(&t, "trace", 0, TK_PQ_STRING, 0, TK_PQ_ENC_DICT); /* constant: no puts */
    tk_error err;
    FILE *f;
    tk_pq_writer *w = open_file(dir, "big", &f, &t, NULL, &err);
    if (!w)
        return fail("big", &err);
    if (tk_pq_set_constant(w, 3, "run \xff 7", 7, &err) != TK_OK) { /* fixed: U+FFFD */
        tk_pq_free(w);
        fclose(f);
        return fail("big", &err);
    }
    char buf[64];
    for (uint64_t i = 0; i < 2500000; i++) {
        tk_pq_put_i64(w, 0, (int64_t)i);
        snprintf(buf, sizeof buf, "func_%llu", (unsigned long long)(i % 1000));
        tk_pq_put_str(w, 1, buf);
        tk_pq_put_f64(w, 2, (double)i * 0.5);
        if (tk_pq_row_end(w, &err) != TK_OK) {
            tk_pq_free(w);
            fclose(f);
            return fail("big", &err);
        }
    }
    return close_file(w, f, "big");
}

static int write_empty(const char *dir)
{
    static table t;
    t.n = 0;
    add(&t, "a", 0, TK_PQ_INT64, 0, TK_PQ_ENC_AUTO);
    add(&t, "b", 0, TK_PQ_STRING, TK_PQ_NULLABLE, TK_PQ_ENC_AUTO);
    tk_error err;
    FILE *f;
    tk_pq_writer *w = open_file(dir, "empty", &f, &t, NULL, &err);
    if (!w)
        return fail("empty", &err);
    return close_file(w, f, "empty");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: tk_pq_write DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    int bad = write_all(dir, TK_PQ_ZSTD, "all_zstd");
    bad |= write_all(dir, TK_PQ_SNAPPY, "all_snappy");
    bad |= write_all(dir, TK_PQ_UNCOMPRESSED, "all_none");
    bad |= write_fallback(dir);
    bad |= write_big(dir);
    bad |= write_empty(dir);
    return bad;
}
