/* The Perfetto encoder (src/export/perfetto/) read back by a small
 * protobuf walker written here from the wire format, independently of the
 * encoder: varints, nested lengths, packets, interning per sequence,
 * delta timestamps, state clearing, errors. (tests/perfetto/ checks real
 * outputs against Perfetto's own schema with protoc.) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/id_index.h"
#include "export/perfetto/pb.h"
#include "export/perfetto/perfetto.h"
#include "export/perfetto/perfetto_int.h"

/* ---------------------------------------------------------- the walker */

typedef struct field {
    uint32_t num;
    int wire;
    uint64_t v;            /* varint or fixed64 */
    const uint8_t *p;      /* length-delimited */
    size_t n;
} field;

static uint64_t get_varint(const uint8_t *p, size_t n, size_t *at)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        assert_true(*at < n);
        uint8_t c = p[(*at)++];
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    fail_msg("varint too long");
    return 0;
}

/* The next field of message p[0..n) at *at: 1, or 0 at its end. */
static int next_field(const uint8_t *p, size_t n, size_t *at, field *f)
{
    if (*at >= n)
        return 0;
    uint64_t key = get_varint(p, n, at);
    f->num = (uint32_t)(key >> 3);
    f->wire = (int)(key & 7);
    if (f->wire == 0) {
        f->v = get_varint(p, n, at);
    } else if (f->wire == 1) {
        assert_true(*at + 8 <= n);
        f->v = 0;
        for (int i = 0; i < 8; i++)
            f->v |= (uint64_t)p[*at + (size_t)i] << (8 * i);
        *at += 8;
    } else if (f->wire == 2) {
        f->n = (size_t)get_varint(p, n, at);
        assert_true(*at + f->n <= n);
        f->p = p + *at;
        *at += f->n;
    } else {
        fail_msg("wire type %d", f->wire);
    }
    return 1;
}

/* The first field `num` of a message; 0 when absent. */
static int find(const uint8_t *p, size_t n, uint32_t num, field *out)
{
    size_t at = 0;
    field f = {0};
    while (next_field(p, n, &at, &f))
        if (f.num == num) {
            *out = f;
            return 1;
        }
    return 0;
}

static uint64_t find_u(const uint8_t *p, size_t n, uint32_t num, uint64_t dflt)
{
    field f = {0};
    return find(p, n, num, &f) ? f.v : dflt;
}

/* The packets of a Trace. */
typedef struct trace {
    char *buf;
    size_t size;
    field packets[4096];
    size_t n;
} trace;

static void read_trace(trace *t)
{
    size_t at = 0;
    field f = {0};
    t->n = 0;
    while (next_field((const uint8_t *)t->buf, t->size, &at, &f)) {
        assert_int_equal(f.num, 1);
        assert_int_equal(f.wire, 2);
        assert_true(t->n < 4096);
        t->packets[t->n++] = f;
    }
}

/* ------------------------------------------------------------- the tests */

static void test_varints_and_nesting(void **state)
{
    (void)state;
    tk_pb b = {0};
    tk_pb_uint(&b, 1, 300);
    static const uint8_t want[] = {0x08, 0xac, 0x02};
    assert_int_equal(b.len, 3);
    assert_memory_equal(b.p, want, 3);
    /* a body of 200 bytes needs a two-byte length: the body moves */
    size_t at = tk_pb_open(&b, 5);
    char big[200];
    memset(big, 'x', sizeof big);
    tk_pb_bytes(&b, 2, big, sizeof big);
    tk_pb_close(&b, at);
    size_t pos = 3;
    field f = {0};
    assert_true(next_field(b.p, b.len, &pos, &f));
    assert_int_equal(f.num, 5);
    assert_int_equal(f.n, 203); /* tag, 2-byte length, 200 bytes */
    field g = {0};
    assert_true(find(f.p, f.n, 2, &g));
    assert_int_equal(g.n, 200);
    assert_int_equal(pos, b.len);
    tk_pb_free(&b);
}

/* Strings are UTF-8 on the wire: invalid bytes become U+FFFD. */
static void test_utf8(void **state)
{
    (void)state;
    tk_pb b = {0};
    tk_pb_utf8(&b, 1, "a\xff\xc3\xa9\xed\xa0\x80z", 8);
    static const uint8_t want[] = "\x0a\x10" "a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz";
    assert_int_equal(b.len, 18);
    assert_memory_equal(b.p, want, 18);
    b.len = 0;
    tk_pb_utf8(&b, 1, "ok \xe2\x82\xac", 6); /* valid: as is */
    assert_int_equal(b.len, 8);
    assert_memory_equal(b.p + 2, "ok \xe2\x82\xac", 6);
    tk_pb_free(&b);
}

static tk_perfetto *open_writer(trace *t, FILE **fp)
{
    *fp = open_memstream(&t->buf, &t->size);
    assert_non_null(*fp);
    tk_error err;
    tk_perfetto *p = tk_perfetto_new(*fp, &err);
    assert_non_null(p);
    return p;
}

static void close_writer(trace *t, tk_perfetto *p, FILE *fp)
{
    tk_error err;
    assert_int_equal(tk_perfetto_finish(p, &err), TK_OK);
    fclose(fp);
    read_trace(t);
}

/* Two slices and a counter on one sequence: the packets as Perfetto's SDK
 * writes them, names interned once, times as deltas. */
static void test_one_sequence(void **state)
{
    (void)state;
    static trace t;
    FILE *fp;
    tk_perfetto *p = open_writer(&t, &fp);
    tk_error err;
    tk_perfetto_seq *s = tk_perfetto_seq_new(p, &err);
    assert_int_equal(tk_perfetto_track(s, 7, 0, "calls", &err), TK_OK);
    assert_int_equal(tk_perfetto_counter_track(s, 8, 7, "bytes", TK_PERFETTO_UNIT_BYTES, NULL,
                                               &err), TK_OK);
    uint64_t name = tk_perfetto_name(p, "main", 4, &err);
    uint64_t argn = tk_perfetto_arg_name(p, "arg0", 4, &err);
    assert_int_equal(name, 1);
    assert_int_equal(tk_perfetto_name(p, "main", 4, &err), 1); /* same id again */
    tk_perfetto_arg arg = {.name = argn, .type = TK_PERFETTO_ARG_UINT, .v.u = 42};
    tk_perfetto_event e = {.ts = 1000, .track = 7, .name = name, .args = &arg, .nargs = 1};
    assert_int_equal(tk_perfetto_begin(s, &e, &err), TK_OK);
    assert_int_equal(tk_perfetto_end(s, 1500, 7, &err), TK_OK);
    e.ts = 1500;
    assert_int_equal(tk_perfetto_begin(s, &e, &err), TK_OK);
    assert_int_equal(tk_perfetto_counter(s, 1600, 8, -5, &err), TK_OK);
    assert_int_equal(tk_perfetto_end(s, 1700, 7, &err), TK_OK);
    assert_int_equal(tk_perfetto_end(s, 1600, 7, &err), TK_EUSAGE); /* time goes back */
    assert_int_equal(tk_perfetto_packets(p), 2 + 2 + 5);
    close_writer(&t, p, fp);
    assert_int_equal(t.n, 9);

    /* descriptors, then the cleared-state packet, then the clock snapshot */
    field d = {0}, f = {0};
    assert_true(find(t.packets[0].p, t.packets[0].n, 60, &d));
    assert_int_equal(find_u(d.p, d.n, 1, 0), 7);
    assert_true(find(t.packets[1].p, t.packets[1].n, 60, &d));
    assert_int_equal(find_u(d.p, d.n, 5, 0), 7);
    assert_true(find(d.p, d.n, 8, &f)); /* counter */
    assert_int_equal(find_u(f.p, f.n, 3, 0), 3);
    const field *c = &t.packets[2];
    assert_int_equal(find_u(c->p, c->n, 13, 0), 1);
    assert_true(find(c->p, c->n, 59, &d));
    assert_int_equal(find_u(d.p, d.n, 58, 0), 64);
    c = &t.packets[3];
    assert_int_equal(find_u(c->p, c->n, 8, 0), 1000);
    assert_int_equal(find_u(c->p, c->n, 58, 0), 6);
    assert_true(find(c->p, c->n, 6, &f));

    /* the events: deltas 0, 500, 0, 100, 100; names defined once */
    static const uint64_t delta[] = {0, 500, 0, 100, 100};
    static const uint64_t type[] = {1, 2, 1, 4, 2};
    int defined = 0;
    for (size_t i = 0; i < 5; i++) {
        const field *pk = &t.packets[4 + i];
        assert_int_equal(find_u(pk->p, pk->n, 10, 0), 1);
        assert_int_equal(find_u(pk->p, pk->n, 13, 0), 2);
        assert_int_equal(find_u(pk->p, pk->n, 8, 99), delta[i]);
        field ev = {0};
        assert_true(find(pk->p, pk->n, 11, &ev));
        assert_int_equal(find_u(ev.p, ev.n, 9, 0), type[i]);
        if (find(pk->p, pk->n, 12, &f)) {
            defined++;
            field en = {0};
            assert_true(find(f.p, f.n, 2, &en));
            assert_true(find(en.p, en.n, 2, &d));
            assert_int_equal(d.n, 4);
            assert_memory_equal(d.p, "main", 4);
        }
        if (type[i] == 4) {
            assert_int_equal(find_u(ev.p, ev.n, 11, 0), 8);
            assert_int_equal((int64_t)find_u(ev.p, ev.n, 30, 0), -5);
        }
    }
    assert_int_equal(defined, 1);
    free(t.buf);
}

/* Sequences intern separately; a default track is left out of events. */
static void test_sequences_and_defaults(void **state)
{
    (void)state;
    static trace t;
    FILE *fp;
    tk_perfetto *p = open_writer(&t, &fp);
    tk_error err;
    tk_perfetto_seq *a = tk_perfetto_seq_new(p, &err), *b = tk_perfetto_seq_new(p, &err);
    assert_int_equal(tk_perfetto_thread_track(a, 11, 0, 1, 100, "t100", &err), TK_OK);
    assert_int_equal(tk_perfetto_thread_track(b, 12, 0, 1, 101, "t101", &err), TK_OK);
    tk_perfetto_seq_default_track(a, 11);
    tk_perfetto_seq_default_track(b, 12);
    uint64_t n = tk_perfetto_name(p, "f", 1, &err);
    tk_perfetto_event e = {.ts = 50, .name = n};
    assert_int_equal(tk_perfetto_instant(b, &e, &err), TK_OK);
    e.ts = 10; /* sequences have their own clocks */
    assert_int_equal(tk_perfetto_instant(a, &e, &err), TK_OK);
    close_writer(&t, p, fp);
    int defs_a = 0, defs_b = 0;
    for (size_t i = 0; i < t.n; i++) {
        const field *pk = &t.packets[i];
        field f = {0};
        uint64_t seq = find_u(pk->p, pk->n, 10, 0);
        if (find(pk->p, pk->n, 12, &f))
            *(seq == 1 ? &defs_a : &defs_b) += 1;
        if (find(pk->p, pk->n, 11, &f))
            assert_int_equal(find_u(f.p, f.n, 11, 0), 0); /* no track_uuid */
        if (find(pk->p, pk->n, 59, &f)) {
            field te = {0};
            assert_true(find(f.p, f.n, 11, &te));
            assert_int_equal(find_u(te.p, te.n, 11, 0), seq == 1 ? 11 : 12);
        }
    }
    assert_int_equal(defs_a, 1);
    assert_int_equal(defs_b, 1);
    free(t.buf);
}

/* Past TK_PERFETTO_SEQ_INTERN_MAX ids a sequence clears its state and
 * defines the ids it uses again. */
static void test_state_cleared_when_full(void **state)
{
    (void)state;
    tk_error err;
    char *buf = NULL;
    size_t size = 0;
    FILE *fp = open_memstream(&buf, &size);
    tk_perfetto *p = tk_perfetto_new(fp, &err);
    tk_perfetto_seq *s = tk_perfetto_seq_new(p, &err);
    assert_int_equal(tk_perfetto_track(s, 1, 0, "x", &err), TK_OK);
    char name[32];
    uint64_t first = 0;
    for (uint32_t i = 0; i < TK_PERFETTO_SEQ_INTERN_MAX; i++) {
        int len = snprintf(name, sizeof name, "f%u", i);
        uint64_t id = tk_perfetto_name(p, name, (size_t)len, &err);
        first = first ? first : id;
        tk_perfetto_event e = {.ts = i, .track = 1, .name = id};
        assert_int_equal(tk_perfetto_instant(s, &e, &err), TK_OK);
    }
    uint64_t before = tk_perfetto_packets(p);
    tk_perfetto_event e = {.ts = TK_PERFETTO_SEQ_INTERN_MAX + 1, .track = 1, .name = first};
    assert_int_equal(tk_perfetto_instant(s, &e, &err), TK_OK);
    /* cleared-state packet, clock snapshot, then the event with its name */
    assert_int_equal(tk_perfetto_packets(p) - before, 3);
    assert_int_equal(tk_perfetto_finish(p, &err), TK_OK);
    fclose(fp);
    size_t at = 0, last = 0, count = 0;
    field f = {0};
    while (next_field((const uint8_t *)buf, size, &at, &f)) {
        count++;
        last = at - f.n;
    }
    const uint8_t *pk = (const uint8_t *)buf + last;
    size_t n = size - last;
    assert_true(find(pk, n, 12, &f)); /* defined again */
    assert_int_equal(find_u(pk, n, 8, 99), 0); /* delta from the new snapshot */
    free(buf);
}

/* An event whose ids are all defined takes the short path: its
 * TrackEvent is byte for byte the general path's, every kind of varint
 * annotation included. */
static void test_plain_path_same_bytes(void **state)
{
    (void)state;
    static trace t;
    FILE *fp;
    tk_perfetto *p = open_writer(&t, &fp);
    tk_error err;
    tk_perfetto_seq *s = tk_perfetto_seq_new(p, &err);
    assert_int_equal(tk_perfetto_track(s, 300, 0, "lane", &err), TK_OK);
    uint64_t name = tk_perfetto_name(p, "r", 1, &err), cat = tk_perfetto_category(p, "c", 1, &err);
    uint64_t str = tk_perfetto_string(p, "v", 1, &err);
    tk_perfetto_arg args[5];
    static const tk_perfetto_arg_type types[] = {TK_PERFETTO_ARG_UINT, TK_PERFETTO_ARG_INT,
                                                 TK_PERFETTO_ARG_HEX, TK_PERFETTO_ARG_BOOL,
                                                 TK_PERFETTO_ARG_ISTR};
    for (int i = 0; i < 5; i++) {
        char an[2] = {(char)('a' + i), 0};
        args[i] = (tk_perfetto_arg){tk_perfetto_arg_name(p, an, 1, &err), types[i], {.u = 0}};
    }
    args[0].v.u = 1u << 20;
    args[1].v.i = -3;
    args[2].v.u = 0x5555555a0000ull;
    args[3].v.u = 7;
    args[4].v.u = str;
    tk_perfetto_event e = {.ts = 10, .track = 300, .name = name, .category = cat,
                           .args = args, .nargs = 5};
    assert_int_equal(tk_perfetto_begin(s, &e, &err), TK_OK); /* defines: general path */
    e.ts = 200;
    assert_int_equal(tk_perfetto_begin(s, &e, &err), TK_OK); /* all defined: short path */
    close_writer(&t, p, fp);
    assert_int_equal(t.n, 5); /* descriptor, cleared state, snapshot, two events */
    field ev1 = {0}, ev2 = {0}, f = {0};
    assert_true(find(t.packets[3].p, t.packets[3].n, 11, &ev1));
    assert_true(find(t.packets[4].p, t.packets[4].n, 11, &ev2));
    assert_true(find(t.packets[3].p, t.packets[3].n, 12, &f));
    assert_false(find(t.packets[4].p, t.packets[4].n, 12, &f));
    assert_int_equal(find_u(t.packets[4].p, t.packets[4].n, 8, 0), 190);
    assert_int_equal(ev1.n, ev2.n);
    assert_memory_equal(ev1.p, ev2.p, ev1.n);
    assert_int_equal(find_u(ev2.p, ev2.n, 3, 0), cat);
    /* the annotations' values, as put_arg writes them */
    static const uint32_t vfield[] = {3, 4, 7, 2, 17};
    const uint64_t want[] = {1u << 20, (uint64_t)-3, 0x5555555a0000ull, 1, str};
    size_t at = 0, k = 0;
    while (next_field(ev2.p, ev2.n, &at, &f)) {
        if (f.num != 4)
            continue;
        assert_true(k < 5);
        assert_int_equal(find_u(f.p, f.n, 1, 0), args[k].name);
        assert_int_equal(find_u(f.p, f.n, vfield[k], 99), want[k]);
        k++;
    }
    assert_int_equal(k, 5);
    free(t.buf);
}

/* Thread ids to indexes: small ids in the direct table, others hashed,
 * and ids that came before the table covered them found where they are. */
static void test_index(void **state)
{
    (void)state;
    static const uint64_t first[] = {1000, UINT64_MAX, 1ull << 40, 5, 0};
    tk_id_index x = {0};
    int added;
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(tk_id_index_get(&x, first[i], &added), (int64_t)i);
        assert_int_equal(added, 1);
    }
    for (uint64_t k = 1; k <= 3000; k++) { /* the table grows past 1000 */
        int64_t want = k == 1000 ? 0 : k == 5 ? 3 : -1;
        int64_t got = tk_id_index_get(&x, k, &added);
        if (want >= 0) {
            assert_int_equal(got, want);
            assert_int_equal(added, 0);
        } else {
            assert_int_equal(added, 1);
            assert_int_equal(x.keys[got], k);
        }
    }
    assert_int_equal(x.n, 5 + 3000 - 2);
    assert_true(x.ndirect > 3000 && x.ndirect <= 3 * x.n + 96);
    for (size_t i = 0; i < x.n; i++) {
        assert_int_equal(tk_id_index_get(&x, x.keys[i], &added), (int64_t)i);
        assert_int_equal(added, 0);
    }
    tk_id_index_free(&x);
}

/* Recent ids in front of an index: a hit gives the index put for the
 * key, a key sharing its slot replaces it, empty slots and key 0 (zeroed)
 * find nothing, an index past 32 bits is not kept. */
static void test_id_recent(void **state)
{
    (void)state;
    tk_id_recent c;
    memset(&c, 0, sizeof c);
    assert_int_equal(tk_id_recent_find(&c, 0), -1);
    tk_id_recent_put(&c, 5, 0);
    tk_id_recent_put(&c, 5 + TK_ID_RECENT, 7); /* the same slot */
    tk_id_recent_put(&c, UINT64_MAX, 3);
    assert_int_equal(tk_id_recent_find(&c, 5), -1);
    assert_int_equal(tk_id_recent_find(&c, 5 + TK_ID_RECENT), 7);
    assert_int_equal(tk_id_recent_find(&c, UINT64_MAX), 3);
    assert_int_equal(tk_id_recent_find(&c, UINT64_MAX - TK_ID_RECENT), -1);
    tk_id_recent_put(&c, 6, (size_t)UINT32_MAX);
    assert_int_equal(tk_id_recent_find(&c, 6), -1);
    for (uint64_t k = 0; k < 100; k++)
        tk_id_recent_put(&c, k, (size_t)k * 3);
    for (uint64_t k = 0; k < 100; k++)
        assert_int_equal(tk_id_recent_find(&c, k), k + TK_ID_RECENT >= 100 ? (int64_t)k * 3 : -1);
}

/* Interned names: one id per string however the table grows, new names
 * (tk_perfetto_name_new) numbered in turn and never found by a lookup,
 * every string kept as given. */
static void test_intern(void **state)
{
    (void)state;
    tk_error err;
    tk_perfetto *p = tk_perfetto_new(stdout, &err);
    char s[32];
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 5000; i++) { /* past several rehashes */
            int n = snprintf(s, sizeof s, "name %d", i);
            uint64_t want = (uint64_t)(i < 2500 ? i + 1 : i + 2);
            if (i == 2500 && round == 0) /* a new name in the middle: id 2501 */
                assert_int_equal(tk_perfetto_name_new(p, "#7", 2, &err), 2501);
            assert_int_equal(tk_perfetto_name(p, s, (size_t)n, &err), want);
        }
    assert_int_equal(tk_perfetto_name(p, "#7", 2, &err), 5002); /* not hashed */
    assert_int_equal(tk_perfetto_name(p, "", 0, &err), 5003);
    assert_int_equal(tk_perfetto_name(p, NULL, 0, &err), 5003);
    assert_int_equal(tk_perfetto_arg_name(p, "name 3", 6, &err), 1); /* own table */
    size_t n;
    assert_string_equal(tk_pf_interned(p, TK_PF_NAMES, 2501, &n), "#7");
    assert_int_equal(n, 2);
    assert_string_equal(tk_pf_interned(p, TK_PF_NAMES, 5000, &n), "name 4998");
    assert_int_equal(n, 9);
    assert_int_equal(tk_pf_interned(p, TK_PF_NAMES, 5003, &n)[0], '\0');
    assert_int_equal(n, 0);
    tk_perfetto_free(p);
}

/* A write that fails is TK_EIO with the system's reason. */
static void test_write_error(void **state)
{
    (void)state;
    FILE *fp = fopen("/dev/full", "w");
    if (!fp)
        skip();
    tk_error err;
    tk_perfetto *p = tk_perfetto_new(fp, &err);
    tk_perfetto_seq *s = tk_perfetto_seq_new(p, &err);
    assert_int_equal(tk_perfetto_track(s, 1, 0, "x", &err), TK_OK);
    tk_status st = tk_perfetto_finish(p, &err);
    if (st == TK_OK) /* stdio may keep it buffered: the flush fails */
        st = fflush(fp) == 0 ? TK_OK : TK_EIO;
    else
        assert_non_null(strstr(err.message, "No space"));
    assert_int_equal(st, TK_EIO);
    fclose(fp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varints_and_nesting),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_one_sequence),
        cmocka_unit_test(test_sequences_and_defaults),
        cmocka_unit_test(test_state_cleared_when_full),
        cmocka_unit_test(test_write_error),
        cmocka_unit_test(test_plain_path_same_bytes),
        cmocka_unit_test(test_index),
        cmocka_unit_test(test_id_recent),
        cmocka_unit_test(test_intern),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
