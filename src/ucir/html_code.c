/* UCIR's HTML report: the code addresses executed most often (the
 * report's executions per address) with their bytes and disassembly from
 * the replay's final memory (ucir/disasm.c: capstone, loaded at run time;
 * without it the page says so and shows the bytes), and per mapped region
 * the instructions executed and the bytes written there. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "ucir/disasm.h"
#include "ucir/html_int.h"

/* Addresses in the hot-code table; bars in the regions' chart. */
#define HOT 100
#define BARS 24

typedef struct hot {
    uint64_t pc;
    const tk_ucir_rep_pc *v;
} hot;

static int hotter(const void *a, const void *b)
{
    const hot *x = a, *y = b;
    if (x->v->count != y->v->count)
        return x->v->count < y->v->count ? 1 : -1;
    return (x->pc > y->pc) - (x->pc < y->pc);
}

/* The newest region whose range holds addr, NULL: none. Not the final
 * spans: code may have run in a region unmapped since. */
static const tk_uh_region *holding(const tk_uh *u, uint64_t addr)
{
    for (size_t i = u->nregions; i-- > 0;) {
        const tk_uh_region *r = &u->regions[i];
        if (r->addr <= addr && addr < tk_ucir_region_end(r->addr, r->size))
            return r;
    }
    return NULL;
}

/* One row: the address, its executions, share, region, bytes and text. */
static void hot_row(tk_html *h, tk_uh *u, ucir_disasm *d, const hot *e, uint64_t total)
{
    uint8_t code[TK_UCIR_CODE_MAX];
    char text[160], bytes[2 * TK_UCIR_CODE_MAX + 1] = "", name[128];
    tk_error err;
    size_t n = tk_ucir_disasm_code(d, u->rep.rp, e->pc, e->v->size, code, text, sizeof text,
                                   &err);
    for (size_t i = 0; i < n; i++)
        snprintf(bytes + 2 * i, 3, "%02x", code[i]);
    const tk_uh_region *r = holding(u, e->pc);
    tk_html_value row[6] = {
        tk_html_u64(e->pc), tk_html_u64(e->v->count),
        tk_html_f64(total ? (double)e->v->count / (double)total : 0),
        tk_html_str(r ? tk_uh_region_name(r, name, sizeof name) : u->unmapped.label),
        n ? tk_html_str(bytes) : tk_html_null(), text[0] ? tk_html_str(text) : tk_html_null()};
    tk_html_table_row(h, row);
}

void tk_uh_hot_code(tk_html *h, tk_uh *u)
{
    const tk_map *pcs = &u->rep.pcs;
    if (!pcs->n) {
        tk_html_para(h, "No instruction with a known address was executed.");
        return;
    }
    hot *v = malloc(pcs->n * sizeof *v);
    if (!v) {
        tk_html_para(h, "The hot code could not be shown (out of memory).");
        return;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < pcs->n; i++) {
        v[i] = (hot){pcs->ukeys[i], tk_map_value(pcs, i)};
        total += v[i].v->count;
    }
    qsort(v, pcs->n, sizeof *v, hotter);
    ucir_disasm *d = ucir_disasm_new(u->rep.h->arch, u->rep.h->mode);
    if (!d)
        tk_html_para(h, "No disassembly: capstone (libcapstone) is not installed or has no "
                        "decoder for this architecture; the code bytes are shown.");
    static const tk_html_column cols[] = {
        {.label = "address", .unit = TK_HTML_HEX, .flags = TK_HTML_COL_MONO},
        {.label = "executions", .flags = TK_HTML_COL_HEAT | TK_HTML_COL_SUM},
        {.label = "share", .unit = TK_HTML_RATIO, .flags = TK_HTML_COL_SUM,
         .help = "of the instructions executed at a known address"},
        {.label = "region", .flags = TK_HTML_COL_MONO},
        {.label = "bytes", .flags = TK_HTML_COL_MONO},
        {.label = "disassembly", .flags = TK_HTML_COL_MONO,
         .help = "the code as memory holds it at the end of the replay"}};
    tk_html_table_spec spec = {.id = "hot-code", .cols = cols, .ncols = 6, .max_rows = HOT,
                               .caption = "The most executed code addresses"};
    tk_html_table_begin(h, &spec);
    for (size_t i = 0; i < pcs->n && i < HOT; i++)
        hot_row(h, u, d, &v[i], total);
    tk_html_table_end(h);
    if (pcs->n > HOT)
        tk_html_paraf(h, "%zu more addresses were executed (%zu in all).", pcs->n - HOT, pcs->n);
    ucir_disasm_free(d);
    free(v);
}

static int busier(const void *a, const void *b)
{
    const tk_uh_region *x = *(const tk_uh_region *const *)a, *y = *(const tk_uh_region *const *)b;
    if (x->written != y->written)
        return x->written < y->written ? 1 : -1;
    if (x->instructions != y->instructions)
        return x->instructions < y->instructions ? 1 : -1;
    return (x->addr > y->addr) - (x->addr < y->addr);
}

/* A region's name; the two pseudo-regions have only their label. */
static const char *name_of(const tk_uh *u, const tk_uh_region *r, char *buf, size_t cap)
{
    return r == &u->other || r == &u->unmapped ? r->label : tk_uh_region_name(r, buf, cap);
}

/* Bytes written per region, the busiest first. */
static void written_chart(tk_html *h, const tk_uh *u, tk_uh_region **r, size_t n)
{
    tk_html_value x[BARS], y[BARS];
    char names[BARS][128];
    size_t k = 0;
    for (size_t i = 0; i < n && k < BARS; i++) {
        if (!r[i]->written)
            continue;
        x[k] = tk_html_str(name_of(u, r[i], names[k], sizeof names[k]));
        y[k++] = tk_html_u64(r[i]->written);
    }
    if (!k) {
        tk_html_para(h, "The trace writes no memory.");
        return;
    }
    tk_html_series s = {"bytes written", NULL, y};
    tk_html_chart c = {.id = "written", .title = "Bytes written per region",
                       .caption = "Each write counted in the region holding its first byte.",
                       .x_label = "region", .y_label = "bytes written", .y_unit = TK_HTML_BYTES};
    tk_html_bars(h, &c, x, k, &s, 1);
}

static void region_table(tk_html *h, const tk_uh *u, tk_uh_region **r, size_t n)
{
    static const tk_html_column cols[] = {
        {.label = "region", .flags = TK_HTML_COL_MONO},
        {.label = "size", .unit = TK_HTML_BYTES},
        {.label = "mapped at", .help = "the instruction of its first map (empty: the setup)"},
        {.label = "instructions", .flags = TK_HTML_COL_HEAT | TK_HTML_COL_SUM,
         .help = "instructions executed in it"},
        {.label = "bytes written", .unit = TK_HTML_BYTES,
         .flags = TK_HTML_COL_HEAT | TK_HTML_COL_SUM},
        {.label = "writes", .flags = TK_HTML_COL_SUM}};
    tk_html_table_spec spec = {
        .id = "region-table", .cols = cols, .ncols = 6,
        .caption = "Every region a MEM_MAP made (a map of the same range again counts in the "
                   "same row); \"no region\": addresses outside every mapping"};
    tk_html_table_begin(h, &spec);
    for (size_t i = 0; i < n; i++) {
        char name[128];
        int pseudo = r[i] == &u->other || r[i] == &u->unmapped;
        tk_html_value row[6] = {
            tk_html_str(name_of(u, r[i], name, sizeof name)),
            pseudo ? tk_html_null() : tk_html_u64(r[i]->size),
            pseudo || r[i]->mapped_at < 0 ? tk_html_null()
                                          : tk_html_u64((uint64_t)r[i]->mapped_at),
            tk_html_u64(r[i]->instructions), tk_html_u64(r[i]->written),
            tk_html_u64(r[i]->writes)};
        tk_html_table_row(h, row);
    }
    tk_html_table_end(h);
}

void tk_uh_regions(tk_html *h, tk_uh *u)
{
    tk_uh_region **r = malloc((u->nregions + 2) * sizeof *r);
    if (!r) {
        tk_html_para(h, "The regions could not be shown (out of memory).");
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < u->nregions; i++)
        r[n++] = &u->regions[i];
    if (u->other.instructions || u->other.writes)
        r[n++] = &u->other;
    if (u->unmapped.instructions || u->unmapped.writes)
        r[n++] = &u->unmapped;
    qsort(r, n, sizeof *r, busier);
    written_chart(h, u, r, n);
    if (u->unknown_pc)
        tk_html_paraf(h, "%" PRIu64 " instructions ran before any address was known.",
                      u->unknown_pc);
    region_table(h, u, r, n);
    free(r);
}
