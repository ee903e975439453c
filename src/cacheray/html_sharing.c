/* Cacheray's HTML report: falsely shared lines, as report --json lists
 * them (the same TK_CRH_SHARING_TOP, by alternations): a sortable table of
 * the lines, then a card per line with the bytes each thread wrote. */
#include <inttypes.h>
#include <string.h>

#include "cacheray/html_int.h"
#include "cacheray/sim/sim_int.h"

/* Types of two writers (NULL: untyped). */
static int same_type(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static void lines_table(tk_html *h, tk_crh *c, size_t n)
{
    tk_html_column cols[] = {
        {.label = "line", .key = "line_addr", .unit = TK_HTML_HEX,
         .flags = TK_HTML_COL_KEY | TK_HTML_COL_MONO},
        {.label = "writes", .key = "writes", .flags = TK_HTML_COL_HEAT,
         .help = "writes to the line, all threads"},
        {.label = "alternations", .key = "alternations", .flags = TK_HTML_COL_HEAT,
         .help = "consecutive writes by different threads: each moves the line"},
        {.label = "threads", .help = "threads writing the line"},
        {.label = "types", .flags = TK_HTML_COL_MONO, .help = "the types written"}};
    tk_html_table_spec spec = {.id = "sharing-table", .src = "report.false_sharing",
                               .cols = cols, .ncols = sizeof cols / sizeof cols[0],
                               .caption = "Falsely shared lines, most alternations first (as "
                                          "report --json's false_sharing)"};
    tk_html_table_begin(h, &spec);
    for (size_t i = 0; i < n; i++) {
        tk_cachesim_false_sharing fs;
        tk_cachesim_get_false_sharing(c->sim, i, &fs);
        char types[256] = "";
        size_t at = 0;
        for (size_t j = 0; j < fs.nthreads && at < sizeof types; j++) {
            const char *t = fs.threads[j].type ? fs.threads[j].type : "(untyped)";
            int seen = 0; /* each type once */
            for (size_t q = 0; q < j && !seen; q++)
                seen = same_type(fs.threads[q].type, fs.threads[j].type);
            if (!seen)
                at += (size_t)snprintf(types + at, sizeof types - at, "%s%s", at ? ", " : "", t);
        }
        tk_html_value row[] = {tk_html_u64(fs.line), tk_html_u64(fs.writes),
                               tk_html_u64(fs.alternations), tk_html_u64(fs.nthreads),
                               tk_html_str(types)};
        tk_html_table_row(h, row);
    }
    tk_html_table_end(h);
}

/* Line i's writers: report --json's false_sharing[i].threads. */
static void line_card(tk_html *h, tk_crh *c, size_t i)
{
    tk_cachesim_false_sharing fs;
    tk_cachesim_get_false_sharing(c->sim, i, &fs);
    char title[128], src[64];
    snprintf(title, sizeof title,
             "Line 0x%" PRIx64 ": %" PRIu64 " writes by %zu threads, %" PRIu64 " alternations",
             fs.line, fs.writes, fs.nthreads, fs.alternations);
    if (!tk_html_card_begin(h, fs.alternations > fs.writes / 4 ? TK_HTML_BAD : TK_HTML_WARN,
                            title)) {
        tk_html_card_end(h);
        return;
    }
    tk_html_column cols[] = {
        {.label = "thread", .key = "thread", .flags = TK_HTML_COL_KEY},
        {.label = "bytes of the line", .help = "the lowest and highest byte it wrote"},
        {.label = "first byte", .key = "first_addr", .unit = TK_HTML_HEX,
         .flags = TK_HTML_COL_MONO},
        {.label = "last byte", .key = "last_addr", .unit = TK_HTML_HEX,
         .flags = TK_HTML_COL_MONO},
        {.label = "writes", .key = "writes", .flags = TK_HTML_COL_HEAT},
        {.label = "type", .key = "type_name", .flags = TK_HTML_COL_MONO},
        {.label = "offset", .key = "offset", .help = "of the first byte in its element"},
        {.label = "field", .key = "field", .flags = TK_HTML_COL_MONO}};
    snprintf(src, sizeof src, "report.false_sharing.%zu.threads", i);
    tk_html_table_spec spec = {.src = src, .cols = cols, .ncols = sizeof cols / sizeof cols[0]};
    tk_html_table_begin(h, &spec);
    for (size_t j = 0; j < fs.nthreads; j++) {
        const tk_cachesim_sharer *w = &fs.threads[j];
        char bytes[48];
        snprintf(bytes, sizeof bytes, "%" PRIu64 "\xE2\x80\x93%" PRIu64, w->first - fs.line,
                 w->last - fs.line);
        tk_html_value row[] = {tk_html_u64(w->thread), tk_html_str(bytes),
                               tk_html_u64(w->first), tk_html_u64(w->last),
                               tk_html_u64(w->writes),
                               w->type ? tk_html_str(w->type) : tk_html_null(),
                               tk_html_u64(w->offset),
                               w->field ? tk_html_str(w->field) : tk_html_null()};
        tk_html_table_row(h, row);
    }
    tk_html_table_end(h);
    tk_html_card_end(h);
}

void tk_crh_false_sharing(tk_html *h, tk_crh *c)
{
    size_t n = 0;
    uint64_t shared = 0;
    tk_error err;
    if (cs_false_sharing_top(c->sim, TK_CRH_SHARING_TOP, &n, &shared, &err) != TK_OK) {
        tk_html_para(h, "False sharing could not be computed (out of memory).");
        return;
    }
    tk_html_field f[] = {
        {"lines written by several threads", "lines_written_by_several_threads", TK_HTML_PLAIN,
         0, tk_html_u64(shared)},
        {"of them falsely shared (no byte written by two)", "false_sharing_lines",
         TK_HTML_PLAIN, 0, tk_html_u64(n)}};
    tk_html_facts(h, "report", NULL, f, 2);
    if (n == 0) {
        tk_html_para(h, "No line is falsely shared.");
        return;
    }
    size_t shown = n < TK_CRH_SHARING_TOP ? n : TK_CRH_SHARING_TOP;
    lines_table(h, c, shown);
    for (size_t i = 0; i < shown; i++)
        line_card(h, c, i);
    if (shown < n)
        tk_html_paraf(h, "The %zu lines with the most alternations are shown (of %zu), as "
                         "report lists them.", shown, n);
}
