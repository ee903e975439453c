/* Degenerate XRay traces for make bench's "shapes" section (issue 23):
 * each stresses one dimension of the analyses, against a normal trace of
 * the same number of records.
 *   roots N    N distinct functions, each called once at top level
 *   threads N  N threads, one call each
 *   deep N     one function recursing N/2 deep, then returning, on each of
 *              two threads (so that merging threads' stacks meets depth)
 *   exits N    N exits with no entry (every one unmatched)
 *   normal N   about N records of nested calls among 1000 functions on
 *              4 threads (depth at most 16)
 * Basic mode version 3 (32-byte records), TSC += 10 per record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/xray.h>

#include "gen_common.h"

static tk_xray_writer *writer;
static tk_error err;
static uint64_t tsc = 1000000;

static void usage(void)
{
    fprintf(stderr, "usage: tk-gen-xray-shapes roots|threads|deep|exits|normal N -o OUT\n");
    exit(2);
}

static void put(tk_xray_kind kind, int32_t func, uint32_t tid)
{
    tk_xray_record rec;
    memset(&rec, 0, sizeof rec);
    rec.kind = kind;
    rec.func_id = func;
    rec.tsc = tsc += 10;
    rec.tid = tid;
    rec.pid = 4242;
    if (tk_xray_write(writer, &rec, &err) != TK_OK) {
        fprintf(stderr, "tk-gen-xray-shapes: %s\n", err.message);
        exit(2);
    }
}

static void normal(uint64_t n)
{
    int32_t stack[4][16];
    unsigned depth[4] = {0};
    for (uint64_t i = 0; i < n; i++) {
        unsigned t = (unsigned)(rnd() % 4);
        int enter = depth[t] == 0 || (depth[t] < 16 && rnd() % 2);
        if (enter) {
            stack[t][depth[t]] = 1 + (int32_t)(rnd() % 1000);
            put(TK_XRAY_ENTER, stack[t][depth[t]++], 100 + t);
        } else {
            put(TK_XRAY_EXIT, stack[t][--depth[t]], 100 + t);
        }
    }
    for (unsigned t = 0; t < 4; t++)
        while (depth[t])
            put(TK_XRAY_EXIT, stack[t][--depth[t]], 100 + t);
}

int main(int argc, char **argv)
{
    uint64_t n;
    FILE *out;
    const char *shape = shape_args(argc, argv, &n, &out);
    tk_xray_header h;
    tk_xray_default_header(&h, TK_XRAY_BASIC, 3);
    if (!(writer = tk_xray_writer_new(out, &h, &err))) {
        fprintf(stderr, "tk-gen-xray-shapes: %s\n", err.message);
        return 2;
    }
    if (!strcmp(shape, "roots")) {
        for (uint64_t i = 1; i <= n; i++) {
            put(TK_XRAY_ENTER, (int32_t)i, 1);
            put(TK_XRAY_EXIT, (int32_t)i, 1);
        }
    } else if (!strcmp(shape, "threads")) {
        for (uint64_t i = 1; i <= n; i++) {
            put(TK_XRAY_ENTER, 7, (uint32_t)i);
            put(TK_XRAY_EXIT, 7, (uint32_t)i);
        }
    } else if (!strcmp(shape, "deep")) {
        for (uint32_t tid = 1; tid <= 2; tid++) {
            for (uint64_t i = 0; i < n / 2; i++)
                put(TK_XRAY_ENTER, 7, tid);
            for (uint64_t i = 0; i < n / 2; i++)
                put(TK_XRAY_EXIT, 7, tid);
        }
    } else if (!strcmp(shape, "exits")) {
        for (uint64_t i = 0; i < n; i++)
            put(TK_XRAY_EXIT, 1 + (int32_t)(i % 1000), 1);
    } else if (!strcmp(shape, "normal")) {
        normal(n);
    } else {
        usage();
    }
    if (tk_xray_writer_free(writer, &err) != TK_OK || fclose(out) != 0) {
        fprintf(stderr, "tk-gen-xray-shapes: %s\n", err.message[0] ? err.message : "write failed");
        return 2;
    }
    return 0;
}
