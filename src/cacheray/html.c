/* `tracekit report --html` for Cacheray: the cache simulation of the text
 * report (the same hierarchy, -l/--config, -g and selection), with reuse
 * distances on, in one pass (html_collect.c), then the page: the totals,
 * hits and misses per level with the 3C split, the miss rate over the
 * trace, per-type, per-field and per-thread tables with heat colouring,
 * falsely shared lines, and the reuse-distance histogram with the LRU
 * miss-ratio curve. Every number that report --json (or, for reuse,
 * cachesim --reuse --json) prints is the same number
 * (docs/formats/cacheray.md, "HTML report"). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cacheray/cacheray_int.h"
#include "cacheray/html_int.h"

/* One level's geometry for people: "L1: 32 KiB, 8-way, 64-byte lines, lru". */
static void describe(char *buf, size_t size, const tk_cachesim_level *l)
{
    uint64_t lines = l->size / l->line;
    char ways[32], bytes[32];
    if (l->size % (1u << 20) == 0)
        snprintf(bytes, sizeof bytes, "%" PRIu64 " MiB", l->size >> 20);
    else if (l->size % 1024 == 0)
        snprintf(bytes, sizeof bytes, "%" PRIu64 " KiB", l->size >> 10);
    else
        snprintf(bytes, sizeof bytes, "%" PRIu64 " bytes", l->size);
    if (l->ways && l->ways < lines)
        snprintf(ways, sizeof ways, "%" PRIu32 "-way", l->ways);
    else
        snprintf(ways, sizeof ways, "fully associative");
    snprintf(buf, size, "%s: %s, %s, %" PRIu32 "-byte lines, %s%s%s%s", l->name, bytes, ways,
             l->line, tk_cachesim_policy_name(l->policy),
             l->write_back ? ", write-back" : ", write-through",
             l->write_allocate ? "" : ", no write-allocate", l->inclusive ? ", inclusive" : "");
}

/* The text report's totals (report --json's members). */
static void facts(tk_html *h, tk_crh *c, tk_input *in)
{
    tk_cachesim_totals t;
    tk_cachesim_get_totals(c->sim, &t);
    tk_html_field f[] = {
        {"file", "file", TK_HTML_PLAIN, 0, tk_html_str(tk_input_name(in))},
        {"format", "format", TK_HTML_PLAIN, 0, tk_html_str("cacheray")},
        {"records", "records", TK_HTML_PLAIN, 0,
         tk_html_u64(t.accesses + c->rtta_add + c->rtta_remove)},
        {"accesses", "accesses", TK_HTML_PLAIN, 0, tk_html_u64(t.accesses)},
        {"reads", "reads", TK_HTML_PLAIN, 0, tk_html_u64(t.reads)},
        {"writes", "writes", TK_HTML_PLAIN, 0, tk_html_u64(t.writes)},
        {"bytes accessed", "bytes", TK_HTML_BYTES, 0, tk_html_u64(t.bytes)},
        {"accesses of 0 bytes", "zero_size", TK_HTML_PLAIN, 0, tk_html_u64(t.zero_size)},
        {"regions added (rtta_add)", "rtta_add", TK_HTML_PLAIN, 0, tk_html_u64(c->rtta_add)},
        {"regions removed (rtta_remove)", "rtta_remove", TK_HTML_PLAIN, 0,
         tk_html_u64(c->rtta_remove)},
        {"struct layouts from", NULL, TK_HTML_PLAIN, 0,
         c->debug_info ? tk_html_str(c->debug_info) : tk_html_null()}};
    tk_html_facts(h, "report", NULL, f, sizeof f / sizeof f[0]);
    for (size_t k = 0; k < c->nlevels; k++) {
        char d[TK_CACHESIM_NAME_MAX + 160];
        describe(d, sizeof d, tk_cachesim_level_config(c->sim, k));
        tk_html_para(h, d);
    }
}

static void page(tk_html *h, tk_crh *c, tk_input *in)
{
    tk_html_section(h, "summary", "Summary",
                    "The simulated hierarchy over the trace (or the selection): every access "
                    "touches each line it overlaps; a level below L1 sees the misses and "
                    "writebacks of the level above.");
    facts(h, c, in);
    tk_html_section_end(h);
    tk_html_section(h, "levels", "Hits and misses per level", NULL);
    tk_crh_levels(h, c);
    tk_html_section_end(h);
    tk_html_section(h, "windows", "Miss rate over the trace", NULL);
    tk_crh_windows(h, c);
    tk_html_section_end(h);
    tk_html_section(h, "types", "Types",
                    "Accesses and misses per RTTA type: an access belongs to the region "
                    "holding its first byte.");
    tk_crh_types(h, c);
    tk_crh_fields(h, c);
    tk_html_section_end(h);
    tk_html_section(h, "threads", "Threads", NULL);
    tk_crh_threads(h, c);
    tk_html_section_end(h);
    tk_html_section(h, "false-sharing", "False sharing",
                    "L1 lines written by two or more threads where no byte was written by "
                    "two of them.");
    tk_crh_false_sharing(h, c);
    tk_html_section_end(h);
    tk_html_section(h, "reuse", "Reuse distances and the miss-ratio curve", NULL);
    tk_crh_reuse(h, c);
    tk_html_section_end(h);
}

tk_status tk_cacheray_report_html(tk_input *in, const tk_options *o, FILE *out, tk_error *err)
{
    tk_cachesim_config cfg;
    if (tk_cacheray_report_config(o, &cfg, err) != TK_OK)
        return err->status;
    cfg.flags |= TK_CACHESIM_REUSE; /* the histogram and the miss-ratio curve */
    tk_crh *c = calloc(1, sizeof *c);
    if (!c)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    tk_status st = tk_crh_collect(c, in, o, &cfg, err);
    if (st == TK_OK) {
        tk_html *h = tk_html_begin(out, "Cacheray report", tk_input_name(in), err);
        if (!h) {
            st = err->status;
        } else {
            page(h, c, in);
            st = tk_html_end(h, err);
        }
    }
    tk_crh_free(c);
    free(c);
    return st;
}
