/* Cacheray on a Perfetto timeline (docs/formats/cacheray.md, "Perfetto
 * timeline"): one pass over the records, one packet sequence, time = the
 * record index in ns. RTTA regions become slices (perfetto_regions.c);
 * accesses are counted per thread and window, and with --cachesim fed to
 * the cache simulator, whose misses per level are counted per window too
 * (perfetto_counters.c). An access costs a compare and an increment. */
#include <stdio.h>
#include <string.h>

#include <tracekit/error.h>
#include <tracekit/format.h>
#include <tracekit/input.h>

#include "cacheray/cacheray_int.h"
#include "cacheray/perfetto_int.h"

static tk_status usage(tk_error *err, const char *msg)
{
    return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD, "%s", msg);
}

/* The hierarchy: --config, the --level specs, or with --cachesim alone
 * cachesim's default. *on says whether to simulate at all. */
static tk_status sim_config(const tk_options *o, tk_cachesim_config *cfg, int *on,
                            tk_error *err)
{
    const char *config = tk_options_get(o, "config"), *flag = tk_options_get(o, "cachesim");
    int levels = tk_options_get(o, "level") != NULL;
    *on = config || levels || (flag && strcmp(flag, "0") != 0);
    tk_cachesim_config_init(cfg);
    if (!*on)
        return TK_OK;
    if (config && levels)
        return usage(err, "--config and --level do not mix");
    if (config && tk_cachesim_config_load(cfg, config, err) != TK_OK) {
        tk_error_set_file(err, config); /* the message is about it, not the trace */
        return err->status;
    }
    for (size_t i = 0; i < tk_options_count(o); i++)
        if (strcmp(tk_options_key(o, i), "level") == 0 &&
            tk_cachesim_config_add_level(cfg, tk_options_value(o, i), err) != TK_OK)
            return err->status;
    if (!config && !levels)
        tk_cachesim_config_default(cfg);
    /* misses are the same classified or not; the shadow caches cost time */
    cfg->flags |= TK_CACHESIM_NO_3C;
    return TK_OK;
}

/* Every record once. A context record (an RTTA record a selection keeps
 * so that accesses have their types) only goes to the simulator. */
static tk_status run(tk_crpf *c, tk_cacheray_reader *r, tk_error *err)
{
    tk_cacheray_record rec;
    uint64_t idx = 0;
    int rc, any = 0;
    while ((rc = tk_cacheray_next(r, &rec, err)) > 0) {
        idx = tk_cacheray_reader_index(r);
        if (idx >= c->win_end && tk_crpf_window_end(c, idx, err) != TK_OK)
            return err->status;
        if (rec.type <= TK_CACHERAY_WRITE) {
            if ((rec.thread != c->tid || !c->cur) &&
                tk_crpf_thread_switch(c, rec.thread, err) != TK_OK)
                return err->status;
            c->cur->count[rec.type]++;
        } else if (tk_cacheray_reader_selected(r) && tk_crpf_region(c, &rec, idx, err) != TK_OK) {
            return err->status;
        }
        if (c->sim && tk_cachesim_feed(c->sim, &rec, err) != TK_OK)
            return err->status;
        any = 1;
    }
    if (rc < 0)
        return err->status;
    /* the last window ends (its "regions without a lane" changes too), and
     * the regions still live, after the last record */
    if (any && (tk_crpf_flush(c, idx + 1, err) != TK_OK ||
                tk_crpf_regions_window(c, idx + 1, err) != TK_OK ||
                tk_crpf_regions_end(c, idx + 1, err) != TK_OK))
        return err->status;
    return TK_OK;
}

static tk_status convert(tk_crpf *c, tk_input *in, const tk_options *o, FILE *out,
                         tk_error *err)
{
    tk_cacheray_reader *r =
        tk_cacheray_open(in, o, TK_CACHERAY_SELECT_CONTEXT | TK_CACHERAY_SELECT_STOP, err);
    if (!r)
        return err->status;
    tk_status st = TK_OK;
    c->p = tk_perfetto_new(out, err);
    c->seq = c->p ? tk_perfetto_seq_new(c->p, err) : NULL;
    if (!c->seq || tk_crpf_regions_init(c, err) != TK_OK ||
        tk_crpf_counters_init(c, err) != TK_OK || run(c, r, err) != TK_OK)
        st = err->status;
    if (st == TK_OK)
        st = tk_perfetto_finish(c->p, err);
    else
        tk_perfetto_free(c->p);
    c->p = NULL;
    tk_cacheray_reader_free(r);
    return st;
}

tk_status tk_cacheray_perfetto(tk_input *in, const tk_options *o, FILE *out, tk_error *err)
{
    tk_crpf c;
    memset(&c, 0, sizeof c);
    c.next_uuid = 1;
    tk_cachesim_config cfg;
    int sim;
    if (tk_options_get_u64(o, "window", 10000, &c.window, err) != TK_OK)
        return err->status;
    if (c.window == 0)
        return usage(err, "--window takes a number of records above 0");
    if (tk_options_get_u64(o, "max-tracks", 1000, &c.max_tracks, err) != TK_OK)
        return err->status;
    if (sim_config(o, &cfg, &sim, err) != TK_OK)
        return err->status;
    if (sim && !(c.sim = tk_cachesim_new(&cfg, err)))
        return err->status;
    tk_status st = convert(&c, in, o, out, err);
    tk_crpf_regions_free(&c);
    tk_crpf_counters_free(&c);
    tk_cachesim_free(c.sim);
    return st;
}
