/* Malformed input: every example trace cut at every length and with every
 * byte flipped (xor 0xff, and set to 0x04), run through reader + checker.
 * Each case must end cleanly or with TK_EMALFORMED at an offset inside the
 * input; cuts off a record boundary must be errors at the cut record, tag
 * damage an "unknown record tag" at that record, and damage to a payload
 * byte must not change the record count. Inputs are exact-size heap copies
 * so ASan sees any overread. */
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
