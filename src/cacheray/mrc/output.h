/* What `tracekit mrc` prints (output.c, svg.c): the curves at their
 * points, the configured levels marked, and the miniature caches. */
#ifndef TK_CACHERAY_MRC_OUTPUT_H
#define TK_CACHERAY_MRC_OUTPUT_H

#include <stdio.h>

#include <tracekit/cacheray_mrc.h>
#include <tracekit/sink.h>

typedef struct mrc_out {
    const tk_mrc *m;
    const char *file;
    const tk_mrc_config *cfg;
    size_t nlevels;
    const tk_cachesim_level *levels; /* marked on the curves */
} mrc_out;

enum { MRC_MAX_POINTS = 512 };

/* The sizes (in lines) curve i is shown at, ascending: every count up to
 * 8 then four a doubling (`fine`), or the doublings; up to the first
 * doubling at or past both the footprint and the largest level, the
 * levels' sizes added. */
size_t mrc_points(const mrc_out *o, size_t i, int fine, uint64_t *lines);
/* Mean absolute error of curve i's SHARDS against its exact curve at the
 * fine points up to the footprint where SHARDS has resolution (from 1/R
 * lines); NaN without both. */
double mrc_mae(const mrc_out *o, size_t i);
/* "32K", "1M", "96" (bytes); "1.81M" when not round. */
void mrc_size_text(uint64_t bytes, char *buf, size_t n);

tk_status mrc_write_json(const mrc_out *o, tk_sink *s, tk_error *err);
void mrc_write_text(const mrc_out *o, FILE *f);
/* A self-contained SVG plot: miss rate against size (log2 axis). */
tk_status mrc_write_svg(const mrc_out *o, FILE *f, tk_error *err);

#endif
