/* tracekit bbm: casemate's break-before-make check of a casemate log
 * (tk_casemate_check_*), with casemate-check's options. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum {
    OPT_DRY_RUN = OPT_FIRST_COMMAND_OPTION,
    OPT_PROMOTE,
    OPT_DOT
};

static const char help[] =
    "usage: tracekit bbm [OPTIONS] FILE\n"
    "\n"
    "Check a casemate log for break-before-make and locking violations on\n"
    "casemate's model of the page tables (valid / invalid-unclean / invalid-\n"
    "clean entries, DSB and TLBI scopes, locks, thread ownership, hints).\n"
    "The check stops at the first violation: its context (the record and the\n"
    "page-table entries involved) is printed, then '! MESSAGE' as the last\n"
    "line, and the exit status is 1. A log that passes ends with 'log checked\n"
    "successfully.' (exit 0). A malformed log is reported on stderr (exit 1).\n"
    "\n"
    "options:\n"
    "  -q, --quiet             print only the last line\n"
    "  -p, --print-state       print each record and the state after it\n"
    "  -W, --watch ADDR        print each record touching the 8-byte location\n"
    "                          ADDR (hex); may be repeated\n"
    "  -R, --racy              no lock, ownership or write-authorisation checks\n"
    "  -I, --ignore-uninit     skip writes to uninitialised memory and unlocks\n"
    "                          of locks nobody holds\n"
    "  -S, --no-sysreg-defaults  threads start without casemate-check's default\n"
    "                          system registers (TCR/VTCR_EL2 = 0x10, HCR_EL2.VM\n"
    "                          and SCTLR_EL2.M on, MAIR_EL2 = 0)\n"
    "  --promote-tlbi-by-id    TLBIs by VMID act as TLBI ALL (casemate-check\n"
    "                          always does this)\n"
    "  --dry-run               only parse the log\n"
    "  --dot FILE              write the page-table trees, with every entry's\n"
    "                          state, as a Graphviz graph (at the end, or at the\n"
    "                          violation)\n"
    "  --json                  one JSON object: file, format, ok, records and\n"
    "                          the violation (code, message, record, line, id,\n"
    "                          thread, src) or null (docs/json.md)\n"
    "  --json-hex              --json with integers past 2^53 as \"0x...\"\n"
    "  --format NAME           read the input as NAME (casemate) without detecting\n"
    "  --progress WHEN         progress line on stderr: auto (on a terminal,\n"
    "                          after a second), always or never\n"
    "  -h, --help              show this help\n";

static struct {
    int quiet, print_state, dry_run;
    tk_casemate_check_options opt;
    const char *dot;
    uint64_t *watch;
    size_t nwatch;
} B;

static int extra(cli *c, int opt, const char *arg)
{
    char *end;
    switch (opt) {
    case 'q': B.quiet = 1; return 1;
    case 'p': B.print_state = 1; return 1;
    case 'R': B.opt.racy = 1; return 1;
    case 'I': B.opt.ignore_uninit = 1; return 1;
    case 'S': B.opt.no_sysreg_defaults = 1; return 1;
    case OPT_PROMOTE: B.opt.promote_tlbi_by_id = 1; return 1;
    case OPT_DRY_RUN: B.dry_run = 1; return 1;
    case OPT_DOT: B.dot = arg; return 1;
    case 'W': {
        uint64_t a = strtoull(arg, &end, 16);
        uint64_t *v = realloc(B.watch, (B.nwatch + 1) * sizeof *v);
        if (!*arg || *end || arg[0] == '-' || !v) {
            if (v)
                B.watch = v;
            cli_usage_error(c->command, "--watch takes a hex address, not '%s'", arg);
            return -1;
        }
        B.watch = v;
        B.watch[B.nwatch++] = a;
        return 1;
    }
    }
    return 0;
}

static void trace_step(tk_casemate_checker *k, const tk_casemate_record *rec)
{
    int watched = B.nwatch && tk_casemate_check_touched(k);
    if (!B.print_state && !watched)
        return;
    if (watched && !B.print_state)
        printf("watch: ");
    tk_casemate_check_print_record(rec, stdout);
    if (B.print_state)
        tk_casemate_check_print_state(k, stdout);
    for (size_t i = 0; watched && i < B.nwatch; i++) {
        tk_casemate_entry e;
        tk_casemate_check_entry(k, B.watch[i], &e);
        printf("  watch ");
        tk_casemate_check_print_entry(&e, stdout);
    }
}

/* `r` is at the violating record, if any. */
static int print_json(cli *c, const tk_casemate_violation *v, uint64_t records,
                      tk_casemate_reader *r)
{
    tk_sink *s = cli_sink(c);
    if (!s)
        return EXIT_TROUBLE;
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "file", c->path, 0);
    tk_sink_cstr(s, "format", tk_format_name(c->fmt), 0);
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
    int rc = cli_finish(c, s);
    tk_sink_free(s);
    return rc;
}

static void print_summary(tk_casemate_checker *k, tk_casemate_reader *r, uint64_t records)
{
    tk_casemate_check_stats st;
    tk_casemate_check_get_stats(k, &st);
    if (!B.quiet) {
        printf("events: %llu\n", (unsigned long long)records);
        if (!B.dry_run) {
            printf("roots: %llu (stage 1: %llu, stage 2: %llu)\n", (unsigned long long)st.roots,
                   (unsigned long long)st.roots_stage1, (unsigned long long)st.roots_stage2);
            printf("entries: %llu (valid %llu, invalid-unclean %llu, invalid-clean %llu)\n",
                   (unsigned long long)st.entries, (unsigned long long)st.valid,
                   (unsigned long long)st.invalid_unclean, (unsigned long long)st.invalid_clean);
            printf("locks held: %llu\n", (unsigned long long)st.locks_held);
        }
        size_t len;
        const char *want = tk_casemate_reader_expected(r, &len);
        if (want && len)
            printf("expected: ! %.*s (the log's last line; not reproduced)\n", (int)len, want);
    }
    if (B.dry_run)
        printf("log parsed: %llu records (--dry-run: not checked)\n", (unsigned long long)records);
    else
        printf("log checked successfully.\n");
}

static int write_dot(tk_casemate_checker *k)
{
    tk_error err;
    tk_error_clear(&err);
    tk_output *o = tk_output_open(B.dot, &err);
    if (!o)
        return cli_report(B.dot, &err);
    if (tk_casemate_check_write_dot(k, tk_output_file(o), &err) != TK_OK) {
        tk_output_abort(o);
        return cli_report(B.dot, &err);
    }
    if (tk_output_commit(o, &err) != TK_OK)
        return cli_report(B.dot, &err);
    return EXIT_OK;
}

static int check(cli *c, tk_casemate_reader *r, tk_casemate_checker *k)
{
    tk_casemate_record rec;
    tk_error err;
    tk_error_clear(&err);
    int rc, verdict = 0;
    uint64_t records = 0;
    while ((rc = tk_casemate_next(r, &rec, &err)) > 0) {
        records++;
        if (B.dry_run)
            continue;
        verdict = tk_casemate_check_feed(k, &rec, &err);
        if (!B.quiet && !c->json && verdict >= 0)
            trace_step(k, &rec);
        if (verdict)
            break;
    }
    if (rc < 0) /* malformed: the reader's error, one line on stderr */
        return cli_report(c->path, &err);
    if (verdict < 0) { /* where in the log the model gave up */
        err.line = tk_casemate_reader_line(r);
        err.col = tk_casemate_reader_col(r);
        err.record = tk_casemate_reader_index(r);
        fflush(stdout);
        return cli_report(c->path, &err);
    }
    const tk_casemate_violation *v = tk_casemate_check_violation(k);
    int dot_rc = B.dot ? write_dot(k) : EXIT_OK;
    if (c->json) {
        int rc_json = print_json(c, v, B.dry_run ? records : tk_casemate_check_events(k), r);
        if (rc_json != EXIT_OK)
            return rc_json;
    } else if (v) {
        if (!B.quiet) {
            tk_casemate_check_print_context(k, stdout);
            printf("  at: %s:%llu:%llu (record %llu)\n", c->path,
                   (unsigned long long)tk_casemate_reader_line(r),
                   (unsigned long long)tk_casemate_reader_col(r),
                   (unsigned long long)tk_casemate_reader_index(r));
        }
        printf("! %s\n", v->message);
    } else {
        print_summary(k, r, records);
    }
    if (fflush(stdout) != 0 || ferror(stdout))
        return cli_report_stdout();
    if (dot_rc != EXIT_OK)
        return dot_rc;
    return v ? EXIT_BAD_TRACE : EXIT_OK;
}

int cmd_bbm(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_BASE_LONG_OPTIONS,
        {"quiet", no_argument, NULL, 'q'},
        {"print-state", no_argument, NULL, 'p'},
        {"watch", required_argument, NULL, 'W'},
        {"racy", no_argument, NULL, 'R'},
        {"ignore-uninit", no_argument, NULL, 'I'},
        {"no-sysreg-defaults", no_argument, NULL, 'S'},
        {"promote-tlbi-by-id", no_argument, NULL, OPT_PROMOTE},
        {"dry-run", no_argument, NULL, OPT_DRY_RUN},
        {"dot", required_argument, NULL, OPT_DOT},
        {0}};
    cli c;
    const char *path = NULL;
    if (cli_init(&c, "bbm") != EXIT_OK)
        return EXIT_TROUBLE;
    int rc = cli_parse(&c, argc, argv, "hqpW:RIS", longopts, help, extra, &path);
    if (rc < 0)
        rc = cli_open(&c, path);
    if (rc == EXIT_OK && c.in && strcmp(tk_format_name(c.fmt), "casemate") != 0)
        rc = cli_usage_error(c.command, "%s is a %s trace; bbm checks casemate logs", c.path,
                             tk_format_name(c.fmt));
    if (rc == EXIT_OK && c.in) {
        tk_error err;
        tk_error_clear(&err);
        tk_casemate_reader *r = tk_casemate_reader_new(c.in, &err);
        tk_casemate_checker *k = r ? tk_casemate_check_new(&B.opt, &err) : NULL;
        for (size_t i = 0; k && i < B.nwatch; i++)
            if (tk_casemate_check_watch(k, B.watch[i], &err) != TK_OK) {
                tk_casemate_check_free(k);
                k = NULL;
            }
        rc = k ? check(&c, r, k) : cli_report(c.path, &err);
        tk_casemate_check_free(k);
        tk_casemate_reader_free(r);
    }
    free(B.watch);
    B.watch = NULL;
    cli_close(&c);
    return rc;
}
