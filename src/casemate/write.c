/* casemate writer: the canonical keyword form and the compact positional
 * form, one record per line, through a buffer. */
#include <stdlib.h>
#include <string.h>

#include "casemate/casemate_int.h"

#define WRITE_BUFFER ((size_t)1 << 18)

struct tk_casemate_writer {
    FILE *out;
    tk_casemate_style style;
    size_t len;
    char buf[WRITE_BUFFER];
};

/* ---------------------------------------------------------------- text */

/* Output into `p`: at most `cap` bytes are stored, `n` counts them all. */
typedef struct em {
    char *p;
    size_t n, cap;
} em;

static inline void put(em *e, const char *s, size_t len)
{
    if (e->n < e->cap) {
        size_t k = e->cap - e->n < len ? e->cap - e->n : len;
        memcpy(e->p + e->n, s, k);
    }
    e->n += len;
}

#define PUTS(e, lit) put(e, lit, sizeof lit - 1)

static inline void put_str(em *e, const char *s) { put(e, s, strlen(s)); }

static void put_hex(em *e, uint64_t v, int prefix)
{
    char b[18];
    size_t i = sizeof b;
    do {
        b[--i] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    if (prefix) {
        b[--i] = 'x';
        b[--i] = '0';
    }
    put(e, b + i, sizeof b - i);
}

static void put_dec(em *e, uint64_t v)
{
    char b[20];
    size_t i = sizeof b;
    do {
        b[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(e, b + i, sizeof b - i);
}

/* One field: " (key 0xV)" or " V". */
static void field_hex(em *e, int kw, const char *key, uint64_t v)
{
    if (kw) {
        PUTS(e, " (");
        put_str(e, key);
        PUTS(e, " ");
        put_hex(e, v, 1);
        PUTS(e, ")");
    } else {
        PUTS(e, " ");
        put_hex(e, v, 0);
    }
}

static void field_word(em *e, int kw, const char *key, const char *word)
{
    if (kw) {
        PUTS(e, " (");
        put_str(e, key);
        PUTS(e, " ");
        put_str(e, word);
        PUTS(e, ")");
    } else {
        PUTS(e, " ");
        put_str(e, word);
    }
}

static void encode(em *e, const tk_casemate_record *r, tk_casemate_style style)
{
    int kw = style == TK_CASEMATE_KEYWORD;
    PUTS(e, "(");
    put_str(e, tk_casemate_kind_name(r->kind));
    if (kw) {
        PUTS(e, " (id ");
        put_dec(e, r->id);
        PUTS(e, ") (tid ");
        put_dec(e, r->tid);
        PUTS(e, ")");
    } else {
        PUTS(e, " ");
        put_dec(e, r->id);
        PUTS(e, " ");
        put_dec(e, r->tid);
    }
    switch (r->kind) {
    case TK_CASEMATE_MEM_WRITE:
        field_word(e, kw, "mem-order", tk_casemate_mem_order_name(r->mem_order));
        field_hex(e, kw, "address", r->address);
        field_hex(e, kw, "value", r->value);
        break;
    case TK_CASEMATE_MEM_READ:
        field_hex(e, kw, "address", r->address);
        field_hex(e, kw, "value", r->value);
        break;
    case TK_CASEMATE_MEM_INIT:
    case TK_CASEMATE_MEM_FREE:
        field_hex(e, kw, "address", r->address);
        field_hex(e, kw, "size", r->size);
        break;
    case TK_CASEMATE_MEM_SET:
        field_hex(e, kw, "address", r->address);
        field_hex(e, kw, "size", r->size);
        field_hex(e, kw, "value", r->value);
        break;
    case TK_CASEMATE_SYSREG_WRITE:
        field_word(e, kw, "sysreg", tk_casemate_sysreg_name(r->sysreg));
        field_hex(e, kw, "value", r->value);
        break;
    case TK_CASEMATE_BARRIER:
        if (r->barrier == TK_CASEMATE_ISB) {
            PUTS(e, " isb");
        } else {
            PUTS(e, " dsb");
            /* "dsb ish" -> the domain */
            field_word(e, kw, "kind", tk_casemate_barrier_name(r->barrier) + 4);
        }
        break;
    case TK_CASEMATE_TLBI:
        PUTS(e, " ");
        put_str(e, tk_casemate_tlbi_name(r->tlbi));
        if (r->tlbi_operand == TK_CASEMATE_OPERAND_VALUE) {
            field_hex(e, kw, "value", r->value);
        } else if (r->tlbi_operand == TK_CASEMATE_OPERAND_ADDR_LEVEL) {
            /* keyword in both forms: positional would read as a value */
            field_hex(e, 1, "addr", r->address);
            field_hex(e, 1, "level", r->level);
        }
        break;
    case TK_CASEMATE_HINT:
        field_word(e, kw, "kind", tk_casemate_hint_name(r->hint));
        field_hex(e, kw, "location", r->location);
        field_hex(e, kw, "value", r->value);
        break;
    case TK_CASEMATE_LOCK:
    case TK_CASEMATE_TRYLOCK:
    case TK_CASEMATE_UNLOCK:
        field_hex(e, kw, "address", r->address);
        break;
    default:
        break;
    }
    if (r->src_kind != TK_CASEMATE_SRC_NONE) {
        if (kw)
            PUTS(e, " (src ");
        else
            PUTS(e, " ");
        if (r->src_kind == TK_CASEMATE_SRC_INT) {
            put_dec(e, r->src_int);
        } else {
            PUTS(e, "\"");
            if (r->src_len)
                put(e, r->src, r->src_len);
            PUTS(e, "\"");
        }
        if (kw)
            PUTS(e, ")");
    }
    PUTS(e, ")");
}

size_t tk_casemate_format(const tk_casemate_record *rec, tk_casemate_style style,
                          char *buf, size_t size)
{
    em e = {buf, 0, size ? size - 1 : 0};
    encode(&e, rec, style);
    if (size)
        buf[e.n < size - 1 ? e.n : size - 1] = '\0';
    return e.n;
}

/* ---------------------------------------------------------------- writer */

tk_casemate_writer *tk_casemate_writer_new(FILE *out, tk_casemate_style style,
                                           tk_error *err)
{
    if (style != TK_CASEMATE_KEYWORD && style != TK_CASEMATE_COMPACT) {
        tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                     "unknown casemate writer style %d", (int)style);
        return NULL;
    }
    tk_casemate_writer *w = malloc(sizeof *w);
    if (!w) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    w->out = out;
    w->style = style;
    w->len = 0;
    return w;
}

tk_status tk_casemate_writer_flush(tk_casemate_writer *w, tk_error *err)
{
    size_t len = w->len;
    w->len = 0;
    if (len && fwrite(w->buf, 1, len, w->out) != len)
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                            "writing casemate output failed");
    return TK_OK;
}

/* Room for `need` bytes in the buffer, flushing first if need be. */
static tk_status room(tk_casemate_writer *w, size_t need, tk_error *err)
{
    return w->len + need > WRITE_BUFFER ? tk_casemate_writer_flush(w, err) : TK_OK;
}

tk_status tk_casemate_write(tk_casemate_writer *w, const tk_casemate_record *rec,
                            tk_error *err)
{
    const char *problem = tk_casemate_record_problem(rec);
    if (problem)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "cannot write casemate record: %s", problem);
    size_t src = rec->src_kind == TK_CASEMATE_SRC_STRING ? rec->src_len : 0;
    size_t need = TK_CASEMATE_FORMAT_MAX + 1 + src;
    if (need > WRITE_BUFFER) { /* a huge src: format it on its own */
        tk_status st = tk_casemate_writer_flush(w, err);
        if (st != TK_OK)
            return st;
        char *tmp = malloc(need);
        if (!tmp)
            return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        em e = {tmp, 0, need};
        encode(&e, rec, w->style);
        tmp[e.n++] = '\n';
        size_t wrote = fwrite(tmp, 1, e.n, w->out);
        free(tmp);
        if (wrote != e.n)
            return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                                "writing casemate output failed");
        return TK_OK;
    }
    tk_status st = room(w, need, err);
    if (st != TK_OK)
        return st;
    em e = {w->buf + w->len, 0, need};
    encode(&e, rec, w->style);
    w->buf[w->len + e.n] = '\n';
    w->len += e.n + 1;
    return TK_OK;
}

tk_status tk_casemate_write_expected(tk_casemate_writer *w, const char *text,
                                     size_t len, tk_error *err)
{
    if (len && (!text || memchr(text, '\n', len)))
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "the expected-result text must be one line");
    tk_status st = room(w, 3, err);
    if (st != TK_OK)
        return st;
    memcpy(w->buf + w->len, len ? "! " : "!", len ? 2 : 1);
    w->len += len ? 2 : 1;
    while (len) {
        if (w->len == WRITE_BUFFER && (st = tk_casemate_writer_flush(w, err)) != TK_OK)
            return st;
        size_t k = WRITE_BUFFER - w->len < len ? WRITE_BUFFER - w->len : len;
        memcpy(w->buf + w->len, text, k);
        w->len += k;
        text += k;
        len -= k;
    }
    if (w->len == WRITE_BUFFER && (st = tk_casemate_writer_flush(w, err)) != TK_OK)
        return st;
    w->buf[w->len++] = '\n';
    return TK_OK;
}

tk_status tk_casemate_writer_free(tk_casemate_writer *w, tk_error *err)
{
    if (!w)
        return TK_OK;
    tk_status st = tk_casemate_writer_flush(w, err);
    free(w);
    return st;
}
