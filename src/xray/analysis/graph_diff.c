/* graph-diff (llvm-xray graph-diff): two call graphs as one.
 *
 * llvm-xray keys the union by function name: it walks graph A's vertices
 * (in A's DenseMap order, the root "" among them), then B's, inserting
 * each name into a DenseMap<StringRef>; then A's edges and B's into a
 * DenseMap<pair<StringRef, StringRef>>. Those maps' iteration orders are
 * its output order and its vertex numbers, so they are emulated here
 * (llvm_densemap.c, with LLVM's string hash). Each vertex and edge keeps
 * its statistics in A and in B; what one graph lacks is NULL. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xray/analysis/graph_int.h"
#include "xray/analysis/llvm_densemap.h"

typedef struct dvertex {
    char *name;
    int has[2];
    tk_xray_graph_stats st[2];
} dvertex;

typedef struct dedge {
    uint32_t from, to; /* vertex (name) indices */
    int has[2];
    tk_xray_graph_stats st[2];
} dedge;

struct tk_xray_graph_diff {
    dvertex *v;
    uint32_t *hashes; /* LLVM's hash of each vertex's name */
    size_t nv, capv;
    dedge *e;
    size_t ne, cape;
    tk_map by_name; /* name -> vertex index */
    tk_map by_pair; /* from << 32 | to -> edge index */
    size_t *vorder, *vno; /* output order of vertices; vertex -> its number */
    size_t *eorder;
};

static tk_xray_graph_diff *oom(tk_xray_graph_diff *d, tk_error *err)
{
    tk_xray_graph_diff_free(d);
    tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return NULL;
}

void tk_xray_graph_diff_free(tk_xray_graph_diff *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nv; i++)
        free(d->v[i].name);
    free(d->v);
    free(d->hashes);
    free(d->e);
    tk_map_free(&d->by_name);
    tk_map_free(&d->by_pair);
    free(d->vorder);
    free(d->vno);
    free(d->eorder);
    free(d);
}

/* The vertex called `name`, added when new: its index, or -1 (memory). */
static long vertex_of(tk_xray_graph_diff *d, const char *name)
{
    size_t len = strlen(name), before = d->by_name.n;
    size_t *at = tk_map_str(&d->by_name, name, len);
    if (!at)
        return -1;
    if (d->by_name.n == before)
        return (long)*at;
    if (d->nv == d->capv) {
        size_t c = d->capv ? d->capv * 2 : 64;
        dvertex *v = realloc(d->v, c * sizeof *v);
        uint32_t *h = v ? realloc(d->hashes, c * sizeof *h) : NULL;
        if (v)
            d->v = v;
        if (!h)
            return -1;
        d->hashes = h;
        d->capv = c;
    }
    dvertex *v = &d->v[d->nv];
    memset(v, 0, sizeof *v);
    if (!(v->name = strdup(name)))
        return -1;
    d->hashes[d->nv] = tk_densemap_str_hash(name, len);
    *at = d->nv;
    return (long)d->nv++;
}

static long edge_of(tk_xray_graph_diff *d, uint32_t from, uint32_t to)
{
    size_t before = d->by_pair.n;
    size_t *at = tk_map_u64(&d->by_pair, (uint64_t)from << 32 | to);
    if (!at)
        return -1;
    if (d->by_pair.n == before)
        return (long)*at;
    if (d->ne == d->cape) {
        size_t c = d->cape ? d->cape * 2 : 64;
        dedge *e = realloc(d->e, c * sizeof *e);
        if (!e)
            return -1;
        d->e = e;
        d->cape = c;
    }
    memset(&d->e[d->ne], 0, sizeof *d->e);
    d->e[d->ne].from = from;
    d->e[d->ne].to = to;
    *at = d->ne;
    return (long)d->ne++;
}

typedef struct namer {
    const char *(*fn)(void *ctx, int32_t id);
    void *ctx;
    char buf[16];
} namer;

/* SymbolName: "" for the root, the name function's, or "#<id>". */
static const char *name_of(namer *n, int32_t id)
{
    if (id == 0)
        return "";
    const char *s = n->fn ? n->fn(n->ctx, id) : NULL;
    if (s)
        return s;
    snprintf(n->buf, sizeof n->buf, "#%d", id);
    return n->buf;
}

/* Graph g's vertices (root included, at its place) and edges into d, as
 * side `side`. 0, or -1 when out of memory. */
static int add_graph(tk_xray_graph_diff *d, const tk_xray_graph *g, int side, namer *n,
                     tk_densemap *vm, tk_densemap *em)
{
    size_t nv = tk_xray_graph_vertices(g);
    for (size_t k = 0; k <= nv; k++) {
        int32_t id = 0;
        tk_xray_graph_stats st = {0};
        if (k != g->root_at)
            tk_xray_graph_vertex(g, k < g->root_at ? k : k - 1, &id, &st);
        long v = vertex_of(d, name_of(n, id));
        if (v < 0)
            return -1;
        d->v[v].has[side] = 1;
        d->v[v].st[side] = st;
        vm->hashes = d->hashes; /* may have moved */
        tk_densemap_insert(vm, (uint32_t)v);
    }
    for (size_t k = 0; k < tk_xray_graph_edges(g); k++) {
        int32_t from, to;
        tk_xray_graph_stats st;
        tk_xray_graph_edge(g, k, &from, &to, &st);
        long a = vertex_of(d, name_of(n, from)), b = a < 0 ? -1 : vertex_of(d, name_of(n, to));
        long e = b < 0 ? -1 : edge_of(d, (uint32_t)a, (uint32_t)b);
        if (e < 0)
            return -1;
        d->e[e].has[side] = 1;
        d->e[e].st[side] = st;
        em->hashes = d->hashes;
        tk_densemap_pair_insert(em, (uint32_t)a, (uint32_t)b);
    }
    return vm->oom || em->oom ? -1 : 0;
}

/* Output orders: the DenseMaps' iteration. */
static int make_orders(tk_xray_graph_diff *d, const tk_densemap *vm, const tk_densemap *em)
{
    uint32_t *keys = malloc((d->nv ? d->nv : 1) * sizeof *keys);
    uint64_t *pairs = malloc((d->ne ? d->ne : 1) * sizeof *pairs);
    d->vorder = malloc((d->nv ? d->nv : 1) * sizeof *d->vorder);
    d->vno = malloc((d->nv ? d->nv : 1) * sizeof *d->vno);
    d->eorder = malloc((d->ne ? d->ne : 1) * sizeof *d->eorder);
    int rc = -1;
    if (keys && pairs && d->vorder && d->vno && d->eorder &&
        tk_densemap_keys(vm, keys) == d->nv && tk_densemap_pair_keys(em, pairs) == d->ne) {
        for (size_t i = 0; i < d->nv; i++) {
            d->vorder[i] = keys[i];
            d->vno[keys[i]] = i;
        }
        for (size_t i = 0; i < d->ne; i++)
            d->eorder[i] = *(size_t *)tk_map_find_u64(&d->by_pair, pairs[i]);
        rc = 0;
    }
    free(keys);
    free(pairs);
    return rc;
}

tk_xray_graph_diff *tk_xray_graph_diff_new(const tk_xray_graph *a, const tk_xray_graph *b,
                                           const char *(*name)(void *ctx, int32_t func_id),
                                           void *const name_ctx[2], tk_error *err)
{
    if (!a->finished || !b->finished || a->broken || b->broken) {
        tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                     "graph-diff needs two finished graphs");
        return NULL;
    }
    tk_xray_graph_diff *d = calloc(1, sizeof *d);
    if (!d)
        return oom(d, err);
    tk_map_init(&d->by_name, sizeof(size_t));
    tk_map_init(&d->by_pair, sizeof(size_t));
    tk_densemap vm = {0}, em = {0};
    const tk_xray_graph *g[2] = {a, b};
    int rc = 0;
    for (int i = 0; i < 2 && rc == 0; i++) {
        namer n = {name, name_ctx ? name_ctx[i] : NULL, {0}};
        rc = add_graph(d, g[i], i, &n, &vm, &em);
    }
    vm.hashes = em.hashes = d->hashes;
    if (rc == 0)
        rc = make_orders(d, &vm, &em);
    tk_densemap_free(&vm);
    tk_densemap_free(&em);
    return rc == 0 ? d : oom(d, err);
}

size_t tk_xray_graph_diff_vertices(const tk_xray_graph_diff *d) { return d->nv; }
size_t tk_xray_graph_diff_edges(const tk_xray_graph_diff *d) { return d->ne; }

int tk_xray_graph_diff_vertex(const tk_xray_graph_diff *d, size_t i, const char **name,
                              const tk_xray_graph_stats *st[2])
{
    if (i >= d->nv)
        return -1;
    const dvertex *v = &d->v[d->vorder[i]];
    if (name)
        *name = v->name;
    for (int k = 0; st && k < 2; k++)
        st[k] = v->has[k] ? &v->st[k] : NULL;
    return 0;
}

int tk_xray_graph_diff_edge(const tk_xray_graph_diff *d, size_t i, size_t *from, size_t *to,
                            const tk_xray_graph_stats *st[2])
{
    if (i >= d->ne)
        return -1;
    const dedge *e = &d->e[d->eorder[i]];
    if (from)
        *from = d->vno[e->from];
    if (to)
        *to = d->vno[e->to];
    for (int k = 0; st && k < 2; k++)
        st[k] = e->has[k] ? &e->st[k] : NULL;
    return 0;
}

double tk_xray_graph_diff_rel(const tk_xray_graph_stats *st[2], tk_xray_graph_stat t)
{
    return tk_xg_stat(st[1], t) / tk_xg_stat(st[0], t) - 1.0;
}

/* ---------------------------------------------------------------- DOT */

/* xray-color-helper.cpp: the PiYG diverging scheme over [-1, 1]; below it
 * (missing in B) red, above it (missing in A) green. */
static const unsigned char piyg[11][3] = {
    {142, 1, 82},    {197, 27, 125},  {222, 119, 174}, {241, 182, 218},
    {253, 224, 239}, {247, 247, 247}, {230, 245, 208}, {184, 225, 134},
    {127, 188, 65},  {77, 146, 33},   {39, 100, 25}};
static const unsigned char piyg_bounds[2][3] = {{255, 0, 0}, {0, 255, 0}};

/* getColor: by the difference of `t`, capped to [-1, 1]. */
static void color(const tk_xray_graph_stats *st[2], tk_xray_graph_stat t, char buf[8])
{
    double x = !st[0] ? 2.0 : !st[1] ? -2.0 : 0.0;
    if (st[0] && st[1]) {
        if (t == TK_XRAY_GRAPH_NONE) {
            strcpy(buf, "black");
            return;
        }
        /* NaN (0 against 0) stays NaN, as std::clamp leaves it, and then
         * takes the scheme's first colour, as llvm-xray 14 prints it */
        x = tk_xray_graph_diff_rel(st, t);
        x = x < -1.0 ? -1.0 : x > 1.0 ? 1.0 : x;
    }
    tk_xg_color(piyg, 11, -1.0, 1.0, piyg_bounds[0], piyg_bounds[1], x, buf);
}

/* llvm::write_double: "nan", "INF", "-INF", else printf's `fmt` of v. */
static void put_double(FILE *out, const char *fmt, double v)
{
    if (isnan(v))
        fputs("nan", out);
    else if (isinf(v))
        fputs(signbit(v) ? "-INF" : "INF", out);
    else
        fprintf(out, fmt, v);
}

static void put_percent(FILE *out, double rel)
{
    if (isnan(rel) || isinf(rel))
        put_double(out, "", rel);
    else
        fprintf(out, "%.2f%%", rel * 100.0);
}

/* A name as llvm-xray prints it (cut to `trunc` bytes + "..."), with '"'
 * and '\' escaped so that the DOT stays readable (llvm-xray writes them
 * raw). */
static void put_name(FILE *out, const char *name, size_t trunc)
{
    size_t len = strlen(name), n = len > trunc ? trunc : len;
    for (size_t i = 0; i < n; i++) {
        if (name[i] == '"' || name[i] == '\\')
            fputc('\\', out);
        fputc(name[i], out);
    }
    if (len > trunc)
        fputs("...", out);
}

static void put_edge(const tk_xray_graph_diff *d, size_t i, FILE *out,
                     const tk_xray_graph_diff_print_options *o)
{
    size_t from, to;
    const tk_xray_graph_stats *st[2];
    tk_xray_graph_diff_edge(d, i, &from, &to, st);
    const char *head = d->v[d->vorder[from]].name, *tail = d->v[d->vorder[to]].name;
    fprintf(out, "F%zu -> F%zu [tooltip=\"", from, to);
    put_name(out, *head ? head : "F0", SIZE_MAX);
    fputs(" -> ", out);
    put_name(out, tail, SIZE_MAX);
    fputs("\" label=\"", out);
    int both = st[0] && st[1];
    if (o->edge_label != TK_XRAY_GRAPH_NONE && both)
        put_percent(out, tk_xray_graph_diff_rel(st, o->edge_label));
    char c[8];
    color(st, o->edge_color, c);
    double width = 1.0;
    if (o->edge_color != TK_XRAY_GRAPH_NONE && both) {
        double rel = tk_xray_graph_diff_rel(st, o->edge_color);
        width = rel > 1.0 ? rel : 1.0;
    }
    fprintf(out, "\" color=\"%s\" labelfontcolor=\"%s\" penwidth=", c, c);
    put_double(out, "%.2f", width);
    fputs("]\n", out);
}

static void put_vertex(const tk_xray_graph_diff *d, size_t i, FILE *out,
                       const tk_xray_graph_diff_print_options *o)
{
    const char *name;
    const tk_xray_graph_stats *st[2];
    tk_xray_graph_diff_vertex(d, i, &name, st);
    if (!*name) {
        fprintf(out, "F%zu [label=\"F0\"]\n", i);
        return;
    }
    size_t trunc = o->vertex_label_trunc > 0 ? (size_t)o->vertex_label_trunc : 40;
    fprintf(out, "F%zu [label=\"", i);
    if (o->vertex_label == TK_XRAY_GRAPH_NONE || !st[0] || !st[1]) {
        put_name(out, name, trunc);
    } else {
        fputc('{', out);
        put_name(out, name, trunc);
        fputc('|', out);
        put_percent(out, tk_xray_graph_diff_rel(st, o->vertex_label));
        fputc('}', out);
    }
    char c[8];
    color(st, o->vertex_color, c);
    fprintf(out, "\" color=\"%s\"]\n", c);
}

tk_status tk_xray_graph_diff_print_dot(const tk_xray_graph_diff *d, FILE *out,
                                       const tk_xray_graph_diff_print_options *o,
                                       tk_error *err)
{
    static const tk_xray_graph_diff_print_options none = {0};
    if (!o)
        o = &none;
    fputs("digraph xrayDiff {\n", out);
    if (o->vertex_label != TK_XRAY_GRAPH_NONE)
        fputs("node [shape=record]\n", out);
    for (size_t i = 0; i < d->ne; i++)
        put_edge(d, i, out, o);
    for (size_t i = 0; i < d->nv; i++)
        put_vertex(d, i, out, o);
    fputs("}\n", out);
    if (fflush(out) != 0 || ferror(out))
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "writing output failed");
    return TK_OK;
}
