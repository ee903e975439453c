/* Fuzz target: the cache simulator. The input is read as a Cacheray
 * trace (both byte orders) and simulated under several hierarchies (picked
 * from the input's hash among configurations covering every policy, write
 * option, inclusion, hashed and scanned sets, odd set counts and mixed line
 * sizes) with every analysis on. Oracles: tk_cachesim_run agrees with
 * tk_cacheray_next + tk_cachesim_feed (results, and errors to the byte);
 * counters are consistent (misses <= accesses, 3C classes add up to the
 * misses, what a level passes down is what the next one sees, types and
 * threads add up to the accesses, reported false sharing is disjoint);
 * the JSON and text documents are well formed; tracekit report runs.
 * The input is also parsed as a JSON configuration and as a --level spec. */
#include <stdlib.h>
#include <string.h>

#include <tracekit/cachesim.h>

#include "fuzz_common.h"

static const char *const hierarchies[][4] = {
    {"L1:32K:8:64", "L2:1M:16:64", NULL},
    {"L1:1K:2:64:plru", "L2:4K:full:64:lru", "L3:12K:3:64:fifo", NULL},
    {"L1:512:1:32:random", "L2:2K:4:128:plru", NULL},
    {"L1:2K:full:64:fifo", "L2:768:4:64:random", "L3:16K:8:64", NULL},
    {"L1:256:full:64:plru", NULL},
};
enum { NHIER = sizeof hierarchies / sizeof hierarchies[0] };

static tk_cachesim_config config(size_t h, unsigned options)
{
    tk_cachesim_config c;
    tk_error err;
    tk_cachesim_config_init(&c);
    for (const char *const *spec = hierarchies[h]; *spec; spec++)
        TKF_CHECK(tk_cachesim_config_add_level(&c, *spec, &err) == TK_OK, "%s: %s", *spec,
                  err.message);
    for (size_t k = 0; k < c.nlevels; k++) {
        c.levels[k].write_back = !(options >> (3 * k) & 1);
        c.levels[k].write_allocate = !(options >> (3 * k + 1) & 1);
        c.levels[k].inclusive = options >> (3 * k + 2) & 1;
    }
    c.seed = options;
    c.flags = TK_CACHESIM_REUSE | (options & 0x200 ? TK_CACHESIM_NO_3C : 0);
    return c;
}

static void check_levels(const tk_cachesim *s, const tk_cachesim_config *c)
{
    for (size_t k = 0; k < c->nlevels; k++) {
        tk_cachesim_level_stats st;
        tk_cachesim_get_level(s, k, &st);
        TKF_CHECK(st.read_misses <= st.reads && st.write_misses <= st.writes,
                  "level %zu: more misses than accesses", k);
        if (!(c->flags & TK_CACHESIM_NO_3C))
            TKF_CHECK(st.compulsory + st.capacity + st.conflict ==
                          st.read_misses + st.write_misses,
                      "level %zu: 3C classes do not add up", k);
        if (k + 1 == c->nlevels)
            continue;
        /* equal lines, no inclusion: level k+1 sees exactly k's traffic */
        const tk_cachesim_level *a = &c->levels[k], *b = &c->levels[k + 1];
        int inclusion = 0;
        for (size_t j = 0; j < c->nlevels; j++)
            inclusion |= c->levels[j].inclusive;
        if (a->line != b->line || inclusion || !a->write_back)
            continue;
        tk_cachesim_level_stats next;
        tk_cachesim_get_level(s, k + 1, &next);
        uint64_t fetched = st.read_misses + (a->write_allocate ? st.write_misses : 0);
        uint64_t written = st.writebacks + (a->write_allocate ? 0 : st.write_misses);
        TKF_CHECK(next.reads == fetched && next.writes == written,
                  "level %zu passes %llu reads and %llu writes, the next sees %llu and %llu",
                  k, (unsigned long long)fetched, (unsigned long long)written,
                  (unsigned long long)next.reads, (unsigned long long)next.writes);
    }
}

static void check_sums(tk_cachesim *s)
{
    tk_cachesim_totals t;
    tk_cachesim_get_totals(s, &t);
    TKF_CHECK(t.reads + t.writes == t.accesses, "reads + writes != accesses");
    uint64_t types = 0, threads = 0;
    for (size_t i = 0; i < tk_cachesim_types(s); i++) {
        tk_cachesim_type ty;
        tk_cachesim_get_type(s, i, &ty);
        types += ty.c.reads + ty.c.writes;
        TKF_CHECK(ty.live <= ty.peak_live && ty.peak_live <= ty.regions, "region counts");
    }
    for (size_t i = 0; i < tk_cachesim_threads(s); i++) {
        tk_cachesim_thread th;
        tk_cachesim_get_thread(s, i, &th);
        threads += th.c.reads + th.c.writes;
    }
    TKF_CHECK(types == t.accesses && threads == t.accesses,
              "types (%llu) and threads (%llu) do not add up to %llu accesses",
              (unsigned long long)types, (unsigned long long)threads,
              (unsigned long long)t.accesses);
    uint64_t shared;
    size_t n;
    tk_error err;
    TKF_CHECK(tk_cachesim_false_sharing_count(s, &n, &shared, &err) == TK_OK,
              "false sharing: %s", err.message);
    TKF_CHECK(n <= shared, "more falsely shared lines than shared ones");
    for (size_t i = 0; i < n; i++) {
        tk_cachesim_false_sharing fs;
        tk_cachesim_get_false_sharing(s, i, &fs);
        TKF_CHECK(fs.nthreads >= 2, "false sharing with %zu threads", fs.nthreads);
        for (size_t j = 0; j < fs.nthreads; j++) { /* disjoint bytes: distinct lowest ones */
            const tk_cachesim_sharer *w = &fs.threads[j];
            TKF_CHECK(fs.line <= w->first && w->first <= w->last, "sharer bytes out of order");
            TKF_CHECK(j == 0 || fs.threads[j - 1].first < w->first, "sharers not by first byte");
        }
    }
}

static void check_documents(tk_cachesim *s)
{
    static const tk_sink_style styles[] = {TK_SINK_JSON, TK_SINK_TEXT};
    for (int i = 0; i < 2; i++) {
        tkf_memfile m;
        tk_error err;
        tkf_memfile_open(&m);
        tk_sink *sink = tk_sink_new(m.fp, styles[i], &err);
        TKF_CHECK(tk_cachesim_write(s, sink, "fuzz-input", i ? 3 : 0,
                                    i ? TK_CACHESIM_TYPES_FIRST : 0, &err) == TK_OK,
                  "tk_cachesim_write: %s", err.message);
        TKF_CHECK(tk_sink_finish(sink, &err) == TK_OK, "sink: %s", err.message);
        tk_sink_free(sink);
        tkf_memfile_close(&m);
        if (styles[i] == TK_SINK_JSON)
            TKF_CHECK(tkf_check_json_lines(m.buf, m.len) == 1, "not one JSON document");
        else
            tkf_check_text_lines(m.buf, m.len);
        tkf_memfile_free(&m);
    }
}

static void same_results(tk_cachesim *a, tk_cachesim *b, const tk_cachesim_config *c)
{
    tk_cachesim_totals ta, tb;
    tk_cachesim_get_totals(a, &ta);
    tk_cachesim_get_totals(b, &tb);
    TKF_CHECK(memcmp(&ta, &tb, sizeof ta) == 0, "run and feed totals differ");
    for (size_t k = 0; k < c->nlevels; k++) {
        tk_cachesim_level_stats x, y;
        tk_cachesim_get_level(a, k, &x);
        tk_cachesim_get_level(b, k, &y);
        TKF_CHECK(memcmp(&x, &y, sizeof x) == 0, "run and feed differ at level %zu", k);
    }
    tk_cachesim_reuse x, y;
    tk_cachesim_get_reuse(a, &x);
    tk_cachesim_get_reuse(b, &y);
    TKF_CHECK(memcmp(&x, &y, sizeof x) == 0, "run and feed reuse differ");
}

static void simulate(const uint8_t *data, size_t size, tk_endian e, size_t h, unsigned options)
{
    tk_cachesim_config c = config(h, options);
    tk_error err, ferr;
    tk_error_clear(&err);
    tk_error_clear(&ferr);
    tk_cachesim *run = tk_cachesim_new(&c, &err), *fed = tk_cachesim_new(&c, &err);
    TKF_CHECK(run && fed, "tk_cachesim_new: %s", err.message);
    tk_input *in = tk_input_from_memory(data, size, "fuzz-input", &err);
    TKF_CHECK(in != NULL, "tk_input_from_memory");
    tk_status st = tk_cachesim_run(run, in, e, &err);
    TKF_CHECK(tk_input_rewind(in, &ferr) == TK_OK, "rewind");
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, e, &ferr);
    TKF_CHECK(r != NULL, "reader: %s", ferr.message);
    tk_cacheray_record rec;
    int rc;
    while ((rc = tk_cacheray_next(r, &rec, &ferr)) > 0)
        TKF_CHECK(tk_cachesim_feed(fed, &rec, &ferr) == TK_OK, "feed: %s", ferr.message);
    tk_cacheray_reader_free(r);
    tk_input_close(in);
    TKF_CHECK((st == TK_OK) == (rc == 0), "run says %d, the reader %d", (int)st, rc);
    if (rc < 0)
        TKF_CHECK(st == ferr.status && err.offset == ferr.offset && err.record == ferr.record &&
                      strcmp(err.message, ferr.message) == 0,
                  "run's error '%s' at %llu (record %llu) is not the reader's '%s' at %llu "
                  "(record %llu)",
                  err.message, (unsigned long long)err.offset, (unsigned long long)err.record,
                  ferr.message, (unsigned long long)ferr.offset,
                  (unsigned long long)ferr.record);
    same_results(run, fed, &c);
    check_levels(run, &c);
    check_sums(run);
    check_documents(run);
    tk_cachesim_free(run);
    tk_cachesim_free(fed);
}

/* The input as configuration text: any outcome but a crash is fine, and
 * what is accepted must pass the checks. */
static void configs(const uint8_t *data, size_t size)
{
    tk_cachesim_config c;
    tk_error err;
    tk_cachesim_config_init(&c);
    if (tk_cachesim_config_parse(&c, (const char *)data, size, &err) == TK_OK)
        TKF_CHECK(tk_cachesim_config_check(&c, &err) == TK_OK, "accepted config fails: %s",
                  err.message);
    char spec[128];
    size_t n = size < sizeof spec - 1 ? size : sizeof spec - 1;
    memcpy(spec, data, n);
    spec[n] = '\0';
    tk_cachesim_config_init(&c);
    if (tk_cachesim_config_add_level(&c, spec, &err) == TK_OK) {
        TKF_CHECK(tk_cachesim_config_check(&c, &err) == TK_OK, "accepted spec fails");
        c.levels[0].size = c.levels[0].size > (1 << 20) ? c.levels[0].line : c.levels[0].size;
        if (tk_cachesim_config_check(&c, &err) == TK_OK) { /* small enough to build */
            tk_cachesim *s = tk_cachesim_new(&c, &err);
            TKF_CHECK(s != NULL, "tk_cachesim_new: %s", err.message);
            tk_cachesim_free(s);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = tkf_hash(data, size);
    simulate(data, size, TK_ENDIAN_AUTO, 0, 0);
    simulate(data, size, TK_ENDIAN_LITTLE, 1 + h % (NHIER - 1), (unsigned)(h >> 8) & 0x3FF);
    simulate(data, size, TK_ENDIAN_BIG, 1 + (h >> 20) % (NHIER - 1), (unsigned)(h >> 30) & 0x3FF);
    configs(data, size);
    /* tracekit report for Cacheray: the default hierarchy, types first */
    const tk_format *f = tk_format_find("cacheray");
    tk_error err;
    tk_input *in = tk_input_from_memory(data, size, "fuzz-input", &err);
    tk_options *o = tkf_options((const char *const[]){NULL});
    tkf_memfile m;
    tkf_memfile_open(&m);
    tk_sink *s = tk_sink_new(m.fp, TK_SINK_JSON, &err);
    tk_status st = tk_report(f, in, o, s, &err);
    TKF_CHECK(st == TK_OK || st == TK_EMALFORMED, "report returned %d", (int)st);
    TKF_CHECK(tk_sink_finish(s, &err) == TK_OK, "sink");
    tk_sink_free(s);
    tkf_memfile_close(&m);
    tkf_check_json_lines(m.buf, m.len);
    tkf_memfile_free(&m);
    tk_options_free(o);
    tk_input_close(in);
    return 0;
}
