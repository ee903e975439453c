/* The page-table trees as a Graphviz digraph: a node per root, a table per
 * page-table page listing its entries that matter (valid, invalid-unclean,
 * non-zero, or related to the violation; the clean zero ones are counted),
 * coloured by state, with edges to the tables below. An invalid-unclean
 * table entry keeps a dashed edge to its old (frozen) subtree. */
#include <stdio.h>
#include <stdlib.h>

#include "casemate/check/check_int.h"

#define X(v) ((unsigned long long)(v))

typedef struct dot {
    const tk_casemate_checker *c;
    FILE *out;
    cm_map seen;     /* tables already drawn */
    const tk_casemate_violation *v;
    int oom;
} dot;

static int related(const dot *d, uint64_t addr)
{
    for (size_t i = 0; d->v && i < d->v->nentries; i++)
        if (d->v->entries[i].address == addr)
            return 1;
    return 0;
}

static const char *colour(tk_casemate_state s)
{
    return s == TK_CASEMATE_STATE_VALID ? "palegreen"
           : s == TK_CASEMATE_STATE_INVALID_UNCLEAN ? "salmon" : "lightgrey";
}

static void table(dot *d, uint64_t base, unsigned n, unsigned level, unsigned stage)
{
    if (cm_map_find(&d->seen, base))
        return;
    if (cm_map_put(&d->seen, base, 1) != 0) {
        d->oom = 1;
        return;
    }
    FILE *out = d->out;
    fprintf(out, "  \"t0x%llx\" [label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"0\">"
                 "<tr><td bgcolor=\"lightblue\"><b>0x%llx S%u L%u</b></td></tr>",
            X(base), X(base), stage, level);
    unsigned hidden = 0;
    uint64_t child[CM_SLOTS];
    int dashed[CM_SLOTS];
    unsigned nchild = 0, port[CM_SLOTS];
    for (unsigned i = 0; i < n; i++) {
        tk_casemate_entry e;
        uint64_t addr = base + 8 * (uint64_t)i;
        cm_entry_get(d->c, addr, &e);
        int rel = related(d, addr);
        if (e.state == TK_CASEMATE_STATE_INVALID_CLEAN && !e.value && !rel) {
            hidden++;
            continue;
        }
        fprintf(out, "<tr><td port=\"e%u\" align=\"left\" bgcolor=\"%s\"%s>[%u] 0x%llx %s", i,
                colour(e.state), rel ? " color=\"red\" border=\"3\"" : "", i, X(e.value),
                tk_casemate_state_name(e.state));
        if (e.state == TK_CASEMATE_STATE_INVALID_UNCLEAN)
            fprintf(out, " %s tid %llu old 0x%llx", tk_casemate_lis_name(e.lis), X(e.invalidator),
                    X(e.old));
        if (e.frozen)
            fprintf(out, " frozen");
        if (e.thread_owned)
            fprintf(out, " owner tid %llu", X(e.thread_owner));
        fprintf(out, "</td></tr>");
        uint64_t desc = e.state == TK_CASEMATE_STATE_INVALID_UNCLEAN ? e.old : e.value;
        if (e.state != TK_CASEMATE_STATE_INVALID_CLEAN && e.state != TK_CASEMATE_STATE_NONE &&
            cm_desc_kind(desc, level) == CM_DESC_TABLE) {
            port[nchild] = i;
            dashed[nchild] = e.state == TK_CASEMATE_STATE_INVALID_UNCLEAN;
            child[nchild++] = CM_TABLE_ADDR(desc);
        }
    }
    if (hidden)
        fprintf(out, "<tr><td align=\"left\">%u more invalid zero entries</td></tr>", hidden);
    fprintf(out, "</table>>];\n");
    for (unsigned k = 0; k < nchild; k++)
        fprintf(out, "  \"t0x%llx\":e%u -> \"t0x%llx\"%s;\n", X(base), port[k], X(child[k]),
                dashed[k] ? " [style=dashed, label=\"old\"]" : "");
    for (unsigned k = 0; k < nchild && level < 3; k++)
        table(d, child[k], CM_SLOTS, level + 1, stage);
}

tk_status tk_casemate_check_write_dot(const tk_casemate_checker *c, FILE *out, tk_error *err)
{
    dot d = {.c = c, .out = out, .v = tk_casemate_check_violation(c)};
    size_t n;
    cm_root **roots = cm_roots_sorted(c, &n);
    if (!roots)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    fprintf(out, "digraph casemate {\n  rankdir=LR;\n"
                 "  node [shape=plaintext, fontname=\"monospace\", fontsize=10];\n");
    if (d.v)
        fprintf(out, "  label=\"%s: %s (record id %llu, tid %llu)\";\n  labelloc=t;\n",
                d.v->code, d.v->message, X(d.v->id), X(d.v->tid));
    for (size_t i = 0; i < n; i++) {
        const cm_root *r = roots[i];
        uint64_t *lock = cm_map_find(&c->root_locks, r->base);
        fprintf(out, "  \"r0x%llx\" [shape=box, label=\"S%u root 0x%llx\\n%s %llu, refs %llu",
                X(r->base), r->stage, X(r->base), r->stage == 2 ? "VMID" : "ASID", X(r->id),
                X(r->refcount));
        if (lock)
            fprintf(out, ", lock 0x%llx", X(*lock));
        fprintf(out, "\"];\n");
        for (unsigned t = 0; t < r->ntables; t++) {
            fprintf(out, "  \"r0x%llx\" -> \"t0x%llx\";\n", X(r->base), X(r->base + t * CM_PAGE));
            table(&d, r->base + t * CM_PAGE, r->nentries, r->level, r->stage);
        }
    }
    fprintf(out, "}\n");
    free(roots);
    cm_map_free(&d.seen);
    if (d.oom)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    if (ferror(out))
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "writing the graph failed");
    return TK_OK;
}
