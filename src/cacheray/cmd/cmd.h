/* Cacheray's commands (cachesim, mrc) and its options of the common commands,
 * as include/tracekit/command.h describes them. */
#ifndef TK_CACHERAY_CMD_H
#define TK_CACHERAY_CMD_H

#include <tracekit/command.h>

#include "core/command_int.h"
#include "core/format_ops.h"

extern const tk_command tk_cacheray_cmd_cachesim;
extern const tk_command tk_cacheray_cmd_mrc;
/* For tk_fmt_cacheray (options.c). */
extern const tk_command *const tk_cacheray_commands[];
extern const tk_option tk_cacheray_command_options[];
extern const struct tk_format_help tk_cacheray_help[];

#endif
