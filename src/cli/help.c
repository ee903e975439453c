/* `tracekit CMD --help`, written from the command's table and the
 * formats': its text, then its options (the formats' options of a common
 * command grouped by format, each group with the format's help on it). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

enum { WIDTH = 79, COLUMN = 24 };

/* `text` from column `col` (the cursor is there), its words wrapped at
 * WIDTH onto lines indented by `indent`; ends the line. */
static void wrap(FILE *out, const char *text, size_t col, size_t indent)
{
    size_t at = col;
    int first = 1;
    for (const char *p = text + strspn(text, " \n"); *p; p += strspn(p, " \n")) {
        size_t n = strcspn(p, " \n");
        if (!first && at + 1 + n > WIDTH) {
            fprintf(out, "\n%*s", (int)indent, "");
            at = indent;
        } else if (!first) {
            fputc(' ', out);
            at++;
        }
        fprintf(out, "%.*s", (int)n, p);
        at += n;
        p += n;
        first = 0;
    }
    fputc('\n', out);
}

/* One item of a list: its label, then its help from COLUMN (on the next
 * line when the label reaches it). */
static void item(FILE *out, const char *label, const char *help)
{
    size_t n = strlen(label);
    fprintf(out, "  %s", label);
    if (n + 4 > COLUMN)
        fprintf(out, "\n%*s", COLUMN, "");
    else
        fprintf(out, "%*s", (int)(COLUMN - 2 - n), "");
    wrap(out, help, COLUMN, COLUMN);
}

/* One option: "-x, --name VALUE", then its help (and its aliases). */
static void option_line(FILE *out, const tk_option *o)
{
    char label[128], help[1024];
    char letter[8] = "";
    if (o->letter)
        snprintf(letter, sizeof letter, "-%c, ", o->letter);
    snprintf(label, sizeof label, "%s--%s%s%s", letter, o->name, o->value ? " " : "",
             o->value ? o->value : "");
    size_t len = (size_t)snprintf(help, sizeof help, "%s", o->help ? o->help : "");
    for (const tk_option *a = o + 1; a->name && (a->flags & TK_OPTION_ALIAS); a++)
        if (len < sizeof help)
            len += (size_t)snprintf(help + len, sizeof help - len, " (also --%s)", a->name);
    item(out, label, help);
}

/* The options of `tab` that help lists: of command `only` (NULL: all),
 * neither hidden nor aliases. */
static void options_of(FILE *out, const tk_option *tab, const char *only)
{
    for (const tk_option *o = tab; o && o->name; o++)
        if (!(o->flags & (TK_OPTION_ALIAS | TK_OPTION_HIDDEN)) &&
            (!only || tk_option_applies(o, only)))
            option_line(out, o);
}

/* Ours, unless the command has an option of the same name. */
static void program_options(FILE *out, const cli_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->opts[i].program && !(t->opts[i].o->flags & TK_OPTION_HIDDEN))
            option_line(out, t->opts[i].o);
}

/* Does format j come before i with the same options and help (two
 * flavours of one format), so that i's group was printed with it? */
static int shares(size_t j, size_t i)
{
    const tk_format *a = tk_format_at(j), *b = tk_format_at(i);
    return tk_format_command_options(a) == tk_format_command_options(b) &&
           tk_format_help(a, "report", NULL) == tk_format_help(b, "report", NULL);
}

static int has_options(const tk_format *f, const char *command)
{
    for (const tk_option *o = tk_format_command_options(f); o && o->name; o++)
        if (!(o->flags & (TK_OPTION_ALIAS | TK_OPTION_HIDDEN)) && tk_option_applies(o, command))
            return 1;
    return 0;
}

/* A common command's options and help per format: "NAME traces:" and
 * what the format says of the command, then its options of it. */
static void format_groups(FILE *out, const char *command)
{
    for (size_t i = 0; i < tk_format_count(); i++) {
        const tk_format *f = tk_format_at(i);
        const char *text = tk_format_help(f, command, NULL);
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = shares(j, i);
        if (seen || (!text && !has_options(f, command)))
            continue;
        fprintf(out, "\n%s", tk_format_name(f));
        for (size_t j = i + 1; j < tk_format_count(); j++)
            if (shares(i, j))
                fprintf(out, " and %s", tk_format_name(tk_format_at(j)));
        fprintf(out, " traces:\n");
        if (text) {
            fputs("  ", out);
            wrap(out, text, 2, 2);
        }
        options_of(out, tk_format_command_options(f), command);
    }
}

/* Has a format before i said `text` of `target` already? */
static int said_before(size_t i, const char *command, const char *target, const char *text)
{
    for (size_t j = 0; j < i; j++) {
        const char *t = tk_format_help(tk_format_at(j), command, target);
        if (t && strcmp(t, text) == 0)
            return 1;
    }
    return 0;
}

/* Do the formats say different things of `target` (perfetto: each maps
 * its records its own way)? */
static int help_differs(const char *command, const char *target)
{
    const char *first = NULL;
    for (size_t i = 0; i < tk_format_count(); i++) {
        const char *t = tk_format_help(tk_format_at(i), command, target);
        if (t && first && strcmp(t, first) != 0)
            return 1;
        first = first ? first : t;
    }
    return 0;
}

/* "targets:" and the formats' help on each (convert): each text once,
 * labelled "TARGET (FORMAT)" when formats say different things. */
static void targets(FILE *out, const char *command)
{
    int any = 0;
    for (size_t i = 0; i < tk_format_count(); i++) {
        const tk_format *f = tk_format_at(i);
        for (const char *const *t = tk_format_targets(f); t && *t; t++) {
            const char *text = tk_format_help(f, command, *t);
            if (!text || said_before(i, command, *t, text))
                continue;
            if (!any++)
                fprintf(out, "\ntargets:\n");
            char label[64];
            if (help_differs(command, *t))
                snprintf(label, sizeof label, "%s (%s)", *t, tk_format_name(f));
            else
                snprintf(label, sizeof label, "%s", *t);
            item(out, label, text);
        }
    }
}

/* Does a format before i own `cmd` with the same options (listed then)? */
static int owner_before(const tk_command *cmd, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (tk_format_has_command(tk_format_at(j), cmd) &&
            tk_format_command_options(tk_format_at(j)) ==
                tk_format_command_options(tk_format_at(i)))
            return 1;
    return 0;
}

void cli_help(const cli *c, FILE *out)
{
    const tk_command *cmd = c->cmd;
    fprintf(out, "usage: tracekit %s %s\n\n%s", cmd->name, cmd->synopsis, cmd->help);
    targets(out, cmd->name);
    fprintf(out, "\noptions:\n");
    options_of(out, cmd->options, NULL);
    for (size_t i = 0; i < tk_format_count() && !c->common; i++) /* its owners' */
        if (tk_format_has_command(tk_format_at(i), cmd) && !owner_before(cmd, i))
            options_of(out, tk_format_command_options(tk_format_at(i)), cmd->name);
    program_options(out, &c->table);
    if (c->common)
        format_groups(out, cmd->name);
    if (cmd->notes)
        fprintf(out, "\n%s", cmd->notes);
}
