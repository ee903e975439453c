/* Simulate a cache hierarchy on a Cacheray trace: the generic reader's
 * records fed to a tk_cachesim, then the counts per level and per type
 * (the RTTA records say which type each address holds).
 *   cc cachesim.c $(pkg-config --cflags --libs tracekit) -o cachesim
 *   ./cachesim examples/cacheray/heap.trace               L1 32K 8-way, L2 1M 16-way
 *   ./cachesim examples/cacheray/heap.trace L1:16K:4:64 L2:256K:8:64:plru
 * A level is NAME:SIZE:WAYS:LINE[:POLICY], as tracekit cachesim -l takes it. */
#include <stdio.h>
#include <tracekit/tracekit.h>

/* The configuration from the LEVEL arguments, tracekit's default without. */
static tk_status configure(tk_cachesim_config *c, int nspecs, char **specs, tk_error *err)
{
    tk_cachesim_config_init(c);
    if (nspecs == 0) {
        tk_cachesim_config_default(c);
        return TK_OK;
    }
    for (int i = 0; i < nspecs; i++)
        if (tk_cachesim_config_add_level(c, specs[i], err) != TK_OK)
            return err->status;
    return TK_OK;
}

/* Every record of `r` into `sim`: 0 at the end, -1 on an error. */
static int simulate(tk_reader *r, tk_cachesim *sim, tk_error *err)
{
    tk_record rec;
    int rc;
    if (!tk_reader_cacheray(r)) { /* the reader detected another format */
        tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                     "a %s trace: the cache simulator reads Cacheray traces",
                     tk_format_name(tk_reader_format(r)));
        return -1;
    }
    while ((rc = tk_reader_next(r, &rec, err)) == 1)
        if (tk_cachesim_feed(sim, rec.as.cacheray, err) != TK_OK)
            return -1;
    return rc;
}

static void print_results(const tk_cachesim *sim)
{
    tk_cachesim_totals t;
    tk_cachesim_get_totals(sim, &t);
    printf("total records=%llu accesses=%llu reads=%llu writes=%llu\n",
           (unsigned long long)t.records, (unsigned long long)t.accesses,
           (unsigned long long)t.reads, (unsigned long long)t.writes);
    for (size_t i = 0; i < tk_cachesim_levels(sim); i++) {
        tk_cachesim_level_stats l;
        tk_cachesim_get_level(sim, i, &l);
        uint64_t n = l.reads + l.writes, misses = l.read_misses + l.write_misses;
        printf("level %s reads=%llu writes=%llu read_misses=%llu write_misses=%llu "
               "writebacks=%llu miss_rate=%.4f\n",
               tk_cachesim_level_config(sim, i)->name, (unsigned long long)l.reads,
               (unsigned long long)l.writes, (unsigned long long)l.read_misses,
               (unsigned long long)l.write_misses, (unsigned long long)l.writebacks,
               n ? (double)misses / (double)n : 0.0);
    }
    /* type 0 is "(untyped)": accesses outside every live region */
    for (size_t i = 0; i < tk_cachesim_types(sim); i++) {
        tk_cachesim_type ty;
        tk_cachesim_get_type(sim, i, &ty);
        printf("type accesses=%llu L1_misses=%llu name=%s\n",
               (unsigned long long)(ty.c.reads + ty.c.writes),
               (unsigned long long)ty.c.misses[0], ty.name);
    }
}

int main(int argc, char **argv)
{
    tk_error err;
    tk_cachesim_config config;
    tk_cachesim *sim = NULL;
    tk_reader *r = NULL;
    int rc = -1;

    if (argc < 2) {
        fprintf(stderr, "usage: cachesim TRACE [NAME:SIZE:WAYS:LINE[:POLICY]]...\n");
        return 2;
    }
    if (configure(&config, argc - 2, argv + 2, &err) == TK_OK &&
        (sim = tk_cachesim_new(&config, &err)) &&
        (r = tk_reader_open(argv[1], NULL, NULL, &err)))
        rc = simulate(r, sim, &err);
    if (rc == 0)
        print_results(sim);
    tk_reader_free(r);
    tk_cachesim_free(sim);
    if (rc < 0) {
        char msg[600];
        fprintf(stderr, "cachesim: %s\n", tk_error_format(&err, argv[1], msg, sizeof msg));
        return err.status == TK_EUSAGE ? 2 : 1;
    }
    return 0;
}
