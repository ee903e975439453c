/* The spec's op layout: the frame body check (scan), op decoding, sizes,
 * comparison and names. The scan is the only place that judges a body;
 * decoding trusts what it accepted, so dump and validate agree exactly. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/bytes.h"
#include "core/cpu.h"
#include "ucir/ucir_int.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SCAN_AVX2 1
#endif

static const char *const spec_names[UCIR_SPEC_OPS] = {
    "OP_NOP", "OP_FRAME", "OP_EXEC_ABS", "OP_EXEC_REL", "OP_REG_CHANGE", "OP_SPREG_CHANGE",
    "OP_MEM_READ", "OP_MEM_WRITE", "OP_MEM_MAP", "OP_MEM_UNMAP", "OP_SYSCALL", "OP_EXIT"};

const char *ucir_spec_op_name(unsigned id)
{
    return id < UCIR_SPEC_OPS ? spec_names[id] : NULL;
}

/* Fixed bytes of each spec op (0: not valid inside a frame). Variable
 * parts: SPREG +len, MEM_READ/WRITE +size, SYSCALL +8*argc + nested ops. */
static const uint8_t fixed_len[256] = {
    [0] = 1, [2] = 13, [3] = 5, [4] = 11, [5] = 5, [6] = 17,
    [7] = 17, [8] = 14, [9] = 13, [10] = 15, [11] = 1,
};

#if defined(__GNUC__)
#define COLD __attribute__((cold, noinline))
#else
#define COLD
#endif

COLD static int fail(ucir_scan *s, uint64_t pos, uint64_t records, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->message, sizeof s->message, fmt, ap);
    va_end(ap);
    s->failed = 1;
    s->err_pos = pos;
    s->records = records;
    return -1;
}

COLD static int bad_op(ucir_scan *s, const uint8_t *p, size_t avail, uint64_t pos,
                       uint64_t records, int nested)
{
    unsigned id = p[0];
    if (id == 1)
        return fail(s, pos, records, "OP_FRAME inside a frame (frames do not nest)");
    if (id == 10 && nested)
        return fail(s, pos, records, "OP_SYSCALL inside a syscall");
    if (id >= UCIR_SPEC_OPS)
        return fail(s, pos, records, "unknown op 0x%02x", id);
    size_t need = fixed_len[id];
    if (need > avail)
        return fail(s, pos, records, "truncated %s: needs %zu bytes, %zu left in the frame",
                    spec_names[id], need, avail);
    if (id == 5)
        return fail(s, pos, records, "truncated OP_SPREG_CHANGE: needs 5 + %u bytes, %zu left in the frame",
                    (unsigned)tk_ld16(p + 3, 1), avail);
    if (id == 6 || id == 7)
        return fail(s, pos, records, "truncated %s: needs 17 + %llu bytes, %zu left in the frame",
                    spec_names[id], (unsigned long long)tk_ld64(p + 9, 1), avail);
    return fail(s, pos, records, "truncated OP_SYSCALL: needs 15 + 8 * %u bytes of arguments, %zu left in the frame",
                (unsigned)tk_ld16(p + 11, 1), avail);
}

/* Length of the non-SYSCALL op at p, or 0 when it does not fit / is not
 * allowed (the caller reports through bad_op). */
static inline size_t simple_len(const uint8_t *p, size_t avail)
{
    unsigned id = p[0];
    size_t need = fixed_len[id];
    if (need == 0 || need > avail || id == 10)
        return 0;
    if (id == 5) {
        need += tk_ld16(p + 3, 1);
    } else if (id == 6 || id == 7) {
        uint64_t sz = tk_ld64(p + 9, 1);
        if (sz > avail - 17) /* also catches 17 + sz overflowing */
            return 0;
        need += (size_t)sz;
    }
    return need <= avail ? need : 0;
}

/* Per op id: 5-bit lengths of ids 0..11, and the ids that take the slow
 * path. */
#define PACKED_LEN                                                           \
    (1ull | 0ull << 5 | 13ull << 10 | 5ull << 15 | 11ull << 20 | 5ull << 25 | \
     17ull << 30 | 17ull << 35 | 14ull << 40 | 13ull << 45 | 15ull << 50 | 1ull << 55)
#define SLOW_IDS ((1u << 1) | (1u << 5) | (1u << 10))

/* The SYSCALL at d + pos and its nested ops: returns the offset after
 * them, or SIZE_MAX with s filled (s also notes a first EXEC op). */
COLD static size_t scan_syscall(const uint8_t *d, size_t n, size_t pos, uint64_t recs, ucir_scan *s)
{
    const uint8_t *p = d + pos;
    if (n - pos < 15)
        return bad_op(s, p, n - pos, pos, recs, 0), SIZE_MAX;
    uint64_t argc = tk_ld16(p + 11, 1);
    uint32_t nested = tk_ld16(p + 13, 1);
    if (15 + 8 * argc > n - pos)
        return bad_op(s, p, n - pos, pos, recs, 0), SIZE_MAX;
    size_t at = pos + 15 + 8 * (size_t)argc;
    uint64_t r = recs + 1;
    for (uint32_t k = 0; k < nested; k++) {
        if (at >= n)
            return fail(s, at, r, "frame ends inside OP_SYSCALL after %u of its %u nested ops", k,
                        nested), SIZE_MAX;
        p = d + at;
        if (!s->first_exec && (p[0] == 2 || p[0] == 3)) {
            s->first_exec = p[0];
            s->first_exec_record = r;
        }
        size_t len = simple_len(p, n - at);
        if (!len)
            return bad_op(s, p, n - at, at, r, 1), SIZE_MAX;
        at += len;
        r++;
    }
    return at;
}

#ifdef SCAN_AVX2
/* The scan's fast path (x86-64 with AVX2), for the bulk of a frame. The
 * plain loop below is one dependency chain through `pos` of about ten
 * cycles an op: load the id, derive the length, add. Here the length of
 * the op that would start at each byte of a block is worked out before,
 * 32 offsets at a time and off that chain, so the chain is only a load of
 * that length and an add (about half the cycles). The next block's lengths
 * are computed a chunk per step of the chase, where that work hides in
 * the chase's latency. A length of 0 means "ask simple_len or
 * scan_syscall": OP_FRAME, SPREG, SYSCALL, unknown ids and memory ops
 * larger than 238 bytes, so every length from the table is at most 255
 * and fits (blocks end FAST_TAIL bytes before the end). Errors and the
 * frame's end are left to the plain loop. */
#define FAST_BLOCK 1024
#define FAST_TAIL 256
#define AVX2 __attribute__((target("avx2")))

/* Lengths of the ops that would start at q[0..31] (reads q[0..47]). */
AVX2 static inline __m256i fast_lens(const uint8_t *q)
{
    const __m256i len_of_id = _mm256_setr_epi8(1, 0, 13, 5, 11, 0, 0, 0, 14, 13, 0, 1, 0, 0, 0, 0,
                                               1, 0, 13, 5, 11, 0, 0, 0, 14, 13, 0, 1, 0, 0, 0, 0);
#define AT(k) _mm256_loadu_si256((const __m256i *)(q + (k)))
    __m256i id = AT(0);
    /* ids 16..127 are cut here, ids past 127 by the shuffle itself */
    __m256i len = _mm256_andnot_si256(_mm256_cmpgt_epi8(id, _mm256_set1_epi8(15)),
                                      _mm256_shuffle_epi8(len_of_id, id));
    __m256i mem = _mm256_cmpeq_epi8(_mm256_or_si256(id, _mm256_set1_epi8(1)), _mm256_set1_epi8(7));
    /* MEM_READ / MEM_WRITE: the size (u64 at +9) is its last byte, <= 238 */
    __m256i high = _mm256_or_si256(_mm256_or_si256(_mm256_or_si256(AT(9), AT(10)),
                                                   _mm256_or_si256(AT(11), AT(12))),
                                   _mm256_or_si256(_mm256_or_si256(AT(13), AT(14)), AT(15)));
    __m256i size = AT(16);
#undef AT
    mem = _mm256_and_si256(mem, _mm256_cmpeq_epi8(high, _mm256_setzero_si256()));
    mem = _mm256_and_si256(mem, _mm256_cmpeq_epi8(_mm256_min_epu8(size, _mm256_set1_epi8((char)238)), size));
    return _mm256_or_si256(len, _mm256_and_si256(mem, _mm256_add_epi8(size, _mm256_set1_epi8(17))));
}

/* Top-level ops from *pos up to the first bad one, near the end or the
 * `room`-th: returns their number (SIZE_MAX, s filled, for a bad SYSCALL),
 * *pos after them, their records added to *recs. Needs n - *pos >=
 * FAST_BLOCK + FAST_TAIL and the frame's first EXEC known. */
AVX2 static size_t scan_fast(const uint8_t *d, size_t n, size_t *pos, uint64_t *recs, size_t room,
                             ucir_scan *s)
{
    uint64_t nested = 0;
    /* two blocks in turn; the third row is room for lp to step past the
     * second (a step is below FAST_BLOCK: longer ones return) */
    _Alignas(32) uint8_t lens[3][FAST_BLOCK];
    size_t base = *pos, k = 0, blk = 0;
    const size_t last = n - FAST_BLOCK - FAST_TAIL; /* the last block's start */
    for (int c = 0; c < FAST_BLOCK; c += 32)
        _mm256_store_si256((__m256i *)(lens[0] + c), fast_lens(d + base + c));
    const uint8_t *lp = lens[0]; /* lens of the block at base, at pos */
    for (;;) {
        const uint8_t *cur = lens[blk & 1], *end = cur + FAST_BLOCK;
        uint8_t *next = lens[(blk + 1) & 1];
        const uint8_t *src = d + base + FAST_BLOCK;
        int more = base + FAST_BLOCK <= last;
        int c = more ? 0 : FAST_BLOCK; /* bytes of the next block done */
        while (lp < end && k < room) {
            size_t len = *lp;
            if (__builtin_expect(!len, 0)) {
                size_t at = base + (size_t)(lp - cur);
                len = simple_len(d + at, n - at);
                if (!len) {
                    if (d[at] != 10)
                        goto out;
                    size_t to = scan_syscall(d, n, at, *recs + k + nested, s);
                    if (to == SIZE_MAX)
                        return SIZE_MAX;
                    nested += tk_ld16(d + at + 13, 1);
                    len = to - at;
                }
                if (len >= FAST_BLOCK) {
                    *pos = at + len;
                    *recs += k + 1 + nested;
                    return k + 1;
                }
            }
            lp += len;
            k++;
            if (c < FAST_BLOCK) {
                _mm256_store_si256((__m256i *)(next + c), fast_lens(src + c));
                c += 32;
            }
        }
        if (!more || k >= room)
            goto out;
        for (; c < FAST_BLOCK; c += 32)
            _mm256_store_si256((__m256i *)(next + c), fast_lens(src + c));
        lp = next + (lp - end);
        base += FAST_BLOCK;
        blk++;
    }
out:
    *pos = base + (size_t)(lp - lens[blk & 1]);
    *recs += k + nested;
    return k;
}
#endif

/* The hot loop is one dependency chain through `pos` (an op's length
 * depends on its id, loaded at pos): lengths and classes come from
 * constants shifted in registers rather than from tables, the size of a
 * memory op is added through a mask rather than a branch (the body has
 * UCIR_SLACK readable bytes past its end for that load), and ids past 11
 * (whose shifts give garbage) go to the slow path with everything else
 * rare. With AVX2, scan_fast above takes the bulk of a frame once its
 * first EXEC is known; this loop does the rest and reports the errors
 * (but a bad SYSCALL's, from the same scan_syscall there). */
int ucir_scan_spec(const uint8_t *d, size_t n, uint32_t op_count, ucir_scan *s)
{
    size_t pos = 0;
    uint64_t recs = 0;
    uint32_t ops = 0;
    int first = 0;
    s->failed = 0;
    s->first_exec = 0;
    s->first_exec_record = 0;
    s->message[0] = '\0';
    while (pos < n) {
        if (__builtin_expect(ops == op_count, 0))
            return fail(s, pos, recs, "frame data goes on after its %u ops (op_count)", op_count);
#ifdef SCAN_AVX2
        if (first && n - pos >= FAST_BLOCK + FAST_TAIL && tk_cpu_avx2()) {
            size_t k = scan_fast(d, n, &pos, &recs, op_count - ops, s);
            if (k == SIZE_MAX)
                return -1;
            ops += (uint32_t)k;
            if (pos >= n || ops == op_count)
                continue;
        }
#endif
        const uint8_t *p = d + pos;
        unsigned id = p[0];
        if (__builtin_expect(!first, 0) && (id == 2 || id == 3)) {
            first = s->first_exec = (int)id;
            s->first_exec_record = recs;
        }
        size_t need = (size_t)(PACKED_LEN >> ((5 * id) & 63)) & 31, left = n - pos;
        uint64_t raw = tk_ld64(p + 9, 1);
        uint64_t sz = raw & (0 - (uint64_t)(id - 6u < 2u)); /* MEM_READ, MEM_WRITE */
        if (__builtin_expect((id > 11) | ((SLOW_IDS >> (id & 31)) & 1) | (need > left) |
                                 (sz > left - need), 0)) {
            if (id == 10) {
                size_t at = scan_syscall(d, n, pos, recs, s);
                if (at == SIZE_MAX)
                    return -1;
                recs += 1 + tk_ld16(p + 13, 1);
                first = s->first_exec;
                pos = at;
                ops++;
                continue;
            }
            size_t len = simple_len(p, left);
            if (!len)
                return bad_op(s, p, left, pos, recs, 0);
            need = len; /* a SPREG */
            sz = 0;
        }
        pos += need + (size_t)sz;
        recs++;
        ops++;
    }
    if (ops < op_count)
        return fail(s, pos, recs, "frame ends after %u of its %u ops (op_count)", ops, op_count);
    s->records = recs;
    s->err_pos = n;
    return 0;
}

size_t ucir_decode_spec(const uint8_t *p, tk_ucir_op *op, uint64_t *args)
{
    memset(op, 0, sizeof *op);
    op->kind = (tk_ucir_kind)p[0];
    switch (p[0]) {
    case 2:
        op->addr = tk_ld64(p + 1, 1);
        op->size = tk_ld32(p + 9, 1);
        return 13;
    case 3:
        op->size = tk_ld32(p + 1, 1);
        return 5;
    case 4:
        op->reg = tk_ld16(p + 1, 1);
        op->value = tk_ld64(p + 3, 1);
        return 11;
    case 5:
        op->reg = tk_ld16(p + 1, 1);
        op->len = tk_ld16(p + 3, 1);
        op->data = p + 5;
        return 5 + (size_t)op->len;
    case 6:
    case 7:
        op->addr = tk_ld64(p + 1, 1);
        op->size = op->len = tk_ld64(p + 9, 1);
        op->data = p + 17;
        return 17 + (size_t)op->len;
    case 8:
        op->addr = tk_ld64(p + 1, 1);
        op->size = tk_ld32(p + 9, 1);
        op->prot = p[13];
        return 14;
    case 9:
        op->addr = tk_ld64(p + 1, 1);
        op->size = tk_ld32(p + 9, 1);
        return 13;
    case 10:
        op->num = tk_ld16(p + 1, 1);
        op->ret = tk_ld64(p + 3, 1);
        op->argc = tk_ld16(p + 11, 1);
        op->op_count = tk_ld16(p + 13, 1);
        for (uint32_t i = 0; i < op->argc; i++)
            args[i] = tk_ld64(p + 15 + 8 * (size_t)i, 1);
        op->args = args;
        return 15 + 8 * (size_t)op->argc;
    default: /* NOP, EXIT */
        return 1;
    }
}

uint64_t tk_ucir_op_size(const tk_ucir_op *op)
{
    switch (op->kind) {
    case TK_UCIR_NOP:
    case TK_UCIR_EXIT: return 1;
    case TK_UCIR_FRAME: return UCIR_FRAME_HEADER;
    case TK_UCIR_EXEC_ABS: return 13;
    case TK_UCIR_EXEC_REL: return 5;
    case TK_UCIR_REG_CHANGE: return 11;
    case TK_UCIR_SPREG_CHANGE: return 5 + op->len;
    case TK_UCIR_MEM_READ:
    case TK_UCIR_MEM_WRITE: return op->size > UINT64_MAX - 17 ? 0 : 17 + op->size;
    case TK_UCIR_MEM_MAP: return 14;
    case TK_UCIR_MEM_UNMAP: return 13;
    case TK_UCIR_SYSCALL: return 15 + 8 * (uint64_t)op->argc;
    default: return 0;
    }
}

static int bytes_equal(const uint8_t *a, const uint8_t *b, uint64_t n)
{
    return n == 0 || memcmp(a, b, (size_t)n) == 0;
}

int tk_ucir_op_equal(const tk_ucir_op *a, const tk_ucir_op *b)
{
    if (a->kind != b->kind || a->depth != b->depth)
        return 0;
    switch (a->kind) {
    case TK_UCIR_FRAME:
        return !a->keyframe == !b->keyframe && a->op_count == b->op_count && a->pid == b->pid;
    case TK_UCIR_EXEC_ABS:
    case TK_UCIR_JMP:
        return a->addr == b->addr && a->size == b->size;
    case TK_UCIR_EXEC_REL:
    case TK_UCIR_STEP:
        return a->size == b->size;
    case TK_UCIR_REG_CHANGE:
        return a->reg == b->reg && a->value == b->value;
    case TK_UCIR_SPREG_CHANGE:
        return a->reg == b->reg && a->len == b->len && bytes_equal(a->data, b->data, a->len);
    case TK_UCIR_MEM_READ:
    case TK_UCIR_MEM_WRITE:
        return a->addr == b->addr && a->size == b->size && a->len == b->len &&
               bytes_equal(a->data, b->data, a->len);
    case TK_UCIR_MEM_MAP:
        return a->addr == b->addr && a->size == b->size && a->prot == b->prot &&
               a->map_off == b->map_off && a->map_len == b->map_len &&
               a->desc_len == b->desc_len && a->path_len == b->path_len &&
               bytes_equal((const uint8_t *)a->desc, (const uint8_t *)b->desc, a->desc_len) &&
               bytes_equal((const uint8_t *)a->path, (const uint8_t *)b->path, a->path_len);
    case TK_UCIR_MEM_UNMAP:
        return a->addr == b->addr && a->size == b->size;
    case TK_UCIR_MEM_PROT:
        return a->addr == b->addr && a->size == b->size && a->prot == b->prot;
    case TK_UCIR_SYSCALL:
        if (a->num != b->num || a->ret != b->ret || a->argc != b->argc ||
            a->op_count != b->op_count)
            return 0;
        for (uint32_t i = 0; i < a->argc; i++)
            if (a->args[i] != b->args[i])
                return 0;
        return 1;
    default:
        return 1;
    }
}

static const char *const kind_names[TK_UCIR_KIND_COUNT] = {
    "nop", "frame", "exec_abs", "exec_rel", "reg_change", "spreg_change", "mem_read",
    "mem_write", "mem_map", "mem_unmap", "syscall", "exit", "jmp", "step", "mem_prot"};

const char *tk_ucir_kind_name(tk_ucir_kind k)
{
    return (unsigned)k < TK_UCIR_KIND_COUNT ? kind_names[k] : "?";
}
