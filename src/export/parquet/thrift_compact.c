/* Thrift compact protocol encoder (thrift_compact.h says the format). */
#include "export/parquet/thrift_compact.h"

#include <string.h>

void tk_tc_init(tk_tc *t, tk_pq_buf *b)
{
    t->b = b;
    t->depth = 1;
    t->last[0] = 0;
}

/* The field header: a short form when the id grows by 1..15. */
static void field(tk_tc *t, int16_t id, int type)
{
    int16_t *last = &t->last[t->depth - 1];
    int delta = id - *last;
    if (delta > 0 && delta <= 15) {
        tk_pq_buf_byte(t->b, (uint8_t)(delta << 4 | type));
    } else {
        tk_pq_buf_byte(t->b, (uint8_t)type);
        tk_pq_buf_zigzag(t->b, id);
    }
    *last = id;
}

static void push(tk_tc *t)
{
    if (t->depth >= TK_TC_DEPTH) {
        t->b->oom = 1; /* a writer bug; the output is dropped */
        return;
    }
    t->last[t->depth++] = 0;
}

void tk_tc_bool(tk_tc *t, int16_t id, int v)
{
    field(t, id, v ? TK_TC_TRUE : TK_TC_FALSE);
}

void tk_tc_i8(tk_tc *t, int16_t id, int8_t v)
{
    field(t, id, TK_TC_BYTE);
    tk_pq_buf_byte(t->b, (uint8_t)v);
}

void tk_tc_i16(tk_tc *t, int16_t id, int16_t v)
{
    field(t, id, TK_TC_I16);
    tk_pq_buf_zigzag(t->b, v);
}

void tk_tc_i32(tk_tc *t, int16_t id, int32_t v)
{
    field(t, id, TK_TC_I32);
    tk_pq_buf_zigzag(t->b, v);
}

void tk_tc_i64(tk_tc *t, int16_t id, int64_t v)
{
    field(t, id, TK_TC_I64);
    tk_pq_buf_zigzag(t->b, v);
}

void tk_tc_binary(tk_tc *t, int16_t id, const void *p, size_t n)
{
    field(t, id, TK_TC_BINARY);
    tk_tc_elem_binary(t, p, n);
}

void tk_tc_string(tk_tc *t, int16_t id, const char *s)
{
    tk_tc_binary(t, id, s, strlen(s));
}

void tk_tc_struct(tk_tc *t, int16_t id)
{
    field(t, id, TK_TC_STRUCT);
    push(t);
}

void tk_tc_empty(tk_tc *t, int16_t id)
{
    tk_tc_struct(t, id);
    tk_tc_end(t);
}

void tk_tc_end(tk_tc *t)
{
    tk_pq_buf_byte(t->b, 0);
    if (t->depth > 0)
        t->depth--;
}

void tk_tc_list(tk_tc *t, int16_t id, int type, size_t n)
{
    field(t, id, TK_TC_LIST);
    if (n < 15) {
        tk_pq_buf_byte(t->b, (uint8_t)(n << 4 | (size_t)type));
    } else {
        tk_pq_buf_byte(t->b, (uint8_t)(0xF0 | type));
        tk_pq_buf_uleb(t->b, n);
    }
}

void tk_tc_elem_bool(tk_tc *t, int v)
{
    tk_pq_buf_byte(t->b, v ? TK_TC_TRUE : TK_TC_FALSE);
}

void tk_tc_elem_i32(tk_tc *t, int32_t v) { tk_pq_buf_zigzag(t->b, v); }

void tk_tc_elem_i64(tk_tc *t, int64_t v) { tk_pq_buf_zigzag(t->b, v); }

void tk_tc_elem_binary(tk_tc *t, const void *p, size_t n)
{
    tk_pq_buf_uleb(t->b, n);
    tk_pq_buf_put(t->b, p, n);
}

void tk_tc_elem_struct(tk_tc *t) { push(t); }
