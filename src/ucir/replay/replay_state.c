/* Replay state: registers (a dense table over the 16-bit Unicorn enums),
 * special registers, and the memory map (disjoint regions in an address
 * tree: a map over existing ones replaces the overlap, an unmap splits). */
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

static int maps_reserve(tk_ucir_replay *rp)
{
    void *maps = rp->maps;
    int rc = tk_ucir_atree_reserve(&rp->map_tree, &maps, sizeof *rp->maps);
    rp->maps = maps;
    return rc;
}

void rp_maps_free(tk_ucir_replay *rp)
{
    tk_ucir_atree_free(&rp->map_tree);
    free(rp->maps);
    rp->maps = NULL;
}

/* The last byte of a region (sizes are clamped to the address space). */
static uint64_t last_byte(uint64_t addr, uint64_t size)
{
    return addr + size - 1 < addr ? UINT64_MAX : addr + size - 1;
}

/* The first region whose last byte is at or after `lo`, 0: none. */
static uint32_t first_ending_at_or_after(tk_ucir_replay *rp, uint64_t lo)
{
    uint32_t k = tk_ucir_atree_floor(&rp->map_tree, lo);
    if (k && last_byte(rp->maps[k].addr, rp->maps[k].size) >= lo)
        return k;
    return k ? tk_ucir_atree_next(&rp->map_tree, k) : tk_ucir_atree_first(&rp->map_tree);
}

/* Region k holds [lo, hi] strictly inside: split it in two around it. */
static int split(tk_ucir_replay *rp, uint32_t k, uint64_t lo, uint64_t hi)
{
    if (maps_reserve(rp) != 0)
        return -1;
    tk_ucir_map *m = &rp->maps[k];
    uint64_t mhi = last_byte(m->addr, m->size);
    uint32_t right = tk_ucir_atree_insert(&rp->map_tree, hi + 1);
    rp->maps[right] = *m;
    rp->maps[right].addr = hi + 1;
    rp->maps[right].size = mhi - hi;
    m->size = lo - m->addr;
    return 0;
}

/* Only the regions from the first one reaching `addr` are visited, each
 * removed in O(log n): a million maps cost a tree search each, whatever
 * their order, not a scan or a shift. */
int rp_unmap(tk_ucir_replay *rp, uint64_t addr, uint64_t size)
{
    if (!size)
        return 0;
    uint64_t lo = addr, hi = last_byte(addr, size);
    uint32_t k = first_ending_at_or_after(rp, lo);
    if (!k || rp->maps[k].addr > hi)
        return 0;
    tk_ucir_map *m = &rp->maps[k];
    uint64_t mlo = m->addr, mhi = last_byte(m->addr, m->size);
    if (mlo < lo && mhi > hi)
        return split(rp, k, lo, hi);
    if (mlo < lo) { /* keep its head */
        m->size = lo - mlo;
        k = tk_ucir_atree_next(&rp->map_tree, k);
    }
    while (k && last_byte(rp->maps[k].addr, rp->maps[k].size) <= hi) { /* wholly inside */
        uint32_t next = tk_ucir_atree_next(&rp->map_tree, k);
        tk_ucir_atree_erase(&rp->map_tree, k);
        k = next;
    }
    if (k && rp->maps[k].addr <= hi) { /* keep its tail */
        uint64_t khi = last_byte(rp->maps[k].addr, rp->maps[k].size);
        rp->maps[k].addr = hi + 1;
        rp->maps[k].size = khi - hi;
        tk_ucir_atree_rekey(&rp->map_tree, k, hi + 1);
    }
    return 0;
}

int rp_map(tk_ucir_replay *rp, uint64_t addr, uint64_t size, uint8_t prot)
{
    if (!size)
        return 0;
    if (rp_unmap(rp, addr, size) != 0 || maps_reserve(rp) != 0)
        return -1;
    uint32_t k = tk_ucir_atree_insert(&rp->map_tree, addr); /* none overlaps now */
    uint64_t hi = last_byte(addr, size);
    rp->maps[k] = (tk_ucir_map){addr, hi - addr + 1 ? hi - addr + 1 : UINT64_MAX, prot};
    return 0;
}

size_t tk_ucir_replay_maps(const tk_ucir_replay *rp, tk_ucir_map *maps, size_t cap)
{
    size_t n = 0;
    for (uint32_t k = tk_ucir_atree_first(&rp->map_tree); k && n < cap;
         k = tk_ucir_atree_next(&rp->map_tree, k))
        maps[n++] = rp->maps[k];
    return rp->map_tree.n;
}

tk_status tk_ucir_replay_read(tk_ucir_replay *rp, uint64_t addr, size_t len, uint8_t *buf,
                              uint8_t *known, tk_error *err)
{
    if (rp_mem_read(&rp->mem, addr, len, buf, known) != 0)
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                            "cannot read memory from the checkpoint index");
    return TK_OK;
}
