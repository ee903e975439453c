/* UCIR's command (replay, for both flavours) and its options of the
 * common commands, as include/tracekit/command.h describes them. */
#ifndef TK_UCIR_CMD_H
#define TK_UCIR_CMD_H

#include <tracekit/command.h>
#include <tracekit/ucir.h>
#include <tracekit/ucir_replay.h>

#include "core/command_int.h"
#include "core/format_ops.h"

extern const tk_command tk_ucir_cmd_replay;
/* For tk_fmt_ucir and tk_fmt_usercorn (options.c). */
extern const tk_command *const tk_ucir_commands[];
extern const tk_option tk_ucir_command_options[];
extern const struct tk_format_help tk_ucir_help[];

/* A range of memory: --mem ADDR:LEN, --history ADDR[:LEN]. */
typedef struct tk_ucir_range {
    uint64_t addr, len;
} tk_ucir_range;

/* replay's output (replay_print.c): the state after the replay so far,
 * with the memory of `mem` (n ranges), as text on c->out or as one JSON
 * object into `s`; and the history of --history `hist` (NULL: none) and
 * register `reg` (`has_reg`) over the rest of `r`, replayed by `rp`. */
tk_status tk_ucir_print_state(tk_command_ctx *c, tk_ucir_replay *rp, const tk_ucir_header *h,
                              const tk_ucir_range *mem, size_t n, tk_sink *s, tk_error *err);
tk_status tk_ucir_print_history(tk_command_ctx *c, tk_ucir_reader *r, tk_ucir_replay *rp,
                                const tk_ucir_range *hist, int has_reg, uint32_t reg,
                                tk_sink *s, tk_error *err);

#endif
