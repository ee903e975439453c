/* Helpers of the formats' own commands (include/tracekit/command.h):
 * messages through the host, and option parsers several tables share. */
#ifndef TK_CORE_COMMAND_INT_H
#define TK_CORE_COMMAND_INT_H

#include <tracekit/command.h>

/* A usage error of c's command, printf-style, printed by the host; returns
 * the exit status (TK_EXIT_TROUBLE). */
int tk_cmd_usage(tk_command_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A line on stderr through the host, printf-style (no newline). */
void tk_cmd_note(tk_command_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* For checks after parsing: `rc` when it is set already (>= 0) or there
 * is no `clash`, else the usage error "A and B exclude each other". */
int tk_cmd_exclusive(tk_command_ctx *c, int rc, int clash, const char *a, const char *b);
/* `rc` (>= 0), or the usage error "--thread does not apply: WHY" for the
 * first selection option given, or -1 (go on). For commands that list the
 * selections only so that getopt does not read --thread as --threads. */
int tk_cmd_refuse_selection(tk_command_ctx *c, int rc, const char *why);
/* Whether the flag `key` is on (set, and not "0"). */
int tk_cmd_flag(const tk_command_ctx *c, const char *key);

/* tk_option_fn parsers: a selection (--thread, --range, --addr, --func,
 * checked by tk_selection_check); a size like 64M (nonzero; K, M, G
 * suffixes), stored in bytes. */
tk_status tk_opt_select(tk_options *o, const tk_option *opt, const char *value, tk_error *err);
tk_status tk_opt_size(tk_options *o, const tk_option *opt, const char *value, tk_error *err);

/* The key an option stores (its name unless it says). */
static inline const char *tk_opt_key(const tk_option *opt)
{
    return opt->key ? opt->key : opt->name;
}

#endif
