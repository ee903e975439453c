/* Text output of the checker: one entry per line, the compact state
 * (--print-state) and the error-context block of a violation. The block
 * prints what was captured at the violation, so it cannot fail or replace
 * the violation (casemate-check's printer walked the new, possibly
 * malformed, entry and reported that instead). */
#include <stdlib.h>

#include "casemate/check/check_int.h"
#include "core/strbuf.h"

const char *tk_casemate_state_name(tk_casemate_state s)
{
    static const char *const n[] = {"-", "V", "IU", "I"};
    return (unsigned)s < 4 ? n[s] : "?";
}

const char *tk_casemate_lis_name(tk_casemate_lis l)
{
    static const char *const n[] = {"unguarded", "dsbed", "dsb_tlbi_ipa", "dsb_tlbi_ipa_dsb",
                                    "dsb_tlbied"};
    return (unsigned)l < 5 ? n[l] : "?";
}

#define X(v) ((unsigned long long)(v))


/* Text from the log (a src string may hold anything, newlines included)
 * on one line: control bytes and invalid UTF-8 as \xNN. */
static void put_text(FILE *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t k = p[i] < 0x20 || p[i] == 0x7f ? 0 : tk_utf8_len(p + i, n - i);
        if (!k) {
            fprintf(out, "\\x%02x", p[i++]);
            continue;
        }
        fwrite(p + i, 1, k, out);
        i += k;
    }
}

void tk_casemate_check_print_record(const tk_casemate_record *rec, FILE *out)
{
    size_t size = TK_CASEMATE_FORMAT_MAX + (rec->src_kind == TK_CASEMATE_SRC_STRING ? rec->src_len : 0) + 1;
    char *line = tk_casemate_record_problem(rec) ? NULL : malloc(size);
    if (line) {
        size_t n = tk_casemate_format(rec, TK_CASEMATE_KEYWORD, line, size);
        put_text(out, line, n < size ? n : size - 1);
        free(line);
    } else {
        fprintf(out, "(%s (id %llu) (tid %llu) ...)", tk_casemate_kind_name(rec->kind),
                X(rec->id), X(rec->tid));
    }
    fputc('\n', out);
}

void tk_casemate_check_print_entry(const tk_casemate_entry *e, FILE *out)
{
    if (!e->initialised && e->state == TK_CASEMATE_STATE_NONE) {
        fprintf(out, "0x%llx uninitialised\n", X(e->address));
        return;
    }
    fprintf(out, "0x%llx=0x%llx", X(e->address), X(e->value));
    if (e->state == TK_CASEMATE_STATE_NONE) {
        fprintf(out, " not a page-table entry\n");
        return;
    }
    fprintf(out, " S%u L%u ", e->stage, e->level);
    if (e->state == TK_CASEMATE_STATE_INVALID_UNCLEAN)
        fprintf(out, "IU(%s, tid %llu)", tk_casemate_lis_name(e->lis), X(e->invalidator));
    else if (e->state == TK_CASEMATE_STATE_INVALID_CLEAN)
        fprintf(out, "I(tid %llu)", X(e->invalidator));
    else
        fprintf(out, "V");
    switch (cm_desc_kind(e->value, e->level)) {
    case CM_DESC_TABLE: fprintf(out, " table:0x%llx", X(CM_TABLE_ADDR(e->value))); break;
    case CM_DESC_MAP: fprintf(out, " %s", e->level == 3 ? "page" : "block"); break;
    case CM_DESC_BAD: fprintf(out, " bad-encoding"); break;
    default: break;
    }
    fprintf(out, " root:0x%llx ia:0x%llx-0x%llx", X(e->root), X(e->ia_start), X(e->ia_last));
    if (e->state == TK_CASEMATE_STATE_INVALID_UNCLEAN)
        fprintf(out, " old:0x%llx", X(e->old));
    if (e->frozen)
        fprintf(out, " frozen");
    if (e->thread_owned)
        fprintf(out, " owner:tid %llu", X(e->thread_owner));
    fputc('\n', out);
}

static int by_key(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

void tk_casemate_check_print_state(const tk_casemate_checker *c, FILE *out)
{
    size_t n;
    cm_root **roots = cm_roots_sorted(c, &n);
    fprintf(out, "  roots:");
    for (size_t i = 0; roots && i < n; i++) {
        const cm_root *r = roots[i];
        uint64_t *lock = cm_map_find(&c->root_locks, r->base);
        fprintf(out, "%s S%u 0x%llx %s %llu L%u", i ? ";" : "", r->stage, X(r->base),
                r->stage == 2 ? "vmid" : "asid", X(r->id), r->level);
        if (r->ntables > 1) /* concatenated start tables */
            fprintf(out, "x%u", r->ntables);
        fprintf(out, " refs %llu lock ", X(r->refcount));
        if (lock)
            fprintf(out, "0x%llx", X(*lock));
        else
            fputc('-', out);
    }
    fprintf(out, "%s\n", n ? "" : " -");
    free(roots);
    uint64_t *keys = malloc((c->locks.n ? c->locks.n : 1) * sizeof *keys);
    size_t k = 0;
    for (size_t i = 0; keys && i < c->locks.top; i++)
        if (cm_lock_nth(c, i)->count)
            keys[k++] = cm_lock_nth(c, i)->addr;
    if (keys)
        qsort(keys, k, sizeof *keys, by_key);
    fprintf(out, "  locks:");
    for (size_t i = 0; i < k; i++) {
        const cm_lock *l = cm_lock_find(c, keys[i]);
        fprintf(out, "%s 0x%llx tid %llu%s", i ? ";" : "", X(keys[i]), X(l->holder),
                cm_lock_authorised(c, l) ? "" : " (plain write used)");
    }
    fprintf(out, "%s\n", k ? "" : " -");
    free(keys);
    fprintf(out, "  unclean:");
    size_t shown = 0;
    for (size_t i = 0; i < c->nunclean; i++) {
        tk_casemate_entry e;
        cm_entry_get(c, c->unclean[i], &e);
        if (e.state != TK_CASEMATE_STATE_INVALID_UNCLEAN)
            continue;
        fprintf(out, "%s 0x%llx S%u L%u %s tid %llu", shown++ ? ";" : "", X(e.address),
                e.stage, e.level, tk_casemate_lis_name(e.lis), X(e.invalidator));
    }
    fprintf(out, "%s\n", shown ? "" : " -");
}

void tk_casemate_check_print_context(const tk_casemate_checker *c, FILE *out)
{
    const tk_casemate_violation *v = tk_casemate_check_violation(c);
    if (!v)
        return;
    fprintf(out, "casemate violation: %s\n", v->code);
    fprintf(out, "  message: %s\n", v->message);
    if (v->detail[0])
        fprintf(out, "  detail: %s\n", v->detail);
    fprintf(out, "  record: id %llu, tid %llu, src ", X(v->id), X(v->tid));
    if (v->src_kind == TK_CASEMATE_SRC_STRING) {
        fputc('"', out);
        put_text(out, v->src, v->src_len);
        fprintf(out, "\"\n");
    } else if (v->src_kind == TK_CASEMATE_SRC_INT) {
        fprintf(out, "%llu\n", X(v->src_int));
    } else {
        fprintf(out, "-\n");
    }
    if (v->record) {
        fprintf(out, "    ");
        tk_casemate_check_print_record(v->record, out);
    }
    fprintf(out, "  related entries:%s\n", v->nentries ? "" : " -");
    for (size_t i = 0; i < v->nentries; i++) {
        fprintf(out, "    ");
        tk_casemate_check_print_entry(&v->entries[i], out);
    }
}
