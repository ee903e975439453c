/* tracekit account: per-function latency statistics of an XRay trace, as
 * llvm-xray account prints them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/xray_account.h>

#include "core/strbuf.h"
#include "xray/cmd/cmd.h"

static const char *const sort_names[] = {"funcid", "count", "min", "med", "90p",
                                         "99p",    "max",   "sum", "func"};
#define NSORT (sizeof sort_names / sizeof sort_names[0])

/* The arguments, from c->opts. */
typedef struct account_args {
    tk_xray_account_sort sort;
    int descending, csv, keep_going, by_name;
    uint64_t top;
    const char *output;
    const char *style; /* the table style as given, if it was */
    tk_xray_account_options opt;
} account_args;

static tk_status parse_sort(tk_options *o, const tk_option *opt, const char *v, tk_error *err)
{
    for (size_t i = 0; i < NSORT; i++)
        if (strcmp(v, sort_names[i]) == 0)
            return tk_options_set(o, tk_opt_key(opt), v, err);
    return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                        "--sort: unknown field '%s'", v);
}

static tk_status parse_top(tk_options *o, const tk_option *opt, const char *v, tk_error *err)
{
    if (*v < '0' || *v > '9' || v[strspn(v, "0123456789")])
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--top takes a number, not '%s'", v);
    return tk_options_set(o, tk_opt_key(opt), v, err);
}

static void read_args(const tk_command_ctx *c, account_args *a)
{
    const char *sort = tk_options_get(c->opts, "sort");
    const char *style = tk_options_get(c->opts, "output-format");
    const char *top = tk_options_get(c->opts, "top");
    const char *order = tk_options_get(c->opts, "sort-order");
    uint64_t limit = 0;
    memset(a, 0, sizeof *a);
    for (size_t i = 0; sort && i < NSORT; i++)
        if (strcmp(sort, sort_names[i]) == 0)
            a->sort = (tk_xray_account_sort)i;
    a->by_name = a->sort == TK_XRAY_SORT_FUNC;
    a->descending = order && strcmp(order, "dsc") == 0;
    a->csv = style && strcmp(style, "csv") == 0;
    if (style)
        a->style = a->csv ? "--output-format csv" : "--output-format text";
    a->top = top ? strtoull(top, NULL, 10) : UINT64_MAX;
    a->output = tk_options_get(c->opts, "output");
    if (!a->output)
        a->output = "-";
    a->keep_going = tk_cmd_flag(c, "keep-going");
    a->opt.deduce_sibling_calls = tk_cmd_flag(c, "deduce-sibling-calls");
    a->opt.recursive_calls_only = tk_cmd_flag(c, "recursive-calls-only");
    tk_options_get_u64(c->opts, "memory-limit", 0, &limit, NULL); /* checked when parsed */
    a->opt.memory_limit = limit;
}

/* Rows by name (llvm-xray's -sort=func), ids breaking ties. */
typedef struct by_name {
    tk_xray_map *map;
    int descending;
} by_name;

static int cmp_by_name(const void *x, const void *y, void *ctx)
{
    const tk_xray_account_row *a = x, *b = y;
    const by_name *k = ctx;
    int c = strcmp(tk_xray_map_name(k->map, a->func_id), tk_xray_map_name(k->map, b->func_id));
    if (k->descending)
        c = -c;
    return c ? c : (a->func_id > b->func_id) - (a->func_id < b->func_id);
}

/* The rows as the table, CSV or JSON. */
typedef struct rows_out {
    const account_args *a;
    tk_xray_map *map;
    const tk_xray_account_row *r;
    size_t n, total;
    double scale;  /* ticks per second, 1 without a cycle frequency */
    uint64_t freq; /* the cycle frequency, 0 when unknown */
} rows_out;

static tk_status write_rows(tk_command_ctx *c, FILE *f, tk_sink *json, void *ctx, tk_error *err)
{
    const rows_out *o = ctx;
    (void)c;
    (void)err;
    if (json)
        tk_xray_account_print_json(json, o->map, o->r, o->n, o->freq);
    else if (o->a->csv)
        tk_xray_account_print_csv(f, o->map, o->r, o->n, o->scale);
    else
        tk_xray_account_print_text(f, o->map, o->r, o->n, o->total, o->scale);
    return TK_OK;
}

/* One line for a record that could not be accounted. */
static void report_failure(tk_command_ctx *c, tk_xray_map *map, const tk_xray_account *acc,
                           const tk_xray_reader *r, const tk_xray_record *rec, int failure,
                           int warning)
{
    int32_t stack[8];
    size_t depth = tk_xray_account_stack(acc, rec->tid, stack, 8);
    tk_strbuf b = {0};
    sb_printf(&b, "%s: offset 0x%llx (record %llu): %s%s of %s on thread %u: %s", c->path,
              (unsigned long long)tk_xray_reader_offset(r),
              (unsigned long long)tk_xray_reader_index(r), warning ? "warning: " : "",
              tk_xray_kind_name(rec->kind), tk_xray_map_name(map, rec->func_id), rec->tid,
              tk_xray_account_failure_text((tk_xray_account_failure)failure));
    if (depth) {
        sb_puts(&b, " (open:");
        for (size_t i = depth > 8 ? depth - 8 : 0, k = 0; i < depth && k < 8; i++, k++)
            sb_printf(&b, " %s", tk_xray_map_name(map, stack[depth > 8 ? k : i]));
        sb_puts(&b, depth > 8 ? " ...)" : ")");
    }
    tk_cmd_note(c, "%s", b.oom ? "out of memory" : b.p);
    sb_free(&b);
}

/* The sink's calls (tk_xray_cmd_feed): the analysis, and the map that
 * names functions in the notes. */
typedef struct feed_ctx {
    tk_xray_map *map;
    const tk_xray_account *acc;
} feed_ctx;

static int add(void *analysis, const tk_xray_record *rec, tk_error *err)
{
    return tk_xray_account_add(analysis, rec, err);
}

static void describe(tk_command_ctx *c, void *ctx, const tk_xray_reader *r,
                     const tk_xray_record *rec, int failure, int warning)
{
    const feed_ctx *x = ctx;
    report_failure(c, x->map, x->acc, r, rec, failure, warning);
}

/* Every record into `acc`; returns -1 to go on, or the exit status. */
static int feed(tk_command_ctx *c, const account_args *a, tk_xray_reader *r,
                tk_xray_account *acc, tk_xray_map *map)
{
    feed_ctx x = {map, acc};
    tk_xray_cmd_sink s = {add, describe, acc, &x, "accounted"};
    return tk_xray_cmd_feed(c, r, a->keep_going, &s);
}

/* The rows, sorted and cut, written to -o's file. */
static int print(tk_command_ctx *c, const account_args *a, tk_xray_reader *r,
                 tk_xray_account *acc, tk_xray_map *map)
{
    tk_error err;
    tk_error_clear(&err);
    tk_xray_account_row *rows;
    size_t n;
    if (tk_xray_account_rows(acc, a->sort, a->descending, &rows, &n, &err) != TK_OK)
        return c->host->report(c, NULL, &err);
    by_name key = {map, a->descending};
    if (a->by_name)
        qsort_r(rows, n, sizeof *rows, cmp_by_name, &key);
    size_t total = n;
    if (a->top < n)
        n = (size_t)a->top;
    uint64_t freq = tk_xray_reader_header(r)->cycle_frequency;
    rows_out out = {a, map, rows, n, total, freq ? (double)freq : 1.0, freq};
    int rc = c->host->write_output(c, a->output, write_rows, &out);
    free(rows);
    return rc;
}

static int run(tk_command_ctx *c)
{
    account_args a;
    read_args(c, &a);
    int rc = tk_cmd_exclusive(c, -1, c->json && a.style, a.style, "--json");
    tk_xray_reader *r;
    if ((rc = tk_xray_cmd_open(c, rc, &r)) != TK_EXIT_OK)
        return rc;
    tk_error err;
    tk_error_clear(&err);
    tk_xray_map *map = tk_xray_cmd_map(c, &rc);
    tk_xray_account *acc = rc == TK_EXIT_OK ? tk_xray_account_new(&a.opt, &err) : NULL;
    if (rc == TK_EXIT_OK && !acc)
        rc = c->host->report(c, NULL, &err);
    if (rc == TK_EXIT_OK && (rc = feed(c, &a, r, acc, map)) < 0)
        rc = print(c, &a, r, acc, map);
    tk_xray_map_free(map);
    tk_xray_account_free(acc);
    tk_xray_reader_free(r);
    return rc;
}

static const tk_option options[] = {
    {.name = "sort", .letter = 's', .value = "FIELD", .parse = parse_sort,
     .help = "funcid (default), count, min, med, 90p, 99p, max, sum or func (function "
             "name)"},
    {.name = "sort-order", .letter = 'r', .value = "ORD", .choices = "asc dsc",
     .help = "asc (default) or dsc"},
    {.name = "sortorder", .flags = TK_OPTION_ALIAS},
    {.name = "top", .letter = 'p', .value = "N", .parse = parse_top,
     .help = "only the first N rows"},
    {.name = "output-format", .letter = 'f', .value = "text|csv", .choices = "text csv",
     .help = "table style (default text); also --format text or --format csv, as "
             "llvm-xray spells it"},
    {.name = "output", .letter = 'o', .value = "OUT",
     .help = "write to OUT (default: standard output)"},
    {.name = "deduce-sibling-calls", .letter = 'd',
     .help = "an exit that matches a deeper frame closes the frames above it too (for "
             "missing tail exits)"},
    {.name = "keep-going", .letter = 'k', .help = "report unmatched records and go on"},
    {.name = "recursive-calls-only", .help = "count only calls made inside a recursion"},
    {.name = "memory-limit", .value = "SIZE", .parse = tk_opt_size,
     .help = "memory for latencies (default 64M; K, M, G suffixes); beyond it they go to "
             "a temporary file in $TMPDIR, and the statistics stay exact"},
    {.name = "json", .flags = TK_OPTION_SHARED,
     .help = "an array of objects: func_id, function, count, min_s, med_s, p90_s, p99_s, "
             "max_s, sum_s (seconds; null without a cycle frequency)"},
    {.name = "json-hex", .flags = TK_OPTION_SHARED,
     .help = "--json with integers past 2^53 as \"0x...\""},
    {.name = "format", .value = "NAME", .key = "output-format", .choices = "text csv",
     .flags = TK_OPTION_SHARED, .help = "read the input as NAME (text, csv: -f)"},
    {0}};

const tk_command tk_xray_cmd_account = {
    .name = "account",
    .summary = "XRay: per-function call counts and latencies",
    .synopsis = "[OPTIONS] FILE",
    .help = "Per-function latency accounting of an XRay trace: for every function,\n"
            "the number of calls and the min, median, 90th and 99th percentile, max\n"
            "and sum of their durations in seconds (TSC ticks when the trace has no\n"
            "cycle frequency). The same statistics as llvm-xray account.\n",
    .notes = "llvm-xray's spellings work too: -sort=count, -sortorder=dsc, -top=5,\n"
             "-format=csv, -output=OUT, -instr_map=BIN, -keep-going=false, ...\n",
    .needs = "; account needs XRay",
    .options = options,
    .run = run,
};
