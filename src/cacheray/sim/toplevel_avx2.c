/* The first level's fast passes with an AVX2 set scan: this file is
 * compiled with -mavx2 (sim.cmake) and used only on CPUs that have it
 * (cs_top_pass asks). */
#include "cacheray/sim/toplevel_pass.h"

#ifndef __AVX2__
#error "toplevel_avx2.c needs -mavx2"
#endif

extern const cs_pass_fn cs_top_passes_avx2[3][4];
const cs_pass_fn cs_top_passes_avx2[3][4] = CS_TOP_PASSES;
