/* The tk_mrc handle (mrc.c) as run.c feeds it. */
#ifndef TK_CACHERAY_MRC_ENGINE_H
#define TK_CACHERAY_MRC_ENGINE_H

#include "cacheray/mrc/mrc_int.h"

typedef struct mrc_curve {
    unsigned shift;    /* log2 of the line size */
    uint64_t line_accesses;
    int exact, shards; /* which are on */
    mrc_stack stack;
    mrc_exact hist;
    mrc_shards sh;
} mrc_curve;

struct tk_mrc {
    tk_mrc_config cfg;
    size_t ncurves;
    mrc_curve curve[TK_MRC_MAX_LINE_SIZES];
    size_t nminis;
    mrc_mini mini[TK_MRC_MAX_SIZES];
    tk_mrc_totals tot;
    int oom;
};

/* One access of `size` bytes at `addr` (run.c). */
void mrc_access(tk_mrc *m, uint64_t addr, unsigned size);

#endif
