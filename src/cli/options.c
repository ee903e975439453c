/* A command's options from the tables (its own, the formats' options of
 * it, ours), and the arguments parsed with them by getopt_long. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "spelling.h"

/* Ours, taken by every command (a command's option of the same name,
 * TK_OPTION_SHARED, gives it its own help). */
static const tk_option program_options[] = {
    {.name = "format", .value = "NAME", .help = "read the input as NAME instead of detecting it"},
    {.name = "json", .help = "machine-readable JSON output"},
    {.name = "json-hex",
     .help = "--json with addresses and integers past 2^53 as \"0x...\" strings (jq 1.6, "
             "JavaScript)"},
    {.name = "allow-truncated",
     .help = "read a trace cut inside its last record (a killed writer) up to its last "
             "whole record, with one warning naming the offset and the bytes dropped; "
             "other damage still fails"},
    {.name = "max-memory", .value = "SIZE",
     .help = "stop with an error naming the record that asked for more than SIZE of memory "
             "(K, M, G suffixes; 0 or none: no limit; default: 3/4 of physical memory)"},
    {.name = "progress", .value = "WHEN",
     .help = "progress line on stderr: auto (on a terminal, after a second), always or never"},
    {.name = "help", .letter = 'h', .help = "show this help"},
    {0}};

/* getopt_long's value for options without a letter: past any letter. */
enum { LONG_ONLY = 0x100 };

int cli_in_choices(const char *choices, const char *value)
{
    size_t n = strlen(value);
    for (const char *p = choices; *p;) {
        size_t len = strcspn(p, " ");
        if (len == n && strncmp(p, value, n) == 0)
            return 1;
        p += len;
        p += strspn(p, " ");
    }
    return 0;
}

static const cli_opt *find_name(const cli_table *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->opts[i].o->name, name) == 0)
            return &t->opts[i];
    return NULL;
}

/* Add the options of `tab` (those of command `only`, unless NULL) that the
 * table lacks, each with its aliases. Returns -1 when out of memory. */
static int add_options(cli_table *t, const tk_option *tab, const char *only,
                       const tk_format *fmt, int program)
{
    for (const tk_option *o = tab; o && o->name; o++) {
        if ((o->flags & TK_OPTION_ALIAS) || (only && !tk_option_applies(o, only)) ||
            find_name(t, o->name))
            continue;
        size_t aliases = 0;
        while (o[1 + aliases].name && (o[1 + aliases].flags & TK_OPTION_ALIAS))
            aliases++;
        cli_opt *v = realloc(t->opts, (t->n + 1) * sizeof *v);
        struct option *l = v ? realloc(t->longopts, (t->nlong + aliases + 2) * sizeof *l) : NULL;
        if (v)
            t->opts = v;
        if (!l)
            return -1;
        t->longopts = l;
        t->opts[t->n] = (cli_opt){o, fmt, program};
        int val = o->letter ? o->letter : LONG_ONLY + (int)t->n;
        for (size_t k = 0; k <= aliases; k++)
            l[t->nlong++] = (struct option){o[k].name, o->value ? required_argument : no_argument,
                                            NULL, val};
        l[t->nlong] = (struct option){0};
        t->n++;
        if (o->letter) {
            size_t len = strlen(t->shortopts);
            if (len + 3 < sizeof t->shortopts)
                snprintf(t->shortopts + len, 3, "%c%s", o->letter, o->value ? ":" : "");
        }
    }
    return 0;
}

int cli_table_build(cli *c)
{
    cli_table *t = &c->table;
    memset(t, 0, sizeof *t);
    int bad = add_options(t, c->cmd->options, NULL, NULL, 0);
    for (size_t i = 0; i < tk_format_count() && !bad; i++) {
        const tk_format *f = tk_format_at(i);
        if (c->common || tk_format_has_command(f, c->cmd))
            bad = add_options(t, tk_format_command_options(f), c->cmd->name, f, 0);
    }
    if (!bad)
        bad = add_options(t, program_options, NULL, NULL, 1);
    if (!bad && !t->longopts)
        bad = !(t->longopts = calloc(1, sizeof *t->longopts));
    if (bad) {
        fprintf(stderr, "tracekit: out of memory\n");
        return EXIT_TROUBLE;
    }
    return EXIT_OK;
}

void cli_table_free(cli_table *t)
{
    free(t->opts);
    free(t->longopts);
    memset(t, 0, sizeof *t);
}

/* The table entry getopt_long's `val` names. */
static const cli_opt *entry_of(const cli_table *t, int val)
{
    if (val >= LONG_ONLY)
        return (size_t)(val - LONG_ONLY) < t->n ? &t->opts[val - LONG_ONLY] : NULL;
    for (size_t i = 0; i < t->n; i++)
        if (t->opts[i].o->letter == val)
            return &t->opts[i];
    return NULL;
}

/* One of ours (by name). Returns 1 handled, -1 after a usage error, or
 * EXIT_OK - 2 (-2) after --help. */
static int program_option(cli *c, const char *name, const char *arg)
{
    if (strcmp(name, "format") == 0) {
        if (!tk_format_find(arg)) {
            cli_usage_error(c->cmd->name, "unknown format '%s'", arg);
            return -1;
        }
        c->format_name = arg;
    } else if (strcmp(name, "allow-truncated") == 0) {
        if (cli_set(c, "allow-truncated", "1") != EXIT_OK)
            return -1;
    } else if (strcmp(name, "max-memory") == 0) {
        if (cli_memlimit_option(arg) != 0) {
            cli_usage_error(c->cmd->name, "--max-memory takes a size like 512M, or none, not '%s'",
                            arg);
            return -1;
        }
    } else if (strcmp(name, "json") == 0) {
        c->ctx.json = 1;
    } else if (strcmp(name, "json-hex") == 0) {
        c->ctx.json = c->ctx.json_hex = 1;
    } else if (strcmp(name, "progress") == 0) {
        if ((c->progress = cli_progress_mode(arg)) < 0) {
            cli_usage_error(c->cmd->name, "--progress takes auto, always or never, not '%s'",
                            arg);
            return -1;
        }
    } else { /* help */
        cli_help(c, stdout);
        return -2;
    }
    return 1;
}

/* "a, b or c" of blank-separated choices, into buf. */
static void choices_text(const char *choices, char *buf, size_t n)
{
    size_t count = 0, len = 0;
    for (const char *p = choices; *p; p += strspn(p, " "), count++)
        p += strcspn(p, " ");
    buf[0] = '\0';
    size_t i = 0;
    for (const char *p = choices; *p && len < n; i++) {
        size_t w = strcspn(p, " ");
        len += (size_t)snprintf(buf + len, n - len, "%s%.*s",
                                i == 0 ? "" : i + 1 == count ? " or " : ", ", (int)w, p);
        p += w;
        p += strspn(p, " ");
    }
}

/* Store what option `o` means, by the tk_option rules. */
static tk_status store(tk_options *opts, const tk_option *o, const char *arg, tk_error *err)
{
    if (o->parse)
        return o->parse(opts, o, arg, err);
    if (arg && o->choices && !cli_in_choices(o->choices, arg)) {
        char list[256];
        choices_text(o->choices, list, sizeof list);
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--%s takes %s, not '%s'", o->name, list, arg);
    }
    const char *key = o->key ? o->key : o->name;
    const char *v = arg ? arg : o->set ? o->set : "1";
    return o->flags & TK_OPTION_REPEAT ? tk_options_add(opts, key, v, err)
                                       : tk_options_set(opts, key, v, err);
}

/* Handle option `e` with `arg`: 1 done, -1 after a message, -2 help. */
static int handle(cli *c, const cli_opt *e, const char *arg)
{
    const tk_option *o = e->o;
    int shared = o->flags & TK_OPTION_SHARED;
    if (e->program || (shared && !(o->choices && arg && cli_in_choices(o->choices, arg))))
        return program_option(c, o->name, arg);
    tk_error err;
    tk_error_clear(&err);
    if (store(c->ctx.opts, o, arg, &err) == TK_OK)
        return 1;
    if (err.status == TK_EUSAGE)
        cli_usage_error(c->cmd->name, "%s", err.message);
    else
        cli_report(NULL, &err);
    return -1;
}

/* `CMD --list-options` (not in the help): the command's option table, one
 * option a line, for the test that keeps help, man page and README true. */
static int list_options(const cli_table *t)
{
    for (const char *p = t->shortopts; *p; p++)
        if (*p != ':')
            printf("-%c\n", *p);
    for (size_t i = 0; i < t->nlong; i++) {
        const struct option *o = &t->longopts[i];
        if (o->val < LONG_ONLY)
            printf("--%s -%c\n", o->name, o->val);
        else
            printf("--%s\n", o->name);
    }
    return EXIT_OK;
}

/* Did getopt_long fail on the long option `arg` (--keep-going=1, --sort
 * without a value), whose letter it then leaves in optopt? */
static int long_failed(const char *arg, const struct option *longopts, int letter)
{
    if (strncmp(arg, "--", 2) != 0)
        return 0;
    size_t n = strcspn(arg + 2, "=");
    for (const struct option *o = longopts; o->name; o++)
        if (o->val == letter && strncmp(o->name, arg + 2, n) == 0)
            return 1;
    return 0;
}

/* getopt_long over the arguments; -1 when they were all taken. */
static int parse_options(cli *c, int argc, char **argv)
{
    const cli_table *t = &c->table;
    int opt;
    while ((opt = getopt_long(argc, argv, t->shortopts, t->longopts, NULL)) != -1) {
        const cli_opt *e = opt == '?' || opt == ':' ? NULL : entry_of(t, opt);
        if (!e) {
            const char *bad = argv[optind - 1];
            if (optopt && optopt < LONG_ONLY && !long_failed(bad, t->longopts, optopt))
                return cli_usage_error(c->cmd->name, "bad option '-%c' or missing value",
                                       optopt);
            return cli_usage_error(c->cmd->name, "bad option '%s' or missing value", bad);
        }
        int r = handle(c, e, optarg);
        if (r != 1)
            return r == -2 ? EXIT_OK : EXIT_TROUBLE;
    }
    return -1;
}

/* A common command's own arguments (TK_OPTION_LOCAL) go to c->args: the
 * format reads the rest. Returns -1, or EXIT_TROUBLE out of memory. */
static int split_local(cli *c)
{
    tk_error err;
    tk_options *lib = tk_options_new(&err);
    if (!lib)
        return cli_report(NULL, &err);
    tk_options *o = c->ctx.opts;
    for (size_t i = 0; i < tk_options_count(o); i++) {
        const char *key = tk_options_key(o, i);
        int local = 0;
        for (const tk_option *d = c->cmd->options; d && d->name && !local; d++)
            local = (d->flags & TK_OPTION_LOCAL) && strcmp(d->key ? d->key : d->name, key) == 0;
        if (tk_options_add(local ? c->args : lib, key, tk_options_value(o, i), &err) != TK_OK) {
            tk_options_free(lib);
            return cli_report(NULL, &err);
        }
    }
    tk_options_free(o);
    c->ctx.opts = lib;
    return -1;
}

int cli_parse(cli *c, int argc, char **argv)
{
    opterr = 0;
    optind = 1;
    if (argc == 2 && strcmp(argv[1], "--list-options") == 0)
        return list_options(&c->table);
    c->argv = argv = cli_spell_llvm(&argc, argv, c->table.shortopts, c->table.longopts);
    if (!argv) {
        fprintf(stderr, "tracekit: out of memory\n");
        return EXIT_TROUBLE;
    }
    int rc = parse_options(c, argc, argv);
    if (rc >= 0)
        return rc;
    if (optind >= argc)
        return cli_usage_error(c->cmd->name, "missing FILE");
    /* a command of two traces says so in its synopsis ("... A B"): the second
     * is the option "file-b" */
    size_t syn = strlen(c->cmd->synopsis);
    int two = syn >= 4 && strcmp(c->cmd->synopsis + syn - 4, " A B") == 0;
    if (two && optind + 1 >= argc)
        return cli_usage_error(c->cmd->name, "missing the second trace B");
    if (two && tk_options_set(c->ctx.opts, "file-b", argv[optind + 1], NULL) != TK_OK) {
        fprintf(stderr, "tracekit: out of memory\n");
        return EXIT_TROUBLE;
    }
    if (optind + 1 + two < argc)
        return cli_usage_error(c->cmd->name, "unexpected argument '%s'", argv[optind + 1 + two]);
    c->ctx.file = argv[optind];
    return c->common ? split_local(c) : -1;
}
