/* The simulator over a selection, and its warm-up: records come through
 * the reader (which applies the selection) instead of the fast path's
 * own decoding, and are gathered into the same batches. */
#include <string.h>

#include "cacheray/cacheray_int.h"
#include "cacheray/sim/sim_int.h"
#include "core/select.h"

/* A batch being filled, as run_accesses (sim.c) fills one. */
typedef struct feed {
    uint64_t prev;        /* the last access's line, if it stayed in one */
    unsigned run_write;   /* the current run writes */
} feed;

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

static void push(tk_cachesim *s, feed *f, const tk_cacheray_record *rec)
{
    cs_batch *b = &s->batch;
    const unsigned shift = s->lv[0].shift, write = rec->type == TK_CACHERAY_WRITE, size = rec->size;
    const uint64_t addr = rec->addr, line_bytes = (uint64_t)1 << shift;
    size_t n = b->n;
    b->write[n] = (uint8_t)write;
    b->addr[n] = addr;
    b->size[n] = (uint8_t)size;
    b->thread[n] = rec->thread;
    b->writes[b->nwrites] = (uint16_t)n;
    b->nwrites += write & (size != 0);
    /* lines are below 2^62: UINT64_MAX matches none */
    uint64_t line = size != 0 && (addr & (line_bytes - 1)) + size <= line_bytes ? addr >> shift
                                                                                : UINT64_MAX;
    unsigned same = n > 0 && line == f->prev && line != UINT64_MAX;
    f->prev = line;
    b->head[b->nruns] = (uint16_t)n;
    f->run_write = (f->run_write & -same) | write;
    b->run_write[b->nruns - same] = (uint8_t)f->run_write;
    b->nruns += !same;
    b->n = n + 1;
}

static void flush(tk_cachesim *s, feed *f)
{
    if (s->batch.n)
        cs_run_batch(s, &s->batch);
    s->batch.nwrites = s->batch.nruns = 0;
    f->prev = UINT64_MAX;
    f->run_write = 0;
}

/* From now on accesses count; the state they built stays. */
static void end_warmup(tk_cachesim *s)
{
    s->warming = 0;
    for (size_t i = 0; i < s->nlevels; i++)
        memset(&s->lv[i].st, 0, sizeof s->lv[i].st);
    s->tot.zero_size = 0;
    if (s->reuse)
        cs_reuse_reset_counts(s->reuse);
}

static tk_status feed_all(tk_cachesim *s, tk_cacheray_reader *r, uint64_t warm, tk_error *err)
{
    feed f = {UINT64_MAX, 0};
    tk_cacheray_record rec;
    int rc;
    s->warming = warm > 0;
    while ((rc = tk_cacheray_next(r, &rec, err)) > 0) {
        int selected = tk_cacheray_reader_selected(r);
        if (rec.type <= TK_CACHERAY_WRITE) { /* accesses are never context */
            push(s, &f, &rec);
            if (s->batch.n == CS_BATCH)
                flush(s, &f);
        } else { /* the accesses before see the regions before */
            flush(s, &f);
            cs_rtta(s, &rec, selected && !s->warming);
        }
        if (selected && s->warming && --warm == 0) {
            flush(s, &f);
            end_warmup(s);
        }
        if (cs_oom(s))
            return oom(err);
    }
    flush(s, &f);
    s->warming = 0;
    if (rc < 0)
        return err->status;
    return cs_oom(s) ? oom(err) : TK_OK;
}

tk_status tk_cachesim_run_selected(tk_cachesim *s, tk_input *in, tk_endian endian,
                                   const tk_selection *sel, uint64_t warmup, tk_error *err)
{
    if (tk_selection_empty(sel) && !warmup)
        return tk_cachesim_run(s, in, endian, err);
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, endian, err);
    if (!r)
        return err->status;
    tk_status st = tk_cacheray_reader_select(r, sel, TK_CACHERAY_SELECT_CONTEXT | TK_CACHERAY_SELECT_STOP,
                                             err);
    if (st == TK_OK)
        st = feed_all(s, r, warmup, err);
    tk_cacheray_reader_free(r);
    return st;
}

tk_status tk_cacheray_sim_run(tk_cachesim *s, tk_input *in, tk_endian e, const tk_options *o,
                        tk_error *err)
{
    tk_selection *sel = tk_selection_new(o, err);
    if (!sel)
        return err->status;
    tk_status st = tk_cachesim_run_selected(s, in, e, sel, 0, err);
    tk_selection_free(sel);
    return st;
}
