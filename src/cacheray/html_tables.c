/* Cacheray's HTML report: the per-type, per-field (with -g) and
 * per-thread tables, heat-coloured, with the numbers of report --json's
 * `types` (and their `fields`) and `threads`. */
#include <inttypes.h>
#include <stdlib.h>

#include "cacheray/html_int.h"
#include "core/topk.h"

typedef char level_name[TK_CACHESIM_NAME_MAX + 8];

/* Accesses, reads, writes, bytes, then the per-level misses. */
static size_t count_columns(const tk_crh *c, tk_html_column *cols, size_t at,
                            level_name *names)
{
    cols[at++] = (tk_html_column){.label = "accesses", .key = "accesses",
                                  .flags = TK_HTML_COL_HEAT | TK_HTML_COL_SUM};
    cols[at++] = (tk_html_column){.label = "reads", .key = "reads", .flags = TK_HTML_COL_SUM};
    cols[at++] = (tk_html_column){.label = "writes", .key = "writes", .flags = TK_HTML_COL_SUM};
    cols[at++] = (tk_html_column){.label = "bytes", .key = "bytes", .unit = TK_HTML_BYTES,
                                  .flags = TK_HTML_COL_SUM};
    return tk_crh_miss_columns(c, cols, at, names);
}

static size_t count_cells(const tk_crh *c, tk_html_value *row, size_t at,
                          const tk_cachesim_counts *n)
{
    row[at++] = tk_html_u64(n->reads + n->writes);
    row[at++] = tk_html_u64(n->reads);
    row[at++] = tk_html_u64(n->writes);
    row[at++] = tk_html_u64(n->bytes);
    for (size_t k = 0; k < c->nlevels; k++)
        row[at++] = tk_html_u64(n->misses[k]);
    return at;
}

enum { MAX_COLS = 12 + TK_CACHESIM_MAX_LEVELS };

void tk_crh_types(tk_html *h, tk_crh *c)
{
    tk_html_column cols[MAX_COLS];
    level_name names[TK_CACHESIM_MAX_LEVELS];
    size_t n = 0;
    cols[n++] = (tk_html_column){.label = "type", .key = "name",
                                 .flags = TK_HTML_COL_KEY | TK_HTML_COL_MONO};
    n = count_columns(c, cols, n, names);
    cols[n++] = (tk_html_column){.label = "regions", .key = "regions",
                                 .help = "RTTA_ADDs of the type"};
    cols[n++] = (tk_html_column){.label = "live", .key = "live",
                                 .help = "regions live at the end"};
    cols[n++] = (tk_html_column){.label = "peak live", .key = "peak_live"};
    cols[n++] = (tk_html_column){.label = "layout", .key = "layout", .flags = TK_HTML_COL_MONO,
                                 .help = "the struct -g found for the type"};
    tk_html_table_spec spec = {.id = "type-table", .src = "report.types", .cols = cols,
                               .ncols = n,
                               .caption = "Accesses and misses per type, most accessed first "
                                          "(as report --json's types; click a header to sort)"};
    tk_html_table_begin(h, &spec);
    for (size_t i = 0; i < c->ntypes; i++) {
        tk_cachesim_type t;
        tk_cachesim_get_type(c->sim, c->order[i], &t);
        tk_html_value row[MAX_COLS];
        size_t m = 0;
        row[m++] = tk_html_str(t.name);
        m = count_cells(c, row, m, &t.c);
        row[m++] = tk_html_u64(t.regions);
        row[m++] = tk_html_u64(t.live);
        row[m++] = tk_html_u64(t.peak_live);
        row[m++] = t.layout ? tk_html_str(t.layout) : tk_html_null();
        tk_html_table_row(h, row);
    }
    tk_html_table_end(h);
    if (c->ntypes == 0)
        tk_html_para(h, "No access was selected.");
}

/* One struct type's fields: the JSON element types[j] holds them. */
static void field_table(tk_html *h, tk_crh *c, size_t j, const tk_cachesim_type *t)
{
    char title[512], src[64];
    snprintf(title, sizeof title, "%s (%s, %" PRIu64 " bytes)", t->name, t->layout,
             t->layout_size);
    tk_html_section(h, NULL, title, NULL);
    tk_html_field f[] = {
        {"type", "name", TK_HTML_PLAIN, 0, tk_html_str(t->name)},
        {"struct", "layout", TK_HTML_PLAIN, 0, tk_html_str(t->layout)},
        {"struct size (the array stride)", "layout_size", TK_HTML_BYTES, 0,
         tk_html_u64(t->layout_size)},
        {"accesses in regions whose element is not a multiple of it", "unmatched",
         TK_HTML_PLAIN, 0, tk_html_u64(t->unmatched)},
        {"accesses touching only padding", "padding", TK_HTML_PLAIN, 0,
         tk_html_u64(t->padding)}};
    tk_html_facts(h, "report.types", "name", f, sizeof f / sizeof f[0]);
    tk_html_column cols[MAX_COLS];
    level_name names[TK_CACHESIM_MAX_LEVELS];
    size_t n = 0;
    cols[n++] = (tk_html_column){.label = "field", .key = "name",
                                 .flags = TK_HTML_COL_KEY | TK_HTML_COL_MONO};
    cols[n++] = (tk_html_column){.label = "offset", .key = "offset", .flags = TK_HTML_COL_KEY};
    cols[n++] = (tk_html_column){.label = "size", .key = "size", .unit = TK_HTML_BYTES};
    n = count_columns(c, cols, n, names);
    snprintf(src, sizeof src, "report.types.%zu.fields", j);
    tk_html_table_spec spec = {.src = src, .cols = cols, .ncols = n,
                               .caption = "Accesses and misses per field, in layout order"};
    tk_html_table_begin(h, &spec);
    for (size_t i = 0; i < t->nfields; i++) {
        const tk_cachesim_field *F = &t->fields[i];
        tk_html_value row[MAX_COLS];
        size_t m = 0;
        row[m++] = tk_html_str(F->name);
        row[m++] = tk_html_u64(F->offset);
        row[m++] = tk_html_u64(F->size);
        count_cells(c, row, m, &F->c);
        tk_html_table_row(h, row);
    }
    tk_html_table_end(h);
    tk_html_section_end(h);
}

void tk_crh_fields(tk_html *h, tk_crh *c)
{
    size_t shown = 0, with = 0;
    for (size_t j = 0; j < c->ntypes; j++) {
        tk_cachesim_type t;
        tk_cachesim_get_type(c->sim, c->order[j], &t);
        if (!t.layout)
            continue;
        if (with++ < TK_CRH_FIELD_TABLES) {
            field_table(h, c, j, &t);
            shown++;
        }
    }
    if (!c->debug_info)
        tk_html_para(h, "Per-field tables need the struct layouts: -g BIN (an ELF file with "
                        "DWARF, or a dwarf2json .json file).");
    else if (with == 0)
        tk_html_para(h, "No type's name matched a struct in the debug information.");
    else if (shown < with)
        tk_html_paraf(h, "Fields of the %zu most accessed struct types are shown (of %zu).",
                      shown, with);
}

/* Threads by accesses, most first (report --json keeps its own order). */
static int busier(const void *a, const void *b)
{
    const tk_cachesim_thread *x = a, *y = b;
    uint64_t p = x->c.reads + x->c.writes, q = y->c.reads + y->c.writes;
    return p != q ? (p < q) - (p > q) : (x->id > y->id) - (x->id < y->id);
}

/* tk_topk's order: 1 when thread a comes before thread b. The table shows
 * the first TK_HTML_MAX_ROWS threads in that order and sums the others,
 * so only those are kept and sorted (a million threads made a 96 MB copy
 * and sorted it). b is mostly the same thread (the last kept, each new
 * thread is held against it): its copy is kept. */
typedef struct held_thread {
    size_t index; /* SIZE_MAX: none */
    tk_cachesim_thread t;
} held_thread;

typedef struct thread_order {
    const tk_cachesim *sim;
    held_thread *held;
} thread_order;

static int thread_before(const void *ctx, size_t a, size_t b)
{
    const thread_order *o = ctx;
    tk_cachesim_thread x;
    tk_cachesim_get_thread(o->sim, a, &x);
    if (o->held->index != b) {
        tk_cachesim_get_thread(o->sim, b, &o->held->t);
        o->held->index = b;
    }
    return busier(&x, &o->held->t) < 0;
}

static void thread_row(tk_html *h, tk_crh *c, const tk_cachesim_thread *t)
{
    tk_html_value row[MAX_COLS];
    row[0] = tk_html_u64(t->id);
    count_cells(c, row, 1, &t->c);
    tk_html_table_row(h, row);
}

void tk_crh_threads(tk_html *h, tk_crh *c)
{
    size_t nt = tk_cachesim_threads(c->sim), listed;
    held_thread held = {SIZE_MAX, {0}};
    thread_order order = {c->sim, &held};
    size_t *top = tk_topk(nt, TK_HTML_MAX_ROWS, thread_before, &order, &listed);
    unsigned char *shown = calloc(nt / 8 + 1, 1);
    if (!top || !shown) {
        free(top);
        free(shown);
        tk_html_para(h, "The thread table could not be built (out of memory).");
        return;
    }
    for (size_t i = 0; i < listed; i++)
        shown[top[i] / 8] |= (unsigned char)(1u << top[i] % 8);
    tk_html_column cols[MAX_COLS];
    level_name names[TK_CACHESIM_MAX_LEVELS];
    size_t n = 0;
    cols[n++] = (tk_html_column){.label = "thread", .key = "thread", .flags = TK_HTML_COL_KEY};
    n = count_columns(c, cols, n, names);
    tk_html_table_spec spec = {.id = "thread-table", .src = "report.threads", .cols = cols,
                               .ncols = n,
                               .caption = "Accesses and misses per thread, most accessing "
                                          "first (as report --json's threads)"};
    tk_html_table_begin(h, &spec);
    tk_cachesim_thread x;
    for (size_t i = 0; i < listed; i++) {
        tk_cachesim_get_thread(c->sim, top[i], &x);
        thread_row(h, c, &x);
    }
    /* The others are only counted and summed: integer sums, exact in
     * doubles (below 2^53) whatever their order, so in the table's. */
    for (size_t i = 0; i < nt; i++) {
        if (shown[i / 8] >> (i % 8) & 1)
            continue;
        tk_cachesim_get_thread(c->sim, i, &x);
        thread_row(h, c, &x);
    }
    tk_html_table_end(h);
    free(top);
    free(shown);
}
