/* The frame body scan (ucir_scan_spec) against a plain reference scan
 * written from the spec, on random op streams: records, error offset,
 * message and first EXEC must agree exactly. The streams are long enough
 * for the scan's fast path (AVX2 on x86-64: blocks of 1 KiB once the first
 * EXEC is known) and put every unusual or bad op (unknown ids, memory
 * sizes around its limits, syscalls, truncations, op_count ends) before,
 * inside and after it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "ucir/ucir_int.h"

/* ---- the reference: one op at a time, straight from the spec */

static const char *const names[UCIR_SPEC_OPS] = {
    "OP_NOP", "OP_FRAME", "OP_EXEC_ABS", "OP_EXEC_REL", "OP_REG_CHANGE", "OP_SPREG_CHANGE",
    "OP_MEM_READ", "OP_MEM_WRITE", "OP_MEM_MAP", "OP_MEM_UNMAP", "OP_SYSCALL", "OP_EXIT"};
static const size_t fixed[UCIR_SPEC_OPS] = {1, 0, 13, 5, 11, 5, 17, 17, 14, 13, 15, 1};

static uint64_t be(const uint8_t *p, int k)
{
    uint64_t v = 0;
    for (int i = 0; i < k; i++)
        v = v << 8 | p[i];
    return v;
}

static size_t ref_fail(ucir_scan *s, uint64_t pos, uint64_t records, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->message, sizeof s->message, fmt, ap);
    va_end(ap);
    s->failed = 1;
    s->err_pos = pos;
    s->records = records;
    return 0;
}

/* The op at pos, record `rec`: its length with nested ops, 0 if bad. */
static size_t ref_op(const uint8_t *d, size_t n, size_t pos, uint64_t rec, int nested, ucir_scan *s)
{
    const uint8_t *p = d + pos;
    size_t left = n - pos;
    unsigned id = p[0];
    if ((id == 2 || id == 3) && !s->first_exec) {
        s->first_exec = (int)id;
        s->first_exec_record = rec;
    }
    if (id == 1)
        return ref_fail(s, pos, rec, "OP_FRAME inside a frame (frames do not nest)");
    if (id == 10 && nested)
        return ref_fail(s, pos, rec, "OP_SYSCALL inside a syscall");
    if (id >= UCIR_SPEC_OPS)
        return ref_fail(s, pos, rec, "unknown op 0x%02x", id);
    if (fixed[id] > left)
        return ref_fail(s, pos, rec, "truncated %s: needs %zu bytes, %zu left in the frame",
                        names[id], fixed[id], left);
    if (id == 5) {
        uint64_t len = be(p + 3, 2);
        if (len > left - 5)
            return ref_fail(s, pos, rec,
                            "truncated OP_SPREG_CHANGE: needs 5 + %u bytes, %zu left in the frame",
                            (unsigned)len, left);
        return 5 + (size_t)len;
    }
    if (id == 6 || id == 7) {
        uint64_t size = be(p + 9, 8);
        if (size > left - 17)
            return ref_fail(s, pos, rec, "truncated %s: needs 17 + %llu bytes, %zu left in the frame",
                            names[id], (unsigned long long)size, left);
        return 17 + (size_t)size;
    }
    if (id != 10)
        return fixed[id];
    uint64_t argc = be(p + 11, 2), count = be(p + 13, 2);
    if (8 * argc > left - 15)
        return ref_fail(s, pos, rec,
                        "truncated OP_SYSCALL: needs 15 + 8 * %u bytes of arguments, %zu left in the frame",
                        (unsigned)argc, left);
    size_t at = pos + 15 + 8 * (size_t)argc;
    for (uint64_t k = 0; k < count; k++) {
        if (at >= n)
            return ref_fail(s, at, rec + 1 + k, "frame ends inside OP_SYSCALL after %u of its %u nested ops",
                            (unsigned)k, (unsigned)count);
        size_t len = ref_op(d, n, at, rec + 1 + k, 1, s);
        if (!len)
            return 0;
        at += len;
    }
    return at - pos;
}

static int ref_scan(const uint8_t *d, size_t n, uint32_t op_count, ucir_scan *s)
{
    size_t pos = 0;
    uint64_t recs = 0;
    uint32_t ops = 0;
    s->failed = 0;
    s->first_exec = 0;
    s->first_exec_record = 0;
    s->message[0] = '\0';
    while (pos < n) {
        if (ops == op_count)
            return ref_fail(s, pos, recs, "frame data goes on after its %u ops (op_count)", op_count), -1;
        size_t len = ref_op(d, n, pos, recs, 0, s);
        if (!len)
            return -1;
        recs += d[pos] == 10 ? 1 + be(d + pos + 13, 2) : 1;
        pos += len;
        ops++;
    }
    if (ops < op_count)
        return ref_fail(s, pos, recs, "frame ends after %u of its %u ops (op_count)", ops, op_count), -1;
    s->records = recs;
    s->err_pos = n;
    return 0;
}

/* ---- streams */

typedef struct gen {
    uint8_t *p;
    size_t len, cap;
    uint32_t ops; /* top-level ops */
    uint64_t rng;
} gen;

static uint64_t rnd(gen *g, uint64_t below)
{
    return tu_rand_below(&g->rng, below);
}

static uint8_t *room(gen *g, size_t k)
{
    if (g->len + k + UCIR_SLACK > g->cap) {
        while (g->len + k + UCIR_SLACK > g->cap)
            g->cap = g->cap ? 2 * g->cap : 4096;
        g->p = realloc(g->p, g->cap);
        assert_non_null(g->p);
    }
    uint8_t *q = g->p + g->len;
    for (size_t i = 0; i < k; i++)
        q[i] = (uint8_t)tu_rand(&g->rng);
    g->len += k;
    return q;
}

static void put_be(uint8_t *q, uint64_t v, int k)
{
    for (int i = k - 1; i >= 0; i--, v >>= 8)
        q[i] = (uint8_t)v;
}

static void op_fixed(gen *g, unsigned id)
{
    room(g, fixed[id])[0] = (uint8_t)id;
}

static void op_mem(gen *g, unsigned id, uint64_t size)
{
    /* sizes too big for the buffer only get their header: they are bad */
    size_t body = size < 4096 ? (size_t)size : 0;
    uint8_t *q = room(g, 17 + body);
    q[0] = (uint8_t)id;
    put_be(q + 9, size, 8);
}

/* The common ops, about as often as in a real trace. */
static void op_common(gen *g)
{
    uint64_t r = rnd(g, 100);
    if (r < 47)
        op_fixed(g, 3);
    else if (r < 80)
        op_fixed(g, 4);
    else if (r < 87)
        op_fixed(g, 2);
    else
        op_mem(g, 6 + (unsigned)rnd(g, 2), 8);
}

/* Ids that are not ops, and the edges of the fast path's id table. */
static const unsigned bad_ids[] = {1, 12, 13, 14, 15, 16, 17, 26, 27, 31, 32, 63, 64, 66,
                                   70, 71, 127, 128, 129, 134, 135, 200, 254, 255};

static void op_odd(gen *g, int nested)
{
    static const uint64_t sizes[] = {0, 1, 7, 9, 31, 100, 236, 237, 238, 239, 240, 254, 255, 256,
                                     257, 1000, 4000, 0x108, 0x10008, 0x100000008ull,
                                     0x0100000000000008ull, 0x8000000000000000ull,
                                     0xffffffffffffffffull, 0xfffffffffffffff0ull};
    switch (rnd(g, 10)) {
    case 0: op_fixed(g, (unsigned[]){0, 8, 9, 11}[rnd(g, 4)]); break;
    case 1:
    case 2: op_mem(g, 6 + (unsigned)rnd(g, 2), sizes[rnd(g, sizeof sizes / sizeof sizes[0])]); break;
    case 3: op_mem(g, 6 + (unsigned)rnd(g, 2), rnd(g, 300)); break;
    case 4: {
        uint64_t len = rnd(g, 8) ? rnd(g, 64) : rnd(g, 3000);
        uint8_t *q = room(g, 5 + (size_t)len);
        q[0] = 5;
        put_be(q + 3, len, 2);
        break;
    }
    case 5:
    case 6: {
        if (nested) { /* a SYSCALL inside one: bad */
            room(g, 15)[0] = 10;
            break;
        }
        uint64_t argc = rnd(g, 7), count = rnd(g, 5);
        uint8_t *q = room(g, 15 + 8 * (size_t)argc);
        q[0] = 10;
        put_be(q + 11, argc, 2);
        put_be(q + 13, count, 2);
        for (uint64_t k = 0; k < count; k++) {
            if (rnd(g, 4))
                op_common(g);
            else
                op_odd(g, 1);
        }
        break;
    }
    case 7: room(g, 15)[0] = 10; break;
    default: room(g, 1 + rnd(g, 20))[0] = (uint8_t)bad_ids[rnd(g, sizeof bad_ids / sizeof bad_ids[0])]; break;
    }
}

static long compared;

static void compare(const uint8_t *d, size_t n, uint32_t op_count)
{
    ucir_scan a, b;
    memset(&a, 0x5a, sizeof a);
    memset(&b, 0xa5, sizeof b);
    int ra = ucir_scan_spec(d, n, op_count, &a);
    int rb = ref_scan(d, n, op_count, &b);
    if (ra != rb || a.failed != b.failed || a.records != b.records || a.err_pos != b.err_pos ||
        strcmp(a.message, b.message) != 0 || a.first_exec != b.first_exec ||
        a.first_exec_record != b.first_exec_record) {
        print_error("n=%zu op_count=%u: scan %d records %llu at %llu first %d/%llu \"%s\"\n"
                    "               reference %d records %llu at %llu first %d/%llu \"%s\"\n",
                    n, op_count, ra, (unsigned long long)a.records, (unsigned long long)a.err_pos,
                    a.first_exec, (unsigned long long)a.first_exec_record, a.message, rb,
                    (unsigned long long)b.records, (unsigned long long)b.err_pos, b.first_exec,
                    (unsigned long long)b.first_exec_record, b.message);
        fail();
    }
    compared++;
}

/* The stream's first `cut` bytes (zeroed slack after them as the frame
 * reader leaves it). */
static void compare_cut(gen *g, size_t cut, uint32_t op_count)
{
    uint8_t keep[UCIR_SLACK];
    memcpy(keep, g->p + cut, UCIR_SLACK);
    memset(g->p + cut, 0, UCIR_SLACK);
    compare(g->p, cut, op_count);
    memcpy(g->p + cut, keep, UCIR_SLACK);
}

/* The stream as it is, cut short, and with op_counts around its own. */
static void compare_variants(gen *g)
{
    memset(g->p + g->len, 0, UCIR_SLACK);
    compare(g->p, g->len, g->ops);
    compare(g->p, g->len, g->ops + 1);
    if (g->ops)
        compare(g->p, g->len, g->ops - 1);
    compare(g->p, g->len, (uint32_t)rnd(g, (uint64_t)g->ops + 1));
    if (g->len)
        compare_cut(g, g->len - (size_t)rnd(g, g->len < 300 ? g->len : 300), g->ops);
}

/* Random streams: a run of non-EXEC ops first (the fast path waits for the
 * first EXEC), then common ops with odd ones at some rate. */
static void test_random_streams(void **state)
{
    (void)state;
    gen g = {.rng = 0x5ca9};
    static const uint64_t rates[] = {0, 5000, 300, 40, 5};
    for (int it = 0; it < 3000; it++) {
        g.len = 0;
        g.ops = 0;
        size_t want = it % 4 == 0 ? (size_t)rnd(&g, 400) : 1000 + (size_t)rnd(&g, it % 4 == 1 ? 40000 : 6000);
        uint64_t rate = rates[rnd(&g, 5)];
        for (uint64_t k = rnd(&g, 3) ? 0 : rnd(&g, 400); k > 0 && g.len < want; k--, g.ops++) {
            if (rnd(&g, 3))
                op_fixed(&g, 4);
            else
                op_mem(&g, 6, 8);
        }
        while (g.len < want) {
            if (rate && rnd(&g, rate) == 0)
                op_odd(&g, 0);
            else
                op_common(&g);
            g.ops++;
        }
        compare_variants(&g);
    }
    free(g.p);
    assert_true(compared > 10000);
}

/* One odd op or byte (every id) at many places of a long clean stream:
 * before, in and after each of its fast-path blocks. Memory and SPREG ops
 * are long ones: near the longest of the fast path's table, or past a
 * whole block of it. */
static void test_every_id_everywhere(void **state)
{
    (void)state;
    gen g = {.rng = 0x1d5};
    for (unsigned id = 0; id < 256; id++) {
        for (int place = 0; place < 12; place++) {
            g.len = 0;
            g.ops = 0;
            size_t at = (size_t)place * 600 + (size_t)rnd(&g, 600);
            while (g.len < at) {
                op_common(&g);
                g.ops++;
            }
            /* memory and SPREG ops long for the fast path's table, or for a
             * whole block of it */
            uint64_t size = place % 2 ? 200 + rnd(&g, 60) : 900 + rnd(&g, 2100);
            if (id < UCIR_SPEC_OPS && id != 1 && id != 5 && id != 6 && id != 7 && id != 10) {
                op_fixed(&g, id);
            } else if (id == 6 || id == 7) {
                op_mem(&g, id, size);
            } else if (id == 5) {
                uint8_t *q = room(&g, 5 + (size_t)size);
                q[0] = 5;
                put_be(q + 3, size, 2);
            } else if (id == 10) {
                op_odd(&g, 0);
            } else {
                room(&g, 1)[0] = (uint8_t)id;
            }
            g.ops++;
            while (g.len < 8000) {
                op_common(&g);
                g.ops++;
            }
            compare_variants(&g);
        }
    }
    free(g.p);
}

/* A long memory op (up to the fast path's longest) near the end of the
 * frame, the frame cut at each byte around its end. */
static void test_long_ops_at_the_end(void **state)
{
    (void)state;
    gen g = {.rng = 0xe4d};
    for (int it = 0; it < 60; it++) {
        g.len = 0;
        g.ops = 0;
        size_t want = 1300 + (size_t)rnd(&g, 4000);
        while (g.len < want) {
            op_common(&g);
            g.ops++;
        }
        size_t start = g.len;
        uint64_t size = it < 10 ? 238 - (uint64_t)it : 120 + rnd(&g, 119);
        op_mem(&g, 6 + (unsigned)rnd(&g, 2), size);
        g.ops++;
        for (int k = 0; k < 3; k++) {
            op_common(&g);
            g.ops++;
        }
        for (size_t cut = start; cut <= g.len; cut++)
            compare_cut(&g, cut, g.ops);
    }
    free(g.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_streams),
        cmocka_unit_test(test_every_id_everywhere),
        cmocka_unit_test(test_long_ops_at_the_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
