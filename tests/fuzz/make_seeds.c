/* Generate the committed seed corpora of the fuzz targets.
 *
 *   make_seeds DIR           write DIR/<format>/<seed> for every seed
 *   make_seeds --check DIR   exit 1 if a seed in DIR differs from what this
 *                            program generates (extra files are fine: crash
 *                            reproducers may be added by hand)
 *
 * Standalone on purpose (no libtracekit): the bytes are encoded here from
 * the format description, so the seeds do not inherit a writer bug.
 * tests/fuzz/make_seeds.sh builds and runs it; ctest runs --check.
 *
 * Adding a format: write a seeds_<format>() below and add it to `formats`. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------ plumbing */

typedef struct buf {
    uint8_t *p;
    size_t len, cap;
} buf;

static const char *root, *subdir;
static int checking, failures, written;

static void put(buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *np = realloc(b->p, cap);
        if (!np) {
            fprintf(stderr, "make_seeds: out of memory\n");
            exit(2);
        }
        b->p = np;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
}

static int big; /* byte order of the integers put next */

static void u8(buf *b, unsigned v)
{
    uint8_t x = (uint8_t)v;
    put(b, &x, 1);
}

static void uint_n(buf *b, uint64_t v, int bytes)
{
    uint8_t x[8];
    for (int i = 0; i < bytes; i++)
        x[big ? bytes - 1 - i : i] = (uint8_t)(v >> (8 * i));
    put(b, x, (size_t)bytes);
}

static void u32(buf *b, uint32_t v) { uint_n(b, v, 4); }

/* Overwrite a u32 already put at `at`. */
static void patch32(buf *b, size_t at, uint32_t v)
{
    size_t len = b->len;
    b->len = at;
    u32(b, v);
    b->len = len;
}
static void u64(buf *b, uint64_t v) { uint_n(b, v, 8); }

/* Write (or compare) one seed and reset the buffer. */
static void emit(const char *name, buf *b)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s", root, subdir, name);
    if (checking) {
        FILE *f = fopen(path, "rb");
        int same = 0;
        if (f) {
            uint8_t *old = malloc(b->len + 1);
            size_t n = old ? fread(old, 1, b->len + 1, f) : 0;
            same = old && n == b->len && (n == 0 || memcmp(old, b->p, n) == 0);
            free(old);
            fclose(f);
        }
        if (!same) {
            fprintf(stderr, "make_seeds: %s is %s (run tests/fuzz/make_seeds.sh)\n", path,
                    f ? "out of date" : "missing");
            failures++;
        }
    } else {
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f) != 0) {
            fprintf(stderr, "make_seeds: %s: %s\n", path, strerror(errno));
            exit(2);
        }
    }
    written++;
    b->len = 0;
}

/* xorshift64*: reproducible pseudo-random seeds */
static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1DULL;
}

/* ------------------------------------------------------------ cacheray */

enum { CR_READ, CR_WRITE, CR_ADD, CR_REMOVE, CR_ATOMIC = 0x40, CR_UNALIGNED = 0x80 };

static void cr_access(buf *b, unsigned tag, uint64_t addr, unsigned size, uint64_t thread)
{
    u8(b, tag);
    u64(b, addr);
    u8(b, size);
    u64(b, thread);
}

static void cr_add_n(buf *b, uint64_t addr, uint64_t thread, uint32_t elemsize,
                     uint32_t elemcount, const char *name, size_t len)
{
    u8(b, CR_ADD);
    u64(b, addr);
    u64(b, thread);
    u32(b, elemsize);
    u32(b, elemcount);
    u32(b, (uint32_t)len);
    put(b, name, len);
}

static void cr_add(buf *b, uint64_t addr, uint64_t thread, uint32_t elemsize,
                   uint32_t elemcount, const char *name)
{
    cr_add_n(b, addr, thread, elemsize, elemcount, name, strlen(name));
}

static void cr_remove(buf *b, uint64_t addr, uint64_t thread)
{
    u8(b, CR_REMOVE);
    u64(b, addr);
    u64(b, thread);
}

#define HEAP 0x5555555a0000ULL

/* Every tag and flag combination, all four record types. */
static void cr_every_type(buf *b)
{
    static const unsigned tags[] = {0x00, 0x01, 0x40, 0x41, 0x80, 0x81, 0xC0, 0xC1};
    static const unsigned sizes[] = {1, 2, 4, 8, 16, 32, 64, 255};
    cr_add(b, HEAP, 1001, 24, 16, "struct.node");
    for (unsigned i = 0; i < 8; i++)
        cr_access(b, tags[i], HEAP + 8 * i + (tags[i] & CR_UNALIGNED ? 1 : 0), sizes[i],
                  1001 + (i & 1));
    cr_add(b, HEAP + 0x1000, 1002, 8, 100, "double");
    cr_access(b, CR_WRITE | CR_ATOMIC, HEAP + 0x1008, 8, 1002);
    cr_remove(b, HEAP, 1001);
    cr_remove(b, HEAP + 0x1000, 1002);
}

/* One record of every warning kind (zero-size, remove-unknown, overlap,
 * empty-region, region-wraps), and an add overlapping more live regions
 * than a caller's warning array holds. */
static void cr_warnings(buf *b)
{
    cr_access(b, CR_READ, HEAP, 0, 1);
    cr_access(b, CR_WRITE | CR_ATOMIC, HEAP, 0, 1);
    cr_remove(b, HEAP + 0x40, 1);
    cr_add(b, HEAP, 1, 16, 4, "a");
    cr_add(b, HEAP + 0x20, 1, 16, 4, "b");       /* overlaps a */
    cr_add(b, HEAP + 0x100, 1, 0, 10, "empty");  /* elemsize 0 */
    cr_add(b, HEAP + 0x200, 1, 10, 0, "empty");  /* elemcount 0 */
    cr_add(b, HEAP + 0x200, 1, 10, 0, "empty");  /* same start again */
    cr_add(b, UINT64_MAX - 7, 1, 16, 1, "wraps");
    cr_add(b, UINT64_MAX - 7, 1, 0, 0, "wraps-and-empty");
    for (unsigned i = 0; i < 8; i++)
        cr_add(b, HEAP + 0x10000 + 0x100 * i, 2, 8, 4, "small");
    cr_add(b, HEAP + 0x10000, 2, 0x100, 8, "big"); /* ends all 8 */
    cr_add(b, 0, 3, 0xFFFFFFFF, 0xFFFFFFFF, "huge");
    cr_remove(b, 0, 3);
    cr_remove(b, 0, 3);
    cr_remove(b, HEAP + 0x10000, 2);
}

/* Type names the sinks must escape or pass through. */
static void cr_names(buf *b)
{
    static const char *const names[] = {
        "", " ", "with space", "key=value", "\"quoted\"", "back\\slash", "tab\there",
        "new\nline", "\x01\x1f\x7f", "caf\xc3\xa9", "\xe2\x82\xac euro",
        "\xf0\x9f\x98\x80 emoji", "\xc0\x80 overlong", "\xed\xa0\x80 surrogate",
        "\xff\xfe bad", "cut \xe2\x82", "\xf4\x90\x80\x80 too high", "{\"json\":1}",
        "</script>", "%s%n%d",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        cr_add(b, HEAP + 0x100 * i, 7, 4, 2, names[i]);
    char nul[] = {'a', '\0', 'b'};
    cr_add_n(b, HEAP + 0x8000, 7, 1, 3, nul, sizeof nul);
    char longname[300];
    for (size_t i = 0; i < sizeof longname; i++)
        longname[i] = (char)('a' + i % 26);
    cr_add_n(b, HEAP + 0x9000, 7, 1, 1, longname, sizeof longname);
}

/* More threads than info lists, more type names than fit one screen. */
static void cr_many(buf *b)
{
    for (unsigned t = 0; t < 70; t++)
        cr_access(b, t & 1, HEAP + 8 * t, 8, 100 + (t * 7919u) % 1000);
    for (unsigned i = 0; i < 40; i++) {
        char name[32];
        snprintf(name, sizeof name, "type%02u", (i * 17u) % 40);
        cr_add(b, HEAP + 0x100000 + 0x1000 * i, 1, 4, 4, name);
    }
}

/* A generator-like mix: threads walking typed arrays. */
static void cr_mix(buf *b, size_t bytes)
{
    static const char *const types[] = {"struct.node", "i32", "double", "void*"};
    static const uint32_t tsize[] = {24, 4, 8, 8};
    uint64_t base[4] = {0}, next = HEAP;
    uint32_t count[4] = {0}, esz[4] = {0};
    while (b->len < bytes) {
        unsigned t = (unsigned)(rnd() % 4);
        uint64_t r = rnd();
        if (!count[t] || r % 64 == 0) {
            if (count[t]) {
                cr_remove(b, base[t], 2000 + t);
                count[t] = 0;
                continue;
            }
            unsigned ty = (unsigned)(rnd() % 4);
            esz[t] = tsize[ty];
            count[t] = 4 + (uint32_t)(rnd() % 64);
            base[t] = next;
            next += ((uint64_t)esz[t] * count[t] + 63) & ~63ULL;
            cr_add(b, base[t], 2000 + t, esz[t], count[t], types[ty]);
        } else {
            unsigned tag = (r & 3) ? CR_READ : CR_WRITE;
            if ((r >> 8) % 16 == 0)
                tag |= CR_ATOMIC;
            uint64_t addr = base[t] + ((r >> 16) % count[t]) * esz[t];
            if ((r >> 12) % 32 == 0) {
                tag |= CR_UNALIGNED;
                addr++;
            }
            cr_access(b, tag, addr, esz[t] < 8 ? esz[t] : 8, 2000 + t);
        }
    }
}

/* Valid traces written in the current byte order, prefixed "le-"/"be-". */
static void cr_valid(buf *b)
{
    char name[64];
    const char *o = big ? "be" : "le";
    rng = 0x2545F4914F6CDD1DULL; /* the same records in both orders */
#define SEED(fmt, ...)                                                       \
    do {                                                                     \
        snprintf(name, sizeof name, "%s-" fmt, o, __VA_ARGS__);              \
        emit(name, b);                                                       \
    } while (0)
    cr_access(b, CR_READ, HEAP, 8, 1);
    SEED("%s", "one-read");
    cr_access(b, CR_WRITE | CR_ATOMIC | CR_UNALIGNED, HEAP + 1, 4, 1);
    SEED("%s", "one-write-flags");
    cr_add(b, HEAP, 1, 24, 10, "struct.node");
    SEED("%s", "one-rtta-add");
    cr_add(b, HEAP, 1, 24, 10, "");
    SEED("%s", "rtta-add-empty-name");
    cr_remove(b, HEAP, 1);
    SEED("%s", "one-rtta-remove");
    cr_every_type(b);
    SEED("%s", "every-type");
    cr_warnings(b);
    SEED("%s", "warnings");
    cr_names(b);
    SEED("%s", "names");
    cr_many(b);
    SEED("%s", "many-threads-types");
    cr_mix(b, 6000);
    SEED("%s", "mix-6k");
    /* odd values: kernel-half, non-canonical and extreme fields */
    cr_access(b, CR_READ, 0xFFFF800000001000ULL, 8, 0);
    cr_access(b, CR_WRITE, 0x0000800000000000ULL, 8, UINT64_MAX);
    cr_access(b, CR_READ, 0, 0, 0);
    cr_access(b, CR_READ, UINT64_MAX, 255, 1);
    cr_add(b, UINT64_MAX, UINT64_MAX, 1, 1, "edge");
    cr_remove(b, UINT64_MAX, 0);
    SEED("%s", "extreme-values");
#undef SEED
}

static void cr_malformed(buf *b)
{
    char name[64];
    big = 0;
    /* truncated records: every type cut inside its fixed part */
    static const unsigned cuts_access[] = {1, 9, 10, 17};
    for (size_t i = 0; i < 4; i++) {
        cr_access(b, CR_WRITE, HEAP, 8, 1);
        b->len = cuts_access[i];
        snprintf(name, sizeof name, "trunc-write-at-%u", cuts_access[i]);
        emit(name, b);
    }
    static const unsigned cuts_add[] = {1, 17, 25, 28};
    for (size_t i = 0; i < 4; i++) {
        cr_add(b, HEAP, 1, 8, 8, "double");
        b->len = cuts_add[i];
        snprintf(name, sizeof name, "trunc-rtta-add-at-%u", cuts_add[i]);
        emit(name, b);
    }
    cr_add(b, HEAP, 1, 8, 8, "double");
    b->len -= 3;
    emit("trunc-rtta-add-in-name", b);
    cr_remove(b, HEAP, 1);
    b->len = 16;
    emit("trunc-rtta-remove-at-16", b);
    cr_every_type(b);
    cr_access(b, CR_READ, HEAP, 8, 1);
    b->len -= 5;
    emit("trunc-after-valid", b);

    /* unknown tags, alone and after valid records */
    static const unsigned bad[] = {0x04, 0x07, 0x3F, 0x44, 0xBF, 0xFF};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        u8(b, bad[i]);
        for (int k = 0; k < 28; k++)
            u8(b, 0);
        snprintf(name, sizeof name, "bad-tag-%02x", bad[i]);
        emit(name, b);
    }
    cr_mix(b, 600);
    u8(b, 0x05);
    u64(b, 0);
    emit("bad-tag-after-valid", b);

    /* flags on RTTA records */
    static const unsigned flags[] = {0x40, 0x80, 0xC0};
    for (size_t i = 0; i < 3; i++) {
        cr_add(b, HEAP, 1, 4, 4, "int");
        b->p[0] |= (uint8_t)flags[i];
        snprintf(name, sizeof name, "rtta-add-flag-%02x", flags[i]);
        emit(name, b);
        cr_remove(b, HEAP, 1);
        b->p[0] |= (uint8_t)flags[i];
        snprintf(name, sizeof name, "rtta-remove-flag-%02x", flags[i]);
        emit(name, b);
    }

    /* type names longer than the file, in both orders */
    static const uint32_t lens[] = {0xFFFFFFFFu, 0x7FFFFFFFu, 0x80000000u, 0x10000u, 5};
    for (int o = 0; o < 2; o++) {
        big = o;
        for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
            cr_access(b, CR_READ, HEAP, 8, 1);
            cr_add_n(b, HEAP, 1, 4, 4, "abcd", 4);
            patch32(b, b->len - 8, lens[i]); /* the name's length field */
            snprintf(name, sizeof name, "%s-name-len-%08x", o ? "be" : "le", (unsigned)lens[i]);
            emit(name, b);
        }
    }
    big = 0;
    cr_add_n(b, HEAP, 1, 4, 4, "exact", 5);
    emit("le-name-ends-file", b);

    /* tiny and odd inputs */
    emit("empty", b);
    u8(b, 0);
    emit("one-byte-00", b);
    u8(b, 2);
    emit("one-byte-02", b);
    for (int i = 0; i < 18 * 4; i++)
        u8(b, 0);
    emit("zeros-4-reads", b);
    for (int i = 0; i < 64; i++)
        u8(b, 0xFF);
    emit("ff-64", b);
    /* a big-endian trace that also decodes little-endian (order guessing) */
    big = 1;
    for (unsigned i = 0; i < 6; i++)
        cr_access(b, CR_READ, (uint64_t)i << 56, 8, (uint64_t)1 << 56);
    emit("be-ambiguous", b);
    big = 0;
}

static void seeds_cacheray(buf *b)
{
    for (int o = 0; o < 2; o++) {
        big = o;
        cr_valid(b);
    }
    cr_malformed(b);
}

/* ---------------------------------------------------------------- sink */

/* Programs for fuzz_sink.c: byte 0 = mode (bit 0 JSON, bit 1 leave open),
 * then operations (see there): 0 object, 1 array, 2 record, 3 end, 4 u64,
 * 5 hex u64, 6 i64, 7 f64, 8 bool, 9 null, 10/11 string, 12 C string.
 * Inside objects and records each operation is followed by a key index. */
enum { S_OBJ, S_ARR, S_REC, S_END, S_U64, S_HEX, S_I64, S_F64, S_BOOL, S_NULL, S_STR };

static void s_num(buf *b, unsigned op, unsigned key, uint64_t v)
{
    u8(b, op);
    u8(b, key);
    big = 1;
    u64(b, v);
}

static void s_str(buf *b, unsigned key, const char *v)
{
    u8(b, S_STR);
    u8(b, key);
    u8(b, (unsigned)strlen(v));
    put(b, v, strlen(v));
}

/* An info-like document: fields, a table (array of objects), a list. */
static void s_document(buf *b, unsigned mode)
{
    u8(b, mode);
    u8(b, S_OBJ);
    s_str(b, 6, "trace.bin");
    s_num(b, S_U64, 4, 1234567);
    u8(b, S_ARR), u8(b, 8);                 /* by_type: [ */
    for (unsigned i = 0; i < 3; i++) {
        u8(b, S_OBJ);                       /* array element: no key */
        s_str(b, 2, i ? "write" : "read");
        s_num(b, S_U64, 7, 10u * i);
        s_num(b, S_HEX, 3, 0x5555555a0000ULL + i);
        if (i == 1) {                       /* a nested object in a row */
            u8(b, S_OBJ), u8(b, 10);
            s_num(b, S_U64, 13, 1);
            u8(b, S_END);
        }
        if (i == 2) {                       /* an array in a row */
            u8(b, S_ARR), u8(b, 15);
            u8(b, S_U64);                   /* array members have no key */
            big = 1;
            u64(b, 1);
            u8(b, S_END);
        }
        u8(b, S_END);
    }
    u8(b, S_END);
    u8(b, S_ARR), u8(b, 5);                 /* a list of scalars */
    for (unsigned i = 0; i < 4; i++) {
        u8(b, S_U64);
        big = 1;
        u64(b, 1000 + i);
    }
    u8(b, S_END);
    u8(b, S_ARR), u8(b, 9);                 /* an empty array */
    u8(b, S_END);
    u8(b, S_NULL), u8(b, 11);
    u8(b, S_END);
}

/* Dump-like records: one line each. */
static void s_records(buf *b, unsigned mode)
{
    u8(b, mode);
    for (unsigned i = 0; i < 5; i++) {
        u8(b, S_REC);
        u8(b, 11), u8(b, 0), u8(b, 0);      /* bare string key 0, empty */
        s_num(b, S_U64, 0, i);
        s_num(b, S_HEX, 1, 18u * i);
        s_str(b, 2, i & 1 ? "write" : "read \"quoted\" \x01\xff");
        s_num(b, S_F64, 14, 0x3FF8000000000000ULL); /* 1.5 */
        u8(b, S_BOOL), u8(b, 12), u8(b, 1);
        if (i == 3) {
            u8(b, S_OBJ), u8(b, 3);
            s_num(b, S_I64, 4, (uint64_t)-5);
            u8(b, S_END);
        }
        u8(b, S_END);
    }
    s_num(b, S_F64, 0, 0x7FF8000000000000ULL); /* a NaN at top level */
}

static void seeds_sink(buf *b)
{
    char name[64];
    for (unsigned mode = 0; mode < 4; mode++) {
        s_document(b, mode);
        snprintf(name, sizeof name, "document-%s%s", mode & 1 ? "json" : "text",
                 mode & 2 ? "-open" : "");
        emit(name, b);
        s_records(b, mode);
        snprintf(name, sizeof name, "records-%s%s", mode & 1 ? "json" : "text",
                 mode & 2 ? "-open" : "");
        emit(name, b);
    }
    for (unsigned i = 0; i < 16; i++) { /* random programs */
        size_t len = 16 + (size_t)(rnd() % 400);
        u8(b, i % 4);
        while (b->len < len)
            u8(b, (unsigned)(rnd() % 13));
        snprintf(name, sizeof name, "random-%02u", i);
        emit(name, b);
    }
    emit("empty", b);
}

/* ---------------------------------------------------------------- xray */

/* LLVM XRay (docs/formats/xray.md): little-endian. Basic mode: 32-byte
 * records; FDR: 8-byte function records and 16-byte metadata records. */

static void x_zeros(buf *b, size_t n)
{
    while (n--)
        u8(b, 0);
}

static void x_header(buf *b, unsigned version, unsigned type, uint64_t bufsize)
{
    uint_n(b, version, 2);
    uint_n(b, type, 2);
    u32(b, 3);
    u64(b, 1000000000ULL);
    u64(b, bufsize);
    u64(b, 0);
}

static void x_basic(buf *b, unsigned cpu, unsigned kind, int32_t fid, uint64_t tsc,
                    uint32_t tid, uint32_t pid)
{
    uint_n(b, 0, 2);
    u8(b, cpu);
    u8(b, kind);
    u32(b, (uint32_t)fid);
    u64(b, tsc);
    u32(b, tid);
    u32(b, pid);
    x_zeros(b, 8);
}

static void x_basic_arg(buf *b, int32_t fid, uint32_t tid, uint32_t pid, uint64_t arg)
{
    uint_n(b, 1, 2);
    x_zeros(b, 2);
    u32(b, (uint32_t)fid);
    u32(b, tid);
    u32(b, pid);
    u64(b, arg);
    x_zeros(b, 8);
}

static void x_fn(buf *b, unsigned action, uint32_t fid, uint32_t delta)
{
    u32(b, fid << 4 | action << 1);
    u32(b, delta);
}

/* Metadata: kind byte, then fields of `bytes` bytes each (0 ends), padded
 * to 15 bytes. */
static void x_meta(buf *b, unsigned kind, const uint64_t *vals, const int *bytes)
{
    u8(b, kind << 1 | 1);
    size_t n = 0;
    for (int i = 0; bytes && bytes[i]; i++) {
        uint_n(b, vals[i], bytes[i]);
        n += (size_t)bytes[i];
    }
    x_zeros(b, 15 - n);
}

#define XM(b, kind, ...)                                                     \
    do {                                                                     \
        const uint64_t v_[] = {__VA_ARGS__};                                 \
        x_meta_auto(b, kind, v_, sizeof v_ / sizeof v_[0]);                  \
    } while (0)

/* Field widths per metadata kind. */
static void x_meta_auto(buf *b, unsigned kind, const uint64_t *v, size_t n)
{
    static const int w[][4] = {
        [0] = {4, 0}, [1] = {0}, [2] = {2, 8, 0}, [3] = {8, 0}, [4] = {8, 4, 0},
        [6] = {8, 0}, [7] = {8, 0}, [9] = {4, 0},
    };
    (void)n;
    x_meta(b, kind, v, kind < 10 ? w[kind] : NULL);
}

static void x_newbuf(buf *b, uint32_t tid) { XM(b, 0, tid); }
static void x_eob(buf *b) { x_meta(b, 1, NULL, NULL); }
static void x_cpu(buf *b, unsigned cpu, uint64_t tsc) { XM(b, 2, cpu, tsc); }
static void x_wrap(buf *b, uint64_t tsc) { XM(b, 3, tsc); }
static void x_wall(buf *b, uint64_t s, uint32_t us) { XM(b, 4, s, us); }
static void x_carg(buf *b, uint64_t a) { XM(b, 6, a); }
static void x_extents(buf *b, uint64_t n) { XM(b, 7, n); }
static void x_pid(buf *b, uint32_t pid) { XM(b, 9, pid); }

/* Custom event: v1–4 absolute TSC (+ CPU in v4), v5 signed delta. */
static void x_custom(buf *b, unsigned version, int32_t size, int64_t tsc_or_delta,
                     unsigned cpu, const char *payload, size_t n)
{
    u8(b, 5 << 1 | 1);
    u32(b, (uint32_t)size);
    if (version >= 5) {
        u32(b, (uint32_t)tsc_or_delta);
        x_zeros(b, 7);
    } else {
        u64(b, (uint64_t)tsc_or_delta);
        uint_n(b, version == 4 ? cpu : 0, 2);
        x_zeros(b, 1);
    }
    put(b, payload, n);
}

static void x_typed(buf *b, int32_t size, int32_t delta, unsigned type, const char *payload,
                    size_t n)
{
    u8(b, 8 << 1 | 1);
    u32(b, (uint32_t)size);
    u32(b, (uint32_t)delta);
    uint_n(b, type, 2);
    x_zeros(b, 5);
    put(b, payload, n);
}

static void x_preamble(buf *b, unsigned version, uint32_t tid, uint32_t pid, unsigned cpu,
                       uint64_t tsc)
{
    x_newbuf(b, tid);
    x_wall(b, 1000 + tid % 7, 123456);
    if (version >= 3)
        x_pid(b, pid);
    x_cpu(b, cpu, tsc);
}

/* Open a buffer: v2+ an extents record patched by x_close. */
static size_t x_open(buf *b, unsigned version)
{
    size_t at = b->len;
    if (version >= 2)
        x_extents(b, 0);
    return at;
}

#define TK_HEADER 32

static void x_close(buf *b, unsigned version, size_t at, uint64_t bufsize)
{
    if (version >= 2) {
        size_t len = b->len;
        b->len = at + 1;
        u64(b, len - at - 16);
        b->len = len;
    } else {
        x_eob(b);
        while ((b->len - TK_HEADER) % bufsize)
            u8(b, 0);
    }
}

/* A block with every body record kind the version has. */
static void x_block_all(buf *b, unsigned v, uint32_t tid, uint32_t pid, unsigned cpu,
                        uint64_t tsc, uint64_t bufsize)
{
    size_t at = x_open(b, v);
    x_preamble(b, v, tid, pid, cpu, tsc);
    x_fn(b, 0, 1, 0);
    x_fn(b, 3, 2, 17);
    x_carg(b, 42);
    x_carg(b, UINT64_MAX);
    x_fn(b, 0, 3, 5);
    if (v >= 5) {
        x_custom(b, v, 5, -3, 0, "hello", 5);
        x_typed(b, 4, 9, 0x1234, "\x00\x01\xfe\xff", 4);
    } else {
        x_custom(b, v, 5, (int64_t)(tsc + 30), cpu + 1, "hello", 5);
    }
    x_fn(b, 2, 3, 100);
    x_wrap(b, tsc + 0x100000000ULL);
    x_fn(b, 1, 2, 0xFFFFFFFFu);
    x_cpu(b, cpu + 2, tsc + 0x200000000ULL);
    x_fn(b, 0, 0x0FFFFFFF, 0);
    x_fn(b, 1, 0x0FFFFFFF, 1);
    x_fn(b, 1, 1, 2);
    x_close(b, v, at, bufsize);
}

/* Many small blocks of a few threads (what the runtime writes with small
 * buffers), pseudo-random calls. */
static void x_many_blocks(buf *b, unsigned v, size_t bytes)
{
    uint64_t tsc[4] = {1000, 2000, 3000, 4000};
    int depth[4] = {0};
    unsigned t = 0;
    while (b->len < bytes) {
        size_t at = x_open(b, v);
        x_preamble(b, v, 100 + t, 99, t, tsc[t]);
        for (int i = 0; i < 12; i++) {
            uint64_t r = rnd();
            uint32_t d = (uint32_t)(r % 300);
            tsc[t] += d;
            if (depth[t] > 0 && (r >> 20) % 2) {
                x_fn(b, (r >> 24) % 5 ? 1 : 2, (uint32_t)depth[t], d);
                depth[t]--;
            } else {
                depth[t]++;
                x_fn(b, (r >> 28) % 4 ? 0 : 3, (uint32_t)depth[t], d);
                if ((r >> 28) % 4 == 0)
                    x_carg(b, r >> 32);
            }
        }
        x_close(b, v, at, 512);
        t = (t + 1) % 4;
    }
}

static void seeds_xray(buf *b)
{
    char name[64];
    big = 0; /* XRay is little-endian (the sink seeds leave big set) */
    /* ---- valid traces */
    for (unsigned v = 1; v <= 3; v++) {
        x_header(b, v, 0, 0);
        x_basic(b, 1, 0, 1, 1000, 7, 9);
        x_basic(b, 1, 3, 2, 1010, 7, 9);
        x_basic_arg(b, 2, 7, 9, 42);
        x_basic_arg(b, 2, 7, 9, UINT64_MAX);
        x_basic(b, 2, 0, 1, 1005, 8, 9);
        x_basic(b, 1, 2, 2, 1020, 7, 9);
        x_basic(b, 2, 1, 1, 1030, 8, 9);
        x_basic(b, 255, 1, 1, UINT64_MAX, 7, 9);
        x_basic(b, 0, 0, INT32_MIN, 0, 0, 0);
        snprintf(name, sizeof name, "basic-v%u", v);
        emit(name, b);
    }
    for (unsigned v = 1; v <= 5; v++) {
        x_header(b, v, 1, 512);
        x_block_all(b, v, 11, 22, 3, 5000000, 512);
        x_block_all(b, v, 12, 22, 0, 7000000, 512);
        x_block_all(b, v, 11, 22, 5, 9000000, 512);
        snprintf(name, sizeof name, "fdr-v%u-all", v);
        emit(name, b);
        x_header(b, v, 1, 512);
        x_many_blocks(b, v, 3000);
        snprintf(name, sizeof name, "fdr-v%u-blocks", v);
        emit(name, b);
    }
    for (unsigned v = 1; v <= 5; v++) {
        x_header(b, v, 1, 16384);
        snprintf(name, sizeof name, "fdr-v%u-empty", v);
        emit(name, b);
    }
    x_header(b, 3, 0, 0);
    emit("basic-v3-empty", b);
    /* v3+: garbage and zero fill between buffers, an empty buffer */
    x_header(b, 5, 1, 4096);
    put(b, "\x00\x01\xff\x0e", 4);
    x_block_all(b, 5, 1, 2, 0, 100, 0);
    x_zeros(b, 40);
    x_extents(b, 0);
    x_block_all(b, 5, 3, 2, 1, 900, 0);
    u8(b, 0xAB);
    emit("fdr-v5-garbage", b);
    /* a thread's buffers out of time order in the file (a wrapped ring):
     * read in wall-clock order, then by first TSC */
    x_header(b, 5, 1, 4096);
    for (unsigned i = 0; i < 5; i++) {
        static const uint32_t tid[] = {1, 2, 1, 2, 1}, usec[] = {300, 10, 100, 20, 100};
        static const uint64_t tsc[] = {3000, 100, 1000, 200, 900};
        size_t at = x_open(b, 5);
        x_newbuf(b, tid[i]);
        x_wall(b, 50, usec[i]);
        x_pid(b, 7);
        x_cpu(b, i, tsc[i]);
        x_fn(b, 0, i + 1, 1);
        x_fn(b, 1, i + 1, 5);
        x_close(b, 5, at, 0);
    }
    emit("fdr-v5-ring", b);
    /* basic records under an FDR header (llvm-xray convert -f raw) */
    x_header(b, 5, 1, 0);
    for (uint32_t i = 0; i < 6; i++)
        x_basic(b, 0, i % 2, (int32_t)(i / 2 + 1), 100 + i, 3, 3);
    emit("fdr-header-basic", b);
    /* a forked child's copy of its parent's records: the thread's TSC goes
     * back to records it already had */
    x_header(b, 3, 0, 0);
    x_basic(b, 0, 0, 4, 100, 10, 10);
    x_basic(b, 0, 0, 3, 130, 10, 10);
    x_basic(b, 0, 0, 2, 200, 11, 11);
    x_basic(b, 0, 1, 2, 230, 11, 11);
    x_basic(b, 0, 0, 4, 100, 10, 10);
    x_basic(b, 0, 0, 3, 130, 10, 10);
    x_basic(b, 0, 1, 3, 900, 10, 10);
    x_basic(b, 0, 1, 4, 950, 10, 10);
    emit("basic-v3-repeated", b);
    /* typed event in v3 (read in any version) */
    {
        x_header(b, 3, 1, 4096);
        size_t at = x_open(b, 3);
        x_preamble(b, 3, 1, 2, 0, 100);
        x_fn(b, 0, 1, 1);
        x_typed(b, 2, -50, 7, "hi", 2);
        x_close(b, 3, at, 0);
        emit("fdr-v3-typed", b);
    }
    /* v1 with a garbage-filled padding and a short last buffer */
    x_header(b, 1, 1, 256);
    for (uint32_t t = 0; t < 3; t++) {
        size_t start = b->len;
        x_preamble(b, 1, t + 1, 0, t, 1000 * (t + 1));
        x_fn(b, 0, t + 1, 1);
        x_eob(b);
        while (t < 2 && b->len - start < 256)
            u8(b, (unsigned)(0x0B + b->len));
    }
    emit("fdr-v1-padding", b);
    /* valid, but what FDR cannot hold: a header buffer size below 128,
     * an event larger than the header's buffer size */
    x_header(b, 5, 1, 64);
    x_block_all(b, 5, 1, 2, 0, 100, 0);
    emit("fdr-v5-bufsize-64", b);
    {
        x_header(b, 5, 1, 256);
        size_t at = x_open(b, 5);
        x_preamble(b, 5, 1, 2, 0, 100);
        char payload[300];
        memset(payload, 'x', sizeof payload);
        x_custom(b, 5, (int32_t)sizeof payload, 1, 0, payload, sizeof payload);
        x_close(b, 5, at, 0);
        emit("fdr-v5-event-over-bufsize", b);
    }
    x_header(b, 3, 0, 0);
    x_basic(b, 0, 0, 1 << 28, 5, 1, 1);
    x_basic(b, 0, 1, -1, 6, 1, 1);
    emit("basic-v3-wide-ids", b);

    /* ---- malformed */
    x_header(b, 3, 0, 0);
    b->len = 31;
    emit("short-header", b);
    x_header(b, 1, 2, 0);
    emit("type-2", b);
    x_header(b, 3, 0x100, 0);
    emit("type-big-endian", b);
    x_header(b, 4, 0, 0);
    emit("basic-v4", b);
    x_header(b, 6, 1, 0);
    emit("fdr-v6", b);
    x_header(b, 3, 0, 0);
    x_basic(b, 0, 0, 1, 10, 1, 1);
    x_basic(b, 0, 1, 1, 11, 1, 1);
    b->len -= 12;
    emit("basic-truncated", b);
    x_header(b, 3, 0, 0);
    x_basic_arg(b, 1, 1, 1, 5);
    emit("basic-arg-first", b);
    x_header(b, 3, 0, 0);
    x_basic(b, 0, 3, 2, 10, 7, 1);
    x_basic_arg(b, 2, 8, 1, 5);
    emit("basic-arg-mismatch", b);
    x_header(b, 2, 0, 0);
    x_basic(b, 0, 4, 1, 10, 1, 1);
    emit("basic-kind-4", b);
    x_header(b, 2, 0, 0);
    x_basic(b, 0, 0, 1, 10, 1, 1);
    b->p[32] = 2;
    emit("basic-record-type-2", b);
    static const struct {
        const char *name;
        unsigned version;
        int what;
    } bad[] = {
        {"fdr-action-4", 5, 0},        {"fdr-trunc-function", 1, 1},
        {"fdr-trunc-metadata", 5, 2},  {"fdr-event-size-0", 5, 3},
        {"fdr-event-size-neg", 4, 4},  {"fdr-event-past-end", 5, 5},
        {"fdr-v2-eob", 2, 6},          {"fdr-v1-extents", 1, 7},
        {"fdr-v2-outside", 2, 8},      {"fdr-overread", 3, 9},
        {"fdr-extents-inside", 5, 10}, {"fdr-fn-after-newbuf", 5, 11},
        {"fdr-carg-after-cpu", 5, 12}, {"fdr-pid-after-cpu", 5, 13},
        {"fdr-ends-after-pid", 5, 14}, {"fdr-ends-in-buffer", 4, 15},
        {"fdr-meta-10", 5, 16},        {"fdr-eob-after-wall", 1, 17},
        {"fdr-event-huge", 1, 18},     {"fdr-v3-no-extents", 3, 19},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned v = bad[i].version;
        x_header(b, v, 1, 4096);
        size_t at = x_open(b, v);
        int close = 1;
        switch (bad[i].what) {
        case 11:
            x_newbuf(b, 5);
            x_fn(b, 0, 1, 1);
            break;
        case 14:
        case 17:
            x_newbuf(b, 5);
            x_wall(b, 1, 1);
            if (bad[i].what == 14)
                x_pid(b, 6);
            else
                x_eob(b), close = 0;
            break;
        case 19:
            b->len = at; /* no extents at all */
            x_preamble(b, v, 5, 6, 0, 100);
            x_fn(b, 0, 1, 1);
            close = 0;
            break;
        case 8:
            b->len = at;
            x_preamble(b, v, 5, 6, 0, 100);
            close = 0;
            break;
        case 12:
        case 13: /* right after the preamble's NewCPUId */
            x_preamble(b, v, 5, 6, 0, 100);
            break;
        default:
            x_preamble(b, v, 5, 6, 0, 100);
            x_fn(b, 0, 1, 1);
            break;
        }
        switch (bad[i].what) {
        case 0: x_fn(b, 4, 1, 1); break;
        case 1: x_fn(b, 1, 1, 1); b->len -= 3; close = 0; break;
        case 2: x_wrap(b, 5); x_close(b, v, at, 4096); b->len -= 1; close = 0; break;
        case 3: x_custom(b, v, 0, 1, 0, "", 0); break;
        case 4: x_custom(b, v, -1, 5, 0, "", 0); break;
        case 5: x_custom(b, v, 100, 1, 0, "hello", 5); break;
        case 6: x_eob(b); break;
        case 7: x_extents(b, 8); close = 0; break;
        case 9: x_close(b, v, at, 4096); b->p[at + 1] -= 4; close = 0; break;
        case 10: x_extents(b, 0); x_fn(b, 0, 1, 1); break;
        case 12: x_carg(b, 1); break;
        case 13: x_pid(b, 7); break;
        case 15: x_close(b, v, at, 4096); b->p[at + 1] += 40; close = 0; break;
        case 16: XM(b, 10, 0); break;
        case 18: x_custom(b, v, INT32_MAX, 5, 0, "x", 1); close = 0; break;
        default: break;
        }
        if (close)
            x_close(b, v, at, 4096);
        emit(bad[i].name, b);
    }
    /* cuts of a small v5 trace inside its buffer */
    static const size_t cuts[] = {40, 47, 48, 100, 120, 125, 200};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        x_header(b, 5, 1, 512);
        x_block_all(b, 5, 1, 2, 0, 100, 512);
        b->len = cuts[i];
        snprintf(name, sizeof name, "fdr-v5-cut-%zu", cuts[i]);
        emit(name, b);
    }
}

/* ------------------------------------------------------------ casemate */

/* Text seeds: every record kind in both writer forms, the other spellings
 * (src third, upper case, msr, (thread N), (addr A) (level L), integer or
 * missing src), blanks, comments, CRLF, the '!' line, one of each syntax
 * error, and a longer random log. */

static void text(buf *b, const char *s) { put(b, s, strlen(s)); }

static void cm_one(const char *name, const char *s)
{
    static buf b1;
    text(&b1, s);
    emit(name, &b1);
}

static const char *const cm_kinds[] = {"mem-write", "mem-read", "mem-init", "mem-free",
                                       "mem-set", "sysreg-write", "barrier", "tlbi",
                                       "hint", "lock", "trylock", "unlock"};
static const char *const cm_tlbis[] = {"vmalls12e1", "vmalls12e1is", "vmalle1is", "alle1",
                                       "alle1is", "vmalle1", "alle2", "alle2is", "vale2is",
                                       "vae2is", "ipas2e1is", "vae2"};
static const char *const cm_sysregs[] = {"vttbr_el2", "ttbr0_el2", "vtcr_el2", "hcr_el2",
                                         "tcr_el2", "sctlr_el2", "mair_el2"};
static const char *const cm_hints[] = {"set_root_lock", "set_owner_root", "release_table",
                                       "set_pte_thread_owner"};
static const char *const cm_dsbs[] = {"nsh", "ish", "ishst", "sy"};

/* One record of kind k in keyword (kw) or compact form; the variant v
 * picks among the operations of the kind. */
static void cm_record(buf *b, unsigned k, int kw, unsigned v, unsigned long long id)
{
    char line[512];
    unsigned long long a = 0xaaaaaf200000ULL + 0x1000ULL * (v % 7), x = 0xaaaaaf201003ULL + v;
    const char *src = "examples/tests/seed.c:12";
#define ID kw ? "(%s (id %llu) (tid %u)" : "(%s %llu %u"
    int n = snprintf(line, sizeof line, ID, cm_kinds[k], id, v % 4);
    switch (k) {
    case 0:
        n += snprintf(line + n, sizeof line - n, kw ? " (mem-order %s) (address 0x%llx) (value 0x%llx)"
                                                    : " %s %llx %llx", v % 2 ? "release" : "plain", a, x);
        break;
    case 1:
        n += snprintf(line + n, sizeof line - n, kw ? " (address 0x%llx) (value 0x%llx)" : " %llx %llx", a, x);
        break;
    case 2:
    case 3:
        n += snprintf(line + n, sizeof line - n, kw ? " (address 0x%llx) (size 0x1000)" : " %llx 1000", a);
        break;
    case 4:
        n += snprintf(line + n, sizeof line - n, kw ? " (address 0x%llx) (size 0x40) (value 0x%x)" : " %llx 40 %x",
                      a, v);
        break;
    case 5:
        n += snprintf(line + n, sizeof line - n, kw ? " (sysreg %s) (value 0x%llx)" : " %s %llx",
                      cm_sysregs[v % 7], a);
        break;
    case 6:
        if (v % 5 == 4)
            n += snprintf(line + n, sizeof line - n, " isb");
        else
            n += snprintf(line + n, sizeof line - n, kw ? " dsb (kind %s)" : " dsb %s", cm_dsbs[v % 5]);
        break;
    case 7:
        n += snprintf(line + n, sizeof line - n, " %s", cm_tlbis[v % 12]);
        if (v % 12 >= 8)
            n += snprintf(line + n, sizeof line - n, kw ? " (value 0x%llx)" : " %llx", a >> 12);
        break;
    case 8:
        n += snprintf(line + n, sizeof line - n, kw ? " (kind %s) (location 0x%llx) (value 0x%llx)"
                                                    : " %s %llx %llx", cm_hints[v % 4], a, x);
        break;
    default:
        n += snprintf(line + n, sizeof line - n, kw ? " (address 0x%llx)" : " %llx", a + 0x2000);
        break;
    }
#undef ID
    snprintf(line + n, sizeof line - n, kw ? " (src \"%s\"))\n" : " \"%s\")\n", src);
    text(b, line);
}

static void seeds_casemate(buf *b)
{
    char name[64];
    /* every kind, each form */
    for (unsigned k = 0; k < 12; k++)
        for (int kw = 0; kw < 2; kw++) {
            for (unsigned v = 0; v < (k == 7 ? 12u : k == 5 ? 7u : 5u); v++)
                cm_record(b, k, kw, v, v);
            snprintf(name, sizeof name, "%s-%s", kw ? "keyword" : "compact", cm_kinds[k]);
            emit(name, b);
        }
    /* a BBM cycle ending in the expected line */
    static const unsigned cycle[] = {2, 2, 8, 0, 5, 9, 0, 6, 7, 6, 0, 11};
    for (int kw = 0; kw < 2; kw++) {
        for (unsigned i = 0; i < sizeof cycle / sizeof cycle[0]; i++)
            cm_record(b, cycle[i], kw, i, i);
        text(b, "! BBM invalid unclean->valid\n");
        emit(kw ? "keyword-expected" : "compact-expected", b);
    }
    /* the other spellings */
    cm_one("spec-positional", "(mem-write 1 1 \"src\" release 42 93)\n(lock 2 1 \"src\" 42)\n"
                              "(msr 3 1 \"src\" TTBR_EL2 93)\n(barrier 4 1 \"src\" DSB ISH)\n"
                              "(hint 5 1 \"src\" SET_PTE_THREAD_OWNER 42 93)\n");
    cm_one("spec-keyword", "(mem-init\n  (id 0)\n  (tid 0)\n  (address 0xaaaaaf200000)\n  (size 0x1000)\n"
                           "  (src \"t.c:29\"))\n(barrier\n  (id 9)\n  (thread 0)\n  dsb (kind ish)\n"
                           "  (src \"t.c:43\"))\n(msr (id 6) (tid 0) (sysreg vttbr_el2) (value 0x1))\n");
    cm_one("mixed", "(mem-write 12 (tid 3) plain (address 0x10) 20 17)\n"
                    "(mem-write (id 13) 3 (src 5) (mem-order RELEASE) 10 (value 0x20))\n"
                    "(UNLOCK (ID 14) (THREAD 9) (ADDRESS 0XABCDEF))\n(lock 0x10 0x10 16)\n");
    cm_one("tlbi-addr-level", "(tlbi 1 0 vae2 (addr 1000) (level 3))\n(tlbi (id 2) (tid 0) ipas2e1is "
                              "(addr 0x8000) 2 (src \"x\"))\n(tlbi 3 0 vale2is (value 5) 9)\n");
    cm_one("numbers", "(mem-read 18446744073709551615 18446744073709551615 ffffffffffffffff 0)\n"
                      "(mem-read 000000000000000000000007 0 0x000000000000000000000001 0X0)\n");
    cm_one("blanks", "\xEF\xBB\xBF; comment\r\n\r\n(lock\t(id 1)\r\n  (tid 0) ; inside\r\n"
                     "  (address\t0x10) \"s\"\r\n)(unlock 2 0 10)\r\n\f\v ;; last");
    cm_one("strings", "(lock 1 0 1 \"a (b) ; c\n d\")\n(lock 2 0 1 \"\")\n(lock 3 0 1 \"\" )\n");
    cm_one("expected-only", "! duplicate (VM/AS)ID\n(never read\n");
    cm_one("expected-trailing", "(lock 1 0 1) ! on the same line  \r\n");
    cm_one("comments-only", "; nothing\n;but comments");
    cm_one("empty", "");
    cm_one("warnings", "(lock 5 0 1)\n(unlock 5 0 1)\n(mem-set 6 0 1004 10 0)\n(lock 7 0 1)\n");
    /* one of each error */
    static const char *const bad[] = {
        "x", "(lock 1 0 1)\n  )", "(foo 1 0)", "( )", "(", "(lock x 0 1)", "(lock -1 0 1)",
        "(lock 18446744073709551616 0 1)", "(lock (id 1 (tid 0) 1)", "(lock (idx 1) 0 1)",
        "(lock ( ) 0 1)", "(mem-write 1 0 plain 10 zz \"s\")", "(mem-write 1 0 relaxed 10 20)",
        "(lock 1 0 0x)", "(lock 1 0 10000000000000000)", "(lock 1 0 10 \"s\" 3)",
        "(lock 1 0 10 x)", "(lock 1 0 10 (value 3))", "(lock 1 0 10 \"s",
        "(lock 1 0 10", "(sysreg-write 1 0 ttbr1_el2 5)", "(barrier 1 0 dmb ish)",
        "(barrier 1 0 dsb osh)", "(tlbi 1 0 vae1is 5)", "(tlbi 1 0 vae2is)",
        "(tlbi 1 0 vae2is (level 3))", "(tlbi 1 0 vmalle1is 5 6)", "(hint 1 0 set_lock 1 2)",
        "(lock 1 0 1 \x01\xff'\\abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz)",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(name, sizeof name, "bad-%02zu", i);
        cm_one(name, bad[i]);
    }
    /* many threads; a long src; a random mix */
    for (unsigned t = 0; t < 300; t++) {
        char line[128];
        snprintf(line, sizeof line, "(lock (id %u) (tid %u) (address %x))\n", t, t * 7919u, t);
        text(b, line);
    }
    emit("many-threads", b);
    text(b, "(unlock 1 0 10 \"");
    for (int i = 0; i < 70000; i++)
        u8(b, 'a' + i % 26);
    text(b, "\")\n(lock 2 0 10)\n");
    emit("long-src", b);
    unsigned long long id = 0;
    while (b->len < 6000) {
        uint64_t r = rnd();
        cm_record(b, (unsigned)(r % 12), (int)(r >> 8) % 2, (unsigned)(r >> 16) % 12, id++);
        if ((r >> 40) % 8 == 0)
            text(b, (r >> 44) % 2 ? "; a comment\r\n" : "\n");
    }
    emit("mix-6k", b);
}

/* ------------------------------------------------------ casemate_check */

/* Logs for the break-before-make checker: the repository's two examples,
 * a small log for every violation and for each of casemate-check's fixed
 * bugs, a 4-level tree with BBM cycles on several threads and roots, and
 * random operations on a small tree (so mutations land on live entries). */

/* A stage-2 tree: L0 0x10000 -> L1 0x11000 ([0] block, [1] -> L2 0x12000),
 * L2 [0] -> L3 0x13000 ([0] page), [1] block; lock 0x90000, held. */
#define CMC_TREE                                                             \
    "(mem-init 0 0 10000 5000)\n(hint 1 0 set_root_lock 10000 90000)\n"     \
    "(mem-write 2 0 plain 10000 11003)\n(mem-write 3 0 plain 11000 400004fd)\n" \
    "(mem-write 4 0 plain 11008 12003)\n(mem-write 5 0 plain 12000 13003)\n" \
    "(mem-write 6 0 plain 12008 402004fd)\n(mem-write 7 0 plain 13000 800004ff)\n" \
    "(sysreg-write 8 0 vttbr_el2 10000)\n"
#define CMC_LOCKED CMC_TREE "(lock 9 0 90000)\n"
#define CMC_S1                                                               \
    "(mem-init 0 0 20000 2000)\n(hint 1 0 set_root_lock 20000 90008)\n"     \
    "(mem-write 2 0 plain 20000 21003)\n(mem-write 3 0 plain 21000 400004fd)\n" \
    "(sysreg-write 4 0 ttbr0_el2 20000)\n(lock 5 0 90008)\n"
#define CMC_INVAL "(mem-write 10 0 plain 11000 0)\n"
#define CMC_DSB "(barrier 11 0 dsb ish)\n"
#define CMC_REMAP "(mem-write 20 0 release 11000 800004fd)\n"

static const struct {
    const char *name, *text;
} cmc_logs[] = {
    {"example-bbm",
     "(sysreg-write (id 0) (tid 0) (sysreg vtcr_el2) (value 0x10) (src \"examples/bbm.c:10\"))\n"
     "(sysreg-write (id 1) (tid 0) (sysreg hcr_el2) (value 0x0) (src \"examples/bbm.c:11\"))\n"
     "(mem-init (id 2) (tid 0) (address 0x80000) (size 0x1000) (src \"examples/bbm.c:14\"))\n"
     "(mem-init (id 3) (tid 0) (address 0x81000) (size 0x1000) (src \"examples/bbm.c:15\"))\n"
     "(hint (id 4) (tid 0) (kind set_root_lock) (location 0x80000) (value 0x90000))\n"
     "(hint (id 5) (tid 0) (kind set_owner_root) (location 0x81000) (value 0x80000))\n"
     "(mem-write (id 6) (tid 0) (mem-order plain) (address 0x80000) (value 0x81003))\n"
     "(mem-write (id 7) (tid 0) (mem-order plain) (address 0x81000) (value 0x400004fd))\n"
     "(sysreg-write (id 8) (tid 0) (sysreg vttbr_el2) (value 0x1000000080000))\n"
     "(sysreg-write (id 9) (tid 0) (sysreg hcr_el2) (value 0x1))\n"
     "(lock (id 10) (tid 1) (address 0x90000))\n"
     "(mem-read (id 11) (tid 1) (address 0x81000) (value 0x400004fd))\n"
     "(mem-write (id 12) (tid 1) (mem-order plain) (address 0x81000) (value 0x0))\n"
     "(barrier (id 13) (tid 1) dsb (kind ish))\n"
     "(tlbi (id 14) (tid 1) ipas2e1is (value 0x0))\n"
     "(barrier (id 15) (tid 1) dsb (kind ish))\n"
     "(tlbi (id 16) (tid 1) vmalle1is)\n"
     "(barrier (id 17) (tid 1) dsb (kind ish))\n"
     "(mem-write (id 18) (tid 1) (mem-order release) (address 0x81000) (value 0x800004fd))\n"
     "(barrier (id 19) (tid 1) isb)\n(unlock (id 20) (tid 1) (address 0x90000))\n"},
    {"example-missing-tlbi",
     "(sysreg-write 0 0 vtcr_el2 10 \"examples/bbm.c:10\")\n(mem-init 1 0 80000 1000)\n"
     "(mem-init 2 0 81000 1000)\n(hint 3 0 set_root_lock 80000 90000)\n"
     "(mem-write 4 0 plain 80000 81003)\n(mem-write 5 0 plain 81000 400004fd)\n"
     "(sysreg-write 6 0 vttbr_el2 1000000080000)\n(lock 7 1 90000)\n"
     "(mem-write 8 1 plain 81000 0)\n(barrier 9 1 dsb ish)\n"
     "(mem-write 10 1 plain 81000 800004fd)\n! BBM invalid unclean->valid\n"},
    {"good-ipa", CMC_LOCKED CMC_INVAL CMC_DSB "(tlbi 12 0 ipas2e1is 0)\n" CMC_DSB
                 "(tlbi 13 0 vmalle1is)\n" CMC_DSB CMC_REMAP},
    {"good-alle1is", CMC_LOCKED CMC_INVAL CMC_DSB "(tlbi 12 0 alle1is)\n" CMC_DSB CMC_REMAP},
    {"good-stage1", CMC_S1 "(mem-write 10 0 plain 21000 0)\n" CMC_DSB
                    "(tlbi 12 0 vae2is 300000000000)\n" CMC_DSB "(mem-write 13 0 plain 21000 5fd)\n"},
    {"good-thread-owner", CMC_TREE "(hint 10 0 set_pte_thread_owner 13000 1)\n"
                          "(mem-write 11 1 plain 13000 0)\n(barrier 12 1 dsb ish)\n"
                          "(tlbi 13 1 ipas2e1is 40000)\n(barrier 14 1 dsb ish)\n"
                          "(tlbi 15 1 vmalle1is)\n(barrier 16 1 dsb ish)\n"
                          "(mem-write 17 1 plain 13000 800004ff)\n"},
    {"good-release", CMC_LOCKED "(mem-init 10 0 30000 1000)\n"
                     "(sysreg-write 11 0 vttbr_el2 1000000030000)\n"
                     "(hint 12 0 release_table 10000 0)\n(mem-free 13 0 10000 4000)\n"
                     "(mem-init 14 0 10000 4000)\n"},
    {"good-concatenated", "(sysreg-write 0 0 vtcr_el2 58)\n(mem-init 1 0 20000 2000)\n"
                          "(hint 2 0 set_root_lock 20000 90000)\n(mem-write 3 0 plain 21000 400004fd)\n"
                          "(sysreg-write 4 0 vttbr_el2 20000)\n(lock 5 0 90000)\n"
                          "(mem-write 6 0 plain 21000 0)\n" CMC_DSB "(tlbi 7 0 ipas2e1is 8000000)\n"
                          CMC_DSB "(tlbi 8 0 vmalle1is)\n" CMC_DSB "(mem-write 9 0 plain 21000 5fd)\n"},
    {"good-new-log", "(sysreg-write 0 0 vtcr_el2 10)\n(sysreg-write 1 0 tcr_el2 10)\n"
                     "(sysreg-write 2 0 mair_el2 0)\n(sysreg-write 3 0 hcr_el2 0)\n"
                     "(sysreg-write 4 0 sctlr_el2 0)\n(mem-init 5 0 23f000 2000)\n"
                     "(hint 6 0 set_root_lock 23f000 241000)\n(mem-write 7 0 plain 23f000 240003)\n"
                     "(sysreg-write 8 0 vttbr_el2 23f000)\n(sysreg-write 9 0 hcr_el2 1)\n"
                     "(lock 10 0 241000)\n(mem-write 11 0 plain 23f000 0)\n(barrier 12 0 dsb ish)\n"
                     "(tlbi 13 0 alle1is)\n(barrier 14 0 dsb ish)\n(unlock 15 0 241000)\n"
                     "(sysreg-write 16 0 hcr_el2 0)\n(hint 17 0 release_table 23f000 0)\n"},
    {"good-ranges", "(mem-init 0 0 0 10000000000)\n(mem-write 1 0 plain 5000000000 7)\n"
                    "(mem-set 2 0 0 10000000000 ab)\n(mem-set 3 0 1003 2 ff)\n"
                    "(mem-free 4 0 0 ffffffffffffffff)\n(mem-init 5 0 fffffffffffffff0 10)\n"},
    {"bbm-no-break", CMC_LOCKED CMC_REMAP},
    {"bbm-missing-tlbi", CMC_LOCKED CMC_INVAL CMC_DSB CMC_REMAP},
    {"bbm-unclean-children", CMC_LOCKED "(mem-write 10 0 plain 12008 0)\n"
                             "(mem-write 11 0 release 11008 0)\n" CMC_DSB
                             "(tlbi 12 0 ipas2e1is 40200)\n(tlbi 13 0 alle1is)\n" CMC_DSB},
    {"bbm-parent-child-one-dsb", CMC_LOCKED "(mem-write 10 0 plain 12008 0)\n"
                                 "(mem-write 11 0 release 11008 0)\n" CMC_DSB
                                 "(tlbi 12 0 alle1is)\n" CMC_DSB "(mem-write 13 0 plain 11008 14003)\n"},
    {"write-unclean-parent", CMC_LOCKED "(mem-write 10 0 plain 11008 0)\n" CMC_DSB
                             "(mem-write 12 0 plain 12008 404004fd)\n"},
    {"freeze-thread-owned", CMC_LOCKED "(hint 10 0 set_pte_thread_owner 13000 0)\n"
                            "(mem-write 11 0 plain 12000 0)\n"},
    {"no-root-lock", "(mem-init 0 0 10000 1000)\n(sysreg-write 1 0 vttbr_el2 10000)\n"
                     "(mem-write 2 0 plain 10000 0)\n"},
    {"unlocked-write", CMC_TREE "(lock 9 1 90000)\n" CMC_INVAL},
    {"unauthorized-plain-write", CMC_LOCKED CMC_INVAL "(mem-write 11 0 plain 12008 0)\n"},
    {"thread-owned-write", CMC_LOCKED "(hint 10 0 set_pte_thread_owner 13000 1)\n"
                           "(mem-write 11 0 plain 13000 0)\n"},
    {"locks", "(trylock 1 0 90000)\n(trylock 2 0 90000)\n(unlock 3 0 90000)\n"
              "(unlock 4 0 90000)\n(lock 5 0 90000)\n(trylock 6 1 90000)\n"},
    {"lock-held", "(lock 1 0 90000)\n(lock 2 1 90000)\n"},
    {"unlock-not-held", "(unlock 1 0 90000)\n"},
    {"unlock-other-thread", "(lock 1 0 90000)\n(unlock 2 1 90000)\n"},
    {"uninit-write", "(mem-init 0 0 1000 8)\n(mem-set 1 0 1000 10 0)\n(mem-write 2 0 plain 2000 1)\n"},
    {"init-used", "(mem-init 0 0 1000 1000)\n(mem-write 1 0 plain 1008 5)\n(mem-init 2 0 1000 1000)\n"},
    {"free-pte", CMC_LOCKED "(mem-free 10 0 11000 1000)\n"},
    {"double-use-pte", CMC_LOCKED "(mem-write 10 0 plain 11010 12003)\n"},
    {"pte-changed", CMC_LOCKED "(mem-read 10 0 11000 400004fd)\n(mem-read 11 0 11000 5)\n"},
    {"uninit-pte", CMC_LOCKED "(mem-write 10 0 plain 11010 70003)\n"},
    {"bad-pte-encoding", CMC_LOCKED "(mem-write 10 0 plain 13008 1)\n"},
    {"unsupported-ia-size", "(sysreg-write 0 0 vtcr_el2 8)\n(mem-init 1 0 10000 1000)\n"
                            "(sysreg-write 2 0 vttbr_el2 10000)\n"},
    {"unsupported-granule", "(sysreg-write 0 0 vtcr_el2 4010)\n(mem-init 1 0 10000 1000)\n"
                            "(sysreg-write 2 0 vttbr_el2 10000)\n"},
    {"uninit-sysreg", "(sysreg-write 0 0 hcr_el2 1)\n(mem-init 1 0 10000 1000)\n"
                      "(sysreg-write 2 0 vttbr_el2 10000)\n"},
    {"ttbr0-asid-nonzero", "(mem-init 0 0 20000 1000)\n(sysreg-write 1 0 ttbr0_el2 1000000020000)\n"},
    {"root-id-conflict", "(mem-init 0 0 10000 1000)\n(sysreg-write 1 0 vttbr_el2 10000)\n"
                         "(sysreg-write 2 0 vttbr_el2 1000000010000)\n"},
    {"duplicate-id", "(mem-init 0 0 10000 3000)\n(sysreg-write 1 0 vttbr_el2 10000)\n"
                     "(sysreg-write 2 0 ttbr0_el2 11000)\n(sysreg-write 3 0 vttbr_el2 12000)\n"},
    {"root-stage-conflict", "(mem-init 0 0 10000 1000)\n(sysreg-write 1 0 vttbr_el2 10000)\n"
                            "(sysreg-write 2 0 ttbr0_el2 10000)\n"},
    {"root-not-found", CMC_LOCKED "(hint 10 0 release_table 11000 0)\n"},
    {"release-in-use", CMC_LOCKED "(hint 10 0 release_table 10000 0)\n"},
    {"release-unclean", CMC_LOCKED CMC_INVAL "(hint 11 0 release_table 10000 0)\n"},
    {"owner-root-in-tree", CMC_LOCKED "(hint 10 0 set_owner_root 11000 10000)\n"},
    {"thread-owner-hints", CMC_LOCKED "(hint 10 0 set_pte_thread_owner 14000 1)\n"
                           "(hint 11 0 set_pte_thread_owner 12000 1)\n"
                           "(hint 12 0 set_pte_thread_owner 70000 1)\n"},
    {"dsb-nsh", CMC_LOCKED CMC_INVAL "(barrier 11 0 dsb nsh)\n"},
    {"tlbi-not-broadcast", CMC_LOCKED CMC_INVAL CMC_DSB "(tlbi 12 0 vmalls12e1)\n"},
    {"tlbi-asid-ttl", CMC_S1 "(mem-write 10 0 plain 21000 0)\n" CMC_DSB
                      "(tlbi 12 0 vae2is 1000000000000)\n(tlbi 13 0 vale2is 500000000000)\n"
                      "(tlbi 14 0 vae2is (addr 0) (level 1))\n" CMC_DSB
                      "(mem-write 15 0 plain 21000 5fd)\n"},
    {"wrong-vmid", CMC_LOCKED "(mem-init 40 0 30000 1000)\n" CMC_INVAL CMC_DSB
                   "(sysreg-write 41 0 vttbr_el2 1000000030000)\n(tlbi 12 0 vmalls12e1is)\n"
                   "(sysreg-write 42 0 vttbr_el2 10000)\n" CMC_DSB CMC_REMAP},
    {"bad-race", "(mem-init 0 0 10000 1000)\n(hint 1 0 set_root_lock 10000 90000)\n"
                 "(sysreg-write 2 0 vttbr_el2 10000)\n(mem-write 3 1 release 10008 1 \"r\x01\xff\")\n"},
};

/* A 4-level stage-2 tree per root (L0, L1, L2, L3), BBM cycles on its L3
 * entries by several threads, each on its own VMID's root. */
static void cmc_cycles(buf *b)
{
    char line[256];
    unsigned id = 0;
    text(b, "(sysreg-write 0 0 vtcr_el2 10)\n(sysreg-write 1 0 hcr_el2 0)\n");
    for (unsigned r = 0; r < 2; r++) {
        unsigned long long base = 0x100000ULL + 0x10000ULL * r;
        snprintf(line, sizeof line, "(mem-init %u 0 %llx 4000)\n(hint %u 0 set_root_lock %llx %llx)\n"
                 "(mem-write %u 0 plain %llx %llx)\n(mem-write %u 0 plain %llx %llx)\n"
                 "(mem-write %u 0 plain %llx %llx)\n", id, base, id + 1, base, 0x7f000ULL + 8 * r,
                 id + 2, base, base + 0x1003, id + 3, base + 0x1000, base + 0x2003, id + 4,
                 base + 0x2000, base + 0x3003);
        text(b, line);
        id += 5;
        for (unsigned e = 0; e < 4; e++) {
            snprintf(line, sizeof line, "(mem-write %u 0 plain %llx %llx)\n", id++,
                     base + 0x3000 + 8 * e, 0x40000000ULL + 0x1000ULL * e + 0x4ff);
            text(b, line);
        }
    }
    for (unsigned t = 0; t < 2; t++) {
        snprintf(line, sizeof line, "(sysreg-write %u %u vttbr_el2 %llx)\n(sysreg-write %u %u hcr_el2 1)\n",
                 id, t, (unsigned long long)(t + 1) << 48 | (0x100000ULL + 0x10000ULL * t), id + 1, t);
        text(b, line);
        id += 2;
    }
    for (unsigned i = 0; i < 12; i++) {
        unsigned t = i % 2, e = (i / 2) % 4;
        unsigned long long base = 0x100000ULL + 0x10000ULL * t, lock = 0x7f000ULL + 8 * t;
        unsigned long long pte = base + 0x3000 + 8 * e;
        snprintf(line, sizeof line,
                 "(lock %u %u %llx)\n(mem-write %u %u plain %llx 0)\n(barrier %u %u dsb ish)\n"
                 "(tlbi %u %u ipas2e1is %x)\n(barrier %u %u dsb ish)\n(tlbi %u %u vmalle1is)\n"
                 "(barrier %u %u dsb ish)\n(mem-write %u %u plain %llx %llx)\n(unlock %u %u %llx)\n",
                 id, t, lock, id + 1, t, pte, id + 2, t, id + 3, t, e, id + 4, t, id + 5, t,
                 id + 6, t, id + 7, t, pte, 0x80000000ULL + 0x1000ULL * i + 0x4ff, id + 8, t, lock);
        text(b, line);
        id += 9;
    }
}

/* Random operations on the small tree, most of them well-formed. */
static void cmc_random(buf *b)
{
    static const char *const ops[] = {
        "(mem-write %u %u plain %llx 0)\n", "(mem-write %u %u release %llx 5fd)\n",
        "(mem-write %u %u plain %llx 13003)\n", "(barrier %u %u dsb ish)\n",
        "(tlbi %u %u alle1is)\n", "(tlbi %u %u ipas2e1is %llx)\n", "(lock %u %u 90000)\n",
        "(unlock %u %u 90000)\n", "(mem-read %u %u %llx 0)\n", "(hint %u %u release_table %llx 0)\n",
        "(mem-init %u %u %llx 1000)\n", "(mem-free %u %u %llx 8)\n",
        "(hint %u %u set_pte_thread_owner %llx 1)\n", "(barrier %u %u dsb nsh)\n",
    };
    static const unsigned long long addrs[] = {0x10000, 0x11000, 0x11008, 0x12000, 0x12008,
                                               0x13000, 0x13008, 0x14000, 0x40000};
    text(b, CMC_TREE);
    for (unsigned id = 9; id < 200; id++) {
        uint64_t r = rnd();
        char line[128];
        snprintf(line, sizeof line, ops[r % 14], id, (unsigned)(r >> 8) % 2,
                 addrs[(r >> 16) % 9]);
        text(b, line);
    }
}

static void seeds_casemate_check(buf *b)
{
    for (size_t i = 0; i < sizeof cmc_logs / sizeof cmc_logs[0]; i++) {
        text(b, cmc_logs[i].text);
        emit(cmc_logs[i].name, b);
    }
    cmc_cycles(b);
    emit("cycles-4-level", b);
    for (int i = 0; i < 4; i++) {
        char name[32];
        cmc_random(b);
        snprintf(name, sizeof name, "random-%d", i);
        emit(name, b);
    }
}

/* ---------------------------------------------------------------- ucir */

/* Spec traces: big-endian, frames of stored (uncompressed) zlib blocks
 * encoded here; .uc traces: little-endian ops in uncompressed Snappy
 * chunks with their CRC-32C. */

static void u16(buf *b, unsigned v) { uint_n(b, v, 2); }

static void hexs(buf *b, const char *s)
{
    int hi = -1;
    for (; *s; s++) {
        int v = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;
        if (v < 0)
            continue;
        if (hi < 0) {
            hi = v;
        } else {
            u8(b, (unsigned)(hi << 4 | v));
            hi = -1;
        }
    }
}

static void zlib_stored(buf *b, const uint8_t *d, size_t n)
{
    int was = big;
    u8(b, 0x78);
    u8(b, 0x01);
    size_t at = 0;
    big = 0;
    do {
        size_t k = n - at > 65535 ? 65535 : n - at;
        u8(b, at + k == n);
        u16(b, (unsigned)k);
        u16(b, (unsigned)(~k & 0xFFFF));
        put(b, d + at, k);
        at += k;
    } while (at < n);
    uint32_t a = 1, c = 0;
    for (size_t i = 0; i < n; i++) {
        a = (a + d[i]) % 65521;
        c = (c + a) % 65521;
    }
    big = 1;
    u32(b, c << 16 | a);
    big = was;
}

static void ucir_header(buf *b, unsigned version)
{
    char name[32] = "x86_64", os[32] = "linux";
    big = 1;
    put(b, "UCIR", 4);
    u32(b, version);
    u32(b, 4);
    u32(b, 8);
    put(b, name, 32);
    put(b, os, 32);
}

/* OP_FRAME around `body` */
static void ucir_frame(buf *b, int key, uint32_t ops, const buf *body)
{
    buf z = {0};
    zlib_stored(&z, body->p, body->len);
    big = 1;
    u8(b, 1);
    u8(b, (unsigned)key);
    u32(b, ops);
    u32(b, (uint32_t)z.len);
    put(b, z.p, z.len);
    free(z.p);
}

static void ucir_frame_hex(buf *b, int key, uint32_t ops, const char *hex)
{
    buf body = {0};
    hexs(&body, hex);
    ucir_frame(b, key, ops, &body);
    free(body.p);
}

/* One random spec op into `body` (a SYSCALL with a nested op or two). */
static unsigned ucir_random_op(buf *body)
{
    uint64_t r = rnd();
    unsigned id = (unsigned)(r % 12);
    if (id == 1)
        id = 3;
    big = 1;
    u8(body, id);
    switch (id) {
    case 2: u64(body, r >> 20); u32(body, (uint32_t)(r % 15) + 1); break;
    case 3: u32(body, (uint32_t)(r % 15) + 1); break;
    case 4: u16(body, 35 + (unsigned)(r >> 8) % 10); u64(body, r); break;
    case 5: u16(body, 122); u16(body, 16); for (int i = 0; i < 16; i++) u8(body, (unsigned)i); break;
    case 6:
    case 7: u64(body, r >> 24); u64(body, r % 9); for (uint64_t i = 0; i < r % 9; i++) u8(body, (unsigned)i); break;
    case 8: u64(body, r >> 24 << 12); u32(body, 0x1000); u8(body, (unsigned)(r & 7)); break;
    case 9: u64(body, r >> 24 << 12); u32(body, 0x1000); break;
    case 10:
        u16(body, (unsigned)(r % 300)); u64(body, r); u16(body, 2); u16(body, 1);
        u64(body, 1); u64(body, r >> 7);
        u8(body, 4); u16(body, 35); u64(body, r % 100);
        break;
    default: break;
    }
    return id;
}

static void ucir_demo(buf *b)
{
    ucir_header(b, 0);
    ucir_frame_hex(b, 1, 5,
                   "08 0000000000400000 00001000 05"
                   "07 0000000000400000 000000000000000c b801000000bf010000000f05"
                   "08 000000007ffef000 00011000 03"
                   "07 000000007fff0000 0000000000000003 68690a"
                   "04 002c 000000007fff0000");
    ucir_frame_hex(b, 0, 6,
                   "02 0000000000400000 00000005 04 0023 0000000000000001 03 00000005"
                   "04 0027 0000000000000001 03 00000002"
                   "0a 0001 0000000000000003 0003 0002 0000000000000001 000000007fff0000 0000000000000003"
                   "06 000000007fff0000 0000000000000003 68690a 04 0023 0000000000000003");
    ucir_frame_hex(b, 0, 2, "0a 003c 0000000000000000 0001 0000 0000000000000000 0b");
}

static uint32_t crc32c_masked(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    }
    c = ~c;
    return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

/* .uc: header + stream identifier + `ops` in uncompressed chunks */
static void uc_file(buf *b, const buf *ops, size_t chunk)
{
    char name[32] = "x86_64", os[32] = "linux";
    big = 1;
    put(b, "UCIR", 4);
    u32(b, 1);
    put(b, name, 32);
    put(b, os, 32);
    u8(b, 0);
    u8(b, 0);
    hexs(b, "ff060000734e61507059");
    big = 0;
    for (size_t at = 0; at < ops->len; at += chunk) {
        size_t k = ops->len - at < chunk ? ops->len - at : chunk;
        u8(b, 1);
        uint_n(b, k + 4, 3);
        u32(b, crc32c_masked(ops->p + at, k));
        put(b, ops->p + at, k);
    }
}

static const char uc_ops_hex[] =
    "02 0000000000000000 01000000 05 2300 0000000000000000"
    "01 0000000000000000 0c000000 00 03 0000400000000000 10000000 04 03"
    "05 2300 0100000000000000 06 ff00 0400 01020304 07 0010000000000000 04000000"
    "08 0010000000000000 02000000 dead"
    "09 0000400000000000 0010000000000000 05 0000000000000000 0010000000000000 0300 0600 657865 2f62696e2f78"
    "0a 0000400000000000 0010000000000000 0b 0000400000000000 0010000000000000 01"
    "0c 01000000 0500000000000000 03 0100 0100000000000000 0010000000000000 0500000000000000 05 2300 0500000000000000"
    "0d 01 0000000000000000 02000000 03 0000400000000000 08000000 04 03";

static void uc_build(buf *b, const char *hex, size_t chunk)
{
    buf ops = {0};
    hexs(&ops, hex);
    uc_file(b, &ops, chunk);
    free(ops.p);
}

static void uc_seed(buf *b, const char *name, const char *hex, size_t chunk)
{
    uc_build(b, hex, chunk);
    emit(name, b);
}

static void spec_seed(buf *b, const char *name, int key, uint32_t ops, const char *hex)
{
    ucir_header(b, 0);
    ucir_frame_hex(b, key, ops, hex);
    emit(name, b);
}

static void seeds_ucir(buf *b)
{
    ucir_demo(b);
    emit("spec-demo", b);
    ucir_header(b, 0);
    emit("spec-header-only", b);
    spec_seed(b, "spec-empty-frame", 0, 0, "");
    /* every op, frames of random ops, a frame of several stored blocks */
    ucir_header(b, 0);
    for (int f = 0; f < 40; f++) {
        buf body = {0};
        uint32_t n = (uint32_t)(rnd() % 30);
        for (uint32_t i = 0; i < n; i++)
            ucir_random_op(&body);
        ucir_frame(b, f % 10 == 0, n, &body);
        free(body.p);
    }
    emit("spec-random-frames", b);
    ucir_header(b, 0);
    buf body = {0};
    uint32_t n = 0;
    while (body.len < 70000) {
        ucir_random_op(&body);
        n++;
    }
    ucir_frame(b, 1, n, &body);
    free(body.p);
    emit("spec-big-frame", b);

    /* malformed */
    ucir_demo(b);
    b->p[2] = 'X';
    emit("bad-magic", b);
    ucir_demo(b);
    b->p[7] = 9;
    emit("bad-version", b);
    ucir_demo(b);
    b->len = 60;
    emit("truncated-header", b);
    ucir_demo(b);
    b->len -= 7;
    emit("truncated-frame", b);
    ucir_demo(b);
    b->p[b->len - 2] ^= 0x10;
    emit("bad-adler", b);
    ucir_header(b, 0);
    hexs(b, "07 00");
    emit("top-level-op", b);
    ucir_header(b, 0);
    hexs(b, "01 00 0000");
    emit("truncated-frame-header", b);
    spec_seed(b, "unknown-op", 1, 2, "00 2a");
    spec_seed(b, "nested-frame", 1, 1, "01 00 00000000 00000000");
    spec_seed(b, "op-count-more", 1, 1, "00 00");
    spec_seed(b, "op-count-less", 1, 3, "00 00");
    spec_seed(b, "mem-size-overflow", 1, 1, "07 0000000000000000 ffffffffffffffef 00");
    spec_seed(b, "spreg-short", 1, 1, "05 0001 0010 aa");
    spec_seed(b, "syscall-args-short", 1, 1, "0a 0001 0000000000000000 0005 0000 00");
    spec_seed(b, "syscall-nested-short", 1, 1, "0a 0001 0000000000000000 0000 0002 00");
    spec_seed(b, "syscall-in-syscall", 1, 1,
              "0a 0001 0000000000000000 0000 0001 0a 0001 0000000000000000 0000 0000");
    spec_seed(b, "exec-rel-first", 0, 2, "03 00000004 02 0000000000001000 00000004");
    ucir_header(b, 0);
    hexs(b, "01 00 00000001 00000005 7801 0003 00");
    emit("zlib-garbage", b);

    /* .uc */
    uc_seed(b, "uc-demo", uc_ops_hex, 65536);
    uc_seed(b, "uc-chunks-7", uc_ops_hex, 7);
    uc_seed(b, "uc-unknown-op", "01 0000000000000000 01000000 0e", 65536);
    uc_seed(b, "uc-nested-frame", "01 0000000000000000 01000000 02 0000000000000000 00000000", 65536);
    uc_seed(b, "uc-truncated", "01 0000000000000000 05000000 00 00 03 0000", 65536);
    uc_seed(b, "uc-step-first", "01 0000000000000000 02000000 04 03 03 0000400000000000 08000000", 65536);
    uc_seed(b, "uc-big-write", "08 0010000000000000 ffffff7f dead", 65536);
    uc_build(b, uc_ops_hex, 65536);
    b->p[b->len - 1] ^= 1;
    emit("uc-bad-crc", b);
    uc_build(b, uc_ops_hex, 65536);
    b->p[84] = 0x05;
    emit("uc-reserved-chunk", b);
}

/* ---------------------------------------------------------------- main */

static const struct {
    const char *name;
    void (*generate)(buf *);
} formats[] = {
    {"cacheray", seeds_cacheray},
    {"casemate", seeds_casemate},
    {"casemate_check", seeds_casemate_check},
    {"sink", seeds_sink},
    {"ucir", seeds_ucir},
    {"xray", seeds_xray},
};

int main(int argc, char **argv)
{
    int i = 1;
    if (i < argc && strcmp(argv[i], "--check") == 0) {
        checking = 1;
        i++;
    }
    if (i + 1 != argc) {
        fprintf(stderr, "usage: make_seeds [--check] CORPUS_DIR\n");
        return 2;
    }
    root = argv[i];
    buf b = {0};
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        char dir[4096];
        subdir = formats[f].name;
        snprintf(dir, sizeof dir, "%s/%s", root, subdir);
        if (!checking) {
            mkdir(root, 0777);
            if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
                fprintf(stderr, "make_seeds: %s: %s\n", dir, strerror(errno));
                return 2;
            }
        }
        rng = 0x2545F4914F6CDD1DULL; /* each format's seeds stand alone */
        formats[f].generate(&b);
    }
    free(b.p);
    if (checking) {
        if (failures)
            return 1;
        printf("make_seeds: %d seeds up to date\n", written);
    } else {
        printf("make_seeds: wrote %d seeds under %s\n", written, root);
    }
    return 0;
}
