/* `tracekit report --html` for XRay: one pass over the records into
 * account, stack and graph (html_collect.c), then the page: the text
 * report's facts, the call tree as an icicle, busy time per thread, the
 * account table, latency histograms of the top functions and the hottest
 * edges of the call graph. Every number that --json also prints is the
 * same number (docs/formats/xray.md, "HTML report"). */
#include "xray/html_int.h"
#include "xray/xray_int.h"

/* The text report's facts (report --json's members). */
static void facts(tk_html *h, tk_xh *x, tk_input *in)
{
    const tk_xray_header *hd = tk_xray_reader_header(x->r);
    tk_html_field f[] = {
        {"file", "file", TK_HTML_PLAIN, 0, tk_html_str(tk_input_name(in))},
        {"format", "format", TK_HTML_PLAIN, 0, tk_html_str("xray")},
        {"mode", "mode", TK_HTML_PLAIN, 0, tk_html_str(hd->type == TK_XRAY_FDR ? "fdr" : "basic")},
        {"version", "version", TK_HTML_PLAIN, 0, tk_html_u64(hd->version)},
        {"records", "records", TK_HTML_PLAIN, 0, tk_html_u64(x->records)},
        {"threads", "thread_count", TK_HTML_PLAIN, 0, tk_html_u64(x->threads.n)},
        {"functions", "functions", TK_HTML_PLAIN, 0,
         tk_html_u64(tk_xray_account_functions(x->acc))},
        {"time span", "span_s", TK_HTML_SECONDS, 0,
         x->records ? tk_xh_seconds(x, (double)(x->tmax - x->tmin)) : tk_html_null()},
        {"cycle frequency (Hz)", NULL, TK_HTML_PLAIN, 0, tk_html_u64(x->freq)},
        {"records that match no call", "unmatched_records", TK_HTML_PLAIN, 0,
         tk_html_u64(x->unmatched)},
        {"records in their thread's past", "records_in_thread_past", TK_HTML_PLAIN, 0,
         tk_html_u64(x->past)}};
    tk_html_facts(h, "report", NULL, f, sizeof f / sizeof f[0]);
    if (!x->freq)
        tk_html_para(h, "The trace has no cycle frequency: durations are in TSC ticks, and "
                        "the JSON's seconds are null.");
}

static void page(tk_html *h, tk_xh *x, tk_input *in)
{
    tk_html_section(h, "summary", "Summary", NULL);
    facts(h, x, in);
    tk_html_section_end(h);
    tk_html_section(h, "calls", "Where the time goes", NULL);
    tk_xh_flame(h, x);
    tk_html_section_end(h);
    tk_html_section(h, "threads", "Threads", NULL);
    tk_xh_threads(h, x);
    tk_xh_timeline(h, x);
    tk_html_section_end(h);
    tk_html_section(h, "functions", "Functions", NULL);
    tk_xh_account(h, x);
    tk_html_section_end(h);
    tk_html_section(h, "latency", "Latency of the top functions",
                    "How the durations of the functions taking the most time spread.");
    tk_xh_histograms(h, x);
    tk_html_section_end(h);
    tk_html_section(h, "graph", "Hottest call-graph edges", NULL);
    tk_xh_edges(h, x);
    tk_html_section_end(h);
}

tk_status tk_xr_report_html(tk_input *in, const tk_options *o, FILE *out, tk_error *err)
{
    tk_xh x = {0};
    if (!(x.r = tk_xr_open(in, o, err)))
        return err->status;
    x.map = tk_xr_open_map(o, err);
    tk_status st = !x.map ? err->status : TK_OK;
    if (st == TK_OK)
        st = tk_xh_collect(&x, err);
    if (st == TK_OK) {
        tk_html *h = tk_html_begin(out, "XRay report", tk_input_name(in), err);
        if (!h) {
            st = err->status;
        } else {
            page(h, &x, in);
            st = tk_html_end(h, err);
        }
    }
    tk_xh_free(&x);
    tk_xray_map_free(x.map);
    tk_xray_reader_free(x.r);
    return st;
}
