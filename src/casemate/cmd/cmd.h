/* casemate's command (bbm) and its options of the common commands, as
 * include/tracekit/command.h describes them. */
#ifndef TK_CASEMATE_CMD_H
#define TK_CASEMATE_CMD_H

#include <tracekit/command.h>

#include "core/command_int.h"
#include "core/format_ops.h"

extern const tk_command tk_casemate_cmd_bbm;
/* For tk_fmt_casemate (options.c). */
extern const tk_command *const tk_casemate_commands[];
extern const tk_option tk_casemate_command_options[];
extern const struct tk_format_help tk_casemate_help[];

#endif
