/* The lower levels' fast passes with AVX2 set scans: this file is
 * compiled with -mavx2 (sim.cmake) and used only on CPUs that have it
 * (stream.c asks). */
#include "cacheray/sim/stream_pass.h"

#ifndef __AVX2__
#error "stream_avx2.c needs -mavx2"
#endif

extern const cs_serve_fn cs_serve_passes_avx2[3][3];
const cs_serve_fn cs_serve_passes_avx2[3][3] = CS_SERVE_PASSES;
