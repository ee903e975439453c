/* `tracekit report --html` for casemate: one pass over the log into the
 * text report's counts and the break-before-make checker
 * (html_collect.c), then the page: the verdict first, the text report's
 * facts, the violation as a card with the context bbm prints
 * (html_card.c), each thread's events over the log with the violation
 * marked (html_timeline.c) and the page tables at the verdict
 * (html_tree.c). Every number that report, bbm and info --json also print
 * is the same number (docs/formats/casemate.md, "HTML report"). */
#include <string.h>

#include "casemate/html_int.h"
#include "core/select.h"

static void verdict(tk_html *h, const tk_cmh *x)
{
    char text[600];
    const tk_casemate_violation *v = tk_casemate_check_violation(x->k);
    char code[96];
    if (x->verdict > 0)
        snprintf(text, sizeof text,
                 "Violation: %s (%s) at record %llu, line %llu, event id %llu of thread %llu.",
                 v->message, tk_cmh_snake(v->code, code, sizeof code),
                 (unsigned long long)x->at_record, (unsigned long long)x->at_line,
                 (unsigned long long)v->id, (unsigned long long)v->tid);
    else if (x->verdict < 0)
        snprintf(text, sizeof text, "Not checked: the model gave up at record %llu, line %llu: %s",
                 (unsigned long long)x->at_record, (unsigned long long)x->at_line,
                 x->gave_up.message);
    else
        snprintf(text, sizeof text,
                 "No violation: the log passes casemate's break-before-make check (%llu "
                 "records checked).",
                 (unsigned long long)x->records);
    tk_html_verdict(h, x->verdict > 0 ? TK_HTML_BAD : x->verdict < 0 ? TK_HTML_WARN : TK_HTML_OK,
                    text);
    size_t len;
    const char *want = tk_casemate_reader_expected(x->r, &len);
    if (want) {
        int agree = v && strlen(v->message) == len && memcmp(v->message, want, len) == 0;
        tk_html_paraf(h, "The log's last line expects \"! %.*s\": the verdict %s.", (int)len, want,
                      agree ? "agrees" : "does not agree");
    }
}

/* report --json's members, and bbm --json's. */
static void facts(tk_html *h, const tk_cmh *x, tk_input *in)
{
    size_t len;
    const char *want = tk_casemate_reader_expected(x->r, &len);
    tk_html_value expected = want ? (tk_html_value){.kind = TK_HTML_STR, .s = want, .len = len}
                                  : tk_html_null();
    tk_html_field f[] = {
        {"file", "file", TK_HTML_PLAIN, 0, tk_html_str(tk_input_name(in))},
        {"format", "format", TK_HTML_PLAIN, 0, tk_html_str("casemate")},
        {"records", "records", TK_HTML_PLAIN, 0, tk_html_u64(x->records)},
        {"threads", "thread_count", TK_HTML_PLAIN, 0, tk_html_u64(x->threads.n)},
        {"expected (the log's \"!\" line)", "expected", TK_HTML_PLAIN, 0, expected}};
    tk_html_facts(h, "report", NULL, f, sizeof f / sizeof f[0]);
    const tk_casemate_violation *v = tk_casemate_check_violation(x->k);
    const char *vd = x->verdict == 0 ? "ok" : x->verdict > 0 ? "violation" : "not_checked";
    tk_html_field b[] = {
        {"verdict", "verdict", TK_HTML_PLAIN, 0, tk_html_str(vd)},
        {"as the log expects", "as_expected", TK_HTML_PLAIN, 0,
         !want ? tk_html_null()
               : tk_html_json(v && strlen(v->message) == len && !memcmp(v->message, want, len)
                                  ? "true" : "false")}};
    tk_html_facts(h, "report.bbm", NULL, b, 2);
    if (x->verdict < 0) /* bbm writes no JSON then: it fails */
        return;
    tk_html_field c[] = {
        {"passes (bbm)", "ok", TK_HTML_PLAIN, 0, tk_html_json(v ? "false" : "true")},
        {"records checked", "records", TK_HTML_PLAIN, 0,
         tk_html_u64(tk_casemate_check_events(x->k))}};
    tk_html_facts(h, "bbm", NULL, c, 2);
}

/* The model's counts at the verdict (what bbm prints for a log that passes). */
static void model(tk_html *h, const tk_cmh *x)
{
    tk_casemate_check_stats st;
    tk_casemate_check_get_stats(x->k, &st);
    tk_html_field f[] = {
        {"roots", NULL, TK_HTML_PLAIN, 0, tk_html_u64(st.roots)},
        {"stage-1 roots", NULL, TK_HTML_PLAIN, 0, tk_html_u64(st.roots_stage1)},
        {"stage-2 roots", NULL, TK_HTML_PLAIN, 0, tk_html_u64(st.roots_stage2)},
        {"page-table entries", NULL, TK_HTML_PLAIN, 0, tk_html_u64(st.entries)},
        {"valid", NULL, TK_HTML_PLAIN, 0, tk_html_u64(st.valid)},
        {"invalid-unclean", NULL, TK_HTML_PLAIN, 0, tk_html_u64(st.invalid_unclean)},
        {"invalid-clean", NULL, TK_HTML_PLAIN, 0, tk_html_u64(st.invalid_clean)},
        {"locks held", NULL, TK_HTML_PLAIN, 0, tk_html_u64(st.locks_held)}};
    tk_html_facts(h, NULL, NULL, f, sizeof f / sizeof f[0]);
}

static void kinds(tk_html *h, const tk_cmh *x)
{
    static const tk_html_column cols[2] = {
        {.label = "kind", .key = "kind", .flags = TK_HTML_COL_KEY | TK_HTML_COL_MONO},
        {.label = "records", .key = "count", .flags = TK_HTML_COL_HEAT | TK_HTML_COL_SUM}};
    tk_html_table_spec spec = {.id = "kinds", .src = "report.by_kind", .cols = cols, .ncols = 2,
                               .caption = "Records by kind (as report --json; click a header "
                                          "to sort)"};
    tk_html_table_begin(h, &spec);
    for (int i = 0; i < TK_CASEMATE_KIND_COUNT; i++) {
        char name[32];
        if (x->by_kind[i])
            tk_html_table_row(h, (tk_html_value[2]){
                tk_html_str(tk_cmh_snake(tk_casemate_kind_name((tk_casemate_kind)i), name,
                                         sizeof name)),
                tk_html_u64(x->by_kind[i])});
    }
    tk_html_table_end(h);
}

static void page(tk_html *h, tk_cmh *x, tk_input *in)
{
    verdict(h, x);
    tk_html_section(h, "summary", "Summary", NULL);
    facts(h, x, in);
    kinds(h, x);
    tk_html_section(h, "model", x->verdict ? "The model at the verdict" : "The model at the end",
                    "What casemate's model of the page tables held when the check stopped.");
    model(h, x);
    tk_html_section_end(h);
    tk_html_section_end(h);
    tk_html_section(h, "violations", "Violations",
                    "The check stops at the first violation, as bbm and casemate-check do.");
    tk_cmh_card(h, x);
    tk_html_section_end(h);
    tk_html_section(h, "threads", "Threads", NULL);
    tk_cmh_timeline(h, x);
    tk_html_section_end(h);
    tk_html_section(h, "pagetables", "Page tables", NULL);
    tk_cmh_tree(h, x);
    tk_html_section_end(h);
}

tk_status tk_casemate_report_html(tk_input *in, const tk_options *o, FILE *out, tk_error *err)
{
    const char *sel = tk_sel_option_given(o); /* as the text report: the whole log */
    if (sel)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "casemate's report checks break-before-make over the whole "
                            "log: %s does not apply (dump, info and convert select)",
                            sel);
    tk_cmh x;
    memset(&x, 0, sizeof x);
    x.file = tk_input_name(in);
    if (!(x.r = tk_casemate_reader_new(in, err)))
        return err->status;
    tk_status st = tk_cmh_collect(&x, err);
    if (st == TK_OK) {
        tk_html *h = tk_html_begin(out, "casemate report", tk_input_name(in), err);
        if (!h) {
            st = err->status;
        } else {
            page(h, &x, in);
            st = tk_html_end(h, err);
        }
    }
    tk_cmh_free(&x);
    tk_casemate_reader_free(x.r);
    return st;
}
