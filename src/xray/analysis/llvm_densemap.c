/* LLVM DenseMap's bucket layout, emulated for ordering only: 64 buckets to
 * start, quadratic probing from hash & mask, growth to twice the buckets at
 * 3/4 load (or a same-size rehash when tombstones fill all but 1/8), and
 * rehashing in old bucket order. */
#include <stdlib.h>
#include <string.h>

#include "xray/analysis/llvm_densemap.h"

enum { EMPTY, FULL, TOMB };

void tk_densemap_free(tk_densemap *m)
{
    free(m->keys);
    free(m->state);
    memset(m, 0, sizeof *m);
}

/* llvm::detail::combineHashValue (llvm/ADT/DenseMapInfo.h) of two hashes. */
static uint32_t combine(uint32_t a, uint32_t b)
{
    uint64_t key = (uint64_t)a << 32 | (uint64_t)b;
    key += ~(key << 32);
    key ^= (key >> 22);
    key += ~(key << 13);
    key ^= (key >> 8);
    key += (key << 3);
    key ^= (key >> 15);
    key += ~(key << 27);
    key ^= (key >> 31);
    return (uint32_t)key;
}

uint32_t tk_densemap_pair_hash(uint32_t first, uint32_t second)
{
    return combine(first * 37u, second * 37u);
}

static uint32_t hash_of(const tk_densemap *m, uint64_t key)
{
    if (m->hashes)
        return m->pairs ? combine(m->hashes[key >> 32], m->hashes[(uint32_t)key])
                        : m->hashes[key];
    if (m->pairs)
        return tk_densemap_pair_hash((uint32_t)(key >> 32), (uint32_t)key);
    return (uint32_t)key * 37u;
}

/* The bucket holding `key`, or where it would go; -1 without buckets. */
static long lookup(const tk_densemap *m, uint64_t key, int *found)
{
    *found = 0;
    if (!m->nbuckets)
        return -1;
    size_t mask = m->nbuckets - 1, b = hash_of(m, key) & mask, probe = 1;
    long tomb = -1;
    for (;;) {
        if (m->state[b] == FULL && m->keys[b] == key) {
            *found = 1;
            return (long)b;
        }
        if (m->state[b] == EMPTY)
            return tomb >= 0 ? tomb : (long)b;
        if (m->state[b] == TOMB && tomb < 0)
            tomb = (long)b;
        b = (b + probe++) & mask;
    }
}

static void grow(tk_densemap *m, size_t at_least)
{
    size_t n = 64;
    while (n < at_least)
        n *= 2;
    uint64_t *keys = calloc(n, sizeof *keys);
    unsigned char *state = calloc(n, 1);
    if (!keys || !state) {
        free(keys);
        free(state);
        m->oom = 1;
        return;
    }
    tk_densemap old = *m;
    m->keys = keys;
    m->state = state;
    m->nbuckets = n;
    m->entries = m->tombstones = 0;
    for (size_t i = 0; i < old.nbuckets; i++)
        if (old.state[i] == FULL) {
            int found;
            long b = lookup(m, old.keys[i], &found);
            m->state[b] = FULL;
            m->keys[b] = old.keys[i];
            m->entries++;
        }
    free(old.keys);
    free(old.state);
}

static void insert(tk_densemap *m, uint64_t key)
{
    int found;
    long b = lookup(m, key, &found);
    if (found || m->oom)
        return;
    size_t want = m->entries + 1;
    if (want * 4 >= m->nbuckets * 3)
        grow(m, m->nbuckets * 2);
    else if (m->nbuckets - (want + m->tombstones) <= m->nbuckets / 8)
        grow(m, m->nbuckets);
    if (m->oom)
        return;
    b = lookup(m, key, &found);
    if (m->state[b] == TOMB)
        m->tombstones--;
    m->state[b] = FULL;
    m->keys[b] = key;
    m->entries++;
}

void tk_densemap_insert(tk_densemap *m, uint32_t key) { insert(m, key); }

void tk_densemap_erase(tk_densemap *m, uint32_t key)
{
    int found;
    long b = lookup(m, key, &found);
    if (!found)
        return;
    m->state[b] = TOMB;
    m->entries--;
    m->tombstones++;
}

int tk_densemap_contains(const tk_densemap *m, uint32_t key)
{
    int found;
    lookup(m, key, &found);
    return found;
}

size_t tk_densemap_keys(const tk_densemap *m, uint32_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nbuckets; i++)
        if (m->state[i] == FULL)
            out[n++] = (uint32_t)m->keys[i];
    return n;
}

void tk_densemap_pair_insert(tk_densemap *m, uint32_t first, uint32_t second)
{
    m->pairs = 1;
    insert(m, (uint64_t)first << 32 | second);
}

int tk_densemap_pair_contains(const tk_densemap *m, uint32_t first, uint32_t second)
{
    if (!m->pairs && m->nbuckets)
        return 0;
    int found;
    lookup(m, (uint64_t)first << 32 | second, &found);
    return found;
}

size_t tk_densemap_pair_keys(const tk_densemap *m, uint64_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nbuckets; i++)
        if (m->state[i] == FULL)
            out[n++] = m->keys[i];
    return n;
}

/* ---- llvm::hash_value(StringRef): hash_combine_range over the bytes */

static const uint64_t k0 = 0xc3a5c85c97cb3127ULL, k1 = 0xb492b66fbe98f273ULL,
                      k2 = 0x9ae16a3b2f90404fULL, k3 = 0xc949d7c7509e6557ULL;
#define LLVM_SEED 0xff51afd7ed558ccdULL /* get_execution_seed() without override */

static uint64_t fetch64(const char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | (unsigned char)p[i];
    return v;
}

static uint64_t fetch32(const char *p)
{
    uint64_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | (unsigned char)p[i];
    return v;
}

static uint64_t rotate(uint64_t v, unsigned shift)
{
    return shift == 0 ? v : (v >> shift) | (v << (64 - shift));
}

static uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }

static uint64_t hash_16(uint64_t low, uint64_t high)
{
    const uint64_t mul = 0x9ddfea08eb382d69ULL;
    uint64_t a = (low ^ high) * mul;
    a ^= a >> 47;
    uint64_t b = (high ^ a) * mul;
    b ^= b >> 47;
    return b * mul;
}

static uint64_t hash_33to64(const char *s, size_t len, uint64_t seed)
{
    uint64_t z = fetch64(s + 24);
    uint64_t a = fetch64(s) + (len + fetch64(s + len - 16)) * k0;
    uint64_t b = rotate(a + z, 52), c = rotate(a, 37);
    a += fetch64(s + 8);
    c += rotate(a, 7);
    a += fetch64(s + 16);
    uint64_t vf = a + z, vs = b + rotate(a, 31) + c;
    a = fetch64(s + 16) + fetch64(s + len - 32);
    z = fetch64(s + len - 8);
    b = rotate(a + z, 52);
    c = rotate(a, 37);
    a += fetch64(s + len - 24);
    c += rotate(a, 7);
    a += fetch64(s + len - 16);
    uint64_t wf = a + z, ws = b + rotate(a, 31) + c;
    uint64_t r = shift_mix((vf + ws) * k2 + (wf + vs) * k0);
    return shift_mix((seed ^ (r * k0)) + vs) * k2;
}

static uint64_t hash_short(const char *s, size_t len, uint64_t seed)
{
    if (len >= 4 && len <= 8)
        return hash_16(len + (fetch32(s) << 3), seed ^ fetch32(s + len - 4));
    if (len > 8 && len <= 16) {
        uint64_t a = fetch64(s), b = fetch64(s + len - 8);
        return hash_16(seed ^ a, rotate(b + len, (unsigned)len)) ^ b;
    }
    if (len > 16 && len <= 32) {
        uint64_t a = fetch64(s) * k1, b = fetch64(s + 8);
        uint64_t c = fetch64(s + len - 8) * k2, d = fetch64(s + len - 16) * k0;
        return hash_16(rotate(a - b, 43) + rotate(c ^ seed, 30) + d,
                       a + rotate(b ^ k3, 20) - c + len + seed);
    }
    if (len > 32)
        return hash_33to64(s, len, seed);
    if (len == 0)
        return k2 ^ seed;
    uint8_t a = (uint8_t)s[0], b = (uint8_t)s[len >> 1], c = (uint8_t)s[len - 1];
    uint32_t y = (uint32_t)a + ((uint32_t)b << 8), z = (uint32_t)len + ((uint32_t)c << 2);
    return shift_mix(y * k2 ^ z * k3 ^ seed) * k2;
}

/* hash_state: CityHash's 56 bytes of state over 64-byte chunks. */
typedef struct hstate {
    uint64_t h0, h1, h2, h3, h4, h5, h6;
} hstate;

static void mix_32(const char *s, uint64_t *a, uint64_t *b)
{
    *a += fetch64(s);
    uint64_t c = fetch64(s + 24);
    *b = rotate(*b + *a + c, 21);
    uint64_t d = *a;
    *a += fetch64(s + 8) + fetch64(s + 16);
    *b += rotate(*a, 44) + d;
    *a += c;
}

static void mix(hstate *h, const char *s)
{
    h->h0 = rotate(h->h0 + h->h1 + h->h3 + fetch64(s + 8), 37) * k1;
    h->h1 = rotate(h->h1 + h->h4 + fetch64(s + 48), 42) * k1;
    h->h0 ^= h->h6;
    h->h1 += h->h3 + fetch64(s + 40);
    h->h2 = rotate(h->h2 + h->h5, 33) * k1;
    h->h3 = h->h4 * k1;
    h->h4 = h->h0 + h->h5;
    mix_32(s, &h->h3, &h->h4);
    h->h5 = h->h2 + h->h6;
    h->h6 = h->h1 + fetch64(s + 16);
    mix_32(s + 32, &h->h5, &h->h6);
    uint64_t t = h->h2;
    h->h2 = h->h0;
    h->h0 = t;
}

uint32_t tk_densemap_str_hash(const char *s, size_t n)
{
    const uint64_t seed = LLVM_SEED;
    if (n <= 64)
        return (uint32_t)hash_short(s, n, seed);
    hstate h = {0, seed, hash_16(seed, k1), rotate(seed ^ k1, 49), seed * k1, shift_mix(seed), 0};
    h.h6 = hash_16(h.h4, h.h5);
    mix(&h, s);
    const char *p = s + 64, *aligned_end = s + (n & ~(size_t)63);
    for (; p != aligned_end; p += 64)
        mix(&h, p);
    if (n & 63)
        mix(&h, s + n - 64);
    return (uint32_t)hash_16(hash_16(h.h3, h.h5) + shift_mix(h.h1) * k1 + h.h2,
                             hash_16(h.h4, h.h6) + shift_mix(n) * k1 + h.h0);
}
