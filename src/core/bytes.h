/* Unaligned loads and stores in either byte order, independent of the host. */
#ifndef TK_CORE_BYTES_H
#define TK_CORE_BYTES_H

#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define TK_HOST_BIG 1
#else
#define TK_HOST_BIG 0
#endif

static inline uint16_t tk_ld16(const uint8_t *p, int big)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return big != TK_HOST_BIG ? __builtin_bswap16(v) : v;
}

static inline uint32_t tk_ld32(const uint8_t *p, int big)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return big != TK_HOST_BIG ? __builtin_bswap32(v) : v;
}

static inline uint64_t tk_ld64(const uint8_t *p, int big)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return big != TK_HOST_BIG ? __builtin_bswap64(v) : v;
}

static inline void tk_st16(uint8_t *p, uint16_t v, int big)
{
    if (big != TK_HOST_BIG)
        v = __builtin_bswap16(v);
    memcpy(p, &v, sizeof v);
}

static inline void tk_st32(uint8_t *p, uint32_t v, int big)
{
    if (big != TK_HOST_BIG)
        v = __builtin_bswap32(v);
    memcpy(p, &v, sizeof v);
}

static inline void tk_st64(uint8_t *p, uint64_t v, int big)
{
    if (big != TK_HOST_BIG)
        v = __builtin_bswap64(v);
    memcpy(p, &v, sizeof v);
}

#endif
