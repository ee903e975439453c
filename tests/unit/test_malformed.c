/* Malformed input: every example trace cut at every length and with every
 * byte flipped (xor 0xff, and set to 0x04), run through reader + checker.
 * Each case must end cleanly or with TK_EMALFORMED at an offset inside the
 * input; cuts off a record boundary must be errors at the cut record, tag
 * damage an "unknown record tag" at that record, and damage to a payload
 * byte must not change the record count. Inputs are exact-size heap copies
 * so ASan sees any overread. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

typedef struct result {
    int rc;          /* last tk_cacheray_next: 0 end, -1 error */
    uint64_t nrec;   /* records read */
    tk_error err;
} result;

static result scan(const uint8_t *d, size_t n, tk_endian e, tk_cacheray_checker *c)
{
    tk_error err;
    result res = {0};
    tk_input *in = tk_input_from_memory(d, n, "cut", &res.err);
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, e, &res.err);
    assert_non_null(r);
    tk_cacheray_record rec;
    tk_cacheray_warning w[4];
    while ((res.rc = tk_cacheray_next(r, &rec, &res.err)) > 0) {
        assert_true(tk_cacheray_check(c, &rec, tk_cacheray_reader_offset(r),
                                      tk_cacheray_reader_index(r), w, 4, &err) >= 0);
        if (rec.type == TK_CACHERAY_RTTA_ADD && rec.typename_len) /* touch the name */
            assert_true(rec.type_name >= (const char *)d &&
                        rec.type_name + rec.typename_len <= (const char *)d + n);
        res.nrec++;
    }
    assert_int_equal(res.nrec, tk_cacheray_reader_index(r) + 1); /* wraps when 0 */
    tk_cacheray_reader_free(r);
    tk_input_close(in);
    return res;
}

/* Ended cleanly, or with a malformed-trace error inside the input. */
static void assert_sane(const result *res, size_t n)
{
    if (res->rc == 0)
        return;
    assert_int_equal(res->rc, -1);
    assert_int_equal(res->err.status, TK_EMALFORMED);
    assert_true(res->err.offset < n);
    assert_int_equal(res->err.record, res->nrec);
}

static uint8_t *copy(const uint8_t *d, size_t n)
{
    uint8_t *p = malloc(n ? n : 1);
    assert_non_null(p);
    memcpy(p, d, n);
    return p;
}

static void cuts(const uint8_t *data, size_t size, tk_endian e, const uint64_t *b, size_t nb)
{
    tk_error err;
    size_t k = 0; /* the record the cut falls in (or ends before) */
    for (size_t len = 0; len <= size; len++) {
        while (k < nb && b[k + 1] <= len)
            k++;
        uint8_t *d = copy(data, len);
        for (int pass = 0; pass < 2; pass++) {
            tk_cacheray_checker *c = tk_cacheray_checker_new(&err);
            tk_endian order = pass ? TK_ENDIAN_AUTO : e;
            result res = scan(d, len, order, c);
            assert_sane(&res, len);
            if (pass && tk_cacheray_detect_endian(d, len) != e) {
                tk_cacheray_checker_free(c);
                continue; /* too little left to tell the order: sane is enough */
            }
            assert_int_equal(res.nrec, k);
            if (b[k] == len) {
                assert_int_equal(res.rc, 0);
            } else { /* cut inside record k: reported at its start, or at the
                        * name length of an RTTA_ADD whose fixed part is whole */
                int in_name = (data[b[k]] & 0x3f) == TK_CACHERAY_RTTA_ADD && len >= b[k] + 29;
                assert_int_equal(res.rc, -1);
                assert_int_equal(res.err.record, k);
                assert_int_equal(res.err.offset, b[k] + (in_name ? 25 : 0));
            }
            tk_cacheray_checker_free(c);
        }
        free(d);
    }
}

static void flips(const uint8_t *data, size_t size, tk_endian e, const uint64_t *b, size_t nb)
{
    tk_error err;
    size_t k = 0;
    uint8_t *d = copy(data, size);
    for (size_t i = 0; i < size; i++) {
        while (b[k + 1] <= i)
            k++;
        size_t at = i - b[k];
        int is_add = (data[b[k]] & 0x3f) == TK_CACHERAY_RTTA_ADD;
        for (int m = 0; m < 2; m++) {
            d[i] = m == 0 ? data[i] ^ 0xff : 0x04;
            if (d[i] == data[i])
                continue;
            tk_cacheray_checker *c = tk_cacheray_checker_new(&err);
            result res = scan(d, size, e, c);
            assert_sane(&res, size);
            if (at == 0) { /* the tag: 0x04 and every xor 0xff are unknown */
                char msg[64];
                snprintf(msg, sizeof msg, "unknown record tag 0x%02x", d[i]);
                assert_int_equal(res.rc, -1);
                assert_int_equal(res.err.offset, b[k]);
                assert_int_equal(res.err.record, k);
                assert_string_equal(res.err.message, msg);
            } else if (!(is_add && at >= 25 && at < 29)) { /* payload */
                assert_int_equal(res.rc, 0);
                assert_int_equal(res.nrec, nb);
            }
            tk_cacheray_checker_free(c);
            c = tk_cacheray_checker_new(&err); /* with byte-order detection: sane */
            res = scan(d, size, TK_ENDIAN_AUTO, c);
            assert_sane(&res, size);
            tk_cacheray_checker_free(c);
        }
        d[i] = data[i];
    }
    free(d);
}

static void test_examples(void **state)
{
    (void)state;
    char **ex = tu_examples("cacheray");
    int seen = 0;
    for (char **p = ex; *p; p++, seen++) {
        size_t size;
        uint8_t *data = tu_read_file(*p, &size);
        assert_non_null(data);
        tk_endian e = tk_cacheray_detect_endian(data, size);
        uint64_t *b;
        size_t nb = tu_boundaries(data, size, e == TK_ENDIAN_BIG, &b);
        print_message("%s: %zu bytes, %zu records\n", *p, size, nb);
        cuts(data, size, e, b, nb);
        flips(data, size, e, b, nb);
        free(b);
        free(data);
    }
    assert_true(seen >= 1);
    tu_free_list(ex);
}

/* ---- sizes the input declares (issue 23): checked against what the file
 * holds before any of it is buffered. Each case is a record whose length
 * field asks for more than the file has, in front of 64 MiB of (sparse)
 * zeros: the error comes at once, after the first chunk read, where an
 * unchecked size would read and keep the whole tail first. */

static void furthest_read(void *ctx, const tk_input_progress *p)
{
    uint64_t *furthest = ctx;
    if (p->offset > *furthest)
        *furthest = p->offset;
}

static void lying_size(const void *head, size_t n, const char *format, uint64_t want_offset,
                       const char *want_message)
{
    char *dir = tu_tmpdir();
    const char *path = tu_path(dir, "lying");
    tu_write_file(path, head, n);
    assert_int_equal(truncate(path, (off_t)64 << 20), 0);
    tk_error err;
    tk_input *in = tk_input_open(path, &err);
    assert_non_null(in);
    uint64_t furthest = 0;
    tk_input_set_progress(in, furthest_read, &furthest);
    tk_reader *r = tk_reader_new(in, format, NULL, &err);
    assert_non_null(r);
    tk_record rec;
    int rc;
    while ((rc = tk_reader_next(r, &rec, &err)) > 0)
        ;
    assert_int_equal(rc, -1);
    assert_int_equal(err.status, TK_EMALFORMED);
    assert_int_equal(err.offset, want_offset);
    assert_string_equal(err.message, want_message);
    assert_true(furthest > 0 && furthest <= (1u << 20));
    tk_reader_free(r);
    tk_input_close(in);
    tu_rmdir(dir);
}

static void test_lying_sizes(void **state)
{
    (void)state;
    /* Cacheray: an RTTA_ADD whose type name is 4 GiB - 1 bytes */
    uint8_t cr[TK_CACHERAY_RTTA_ADD_FIXED] = {TK_CACHERAY_RTTA_ADD, 0x10, 0, 0, 0, 0, 0, 0, 0, 1};
    memset(cr + 25, 0xff, 4);
    lying_size(cr, sizeof cr, "cacheray", 25,
               "rtta_add type name of 4294967295 bytes runs past the end of the file "
               "(67108835 bytes left)");
    /* XRay FDR v1: a custom event of 2^31 - 1 bytes after the header */
    uint8_t xr[48] = {1, 0, 1, 0, 3, 0, 0, 0, 0x00, 0xca, 0x9a, 0x3b};
    memcpy(xr + 32, "\x0b\xff\xff\xff\x7f", 5);
    lying_size(xr, sizeof xr, "xray", 33,
               "event payload of 2147483647 bytes runs past the end of the trace "
               "(67108816 bytes left)");
    /* UCIR: the spec header, then an OP_FRAME of 100 MiB (under max-frame) */
    uint8_t uc[90] = {'U', 'C', 'I', 'R', 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 8, 'x', '8', '6'};
    memcpy(uc + 80, "\x01\x01\x00\x00\x00\x01\x06\x40\x00\x00", 10);
    lying_size(uc, sizeof uc, "ucir", 80,
               "frame 0: truncated: OP_FRAME needs 104857600 compressed bytes, 67108774 left");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_lying_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
