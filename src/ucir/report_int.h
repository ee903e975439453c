/* The report's pass over a UCIR trace (report.c): a full replay counting
 * records by kind, syscalls by number and executions per code address.
 * `tracekit report` prints what it leaves; the HTML report (html*.c)
 * runs the same pass with a hook of its own for what it adds. */
#ifndef TK_UCIR_REPORT_INT_H
#define TK_UCIR_REPORT_INT_H

#include "core/hashmap.h"
#include "ucir/replay/replay_int.h"
#include "ucir/ucir_int.h"

/* What the pass knows of one code address. */
typedef struct tk_ucir_rep_pc {
    uint64_t count; /* instructions placed there */
    uint64_t size;  /* the size its EXEC gave (spec traces), 0: unknown */
} tk_ucir_rep_pc;

typedef struct tk_ucir_rep {
    tk_ucir_reader *r;
    const tk_ucir_header *h;
    tk_ucir_replay *rp;
    tk_map pcs;      /* pc -> tk_ucir_rep_pc */
    tk_map syscalls; /* number -> uint64_t count */
    uint64_t kinds[TK_UCIR_KIND_COUNT];
} tk_ucir_rep;

/* Called for every record once the replay took it (rp's state is the
 * record's): `applied` 0 when the replay skipped it (inside a later
 * keyframe); `placed` when it fixed the current instruction's address,
 * which is rp->pc when rp->pc_known. TK_OK, or the hook's failure with
 * `err`. */
typedef tk_status (*tk_ucir_rep_hook)(void *ctx, tk_ucir_rep *rep, const tk_ucir_op *op,
                                      const tk_ucir_pos *pos, int applied, int placed,
                                      tk_error *err);

/* Replay the whole trace of `in` with the command options of `o` (a
 * selection is TK_EUSAGE: the report is the whole replay's), calling
 * `hook` (NULL: none) for each record. On TK_OK `rep` holds the counts and
 * the final state; free it with tk_ucir_rep_free whatever is returned. */
tk_status tk_ucir_rep_run(tk_ucir_rep *rep, tk_input *in, const tk_options *o,
                          tk_ucir_rep_hook hook, void *ctx, tk_error *err);
void tk_ucir_rep_free(tk_ucir_rep *rep);

/* The architecture as the report names it ("x86_64", "unknown"). */
const char *tk_ucir_rep_arch(const tk_ucir_header *h);

#endif
