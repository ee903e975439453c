/* What the formats' commands share: exit statuses, messages through the
 * program running them, and the option parsers of several tables. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/select.h>

#include "core/command_int.h"

int tk_exit_status(tk_status st)
{
    switch (st) {
    case TK_OK: return TK_EXIT_OK;
    case TK_EMALFORMED:
    case TK_EVIOLATION: return TK_EXIT_FAILED;
    default: return TK_EXIT_TROUBLE;
    }
}

int tk_option_applies(const tk_option *opt, const char *command)
{
    size_t n = strlen(command);
    for (const char *p = opt->commands; p && *p;) {
        size_t len = strcspn(p, " ");
        if (len == n && strncmp(p, command, n) == 0)
            return 1;
        p += len;
        p += strspn(p, " ");
    }
    return 0;
}

/* The message, in a buffer the caller frees (NULL when out of memory). */
static char *vformat(const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, again);
    va_end(again);
    return s;
}

int tk_cmd_usage(tk_command_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = vformat(fmt, ap);
    va_end(ap);
    int rc = c->host->usage(c, msg ? msg : "out of memory");
    free(msg);
    return rc;
}

void tk_cmd_note(tk_command_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = vformat(fmt, ap);
    va_end(ap);
    c->host->note(c, msg ? msg : "out of memory");
    free(msg);
}

int tk_cmd_exclusive(tk_command_ctx *c, int rc, int clash, const char *a, const char *b)
{
    if (rc >= 0 || !clash)
        return rc;
    return tk_cmd_usage(c, "%s and %s exclude each other", a, b);
}

int tk_cmd_refuse_selection(tk_command_ctx *c, int rc, const char *why)
{
    static const char *const keys[] = {"thread", "range", "addr", "func"};
    for (size_t k = 0; rc < 0 && k < sizeof keys / sizeof keys[0]; k++)
        if (tk_options_get(c->opts, keys[k]))
            return tk_cmd_usage(c, "--%s does not apply: %s", keys[k], why);
    return rc;
}

int tk_cmd_flag(const tk_command_ctx *c, const char *key)
{
    const char *v = tk_options_get(c->opts, key);
    return v && strcmp(v, "0") != 0;
}

tk_status tk_opt_select(tk_options *o, const tk_option *opt, const char *value, tk_error *err)
{
    const char *key = tk_opt_key(opt);
    if (tk_selection_check(key, value, err) != TK_OK)
        return err->status == TK_ENOMEM ? TK_ENOMEM : TK_EUSAGE;
    return tk_options_set(o, key, value, err);
}

tk_status tk_opt_size(tk_options *o, const tk_option *opt, const char *value, tk_error *err)
{
    char *end;
    unsigned long long v = strtoull(value, &end, 10);
    int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    if (*value < '0' || *value > '9' || (shift && end[1]) || (!shift && *end) || v == 0 ||
        v > (UINT64_MAX >> shift))
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--%s takes a size like 64M, not '%s'", opt->name, value);
    char bytes[32];
    snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)v << shift);
    return tk_options_set(o, tk_opt_key(opt), bytes, err);
}
