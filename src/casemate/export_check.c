/* What casemate's exports share about the checker (export_check.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "casemate/export_check.h"
#include "core/select.h"

/* Entries shown; a violation relates a handful. */
enum { MAX_RELATED = 8 };

void tk_cmx_check_options(const tk_options *o, tk_casemate_check_options *c)
{
    tk_casemate_check_options_init(c);
    c->racy = tk_options_get(o, "racy") != NULL;
    c->ignore_uninit = tk_options_get(o, "ignore-uninit") != NULL;
    c->no_sysreg_defaults = tk_options_get(o, "no-sysreg-defaults") != NULL;
    c->promote_tlbi_by_id = tk_options_get(o, "promote-tlbi-by-id") != NULL;
    c->hw_af = tk_options_get(o, "hw-af") != NULL;
}

tk_status tk_cmx_selection(const tk_options *o, tk_selection **sel, tk_error *err)
{
    *sel = NULL;
    if (!tk_sel_option_given(o))
        return TK_OK;
    if (!(*sel = tk_selection_new(o, err)))
        return err->status;
    if ((*sel)->func)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--func does not apply to casemate traces");
    return tk_sel_check_counts(*sel, "casemate", "event ids", err);
}

tk_status tk_cmx_note_write(tk_map *last_write, const tk_casemate_record *rec, tk_error *err)
{
    if (rec->kind != TK_CASEMATE_MEM_WRITE)
        return TK_OK;
    uint64_t *w = tk_map_u64(last_write, rec->address & ~(uint64_t)7);
    if (!w)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    *w = rec->id;
    return TK_OK;
}

/* Append to `t`, cut at its end. */
__attribute__((format(printf, 2, 3))) static void add(tk_cmx_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->s + t->n, sizeof t->s - t->n, fmt, ap);
    va_end(ap);
    t->n += k > 0 ? (size_t)k : 0;
    if (t->n >= sizeof t->s)
        t->n = sizeof t->s - 1;
}

static void add_str(tk_cmx_text *t, const char *s)
{
    size_t room = sizeof t->s - 1 - t->n, k = strlen(s);
    if (k > room)
        k = room;
    memcpy(t->s + t->n, s, k);
    t->n += k;
    t->s[t->n] = '\0';
}

void tk_cmx_related_ids(const tk_map *last_write, const tk_casemate_violation *v,
                        const tk_casemate_record *rec, const uint64_t *lock_taker,
                        tk_cmx_text *t)
{
    uint64_t ids[MAX_RELATED + 2];
    size_t n = 0;
    t->n = 0;
    t->s[0] = '\0';
    ids[n++] = rec->id;
    for (size_t i = 0; i < v->nentries && i < MAX_RELATED; i++) {
        uint64_t *w = tk_map_find_u64(last_write, v->entries[i].address & ~(uint64_t)7);
        if (w)
            ids[n++] = *w;
    }
    if (lock_taker && (rec->kind == TK_CASEMATE_LOCK || rec->kind == TK_CASEMATE_TRYLOCK ||
                       rec->kind == TK_CASEMATE_UNLOCK))
        ids[n++] = *lock_taker;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && ids[j] != ids[i])
            j++;
        if (j == i)
            add(t, "%s%llu", t->n ? "," : "", (unsigned long long)ids[i]);
    }
}

void tk_cmx_entries(const tk_casemate_violation *v, tk_cmx_text *t)
{
    t->n = 0;
    t->s[0] = '\0';
    for (size_t i = 0; i < v->nentries && i < MAX_RELATED; i++) {
        const tk_casemate_entry *e = &v->entries[i];
        if (i)
            add_str(t, "; ");
        add(t, "0x%llx=0x%llx", (unsigned long long)e->address, (unsigned long long)e->value);
        if (e->state == TK_CASEMATE_STATE_NONE) {
            add_str(t, e->initialised ? " not a page-table entry" : " uninitialised");
            continue;
        }
        add(t, " S%u L%u ", e->stage, e->level);
        add_str(t, tk_casemate_state_name(e->state));
        if (e->state != TK_CASEMATE_STATE_VALID)
            add(t, " by tid %llu", (unsigned long long)e->invalidator);
        add(t, " root:0x%llx", (unsigned long long)e->root);
    }
    if (v->nentries > MAX_RELATED)
        add(t, "; ... (%zu in all)", v->nentries);
}
