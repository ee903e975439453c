/* The progress line (--progress): one line on stderr showing how far a
 * command has read its trace, erased before anything else is printed. */
#ifndef TK_CLI_PROGRESS_H
#define TK_CLI_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/input.h>

/* --progress WHEN; auto (0, the default) draws only on a terminal. */
enum { CLI_PROGRESS_AUTO = 0, CLI_PROGRESS_ALWAYS, CLI_PROGRESS_NEVER };

/* The mode named `arg`, or -1. */
int cli_progress_mode(const char *arg);

/* Show the reading of `in` as "tracekit: COMMAND FILE: ..." when `mode`
 * says so: auto after a second, when stderr is a terminal (not TERM=dumb);
 * always from the first read, wherever stderr goes. */
void cli_progress_start(int mode, const char *command, const char *file, tk_input *in);
/* Erase the line and draw no more. */
void cli_progress_stop(void);
/* `n` bytes are about to be written to standard output: erase the line
 * first if both go to the same place. */
void cli_progress_output(const char *buf, size_t n);

/* What one line shows (progress_line.c, apart for the unit test). */
typedef struct cli_progress_view {
    const char *label; /* "COMMAND FILE" */
    unsigned pass;     /* shown from 2 on */
    uint64_t done;     /* bytes */
    int64_t size;      /* bytes, -1 unknown: no percentage, no ETA */
    double rate;       /* bytes per second, 0 when not known yet */
} cli_progress_view;

/* "tracekit: LABEL: [pass N: ]DONE[ of SIZE (P%)][, RATE/s[, ETA T]]" into
 * buf (cut to n - 1 bytes); returns its length. */
size_t cli_progress_format(char *buf, size_t n, const cli_progress_view *v);
/* An amount in decimal units with up to three digits: "812 B", "1.2 GB". */
void cli_progress_bytes(char *buf, size_t n, double bytes);
/* Remaining time, rounded up: "5 s", "2 min 05 s", "1 h 02 min". */
void cli_progress_eta(char *buf, size_t n, double seconds);

#endif
