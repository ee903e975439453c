/* XRay's HTML report: the call tree as stack --json lists it (its public
 * print, one JSON line per call path in depth-first order, read back
 * through a stream of ours with function ids for names), as an icicle;
 * and each thread's top-level calls, its busy time. */
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "xray/html_int.h"

/* What the lines of one print become. */
typedef struct reader {
    tk_xh *x;
    tk_html_flame *flame;  /* aggregate print: the tree */
    uint32_t *chain;       /* the frame at each depth of the current path */
    size_t cap;
    tk_map *busy;          /* per-thread print: tid -> busy[2] (ticks, calls) */
    tk_strbuf line;
    int bad;               /* out of memory, or a line not understood */
    char name[16];
} reader;

static const char *id_name(void *ctx, int32_t id)
{
    reader *r = ctx;
    snprintf(r->name, sizeof r->name, "%d", id);
    return r->name;
}

static int u64_member(const char *line, const char *key, uint64_t *v)
{
    const char *p = strstr(line, key);
    if (!p)
        return -1;
    *v = strtoull(p + strlen(key), NULL, 10);
    return 0;
}

/* One line: {"thread":T,"stack":["1","5"],"calls":N,...,"total_ticks":N,
 * "self_ticks":N}. */
static void line(reader *r, const char *s)
{
    const char *p = strstr(s, "\"stack\":[");
    uint64_t calls, total, self, tid = 0;
    if (!p || u64_member(s, "\"calls\":", &calls) || u64_member(s, "\"total_ticks\":", &total) ||
        u64_member(s, "\"self_ticks\":", &self) ||
        (r->busy && u64_member(s, "\"thread\":", &tid))) {
        r->bad = 1;
        return;
    }
    size_t depth = 0;
    int32_t leaf = 0;
    for (p += 9; *p == '"'; depth++) {
        leaf = (int32_t)strtol(p + 1, (char **)&p, 10);
        p += *p == '"';
        p += *p == ',';
    }
    if (depth == 0) {
        r->bad = 1;
    } else if (r->busy) {
        uint64_t *b = depth == 1 ? tk_map_u64(r->busy, tid) : NULL;
        if (depth == 1 && !b)
            r->bad = 1;
        else if (b) {
            b[0] += total;
            b[1] += calls;
        }
    } else if (depth > r->cap) {
        uint32_t *c = realloc(r->chain, (depth + 64) * sizeof *c);
        r->bad |= !c;
        if (c) {
            r->chain = c;
            r->cap = depth + 64;
        }
    }
    if (r->bad || r->busy)
        return;
    uint32_t parent = depth > 1 ? r->chain[depth - 2] : 0;
    r->chain[depth - 1] = tk_html_flame_add(r->flame, parent, tk_xray_map_name(r->x->map, leaf),
                                            total, self, calls);
    r->bad |= r->chain[depth - 1] == 0;
}

static ssize_t on_write(void *cookie, const char *buf, size_t n)
{
    reader *r = cookie;
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != '\n') {
            sb_putc(&r->line, buf[i]);
            continue;
        }
        if (r->line.oom)
            r->bad = 1;
        else if (r->line.len)
            line(r, r->line.p);
        sb_reset(&r->line);
    }
    return (ssize_t)n;
}

/* Print the stacks as JSON into `r`. 0, or -1 (out of memory or a line
 * not understood). */
static int read_stacks(tk_xh *x, reader *r, tk_xray_stacks_threads threads)
{
    cookie_io_functions_t io = {.write = on_write};
    FILE *f = fopencookie(r, "w", io);
    if (!f)
        return -1;
    tk_xray_stacks_print_options o = {.view = TK_XRAY_STACKS_JSON, .threads = threads,
                                      .name = id_name, .name_ctx = r};
    tk_error err;
    tk_status st = tk_xray_stacks_print(x->stacks, f, &o, &err);
    fclose(f);
    sb_free(&r->line);
    free(r->chain);
    return st == TK_OK && !r->bad ? 0 : -1;
}

void tk_xh_flame(tk_html *h, tk_xh *x)
{
    tk_error err;
    reader r = {.x = x, .flame = tk_html_flame_new(&err)};
    if (!r.flame || read_stacks(x, &r, TK_XRAY_STACKS_AGGREGATE) != 0) {
        tk_html_para(h, "The call tree could not be built (out of memory).");
        tk_html_flame_free(r.flame);
        return;
    }
    tk_html_flame_spec s = {
        .id = "flame", .title = "Call tree",
        .caption = "Each frame is a call path (threads merged), as wide as its total time; "
                   "callees hang below. Click a frame to zoom in, the top bar to zoom out; "
                   "search to highlight a function.",
        .src = "stack", .path_key = "stack", .total_key = "total_ticks",
        .self_key = "self_ticks", .count_key = "calls", .unit = tk_xh_unit(x),
        .scale = (double)x->freq};
    tk_html_flame_write(h, r.flame, &s);
    tk_html_flame_free(r.flame);
}

/* Busy time and top-level calls per thread, from the per-thread print. */
static tk_map *thread_busy(tk_xh *x)
{
    tk_map *m = malloc(sizeof *m);
    if (!m)
        return NULL;
    tk_map_init(m, 2 * sizeof(uint64_t));
    reader r = {.x = x, .busy = m};
    if (read_stacks(x, &r, TK_XRAY_STACKS_ALL_THREADS) == 0)
        return m;
    tk_map_free(m);
    free(m);
    return NULL;
}

static int busier(const void *a, const void *b, void *ctx)
{
    const tk_map *m = ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    uint64_t x = ((const uint64_t *)tk_map_value(m, i))[0];
    uint64_t y = ((const uint64_t *)tk_map_value(m, j))[0];
    return x != y ? (x < y ? 1 : -1) : (m->ukeys[i] > m->ukeys[j]) - (m->ukeys[i] < m->ukeys[j]);
}

static size_t *by_busy(const tk_map *m)
{
    size_t *idx = malloc((m->n ? m->n : 1) * sizeof *idx);
    for (size_t i = 0; idx && i < m->n; i++)
        idx[i] = i;
    if (idx)
        qsort_r(idx, m->n, sizeof *idx, busier, (void *)m);
    return idx;
}

void tk_xh_threads(tk_html *h, tk_xh *x)
{
    tk_map *m = thread_busy(x);
    size_t n = m ? m->n : 0;
    tk_html_value *tid = calloc(n ? n : 1, sizeof *tid), *t = calloc(n ? n : 1, sizeof *t);
    tk_html_value *calls = calloc(n ? n : 1, sizeof *calls);
    if (!m || !tid || !t || !calls) {
        tk_html_para(h, "The threads' busy time could not be computed (out of memory).");
    } else {
        /* busiest first: the bars keep the first TK_HTML_MAX_BARS */
        size_t *idx = by_busy(m);
        for (size_t k = 0; idx && k < n; k++) {
            size_t i = idx[k];
            const uint64_t *b = tk_map_value(m, i);
            tid[k] = tk_html_u64(m->ukeys[i]);
            t[k] = tk_html_u64(b[0]);
            calls[k] = tk_html_u64(b[1]);
        }
        free(idx);
        tk_html_series s[1] = {{"busy", "total_ticks", t}};
        tk_html_chart c = {
            .id = "thread-busy", .title = "Busy time per thread",
            .caption = "Time inside instrumented calls (each thread's top-level calls, as "
                       "stack --json lists them per thread).",
            .src = "stack_threads", .agg = "sum", .filter = "stack:1", .x_label = "thread",
            .x_key = "thread", .y_label = x->freq ? "busy time" : "busy ticks",
            .y_unit = tk_xh_unit(x), .y_scale = (double)x->freq};
        tk_html_bars(h, &c, tid, n, s, 1);
        /* the calls column in the table too: a second, checked table */
        tk_html_column cols[3] = {
            {.label = "thread", .key = "thread", .flags = TK_HTML_COL_KEY},
            {.label = "busy", .key = "total_ticks", .unit = tk_xh_unit(x),
             .scale = (double)x->freq, .flags = TK_HTML_COL_HEAT | TK_HTML_COL_SUM},
            {.label = "top-level calls", .key = "calls", .flags = TK_HTML_COL_SUM}};
        tk_html_table_spec spec = {.id = "threads", .src = "stack_threads", .cols = cols,
                                   .ncols = 3, .agg = "sum", .filter = "stack:1"};
        tk_html_table_begin(h, &spec);
        for (size_t i = 0; i < n; i++)
            tk_html_table_row(h, (tk_html_value[3]){tid[i], t[i], calls[i]});
        tk_html_table_end(h);
    }
    free(tid);
    free(t);
    free(calls);
    if (m)
        tk_map_free(m);
    free(m);
}
