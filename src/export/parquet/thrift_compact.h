/* Thrift's compact protocol, the encoding of every Parquet header and of
 * the footer (FileMetaData): only the writer's side, only what Parquet
 * uses (no maps or sets).
 *
 * A struct is its fields in increasing id order, each a header byte
 * (id delta << 4 | type, or type then the id as a zigzag varint when the
 * delta is not 1..15), then the value; a 0 byte ends it. Integers are
 * zigzag ULEB128 (an i8 is one raw byte), binary/strings a ULEB128 length
 * and the bytes, a bool field carries its value in the type nibble (1 true,
 * 2 false) and a bool list element is one byte, 1 or 2. A list is a header
 * (size << 4 | element type, or 0xF0 | type then the size) and its
 * elements. A union is a struct with exactly one field.
 *
 * Usage: tk_tc_init on a buffer, fields, tk_tc_end for the outermost
 * struct; nested structs open with tk_tc_struct (a field) or
 * tk_tc_elem_struct (a list element) and close with tk_tc_end. Nesting
 * deeper than TK_TC_DEPTH sets the buffer's oom flag (a writer bug: Parquet
 * needs 6). Appends cannot fail otherwise; check the buffer's oom. */
#ifndef TK_EXPORT_PARQUET_THRIFT_COMPACT_H
#define TK_EXPORT_PARQUET_THRIFT_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "export/parquet/pq_buf.h"

enum {
    TK_TC_TRUE = 1,
    TK_TC_FALSE = 2,
    TK_TC_BYTE = 3,
    TK_TC_I16 = 4,
    TK_TC_I32 = 5,
    TK_TC_I64 = 6,
    TK_TC_DOUBLE = 7,
    TK_TC_BINARY = 8,
    TK_TC_LIST = 9,
    TK_TC_STRUCT = 12
};

#define TK_TC_DEPTH 16

typedef struct tk_tc {
    tk_pq_buf *b;
    int depth;                  /* structs open, the outermost included */
    int16_t last[TK_TC_DEPTH];  /* last field id written, per open struct */
} tk_tc;

void tk_tc_init(tk_tc *t, tk_pq_buf *b);

void tk_tc_bool(tk_tc *t, int16_t id, int v);
void tk_tc_i8(tk_tc *t, int16_t id, int8_t v);
void tk_tc_i16(tk_tc *t, int16_t id, int16_t v);
void tk_tc_i32(tk_tc *t, int16_t id, int32_t v);
void tk_tc_i64(tk_tc *t, int16_t id, int64_t v);
void tk_tc_binary(tk_tc *t, int16_t id, const void *p, size_t n);
void tk_tc_string(tk_tc *t, int16_t id, const char *s);
/* Open a struct (or union) field; close with tk_tc_end. */
void tk_tc_struct(tk_tc *t, int16_t id);
/* An empty struct field (Parquet's StringType, NanoSeconds, ...). */
void tk_tc_empty(tk_tc *t, int16_t id);
/* Close the innermost struct: the stop byte. */
void tk_tc_end(tk_tc *t);

/* A list field of `n` elements of `type`, then n elements below. */
void tk_tc_list(tk_tc *t, int16_t id, int type, size_t n);
void tk_tc_elem_bool(tk_tc *t, int v);
void tk_tc_elem_i32(tk_tc *t, int32_t v);
void tk_tc_elem_i64(tk_tc *t, int64_t v);
void tk_tc_elem_binary(tk_tc *t, const void *p, size_t n);
/* Open a struct element; close with tk_tc_end. */
void tk_tc_elem_struct(tk_tc *t);

#endif
