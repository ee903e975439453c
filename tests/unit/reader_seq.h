/* Helpers of the generic reader's tests (test_reader*.c): a trace's
 * records as the sequence of their common headers, read through
 * tk_reader, through a format's own reader, or parsed from the JSON Lines
 * of `tracekit dump --json` (the CLI run, or a golden file), so that the
 * paths can be compared. */
#ifndef TK_READER_SEQ_H
#define TK_READER_SEQ_H

#include "testutil.h"

/* The header of one record, as tk_record has it. */
typedef struct rs_rec {
    char kind[32];
    uint64_t index, offset, line, thread, time;
    int has_thread, has_time;
} rs_rec;

typedef struct rs_seq {
    rs_rec *v;
    size_t n, cap;
    int rc;        /* the last next(): 0 end, -1 error; -2: the reader
                      could not be made (rs_read_native) */
    tk_error err;  /* when rc is -1 */
} rs_seq;

void rs_free(rs_seq *s);
void rs_push(rs_seq *s, const rs_rec *r);
rs_rec rs_of(const tk_record *rec);

/* Every record tk_reader_next returns, then its last result. */
void rs_read(tk_reader *r, rs_seq *s);
/* The same through the format's own reader on memory (no options):
 * "cacheray", "casemate", "ucir" (or "usercorn"), "xray". */
void rs_read_native(const char *format, const uint8_t *d, size_t n, rs_seq *s);

/* Append the records of JSON Lines `text` (dump --json of a trace of
 * `format`: its field names give index, offset or line, thread, time). */
void rs_parse_jsonl(tk_record_format format, const char *text, rs_seq *s);
/* `TRACEKIT dump --json ARGS FILE` parsed; returns the exit status. */
int rs_cli_dump(const char *tracekit, const char *args, const char *file,
                tk_record_format format, rs_seq *s);
/* The first `"records":N` of `TRACEKIT info --json [ARGS] FILE`; -1 when
 * the command fails. */
int64_t rs_cli_count(const char *tracekit, const char *file);

/* The tk_record_format of a registry name ("usercorn" is UCIR). */
tk_record_format rs_format_of(const char *name);

/* Assert that the first `n` records (all when n is SIZE_MAX) are equal
 * and, with n SIZE_MAX, that the lengths are; `what` names the check. */
void rs_assert_equal(const rs_seq *want, const rs_seq *got, size_t n, const char *what);
/* Assert that two errors are the same error (status, message, place). */
void rs_assert_same_error(const tk_error *want, const tk_error *got, const char *what);

#endif
