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

/* ---------------------------------------------------------------- main */

static const struct {
    const char *name;
    void (*generate)(buf *);
} formats[] = {
    {"cacheray", seeds_cacheray},
    {"sink", seeds_sink},
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
