/* Replay state: registers (a dense table over the 16-bit Unicorn enums),
 * special registers, and the memory map (sorted disjoint regions: a map
 * over existing ones replaces the overlap, an unmap splits). */
#include <stdlib.h>
#include <string.h>

#include "ucir/replay/replay_int.h"

void rp_set_reg(tk_ucir_replay *rp, uint32_t num, uint64_t value)
{
    num &= RP_NREGS - 1;
    rp->regs[num] = value;
    rp->have[num / 64] |= (uint64_t)1 << (num % 64);
}

int tk_ucir_replay_reg(const tk_ucir_replay *rp, uint32_t num, uint64_t *value)
{
    if (num >= RP_NREGS || !(rp->have[num / 64] >> (num % 64) & 1))
        return 0;
    *value = rp->regs[num];
    return 1;
}

size_t tk_ucir_replay_regs(const tk_ucir_replay *rp, uint32_t *nums, uint64_t *values,
                           size_t cap)
{
    size_t n = 0;
    for (uint32_t w = 0; w < RP_NREGS / 64; w++)
        for (uint64_t bits = rp->have[w]; bits; bits &= bits - 1) {
            uint32_t num = w * 64 + (uint32_t)__builtin_ctzll(bits);
            if (n < cap) {
                nums[n] = num;
                values[n] = rp->regs[num];
            }
            n++;
        }
    return n;
}

int rp_set_spreg(tk_ucir_replay *rp, uint32_t num, const uint8_t *data, uint32_t len)
{
    rp_spreg *s = NULL;
    for (size_t i = 0; i < rp->nspregs; i++)
        if (rp->spregs[i].num == num)
            s = &rp->spregs[i];
    if (!s) {
        if (rp->nspregs == rp->spregs_cap) {
            size_t cap = rp->spregs_cap ? 2 * rp->spregs_cap : 8;
            rp_spreg *v = realloc(rp->spregs, cap * sizeof *v);
            if (!v)
                return -1;
            rp->spregs = v;
            rp->spregs_cap = cap;
        }
        s = &rp->spregs[rp->nspregs++];
        memset(s, 0, sizeof *s);
        s->num = num;
    }
    uint8_t *d = malloc(len ? len : 1);
    if (!d)
        return -1;
    if (len)
        memcpy(d, data, len);
    free(s->data);
    s->data = d;
    s->len = len;
    return 0;
}

/* ---- memory map */

static int maps_reserve(tk_ucir_replay *rp, size_t extra)
{
    if (rp->nmaps + extra <= rp->maps_cap)
        return 0;
    size_t cap = rp->maps_cap ? 2 * rp->maps_cap : 16;
    while (cap < rp->nmaps + extra)
        cap *= 2;
    tk_ucir_map *v = realloc(rp->maps, cap * sizeof *v);
    if (!v)
        return -1;
    rp->maps = v;
    rp->maps_cap = cap;
    return 0;
}

/* The last byte of a region (sizes are clamped to the address space). */
static uint64_t last_byte(uint64_t addr, uint64_t size)
{
    return addr + size - 1 < addr ? UINT64_MAX : addr + size - 1;
}

/* The first region whose last byte is at or after `lo`: the regions are
 * sorted and disjoint, so their last bytes are sorted too. */
static size_t first_ending_at_or_after(const tk_ucir_replay *rp, uint64_t lo)
{
    size_t a = 0, b = rp->nmaps;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (last_byte(rp->maps[mid].addr, rp->maps[mid].size) < lo)
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

/* Only the regions from the first one reaching `addr` are visited, and
 * the ones wholly inside go in one memmove: a million maps cost a binary
 * search each, not a scan. */
int rp_unmap(tk_ucir_replay *rp, uint64_t addr, uint64_t size)
{
    if (!size)
        return 0;
    uint64_t lo = addr, hi = last_byte(addr, size);
    if (maps_reserve(rp, 1) != 0)
        return -1;
    size_t i = first_ending_at_or_after(rp, lo);
    if (i == rp->nmaps || rp->maps[i].addr > hi)
        return 0;
    tk_ucir_map *m = &rp->maps[i];
    uint64_t mlo = m->addr, mhi = last_byte(m->addr, m->size);
    if (mlo < lo && mhi > hi) { /* split in two */
        memmove(m + 1, m, (rp->nmaps - i) * sizeof *m);
        rp->nmaps++;
        m->size = lo - mlo;
        m[1].addr = hi + 1;
        m[1].size = mhi - hi;
        return 0;
    }
    if (mlo < lo) { /* keep its head */
        m->size = lo - mlo;
        i++;
    }
    size_t j = i; /* [i, j): regions wholly inside, removed */
    while (j < rp->nmaps && last_byte(rp->maps[j].addr, rp->maps[j].size) <= hi)
        j++;
    if (j < rp->nmaps && rp->maps[j].addr <= hi) { /* keep its tail */
        uint64_t jhi = last_byte(rp->maps[j].addr, rp->maps[j].size);
        rp->maps[j].addr = hi + 1;
        rp->maps[j].size = jhi - hi;
    }
    memmove(&rp->maps[i], &rp->maps[j], (rp->nmaps - j) * sizeof *rp->maps);
    rp->nmaps -= j - i;
    return 0;
}

int rp_map(tk_ucir_replay *rp, uint64_t addr, uint64_t size, uint8_t prot)
{
    if (!size)
        return 0;
    if (rp_unmap(rp, addr, size) != 0 || maps_reserve(rp, 1) != 0)
        return -1;
    size_t i = first_ending_at_or_after(rp, addr); /* none overlaps now */
    memmove(&rp->maps[i + 1], &rp->maps[i], (rp->nmaps - i) * sizeof *rp->maps);
    uint64_t hi = last_byte(addr, size);
    rp->maps[i] = (tk_ucir_map){addr, hi - addr + 1 ? hi - addr + 1 : UINT64_MAX, prot};
    rp->nmaps++;
    return 0;
}

size_t tk_ucir_replay_maps(const tk_ucir_replay *rp, tk_ucir_map *maps, size_t cap)
{
    for (size_t i = 0; i < rp->nmaps && i < cap; i++)
        maps[i] = rp->maps[i];
    return rp->nmaps;
}

tk_status tk_ucir_replay_read(tk_ucir_replay *rp, uint64_t addr, size_t len, uint8_t *buf,
                              uint8_t *known, tk_error *err)
{
    if (rp_mem_read(&rp->mem, addr, len, buf, known) != 0)
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                            "cannot read memory from the checkpoint index");
    return TK_OK;
}
