/* account's rows as llvm-xray account prints them, and as JSON. */
#include <string.h>

#include "core/numfmt.h"
#include "xray/cmd/cmd.h"

/* One row as "%9d %10llu [%9.6f, %9.6f, %9.6f, %9.6f, %9.6f] %9.6f  " (the
 * location and name follow): formatted here, since a million-function
 * trace prints a million rows and printf's float path dominated. */
static size_t text_row(char *line, size_t cap, const tk_xray_account_row *r, double scale)
{
    const double v[6] = {r->min / scale, r->med / scale, r->p90 / scale,
                         r->p99 / scale, r->max / scale, (double)r->sum / scale};
    size_t n = r->func_id >= 0 ? tk_num_printf_u(line, (uint64_t)r->func_id, 9)
                               : (size_t)snprintf(line, cap, "%9d", r->func_id);
    line[n++] = ' ';
    n += tk_num_printf_u(line + n, r->count, 10);
    for (int k = 0; k < 6; k++) {
        static const char *const sep[6] = {" [", ", ", ", ", ", ", ", ", "] "};
        memcpy(line + n, sep[k], 2);
        n += 2;
        n += tk_num_printf_f(line + n, cap - n, v[k], 9, 6);
        if (n >= cap - 48) /* a huge value: printf's own length */
            return n < cap ? n : cap - 1;
    }
    memcpy(line + n, "  ", 3);
    return n + 2;
}

void tk_xray_account_print_text(FILE *out, tk_xray_map *map, const tk_xray_account_row *r,
                                size_t n, size_t total, double scale)
{
    enum { LINE = 2048, BLOCK = 16 << 10 };
    char block[BLOCK]; /* rows written a block at a time */
    size_t used = 0;
    fprintf(out, "Functions with latencies: %zu\n", total);
    fprintf(out, "%9s %10s [%9s, %9s, %9s, %9s, %9s] %9s  %-12s\n", "funcid", "count",
            "min", "med", "90p", "99p", "max", "sum", "function");
    for (size_t i = 0; i < n; i++) {
        if (used > BLOCK - LINE) {
            fwrite(block, 1, used, out);
            used = 0;
        }
        char *line = block + used;
        size_t len = text_row(line, LINE, &r[i], scale);
        const char *loc = tk_xray_map_location(map, r[i].func_id);
        const char *name = tk_xray_map_name(map, r[i].func_id);
        size_t ll = strlen(loc), nl = strlen(name);
        if (len + ll + nl + 4 <= LINE) {
            memcpy(line + len, loc, ll);
            memcpy(line + len + ll, ": ", 2);
            memcpy(line + len + ll + 2, name, nl);
            line[len + ll + 2 + nl] = '\n';
            used += len + ll + nl + 3;
        } else { /* a long name: printed on its own */
            fwrite(block, 1, used + len, out);
            used = 0;
            fprintf(out, "%s: %s\n", loc, name);
        }
    }
    fwrite(block, 1, used, out);
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
