/* tracekit diff: what got slower between two XRay traces A and B (per
 * function, per call path with --stacks), with a Mann-Whitney U test per
 * row and --fail-if thresholds for CI (docs/formats/xray.md, "diff"). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/xray_diff.h>

#include "core/strbuf.h"
#include "xray/cmd/cmd.h"
#include "xray/cmd/diff_print.h"
#include "xray/cmd/threads.h"

typedef struct diff_args {
    int keep_going, folded;
    tk_xray_diff_options opt;
    const char *map_b;
} diff_args;

static tk_status parse_alpha(tk_options *o, const tk_option *opt, const char *v, tk_error *err)
{
    char *end;
    errno = 0;
    double a = strtod(v, &end);
    if (end == v || *end || errno || !(a > 0 && a < 1))
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--alpha takes a number between 0 and 1, not '%s'", v);
    return tk_options_set(o, tk_opt_key(opt), v, err);
}

static tk_status parse_fail_if(tk_options *o, const tk_option *opt, const char *v,
                               tk_error *err)
{
    tk_diff_threshold t[TK_DIFF_MAX_THRESHOLDS];
    size_t n = 0;
    if (tk_diff_thresholds_parse(v, t, TK_DIFF_MAX_THRESHOLDS, &n) != 0)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--fail-if takes STAT>+N%% (STAT: count, sum, self, med, p90 "
                            "or p99; several comma-separated), not '%s'",
                            v);
    return tk_options_add(o, tk_opt_key(opt), v, err);
}

static void read_args(const tk_command_ctx *c, diff_args *a)
{
    uint64_t limit = 0;
    const char *alpha = tk_options_get(c->opts, "alpha");
    memset(a, 0, sizeof *a);
    a->keep_going = tk_cmd_flag(c, "keep-going");
    a->folded = tk_cmd_flag(c, "folded");
    a->opt.deduce_sibling_calls = tk_cmd_flag(c, "deduce-sibling-calls");
    a->opt.stacks = tk_cmd_flag(c, "stacks") || a->folded;
    a->opt.alpha = alpha ? strtod(alpha, NULL) : 0.05; /* checked when parsed */
    tk_options_get_u64(c->opts, "memory-limit", 0, &limit, NULL);
    a->opt.memory_limit = limit;
    a->map_b = tk_options_get(c->opts, "map-b");
    a->opt.threads = tk_xray_cmd_threads();
}

/* Every --fail-if threshold; their number. */
static size_t thresholds(const tk_command_ctx *c, tk_diff_threshold *t, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < tk_options_count(c->opts); i++)
        if (strcmp(tk_options_key(c->opts, i), "fail-if") == 0) {
            size_t got = 0;
            tk_diff_thresholds_parse(tk_options_value(c->opts, i), t + n, cap - n, &got);
            n += got;
        }
    return n;
}

/* One line for a record that could not be diffed. */
static void describe(tk_command_ctx *c, void *ctx, const tk_xray_reader *r,
                     const tk_xray_record *rec, int failure, int warning)
{
    tk_xray_map *map = ctx;
    tk_cmd_note(c, "%s: offset 0x%llx (record %llu): %s%s of %s on thread %u: %s", c->path,
                (unsigned long long)tk_xray_reader_offset(r),
                (unsigned long long)tk_xray_reader_index(r), warning ? "warning: " : "",
                tk_xray_kind_name(rec->kind), tk_xray_map_name(map, rec->func_id), rec->tid,
                tk_xray_account_failure_text((tk_xray_account_failure)failure));
}

static int add_a(void *d, const tk_xray_record *rec, tk_error *err)
{
    return tk_xray_diff_add(d, 0, rec, err);
}

static const char *map_name(void *map, int32_t id) { return tk_xray_map_name(map, id); }

static void oom_note(tk_error *err)
{
    tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

/* The trace B and its map: the reader (NULL after a message, *rc set). */
typedef struct trace_b {
    const char *path;
    tk_input *in;
    tk_xray_reader *r;
    tk_xray_map *map;
} trace_b;

static int open_b(tk_command_ctx *c, const diff_args *a, trace_b *b)
{
    tk_error err;
    tk_error_clear(&err);
    b->path = tk_options_get(c->opts, "file-b");
    if (!b->path)
        return tk_cmd_usage(c, "missing the second trace B");
    if (!(b->in = tk_input_open(b->path, &err)))
        return c->host->report(c, b->path, &err);
    if (tk_options_get(c->opts, "allow-truncated")) /* as the program opens A */
        tk_input_set_allow_truncated(b->in, 1);
    if (!(b->r = tk_xray_reader_new(b->in, &err)))
        return c->host->report(c, b->path, &err);
    if (a->map_b && !(b->map = tk_xray_map_open(a->map_b, &err)))
        return c->host->report(c, a->map_b, &err);
    const char *d = tk_options_get(c->opts, "demangle");
    if (b->map && d && strcmp(d, "0") == 0)
        tk_xray_map_set_demangle(b->map, 0);
    return TK_EXIT_OK;
}

static void close_b(tk_command_ctx *c, trace_b *b)
{
    tk_truncation t;
    if (b->in && tk_input_truncation(b->in, &t)) /* as the program does for A */
        tk_cmd_note(c, "warning: %s: %s", b->path, t.message);
    tk_xray_reader_free(b->r);
    tk_xray_map_free(b->map);
    if (b->in)
        tk_input_close(b->in);
}

/* B is read by a thread of its own while A is read (the diff's two
 * traces are independent): its notes wait in `notes` until A is done. */
typedef struct feed_b {
    tk_xray_diff *d;
    trace_b *b;
    int keep_going;
    atomic_int stop;  /* A failed: give up */
    int rc;           /* -1 to go on, else the exit status */
    int failed_read;  /* err is the reader's (about B) */
    tk_error err;
    tk_strbuf notes;
    uint64_t failures;
} feed_b;

static void note_b(feed_b *f, const tk_xray_record *rec, int failure)
{
    sb_printf(&f->notes, "%s: offset 0x%llx (record %llu): %s%s of %s on thread %u: %s\n",
              f->b->path, (unsigned long long)tk_xray_reader_offset(f->b->r),
              (unsigned long long)tk_xray_reader_index(f->b->r),
              f->keep_going ? "warning: " : "", tk_xray_kind_name(rec->kind),
              tk_xray_map_name(f->b->map, rec->func_id), rec->tid,
              tk_xray_account_failure_text((tk_xray_account_failure)failure));
}

static void *read_b(void *arg)
{
    feed_b *f = arg;
    tk_xray_record rec;
    int got;
    f->rc = -1;
    while (!atomic_load_explicit(&f->stop, memory_order_relaxed) &&
           (got = tk_xray_next(f->b->r, &rec, &f->err)) > 0) {
        int x = tk_xray_diff_add(f->d, 1, &rec, &f->err);
        if (x < 0) {
            f->rc = TK_EXIT_TROUBLE;
            return NULL;
        }
        if (x == 0)
            continue;
        if (!f->keep_going || ++f->failures <= 20)
            note_b(f, &rec, x);
        if (!f->keep_going) {
            f->rc = TK_EXIT_FAILED;
            return NULL;
        }
    }
    if (!atomic_load(&f->stop) && got < 0) {
        f->rc = TK_EXIT_TROUBLE;
        f->failed_read = 1;
    }
    return NULL;
}

/* B's outcome after the thread: its notes and errors; -1 to go on. */
static int finish_b(tk_command_ctx *c, feed_b *f)
{
    char *line = f->notes.p;
    while (line && *line) {
        char *end = strchr(line, '\n');
        *end = 0;
        tk_cmd_note(c, "%s", line);
        line = end + 1;
    }
    if (f->notes.oom)
        tk_cmd_note(c, "out of memory");
    if (f->failures > 20)
        tk_cmd_note(c, "%s: warning: %llu records could not be diffed", f->b->path,
                    (unsigned long long)f->failures);
    if (f->rc == TK_EXIT_TROUBLE)
        return c->host->report(c, f->failed_read ? f->b->path : NULL, &f->err);
    return f->rc;
}

/* Both traces into a new diff (*d), B on a thread of its own (after A
 * with TRACEKIT_THREADS=1); -1 to go on, or the exit status. */
static int feed(tk_command_ctx *c, diff_args *a, tk_xray_reader *ra, tk_xray_map *ma,
                trace_b *b, tk_xray_diff **d)
{
    tk_error err;
    tk_error_clear(&err);
    a->opt.freq[0] = tk_xray_reader_header(ra)->cycle_frequency;
    a->opt.freq[1] = tk_xray_reader_header(b->r)->cycle_frequency;
    if (ma) {
        a->opt.name[0] = map_name;
        a->opt.name_ctx[0] = ma;
    }
    if (b->map) {
        a->opt.name[1] = map_name;
        a->opt.name_ctx[1] = b->map;
    }
    if (!(*d = tk_xray_diff_new(&a->opt, &err)))
        return c->host->report(c, NULL, &err);
    feed_b *f = calloc(1, sizeof *f);
    if (!f) {
        oom_note(&err);
        return c->host->report(c, NULL, &err);
    }
    f->d = *d;
    f->b = b;
    f->keep_going = a->keep_going;
    tk_error_clear(&f->err);
    atomic_init(&f->stop, 0);
    pthread_t th;
    int threaded = a->opt.threads > 1 && pthread_create(&th, NULL, read_b, f) == 0;
    tk_xray_cmd_sink sa = {add_a, describe, *d, ma, "diffed"};
    int rc = tk_xray_cmd_feed(c, ra, a->keep_going, &sa);
    if (threaded) {
        atomic_store(&f->stop, rc >= 0);
        pthread_join(th, NULL);
    } else if (rc < 0) {
        read_b(f); /* no thread: one after the other */
    }
    if (rc < 0)
        rc = finish_b(c, f);
    sb_free(&f->notes);
    free(f);
    return rc;
}

static tk_status write_result(tk_command_ctx *c, FILE *f, tk_sink *json, void *ctx,
                              tk_error *err)
{
    (void)c;
    (void)err;
    tk_diff_print(f, json, ctx);
    return TK_OK;
}

/* The rows printed, and the exit status of --fail-if. */
static int report(tk_command_ctx *c, const diff_args *a, tk_xray_diff *d, const char *path_b)
{
    tk_error err;
    tk_error_clear(&err);
    tk_diff_result res = {0};
    res.path[0] = c->path;
    res.path[1] = path_b;
    res.units = tk_xray_diff_units_per_second(d);
    res.alpha = a->opt.alpha;
    res.folded = a->folded;
    res.stacks = a->opt.stacks && !a->folded;
    res.nthr = thresholds(c, res.thr, TK_DIFF_MAX_THRESHOLDS);
    if (tk_xray_diff_rows(d, 0, &res.funcs, &res.nfuncs, &err) != TK_OK ||
        (a->opt.stacks && tk_xray_diff_rows(d, 1, &res.paths, &res.npaths, &err) != TK_OK)) {
        free(res.funcs);
        return c->host->report(c, NULL, &err);
    }
    res.failed = tk_diff_failing(&res);
    int rc = c->host->write_output(c, "-", write_result, &res);
    if (rc == TK_EXIT_OK && res.failed) {
        tk_cmd_note(c, "%zu function%s slower past --fail-if", res.failed,
                    res.failed == 1 ? " is" : "s are");
        rc = TK_EXIT_FAILED;
    }
    free(res.funcs);
    free(res.paths);
    return rc;
}

static int run(tk_command_ctx *c)
{
    diff_args a;
    read_args(c, &a);
    int rc = tk_cmd_exclusive(c, -1, c->json && a.folded, "--folded", "--json");
    tk_xray_reader *ra;
    if ((rc = tk_xray_cmd_open(c, rc, &ra)) != TK_EXIT_OK)
        return rc;
    trace_b b = {0};
    tk_xray_diff *d = NULL;
    tk_xray_map *ma = tk_xray_cmd_map(c, &rc);
    if (rc == TK_EXIT_OK)
        rc = open_b(c, &a, &b);
    if (rc == TK_EXIT_OK && (rc = feed(c, &a, ra, ma, &b, &d)) < 0)
        rc = report(c, &a, d, b.path);
    tk_xray_diff_free(d);
    close_b(c, &b);
    tk_xray_map_free(ma);
    tk_xray_reader_free(ra);
    return rc;
}

static const tk_option options[] = {
    {.name = "map-b", .value = "BIN",
     .help = "B's binary (or YAML map), to name B's functions (-m names A's); with "
             "names, functions are matched by name across the builds, else by id"},
    {.name = "deduce-sibling-calls", .letter = 'd',
     .help = "an exit that matches a deeper frame closes the frames above it too (as "
             "account -d)"},
    {.name = "keep-going", .letter = 'k', .help = "report unmatched records and go on"},
    {.name = "alpha", .value = "P", .parse = parse_alpha,
     .help = "significance level of the Mann-Whitney U test (default 0.05)"},
    {.name = "stacks", .help = "also a table per call path (root..leaf): which caller "
                               "context got slower"},
    {.name = "folded",
     .help = "self time per call path of A and B as \"path selfA selfB\" lines (TSC "
             "ticks; picoseconds when the traces' frequencies differ), the input of "
             "flamegraph.pl's difffolded.pl workflow"},
    {.name = "fail-if", .value = "EXPR", .parse = parse_fail_if, .flags = TK_OPTION_REPEAT,
     .help = "exit 1 when a function is significantly slower and its STAT grew past a "
             "threshold: STAT>+N% with STAT count, sum, self, med, p90 or p99 "
             "('p90>+5%'); repeat it or separate with commas"},
    {.name = "memory-limit", .value = "SIZE", .parse = tk_opt_size,
     .help = "memory for latencies of both traces (default 64M; K, M, G suffixes); "
             "beyond it they go to a temporary file in $TMPDIR, and the results stay "
             "exact"},
    {.name = "json", .flags = TK_OPTION_SHARED,
     .help = "one object: the traces, alpha, and rows of functions (and stacks) with "
             "both traces' statistics in seconds, the change and the test"},
    {.name = "json-hex", .flags = TK_OPTION_SHARED,
     .help = "--json with integers past 2^53 as \"0x...\""},
    {0}};

const tk_command tk_xray_cmd_diff = {
    .name = "diff",
    .summary = "XRay: which functions got slower from trace A to B, and is it noise",
    .synopsis = "[OPTIONS] A B",
    .help = "Compares two XRay traces, A (before) and B (after): per function the\n"
            "calls, total and self time (less the calls it made), median, 90th and\n"
            "99th percentile latency in each, the change, and a verdict from a\n"
            "two-sided Mann-Whitney U test on the per-call latencies: slower,\n"
            "faster, or ~ (not significant at --alpha). Rows are sorted by the\n"
            "change of self time, largest increase first; functions called in one\n"
            "trace only are listed as such.\n",
    .notes = "Memory stays within --memory-limit (plus a constant) however long the\n"
             "traces: latencies past it are spilled and ranked by value windows.\n",
    .needs = "; diff needs XRay",
    .options = options,
    .run = run,
};
