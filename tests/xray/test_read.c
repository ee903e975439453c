/* XRay reader tests (ctest xray.read).
 *
 *  - hand-built traces of every basic (v1–3) and FDR (v1–5) version with
 *    every record kind, decoded to exact logical and raw records;
 *  - hand-built malformed traces: exact status, message, offset, record;
 *  - garbage between v3+ buffers (skipped and counted), v1 padding;
 *  - a sweep of every truncation and single-byte change of two small
 *    valid traces (clean error inside the file or a clean read);
 *  - real traces recorded now (programs/rw_*.c, clang -fxray-instrument,
 *    basic mode and FDR) compared with llvm-xray 14: fdr-dump line for
 *    line, convert -f yaml record for record, info's counts. Skipped when
 *    clang, clang++ or llvm-xray is missing. */
#include "rw_common.h"

/* ====================================================== hand-built, valid */

static xr_rec want_rec(int kind, int32_t fid, uint64_t tsc, uint16_t cpu, uint32_t tid,
                       uint32_t pid)
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

static void assert_recs(const xr_rec *want, size_t n, const xr_list *got)
{
    assert_int_equal(got->n, n);
    for (size_t i = 0; i < n; i++) {
        xr_assert_rec_equal(&want[i], &got->v[i]);
        assert_int_equal(got->v[i].index, i);
    }
}

/* Every basic version: all four kinds, two arguments, two threads,
 * extreme field values; pid only from v3 on; argument payloads checked
 * against pid only from v3 on. */
static void test_basic_versions(void **state)
{
    (void)state;
    for (uint16_t v = 1; v <= 3; v++) {
        tu_buf b = {0};
        xb_header(&b, v, TK_XRAY_BASIC, 2601000000ULL, 0);
        xb_basic(&b, 3, TK_XRAY_ENTER, 1, 1000, 7, 9);
        xb_basic(&b, 3, TK_XRAY_ENTER_ARG, 2, 1100, 7, 9);
        xb_basic_arg(&b, 2, 7, 9, 0xDEADBEEFCAFEF00DULL);
        xb_basic_arg(&b, 2, 7, v >= 3 ? 9 : 1234, 42); /* pid ignored below v3 */
        xb_basic(&b, 255, TK_XRAY_ENTER, INT32_MAX, UINT64_MAX, UINT32_MAX, 9);
        xb_basic(&b, 3, TK_XRAY_EXIT, 2, 1200, 7, 9);
        xb_basic(&b, 0, TK_XRAY_TAIL_EXIT, 1, 0, 7, 9);
        xb_basic(&b, 4, TK_XRAY_EXIT, -5, 1300, 8, 10); /* negative ids are i32 */
        xb_basic(&b, 4, TK_XRAY_EXIT, 6, 1301, 8, 10);
        xb_basic_arg(&b, 6, 8, 10, 1); /* arguments after an exit attach to it */
        uint32_t p9 = v >= 3 ? 9 : 0, p10 = v >= 3 ? 10 : 0;
        xr_rec want[] = {
            want_rec(TK_XRAY_ENTER, 1, 1000, 3, 7, p9),
            want_rec(TK_XRAY_ENTER_ARG, 2, 1100, 3, 7, p9),
            want_rec(TK_XRAY_ENTER, INT32_MAX, UINT64_MAX, 255, UINT32_MAX, p9),
            want_rec(TK_XRAY_EXIT, 2, 1200, 3, 7, p9),
            want_rec(TK_XRAY_TAIL_EXIT, 1, 0, 0, 7, p9),
            want_rec(TK_XRAY_EXIT, -5, 1300, 4, 8, p10),
            want_rec(TK_XRAY_EXIT, 6, 1301, 4, 8, p10),
        };
        uint64_t args1[] = {0xDEADBEEFCAFEF00DULL, 42}, args6[] = {1};
        want[1].nargs = 2;
        want[1].args = args1;
        want[6].nargs = 1;
        want[6].args = args6;
        static const uint64_t offsets[] = {32, 64, 160, 192, 224, 256, 288};
        xr_list got = {0};
        tk_error err;
        assert_int_equal(xr_read(b.p, b.len, &got, &err, NULL), 0);
        assert_recs(want, 7, &got);
        for (size_t i = 0; i < 7; i++)
            assert_int_equal(got.v[i].offset, offsets[i]);
        xr_free(&got);
        /* raw FDR reading of a basic trace is a usage error */
        xr_raw raw = {0};
        assert_int_equal(xr_read_raw(b.p, b.len, &raw, &err), -1);
        assert_int_equal(err.status, TK_EUSAGE);
        assert_non_null(strstr(err.message, "FDR-mode trace"));
        xr_raw_free(&raw);
        tu_buf_free(&b);
    }
}

/* A header alone is an empty trace (llvm-xray refuses it: "Invalid-sized
 * XRay data"; tracekit reads zero records). */
static void test_empty_traces(void **state)
{
    (void)state;
    for (uint16_t type = 0; type < 2; type++)
        for (uint16_t v = 1; v <= (type ? 5 : 3); v++) {
            tu_buf b = {0};
            xb_header(&b, v, type, 1000, type ? 4096 : 0);
            xr_list got = {0};
            tk_error err;
            uint64_t skipped = 7;
            assert_int_equal(xr_read(b.p, b.len, &got, &err, &skipped), 0);
            assert_int_equal(got.n, 0);
            assert_int_equal(skipped, 0);
            xr_free(&got);
            tu_buf_free(&b);
        }
}

/* FDR block A (thread 11, pid 22, cpu 1) exercising every record kind,
 * then block B (thread 12) — for version v; bufsize is the v1 buffer. */
#define FDR_BUFSIZE 768
static void build_fdr_all(tu_buf *b, unsigned v)
{
    xb_header(b, (uint16_t)v, TK_XRAY_FDR, 3500000000ULL, FDR_BUFSIZE);
    size_t ext = b->len;
    if (v >= 2)
        xb_extents(b, 0);
    size_t start = b->len;
    xb_preamble(b, v, 11, 22, 1, 1000000);
    xb_fn(b, 0, 1, 0);           /* enter #1        @1000000 */
    xb_fn(b, 3, 2, 10);          /* enter-args #2   @1000010 */
    xb_carg(b, 5);
    xb_carg(b, UINT64_MAX);
    if (v >= 5) {
        xb_custom5(b, 3, -5, "abc", 3);       /* @1000005 */
        xb_typed(b, 4, 3, 77, "wxyz", 4);     /* @1000008 */
    } else {
        xb_custom_abs(b, 3, 999, 4, "abc", 3); /* absolute, base unchanged */
    }
    xb_fn(b, 1, 2, 20);          /* exit #2 */
    xb_wrap(b, 0x100000005ULL);
    xb_fn(b, 1, 1, 7);           /* exit #1         @0x10000000c */
    xb_cpu(b, 2, 5000000000ULL);
    xb_fn(b, 0, 268435455, 0xFFFFFFFFu);
    xb_fn(b, 2, 268435455, 1);
    xb_fn(b, 0, 3, 0);
    xb_carg(b, 77);              /* an argument turns enter into enter-arg */
    if (v == 1) {
        xb_eob(b);
        while (b->len - start < FDR_BUFSIZE)
            tu_put8(b, 0xEE); /* padding: skipped by the header's size */
    } else {
        xb_patch64(b, ext + 1, b->len - start);
    }
    ext = b->len;
    if (v >= 2)
        xb_extents(b, 0);
    start = b->len;
    xb_preamble(b, v, 12, 23, 0, 42);
    xb_fn(b, 0, 4, 1);
    xb_fn(b, 1, 4, 2);
    if (v == 1)
        xb_eob(b); /* the last buffer may be short */
    else
        xb_patch64(b, ext + 1, b->len - start);
}

static void test_fdr_versions(void **state)
{
    (void)state;
    for (unsigned v = 1; v <= 5; v++) {
        tu_buf b = {0};
        build_fdr_all(&b, v);
        uint32_t p22 = v >= 3 ? 22 : 0, p23 = v >= 3 ? 23 : 0;
        uint64_t exit2 = v >= 5 ? 1000028 : 1000030;
        xr_rec want[12];
        size_t n = 0;
        uint64_t a2[] = {5, UINT64_MAX}, a3[] = {77};
        want[n] = want_rec(TK_XRAY_ENTER, 1, 1000000, 1, 11, p22), n++;
        want[n] = want_rec(TK_XRAY_ENTER_ARG, 2, 1000010, 1, 11, p22);
        want[n].nargs = 2, want[n].args = a2, n++;
        xr_rec ev = want_rec(TK_XRAY_CUSTOM_EVENT, 0, v >= 5 ? 1000005 : 999,
                             v == 4 ? 4 : 1, 11, p22);
        ev.data_len = 3, ev.data = (uint8_t *)"abc";
        want[n++] = ev;
        if (v >= 5) {
            xr_rec t = want_rec(TK_XRAY_TYPED_EVENT, 0, 1000008, 1, 11, p22);
            t.event_type = 77, t.data_len = 4, t.data = (uint8_t *)"wxyz";
            want[n++] = t;
        }
        want[n] = want_rec(TK_XRAY_EXIT, 2, exit2, 1, 11, p22), n++;
        want[n] = want_rec(TK_XRAY_EXIT, 1, 0x10000000cULL, 1, 11, p22), n++;
        want[n] = want_rec(TK_XRAY_ENTER, 268435455, 5000000000ULL + 0xFFFFFFFFu, 2, 11, p22),
        n++;
        want[n] = want_rec(TK_XRAY_TAIL_EXIT, 268435455, 5000000000ULL + 0x100000000ULL, 2, 11,
                           p22),
        n++;
        want[n] = want_rec(TK_XRAY_ENTER_ARG, 3, 5000000000ULL + 0x100000000ULL, 2, 11, p22);
        want[n].nargs = 1, want[n].args = a3, n++;
        want[n] = want_rec(TK_XRAY_ENTER, 4, 43, 0, 12, p23), n++;
        want[n] = want_rec(TK_XRAY_EXIT, 4, 45, 0, 12, p23), n++;

        xr_list got = {0};
        tk_error err;
        uint64_t skipped = 9;
        int rc = xr_read(b.p, b.len, &got, &err, &skipped);
        if (rc != 0)
            fail_msg("v%u: %s at 0x%" PRIx64, v, err.message, err.offset);
        assert_recs(want, n, &got);
        assert_int_equal(skipped, 0);
        /* offsets: the function record or event marker (an entry with
         * arguments: its function record) */
        size_t pre = 32 + (v >= 2 ? 16 : 0) + (v >= 3 ? 64 : 48);
        assert_int_equal(got.v[0].offset, pre);
        assert_int_equal(got.v[1].offset, pre + 8);
        assert_int_equal(got.v[2].offset, pre + 48);
        xr_free(&got);

        /* raw records: kinds in file order, blocks counted */
        xr_raw raw = {0};
        assert_int_equal(xr_read_raw(b.p, b.len, &raw, &err), 0);
        static const tk_xray_fdr_kind body[] = {
            TK_XRAY_FDR_FUNCTION, TK_XRAY_FDR_FUNCTION, TK_XRAY_FDR_CALL_ARG, TK_XRAY_FDR_CALL_ARG,
            TK_XRAY_FDR_CUSTOM_EVENT, TK_XRAY_FDR_FUNCTION, TK_XRAY_FDR_TSC_WRAP, TK_XRAY_FDR_FUNCTION,
            TK_XRAY_FDR_NEW_CPU, TK_XRAY_FDR_FUNCTION, TK_XRAY_FDR_FUNCTION, TK_XRAY_FDR_FUNCTION,
            TK_XRAY_FDR_CALL_ARG};
        tk_xray_fdr_kind kinds[64];
        size_t k = 0;
        for (int blk = 0; blk < 2; blk++) {
            if (v >= 2)
                kinds[k++] = TK_XRAY_FDR_BUFFER_EXTENTS;
            kinds[k++] = TK_XRAY_FDR_NEW_BUFFER;
            kinds[k++] = TK_XRAY_FDR_WALLTIME;
            if (v >= 3)
                kinds[k++] = TK_XRAY_FDR_PID;
            kinds[k++] = TK_XRAY_FDR_NEW_CPU;
            if (blk == 0) {
                for (size_t i = 0; i < sizeof body / sizeof body[0]; i++) {
                    kinds[k++] = body[i];
                    if (v >= 5 && body[i] == TK_XRAY_FDR_CUSTOM_EVENT)
                        kinds[k++] = TK_XRAY_FDR_TYPED_EVENT;
                }
            } else {
                kinds[k++] = TK_XRAY_FDR_FUNCTION;
                kinds[k++] = TK_XRAY_FDR_FUNCTION;
            }
            if (v == 1)
                kinds[k++] = TK_XRAY_FDR_END_OF_BUFFER;
        }
        assert_int_equal(raw.n, k);
        for (size_t i = 0; i < k; i++)
            if (raw.v[i].kind != kinds[i])
                fail_msg("v%u raw record %zu: kind %d, expected %d", v, i, raw.v[i].kind,
                         kinds[i]);
        /* a few exact raw fields */
        size_t i0 = v >= 2 ? 1 : 0;
        assert_int_equal(raw.v[i0].tid, 11);
        assert_int_equal(raw.v[i0].offset, 32 + (v >= 2 ? 16 : 0));
        assert_int_equal(raw.v[i0 + 1].seconds, 100);
        assert_int_equal(raw.v[i0 + 1].micros, 250);
        if (v >= 3)
            assert_int_equal(raw.v[i0 + 2].pid, 22);
        if (v >= 2) {
            /* preamble, 7 function records, 5 metadata, events */
            assert_int_equal(raw.v[0].value, 48 + (v >= 3 ? 16 : 0) + 8 * 7 + 16 * 5 +
                                                 (v >= 5 ? 16 + 3 + 16 + 4 : 16 + 3));
        }
        for (size_t i = 0; i < raw.n; i++) {
            const tk_xray_fdr_record *x = &raw.v[i];
            if (x->kind == TK_XRAY_FDR_FUNCTION && x->func_id == 268435455 && x->action == 0)
                assert_int_equal(x->delta, 0xFFFFFFFFu);
            if (x->kind == TK_XRAY_FDR_CUSTOM_EVENT) {
                assert_int_equal(x->size, 3);
                assert_memory_equal(x->payload, "abc", 3);
                if (v >= 5) {
                    assert_int_equal(x->event_delta, -5);
                } else {
                    assert_int_equal(x->tsc, 999);
                    assert_int_equal(x->cpu, v == 4 ? 4 : 0); /* v1–3 store none */
                }
            }
            if (x->kind == TK_XRAY_FDR_TYPED_EVENT) {
                assert_int_equal(x->event_type, 77);
                assert_int_equal(x->event_delta, 3);
                assert_int_equal(x->size, 4);
            }
            if (x->kind == TK_XRAY_FDR_NEW_CPU && x->cpu == 2)
                assert_int_equal(x->tsc, 5000000000ULL);
            if (x->kind == TK_XRAY_FDR_TSC_WRAP)
                assert_int_equal(x->tsc, 0x100000005ULL);
        }
        tk_input *in = tk_input_from_memory(b.p, b.len, "m", &err);
        tk_xray_reader *r = tk_xray_reader_new(in, &err);
        tk_xray_record rec;
        while (tk_xray_next(r, &rec, &err) > 0)
            ;
        assert_int_equal(tk_xray_reader_blocks(r), 2);
        const tk_xray_header *h = tk_xray_reader_header(r);
        assert_int_equal(h->version, v);
        assert_int_equal(h->type, TK_XRAY_FDR);
        assert_int_equal(h->cycle_frequency, 3500000000ULL);
        assert_int_equal(h->buffer_size, FDR_BUFSIZE);
        assert_int_equal(h->bitfield, 3);
        tk_xray_reader_free(r);
        tk_input_close(in);
        xr_raw_free(&raw);
        tu_buf_free(&b);
    }
}

/* Typed events are read in any version (LLVM's reader does too). */
static void test_typed_event_v3(void **state)
{
    (void)state;
    tu_buf b = {0};
    xb_header(&b, 3, TK_XRAY_FDR, 1000, 4096);
    xb_extents(&b, 64 + 8 + 16 + 2);
    xb_preamble(&b, 3, 5, 6, 7, 100);
    xb_fn(&b, 0, 1, 1);
    xb_typed(&b, 2, -50, 65535, "hi", 2);
    xr_list got = {0};
    tk_error err;
    assert_int_equal(xr_read(b.p, b.len, &got, &err, NULL), 0);
    assert_int_equal(got.n, 2);
    assert_int_equal(got.v[1].kind, TK_XRAY_TYPED_EVENT);
    assert_int_equal(got.v[1].tsc, 51);
    assert_int_equal(got.v[1].event_type, 65535);
    assert_int_equal(got.v[1].cpu, 7);
    assert_int_equal(got.v[1].pid, 6);
    assert_memory_equal(got.v[1].data, "hi", 2);
    xr_free(&got);
    tu_buf_free(&b);
}

/* v3+: bytes between buffers are skipped up to the next BufferExtents tag
 * (0x0F) and counted; validate warns about them. */
static void test_garbage_between_buffers(void **state)
{
    (void)state;
    for (unsigned v = 3; v <= 5; v++) {
        tu_buf b = {0};
        xb_header(&b, (uint16_t)v, TK_XRAY_FDR, 1000, 4096);
        static const uint8_t junk1[] = {0x00, 0x01, 0xFF, 0x0E, 0x10, 0x1F, 0xF0};
        tu_putn(&b, junk1, sizeof junk1); /* before the first buffer */
        xb_extents(&b, 64 + 16);
        xb_preamble(&b, v, 1, 2, 0, 1000);
        xb_fn(&b, 0, 1, 5);
        xb_fn(&b, 1, 1, 5);
        xb_zeros(&b, 100); /* runtime-style zero fill */
        xb_extents(&b, 0); /* an empty buffer is harmless */
        xb_extents(&b, 64 + 8);
        xb_preamble(&b, v, 3, 2, 1, 2000);
        xb_fn(&b, 0, 9, 0);
        tu_put8(&b, 0xAB); /* and trailing garbage */
        xr_list got = {0};
        tk_error err;
        uint64_t skipped = 0;
        assert_int_equal(xr_read(b.p, b.len, &got, &err, &skipped), 0);
        assert_int_equal(skipped, sizeof junk1 + 100 + 1);
        assert_int_equal(got.n, 3);
        assert_int_equal(got.v[0].tsc, 1005);
        assert_int_equal(got.v[1].tsc, 1010);
        assert_int_equal(got.v[2].tsc, 2000);
        assert_int_equal(got.v[2].tid, 3);
        assert_int_equal(got.v[2].offset, 32 + 7 + 16 + 80 + 100 + 16 + 16 + 64);
        xr_free(&got);

        /* validate: one warning with the byte count; info reports it */
        tk_input *in = tk_input_from_memory(b.p, b.len, "m", &err);
        tu_capture c;
        tk_sink *s = tu_sink_open(&c, TK_SINK_JSON);
        uint64_t nw = 0;
        assert_int_equal(tk_validate(tk_format_find("xray"), in, NULL, s, &nw, &err), TK_OK);
        char *text = tu_sink_text(s, &c);
        assert_int_equal(nw, 1);
        assert_non_null(strstr(text, "\"code\":\"skipped_bytes\""));
        assert_non_null(strstr(text, "\"bytes\":108"));
        free(text);
        tk_input_close(in);
        char *info = tk_info_json(b.p, b.len);
        assert_int_equal(json_u64(info, NULL, "skipped_bytes"), 108);
        assert_int_equal(json_u64(info, NULL, "blocks"), 2);
        assert_int_equal(json_u64(info, NULL, "records"), 3);
        free(info);
        tu_buf_free(&b);
    }
}

/* v1: EndOfBuffer, then padding up to the header's buffer size (which may
 * hold anything) is skipped; blocks are measured from their NewBuffer. */
static void test_v1_padding(void **state)
{
    (void)state;
    tu_buf b = {0};
    xb_header(&b, 1, TK_XRAY_FDR, 1000, 256);
    for (uint32_t t = 0; t < 3; t++) {
        size_t start = b.len;
        xb_preamble(&b, 1, 100 + t, 0, (uint16_t)t, 1000 * (t + 1));
        xb_fn(&b, 0, t + 1, 1);
        xb_eob(&b);
        while (b.len - start < 256) /* garbage that would not parse */
            tu_put8(&b, (uint8_t)(0x0B + b.len));
    }
    xr_list got = {0};
    tk_error err;
    uint64_t skipped = 0;
    assert_int_equal(xr_read(b.p, b.len, &got, &err, &skipped), 0);
    assert_int_equal(got.n, 3);
    for (uint32_t t = 0; t < 3; t++) {
        assert_int_equal(got.v[t].tid, 100 + t);
        assert_int_equal(got.v[t].cpu, t);
        assert_int_equal(got.v[t].tsc, 1000 * (t + 1) + 1);
        assert_int_equal(got.v[t].offset, 32 + 256 * t + 48);
    }
    assert_int_equal(skipped, 0); /* padding is not garbage */
    xr_free(&got);
    /* the last buffer's padding may be cut short */
    xr_list got2 = {0};
    assert_int_equal(xr_read(b.p, b.len - 100, &got2, &err, NULL), 0);
    assert_int_equal(got2.n, 3);
    xr_free(&got2);
    tu_buf_free(&b);
}

/* ====================================================== malformed inputs */

typedef struct bad_case {
    const char *name;
    void (*build)(tu_buf *b);
    tk_status status;
    uint64_t offset, record;
    size_t nrec; /* logical records returned before the error */
    const char *message;
} bad_case;

/* header problems */
static void m_short0(tu_buf *b) { (void)b; }
static void m_short31(tu_buf *b)
{
    xb_header(b, 3, 0, 1, 0);
    b->len = 31;
}
static void m_type2(tu_buf *b) { xb_header(b, 1, 2, 1, 0); }
static void m_type_be(tu_buf *b) { xb_header(b, 3, 0x0100, 1, 0); }
static void m_type_ffff(tu_buf *b) { xb_header(b, 1, 0xFFFF, 1, 0); }
static void m_basic_v0(tu_buf *b) { xb_header(b, 0, 0, 1, 0); }
static void m_basic_v4(tu_buf *b) { xb_header(b, 4, 0, 1, 0); }
static void m_fdr_v0(tu_buf *b) { xb_header(b, 0, 1, 1, 0); }
static void m_fdr_v6(tu_buf *b) { xb_header(b, 6, 1, 1, 0); }
static void m_be_v3(tu_buf *b) { xb_header(b, 0x0300, 0, 1, 0); } /* BE version */

/* basic mode */
static void m_basic_trunc(tu_buf *b)
{
    xb_header(b, 3, 0, 1, 0);
    xb_basic(b, 0, 0, 1, 10, 1, 1);
    xb_basic(b, 0, 1, 1, 11, 1, 1);
    b->len -= 12;
}
static void m_basic_unknown_rtype(tu_buf *b)
{
    xb_header(b, 3, 0, 1, 0);
    xb_basic(b, 0, 0, 1, 10, 1, 1);
    xb_basic(b, 0, 1, 1, 11, 1, 1);
    b->p[64] = 2;
}
static void m_basic_unknown_kind(tu_buf *b)
{
    xb_header(b, 2, 0, 1, 0);
    xb_basic(b, 0, 4, 1, 10, 1, 1);
}
static void m_basic_kind_ff(tu_buf *b)
{
    xb_header(b, 1, 0, 1, 0);
    xb_basic(b, 0, 0, 1, 10, 1, 1);
    xb_basic(b, 0, 255, 1, 10, 1, 1);
}
static void m_basic_arg_first(tu_buf *b)
{
    xb_header(b, 3, 0, 1, 0);
    xb_basic_arg(b, 1, 1, 1, 5);
}
static void m_basic_arg_fid(tu_buf *b)
{
    xb_header(b, 3, 0, 1, 0);
    xb_basic(b, 0, 3, 2, 10, 7, 1);
    xb_basic_arg(b, 2, 7, 1, 5);
    xb_basic_arg(b, 5, 7, 1, 5);
}
static void m_basic_arg_tid(tu_buf *b)
{
    xb_header(b, 2, 0, 1, 0);
    xb_basic(b, 0, 3, 2, 10, 7, 1);
    xb_basic_arg(b, 2, 8, 1, 5);
}
static void m_basic_arg_pid(tu_buf *b)
{
    xb_header(b, 3, 0, 1, 0);
    xb_basic(b, 0, 3, 2, 10, 7, 1);
    xb_basic_arg(b, 2, 7, 2, 5);
}

/* FDR: a v5 block opened for thread 5, pid 6 (extents patched by close) */
static size_t open5(tu_buf *b, unsigned v)
{
    xb_header(b, (uint16_t)v, 1, 1000, 4096);
    size_t at = b->len;
    if (v >= 2)
        xb_extents(b, 0);
    xb_preamble(b, v, 5, 6, 0, 100);
    return at;
}
static void close5(tu_buf *b, size_t at) { xb_patch64(b, at + 1, b->len - at - 16); }

static void m_fdr_action(tu_buf *b)
{
    size_t at = open5(b, 5);
    xb_fn(b, 0, 1, 1);
    xb_fn(b, 4, 1, 1);
    close5(b, at);
}
static void m_fdr_action7(tu_buf *b)
{
    size_t at = open5(b, 5);
    xb_fn(b, 7, 1, 1);
    close5(b, at);
}
static void m_fdr_trunc_fn(tu_buf *b)
{
    open5(b, 1);
    xb_fn(b, 0, 1, 1);
    xb_fn(b, 1, 1, 1);
    b->len -= 3;
}
static void m_fdr_trunc_meta(tu_buf *b)
{
    open5(b, 1);
    xb_fn(b, 0, 1, 1);
    xb_wrap(b, 5);
    b->len -= 7;
}
static void m_fdr_trunc_meta_v5(tu_buf *b)
{
    size_t at = open5(b, 5);
    xb_fn(b, 0, 1, 1);
    xb_wrap(b, 5);
    close5(b, at);
    b->len -= 1;
}
static void m_fdr_event_size0(tu_buf *b)
{
    size_t at = open5(b, 5);
    xb_custom5(b, 0, 1, "", 0);
    close5(b, at);
}
static void m_fdr_event_size_neg(tu_buf *b)
{
    size_t at = open5(b, 4);
    xb_custom_abs(b, -1, 5, 0, "", 0);
    close5(b, at);
}
static void m_fdr_typed_size_neg(tu_buf *b)
{
    size_t at = open5(b, 5);
    xb_typed(b, INT32_MIN, 1, 1, "", 0);
    close5(b, at);
}
static void m_fdr_event_past_end(tu_buf *b)
{
    size_t at = open5(b, 5);
    xb_fn(b, 0, 1, 1);
    xb_custom5(b, 100, 1, "hello", 5);
    close5(b, at);
}
static void m_fdr_event_huge(tu_buf *b)
{
    open5(b, 1);
    xb_custom_abs(b, INT32_MAX, 5, 0, "x", 1);
}
static void m_fdr_eob_v2(tu_buf *b)
{
    size_t at = open5(b, 2);
    xb_fn(b, 0, 1, 1);
    xb_eob(b);
    close5(b, at);
}
static void m_fdr_extents_v1(tu_buf *b)
{
    open5(b, 1);
    xb_fn(b, 0, 1, 1);
    xb_extents(b, 8);
}
static void m_fdr_outside_v2(tu_buf *b)
{
    xb_header(b, 2, 1, 1000, 4096);
    xb_preamble(b, 2, 5, 6, 0, 100);
}
static void m_fdr_outside_v2_second(tu_buf *b)
{
    size_t at = open5(b, 2);
    xb_fn(b, 0, 1, 1);
    close5(b, at);
    xb_fn(b, 1, 1, 1);
}
static void m_fdr_overread(tu_buf *b)
{
    xb_header(b, 3, 1, 1000, 4096);
    xb_extents(b, 56);
    xb_preamble(b, 3, 5, 6, 0, 100);
}
static void m_fdr_overread_event(tu_buf *b)
{
    size_t at = open5(b, 5);
    xb_fn(b, 0, 1, 1);
    xb_custom5(b, 10, 1, "0123456789", 10);
    close5(b, at);
    xb_patch64(b, at + 1, 64 + 8 + 16 + 4);
}
static void m_fdr_overread_v2(tu_buf *b) /* binding in v2 too (LLVM: v3+) */
{
    xb_header(b, 2, 1, 1000, 4096);
    xb_extents(b, 8);
    xb_preamble(b, 2, 5, 6, 0, 100);
    xb_fn(b, 0, 1, 1);
}
static void m_fdr_extents_inside(tu_buf *b)
{
    size_t at = open5(b, 5);
    xb_fn(b, 0, 1, 1);
    xb_extents(b, 0);
    xb_fn(b, 0, 1, 1);
    close5(b, at);
}
static void m_fdr_fn_after_newbuf(tu_buf *b)
{
    xb_header(b, 5, 1, 1000, 4096);
    xb_extents(b, 24);
    xb_newbuf(b, 5);
    xb_fn(b, 0, 1, 1);
}
static void m_fdr_cpu_after_newbuf(tu_buf *b)
{
    xb_header(b, 1, 1, 1000, 4096);
    xb_newbuf(b, 5);
    xb_cpu(b, 0, 1);
}
static void m_fdr_carg_after_cpu(tu_buf *b)
{
    size_t at = open5(b, 5);
    xb_carg(b, 1);
    close5(b, at);
}
static void m_fdr_carg_after_event(tu_buf *b)
{
    size_t at = open5(b, 5);
    xb_fn(b, 3, 1, 1);
    xb_custom5(b, 1, 1, "x", 1);
    xb_carg(b, 1);
    close5(b, at);
}
static void m_fdr_carg_after_wrap(tu_buf *b)
{
    size_t at = open5(b, 3);
    xb_fn(b, 3, 1, 1);
    xb_wrap(b, 1);
    xb_carg(b, 1);
    close5(b, at);
}
static void m_fdr_pid_after_cpu(tu_buf *b)
{
    size_t at = open5(b, 5);
    xb_pid(b, 7);
    close5(b, at);
}
static void m_fdr_wall_after_fn(tu_buf *b)
{
    size_t at = open5(b, 5);
    xb_fn(b, 0, 1, 1);
    xb_wall(b, 1, 1);
    close5(b, at);
}
static void m_fdr_newbuf_inside_v5(tu_buf *b)
{
    size_t at = open5(b, 5);
    xb_fn(b, 0, 1, 1);
    xb_newbuf(b, 9);
    close5(b, at);
}
static void m_fdr_fn_first_v1(tu_buf *b)
{
    xb_header(b, 1, 1, 1000, 4096);
    xb_fn(b, 0, 1, 1);
}
static void m_fdr_event_after_pid(tu_buf *b)
{
    xb_header(b, 5, 1, 1000, 4096);
    xb_extents(b, 48 + 16 + 1);
    xb_newbuf(b, 5);
    xb_wall(b, 1, 1);
    xb_pid(b, 6);
    xb_typed(b, 1, 1, 1, "x", 1);
}
static void m_fdr_eob_after_wall(tu_buf *b)
{
    xb_header(b, 1, 1, 1000, 4096);
    xb_newbuf(b, 5);
    xb_wall(b, 1, 1);
    xb_eob(b);
}
static void m_fdr_after_eob_nosize(tu_buf *b) /* buffer size 0: no padding skip */
{
    xb_header(b, 1, 1, 1000, 0);
    xb_preamble(b, 1, 5, 6, 0, 100);
    xb_fn(b, 0, 1, 1);
    xb_eob(b);
    xb_zeros(b, 8);
}
static void m_fdr_block_after_preamble(tu_buf *b)
{
    xb_header(b, 3, 1, 1000, 4096);
    xb_extents(b, 48);
    xb_newbuf(b, 5);
    xb_wall(b, 1, 1);
    xb_pid(b, 6);
    xb_extents(b, 64);
    xb_preamble(b, 3, 7, 6, 0, 1);
}
static void m_fdr_block_after_wall_v1(tu_buf *b)
{
    xb_header(b, 1, 1, 1000, 0);
    xb_newbuf(b, 5);
    xb_wall(b, 1, 1);
    xb_preamble(b, 1, 7, 6, 0, 1);
}
static void m_fdr_ends_in_buffer(tu_buf *b)
{
    xb_header(b, 4, 1, 1000, 4096);
    xb_extents(b, 100);
    xb_preamble(b, 4, 5, 6, 0, 100);
}
static void m_fdr_ends_in_block(tu_buf *b)
{
    xb_header(b, 1, 1, 1000, 4096);
    xb_newbuf(b, 5);
    xb_wall(b, 1, 1);
}
static void m_fdr_ends_after_pid(tu_buf *b)
{
    xb_header(b, 5, 1, 1000, 4096);
    xb_extents(b, 48);
    xb_newbuf(b, 5);
    xb_wall(b, 1, 1);
    xb_pid(b, 6);
}
static void m_fdr_meta10(tu_buf *b)
{
    size_t at = open5(b, 5);
    xb_fn(b, 0, 1, 1);
    xb_meta1(b, 10, 0, 0);
    close5(b, at);
}
static void m_fdr_meta127(tu_buf *b)
{
    open5(b, 1);
    xb_meta1(b, 127, 0, 0);
}

#define NOREC TK_NO_RECORD
static const bad_case bad_cases[] = {
    {"empty file", m_short0, TK_EMALFORMED, 0, NOREC, 0,
     "file too small for an XRay header (0 of 32 bytes)"},
    {"31-byte file", m_short31, TK_EMALFORMED, 0, NOREC, 0,
     "file too small for an XRay header (31 of 32 bytes)"},
    {"type 2", m_type2, TK_EMALFORMED, 2, NOREC, 0, "unknown XRay trace type 2 (0 basic, 1 FDR)"},
    {"type 0xffff", m_type_ffff, TK_EMALFORMED, 2, NOREC, 0,
     "unknown XRay trace type 65535 (0 basic, 1 FDR)"},
    {"big-endian type", m_type_be, TK_EUNSUPPORTED, 2, NOREC, 0,
     "big-endian XRay traces are not supported (no XRay runtime writes them)"},
    {"basic v0", m_basic_v0, TK_EMALFORMED, 0, NOREC, 0,
     "unsupported version 0 for basic mode (1 to 3)"},
    {"basic v4", m_basic_v4, TK_EMALFORMED, 0, NOREC, 0,
     "unsupported version 4 for basic mode (1 to 3)"},
    {"basic v768 (big-endian 3)", m_be_v3, TK_EMALFORMED, 0, NOREC, 0,
     "unsupported version 768 for basic mode (1 to 3)"},
    {"FDR v0", m_fdr_v0, TK_EMALFORMED, 0, NOREC, 0, "unsupported version 0 for FDR mode (1 to 5)"},
    {"FDR v6", m_fdr_v6, TK_EMALFORMED, 0, NOREC, 0, "unsupported version 6 for FDR mode (1 to 5)"},

    {"basic truncated record", m_basic_trunc, TK_EMALFORMED, 64, 1, 1,
     "truncated basic-mode record: needs 32 bytes, 20 left"},
    {"basic record type 2", m_basic_unknown_rtype, TK_EMALFORMED, 64, 1, 1,
     "unknown basic-mode record type 2"},
    {"basic kind 4", m_basic_unknown_kind, TK_EMALFORMED, 35, 0, 0,
     "unknown function record type 4"},
    {"basic kind 255", m_basic_kind_ff, TK_EMALFORMED, 67, 1, 1,
     "unknown function record type 255"},
    {"basic argument first", m_basic_arg_first, TK_EMALFORMED, 32, 0, 0,
     "argument payload with no function record before it"},
    {"basic argument of another function", m_basic_arg_fid, TK_EMALFORMED, 96, 2, 0,
     "argument payload for function 5 thread 7 follows a record of function 2 thread 7"},
    {"basic argument of another thread", m_basic_arg_tid, TK_EMALFORMED, 64, 1, 0,
     "argument payload for function 2 thread 8 follows a record of function 2 thread 7"},
    {"basic v3 argument of another process", m_basic_arg_pid, TK_EMALFORMED, 64, 1, 0,
     "argument payload for function 2 thread 7 follows a record of function 2 thread 7"},

    {"FDR function action 4", m_fdr_action, TK_EMALFORMED, 120, 6, 1,
     "unknown function record type 4"},
    {"FDR function action 7", m_fdr_action7, TK_EMALFORMED, 112, 5, 0,
     "unknown function record type 7"},
    {"FDR truncated function record", m_fdr_trunc_fn, TK_EMALFORMED, 88, 4, 1,
     "truncated function record: needs 8 bytes, 5 left"},
    {"FDR truncated metadata record", m_fdr_trunc_meta, TK_EMALFORMED, 88, 4, 1,
     "truncated metadata record: needs 16 bytes, 9 left"},
    {"FDR v5 truncated metadata record", m_fdr_trunc_meta_v5, TK_EMALFORMED, 120, 6, 1,
     "truncated metadata record: needs 16 bytes, 15 left"},
    {"FDR custom event size 0", m_fdr_event_size0, TK_EMALFORMED, 113, 5, 0,
     "invalid event payload size 0"},
    {"FDR v4 custom event size -1", m_fdr_event_size_neg, TK_EMALFORMED, 113, 5, 0,
     "invalid event payload size -1"},
    {"FDR typed event size INT32_MIN", m_fdr_typed_size_neg, TK_EMALFORMED, 113, 5, 0,
     "invalid event payload size -2147483648"},
    {"FDR event payload past the end", m_fdr_event_past_end, TK_EMALFORMED, 121, 6, 1,
     "event payload of 100 bytes runs past the end of the trace (5 bytes left)"},
    {"FDR event of 2^31-1 bytes", m_fdr_event_huge, TK_EMALFORMED, 81, 3, 0,
     "event payload of 2147483647 bytes runs past the end of the trace (1 bytes left)"},
    {"FDR v2 EndOfBuffer", m_fdr_eob_v2, TK_EMALFORMED, 104, 5, 1,
     "EndOfBuffer records are not allowed from version 2 on"},
    {"FDR v1 BufferExtents", m_fdr_extents_v1, TK_EMALFORMED, 88, 4, 1,
     "BufferExtents records appear only from version 2 on"},
    {"FDR v2 record outside any buffer", m_fdr_outside_v2, TK_EMALFORMED, 32, 0, 0,
     "new-buffer record outside any buffer: expected BufferExtents"},
    {"FDR v2 record after the last buffer", m_fdr_outside_v2_second, TK_EMALFORMED, 104, 5, 1,
     "function record outside any buffer: expected BufferExtents"},
    {"FDR v3 buffer over-read", m_fdr_overread, TK_EMALFORMED, 96, 4, 0,
     "new-cpu record of 16 bytes runs 8 bytes past the end of its buffer"},
    {"FDR v2 buffer over-read", m_fdr_overread_v2, TK_EMALFORMED, 48, 1, 0,
     "new-buffer record of 16 bytes runs 8 bytes past the end of its buffer"},
    {"FDR v5 event over-read", m_fdr_overread_event, TK_EMALFORMED, 120, 6, 1,
     "custom-event record of 26 bytes runs 6 bytes past the end of its buffer"},
    {"FDR v5 BufferExtents inside a buffer", m_fdr_extents_inside, TK_EMALFORMED, 120, 6, 1,
     "BufferExtents record inside a buffer (24 bytes before its end)"},
    {"FDR Function right after NewBuffer", m_fdr_fn_after_newbuf, TK_EMALFORMED, 64, 2, 0,
     "Function record cannot follow NewBuffer in a block (thread 5)"},
    {"FDR NewCPUId right after NewBuffer", m_fdr_cpu_after_newbuf, TK_EMALFORMED, 48, 1, 0,
     "NewCPUId record cannot follow NewBuffer in a block (thread 5)"},
    {"FDR CallArg after NewCPUId", m_fdr_carg_after_cpu, TK_EMALFORMED, 112, 5, 0,
     "CallArg record cannot follow NewCPUId in a block (thread 5)"},
    {"FDR CallArg after a custom event", m_fdr_carg_after_event, TK_EMALFORMED, 137, 7, 2,
     "CallArg record cannot follow CustomEvent in a block (thread 5)"},
    {"FDR CallArg after TSCWrap", m_fdr_carg_after_wrap, TK_EMALFORMED, 136, 7, 1,
     "CallArg record cannot follow TSCWrap in a block (thread 5)"},
    {"FDR Pid after NewCPUId", m_fdr_pid_after_cpu, TK_EMALFORMED, 112, 5, 0,
     "Pid record cannot follow NewCPUId in a block (thread 5)"},
    {"FDR WallClockTime after Function", m_fdr_wall_after_fn, TK_EMALFORMED, 120, 6, 1,
     "WallClockTime record cannot follow Function in a block (thread 5)"},
    /* a NewBuffer inside a v3+ buffer starts a block (as in LLVM) */
    {"FDR NewBuffer inside a v5 buffer", m_fdr_newbuf_inside_v5, TK_EMALFORMED, 136, 7, 1,
     "trace ends inside a block, after NewBuffer"},
    {"FDR v1 function before any NewBuffer", m_fdr_fn_first_v1, TK_EMALFORMED, 32, 0, 0,
     "Function record cannot follow Unknown in a block (thread 0)"},
    {"FDR typed event after Pid", m_fdr_event_after_pid, TK_EMALFORMED, 96, 4, 0,
     "TypedEvent record cannot follow Pid in a block (thread 5)"},
    {"FDR EndOfBuffer after WallClockTime", m_fdr_eob_after_wall, TK_EMALFORMED, 64, 2, 0,
     "EndOfBuffer record cannot follow WallClockTime in a block (thread 5)"},
    {"FDR v1 record after EndOfBuffer, no buffer size", m_fdr_after_eob_nosize, TK_EMALFORMED,
     104, 5, 1, "Function record cannot follow EndOfBuffer in a block (thread 5)"},
    {"FDR v3 block ending after its preamble", m_fdr_block_after_preamble, TK_EMALFORMED, 96, 4,
     0, "block at offset 0x20 (thread 5) ends after Pid, before any function record"},
    {"FDR v1 block ending after WallClockTime", m_fdr_block_after_wall_v1, TK_EMALFORMED, 64, 2,
     0, "block at offset 0x20 (thread 5) ends after WallClockTime, before any function record"},
    {"FDR trace ending inside a buffer", m_fdr_ends_in_buffer, TK_EMALFORMED, 112, 5, 0,
     "trace ends inside a buffer: 36 of its bytes are missing"},
    {"FDR v1 trace ending inside a block", m_fdr_ends_in_block, TK_EMALFORMED, 64, 2, 0,
     "trace ends inside a block, after WallClockTime"},
    {"FDR v5 trace ending after Pid", m_fdr_ends_after_pid, TK_EMALFORMED, 96, 4, 0,
     "trace ends inside a block, after Pid"},
    {"FDR metadata kind 10", m_fdr_meta10, TK_EMALFORMED, 120, 6, 1,
     "unknown metadata record kind 10"},
    {"FDR metadata kind 127", m_fdr_meta127, TK_EMALFORMED, 80, 3, 0,
     "unknown metadata record kind 127"},
};

/* exact: the logical reader must return every complete record before the
 * error (see test_fdr_pending_before_error, held back) */
static void check_bad(const bad_case *c, int exact)
{
    tu_buf b = {0};
    c->build(&b);
    uint8_t *d = malloc(b.len ? b.len : 1); /* exact size for ASan */
    assert_non_null(d);
    if (b.len)
        memcpy(d, b.p, b.len);
    xr_list got = {0};
    tk_error err;
    int rc = xr_read(d, b.len, &got, &err, NULL);
    /* FDR entries are held until their call arguments are seen; an error
     * in the next record loses that last complete record today */
    int fdr = b.len >= 4 && b.p[2] == 1 && b.p[3] == 0;
    int nrec_ok = got.n == c->nrec || (!exact && fdr && c->nrec > 0 && got.n == c->nrec - 1);
    int ok = rc < 0 && err.status == c->status && err.offset == c->offset &&
             err.record == c->record && strcmp(err.message, c->message) == 0 && nrec_ok;
    if (!ok)
        fail_msg("%s: rc %d, status %d, offset %" PRIu64 ", record %" PRId64
                 ", %zu records (want %zu), message '%s'",
                 c->name, rc, err.status, err.offset, (int64_t)err.record, got.n, c->nrec,
                 err.message);
    assert_int_equal(rc, c->record == NOREC && c->nrec == 0 ? -2 : -1);
    xr_free(&got);
    /* the raw FDR reader stops at the same place with the same error */
    if (b.len >= 4 && b.p[2] == 1 && b.p[3] == 0 && rc == -1) {
        xr_raw raw = {0};
        tk_error rerr;
        assert_int_equal(xr_read_raw(d, b.len, &raw, &rerr), -1);
        assert_int_equal(raw.n, c->record);
        assert_int_equal(rerr.status, err.status);
        assert_int_equal(rerr.offset, err.offset);
        assert_int_equal(rerr.record, err.record);
        assert_string_equal(rerr.message, err.message);
        xr_raw_free(&raw);
    }
    /* dump, validate and info through the format API fail the same way */
    const tk_format *f = tk_format_find("xray");
    tk_input *in = tk_input_from_memory(d, b.len, "bad.xray", &err);
    uint64_t nw = 0;
    tk_error verr;
    tk_error_clear(&verr);
    assert_int_equal(tk_validate(f, in, NULL, NULL, &nw, &verr), c->status);
    assert_string_equal(verr.message, c->message);
    assert_int_equal(verr.offset, c->offset);
    char line[400];
    tk_error_format(&verr, "bad.xray", line, sizeof line);
    char want[400];
    if (c->record == NOREC)
        snprintf(want, sizeof want, "bad.xray: offset 0x%" PRIx64 ": %s", c->offset, c->message);
    else
        snprintf(want, sizeof want, "bad.xray: offset 0x%" PRIx64 " (record %" PRIu64 "): %s",
                 c->offset, c->record, c->message);
    assert_string_equal(line, want);
    tk_input_close(in);
    free(d);
    tu_buf_free(&b);
}

static void test_malformed_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++)
        check_bad(&bad_cases[i], 0);
}


/* ============================================================ the sweep */

/* A small basic v3 trace: two threads, arguments, every kind. */
static void build_basic_small(tu_buf *b)
{
    xb_header(b, 3, TK_XRAY_BASIC, 1000000000ULL, 0);
    xb_basic(b, 1, TK_XRAY_ENTER, 1, 100, 10, 20);
    xb_basic(b, 1, TK_XRAY_ENTER_ARG, 2, 110, 10, 20);
    xb_basic_arg(b, 2, 10, 20, 7);
    xb_basic_arg(b, 2, 10, 20, 8);
    xb_basic(b, 0, TK_XRAY_ENTER, 1, 105, 11, 20);
    xb_basic(b, 1, TK_XRAY_TAIL_EXIT, 2, 120, 10, 20);
    xb_basic(b, 0, TK_XRAY_EXIT, 1, 125, 11, 20);
    xb_basic(b, 1, TK_XRAY_EXIT, 1, 130, 10, 20);
}

typedef struct sweep_result {
    int rc;
    tk_error err;
    size_t nrec, nraw;
} sweep_result;

static uint8_t *exact_copy(const uint8_t *p, size_t n)
{
    uint8_t *d = malloc(n ? n : 1);
    assert_non_null(d);
    if (n)
        memcpy(d, p, n);
    return d;
}

/* Read `d` every way there is; any outcome but a clean end or a clean
 * malformed-trace error fails (ASan catches over-reads: `d` has exactly
 * n bytes). */
static sweep_result sweep_one(const uint8_t *d, size_t n)
{
    sweep_result res;
    memset(&res, 0, sizeof res);
    xr_list got = {0};
    res.rc = xr_read(d, n, &got, &res.err, NULL);
    res.nrec = got.n;
    if (res.rc != 0) {
        assert_true(res.rc == -1 || res.rc == -2);
        if (res.err.status == TK_EUNSUPPORTED) /* big-endian type field */
            assert_int_equal(res.rc, -2);
        else
            assert_int_equal(res.err.status, TK_EMALFORMED);
        assert_true(res.err.offset <= n);
        assert_true(res.err.message[0] != '\0');
        if (res.rc == -1) {
            assert_true(res.err.offset >= TK_XRAY_HEADER_SIZE);
            assert_true(res.err.record != TK_NO_RECORD);
        }
    }
    for (size_t i = 0; i < got.n; i++) { /* touch everything */
        assert_true(got.v[i].kind >= 0 && got.v[i].kind <= TK_XRAY_TYPED_EVENT);
        assert_true(got.v[i].offset < n);
        assert_int_equal(got.v[i].index, i);
    }
    xr_free(&got);
    if (n >= 4 && d[2] == 1 && d[3] == 0 && xr_layout(d, n) == TK_XRAY_BASIC) {
        /* basic records under an FDR header read as under a basic one */
        uint8_t *basic = exact_copy(d, n);
        basic[2] = 0;
        xr_list same = {0};
        tk_error berr;
        assert_int_equal(xr_read(basic, n, &same, &berr, NULL), res.rc);
        assert_int_equal(same.n, res.nrec);
        xr_free(&same);
        free(basic);
    } else if (n >= 4 && d[2] == 1 && d[3] == 0) {
        xr_raw raw = {0};
        tk_error rerr;
        int rrc = xr_read_raw(d, n, &raw, &rerr);
        res.nraw = raw.n;
        /* both views agree on the outcome and on where it failed */
        assert_int_equal(rrc, res.rc);
        if (rrc == -1) {
            assert_int_equal(rerr.offset, res.err.offset);
            assert_int_equal(rerr.record, res.err.record);
            assert_int_equal(raw.n, rerr.record); /* the failing record's index */
            assert_string_equal(rerr.message, res.err.message);
        }
        for (size_t i = 1; i < raw.n; i++)
            assert_true(raw.v[i].offset > raw.v[i - 1].offset);
        xr_raw_free(&raw);
    }
    /* the commands through the format API: same verdict */
    const tk_format *f = tk_format_find("xray");
    static const char *const recs[] = {"raw", "logical"};
    for (int k = 0; k < 3; k++) {
        tk_error cerr;
        tk_error_clear(&cerr);
        tk_input *in = tk_input_from_memory(d, n, "sweep", &cerr);
        tk_options *o = tk_options_new(&cerr);
        tu_capture c;
        tk_sink *s = tu_sink_open(&c, k == 2 ? TK_SINK_TEXT : TK_SINK_JSON);
        tk_status st;
        if (k < 2) {
            assert_int_equal(tk_options_set(o, "records", recs[k], &cerr), TK_OK);
            st = tk_dump(f, in, o, s, &cerr);
        } else {
            uint64_t nw = 0;
            st = tk_validate(f, in, o, s, &nw, &cerr);
        }
        free(tu_sink_text(s, &c));
        if (res.rc == 0)
            assert_int_equal(st, TK_OK);
        else
            assert_int_equal(st, res.err.status);
        tk_options_free(o);
        tk_input_close(in);
    }
    return res;
}


/* Every cut of the trace; `ends` lists the lengths that are clean ends. */
static void sweep_cuts(const uint8_t *p, size_t n, const size_t *ends, size_t nends)
{
    sweep_result full = sweep_one(p, n);
    assert_int_equal(full.rc, 0);
    for (size_t len = 0; len < n; len++) {
        uint8_t *d = exact_copy(p, len);
        sweep_result r = sweep_one(d, len);
        int clean = 0;
        for (size_t i = 0; i < nends; i++)
            clean |= ends[i] == len;
        if (clean != (r.rc == 0))
            fail_msg("cut at %zu: rc %d (%s), expected a %s", len, r.rc, r.err.message,
                     clean ? "clean end" : "error");
        if (len < TK_XRAY_HEADER_SIZE)
            assert_int_equal(r.rc, -2);
        assert_true(r.nrec <= full.nrec);
        free(d);
    }
}

static void sweep_bytes(const uint8_t *p, size_t n)
{
    static const int values[] = {-1, 0x00, 0x01, 0x0F, 0x80, 0x11};
    uint8_t *d = exact_copy(p, n);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
            uint8_t old = d[i];
            d[i] = values[k] < 0 ? (uint8_t)~old : (uint8_t)values[k];
            if (d[i] != old)
                sweep_one(d, n);
            d[i] = old;
        }
    free(d);
}

static void test_sweep_basic(void **state)
{
    (void)state;
    tu_buf b = {0};
    build_basic_small(&b);
    size_t ends[16], ne = 0;
    for (size_t len = 32; len <= b.len; len += 32)
        ends[ne++] = len; /* any whole number of records */
    sweep_cuts(b.p, b.len, ends, ne);
    sweep_bytes(b.p, b.len);
    /* a cut inside a record is reported at that record */
    uint8_t *d = exact_copy(b.p, 32 + 5 * 32 + 7);
    xr_list got = {0};
    tk_error err;
    assert_int_equal(xr_read(d, 32 + 5 * 32 + 7, &got, &err, NULL), -1);
    assert_int_equal(err.offset, 32 + 5 * 32);
    assert_int_equal(err.record, 5);
    assert_string_equal(err.message, "truncated basic-mode record: needs 32 bytes, 7 left");
    xr_free(&got);
    free(d);
    tu_buf_free(&b);
}

static void test_sweep_fdr(void **state)
{
    (void)state;
    tu_buf b = {0};
    build_fdr_all(&b, 5);
    /* clean ends: after the header and after each buffer */
    size_t ends[3] = {32, 0, b.len};
    xr_raw raw = {0};
    tk_error err;
    assert_int_equal(xr_read_raw(b.p, b.len, &raw, &err), 0);
    for (size_t i = 1; i < raw.n; i++)
        if (raw.v[i].kind == TK_XRAY_FDR_BUFFER_EXTENTS)
            ends[1] = raw.v[i].offset;
    assert_true(ends[1] > 32);
    xr_raw_free(&raw);
    sweep_cuts(b.p, b.len, ends, 3);
    sweep_bytes(b.p, b.len);
    tu_buf_free(&b);
}

/* ========================================================= real traces */

static struct {
    int state; /* 0 not tried, 1 ready, -1 tools missing */
    char *dir;
    char basic[4096], fdr[4096], typed[4096];
} real;

/* The one file in `dir` whose name starts with `prefix`. */
static void find_prefixed(const char *dir, const char *prefix, char *out, size_t n)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            snprintf(out, n, "%s/%s", dir, e->d_name);
            found++;
        }
    closedir(d);
    if (found != 1)
        fail_msg("%d files named %s* in %s", found, prefix, dir);
}

/* Build programs/rw_* and record three traces (once). */
static int real_setup(void)
{
    if (real.state == -2)
        fail_msg("recording the traces failed (see the first real-trace test)");
    if (real.state)
        return real.state;
    real.state = -1;
    if (!have_tool(TK_CLANG) || !have_tool(TK_CLANGXX) || !have_tool(TK_LLVM_XRAY))
        return -1;
    real.state = -2;
    real.dir = tu_tmpdir();
    const char *src = TK_XRAY_TEST_DIR "/programs";
    const char *fl = "-fxray-instrument -fxray-instruction-threshold=1";
    char cmd[16384];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' -O2 %s -c '%s/rw_work.c' -o work.o && "
             "'%s' -O0 %s -c '%s/rw_events.c' -o events.o && "
             "'%s' -O2 %s -pthread '%s/rw_basic.c' work.o events.o -o rw_basic && "
             "'%s' -O2 %s -pthread '%s/rw_fdr.cc' work.o events.o -o rw_fdr",
             real.dir, TK_CLANG, fl, src, TK_CLANG, fl, src, TK_CLANG, fl, src, TK_CLANGXX,
             fl, src);
    if (run_quiet(cmd) != 0)
        fail_msg("building the test programs failed: %s", cmd);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && XRAY_OPTIONS='patch_premain=true xray_mode=xray-basic "
             "xray_logfile_base=%s/basic-' XRAY_BASIC_OPTIONS='func_duration_threshold_us=0' "
             "./rw_basic && XRAY_OPTIONS='xray_logfile_base=%s/fdr-' ./rw_fdr && "
             /* one CPU for the typed run: no NewCPUId among its last bytes
              * (see test_real_fdr_typed) */
             "pin=; if command -v taskset >/dev/null 2>&1; then "
             "pin=\"taskset -c $(taskset -cp $$ | sed 's/.*: *//; s/[-,].*//')\"; fi; "
             "XRAY_OPTIONS='xray_logfile_base=%s/typed-' $pin ./rw_fdr typed",
             real.dir, real.dir, real.dir, real.dir);
    if (run_quiet(cmd) != 0)
        fail_msg("running the test programs failed: %s", cmd);
    find_prefixed(real.dir, "basic-", real.basic, sizeof real.basic);
    find_prefixed(real.dir, "fdr-", real.fdr, sizeof real.fdr);
    find_prefixed(real.dir, "typed-", real.typed, sizeof real.typed);
    real.state = 1;
    return 1;
}

static int real_teardown(void **state)
{
    (void)state;
    if (real.dir)
        tu_rmdir(real.dir);
    real.dir = NULL;
    return 0;
}

static size_t count_lines_with(const char *text, const char *prefix)
{
    size_t n = 0, k = strlen(prefix);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        n += strncmp(p, prefix, k) == 0;
    return n;
}

/* tracekit's CLI next to this test binary (BUILD/tests/xray/ -> BUILD/). */
static const char *tracekit_cli(void)
{
    static char path[4200];
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return NULL;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    for (int up = 0; up < 2 && slash; up++) {
        *slash = '\0';
        slash = strrchr(self, '/');
    }
    if (!slash)
        return NULL;
    *slash = '\0';
    snprintf(path, sizeof path, "%s/tracekit", self);
    return access(path, X_OK) == 0 ? path : NULL;
}

/* Everything tracekit and llvm-xray can both say about a recorded trace
 * must agree: fdr-dump (FDR) line for line and -verify, convert -f yaml
 * as a multiset of records, info's counts. Returns tracekit's records. */
static void compare_real(const char *path, int fdr, xr_list *tk)
{
    size_t n;
    uint8_t *data = tu_read_file(path, &n);
    assert_non_null(data);
    char cmd[8192], *xr_dump = NULL;
    if (fdr) {
        snprintf(cmd, sizeof cmd, "'%s' fdr-dump '%s' 2>&1", TK_LLVM_XRAY, path);
        assert_int_equal(run_cmd(cmd, &xr_dump, NULL), 0);
        tk_status st;
        tk_error err;
        char *tk_dump = tk_dump_text(data, n, NULL, 0, &st, &err);
        assert_int_equal(st, TK_OK);
        assert_same_dump(xr_dump, tk_dump, path);
        const char *cli = tracekit_cli();
        if (cli) { /* the command prints what the library does */
            char *out;
            snprintf(cmd, sizeof cmd, "'%s' dump '%s'", cli, path);
            assert_int_equal(run_cmd(cmd, &out, NULL), 0);
            assert_string_equal(out, tk_dump);
            free(out);
        }
        free(tk_dump);
        snprintf(cmd, sizeof cmd, "'%s' fdr-dump -verify '%s'", TK_LLVM_XRAY, path);
        assert_int_equal(run_quiet(cmd), 0);
    }
    xr_list want = {0};
    unsigned version = 0;
    assert_int_equal(llvm_yaml_records(TK_LLVM_XRAY, path, &want, &version), 0);
    tk_error err;
    assert_int_equal(xr_read(data, n, tk, &err, NULL), 0);
    assert_int_equal(version, fdr ? 5 : 3);
    xr_list mine = {0}; /* a copy: the comparison sorts */
    for (size_t i = 0; i < tk->n; i++) {
        tk_xray_record v = xr_view(&tk->v[i]);
        xr_add(&mine, &v);
    }
    xr_assert_same_set(&want, &mine, path);
    /* info's counts */
    char *info = tk_info_json(data, n);
    assert_int_equal(json_u64(info, NULL, "records"), want.n);
    uint64_t kinds[6] = {0};
    for (size_t i = 0; i < want.n; i++)
        kinds[want.v[i].kind]++;
    static const char *const names[] = {"function_enter", "function_exit",
                                        "function_tail_exit", "function_enter_arg",
                                        "custom_event", "typed_event"};
    for (int k = 0; k < 6; k++) {
        char from[64];
        snprintf(from, sizeof from, "\"kind\":\"%s\"", names[k]);
        assert_int_equal(json_u64(info, from, "count"), kinds[k]);
    }
    if (fdr)
        assert_int_equal(json_u64(info, NULL, "blocks"), count_lines_with(xr_dump, "<Thread ID:"));
    free(info);
    free(xr_dump);
    xr_free(&mine);
    xr_free(&want);
    free(data);
}

typedef struct thread_stats {
    uint32_t tid;
    uint64_t n, by_kind[6], max_depth, final_depth;
    int k;           /* worker number, from its arguments (0: not a worker) */
    uint64_t arg_sum, args_ok;
    uint64_t events_ok;
} thread_stats;

/* Per-thread counts, call depth (exits must match the innermost open
 * call) and the worker's identity from its logged arguments. */
static size_t thread_stats_of(const xr_list *l, thread_stats *ts, size_t max)
{
    size_t nt = 0;
    for (size_t i = 0; i < l->n; i++) {
        const xr_rec *r = &l->v[i];
        size_t t = 0;
        while (t < nt && ts[t].tid != r->tid)
            t++;
        if (t == nt) {
            assert_true(nt < max);
            memset(&ts[nt], 0, sizeof ts[nt]);
            ts[nt++].tid = r->tid;
        }
        ts[t].n++;
        ts[t].by_kind[r->kind]++;
    }
    for (size_t t = 0; t < nt; t++) {
        int32_t stack[64];
        size_t depth = 0;
        for (size_t i = 0; i < l->n; i++) {
            const xr_rec *r = &l->v[i];
            if (r->tid != ts[t].tid)
                continue;
            if (r->kind == TK_XRAY_ENTER || r->kind == TK_XRAY_ENTER_ARG) {
                assert_true(depth < 64);
                stack[depth++] = r->func_id;
                if (depth > ts[t].max_depth)
                    ts[t].max_depth = depth;
            } else if (r->kind == TK_XRAY_EXIT || r->kind == TK_XRAY_TAIL_EXIT) {
                if (depth == 0 || stack[depth - 1] != r->func_id)
                    continue; /* exits of calls entered before patching */
                depth--;
            }
            if (r->kind == TK_XRAY_ENTER_ARG) {
                assert_int_equal(r->nargs, 1);
                if (r->args[0] < (uint64_t)INT64_MAX && r->args[0] >= 1000) {
                    int k = (int)(r->args[0] / 1000);
                    assert_true(ts[t].k == 0 || ts[t].k == k);
                    ts[t].k = k;
                    ts[t].arg_sum += r->args[0] % 1000;
                    ts[t].args_ok++;
                }
            }
            if (r->kind == TK_XRAY_CUSTOM_EVENT || r->kind == TK_XRAY_TYPED_EVENT) {
                char want[32];
                assert_true(r->data_len > 0 && r->data_len < sizeof want);
                assert_memory_equal(r->data, "ev_t", 4);
                ts[t].events_ok++;
                if (r->kind == TK_XRAY_TYPED_EVENT)
                    assert_int_equal(r->event_type, 40 + (r->data[4] - '0'));
                snprintf(want, sizeof want, "%.*s", (int)r->data_len, (const char *)r->data);
                int th, it;
                assert_int_equal(sscanf(want, "ev_t%d_i%d", &th, &it), 2);
                assert_int_equal(it % 4, 0);
            }
        }
        ts[t].final_depth = depth;
    }
    return nt;
}

static void test_real_basic(void **state)
{
    (void)state;
    if (real_setup() < 0)
        skip();
    xr_list tk = {0};
    compare_real(real.basic, 0, &tk);
    thread_stats ts[8];
    size_t nt = thread_stats_of(&tk, ts, 8);
    assert_int_equal(nt, 4); /* main + 3 workers */
    int workers = 0;
    for (size_t t = 0; t < nt; t++) {
        if (ts[t].k == 0) { /* main: rw_run, rw_tail2(3), rw_arg(-1) */
            assert_true(ts[t].n >= 10);
            assert_int_equal(ts[t].by_kind[TK_XRAY_ENTER_ARG], 1);
            continue;
        }
        workers |= 1 << ts[t].k;
        /* 60 iterations: mid 8, rec 2(i%6+1), tail2 6, arg 2; 15 events
         * (rw_event entry and exit; basic mode has no event records) */
        assert_int_equal(ts[t].n, 2 + 60 * 16 + 2 * 210 + 15 * 2);
        assert_int_equal(ts[t].by_kind[TK_XRAY_ENTER_ARG], 60);
        assert_int_equal(ts[t].args_ok, 60);
        assert_int_equal(ts[t].arg_sum, 59 * 60 / 2);
        assert_int_equal(ts[t].by_kind[TK_XRAY_TAIL_EXIT], 120);
        assert_int_equal(ts[t].by_kind[TK_XRAY_CUSTOM_EVENT], 0);
        assert_int_equal(ts[t].by_kind[TK_XRAY_ENTER] + ts[t].by_kind[TK_XRAY_ENTER_ARG],
                         ts[t].by_kind[TK_XRAY_EXIT] + ts[t].by_kind[TK_XRAY_TAIL_EXIT]);
        assert_int_equal(ts[t].max_depth, 7); /* worker + rw_rec(5) .. rw_rec(0) */
        assert_int_equal(ts[t].final_depth, 0);
    }
    assert_int_equal(workers, 2 | 4 | 8);
    xr_free(&tk);
}

static void test_real_fdr(void **state)
{
    (void)state;
    if (real_setup() < 0)
        skip();
    xr_list tk = {0};
    compare_real(real.fdr, 1, &tk);
    thread_stats ts[8];
    size_t nt = thread_stats_of(&tk, ts, 8);
    assert_int_equal(nt, 4);
    int workers = 0;
    for (size_t t = 0; t < nt; t++) {
        if (ts[t].k == 0) {
            assert_int_equal(ts[t].n, 10); /* rw_run, rw_tail2(3), rw_arg(-1) */
            continue;
        }
        workers |= 1 << ts[t].k;
        /* 150 iterations; 38 events (rw_event entry, exit, custom event) */
        assert_int_equal(ts[t].n, 2 + 150 * 16 + 2 * 525 + 38 * 3);
        assert_int_equal(ts[t].by_kind[TK_XRAY_ENTER_ARG], 150);
        assert_int_equal(ts[t].args_ok, 150);
        assert_int_equal(ts[t].arg_sum, 149 * 150 / 2);
        assert_int_equal(ts[t].by_kind[TK_XRAY_TAIL_EXIT], 300);
        assert_int_equal(ts[t].by_kind[TK_XRAY_CUSTOM_EVENT], 38);
        assert_int_equal(ts[t].events_ok, 38);
        assert_int_equal(ts[t].by_kind[TK_XRAY_ENTER] + ts[t].by_kind[TK_XRAY_ENTER_ARG],
                         ts[t].by_kind[TK_XRAY_EXIT] + ts[t].by_kind[TK_XRAY_TAIL_EXIT]);
        assert_int_equal(ts[t].max_depth, 7);
        assert_int_equal(ts[t].final_depth, 0);
    }
    assert_int_equal(workers, 2 | 4 | 8);
    /* 4 KiB buffers: every worker fills several blocks */
    size_t n;
    uint8_t *data = tu_read_file(real.fdr, &n);
    xr_raw raw = {0};
    tk_error err;
    assert_int_equal(xr_read_raw(data, n, &raw, &err), 0);
    for (size_t t = 0; t < nt; t++) {
        size_t blocks = 0;
        for (size_t i = 0; i < raw.n; i++)
            blocks += raw.v[i].kind == TK_XRAY_FDR_NEW_BUFFER && (uint32_t)raw.v[i].tid == ts[t].tid;
        if (ts[t].k)
            assert_true(blocks >= 4);
    }
    xr_raw_free(&raw);
    free(data);
    xr_free(&tk);
}

static void test_real_fdr_typed(void **state)
{
    (void)state;
    if (real_setup() < 0)
        skip();
    xr_list tk = {0};
    compare_real(real.typed, 1, &tk);
    thread_stats ts[2];
    assert_int_equal(thread_stats_of(&tk, ts, 2), 1);
    /* rw_run 2, rw_tail2 6, rw_arg 2, worker 2, 24 iterations (16 each +
     * rw_rec's 2 * 84), 6 rw_event calls (entry, exit, custom, typed), 64
     * rw_leaf calls — minus the last 96 bytes: the LLVM 14 runtime leaves
     * 16 bytes per typed event out of the buffer's extents and writes only
     * what the extents count. Those are 12 function records (rw_run's
     * exit, the last rw_leaf's, 5 whole rw_leaf calls) unless the thread
     * migrated near the end and a 16-byte NewCPUId is among them. */
    size_t n;
    uint8_t *data = tu_read_file(real.typed, &n);
    xr_raw raw = {0};
    tk_error err;
    assert_int_equal(xr_read_raw(data, n, &raw, &err), 0);
    size_t cpus = 0;
    for (size_t i = 0; i < raw.n; i++)
        cpus += raw.v[i].kind == TK_XRAY_FDR_NEW_CPU;
    xr_raw_free(&raw);
    free(data);
    const uint64_t all = 2 + 6 + 2 + 2 + 24 * 16 + 2 * 84 + 6 * 4 + 128;
    if (cpus == 1) {
        assert_int_equal(ts[0].n, all - 12);
        assert_int_equal(ts[0].final_depth, 2);
    } else {
        assert_true(ts[0].n >= all - 12 && ts[0].n <= all - 10);
    }
    assert_int_equal(ts[0].by_kind[TK_XRAY_CUSTOM_EVENT], 6);
    assert_int_equal(ts[0].by_kind[TK_XRAY_TYPED_EVENT], 6);
    assert_int_equal(ts[0].events_ok, 12);
    assert_int_equal(ts[0].by_kind[TK_XRAY_ENTER_ARG], 25);
    xr_free(&tk);
}

/* The FDR logical reader holds each record until the next one shows it
 * has no more call arguments; when that next record is malformed, the
 * complete record before it still comes out first, then the error (as in
 * basic mode, which looks ahead). */
static void test_fdr_pending_before_error(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++)
        check_bad(&bad_cases[i], 1);
}

/* `tracekit dump` of a v1–v3 custom event prints the bytes the record
 * holds ("cpu = 0"), as llvm-xray fdr-dump does, not the block's CPU (5);
 * the logical record keeps the block's CPU, as documented. */
static void test_dump_v3_custom_event_cpu(void **state)
{
    (void)state;
    tu_buf b = {0};
    xb_header(&b, 3, TK_XRAY_FDR, 1000, 4096);
    xb_extents(&b, 91);
    xb_newbuf(&b, 5);
    xb_wall(&b, 1, 1);
    xb_pid(&b, 2);
    xb_cpu(&b, 5, 100);
    xb_fn(&b, 0, 1, 1);
    xb_custom_abs(&b, 3, 200, 0, "abc", 3);
    tk_status st;
    tk_error err;
    char *text = tk_dump_text(b.p, b.len, NULL, 0, &st, &err);
    assert_int_equal(st, TK_OK);
    assert_string_equal(text, "<Buffer: size = 91 bytes>\n"
                              "<Thread ID: 5>\n"
                              "<Wall Time: seconds = 1.000001>\n"
                              "<PID: 2>\n"
                              "<CPU: id = 5, tsc = 100>\n"
                              "<Function Enter: #1 delta = +1>\n"
                              "<Custom Event: tsc = 200, cpu = 0, size = 3, data = 'abc'>\n");
    free(text);
    tu_buf_free(&b);
}

/* A BufferExtents whose size makes the buffer end wrap around 2^64 is an
 * error naming that record (0, at offset 0x20) — including a size that
 * wraps to exactly its own offset. */
static void test_extents_overflow(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {0xFFFFFFFFFFFFFFE0ULL, 0xFFFFFFFFFFFFFFF0ULL};
    for (int i = 0; i < 2; i++) {
        tu_buf b = {0};
        xb_header(&b, 5, TK_XRAY_FDR, 1000, 4096);
        xb_extents(&b, sizes[i]);
        xr_raw raw = {0};
        tk_error err;
        assert_int_equal(xr_read_raw(b.p, b.len, &raw, &err), -1);
        char want[100];
        snprintf(want, sizeof want, "buffer extents of %" PRIu64 " bytes overflow", sizes[i]);
        assert_string_equal(err.message, want);
        assert_int_equal(err.offset, 0x20);
        assert_int_equal(err.record, 0);
        assert_int_equal(raw.n, 0);
        xr_raw_free(&raw);
        tu_buf_free(&b);
    }
}

/* A Pid record in a v1 or v2 block does not set a pid: tracekit
 * documents pid 0 below FDR v3. */
static void test_pid_below_v3(void **state)
{
    (void)state;
    for (unsigned v = 1; v <= 2; v++) {
        tu_buf b = {0};
        size_t at = open5(&b, v); /* NewBuffer, WallClockTime, NewCPUId */
        b.len -= 16;              /* drop the NewCPUId ... */
        xb_pid(&b, 22);           /* ... to put a Pid before it */
        xb_cpu(&b, 0, 100);
        xb_fn(&b, 0, 1, 1);
        if (v == 2)
            close5(&b, at);
        xr_list got = {0};
        tk_error err;
        int rc = xr_read(b.p, b.len, &got, &err, NULL);
        if (rc == 0) {
            assert_int_equal(got.n, 1);
            assert_int_equal(got.v[0].pid, 0);
        }
        xr_free(&got);
        tu_buf_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_versions),
        cmocka_unit_test(test_empty_traces),
        cmocka_unit_test(test_fdr_versions),
        cmocka_unit_test(test_typed_event_v3),
        cmocka_unit_test(test_garbage_between_buffers),
        cmocka_unit_test(test_v1_padding),
        cmocka_unit_test(test_malformed_cases),
        cmocka_unit_test(test_sweep_basic),
        cmocka_unit_test(test_sweep_fdr),
        cmocka_unit_test(test_real_basic),
        cmocka_unit_test(test_real_fdr),
        cmocka_unit_test(test_real_fdr_typed),
        cmocka_unit_test(test_fdr_pending_before_error),
        cmocka_unit_test(test_dump_v3_custom_event_cpu),
        cmocka_unit_test(test_extents_overflow),
        cmocka_unit_test(test_pid_below_v3),
    };
    return cmocka_run_group_tests(tests, NULL, real_teardown);
}
