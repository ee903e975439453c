/* Shared by the casemate reader, writer and commands: the words of the
 * format and their values. */
#ifndef TK_CASEMATE_INT_H
#define TK_CASEMATE_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <tracekit/casemate.h>
#include <tracekit/format.h>
#include <tracekit/select.h>

/* A word of the format (lower case, as written) and the value it reads as.
 * Tables may hold aliases (several words, one value); the name the writer
 * uses comes first. */
typedef struct tk_casemate_word {
    const char *s;
    uint8_t len;
    uint8_t value;
    char pat[32];   /* s, zero-padded: the reader compares 8 bytes at a time */
} tk_casemate_word;

typedef struct tk_casemate_words {
    const tk_casemate_word *v;
    size_t n;
    const char *what; /* for "expected ..." messages */
} tk_casemate_words;

extern const tk_casemate_words tk_casemate_kinds, tk_casemate_mem_orders, tk_casemate_barrier_words,
    tk_casemate_dsb_kinds, tk_casemate_tlbis, tk_casemate_sysregs, tk_casemate_hints;

/* The value of word `w` (`n` bytes, any case) in `t`, or -1. */
int tk_casemate_lookup(const tk_casemate_words *t, const uint8_t *w, size_t n);

/* ---- selections (select.c) */
/* Does the record pass the selection (its id in --range, its tid in
 * --thread, a location it names in --addr)? */
int tk_casemate_selected(const tk_selection *s, const tk_casemate_record *rec);
/* A reader with the selection of `o`. */
tk_casemate_reader *tk_casemate_open(tk_input *in, const tk_options *o, tk_error *err);

/* ---- commands (commands.c, info.c) */
/* One dump record (text line or JSON object). */
void tk_casemate_sink_record(tk_sink *s, const tk_casemate_record *rec, uint64_t index,
                       uint64_t line, uint64_t col);
tk_status tk_casemate_info(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err);
tk_status tk_casemate_report(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err);
/* convert --to perfetto (perfetto.c): the log on a Perfetto timeline. */
tk_status tk_casemate_perfetto(tk_input *in, const tk_options *o, FILE *out, tk_error *err);

/* Questionable-but-legal records (validate's warnings). */
typedef enum tk_casemate_warning {
    TK_CMW_NONE = 0,
    TK_CMW_ID_ORDER,       /* id not greater than the previous record's */
    TK_CMW_MEMSET_ALIGN    /* mem-set address or size not a multiple of 8 */
} tk_casemate_warning;
/* The warning `rec` raises after a record with id `prev_id` (`first`: no
 * record before it). */
tk_casemate_warning tk_casemate_check(const tk_casemate_record *rec, int first, uint64_t prev_id);
const char *tk_casemate_warning_code(tk_casemate_warning w);
const char *tk_casemate_warning_message(tk_casemate_warning w);


/* convert --to parquet: the format's tables into `dir`
 * (src/export/parquet/tables.h; docs/formats/casemate.md lists them). */
tk_status tk_casemate_parquet(tk_input *in, const tk_options *o, const char *source, const char *dir,
                        tk_error *err);

#endif
