/* tracekit bbm: casemate's break-before-make check of a casemate log
 * (tk_casemate_check_*), with casemate-check's options. */
#include <stdlib.h>
#include <string.h>

#include <tracekit/casemate.h>
#include <tracekit/casemate_check.h>
#include <tracekit/output.h>

#include "casemate/cmd/cmd.h"

/* The arguments, from c->opts. */
typedef struct bbm_args {
    int quiet, print_state, dry_run;
    tk_casemate_check_options opt;
    const char *dot;
    uint64_t *watch;
    size_t nwatch;
} bbm_args;

/* A hex address, as casemate-check reads one. */
static int parse_hex(const char *s, uint64_t *v)
{
    char *end;
    *v = strtoull(s, &end, 16);
    return !*s || *end || s[0] == '-' ? -1 : 0;
}

static tk_status parse_watch(tk_options *o, const tk_option *opt, const char *value,
                             tk_error *err)
{
    uint64_t a;
    if (parse_hex(value, &a) != 0)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--watch takes a hex address, not '%s'", value);
    return tk_options_add(o, tk_opt_key(opt), value, err);
}

/* TK_EXIT_OK, or the exit status when out of memory (the watch list). */
static int read_args(tk_command_ctx *c, bbm_args *b)
{
    memset(b, 0, sizeof *b);
    b->quiet = tk_cmd_flag(c, "quiet");
    b->print_state = tk_cmd_flag(c, "print-state");
    b->dry_run = tk_cmd_flag(c, "dry-run");
    b->opt.racy = tk_cmd_flag(c, "racy");
    b->opt.ignore_uninit = tk_cmd_flag(c, "ignore-uninit");
    b->opt.no_sysreg_defaults = tk_cmd_flag(c, "no-sysreg-defaults");
    b->opt.promote_tlbi_by_id = tk_cmd_flag(c, "promote-tlbi-by-id");
    b->opt.hw_af = tk_cmd_flag(c, "hw-af");
    b->dot = tk_options_get(c->opts, "dot");
    size_t n = tk_options_count(c->opts);
    b->watch = malloc((n ? n : 1) * sizeof *b->watch);
    if (!b->watch) {
        tk_error err;
        tk_error_set(&err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return c->host->report(c, NULL, &err);
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(tk_options_key(c->opts, i), "watch") == 0)
            parse_hex(tk_options_value(c->opts, i), &b->watch[b->nwatch++]);
    return TK_EXIT_OK;
}

static void trace_step(tk_command_ctx *c, const bbm_args *b, tk_casemate_checker *k,
                       const tk_casemate_record *rec)
{
    int watched = b->nwatch && tk_casemate_check_touched(k);
    if (!b->print_state && !watched)
        return;
    if (watched && !b->print_state)
        fputs("watch: ", c->out);
    tk_casemate_check_print_record(rec, c->out);
    if (b->print_state)
        tk_casemate_check_print_state(k, c->out);
    for (size_t i = 0; watched && i < b->nwatch; i++) {
        tk_casemate_entry e;
        tk_casemate_check_entry(k, b->watch[i], &e);
        fputs("  watch ", c->out);
        tk_casemate_check_print_entry(&e, c->out);
    }
}

/* `r` is at the violating record, if any. */
static int print_json(tk_command_ctx *c, const tk_casemate_violation *v, uint64_t records,
                      tk_casemate_reader *r)
{
    tk_sink *s = c->host->sink(c);
    if (!s)
        return TK_EXIT_TROUBLE;
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "file", c->path, 0);
    tk_sink_cstr(s, "format", tk_format_name(c->format), 0);
    tk_sink_bool(s, "ok", v == NULL);
    tk_sink_u64(s, "records", records, 0);
    if (!v) {
        tk_sink_null(s, "violation");
    } else {
        tk_sink_object_begin(s, "violation");
        tk_sink_cstr(s, "code", v->code, TK_SINK_ENUM);
        tk_sink_cstr(s, "message", v->message, 0);
        tk_sink_u64(s, "record", tk_casemate_reader_index(r), 0);
        tk_sink_u64(s, "line", tk_casemate_reader_line(r), 0);
        tk_sink_u64(s, "id", v->id, 0);
        tk_sink_u64(s, "thread", v->tid, 0);
        if (v->src_kind == TK_CASEMATE_SRC_STRING)
            tk_sink_str(s, "src", v->src, v->src_len, 0);
        else if (v->src_kind == TK_CASEMATE_SRC_INT) /* one type per name: its own key */
            tk_sink_u64(s, "src_id", v->src_int, 0);
        tk_sink_object_end(s);
    }
    tk_sink_object_end(s);
    int rc = c->host->finish(c, s);
    tk_sink_free(s);
    return rc;
}

static void print_summary(tk_command_ctx *c, const bbm_args *b, tk_casemate_checker *k,
                          tk_casemate_reader *r, uint64_t records)
{
    tk_casemate_check_stats st;
    tk_casemate_check_get_stats(k, &st);
    FILE *out = c->out;
    if (!b->quiet) {
        fprintf(out, "events: %llu\n", (unsigned long long)records);
        if (!b->dry_run) {
            fprintf(out, "roots: %llu (stage 1: %llu, stage 2: %llu)\n",
                    (unsigned long long)st.roots, (unsigned long long)st.roots_stage1,
                    (unsigned long long)st.roots_stage2);
            fprintf(out, "entries: %llu (valid %llu, invalid-unclean %llu, invalid-clean %llu)\n",
                    (unsigned long long)st.entries, (unsigned long long)st.valid,
                    (unsigned long long)st.invalid_unclean, (unsigned long long)st.invalid_clean);
            fprintf(out, "locks held: %llu\n", (unsigned long long)st.locks_held);
        }
        size_t len;
        const char *want = tk_casemate_reader_expected(r, &len);
        if (want && len)
            fprintf(out, "expected: ! %.*s (the log's last line; not reproduced)\n", (int)len,
                    want);
    }
    if (b->dry_run)
        fprintf(out, "log parsed: %llu records (--dry-run: not checked)\n",
                (unsigned long long)records);
    else
        fprintf(out, "log checked successfully.\n");
}

static int write_dot(tk_command_ctx *c, const char *path, tk_casemate_checker *k)
{
    tk_error err;
    tk_error_clear(&err);
    tk_output *o = tk_output_open(path, &err);
    if (!o)
        return c->host->report(c, path, &err);
    /* a failed write shows in the stream: committing reports it with the
     * system's reason, and removes the file */
    if (tk_casemate_check_write_dot(k, tk_output_file(o), &err) != TK_OK &&
        !ferror(tk_output_file(o))) {
        tk_output_abort(o);
        return c->host->report(c, path, &err);
    }
    if (tk_output_commit(o, &err) != TK_OK)
        return c->host->report(c, path, &err);
    return TK_EXIT_OK;
}

/* The verdict (or the violation and its context) on standard output. */
static int print_verdict(tk_command_ctx *c, const bbm_args *b, tk_casemate_reader *r,
                         tk_casemate_checker *k, uint64_t records)
{
    const tk_casemate_violation *v = tk_casemate_check_violation(k);
    int dot_rc = b->dot ? write_dot(c, b->dot, k) : TK_EXIT_OK;
    if (c->json) {
        int rc = print_json(c, v, b->dry_run ? records : tk_casemate_check_events(k), r);
        if (rc != TK_EXIT_OK)
            return rc;
    } else if (v) {
        if (!b->quiet) {
            tk_casemate_check_print_context(k, c->out);
            fprintf(c->out, "  at: %s:%llu:%llu (record %llu)\n", c->path,
                    (unsigned long long)tk_casemate_reader_line(r),
                    (unsigned long long)tk_casemate_reader_col(r),
                    (unsigned long long)tk_casemate_reader_index(r));
        }
        fprintf(c->out, "! %s\n", v->message);
    } else {
        print_summary(c, b, k, r, records);
    }
    if (fflush(c->out) != 0 || ferror(c->out))
        return c->host->out_failed(c);
    if (dot_rc != TK_EXIT_OK)
        return dot_rc;
    return v ? TK_EXIT_FAILED : TK_EXIT_OK;
}

static int check(tk_command_ctx *c, const bbm_args *b, tk_casemate_reader *r,
                 tk_casemate_checker *k)
{
    tk_casemate_record rec;
    tk_error err;
    tk_error_clear(&err);
    int rc, verdict = 0;
    uint64_t records = 0;
    while ((rc = tk_casemate_next(r, &rec, &err)) > 0) {
        records++;
        if (b->dry_run)
            continue;
        verdict = tk_casemate_check_feed(k, &rec, &err);
        if (!b->quiet && !c->json && verdict >= 0)
            trace_step(c, b, k, &rec);
        if (verdict)
            break;
    }
    if (rc < 0) /* malformed: the reader's error, one line on stderr */
        return c->host->report(c, c->path, &err);
    if (verdict < 0) { /* where in the log the model gave up */
        err.line = tk_casemate_reader_line(r);
        err.col = tk_casemate_reader_col(r);
        err.record = tk_casemate_reader_index(r);
        fflush(c->out);
        return c->host->report(c, c->path, &err);
    }
    return print_verdict(c, b, r, k, records);
}

static int run(tk_command_ctx *c)
{
    bbm_args b;
    int rc = c->host->open(c);
    if (rc != TK_EXIT_OK || (rc = read_args(c, &b)) != TK_EXIT_OK)
        return rc;
    tk_error err;
    tk_error_clear(&err);
    tk_casemate_reader *r = tk_casemate_reader_new(c->in, &err);
    tk_casemate_checker *k = r ? tk_casemate_check_new(&b.opt, &err) : NULL;
    for (size_t i = 0; k && i < b.nwatch; i++)
        if (tk_casemate_check_watch(k, b.watch[i], &err) != TK_OK) {
            tk_casemate_check_free(k);
            k = NULL;
        }
    rc = k ? check(c, &b, r, k) : c->host->report(c, c->path, &err);
    tk_casemate_check_free(k);
    tk_casemate_reader_free(r);
    free(b.watch);
    return rc;
}

static const tk_option options[] = {
    {.name = "quiet", .letter = 'q', .help = "print only the last line"},
    {.name = "print-state", .letter = 'p', .help = "print each record and the state after it"},
    {.name = "watch", .letter = 'W', .value = "ADDR", .parse = parse_watch,
     .flags = TK_OPTION_REPEAT,
     .help = "print each record touching the 8-byte location ADDR (hex); may be repeated"},
    {.name = "racy", .letter = 'R', .help = "no lock, ownership or write-authorisation checks"},
    {.name = "ignore-uninit", .letter = 'I',
     .help = "skip writes to uninitialised memory and unlocks of locks nobody holds"},
    {.name = "no-sysreg-defaults", .letter = 'S',
     .help = "threads start without casemate-check's default system registers (TCR/VTCR_EL2 "
             "= 0x10, HCR_EL2.VM and SCTLR_EL2.M on, MAIR_EL2 = 0)"},
    {.name = "promote-tlbi-by-id",
     .help = "TLBIs by VMID act as TLBI ALL (casemate-check always does this)"},
    {.name = "hw-af",
     .help = "hardware Access-flag management on everywhere (as TCR_EL2.HA = VTCR_EL2.HA "
             "= 1): a block or page descriptor with AF = 0 may be in a TLB, so changing it "
             "needs break-before-make (default: only while a logged TCR_EL2 / VTCR_EL2 "
             "write has HA set for its stage)"},
    {.name = "dry-run", .help = "only parse the log"},
    {.name = "dot", .value = "FILE",
     .help = "write the page-table trees, with every entry's state, as a Graphviz graph (at "
             "the end, or at the violation)"},
    {.name = "json", .flags = TK_OPTION_SHARED,
     .help = "one JSON object: file, format, ok, records and the violation (code, message, "
             "record, line, id, thread, src) or null (docs/json.md)"},
    {.name = "format", .value = "NAME", .flags = TK_OPTION_SHARED,
     .help = "read the input as NAME (casemate) without detecting"},
    {0}};

const tk_command tk_casemate_cmd_bbm = {
    .name = "bbm",
    .summary = "casemate: break-before-make and locking check of a log",
    .synopsis = "[OPTIONS] FILE",
    .help = "Check a casemate log for break-before-make and locking violations on\n"
            "casemate's model of the page tables (valid / invalid-unclean / invalid-\n"
            "clean entries, DSB and TLBI scopes, locks, thread ownership, hints).\n"
            "The check stops at the first violation: its context (the record and the\n"
            "page-table entries involved) is printed, then '! MESSAGE' as the last\n"
            "line, and the exit status is 1. A log that passes ends with 'log checked\n"
            "successfully.' (exit 0). A malformed log is reported on stderr (exit 1).\n"
            "A valid block or page descriptor with the Access flag clear (AF, bit 10)\n"
            "is in no TLB unless hardware Access-flag management is on (HA, bit 21 of\n"
            "VTCR_EL2 for stage 2, of TCR_EL2 for stage 1 -- bit 39 with HCR_EL2.E2H),\n"
            "so it may be changed without break-before-make while no thread's logged\n"
            "register has HA set; --hw-af assumes HA on.\n",
    .needs = "; bbm checks casemate logs",
    .options = options,
    .run = run,
};
