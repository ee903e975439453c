/* Access streams for the miss-ratio-curve tests (gen.h). */
#include <string.h>

#include "gen.h"

static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double unit(uint64_t *s) { return (double)(next_u64(s) >> 11) / 9007199254740992.0; }

void mg_init(mg_state *g, uint64_t seed, uint64_t lines)
{
    g->rng = seed;
    g->lines = lines ? lines : 1;
    g->sweep[0] = g->sweep[1] = 0;
}

void mg_next(mg_state *g, tk_cacheray_record *rec)
{
    double u = unit(&g->rng), v = unit(&g->rng);
    uint64_t half = g->lines / 2 + 1, line;
    if (u < 0.4) {
        line = (uint64_t)(32 * v); /* the stack */
    } else if (u < 0.7) {
        int a = u < 0.55;
        line = a * half + (g->sweep[a] / 64) % half; /* the arrays */
        g->sweep[a] += 8;
    } else if (u < 0.9) {
        line = (uint64_t)((double)(g->lines / 4 + 1) * v);
    } else {
        line = (uint64_t)((double)g->lines * v);
    }
    uint64_t r = next_u64(&g->rng);
    memset(rec, 0, sizeof *rec);
    rec->type = r & 1 ? TK_CACHERAY_WRITE : TK_CACHERAY_READ;
    rec->size = (r >> 8) % 64 == 0 ? 0 : 1 + (uint8_t)((r >> 16) % 16);
    rec->addr = 0x10000000ULL + line * 64 + (r >> 24) % 64;
    rec->thread = 1 + (r >> 40) % 2;
}
