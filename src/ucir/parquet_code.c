/* The memory behind the instructions' bytes: the replay's sparse pages
 * (ucir/replay/replay_mem.c) with a cap on their number, so a conversion
 * stays within a fixed memory whatever the trace touches. A page is
 * either followed from its first touch on or never, so a byte read back
 * is the replay's value or unknown, never a stale one. */
#include <string.h>

#include "ucir/parquet_int.h"

void tk_ucir_pq_code_init(tk_ucir_pq_code *c, size_t max_pages)
{
    rp_mem_init(&c->mem);
    c->max_pages = max_pages;
}

void tk_ucir_pq_code_free(tk_ucir_pq_code *c) { rp_mem_free(&c->mem); }

/* Is page pn followed (or may it be)? */
static int followed(tk_ucir_pq_code *c, uint64_t pn)
{
    int oom = 0;
    return c->mem.pages.n < c->max_pages || rp_mem_page(&c->mem, pn, &oom) != NULL;
}

int tk_ucir_pq_code_store(tk_ucir_pq_code *c, uint64_t addr, const uint8_t *data, uint64_t len)
{
    while (len) {
        uint64_t off = addr & (RP_PAGE - 1);
        uint64_t n = RP_PAGE - off < len ? RP_PAGE - off : len;
        if (followed(c, addr >> RP_PAGE_SHIFT) && rp_mem_store(&c->mem, addr, data, n) != 0)
            return -1;
        data += n;
        len -= n;
        if (addr + n < addr) /* the top of the address space */
            break;
        addr += n;
    }
    return 0;
}

int tk_ucir_pq_code_forget(tk_ucir_pq_code *c, uint64_t addr, uint64_t len)
{
    return rp_mem_forget(&c->mem, addr, len);
}

void tk_ucir_pq_code_read(tk_ucir_pq_code *c, uint64_t addr, size_t n, uint8_t *buf,
                          uint8_t *known)
{
    memset(known, 0, n);
    if (addr > UINT64_MAX - n) /* not past the top */
        n = (size_t)(UINT64_MAX - addr);
    /* no base (no checkpoint index): reading cannot fail */
    (void)rp_mem_read(&c->mem, addr, n, buf, known);
}
