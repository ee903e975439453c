/* What a format supplies to the registry (libpcap-style probe table). */
#ifndef TK_CORE_FORMAT_OPS_H
#define TK_CORE_FORMAT_OPS_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/format.h>

/* Bytes handed to probes: enough for every format's signature. */
#define TK_PROBE_BYTES 4096

struct tk_format {
    const char *name;
    const char *description;
    /* Confidence 0 (not mine) .. 100 (certain) from the first `n` bytes;
     * `whole` says these are all the bytes there are. */
    int (*probe)(const uint8_t *head, size_t n, int whole);
    tk_status (*info)(tk_input *, const tk_options *, tk_sink *, tk_error *);
    tk_status (*dump)(tk_input *, const tk_options *, tk_sink *, tk_error *);
    tk_status (*validate)(tk_input *, const tk_options *, tk_sink *,
                          uint64_t *nwarnings, tk_error *);
    tk_status (*convert)(tk_input *, const tk_options *, const char *target,
                         FILE *, tk_error *);
    tk_status (*report)(tk_input *, const tk_options *, tk_sink *, tk_error *);
    const char *const *targets; /* NULL-terminated */
};

/* Each format defines one of these in src/<format>/format.c. */
extern const struct tk_format tk_fmt_cacheray;
extern const struct tk_format tk_fmt_xray;
extern const struct tk_format tk_fmt_casemate;
extern const struct tk_format tk_fmt_ucir;
extern const struct tk_format tk_fmt_usercorn;

#endif
