/* Cacheray's HTML report: the one pass over the records. Each record goes
 * to the simulator (tk_cachesim_feed, the same results as cachesim's run
 * over the same selection); at each window's end the levels' counters are
 * read, so a window holds the line accesses and misses of its records. */
#include <stdlib.h>
#include <string.h>

#include "cacheray/cacheray_int.h"
#include "cacheray/html_int.h"

void tk_crh_free(tk_crh *c)
{
    free(c->order);
    tk_cachesim_free(c->sim);
}

const char *tk_crh_level_name(const tk_crh *c, size_t k)
{
    const tk_cachesim_level *l = tk_cachesim_level_config(c->sim, k);
    return l ? l->name : "";
}

/* What the levels counted since the last look goes to the open window. */
static void take(tk_crh *c)
{
    tk_crh_window *w = &c->win[c->cur];
    for (size_t k = 0; k < c->nlevels; k++) {
        tk_cachesim_level_stats st;
        tk_cachesim_get_level(c->sim, k, &st);
        uint64_t acc = st.reads + st.writes, miss = st.read_misses + st.write_misses;
        w->acc[k] += acc - c->seen_acc[k];
        w->miss[k] += miss - c->seen_miss[k];
        c->seen_acc[k] = acc;
        c->seen_miss[k] = miss;
    }
}

/* Close windows until record `idx` falls in the open one. */
static void advance(tk_crh *c, uint64_t idx)
{
    if (!c->started) {
        c->started = 1;
        c->origin = idx;
        c->width = TK_CRH_FIRST_WIDTH;
        c->end = idx + TK_CRH_FIRST_WIDTH;
        return;
    }
    while (idx >= c->end) {
        take(c);
        if (++c->cur == TK_CRH_WINDOWS) { /* all used: merge pairs */
            for (size_t i = 0; i < TK_CRH_WINDOWS / 2; i++)
                for (size_t k = 0; k < c->nlevels; k++) {
                    c->win[i].acc[k] = c->win[2 * i].acc[k] + c->win[2 * i + 1].acc[k];
                    c->win[i].miss[k] = c->win[2 * i].miss[k] + c->win[2 * i + 1].miss[k];
                }
            memset(&c->win[TK_CRH_WINDOWS / 2], 0, sizeof c->win / 2);
            c->cur = TK_CRH_WINDOWS / 2;
            c->width *= 2;
        }
        c->end = c->origin + (uint64_t)(c->cur + 1) * c->width;
    }
}

/* Types in report --json's order: by accesses, most first, stable. */
static tk_status order_types(tk_crh *c, tk_error *err)
{
    size_t n = tk_cachesim_types(c->sim);
    uint64_t *acc = malloc((n ? n : 1) * sizeof *acc);
    c->order = malloc((n ? n : 1) * sizeof *c->order);
    if (!acc || !c->order) {
        free(acc);
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        tk_cachesim_type t;
        tk_cachesim_get_type(c->sim, i, &t);
        acc[i] = t.c.reads + t.c.writes;
        if (i == 0 && acc[i] == 0)
            continue; /* no untyped accesses: no row */
        size_t j = c->ntypes++;
        while (j > 0 && acc[c->order[j - 1]] < acc[i]) {
            c->order[j] = c->order[j - 1];
            j--;
        }
        c->order[j] = i;
    }
    free(acc);
    return TK_OK;
}

static tk_status run(tk_crh *c, tk_cacheray_reader *r, tk_error *err)
{
    tk_cacheray_record rec;
    int rc;
    while ((rc = tk_cacheray_next(r, &rec, err)) > 0) {
        c->last = tk_cacheray_reader_index(r);
        advance(c, c->last);
        if (rec.type > TK_CACHERAY_WRITE && tk_cacheray_reader_selected(r)) {
            c->rtta_add += rec.type == TK_CACHERAY_RTTA_ADD;
            c->rtta_remove += rec.type != TK_CACHERAY_RTTA_ADD;
        }
        if (tk_cachesim_feed(c->sim, &rec, err) != TK_OK)
            return err->status;
    }
    if (rc < 0)
        return err->status;
    if (c->started)
        take(c); /* the last window, up to the last record */
    return order_types(c, err);
}

tk_status tk_crh_collect(tk_crh *c, tk_input *in, const tk_options *o,
                         const tk_cachesim_config *cfg, tk_error *err)
{
    if (!(c->sim = tk_cachesim_new(cfg, err)))
        return err->status;
    c->nlevels = tk_cachesim_levels(c->sim);
    c->debug_info = cfg->debug_info;
    tk_cacheray_reader *r =
        tk_cacheray_open(in, o, TK_CACHERAY_SELECT_CONTEXT | TK_CACHERAY_SELECT_STOP, err);
    if (!r)
        return err->status;
    tk_status st = run(c, r, err);
    tk_cacheray_reader_free(r);
    return st;
}
