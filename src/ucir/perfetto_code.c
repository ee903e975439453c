/* UCIR on Perfetto: the counters. Instructions per code region (the
 * mapped regions, each MEM_MAP a region, followed through maps and unmaps
 * by ucir/regions.c) and bytes written, summed over windows of
 * instructions and written at each window's end. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucir/perfetto_int.h"

enum { CTR_UNKNOWN, CTR_OTHER, CTR_REGIONS };

void tk_ucir_pf_code_init(tk_ucir_pf_code *c, tk_perfetto_seq *seq, uint64_t window)
{
    memset(c, 0, sizeof *c);
    c->seq = seq;
    c->window = window;
    c->written.uuid = TK_UCIR_PF_WRITTEN;
}

void tk_ucir_pf_code_free(tk_ucir_pf_code *c)
{
    tk_ucir_regions_free(&c->regions);
    free(c->ctrs);
    memset(c, 0, sizeof *c);
}

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

tk_status tk_ucir_pf_code_map(tk_ucir_pf_code *c, uint64_t addr, uint64_t size, uint8_t prot,
                              const char *label, size_t label_len, tk_error *err)
{
    return tk_ucir_regions_map(&c->regions, addr, size, prot, label, label_len, err);
}

tk_status tk_ucir_pf_code_unmap(tk_ucir_pf_code *c, uint64_t addr, uint64_t size, tk_error *err)
{
    return tk_ucir_regions_unmap(&c->regions, addr, size, err);
}

/* The counter of span s's region, made when it has none (the regions'
 * own up to TK_UCIR_PF_MAX_REGIONS, then "other regions"). -1: OOM. */
static int64_t region_ctr(tk_ucir_pf_code *c, const tk_ucir_span *s)
{
    for (size_t i = CTR_REGIONS; i < c->nctrs; i++)
        if (c->ctrs[i].map_addr == s->map_addr && c->ctrs[i].map_size == s->map_size)
            return (int64_t)i;
    if (c->nctrs >= CTR_REGIONS + TK_UCIR_PF_MAX_REGIONS)
        return CTR_OTHER;
    if (c->nctrs == c->ctrs_cap) {
        size_t cap = c->ctrs_cap * 2;
        tk_ucir_pf_ctr *n = realloc(c->ctrs, cap * sizeof *n);
        if (!n)
            return -1;
        c->ctrs = n;
        c->ctrs_cap = cap;
    }
    tk_ucir_pf_ctr *k = &c->ctrs[c->nctrs];
    memset(k, 0, sizeof *k);
    k->uuid = TK_UCIR_PF_CODE0 + c->nctrs - CTR_REGIONS;
    k->map_addr = s->map_addr;
    k->map_size = s->map_size;
    return (int64_t)c->nctrs++;
}

/* Declare counter i before its first value; the name says its region. */
static tk_status declare(tk_ucir_pf_code *c, size_t i, const tk_ucir_span *s, tk_error *err)
{
    char name[128], unit[64];
    tk_ucir_pf_ctr *k = &c->ctrs[i];
    if (i == CTR_UNKNOWN)
        snprintf(name, sizeof name, "instructions: unknown address");
    else if (i == CTR_OTHER)
        snprintf(name, sizeof name, "instructions: other regions");
    else
        snprintf(name, sizeof name, "instructions: 0x%" PRIx64 "-0x%" PRIx64 " %s%s%s",
                 s->map_addr, tk_ucir_region_end(s->map_addr, s->map_size), ucir_prot_text(s->prot, unit),
                 s->label[0] ? " " : "", s->label);
    snprintf(unit, sizeof unit, "instructions per %" PRIu64 " instructions", c->window);
    k->declared = 1;
    return tk_perfetto_counter_track(c->seq, k->uuid, TK_UCIR_PF_ROOT, name,
                                     TK_PERFETTO_UNIT_COUNT, unit, err);
}

static int init_ctrs(tk_ucir_pf_code *c)
{
    c->ctrs = calloc(8, sizeof *c->ctrs);
    if (!c->ctrs)
        return -1;
    c->ctrs_cap = 8;
    c->nctrs = CTR_REGIONS;
    c->ctrs[CTR_UNKNOWN].uuid = TK_UCIR_PF_CODE0 - 2;
    c->ctrs[CTR_OTHER].uuid = TK_UCIR_PF_CODE0 - 1;
    return 0;
}

tk_status tk_ucir_pf_code_count(tk_ucir_pf_code *c, int known, uint64_t pc, tk_error *err)
{
    if (!c->ctrs && init_ctrs(c) != 0)
        return oom(err);
    tk_ucir_span *s = known ? tk_ucir_regions_find(&c->regions, pc) : NULL;
    int64_t i = CTR_UNKNOWN;
    if (s) {
        if (!s->id) {
            int64_t k = region_ctr(c, s);
            if (k < 0)
                return oom(err);
            s->id = (uint32_t)k + 1;
        }
        i = (int64_t)s->id - 1;
    }
    tk_ucir_pf_ctr *k = &c->ctrs[i];
    if (!k->declared && declare(c, (size_t)i, s, err) != TK_OK)
        return err->status;
    c->ctrs[i].count++;
    return TK_OK;
}

void tk_ucir_pf_code_written(tk_ucir_pf_code *c, uint64_t bytes)
{
    uint64_t room = (uint64_t)INT64_MAX - (uint64_t)c->written.count;
    c->written.count += (int64_t)(bytes < room ? bytes : room);
}

/* Write k's value at ts when it says something, and start over. */
static tk_status flush(tk_ucir_pf_code *c, tk_ucir_pf_ctr *k, uint64_t ts, int last,
                       tk_error *err)
{
    if (k->count == 0 && (last || k->last == 0))
        return TK_OK;
    if (tk_perfetto_counter(c->seq, ts, k->uuid, k->count, err) != TK_OK)
        return err->status;
    k->last = k->count;
    k->count = 0;
    return TK_OK;
}

tk_status tk_ucir_pf_code_window(tk_ucir_pf_code *c, uint64_t ts, int last, tk_error *err)
{
    for (size_t i = 0; i < c->nctrs; i++)
        if (c->ctrs[i].declared && flush(c, &c->ctrs[i], ts, last, err) != TK_OK)
            return err->status;
    if (!c->written.declared && c->written.count) { /* a trace that writes: the track */
        char unit[64];
        snprintf(unit, sizeof unit, "bytes per %" PRIu64 " instructions", c->window);
        c->written.declared = 1;
        if (tk_perfetto_counter_track(c->seq, c->written.uuid, TK_UCIR_PF_ROOT, "bytes written",
                                      TK_PERFETTO_UNIT_BYTES, unit, err) != TK_OK)
            return err->status;
    }
    return c->written.declared ? flush(c, &c->written, ts, last, err) : TK_OK;
}
