/* "allow-truncated" through the library (docs/api.md): tk_reader with the
 * option, the commands of <tracekit/format.h> with it, and the input's
 * flag and note (<tracekit/input.h>), on every example cut inside its last
 * record. Without the option the readers fail as before. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "../ucir/ucir_test.h"

typedef struct cut_case {
    const char *file;    /* under examples/ */
    size_t cut;          /* bytes removed from the end */
    uint64_t offset;     /* of the cut record */
    uint64_t dropped;
} cut_case;

/* Cut inside the last record: its offset counted by hand from the
 * formats' record sizes (XRay basic: 32 bytes after a 32-byte header,
 * FDR: the last 8-byte function record, Cacheray: an 18-byte access,
 * UCIR: the last frame at 0x125, casemate: the last line at 0x77e). */
static const cut_case cases[] = {
    {"xray/basic-v3.xray", 7, 2976 - 32, 25},
    {"xray/fdr-v5.xray", 3, 992 - 8, 5},
    {"cacheray/heap.trace", 5, 7255 - 18, 13},
    {"ucir/hello.ucir", 20, 0x125, 410 - 0x125 - 20},
    {"casemate/bbm.log", 9, 0x77e, 1987 - 0x77e - 9},
};

static uint8_t *load(const cut_case *c, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", TK_EXAMPLES_DIR, c->file);
    uint8_t *d = tu_read_file(path, n);
    assert_non_null(d);
    assert_true(*n > c->cut);
    *n -= c->cut;
    return d;
}

/* Records before the error without the option; the same records and a
 * clean end with it, and the cut named. */
static void test_reader(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const cut_case *c = &cases[i];
        size_t n;
        uint8_t *d = load(c, &n);
        tk_error err;
        tk_record rec;
        tk_reader *r = tk_reader_from_memory(d, n, NULL, NULL, &err);
        assert_non_null(r);
        uint64_t plain = 0;
        int rc;
        while ((rc = tk_reader_next(r, &rec, &err)) > 0)
            plain++;
        assert_int_equal(rc, -1);
        assert_int_equal(err.status, TK_EMALFORMED);
        assert_int_equal(tk_reader_truncation(r, NULL), 0);
        tk_reader_free(r);

        tk_options *o = tk_options_new(&err);
        assert_int_equal(tk_options_set(o, "allow-truncated", "1", &err), TK_OK);
        r = tk_reader_from_memory(d, n, NULL, o, &err);
        assert_non_null(r);
        uint64_t salvaged = 0;
        while ((rc = tk_reader_next(r, &rec, &err)) > 0)
            salvaged++;
        assert_int_equal(rc, 0);
        assert_int_equal(salvaged, plain);
        tk_truncation t;
        assert_int_equal(tk_reader_truncation(r, &t), 1);
        assert_int_equal(t.offset, c->offset);
        assert_int_equal(t.dropped, c->dropped);
        assert_non_null(strstr(t.message, "truncated tail: dropped "));
        tk_reader_free(r);
        tk_options_free(o);
        free(d);
    }
}

/* tk_validate: TK_EMALFORMED without the option; TK_OK with it, and the
 * input says what was dropped. The flag alone (no option) does the same. */
static void test_validate(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const cut_case *c = &cases[i];
        size_t n;
        uint8_t *d = load(c, &n);
        tk_error err;
        for (int how = 0; how < 3; how++) { /* none, option, flag */
            tk_input *in = tk_input_from_memory(d, n, "t", &err);
            assert_non_null(in);
            const tk_format *f = tk_format_probe(in, &err);
            assert_non_null(f);
            tk_options *o = tk_options_new(&err);
            if (how == 1)
                assert_int_equal(tk_options_set(o, "allow-truncated", "1", &err), TK_OK);
            if (how == 2)
                tk_input_set_allow_truncated(in, 1);
            uint64_t nwarn;
            tk_status st = tk_validate(f, in, o, NULL, &nwarn, &err);
            tk_truncation t;
            if (how == 0) {
                assert_int_equal(st, TK_EMALFORMED);
                assert_int_equal(tk_input_truncation(in, &t), 0);
            } else {
                assert_int_equal(st, TK_OK);
                assert_int_equal(tk_input_allows_truncated(in), 1);
                assert_int_equal(tk_input_truncation(in, &t), 1);
                assert_int_equal(t.offset, c->offset);
                assert_int_equal(t.dropped, c->dropped);
            }
            tk_options_free(o);
            tk_input_close(in);
        }
        free(d);
    }
}

/* Records and the end read from `d` (n bytes) as usercorn .uc, with the
 * option or without; *trunc: whether a cut was noted. */
static uint64_t read_uc(const uint8_t *d, size_t n, int allow, int *rc, tk_truncation *t,
                        int *trunc)
{
    tk_error err;
    tk_options *o = tk_options_new(&err);
    if (allow)
        assert_int_equal(tk_options_set(o, "allow-truncated", "1", &err), TK_OK);
    tk_reader *r = tk_reader_from_memory(d, n, "usercorn", o, &err);
    assert_non_null(r);
    tk_record rec;
    uint64_t k = 0;
    while ((*rc = tk_reader_next(r, &rec, &err)) > 0)
        k++;
    *trunc = tk_reader_truncation(r, t);
    tk_reader_free(r);
    tk_options_free(o);
    return k;
}

/* usercorn .uc: the op stream in 40-byte chunks cut at every byte of its
 * last chunks. Without the option a cut chunk, op or frame fails; with it
 * the same records come, then the end, and the cut is named: a chunk's
 * (its offset and bytes), else the op's or the frame's. */
static void test_usercorn(void **state)
{
    (void)state;
    ub ops = {0}, b = {0};
    ub_hex(&ops, "02 0000000000000000 01000000 05 2300 0000000000000000"); /* KEYFRAME */
    ub_hex(&ops, "01 0000000000000000 04000000"
                 "03 0000400000000000 10000000"
                 "04 03"
                 "05 2300 0100000000000000"
                 "08 0010000000000000 02000000 dead");
    ub_hex(&ops, "01 0000000000000000 02000000 03 0000400000000000 08000000 04 03");
    ub_uc_header(&b, "x86_64", "linux");
    size_t start = b.len;
    ub_uc_chunks(&b, ops.p, ops.len, 40);
    int rc, trunc;
    tk_truncation t;
    uint64_t all = read_uc(b.p, b.len, 0, &rc, &t, &trunc);
    assert_int_equal(rc, 0);
    assert_int_equal(all, 10);
    for (size_t n = start + 30; n < b.len; n++) {
        uint64_t plain = read_uc(b.p, n, 0, &rc, &t, &trunc);
        assert_int_equal(rc, -1);
        assert_int_equal(trunc, 0);
        uint64_t salvaged = read_uc(b.p, n, 1, &rc, &t, &trunc);
        assert_int_equal(rc, 0);
        assert_int_equal(salvaged, plain);
        assert_int_equal(trunc, 1);
        /* chunks are 4 + 4 + 40 bytes: a cut inside one names it */
        size_t in_chunk = (n - start) % 48;
        if (in_chunk) {
            assert_int_equal(t.offset, n - in_chunk);
            assert_int_equal(t.dropped, in_chunk);
            assert_non_null(strstr(t.message, "of a Snappy chunk at offset"));
        } else { /* whole chunks: the op cut across them, or the frame */
            assert_true(t.offset < n && (t.offset - start) % 48 == 0);
            assert_true(strstr(t.message, " op at stream +0x") ||
                        (t.dropped == 0 && strstr(t.message, "the stream ends inside a frame")));
        }
    }
    /* a cut chunk whose type cannot be one's still fails */
    b.p[start + 48] = 0x05;
    read_uc(b.p, start + 48 + 10, 1, &rc, &t, &trunc);
    assert_int_equal(rc, -1);
    ub_free(&ops);
    ub_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader),
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_usercorn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
