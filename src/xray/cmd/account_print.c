/* account's rows as llvm-xray account prints them, and as JSON. */
#include "xray/cmd/cmd.h"

void tk_xray_account_print_text(FILE *out, tk_xray_map *map, const tk_xray_account_row *r,
                                size_t n, size_t total, double scale)
{
    fprintf(out, "Functions with latencies: %zu\n", total);
    fprintf(out, "%9s %10s [%9s, %9s, %9s, %9s, %9s] %9s  %-12s\n", "funcid", "count",
            "min", "med", "90p", "99p", "max", "sum", "function");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%9d %10llu [%9.6f, %9.6f, %9.6f, %9.6f, %9.6f] %9.6f  %s: %s\n",
                r[i].func_id, (unsigned long long)r[i].count, r[i].min / scale,
                r[i].med / scale, r[i].p90 / scale, r[i].p99 / scale, r[i].max / scale,
                (double)r[i].sum / scale, tk_xray_map_location(map, r[i].func_id),
                tk_xray_map_name(map, r[i].func_id));
}

void tk_xray_account_print_csv(FILE *out, tk_xray_map *map, const tk_xray_account_row *r,
                               size_t n, double scale)
{
    fprintf(out, "funcid,count,min,median,90%%ile,99%%ile,max,sum,debug,function\n");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%d,%llu,%e,%e,%e,%e,%e,%e,\"%s\",\"%s\"\n", r[i].func_id,
                (unsigned long long)r[i].count, r[i].min / scale, r[i].med / scale,
                r[i].p90 / scale, r[i].p99 / scale, r[i].max / scale,
                (double)r[i].sum / scale, tk_xray_map_location(map, r[i].func_id),
                tk_xray_map_name(map, r[i].func_id));
}

/* A duration of `ticks` in seconds: null without a cycle frequency. */
static void seconds(tk_sink *s, const char *key, double ticks, uint64_t freq)
{
    if (freq)
        tk_sink_f64_flags(s, key, ticks / (double)freq, TK_SINK_SECONDS);
    else
        tk_sink_null(s, key);
}

void tk_xray_account_print_json(tk_sink *s, tk_xray_map *map, const tk_xray_account_row *r,
                                size_t n, uint64_t freq)
{
    tk_sink_array_begin(s, NULL);
    for (size_t i = 0; i < n; i++) {
        tk_sink_object_begin(s, NULL);
        tk_sink_i64(s, "func_id", r[i].func_id);
        tk_sink_cstr(s, "function", tk_xray_map_name(map, r[i].func_id), 0);
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
