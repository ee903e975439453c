/* casemate's HTML report: the violation as a card, with the context bbm
 * prints (the event, its related entries with their owners) and what the
 * exports add (the ids of the related events, export_check.h), the
 * related events as dump --json lists them, and the locks involved. */
#include <stdlib.h>
#include <string.h>

#include "casemate/html_int.h"

/* What `print` writes, as a preformatted block. */
static void pre_of(tk_html *h, void (*print)(const void *, FILE *), const void *arg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        tk_html_para(h, "(out of memory)");
        return;
    }
    print(arg, f);
    if (fclose(f) == 0 && text)
        tk_html_pre(h, text, len);
    free(text);
}

static void print_record(const void *rec, FILE *f) { tk_casemate_check_print_record(rec, f); }

/* bbm's own block: the context, where, and the "!" line. */
static void print_bbm(const void *arg, FILE *f)
{
    const tk_cmh *x = arg;
    tk_casemate_check_print_context(x->k, f);
    fprintf(f, "  at: %s:%llu:%llu (record %llu)\n! %s\n", x->file,
            (unsigned long long)x->at_line, (unsigned long long)x->at_col,
            (unsigned long long)x->at_record, tk_casemate_check_violation(x->k)->message);
}

/* The violation as bbm --json writes it. */
static void violation_facts(tk_html *h, const tk_cmh *x, const tk_casemate_violation *v)
{
    char code[96];
    tk_html_field f[7] = {
        {"code", "code", TK_HTML_PLAIN, 0, tk_html_str(tk_cmh_snake(v->code, code, sizeof code))},
        {"message", "message", TK_HTML_PLAIN, 0, tk_html_str(v->message)},
        {"record", "record", TK_HTML_PLAIN, 0, tk_html_u64(x->at_record)},
        {"line", "line", TK_HTML_PLAIN, 0, tk_html_u64(x->at_line)},
        {"event id", "id", TK_HTML_PLAIN, 0, tk_html_u64(v->id)},
        {"thread", "thread", TK_HTML_PLAIN, 0, tk_html_u64(v->tid)}};
    size_t n = 6;
    if (v->src_kind == TK_CASEMATE_SRC_STRING)
        f[n++] = (tk_html_field){"src", "src", TK_HTML_PLAIN, 0,
                                 (tk_html_value){.kind = TK_HTML_STR, .s = v->src,
                                                 .len = v->src_len}};
    else if (v->src_kind == TK_CASEMATE_SRC_INT)
        f[n++] = (tk_html_field){"src id", "src_id", TK_HTML_PLAIN, 0, tk_html_u64(v->src_int)};
    tk_html_facts(h, "bbm.violation", NULL, f, n);
}

/* The events behind it, each as dump --json lists it. */
static void related_events(tk_html *h, const tk_cmh *x)
{
    static const tk_html_column cols[7] = {
        {.label = "record", .key = "record", .flags = TK_HTML_COL_KEY},
        {.label = "line", .key = "line"},
        {.label = "event id", .key = "id"},
        {.label = "thread", .key = "thread"},
        {.label = "kind", .key = "kind", .flags = TK_HTML_COL_MONO},
        {.label = "address", .unit = TK_HTML_HEX, .flags = TK_HTML_COL_MONO},
        {.label = "why"}};
    tk_html_table_spec spec = {.id = "related", .src = "dump", .cols = cols, .ncols = 7,
                               .caption = "The related events (as dump --json lists them)"};
    tk_html_paraf(h, "Related event ids: %s", x->related_ids.s);
    tk_html_table_begin(h, &spec);
    for (size_t i = 0; i < x->nrelated; i++) {
        const tk_cmh_event *e = &x->related[i];
        char kind[32], why[64];
        if (e->role == TK_CMH_SELF)
            snprintf(why, sizeof why, "the event that broke the rule");
        else if (e->role == TK_CMH_WRITE)
            snprintf(why, sizeof why, "the last write to entry 0x%llx",
                     (unsigned long long)(e->address & ~(uint64_t)7));
        else
            snprintf(why, sizeof why, "took lock 0x%llx", (unsigned long long)e->address);
        tk_html_table_row(h, (tk_html_value[7]){
            tk_html_u64(e->record), tk_html_u64(e->line), tk_html_u64(e->id),
            tk_html_u64(e->tid),
            tk_html_str(tk_cmh_snake(tk_casemate_kind_name(e->kind), kind, sizeof kind)),
            e->kind == TK_CASEMATE_SYSREG_WRITE || e->kind == TK_CASEMATE_BARRIER ||
                    e->kind == TK_CASEMATE_HINT || e->kind == TK_CASEMATE_TLBI
                ? tk_html_null() : tk_html_u64(e->address),
            tk_html_str(why)});
    }
    tk_html_table_end(h);
}

/* The entries as the violation captured them (bbm's "related entries"). */
static void entries(tk_html *h, const tk_casemate_violation *v)
{
    static const tk_html_column cols[11] = {
        {.label = "entry", .unit = TK_HTML_HEX, .flags = TK_HTML_COL_MONO},
        {.label = "value", .unit = TK_HTML_HEX, .flags = TK_HTML_COL_MONO},
        {.label = "state", .help = "V valid, IU invalid-unclean, I invalid-clean, - not an entry"},
        {.label = "stage"},
        {.label = "level"},
        {.label = "root", .unit = TK_HTML_HEX, .flags = TK_HTML_COL_MONO},
        {.label = "maps", .flags = TK_HTML_COL_MONO, .help = "input addresses, inclusive"},
        {.label = "cleaning", .help = "how far the invalidating thread got (IU)"},
        {.label = "invalidated by"},
        {.label = "old", .unit = TK_HTML_HEX, .flags = TK_HTML_COL_MONO},
        {.label = "owner", .help = "the thread owning the entry (set_owner hints)"}};
    tk_html_table_spec spec = {.cols = cols, .ncols = 11,
                               .caption = "Related page-table entries, as they were"};
    if (!v->nentries) {
        tk_html_para(h, "No page-table entry is related.");
        return;
    }
    tk_html_table_begin(h, &spec);
    for (size_t i = 0; i < v->nentries; i++) {
        const tk_casemate_entry *e = &v->entries[i];
        int pte = e->state != TK_CASEMATE_STATE_NONE;
        int inv = pte && e->state != TK_CASEMATE_STATE_VALID;
        int iu = e->state == TK_CASEMATE_STATE_INVALID_UNCLEAN;
        char maps[48];
        snprintf(maps, sizeof maps, "0x%llx-0x%llx", (unsigned long long)e->ia_start,
                 (unsigned long long)e->ia_last);
        const char *state = pte ? tk_casemate_state_name(e->state)
                            : e->initialised ? "not an entry" : "uninitialised";
        tk_html_table_row(h, (tk_html_value[11]){
            tk_html_u64(e->address), e->initialised ? tk_html_u64(e->value) : tk_html_null(),
            tk_html_str(state), pte ? tk_html_u64(e->stage) : tk_html_null(),
            pte ? tk_html_u64(e->level) : tk_html_null(),
            pte ? tk_html_u64(e->root) : tk_html_null(), pte ? tk_html_str(maps) : tk_html_null(),
            iu ? tk_html_str(tk_casemate_lis_name(e->lis)) : tk_html_null(),
            inv ? tk_html_u64(e->invalidator) : tk_html_null(),
            iu ? tk_html_u64(e->old) : tk_html_null(),
            e->thread_owned ? tk_html_u64(e->thread_owner) : tk_html_null()});
    }
    tk_html_table_end(h);
}

static void not_checked(tk_html *h, const tk_cmh *x)
{
    if (!tk_html_card_begin(h, TK_HTML_WARN, "The model gave up")) {
        tk_html_card_end(h);
        return;
    }
    tk_html_field f[3] = {
        {"why", "message", TK_HTML_PLAIN, 0, tk_html_str(x->gave_up.message)},
        {"record", "record", TK_HTML_PLAIN, 0, tk_html_u64(x->at_record)},
        {"line", "line", TK_HTML_PLAIN, 0, tk_html_u64(x->at_line)}};
    tk_html_facts(h, "report.bbm.check_error", NULL, f, 3);
    tk_html_para(h, "The log asks for something casemate's model does not cover: the records "
                    "from here on are counted, not checked.");
    tk_html_card_end(h);
}

void tk_cmh_card(tk_html *h, tk_cmh *x)
{
    const tk_casemate_violation *v = tk_casemate_check_violation(x->k);
    if (x->verdict < 0) {
        not_checked(h, x);
        return;
    }
    if (!v) {
        tk_html_para(h, "None: every record was checked.");
        return;
    }
    char code[96], title[300];
    snprintf(title, sizeof title, "%s: %s", tk_cmh_snake(v->code, code, sizeof code),
             v->message);
    if (tk_html_card_begin(h, TK_HTML_BAD, title)) {
        violation_facts(h, x, v);
        if (v->detail[0])
            tk_html_para(h, v->detail);
        tk_html_para(h, "The event:");
        if (v->record)
            pre_of(h, print_record, v->record);
        related_events(h, x);
        entries(h, v);
        tk_cmh_locks(h, x);
        tk_html_para(h, "As bbm prints it:");
        pre_of(h, print_bbm, x);
    }
    tk_html_card_end(h);
}
