/* XRay writer tests (ctest xray.write).
 *
 *  - exact bytes of small basic and FDR outputs (against the hand-written
 *    encoder in rw_common.h);
 *  - seeded random record streams through tk_xray_writer (basic v1–3,
 *    FDR v1–5: many threads, TSC jumps past 2^32, TSC going backwards,
 *    CPU changes, arguments, custom and typed events, tiny buffers) read
 *    back: the same records per thread, in order;
 *  - writer errors;
 *  - FDR files written by tracekit, every version, accepted by llvm-xray
 *    14 (fdr-dump -verify; fdr-dump = tracekit dump; convert -f yaml =
 *    the records written);
 *  - a real basic trace (programs/rw_*.c) rewritten byte for byte, and
 *    converted to FDR v1–5 with the same records. */
#include "rw_common.h"

/* ============================================================ helpers */

typedef struct memout {
    FILE *fp;
    char *buf;
    size_t len;
} memout;

static void mo_open(memout *m)
{
    m->buf = NULL;
    m->len = 0;
    m->fp = open_memstream(&m->buf, &m->len);
    assert_non_null(m->fp);
}

static void mo_close(memout *m)
{
    assert_int_equal(fclose(m->fp), 0);
    m->fp = NULL;
}

/* Write `recs` with header `h`; returns the bytes (caller frees). */
static uint8_t *write_all(const tk_xray_header *h, const xr_list *recs, size_t *n)
{
    memout m;
    mo_open(&m);
    tk_error err;
    tk_error_clear(&err);
    tk_xray_writer *w = tk_xray_writer_new(m.fp, h, &err);
    if (!w)
        fail_msg("tk_xray_writer_new: %s", err.message);
    for (size_t i = 0; i < recs->n; i++) {
        tk_xray_record r = xr_view(&recs->v[i]);
        if (tk_xray_write(w, &r, &err) != TK_OK)
            fail_msg("record %zu: %s", i, err.message);
    }
    assert_int_equal(tk_xray_writer_free(w, &err), TK_OK);
    mo_close(&m);
    *n = m.len;
    return (uint8_t *)m.buf;
}

static xr_rec mk(int kind, int32_t fid, uint64_t tsc, uint16_t cpu, uint32_t tid, uint32_t pid)
{
    xr_rec r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.func_id = fid;
    r.tsc = tsc;
    r.cpu = cpu;
    r.tid = tid;
    r.pid = pid;
    return r;
}

static void push_copy(xr_list *l, const xr_rec *r)
{
    tk_xray_record v = xr_view(r);
    xr_add(l, &v);
}

/* The records of (pid, tid) in order. */
static void assert_same_per_thread(const xr_list *want, const xr_list *got, const char *what)
{
    assert_int_equal(want->n, got->n);
    char *used = calloc(got->n + 1, 1);
    assert_non_null(used);
    /* for each thread of `want`, walk both lists in order */
    for (size_t i = 0; i < want->n; i++) {
        if (used[i])
            continue;
        uint32_t tid = want->v[i].tid, pid = want->v[i].pid;
        size_t g = 0, k = 0;
        for (size_t j = i; j < want->n; j++) {
            if (want->v[j].tid != tid || want->v[j].pid != pid)
                continue;
            while (g < got->n && (got->v[g].tid != tid || got->v[g].pid != pid))
                g++;
            if (g == got->n)
                fail_msg("%s: thread %u/%u: record %zu missing", what, pid, tid, k);
            if (xr_cmp(&want->v[j], &got->v[g]) != 0) {
                print_message("%s: thread %u/%u, record %zu of the thread differs\n", what, pid,
                              tid, k);
                xr_print("want", &want->v[j]);
                xr_print("got ", &got->v[g]);
                fail();
            }
            used[j] = 1;
            g++;
            k++;
        }
    }
    free(used);
}

/* =========================================================== exact bytes */

static void test_basic_bytes(void **state)
{
    (void)state;
    for (uint16_t v = 1; v <= 3; v++) {
        tk_xray_header h;
        tk_xray_default_header(&h, TK_XRAY_BASIC, v);
        assert_int_equal(h.bitfield, 3);
        assert_int_equal(h.cycle_frequency, 1000000000ULL);
        assert_int_equal(h.buffer_size, 0);
        for (int i = 16; i < 32; i++) /* copied as they are: rewrites exact */
            h.raw[i] = (uint8_t)(0xA0 + i);
        h.bitfield = 0x7FFF;
        h.cycle_frequency = 2601000000ULL;
        xr_list l = {0};
        xr_rec r = mk(TK_XRAY_ENTER_ARG, -7, 0x1122334455667788ULL, 300, 0xFFFFFFFF, 77);
        uint64_t args[] = {1, UINT64_MAX};
        r.nargs = 2;
        r.args = args;
        push_copy(&l, &r);
        r = mk(TK_XRAY_TAIL_EXIT, 5, 9, 1, 2, 3);
        push_copy(&l, &r);
        size_t n;
        uint8_t *out = write_all(&h, &l, &n);
        tu_buf b = {0};
        xb_put16(&b, v);
        xb_put16(&b, 0);
        tu_put32(&b, 0x7FFF);
        tu_put64(&b, 2601000000ULL);
        for (int i = 16; i < 32; i++)
            tu_put8(&b, (uint8_t)(0xA0 + i));
        uint32_t pid = v >= 3 ? 77 : 0;
        xb_basic(&b, 300 & 0xFF, TK_XRAY_ENTER_ARG, -7, 0x1122334455667788ULL, 0xFFFFFFFF, pid);
        xb_basic_arg(&b, -7, 0xFFFFFFFF, pid, 1);
        xb_basic_arg(&b, -7, 0xFFFFFFFF, pid, UINT64_MAX);
        xb_basic(&b, 1, TK_XRAY_TAIL_EXIT, 5, 9, 2, v >= 3 ? 3 : 0);
        assert_int_equal(n, b.len);
        assert_memory_equal(out, b.p, n);
        free(out);
        tu_buf_free(&b);
        xr_free(&l);
    }
}

/* FDR v1–5: one thread, then a second: blocks written when the writer is
 * freed, in the order threads first appeared; TSCWrap when time goes
 * backwards or a delta needs more than 32 bits; NewCPUId on a CPU change. */
static void test_fdr_bytes(void **state)
{
    (void)state;
    for (unsigned v = 1; v <= 5; v++) {
        tk_xray_header h;
        tk_xray_default_header(&h, TK_XRAY_FDR, (uint16_t)v);
        assert_int_equal(h.buffer_size, 16384);
        h.buffer_size = 512;
        h.cycle_frequency = 2000;
        xr_list l = {0};
        xr_rec r;
        uint64_t a[] = {42};
        r = mk(TK_XRAY_ENTER, 1, 5003, 2, 10, 20);
        r.nargs = 1, r.args = a;
        push_copy(&l, &r);
        r = mk(TK_XRAY_ENTER, 2, 7, 0, 11, 21); /* second thread */
        push_copy(&l, &r);
        r = mk(TK_XRAY_EXIT, 1, 5003 + 0xFFFFFFFFULL, 2, 10, 20); /* delta fits */
        push_copy(&l, &r);
        r = mk(TK_XRAY_TAIL_EXIT, 3, 5003 + 0xFFFFFFFFULL + 0x100000000ULL, 2, 10, 20);
        push_copy(&l, &r); /* needs a TSCWrap */
        r = mk(TK_XRAY_ENTER_ARG, 4, 100, 2, 10, 20); /* backwards: TSCWrap */
        push_copy(&l, &r);
        r = mk(TK_XRAY_EXIT, 4, 150, 9, 10, 20); /* CPU change */
        push_copy(&l, &r);
        r = mk(TK_XRAY_CUSTOM_EVENT, 0, 160, 9, 10, 20);
        r.data_len = 3, r.data = (uint8_t *)"abc";
        push_copy(&l, &r);
        if (v >= 5) {
            r = mk(TK_XRAY_TYPED_EVENT, 0, 170, 9, 10, 20);
            r.event_type = 513, r.data_len = 2, r.data = (uint8_t *)"xy";
            push_copy(&l, &r);
        }
        r = mk(TK_XRAY_EXIT, 2, 8, 0, 11, 21);
        push_copy(&l, &r);
        size_t n;
        uint8_t *out = write_all(&h, &l, &n);

        tu_buf b = {0};
        xb_header(&b, (uint16_t)v, TK_XRAY_FDR, 2000, 512);
        for (int t = 0; t < 2; t++) {
            size_t ext = b.len;
            if (v >= 2)
                xb_extents(&b, 0);
            size_t start = b.len;
            if (t == 0) {
                xb_newbuf(&b, 10);
                xb_wall(&b, 2, 501500); /* 5003 ticks at 2 kHz */
                if (v >= 3)
                    xb_pid(&b, 20);
                xb_cpu(&b, 2, 5003);
                xb_fn(&b, 3, 1, 0);
                xb_carg(&b, 42);
                xb_fn(&b, 1, 1, 0xFFFFFFFFu);
                xb_wrap(&b, 5003 + 0xFFFFFFFFULL + 0x100000000ULL);
                xb_fn(&b, 2, 3, 0);
                xb_wrap(&b, 100);
                xb_fn(&b, 3, 4, 0);
                xb_cpu(&b, 9, 150);
                xb_fn(&b, 1, 4, 0);
                if (v >= 5) {
                    xb_custom5(&b, 3, 10, "abc", 3);
                    xb_typed(&b, 2, 10, 513, "xy", 2);
                } else {
                    /* absolute TSC; the CPU field only in v4 */
                    xb_custom_abs(&b, 3, 160, v == 4 ? 9 : 0, "abc", 3);
                }
            } else {
                xb_newbuf(&b, 11);
                xb_wall(&b, 0, 3500);
                if (v >= 3)
                    xb_pid(&b, 21);
                xb_cpu(&b, 0, 7);
                xb_fn(&b, 0, 2, 0);
                xb_fn(&b, 1, 2, 1);
            }
            if (v == 1) {
                xb_eob(&b);
                size_t pad = 512 - (b.len - start);
                if (pad % 8) { /* a filler event keeps llvm-xray in step */
                    xb_custom_abs(&b, (int32_t)(pad % 8), 0, 0, "padding", pad % 8);
                }
                while (b.len - start < 512)
                    tu_put8(&b, 0);
            } else {
                xb_patch64(&b, ext + 1, b.len - start);
            }
        }
        if (n != b.len || memcmp(out, b.p, n) != 0) {
            for (size_t i = 0; i < n && i < b.len; i++)
                if (out[i] != b.p[i]) {
                    print_message("v%u: first difference at byte %zu: 0x%02x, expected 0x%02x\n",
                                  v, i, out[i], b.p[i]);
                    break;
                }
            fail_msg("v%u: %zu bytes written, %zu expected", v, n, b.len);
        }
        free(out);
        tu_buf_free(&b);
        xr_free(&l);
    }
}

/* =========================================================== random streams */

typedef struct gen {
    uint64_t rs;
    int type;
    unsigned version;
    size_t bufsize;
    int llvm;      /* keep payloads to [A-Za-z0-9_] for llvm-xray's YAML */
    unsigned max_args, max_payload;
    int align8;    /* payload sizes multiples of 8 (see test_llvm_v1_odd_events) */
} gen;

typedef struct gthread {
    uint32_t tid, pid;
    uint16_t cpu;
    uint64_t tsc;
    int used;
} gthread;

static uint64_t rnd(gen *g) { return tu_rand(&g->rs); }
static uint64_t below(gen *g, uint64_t n) { return tu_rand_below(&g->rs, n); }

/* `n` records over `nthreads` threads. What the reader must give back for
 * each is derived by expect() below. */
static void gen_records(gen *g, size_t n, size_t nthreads, xr_list *out)
{
    gthread th[64];
    assert_true(nthreads <= 64);
    int fdr = g->type == TK_XRAY_FDR;
    for (size_t t = 0; t < nthreads; t++) {
        th[t].tid = t == 3 ? 0 : (uint32_t)rnd(g); /* tid 0 is a thread too */
        th[t].pid = 1000 + (uint32_t)below(g, 3); /* shared pids */
        if (t == 5 && nthreads > 6 && g->version >= 3) {
            th[t].tid = th[4].tid; /* same tid, other pid: another thread from v3 */
            th[t].pid = th[4].pid ^ 1;
        }
        th[t].cpu = (uint16_t)below(g, fdr ? 65536 : 256);
        th[t].tsc = below(g, 4) == 0 ? UINT64_MAX - below(g, 1u << 20) : rnd(g) >> 8;
        th[t].used = 0;
    }
    int events = fdr, typed = fdr && g->version >= 5;
    for (size_t i = 0; i < n; i++) {
        gthread *t = &th[below(g, nthreads)];
        /* time: mostly small steps; jumps past 2^32; backwards */
        uint64_t r = below(g, 100);
        if (r < 80)
            t->tsc += below(g, 5000);
        else if (r < 88)
            t->tsc += (1ULL << 32) + below(g, 1ULL << 34);
        else if (r < 93)
            t->tsc -= below(g, 1ULL << 20);
        else if (r < 96)
            t->tsc += (1ULL << 31) + below(g, 1ULL << 31); /* around INT32/UINT32 */
        else
            t->tsc = rnd(g);
        unsigned k = (unsigned)below(g, 100);
        int event = events && k >= 88;
        int absolute = event && g->version < 5 && !(typed && k >= 95);
        if (below(g, 100) < 6 && !absolute)
            t->cpu = (uint16_t)below(g, fdr ? 65536 : 256);
        xr_rec *x = xr_push(out);
        x->tid = t->tid;
        x->pid = t->pid;
        x->tsc = t->tsc;
        x->cpu = t->cpu;
        if (event) {
            x->kind = typed && k >= 95 ? TK_XRAY_TYPED_EVENT : TK_XRAY_CUSTOM_EVENT;
            x->event_type = (uint16_t)rnd(g);
            x->data_len = 1 + (uint32_t)below(g, g->max_payload);
            if (g->align8)
                x->data_len = (x->data_len + 7) & ~7u;
            x->data = malloc(x->data_len);
            assert_non_null(x->data);
            static const char alnum[] =
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
            for (uint32_t j = 0; j < x->data_len; j++)
                x->data[j] = g->llvm ? (uint8_t)alnum[below(g, 63)] : (uint8_t)rnd(g);
            if (g->llvm)
                x->data[0] = 'p'; /* never a number, bool or null for YAML */
            if (absolute) {
                /* v1–4: absolute TSC (anything goes). v4 stores the CPU;
                 * v1–3 have no field and the reader reports the block's
                 * CPU, which is the thread's current one here. */
                x->tsc = rnd(g) >> (below(g, 2) * 30);
                if (g->version == 4 && below(g, 3) == 0)
                    x->cpu = (uint16_t)rnd(g);
            }
        } else {
            x->kind = k < 40 ? TK_XRAY_ENTER : k < 75 ? TK_XRAY_EXIT
                                             : k < 83 ? TK_XRAY_TAIL_EXIT
                                                      : TK_XRAY_ENTER_ARG;
            x->func_id = fdr ? (int32_t)below(g, 1u << 28) : (int32_t)rnd(g);
            if (below(g, 10) == 0)
                x->func_id = fdr ? (1 << 28) - 1 : (below(g, 2) ? INT32_MIN : INT32_MAX);
            int with_args = (x->kind == TK_XRAY_ENTER || x->kind == TK_XRAY_ENTER_ARG) &&
                            below(g, 3) == 0;
            if (with_args && g->max_args) {
                x->nargs = 1 + (uint32_t)below(g, g->max_args);
                x->args = malloc(x->nargs * sizeof *x->args);
                assert_non_null(x->args);
                for (uint32_t j = 0; j < x->nargs; j++)
                    x->args[j] = below(g, 2) ? rnd(g) : below(g, 100);
            }
        }
        t->used = 1;
    }
}

/* What tracekit's reader gives back for a written record. */
static void expect(const gen *g, const xr_rec *in, xr_list *out)
{
    xr_rec *x = xr_push(out);
    *x = *in;
    x->args = NULL;
    x->data = NULL;
    if (in->nargs) {
        x->args = malloc(in->nargs * sizeof *x->args);
        memcpy(x->args, in->args, in->nargs * sizeof *x->args);
    }
    if (in->data_len) {
        x->data = malloc(in->data_len);
        memcpy(x->data, in->data, in->data_len);
    }
    int fdr = g->type == TK_XRAY_FDR;
    if ((fdr && g->version < 3) || (!fdr && g->version < 3))
        x->pid = 0;
    if (!fdr)
        x->cpu &= 0xFF;
    if (fdr && x->kind == TK_XRAY_ENTER && x->nargs)
        x->kind = TK_XRAY_ENTER_ARG;
    if (x->kind != TK_XRAY_TYPED_EVENT)
        x->event_type = 0;
    if (x->kind >= TK_XRAY_CUSTOM_EVENT)
        x->func_id = 0;
}

/* One random stream: write, read back, compare per thread. Returns the
 * bytes written (caller frees). */
static uint8_t *roundtrip(gen *g, size_t n, size_t nthreads, size_t *size, xr_list *written)
{
    xr_list recs = {0}, want = {0}, got = {0};
    gen_records(g, n, nthreads, &recs);
    for (size_t i = 0; i < recs.n; i++)
        expect(g, &recs.v[i], &want);
    tk_xray_header h;
    tk_xray_default_header(&h, (uint16_t)g->type, (uint16_t)g->version);
    h.buffer_size = g->bufsize;
    uint8_t *out = write_all(&h, &recs, size);
    tk_error err;
    uint64_t skipped = 1;
    int rc = xr_read(out, *size, &got, &err, &skipped);
    if (rc != 0)
        fail_msg("type %d v%u bufsize %zu: read back failed at 0x%" PRIx64 ": %s", g->type,
                 g->version, g->bufsize, err.offset, err.message);
    assert_int_equal(skipped, 0);
    char what[64];
    snprintf(what, sizeof what, "type %d v%u bufsize %zu", g->type, g->version, g->bufsize);
    if (g->type == TK_XRAY_BASIC) { /* basic mode keeps the order overall */
        assert_int_equal(want.n, got.n);
        for (size_t i = 0; i < want.n; i++)
            xr_assert_rec_equal(&want.v[i], &got.v[i]);
    } else {
        assert_same_per_thread(&want, &got, what);
    }
    if (written)
        *written = recs;
    else
        xr_free(&recs);
    xr_free(&want);
    xr_free(&got);
    return out;
}

static void test_random_basic(void **state)
{
    (void)state;
    for (unsigned v = 1; v <= 3; v++)
        for (uint64_t seed = 1; seed <= 4; seed++) {
            gen g = {seed * 7919 + v, TK_XRAY_BASIC, v, 0, 0, 4, 0, 0};
            size_t n;
            free(roundtrip(&g, 400, 1 + (size_t)seed * 3, &n, NULL));
        }
}

static void test_random_fdr(void **state)
{
    (void)state;
    static const size_t sizes[] = {256, 200, 328, 1000, 4096, 16384};
    for (unsigned v = 1; v <= 5; v++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            gen g = {v * 1000 + s, TK_XRAY_FDR, v, sizes[s], 0, sizes[s] >= 1000 ? 6 : 2,
                     sizes[s] >= 1000 ? 300 : 40, 0};
            size_t n;
            uint8_t *out = roundtrip(&g, 1500, 2 + s * 3, &n, NULL);
            /* tiny buffers: many blocks */
            tk_error err;
            tk_input *in = tk_input_from_memory(out, n, "w", &err);
            tk_xray_reader *r = tk_xray_reader_new(in, &err);
            tk_xray_record rec;
            while (tk_xray_next(r, &rec, &err) > 0)
                ;
            if (sizes[s] <= 328)
                assert_true(tk_xray_reader_blocks(r) > 40);
            tk_xray_reader_free(r);
            tk_input_close(in);
            free(out);
        }
}

/* 128 bytes, the smallest buffer the writer takes: one function record per
 * block in v3+ (preamble 64 + room for a fix-up pair and the record). */
static void test_smallest_buffer(void **state)
{
    (void)state;
    for (unsigned v = 1; v <= 5; v++) {
        /* v1: an odd-sized event leaves too little room in 128 bytes for
         * the padding's filler (see test_llvm_v1_odd_events) */
        gen g = {v, TK_XRAY_FDR, v, 128, 0, v >= 3 ? 0 : 1, v == 1 ? 8 : 1, v == 1};
        size_t n;
        xr_list recs = {0};
        free(roundtrip(&g, 300, 3, &n, &recs));
        xr_free(&recs);
    }
}

/* ================================================================ errors */

static void test_writer_errors(void **state)
{
    (void)state;
    tk_xray_header h;
    tk_error err;
    memout m;
    mo_open(&m);
    /* versions and types */
    static const struct {
        uint16_t type, version;
    } bad[] = {{0, 0}, {0, 4}, {1, 0}, {1, 6}, {2, 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tk_xray_default_header(&h, bad[i].type, 1);
        h.version = bad[i].version;
        tk_error_clear(&err);
        assert_null(tk_xray_writer_new(m.fp, &h, &err));
        assert_int_equal(err.status, TK_EUSAGE);
        char want[80];
        snprintf(want, sizeof want, "cannot write XRay type %u version %u", bad[i].type,
                 bad[i].version);
        assert_string_equal(err.message, want);
    }
    /* FDR buffer sizes */
    static const uint64_t sizes[] = {1, 127, (1u << 30) + 1};
    for (size_t i = 0; i < 3; i++) {
        tk_xray_default_header(&h, TK_XRAY_FDR, 5);
        h.buffer_size = sizes[i];
        assert_null(tk_xray_writer_new(m.fp, &h, &err));
        assert_int_equal(err.status, TK_EUSAGE);
        char want[80];
        snprintf(want, sizeof want, "FDR buffer size %zu out of range (128 B to 1 GiB)",
                 (size_t)sizes[i]);
        assert_string_equal(err.message, want);
    }
    mo_close(&m);
    assert_int_equal(m.len, 0); /* nothing written by refused writers */
    free(m.buf);

    /* records a format cannot hold; the writer goes on afterwards */
    for (unsigned v = 1; v <= 5; v++) {
        mo_open(&m);
        tk_xray_default_header(&h, TK_XRAY_FDR, (uint16_t)v);
        h.buffer_size = 128;
        tk_xray_writer *w = tk_xray_writer_new(m.fp, &h, &err);
        assert_non_null(w);
        xr_rec r = mk(TK_XRAY_TYPED_EVENT, 0, 5, 0, 1, 1);
        r.data_len = 1, r.data = (uint8_t *)"x";
        tk_xray_record t = xr_view(&r);
        if (v < 5) {
            assert_int_equal(tk_xray_write(w, &t, &err), TK_EUNSUPPORTED);
            assert_string_equal(err.message, "typed events need FDR version 5");
        }
        r.kind = TK_XRAY_CUSTOM_EVENT;
        r.data_len = 0;
        t = xr_view(&r);
        assert_int_equal(tk_xray_write(w, &t, &err), TK_EUSAGE);
        assert_string_equal(err.message, "event payloads must have 1 to 2^31-1 bytes");
        r = mk(TK_XRAY_ENTER, 1 << 28, 5, 0, 1, 1);
        t = xr_view(&r);
        assert_int_equal(tk_xray_write(w, &t, &err), TK_EUSAGE);
        assert_string_equal(err.message, "function id 268435456 does not fit FDR's 28 bits");
        r.func_id = -1;
        t = xr_view(&r);
        assert_int_equal(tk_xray_write(w, &t, &err), TK_EUSAGE);
        assert_string_equal(err.message, "function id -1 does not fit FDR's 28 bits");
        /* too big for a 128-byte buffer: preamble + fix-ups + record. v1
         * buffers are fixed; v2+ give it a block of its own. */
        uint64_t args[4] = {1, 2, 3, 4};
        r = mk(TK_XRAY_ENTER, 1, 5, 0, 1, 1);
        r.nargs = 4, r.args = args;
        t = xr_view(&r);
        if (v == 1) {
            assert_int_equal(tk_xray_write(w, &t, &err), TK_EUSAGE);
            char want[100];
            snprintf(want, sizeof want,
                     "a record of %d bytes does not fit an FDR v1 buffer of 128",
                     32 + 8 + 4 * 16);
            assert_string_equal(err.message, want);
        } else {
            assert_int_equal(tk_xray_write(w, &t, &err), TK_OK);
        }
        r = mk(TK_XRAY_EXIT, 7, 9, 0, 1, 1); /* still usable */
        t = xr_view(&r);
        assert_int_equal(tk_xray_write(w, &t, &err), TK_OK);
        assert_int_equal(tk_xray_writer_free(w, &err), TK_OK);
        mo_close(&m);
        xr_list got = {0};
        assert_int_equal(xr_read((uint8_t *)m.buf, m.len, &got, &err, NULL), 0);
        assert_int_equal(got.n, v == 1 ? 1 : 2);
        if (v > 1) {
            assert_int_equal(got.v[0].nargs, 4);
            assert_int_equal(got.v[0].args[3], 4);
        }
        assert_int_equal(got.v[got.n - 1].func_id, 7);
        assert_int_equal(got.v[got.n - 1].tsc, 9);
        xr_free(&got);
        free(m.buf);
    }
    /* basic mode: no events */
    mo_open(&m);
    tk_xray_default_header(&h, TK_XRAY_BASIC, 3);
    tk_xray_writer *w = tk_xray_writer_new(m.fp, &h, &err);
    xr_rec r = mk(TK_XRAY_CUSTOM_EVENT, 0, 5, 0, 1, 1);
    r.data_len = 1, r.data = (uint8_t *)"x";
    tk_xray_record t = xr_view(&r);
    assert_int_equal(tk_xray_write(w, &t, &err), TK_EUNSUPPORTED);
    assert_string_equal(err.message, "basic-mode XRay traces cannot hold custom-event records");
    r.kind = TK_XRAY_TYPED_EVENT;
    t = xr_view(&r);
    assert_int_equal(tk_xray_write(w, &t, &err), TK_EUNSUPPORTED);
    assert_string_equal(err.message, "basic-mode XRay traces cannot hold typed-event records");
    assert_int_equal(tk_xray_writer_free(w, &err), TK_OK);
    mo_close(&m);
    assert_int_equal(m.len, 32);
    free(m.buf);
    assert_int_equal(tk_xray_writer_free(NULL, &err), TK_OK);
}

/* A full output stream: the first error is kept and returned by free. */
static void test_writer_io_error(void **state)
{
    (void)state;
    FILE *full = fopen("/dev/full", "wb");
    if (!full)
        skip();
    setvbuf(full, NULL, _IONBF, 0);
    tk_xray_header h;
    tk_xray_default_header(&h, TK_XRAY_FDR, 5);
    tk_error err;
    tk_error_clear(&err);
    assert_null(tk_xray_writer_new(full, &h, &err)); /* the header fails */
    assert_int_equal(err.status, TK_EIO);
    assert_string_equal(err.message, "writing XRay output failed");
    fclose(full);
}

/* ============================================================ llvm-xray */

static char *tmp_dir;

static int teardown_all(void **state)
{
    (void)state;
    if (tmp_dir)
        tu_rmdir(tmp_dir);
    tmp_dir = NULL;
    return 0;
}

static const char *tmp(void)
{
    if (!tmp_dir)
        tmp_dir = tu_tmpdir();
    return tmp_dir;
}

/* What llvm-xray reports for a record tracekit wrote (by design
 * differences: v2 pid = tid, v1–3 custom events take their CPU from the
 * (zero) reserved bytes where v4 keeps it). */
static void llvm_view(unsigned version, xr_rec *x)
{
    if (version == 2)
        x->pid = x->tid;
    if (x->kind == TK_XRAY_CUSTOM_EVENT && version < 4)
        x->cpu = 0;
}

/* Check an FDR file against llvm-xray: -verify, fdr-dump = tracekit dump,
 * convert -f yaml = tracekit's own reading (adjusted by llvm_view). */
static void check_llvm(const char *what, const uint8_t *data, size_t n, unsigned version)
{
    const char *path = put_file(tmp(), "w.xray", data, n);
    char cmd[8192], *xr = NULL;
    snprintf(cmd, sizeof cmd, "'%s' fdr-dump -verify '%s' 2>&1", TK_LLVM_XRAY, path);
    if (run_cmd(cmd, &xr, NULL) != 0)
        fail_msg("%s: llvm-xray fdr-dump -verify failed:\n%.2000s", what, xr);
    free(xr);
    snprintf(cmd, sizeof cmd, "'%s' fdr-dump '%s' 2>&1", TK_LLVM_XRAY, path);
    if (run_cmd(cmd, &xr, NULL) != 0)
        fail_msg("%s: llvm-xray fdr-dump failed:\n%.2000s", what, xr);
    tk_status st;
    tk_error err;
    char *mine = tk_dump_text(data, n, NULL, 0, &st, &err);
    assert_int_equal(st, TK_OK);
    assert_same_dump(xr, mine, what);
    free(mine);
    free(xr);
    xr_list want = {0}, got = {0};
    assert_int_equal(xr_read(data, n, &want, &err, NULL), 0);
    for (size_t i = 0; i < want.n; i++)
        llvm_view(version, &want.v[i]);
    unsigned v = 0;
    if (llvm_yaml_records(TK_LLVM_XRAY, path, &got, &v) != 0)
        fail_msg("%s: llvm-xray convert -f yaml failed", what);
    assert_int_equal(v, version);
    xr_assert_same_set(&want, &got, what);
    xr_free(&want);
    xr_free(&got);
}

static void test_llvm_accepts_fdr(void **state)
{
    (void)state;
    if (!have_tool(TK_LLVM_XRAY))
        skip();
    static const size_t sizes[] = {256, 1024, 16384};
    for (unsigned v = 1; v <= 5; v++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            /* v1: payloads of whole 8-byte units, or llvm-xray misreads the
             * padding after EndOfBuffer (test_llvm_v1_odd_events) */
            gen g = {v * 77 + s, TK_XRAY_FDR, v, sizes[s], 1, 3, sizes[s] > 256 ? 60 : 16,
                     v == 1};
            size_t n;
            uint8_t *out = roundtrip(&g, 600, 7, &n, NULL);
            char what[64];
            snprintf(what, sizeof what, "tracekit FDR v%u, %zu-byte buffers", v, sizes[s]);
            check_llvm(what, out, n, v);
            free(out);
        }
}

/* ===================================================== real basic trace */

static char *real_basic(size_t *n)
{
    if (!have_tool(TK_CLANG))
        return NULL;
    const char *d = tmp();
    const char *src = TK_XRAY_TEST_DIR "/programs";
    const char *fl = "-fxray-instrument -fxray-instruction-threshold=1";
    char cmd[16384];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' -O2 %s -c '%s/rw_work.c' -o work.o && "
             "'%s' -O0 %s -c '%s/rw_events.c' -o events.o && "
             "'%s' -O2 %s -pthread '%s/rw_basic.c' work.o events.o -o rw_basic && "
             "XRAY_OPTIONS='patch_premain=true xray_mode=xray-basic "
             "xray_logfile_base=%s/basic-' XRAY_BASIC_OPTIONS='func_duration_threshold_us=0' "
             "./rw_basic",
             d, TK_CLANG, fl, src, TK_CLANG, fl, src, TK_CLANG, fl, src, d);
    if (run_quiet(cmd) != 0)
        fail_msg("recording a basic trace failed: %s", cmd);
    DIR *dir = opendir(d);
    assert_non_null(dir);
    struct dirent *e;
    char path[8192] = "";
    while ((e = readdir(dir)) != NULL)
        if (strncmp(e->d_name, "basic-", 6) == 0)
            snprintf(path, sizeof path, "%s/%s", d, e->d_name);
    closedir(dir);
    assert_true(path[0] != '\0');
    char *data = (char *)tu_read_file(path, n);
    assert_non_null(data);
    unlink(path);
    return data;
}

/* Rewriting a runtime-written basic trace reproduces it byte for byte
 * (header garbage included), and converting it to FDR v1–5 keeps every
 * record (llvm-xray agrees). */
static void test_real_basic_rewrite(void **state)
{
    (void)state;
    size_t n;
    uint8_t *data = (uint8_t *)real_basic(&n);
    if (!data)
        skip();
    xr_list recs = {0};
    tk_error err;
    assert_int_equal(xr_read(data, n, &recs, &err, NULL), 0);
    assert_true(recs.n > 4000);
    tk_input *in = tk_input_from_memory(data, n, "real", &err);
    tk_xray_reader *r = tk_xray_reader_new(in, &err);
    tk_xray_header h = *tk_xray_reader_header(r);
    tk_xray_reader_free(r);
    tk_input_close(in);
    assert_int_equal(h.version, 3);
    size_t m;
    uint8_t *out = write_all(&h, &recs, &m);
    assert_int_equal(m, n);
    assert_memory_equal(out, data, n);
    free(out);
    /* to FDR, every version */
    for (unsigned v = 1; v <= 5; v++) {
        tk_xray_header fh = h;
        fh.type = TK_XRAY_FDR;
        fh.version = (uint16_t)v;
        fh.buffer_size = 4096;
        uint8_t *fdr = write_all(&fh, &recs, &m);
        xr_list got = {0}, want = {0};
        assert_int_equal(xr_read(fdr, m, &got, &err, NULL), 0);
        gen g = {0, TK_XRAY_FDR, v, 4096, 0, 0, 0, 0};
        for (size_t i = 0; i < recs.n; i++)
            expect(&g, &recs.v[i], &want);
        assert_same_per_thread(&want, &got, "real basic trace as FDR");
        if (have_tool(TK_LLVM_XRAY)) {
            char what[64];
            snprintf(what, sizeof what, "real basic trace as FDR v%u", v);
            check_llvm(what, fdr, m, v);
        }
        xr_free(&got);
        xr_free(&want);
        free(fdr);
    }
    xr_free(&recs);
    free(data);
}

/* A v1 block is padded to the buffer size after its EndOfBuffer, and
 * llvm-xray 14 parses that padding as records (zeros are 8-byte function
 * records, ignored after EOB). With custom events whose sizes do not add
 * up to a multiple of 8 the padding is not one either: the writer then
 * starts it with a filler event that spans the odd bytes, so llvm-xray
 * stays in step and reads the next block. */
static void test_llvm_v1_odd_events(void **state)
{
    (void)state;
    if (!have_tool(TK_LLVM_XRAY))
        skip();
    gen g = {77, TK_XRAY_FDR, 1, 256, 1, 3, 16, 0};
    size_t n;
    uint8_t *out = roundtrip(&g, 600, 7, &n, NULL);
    check_llvm("tracekit FDR v1, odd event sizes", out, n, 1);
    free(out);
}

/* Convert `d` with the format API; returns the status, output in *out. */
static tk_status convert_mem(const uint8_t *d, size_t n, const char *target, char **out,
                             size_t *len, tk_error *err)
{
    tk_error_clear(err);
    tk_input *in = tk_input_from_memory(d, n, "mem", err);
    tk_options *o = tk_options_new(err);
    FILE *f = open_memstream(out, len);
    tk_status st = tk_convert(tk_format_find("xray"), in, o, target, f, err);
    fclose(f);
    tk_options_free(o);
    tk_input_close(in);
    return st;
}

/* convert --to yaml of a valid trace with no records (this 32-byte
 * header once made write_yaml call qsort(NULL, 0, ...), UB).
 * Expected: TK_OK and the YAML of an empty trace. */
static void test_convert_yaml_empty(void **state)
{
    (void)state;
    tu_buf b = {0};
    xb_header(&b, 4, TK_XRAY_FDR, 1000000000ULL, 16384);
    char *out = NULL;
    size_t len = 0;
    tk_error err;
    assert_int_equal(convert_mem(b.p, b.len, "yaml", &out, &len, &err), TK_OK);
    assert_non_null(strstr(out, "records:"));
    free(out);
    tu_buf_free(&b);
}

/* convert --to xray-fdr of a valid FDR trace whose header's buffer size
 * is below 128, or smaller than one of its records: v2+ readers ignore the
 * header's size, so such traces are valid, and the conversion succeeds
 * (the writer's default size, and a block of its own for a big record). */
static void test_convert_fdr_small_header_size(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        tu_buf b = {0};
        xb_header(&b, 5, TK_XRAY_FDR, 1000000000ULL, k ? 256 : 64);
        size_t at = b.len;
        xb_extents(&b, 0);
        xb_preamble(&b, 5, 1, 2, 0, 100);
        xb_fn(&b, 0, 1, 1);
        if (k) {
            char big[300];
            memset(big, 'x', sizeof big);
            xb_custom5(&b, (int32_t)sizeof big, 1, big, sizeof big);
        }
        xb_patch64(&b, at + 1, b.len - at - 16);
        xr_list src = {0}, got = {0};
        tk_error err;
        assert_int_equal(xr_read(b.p, b.len, &src, &err, NULL), 0);
        char *out = NULL;
        size_t len = 0;
        tk_status st = convert_mem(b.p, b.len, "xray-fdr", &out, &len, &err);
        if (st != TK_OK)
            fail_msg("convert --to xray-fdr: %s", err.message);
        assert_int_equal(xr_read((uint8_t *)out, len, &got, &err, NULL), 0);
        assert_same_per_thread(&src, &got, "converted");
        xr_free(&src);
        xr_free(&got);
        free(out);
        tu_buf_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_bytes),
        cmocka_unit_test(test_fdr_bytes),
        cmocka_unit_test(test_random_basic),
        cmocka_unit_test(test_random_fdr),
        cmocka_unit_test(test_smallest_buffer),
        cmocka_unit_test(test_writer_errors),
        cmocka_unit_test(test_writer_io_error),
        cmocka_unit_test(test_llvm_accepts_fdr),
        cmocka_unit_test(test_real_basic_rewrite),
        cmocka_unit_test(test_llvm_v1_odd_events),
        cmocka_unit_test(test_convert_yaml_empty),
        cmocka_unit_test(test_convert_fdr_small_header_size),
    };
    return cmocka_run_group_tests(tests, NULL, teardown_all);
}
