/* tracekit account: per-function latency statistics of an XRay trace, as
 * llvm-xray account prints them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "selection.h"

enum {
    OPT_SORT = OPT_FIRST_COMMAND_OPTION,
    OPT_SORT_ORDER,
    OPT_TOP,
    OPT_RECURSIVE,
    OPT_MEMORY_LIMIT,
    OPT_TABLE_OR_INPUT /* --format: text|csv for the table, else the input */
};

static const char help[] =
    "usage: tracekit account [OPTIONS] FILE\n"
    "\n"
    "Per-function latency accounting of an XRay trace: for every function,\n"
    "the number of calls and the min, median, 90th and 99th percentile, max\n"
    "and sum of their durations in seconds (TSC ticks when the trace has no\n"
    "cycle frequency). The same statistics as llvm-xray account.\n"
    "\n"
    "options:\n"
    "  -s, --sort FIELD      funcid (default), count, min, med, 90p, 99p, max,\n"
    "                        sum or func (function name)\n"
    "  -r, --sort-order ORD  asc (default) or dsc (also --sortorder)\n"
    "  -p, --top N           only the first N rows\n"
    "  -f, --output-format text|csv\n"
    "                        table style (default text); also --format text\n"
    "                        or --format csv, as llvm-xray spells it\n"
    "  -o, --output OUT      write to OUT (default: standard output)\n"
    "  -d, --deduce-sibling-calls\n"
    "                        an exit that matches a deeper frame closes the\n"
    "                        frames above it too (for missing tail exits)\n"
    "  -k, --keep-going      report unmatched records and go on\n"
    "  --recursive-calls-only  count only calls made inside a recursion\n"
    "  --memory-limit SIZE   memory for latencies (default 64M; K, M, G\n"
    "                        suffixes); beyond it they go to a temporary file\n"
    "                        in $TMPDIR, and the statistics stay exact\n"
    CLI_XRAY_SELECT_HELP CLI_XRAY_MAP_HELP
    "  --json                an array of objects: func_id, function, count,\n"
    "                        min_s, med_s, p90_s, p99_s, max_s, sum_s\n"
    "                        (seconds; null without a cycle frequency)\n"
    "  --json-hex            --json with integers past 2^53 as \"0x...\"\n"
    "  --format NAME         read the input as NAME (text, csv: -f)\n"
    "  --progress WHEN       progress line on stderr: auto (on a terminal,\n"
    "                        after a second), always or never\n"
    "  -h, --help            show this help\n"
    "\nllvm-xray's spellings work too: -sort=count, -sortorder=dsc, -top=5,\n"
    "-format=csv, -output=OUT, -instr_map=BIN, -keep-going=false, ...\n";

static struct {
    tk_xray_account_sort sort;
    int descending, csv, keep_going, by_name;
    uint64_t top;
    const char *output;
    const char *style; /* the table style as given, if it was */
    tk_xray_account_options opt;
} A = {.top = UINT64_MAX, .output = "-"};

/* The table style; returns 0 for a value other than text or csv. */
static int table_style(const char *v)
{
    if (strcmp(v, "text") && strcmp(v, "csv"))
        return 0;
    A.csv = strcmp(v, "csv") == 0;
    A.style = A.csv ? "--output-format csv" : "--output-format text";
    return 1;
}

static int parse_sort(const char *v)
{
    static const char *const names[] = {"funcid", "count", "min", "med", "90p",
                                        "99p", "max", "sum", "func"};
    for (int i = 0; i < 9; i++)
        if (strcmp(v, names[i]) == 0) {
            A.sort = (tk_xray_account_sort)i;
            A.by_name = i == TK_XRAY_SORT_FUNC;
            return 1;
        }
    return -1;
}

static int extra(cli *c, int opt, const char *arg)
{
    char *end;
    switch (opt) {
    case 's':
    case OPT_SORT:
        if (parse_sort(arg) < 0) {
            cli_usage_error(c->command, "--sort: unknown field '%s'", arg);
            return -1;
        }
        return 1;
    case 'r':
    case OPT_SORT_ORDER:
        if (strcmp(arg, "asc") && strcmp(arg, "dsc")) {
            cli_usage_error(c->command, "--sort-order takes asc or dsc, not '%s'", arg);
            return -1;
        }
        A.descending = strcmp(arg, "dsc") == 0;
        return 1;
    case 'p':
    case OPT_TOP:
        A.top = strtoull(arg, &end, 10);
        if (*arg < '0' || *arg > '9' || *end) {
            cli_usage_error(c->command, "--top takes a number, not '%s'", arg);
            return -1;
        }
        return 1;
    case 'd':
        A.opt.deduce_sibling_calls = 1;
        return 1;
    case 'k':
        A.keep_going = 1;
        return 1;
    case OPT_RECURSIVE:
        A.opt.recursive_calls_only = 1;
        return 1;
    case OPT_MEMORY_LIMIT:
        return cli_parse_size(c->command, "--memory-limit", arg, &A.opt.memory_limit) ? -1 : 1;
    case 'f':
        if (!table_style(arg)) {
            cli_usage_error(c->command, "--output-format takes text or csv, not '%s'", arg);
            return -1;
        }
        return 1;
    case OPT_TABLE_OR_INPUT: /* no input format is called text or csv */
        return table_style(arg) ? 1 : cli_common_option(c, OPT_FORMAT, arg);
    case 'o':
        A.output = arg;
        return 1;
    }
    return 0;
}

/* Names and locations as llvm-xray prints them ("#<id>" and "(unknown)"
 * without a map). */
static tk_xray_map *M;

static const char *func_name(int32_t id) { return tk_xray_map_name(M, id); }
static const char *func_location(int32_t id) { return tk_xray_map_location(M, id); }

static int cmp_by_name(const void *x, const void *y, void *desc)
{
    const tk_xray_account_row *a = x, *b = y;
    int c = strcmp(func_name(a->func_id), func_name(b->func_id));
    if (*(int *)desc)
        c = -c;
    return c ? c : (a->func_id > b->func_id) - (a->func_id < b->func_id);
}

static void print_text(FILE *out, const tk_xray_account_row *r, size_t n,
                       size_t total, double scale)
{
    fprintf(out, "Functions with latencies: %zu\n", total);
    fprintf(out, "%9s %10s [%9s, %9s, %9s, %9s, %9s] %9s  %-12s\n", "funcid", "count",
            "min", "med", "90p", "99p", "max", "sum", "function");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%9d %10llu [%9.6f, %9.6f, %9.6f, %9.6f, %9.6f] %9.6f  %s: %s\n",
                r[i].func_id, (unsigned long long)r[i].count, r[i].min / scale,
                r[i].med / scale, r[i].p90 / scale, r[i].p99 / scale, r[i].max / scale,
                (double)r[i].sum / scale, func_location(r[i].func_id),
                func_name(r[i].func_id));
}

static void print_csv(FILE *out, const tk_xray_account_row *r, size_t n, double scale)
{
    fprintf(out, "funcid,count,min,median,90%%ile,99%%ile,max,sum,debug,function\n");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%d,%llu,%e,%e,%e,%e,%e,%e,\"%s\",\"%s\"\n", r[i].func_id,
                (unsigned long long)r[i].count, r[i].min / scale, r[i].med / scale,
                r[i].p90 / scale, r[i].p99 / scale, r[i].max / scale,
                (double)r[i].sum / scale, func_location(r[i].func_id),
                func_name(r[i].func_id));
}

/* A duration of `ticks` in seconds: null without a cycle frequency. */
static void seconds(tk_sink *s, const char *key, double ticks, uint64_t freq)
{
    if (freq)
        tk_sink_f64_flags(s, key, ticks / (double)freq, TK_SINK_SECONDS);
    else
        tk_sink_null(s, key);
}

static void print_json(tk_sink *s, const tk_xray_account_row *r, size_t n, uint64_t freq)
{
    tk_sink_array_begin(s, NULL);
    for (size_t i = 0; i < n; i++) {
        tk_sink_object_begin(s, NULL);
        tk_sink_i64(s, "func_id", r[i].func_id);
        tk_sink_cstr(s, "function", func_name(r[i].func_id), 0);
        tk_sink_u64(s, "count", r[i].count, 0);
        seconds(s, "min_s", r[i].min, freq);
        seconds(s, "med_s", r[i].med, freq);
        seconds(s, "p90_s", r[i].p90, freq);
        seconds(s, "p99_s", r[i].p99, freq);
        seconds(s, "max_s", r[i].max, freq);
        seconds(s, "sum_s", (double)r[i].sum, freq);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
}

/* The rows as the table, CSV or JSON. */
typedef struct rows_out {
    const tk_xray_account_row *r;
    size_t n, total;
    double scale;  /* ticks per second, 1 without a cycle frequency */
    uint64_t freq; /* the cycle frequency, 0 when unknown */
} rows_out;

static tk_status write_rows(cli *c, FILE *f, tk_sink *json, void *ctx, tk_error *err)
{
    const rows_out *o = ctx;
    (void)c;
    (void)err;
    if (json)
        print_json(json, o->r, o->n, o->freq);
    else if (A.csv)
        print_csv(f, o->r, o->n, o->scale);
    else
        print_text(f, o->r, o->n, o->total, o->scale);
    return TK_OK;
}

/* One line for a record that could not be accounted. */
static void report_failure(cli *c, const tk_xray_account *a, const tk_xray_record *rec,
                           uint64_t off, uint64_t index, int failure, int warning)
{
    int32_t stack[8];
    size_t depth = tk_xray_account_stack(a, rec->tid, stack, 8);
    fprintf(stderr, "tracekit: %s: offset 0x%llx (record %llu): %s%s of %s on thread %u: %s",
            c->path, (unsigned long long)off, (unsigned long long)index,
            warning ? "warning: " : "", tk_xray_kind_name(rec->kind),
            func_name(rec->func_id), rec->tid,
            tk_xray_account_failure_text((tk_xray_account_failure)failure));
    if (depth) {
        fprintf(stderr, " (open:");
        for (size_t i = depth > 8 ? depth - 8 : 0, k = 0; i < depth && k < 8; i++, k++)
            fprintf(stderr, " %s", func_name(stack[depth > 8 ? k : i]));
        fprintf(stderr, "%s)", depth > 8 ? " ..." : "");
    }
    fputc('\n', stderr);
}

int cmd_account(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, OPT_TABLE_OR_INPUT},
        {"output-format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, OPT_JSON},
        {"json-hex", no_argument, NULL, OPT_JSON_HEX},
        {"help", no_argument, NULL, 'h'},
        {"sort", required_argument, NULL, 's'},
        {"sort-order", required_argument, NULL, 'r'},
        {"sortorder", required_argument, NULL, 'r'},
        {"top", required_argument, NULL, 'p'},
        {"deduce-sibling-calls", no_argument, NULL, 'd'},
        {"keep-going", no_argument, NULL, 'k'},
        {"recursive-calls-only", no_argument, NULL, OPT_RECURSIVE},
        {"memory-limit", required_argument, NULL, OPT_MEMORY_LIMIT},
        CLI_PROGRESS_LONG_OPTION,
        CLI_XRAY_MAP_LONG_OPTIONS,
        CLI_XRAY_SELECT_LONG_OPTIONS,
        {0}};
    cli c;
    const char *path = NULL;
    if (cli_init(&c, "account") != EXIT_OK)
        return EXIT_TROUBLE;
    tk_xray_reader *r;
    int rc = cli_parse(&c, argc, argv, "hs:r:p:dkm:f:o:", longopts, help, extra, &path);
    rc = cli_exclusive(&c, rc, c.json && A.style, A.style, "--json");
    rc = cli_open_xray(&c, rc, path, &r);
    if (!r)
        return rc;
    tk_error err;
    tk_error_clear(&err);
    tk_xray_account_row *rows = NULL;
    M = cli_load_map(&c, &rc);
    tk_xray_account *a = rc == EXIT_OK ? tk_xray_account_new(&A.opt, &err) : NULL;
    if (rc != EXIT_OK)
        goto done;
    if (!a) {
        rc = cli_report(NULL, &err);
        goto done;
    }
    tk_xray_record rec;
    int got;
    uint64_t failures = 0;
    while ((got = tk_xray_next(r, &rec, &err)) > 0) {
        int f = tk_xray_account_add(a, &rec, &err);
        if (f < 0) {
            rc = cli_report(NULL, &err);
            goto done;
        }
        if (f == TK_XRAY_ACCOUNT_OK)
            continue;
        failures++;
        if (!A.keep_going || failures <= 20)
            report_failure(&c, a, &rec, tk_xray_reader_offset(r), tk_xray_reader_index(r),
                           f, A.keep_going);
        if (!A.keep_going) {
            rc = EXIT_BAD_TRACE;
            goto done;
        }
    }
    if (got < 0) {
        rc = cli_report(c.path, &err);
        goto done;
    }
    if (failures > 20)
        fprintf(stderr, "tracekit: %s: warning: %llu records could not be accounted\n",
                c.path, (unsigned long long)failures);
    size_t n;
    if (tk_xray_account_rows(a, A.sort, A.descending, &rows, &n, &err) != TK_OK) {
        rc = cli_report(NULL, &err);
        goto done;
    }
    if (A.by_name)
        qsort_r(rows, n, sizeof *rows, cmp_by_name, &A.descending);
    size_t total = n;
    if (A.top < n)
        n = (size_t)A.top;
    uint64_t freq = tk_xray_reader_header(r)->cycle_frequency;
    rows_out out = {rows, n, total, freq ? (double)freq : 1.0, freq};
    rc = cli_write_output(&c, A.output, write_rows, &out);
done:
    tk_xray_map_free(M);
    free(rows);
    tk_xray_account_free(a);
    tk_xray_reader_free(r);
    cli_close(&c);
    return rc;
}
