/* Option spellings of LLVM's command-line parser (cl) rewritten for
 * getopt_long (see spelling.h), so that scripts written for LLVM's tools
 * run unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spelling.h"

typedef struct speller {
    const char *shortopts;
    const struct option *longopts;
    char **out; /* the arguments so far */
    int n;
    char *text; /* room for rewritten arguments */
} speller;

/* LLVM's boolean values: 1 true, 0 false, -1 neither. */
static int bool_value(const char *v)
{
    static const char *const yes[] = {"true", "TRUE", "True", "1"};
    static const char *const no[] = {"false", "FALSE", "False", "0"};
    for (int i = 0; i < 4; i++) {
        if (strcmp(v, yes[i]) == 0)
            return 1;
        if (strcmp(v, no[i]) == 0)
            return 0;
    }
    return -1;
}

/* The long option called exactly name[0..n), or NULL. */
static const struct option *long_named(const speller *s, const char *name, size_t n)
{
    for (const struct option *o = s->longopts; o->name; o++)
        if (strncmp(o->name, name, n) == 0 && o->name[n] == '\0')
            return o;
    return NULL;
}

/* -1 when x is no one-letter option, else no_argument or required_argument. */
static int short_arg(const speller *s, char x)
{
    const char *p = x && x != ':' ? strchr(s->shortopts, x) : NULL;
    return !p ? -1 : p[1] == ':' ? required_argument : no_argument;
}

/* The flag's opposite: name for no-name, no-name for name (or NULL). */
static const struct option *opposite(const speller *s, const char *name)
{
    if (strncmp(name, "no-", 3) == 0)
        return long_named(s, name + 3, strlen(name + 3));
    for (const struct option *o = s->longopts; o->name; o++)
        if (strncmp(o->name, "no-", 3) == 0 && strcmp(o->name + 3, name) == 0)
            return o;
    return NULL;
}

static void add(speller *s, char *arg) { s->out[s->n++] = arg; }

/* A new argument: prefix, then name[0..n). */
static void add_text(speller *s, const char *prefix, const char *name, size_t n)
{
    int k = sprintf(s->text, "%s%.*s", prefix, (int)n, name);
    add(s, s->text);
    s->text += k + 1;
}

/* FLAG=V for an option without a value (o its long form, or the letter x):
 * the flag, its opposite or nothing. Returns 0 when V is no boolean. */
static int add_flag(speller *s, const struct option *o, char x, const char *v)
{
    int b = bool_value(v);
    if (b < 0)
        return 0;
    if (b) {
        if (o)
            add_text(s, "--", o->name, strlen(o->name));
        else
            add_text(s, "-", &x, 1);
        return 1;
    }
    for (const struct option *l = s->longopts; !o && l->name; l++)
        if (l->has_arg == no_argument && !l->flag && l->val == x)
            o = l; /* the letter's long form, which may have an opposite */
    const struct option *opp = o ? opposite(s, o->name) : NULL;
    if (opp)
        add_text(s, "--", opp->name, strlen(opp->name));
    return 1;
}

/* --abbrev: does getopt_long take the next argument as its value? */
static int abbrev_takes_value(const speller *s, const char *name, size_t n)
{
    int any = 0;
    for (const struct option *o = s->longopts; n && o->name; o++)
        if (strncmp(o->name, name, n) == 0) {
            if (o->has_arg != required_argument)
                return 0;
            any = 1;
        }
    return any;
}

/* -abc: the letters up to one taking a value, which takes the next
 * argument when it ends the cluster. */
static int cluster_takes_next(const speller *s, const char *p)
{
    for (; *p; p++) {
        int x = short_arg(s, *p);
        if (x != no_argument)
            return x == required_argument && p[1] == '\0';
    }
    return 0;
}

/* Add argument a as getopt_long should read it; returns 1 when the next
 * argument is its value. */
static int spell(speller *s, char *a)
{
    if (a[0] != '-' || a[1] == '\0') { /* an operand, or '-' for stdin */
        add(s, a);
        return 0;
    }
    int dashes = a[1] == '-' ? 2 : 1;
    char *name = a + dashes, *eq = strchr(name, '=');
    size_t n = eq ? (size_t)(eq - name) : strlen(name);
    const struct option *o = n >= 2 || dashes == 2 ? long_named(s, name, n) : NULL;
    if (o) {
        if (o->has_arg == no_argument && eq && add_flag(s, o, 0, eq + 1))
            return 0;
        if (dashes == 1)
            add_text(s, "-", a, strlen(a)); /* -name[=V] -> --name[=V] */
        else
            add(s, a);
        return o->has_arg == required_argument && !eq;
    }
    int x = n == 1 ? short_arg(s, name[0]) : -1;
    if (x == required_argument && eq) { /* -x=V, --x=V -> -x V */
        add_text(s, "-", name, 1);
        add(s, eq + 1);
        return 0;
    }
    if (x == no_argument && eq && add_flag(s, NULL, name[0], eq + 1))
        return 0;
    if (x >= 0 && dashes == 2) { /* --x -> -x */
        add(s, a + 1);
        return x == required_argument && !eq;
    }
    add(s, a);
    return dashes == 2 ? !eq && abbrev_takes_value(s, name, n) : cluster_takes_next(s, name);
}

char **cli_spell_llvm(int *argc_io, char *const argv[], const char *shortopts,
                      const struct option *longopts)
{
    int argc = *argc_io;
    size_t longest = 0, room = 0, slots = 2 * (size_t)argc + 1;
    for (const struct option *o = longopts; o->name; o++)
        if (strlen(o->name) > longest)
            longest = strlen(o->name);
    /* at most one new string per argument: itself with a dash more, or
     * "--" and a long name */
    for (int i = 0; i < argc; i++)
        room += strlen(argv[i]) + longest + 4;
    char **out = malloc(slots * sizeof *out + room);
    if (!out)
        return NULL;
    speller s = {shortopts, longopts, out, 0, (char *)(out + slots)};
    int value = 0, rest = 0;
    for (int i = 0; i < argc; i++) {
        if (i == 0 || value || rest) {
            add(&s, argv[i]);
            value = 0;
        } else if (strcmp(argv[i], "--") == 0) {
            add(&s, argv[i]);
            rest = 1;
        } else {
            value = spell(&s, argv[i]);
        }
    }
    out[s.n] = NULL;
    *argc_io = s.n;
    return out;
}
