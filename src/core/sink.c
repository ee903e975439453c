/* Structured output rendered as JSON (one top-level value per line) or as
 * human text (documents, one-line records, aligned tables). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/sink.h>

#include "core/numfmt.h"
#include "core/sink_limit.h"
#include "core/strbuf.h"

/* First byte of a table cell holding a duration not rendered yet (its
 * column's unit is known only when the table is complete); "%a" follows.
 * Rendered text never starts with it: control bytes print as \xNN. */
#define RAW_SECONDS '\x01'

/* TK_SINK_ADDR without the TK_SINK_HEX bit it includes. */
#define ADDR_BIT (TK_SINK_ADDR & ~(unsigned)TK_SINK_HEX)
/* The largest magnitude a double holds exactly in every integer below it:
 * past it, --json-hex writes integers as strings. */
#define JSON_EXACT_MAX (UINT64_C(1) << 53)

/* What a table cell holds, for its column's alignment (a null is neither). */
enum { CELL_NULL = 0, CELL_TEXT = 1, CELL_NUMBER = 2 };

/* How a text container lays out what is put into it. */
enum mode {
    M_DOC,     /* object: "key: value" lines */
    M_PENDING, /* array in a document, contents not seen yet */
    M_INLINE,  /* object/array on one line: records, lists, table cells */
    M_TABLE,   /* array of objects: rows of a table */
    M_TROW     /* object that is a table row (or nested in one) */
};

/* Rows held before a table is printed: a longer table prints in blocks of
 * this many (memory stays flat with a million rows), the first block
 * fixing the header, the column widths and each duration column's unit
 * (a later cell wider than its column pushes the rest of its row). */
#define TABLE_BLOCK_ROWS 4096

/* A cell of a block: its text at offset + 1 into the block's `text` (0:
 * empty), with its length and display width (measured once, when set). */
typedef struct tcell {
    size_t off, len, width;
} tcell;

typedef struct table {
    size_t ncols, nrows, rowcap;
    char **names;
    size_t *width;
    unsigned char *seen;    /* per column, CELL_TEXT | CELL_NUMBER: only
                               numbers (and nulls) right-align */
    signed char *unit;      /* per column: its durations' unit, -1 until a
                               printed block had one */
    size_t next_col;        /* the column after the last one set: rows
                               usually set their columns in order */
    /* The block's cells, without a malloc each (a million-row table):
     * row r's are cells[rowstart[r] ...] (rowlen[r] of them, the columns
     * known when it was last set); only the last row grows. */
    size_t *rowstart, *rowlen;
    tcell *cells;
    size_t ncells, cellcap;
    tk_strbuf text;
    int printed;            /* a block (and the header) is out: widths fixed */
} table;

typedef struct frame {
    int is_array;
    int mode;
    uint64_t count;
    int indent;      /* M_DOC children / M_TABLE body */
    char *key;       /* M_PENDING: the array's key; M_INLINE cell: column */
    int closer;      /* M_INLINE: '}' or ']' or 0 for records and lists */
    int to_cell;     /* M_INLINE: the inline text ends in a table cell */
    table *tab;      /* M_TABLE (owned), M_TROW (borrowed) */
    size_t prefix;   /* M_TROW: length of the column-name prefix */
} frame;

struct tk_sink {
    FILE *fp;
    tk_sink_style style;
    int failed;
    tk_strbuf out;    /* pending output */
    tk_strbuf inl;    /* the current one-line text */
    tk_strbuf prefix; /* M_TROW column-name prefix ("a.b.") */
    tk_strbuf tmp;    /* a rendered scalar */
    tk_strbuf name;   /* a TK_SINK_ENUM value in snake_case */
    int json_hex;     /* tk_sink_set_json_hex */
    frame *st;
    size_t depth, cap;
    tk_limiter limit;
};

tk_sink *tk_sink_new(FILE *fp, tk_sink_style style, tk_error *err)
{
    tk_sink *s = calloc(1, sizeof *s);
    if (!s) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    s->fp = fp;
    s->style = style;
    tk_limiter_init(&s->limit);
    return s;
}

tk_sink_style tk_sink_get_style(const tk_sink *s) { return s->style; }

void tk_sink_set_json_hex(tk_sink *s, int on) { s->json_hex = on != 0; }

static void flush_out(tk_sink *s)
{
    if (s->out.len && fwrite(s->out.p, 1, s->out.len, s->fp) != s->out.len)
        s->failed = 1;
    sb_reset(&s->out);
}

static void maybe_flush(tk_sink *s)
{
    if (s->out.len >= (1u << 16))
        flush_out(s);
}

static void table_free_rows(table *t)
{
    t->nrows = 0;
    t->ncells = 0;
    t->text.len = 0;
}

static void table_free(table *t)
{
    if (!t)
        return;
    table_free_rows(t);
    for (size_t c = 0; c < t->ncols; c++)
        free(t->names[c]);
    free(t->rowstart);
    free(t->rowlen);
    free(t->cells);
    sb_free(&t->text);
    free(t->names);
    free(t->width);
    free(t->seen);
    free(t->unit);
    free(t);
}

tk_status tk_sink_finish(tk_sink *s, tk_error *err)
{
    flush_out(s);
    if (fflush(s->fp) != 0 || ferror(s->fp))
        s->failed = 1;
    if (s->out.oom || s->inl.oom || s->prefix.oom || s->tmp.oom || s->name.oom ||
        s->limit.oom)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                            "out of memory while formatting output");
    if (s->failed)
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                            "writing output failed");
    return TK_OK;
}

void tk_sink_free(tk_sink *s)
{
    if (!s)
        return;
    while (s->depth) {
        frame *f = &s->st[--s->depth];
        free(f->key);
        if (f->mode == M_TABLE)
            table_free(f->tab);
    }
    sb_free(&s->out);
    sb_free(&s->inl);
    sb_free(&s->prefix);
    sb_free(&s->tmp);
    sb_free(&s->name);
    tk_limiter_free(&s->limit);
    free(s->st);
    free(s);
}

static frame *push(tk_sink *s, int is_array, int mode)
{
    if (s->depth == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        frame *st = realloc(s->st, cap * sizeof *st);
        if (!st) {
            s->out.oom = 1;
            return NULL;
        }
        s->st = st;
        s->cap = cap;
    }
    frame *f = &s->st[s->depth++];
    memset(f, 0, sizeof *f);
    f->is_array = is_array;
    f->mode = mode;
    return f;
}

static frame *top(tk_sink *s) { return s->depth ? &s->st[s->depth - 1] : NULL; }

/* ------------------------------------------------------------------ JSON */

static void json_key(tk_sink *s, const char *key)
{
    frame *f = top(s);
    if (!f)
        return;
    if (f->count++)
        sb_putc(&s->out, ',');
    if (!f->is_array) {
        sb_json_str(&s->out, key ? key : "", key ? strlen(key) : 0);
        sb_putc(&s->out, ':');
    }
}

static void json_after_value(tk_sink *s)
{
    if (!s->depth) {
        sb_putc(&s->out, '\n');
        maybe_flush(s);
    }
}

/* ------------------------------------------------------------------ text */

static void text_indent(tk_strbuf *b, int n) { sb_pad(b, ' ', (size_t)n); }

/* Display width: UTF-8 continuation bytes (10xxxxxx) take no column.
 * Eight bytes at a time: a byte's top bit set and the next one clear
 * leaves its top bit in m, and the multiply adds the eight of them. */
static size_t text_width(const char *text, size_t len)
{
    const uint64_t top = 0x8080808080808080ULL;
    size_t cont = 0, i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t x;
        memcpy(&x, text + i, 8);
        uint64_t m = x & top & ~(x << 1);
        cont += (size_t)(((m >> 7) * 0x0101010101010101ULL) >> 56);
    }
    for (; i < len; i++)
        cont += ((unsigned char)text[i] & 0xC0) == 0x80;
    return len - cont;
}

static int table_column(tk_sink *s, table *t, const char *key)
{
    tk_strbuf *p = &s->prefix;
    size_t plen = p->len;
    const char *name = key ? key : "value";
    if (plen) { /* a nested object's field: "a.b.key" */
        sb_puts(p, name);
        name = p->p ? p->p : "";
    }
    for (size_t k = 0; k < t->ncols; k++) {
        size_t c = t->next_col + k; /* the expected one first (next_col <= ncols) */
        if (c >= t->ncols)
            c -= t->ncols;
        if (strcmp(t->names[c], name) == 0) {
            p->len = plen;
            t->next_col = c + 1;
            return (int)c;
        }
    }
    size_t n = t->ncols + 1;
    char **names = realloc(t->names, n * sizeof *names);
    if (names)
        t->names = names;
    size_t *width = realloc(t->width, n * sizeof *width);
    if (width)
        t->width = width;
    unsigned char *seen = realloc(t->seen, n);
    if (seen)
        t->seen = seen;
    signed char *unit = realloc(t->unit, n);
    if (unit)
        t->unit = unit;
    char *copy = strdup(name);
    p->len = plen;
    if (!names || !width || !seen || !unit || !copy) {
        free(copy);
        s->out.oom = 1;
        return -1;
    }
    t->names[t->ncols] = copy;
    /* At least 1: a missing cell prints as "-". */
    size_t w = text_width(copy, strlen(copy));
    t->width[t->ncols] = w ? w : 1;
    t->seen[t->ncols] = 0;
    t->unit[t->ncols] = -1;
    t->next_col = t->ncols + 1;
    return (int)t->ncols++;
}

/* A cell's text into the block's arena: its offset + 1, or 0 when out of
 * memory. */
static size_t table_text(tk_sink *s, table *t, const char *text, size_t len)
{
    size_t at = t->text.len;
    sb_putn(&t->text, text, len);
    sb_putc(&t->text, '\0');
    if (t->text.oom) {
        s->out.oom = 1;
        return 0;
    }
    return at + 1;
}

static void table_set(tk_sink *s, table *t, const char *key, const char *text,
                      size_t len, int kind)
{
    int c = table_column(s, t, key);
    if (c < 0 || t->nrows == 0)
        return;
    size_t r = t->nrows - 1;
    if ((size_t)c >= t->rowlen[r]) { /* the last row: its cells are at the end */
        size_t need = t->rowstart[r] + t->ncols;
        if (need > t->cellcap) {
            size_t cap = t->cellcap ? t->cellcap : 64;
            while (cap < need)
                cap *= 2;
            tcell *cells = realloc(t->cells, cap * sizeof *cells);
            if (!cells) {
                s->out.oom = 1;
                return;
            }
            t->cells = cells;
            t->cellcap = cap;
        }
        for (size_t i = t->ncells; i < need; i++)
            t->cells[i] = (tcell){0, 0, 0};
        t->ncells = need;
        t->rowlen[r] = t->ncols;
    }
    /* numbers are ASCII (a duration's unit comes in column_seconds) */
    size_t w = kind == CELL_NUMBER ? len : text_width(text, len);
    t->cells[t->rowstart[r] + (size_t)c] = (tcell){table_text(s, t, text, len), len, w};
    if (!t->printed) {
        if (w > t->width[c])
            t->width[c] = w;
        t->seen[c] |= (unsigned char)kind;
    }
}

static void table_print(tk_sink *s, table *t, int indent);

/* A new row; a full block is printed first (`indent`: the table's). */
static void table_add_row(tk_sink *s, table *t, int indent)
{
    if (t->nrows == TABLE_BLOCK_ROWS)
        table_print(s, t, indent);
    if (t->nrows == t->rowcap) {
        size_t cap = t->rowcap ? t->rowcap * 2 : 16;
        size_t *rowstart = realloc(t->rowstart, cap * sizeof *rowstart);
        if (rowstart)
            t->rowstart = rowstart;
        size_t *rowlen = realloc(t->rowlen, cap * sizeof *rowlen);
        if (rowlen)
            t->rowlen = rowlen;
        if (!rowstart || !rowlen) {
            s->out.oom = 1;
            return;
        }
        t->rowcap = cap;
    }
    t->rowstart[t->nrows] = t->ncells;
    t->rowlen[t->nrows++] = 0;
    t->next_col = 0;
}

/* Cell (r, c), NULL when empty. */
static const tcell *table_cell(const table *t, size_t r, size_t c)
{
    const tcell *x = c < t->rowlen[r] ? &t->cells[t->rowstart[r] + c] : NULL;
    return x && x->off ? x : NULL;
}

static const char *cell_text(const table *t, const tcell *x)
{
    return t->text.p + x->off - 1;
}

/* Render column c's durations in the unit its largest one reads best in,
 * and measure the column again. */
static void column_seconds(tk_sink *s, table *t, size_t c)
{
    double max = 0.0;
    int any = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        const tcell *x = table_cell(t, r, c);
        const char *text = x ? cell_text(t, x) : NULL;
        if (text && text[0] == RAW_SECONDS) {
            double v = fabs(strtod(text + 1, NULL));
            any = 1;
            if (isfinite(v) && v > max)
                max = v;
        }
    }
    if (!any)
        return;
    if (t->unit[c] < 0)
        t->unit[c] = (signed char)tk_num_duration_unit(max);
    int unit = t->unit[c];
    size_t width = text_width(t->names[c], strlen(t->names[c]));
    for (size_t r = 0; r < t->nrows; r++) {
        const tcell *x = table_cell(t, r, c);
        if (x && cell_text(t, x)[0] == RAW_SECONDS) {
            sb_reset(&s->tmp);
            tk_num_duration(&s->tmp, strtod(cell_text(t, x) + 1, NULL), unit);
            const char *v = s->tmp.p ? s->tmp.p : "";
            size_t off = table_text(s, t, v, s->tmp.len);
            if (!off)
                return;
            /* the old text stays till the block ends */
            t->cells[t->rowstart[r] + c] = (tcell){off, s->tmp.len, text_width(v, s->tmp.len)};
            x = table_cell(t, r, c);
        }
        size_t w = x ? x->width : 1; /* "-" */
        if (w > width)
            width = w;
    }
    if (!t->printed)
        t->width[c] = width ? width : 1;
}

/* Spaces at o[k, k + n): 8 at a store (the row's room has 8 to spare). */
static size_t put_spaces(char *o, size_t k, size_t n)
{
    static const char eight[8] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
    for (size_t i = 0; i < n; i += 8)
        memcpy(o + k + i, eight, 8);
    return k + n;
}

/* Row r of the block (0: the header) into `o`, whose room it has: each
 * cell padded to its column's width, numbers to the right. */
static void table_row(const table *t, size_t r, int indent, tk_strbuf *o)
{
    size_t k = put_spaces(o->p, o->len, (size_t)indent), line_start = k;
    for (size_t c = 0; c < t->ncols; c++) {
        const tcell *x = r ? table_cell(t, r - 1, c) : NULL;
        const char *cell = r == 0 ? t->names[c] : x ? cell_text(t, x) : "-";
        size_t len = x ? x->len : strlen(cell), cw = x ? x->width : text_width(cell, len);
        size_t pad = t->width[c] > cw ? t->width[c] - cw : 0;
        if (c)
            k = put_spaces(o->p, k, 2);
        if (t->seen[c] == CELL_NUMBER)
            k = put_spaces(o->p, k, pad);
        memcpy(o->p + k, cell, len);
        k += len;
        if (t->seen[c] != CELL_NUMBER && c + 1 < t->ncols)
            k = put_spaces(o->p, k, pad);
    }
    while (k > line_start && o->p[k - 1] == ' ')
        k--;
    o->p[k++] = '\n';
    o->p[k] = '\0';
    o->len = k;
}

/* The bytes row r takes at most (table_row's room). */
static size_t row_room(const table *t, size_t r, int indent)
{
    size_t n = (size_t)indent + 8 + 2 * t->ncols;
    for (size_t c = 0; c < t->ncols; c++) {
        const tcell *x = r ? table_cell(t, r - 1, c) : NULL;
        size_t len = r == 0 ? strlen(t->names[c]) : x ? x->len : 1;
        n += len + t->width[c] + 8; /* the text, its padding, a store's spill */
    }
    return n;
}

/* Print the rows held (after the header, for the first block) and let them
 * go. */
static void table_print(tk_sink *s, table *t, int indent)
{
    tk_strbuf *o = &s->out;
    for (size_t c = 0; c < t->ncols; c++)
        column_seconds(s, t, c);
    for (size_t r = t->printed ? 1 : 0; r <= t->nrows; r++) { /* r == 0: the header */
        if (sb_reserve(o, row_room(t, r, indent)) != 0)
            break; /* out of memory: o->oom says so */
        table_row(t, r, indent, o);
        maybe_flush(s);
    }
    table_free_rows(t);
    t->printed = 1;
}

/* Put a rendered scalar (in s->tmp) into the current text container. */
static void text_scalar(tk_sink *s, const char *key, unsigned flags, int kind)
{
    frame *f = top(s);
    const char *v = s->tmp.p ? s->tmp.p : "";
    size_t n = s->tmp.len;
    if (!f) {
        sb_putn(&s->out, v, n);
        sb_putc(&s->out, '\n');
        maybe_flush(s);
        return;
    }
    switch (f->mode) {
    case M_DOC:
        text_indent(&s->out, f->indent);
        sb_puts(&s->out, key ? key : "");
        sb_puts(&s->out, ": ");
        sb_putn(&s->out, v, n);
        sb_putc(&s->out, '\n');
        maybe_flush(s);
        break;
    case M_PENDING: /* an array of scalars: "key: a, b, c" */
        f->mode = M_INLINE;
        sb_reset(&s->inl);
        text_indent(&s->inl, f->indent);
        if (f->key) {
            sb_puts(&s->inl, f->key);
            sb_puts(&s->inl, ": ");
        }
        f->closer = ',';
        sb_putn(&s->inl, v, n);
        break;
    case M_INLINE:
        if (f->count)
            sb_puts(&s->inl, f->closer == ',' ? ", " : f->is_array ? "," : " ");
        if (!f->is_array && !(flags & TK_SINK_BARE)) {
            sb_puts(&s->inl, key ? key : "");
            sb_putc(&s->inl, '=');
        }
        sb_putn(&s->inl, v, n);
        break;
    case M_TABLE: /* a scalar among rows: a row of its own */
        table_add_row(s, f->tab, f->indent);
        table_set(s, f->tab, NULL, v, n, kind);
        break;
    case M_TROW:
        table_set(s, f->tab, key, v, n, kind);
        break;
    }
    f->count++;
}

static void text_begin(tk_sink *s, const char *key, int is_array, int record)
{
    frame *f = top(s);
    int parent_mode = f ? f->mode : -1;
    if (parent_mode == M_PENDING) {
        if (!is_array) { /* an array of objects: a table */
            f->mode = M_TABLE;
            f->tab = calloc(1, sizeof *f->tab);
            if (!f->tab)
                s->out.oom = 1;
            if (f->key) {
                text_indent(&s->out, f->indent);
                sb_puts(&s->out, f->key);
                sb_puts(&s->out, ":\n");
                f->indent += 2;
            }
        } else { /* array of arrays: one line */
            f->mode = M_INLINE;
            f->closer = ',';
            sb_reset(&s->inl);
            text_indent(&s->inl, f->indent);
            if (f->key) {
                sb_puts(&s->inl, f->key);
                sb_puts(&s->inl, ": ");
            }
        }
        parent_mode = f->mode;
    }
    if (f)
        f->count++;
    frame parent = f ? *f : (frame){0};
    frame *n = push(s, is_array, M_DOC);
    if (!n)
        return;
    switch (parent_mode) {
    case -1:
        if (record) {
            n->mode = M_INLINE;
            sb_reset(&s->inl);
        } else if (is_array) {
            n->mode = M_PENDING;
        }
        break;
    case M_DOC:
        if (is_array) {
            n->mode = M_PENDING;
            n->indent = parent.indent;
            n->key = key ? strdup(key) : NULL;
        } else {
            text_indent(&s->out, parent.indent);
            sb_puts(&s->out, key ? key : "");
            sb_puts(&s->out, ":\n");
            n->indent = parent.indent + 2;
        }
        break;
    case M_INLINE:
        if (parent.count > 1)
            sb_puts(&s->inl, parent.closer == ',' ? ", " : parent.is_array ? "," : " ");
        if (!parent.is_array && key) {
            sb_puts(&s->inl, key);
            sb_putc(&s->inl, '=');
        }
        sb_putc(&s->inl, is_array ? '[' : '{');
        n->mode = M_INLINE;
        n->closer = is_array ? ']' : '}';
        break;
    case M_TABLE:
        if (is_array) { /* an array as a row: one cell */
            table_add_row(s, parent.tab, parent.indent);
            n->mode = M_INLINE;
            n->to_cell = 1;
            n->tab = parent.tab;
            sb_reset(&s->inl);
        } else {
            table_add_row(s, parent.tab, parent.indent);
            n->mode = M_TROW;
            n->tab = parent.tab;
            n->prefix = s->prefix.len = 0;
        }
        break;
    case M_TROW:
        n->tab = parent.tab;
        if (is_array) {
            n->mode = M_INLINE;
            n->to_cell = 1;
            n->key = key ? strdup(key) : NULL;
            sb_reset(&s->inl);
        } else {
            n->mode = M_TROW;
            n->prefix = s->prefix.len;
            sb_puts(&s->prefix, key ? key : "");
            sb_putc(&s->prefix, '.');
        }
        break;
    }
}

static void text_end(tk_sink *s)
{
    frame f = *top(s);
    s->depth--;
    frame *parent = top(s);
    switch (f.mode) {
    case M_PENDING: /* empty array */
        if (f.key) {
            text_indent(&s->out, f.indent);
            sb_puts(&s->out, f.key);
            sb_puts(&s->out, ": (none)\n");
        }
        break;
    case M_INLINE:
        if (f.closer == '}' || f.closer == ']') {
            sb_putc(&s->inl, (char)f.closer);
            break;
        }
        if (f.to_cell) {
            if (parent && parent->mode == M_TROW) {
                char *cell = sb_strdup(&s->inl);
                if (cell)
                    table_set(s, f.tab, f.key, cell, strlen(cell), CELL_TEXT);
                free(cell);
            } else {
                table_set(s, f.tab, NULL, s->inl.p ? s->inl.p : "", s->inl.len, CELL_TEXT);
            }
        } else {
            sb_putn(&s->out, s->inl.p ? s->inl.p : "", s->inl.len);
            sb_putc(&s->out, '\n');
            maybe_flush(s);
        }
        sb_reset(&s->inl);
        break;
    case M_TABLE:
        table_print(s, f.tab, f.indent);
        table_free(f.tab);
        break;
    case M_TROW:
        s->prefix.len = f.prefix;
        break;
    default:
        break;
    }
    free(f.key);
}

/* ------------------------------------------------------------- dispatch */

static void begin(tk_sink *s, const char *key, int is_array, int record)
{
    if (tk_limiter_begin(&s->limit, s->depth))
        return;
    if (s->style == TK_SINK_JSON) {
        json_key(s, key);
        sb_putc(&s->out, is_array ? '[' : '{');
        push(s, is_array, M_DOC);
    } else {
        text_begin(s, key, is_array, record);
    }
}

static void end(tk_sink *s)
{
    if (tk_limiter_end(&s->limit) || !s->depth)
        return;
    if (s->style == TK_SINK_JSON) {
        frame *f = top(s);
        sb_putc(&s->out, f->is_array ? ']' : '}');
        s->depth--;
        json_after_value(s);
    } else {
        text_end(s);
    }
}

void tk_sink_object_begin(tk_sink *s, const char *key) { begin(s, key, 0, 0); }
void tk_sink_object_end(tk_sink *s) { end(s); }
void tk_sink_array_begin(tk_sink *s, const char *key) { begin(s, key, 1, 0); }
void tk_sink_array_end(tk_sink *s) { end(s); }
void tk_sink_record_begin(tk_sink *s) { begin(s, NULL, 0, 1); }
void tk_sink_record_end(tk_sink *s) { end(s); }

/* A scalar: JSON text goes straight out, human text via s->tmp. */
#define SCALAR(json_render, text_render, kind)                               \
    do {                                                                     \
        if (s->style == TK_SINK_JSON) {                                      \
            json_key(s, key);                                                \
            tk_strbuf *b = &s->out;                                          \
            json_render;                                                     \
            json_after_value(s);                                             \
        } else {                                                             \
            tk_strbuf *b = &s->tmp;                                          \
            sb_reset(b);                                                     \
            text_render;                                                     \
            text_scalar(s, key, flags, kind);                                \
        }                                                                    \
    } while (0)

/* Scalars of a value dropped by tk_sink_limit are not rendered. */
static int dropping(const tk_sink *s) { return s->limit.depth != 0; }

/* A JSON integer of magnitude `mag`: a number, or with --json-hex a
 * "0x..." string for an address or past what a double holds exactly. */
static void json_int(const tk_sink *s, tk_strbuf *b, uint64_t mag, int negative,
                     unsigned flags)
{
    if (s->json_hex && ((flags & ADDR_BIT) || mag > JSON_EXACT_MAX)) {
        sb_puts(b, negative ? "\"-" : "\"");
        sb_hex(b, mag);
        sb_putc(b, '"');
    } else if (negative) {
        sb_putc(b, '-');
        sb_u64(b, mag);
    } else {
        sb_u64(b, mag);
    }
}

void tk_sink_u64(tk_sink *s, const char *key, uint64_t v, unsigned flags)
{
    if (dropping(s))
        return;
    SCALAR(json_int(s, b, v, 0, flags), (flags & TK_SINK_HEX) ? sb_hex(b, v) : sb_u64(b, v),
           CELL_NUMBER);
}

void tk_sink_i64(tk_sink *s, const char *key, int64_t v)
{
    unsigned flags = 0;
    if (dropping(s))
        return;
    uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    SCALAR(json_int(s, b, mag, v < 0, flags), sb_i64(b, v), CELL_NUMBER);
}

/* Text for a double: fixed notation; a duration in a table cell waits for
 * its column's unit. */
static void text_f64(tk_sink *s, tk_strbuf *b, double v, unsigned flags)
{
    const frame *f = top(s);
    if (flags & TK_SINK_PERCENT) {
        tk_num_percent(b, v);
    } else if (!(flags & TK_SINK_SECONDS)) {
        tk_num_plain(b, v);
    } else if (f && (f->mode == M_TROW || f->mode == M_TABLE)) {
        sb_putc(b, RAW_SECONDS);
        sb_printf(b, "%a", v);
    } else {
        tk_num_duration(b, v, tk_num_duration_unit(fabs(v)));
    }
}

void tk_sink_f64_flags(tk_sink *s, const char *key, double v, unsigned flags)
{
    char bare[64]; /* text: a duration's key without its "_s" */
    if (dropping(s))
        return;
    size_t n = key ? strlen(key) : 0;
    if (s->style == TK_SINK_TEXT && (flags & TK_SINK_SECONDS) && n > 2 && n < sizeof bare &&
        strcmp(key + n - 2, "_s") == 0) {
        memcpy(bare, key, n - 2);
        bare[n - 2] = '\0';
        key = bare;
    }
    SCALAR(sb_f64(b, v), text_f64(s, b, v, flags), CELL_NUMBER);
}

void tk_sink_f64(tk_sink *s, const char *key, double v)
{
    tk_sink_f64_flags(s, key, v, 0);
}

void tk_sink_bool(tk_sink *s, const char *key, int v)
{
    unsigned flags = 0;
    if (dropping(s))
        return;
    SCALAR(sb_puts(b, v ? "true" : "false"), sb_puts(b, v ? "yes" : "no"), CELL_TEXT);
}

void tk_sink_null(tk_sink *s, const char *key)
{
    unsigned flags = 0;
    if (dropping(s))
        return;
    SCALAR(sb_puts(b, "null"), sb_puts(b, "-"), CELL_NULL);
}

/* A TK_SINK_ENUM value in snake_case, in s->name. */
static const char *snake(tk_sink *s, const char *v, size_t len)
{
    sb_reset(&s->name);
    for (size_t i = 0; i < len; i++)
        sb_putc(&s->name, tk_snake_char(v[i]));
    return s->name.p ? s->name.p : "";
}

/* A string member of a dropped value: nothing to render, only its group
 * to note (1), or 0 when the value is not dropped. */
static int drop_str(tk_sink *s, const char *key, const char *v, size_t len,
                    unsigned flags)
{
    if (!dropping(s))
        return 0;
    if (tk_limiter_is_group(&s->limit, key))
        tk_limiter_str(&s->limit, v, len, (flags & TK_SINK_ENUM) != 0);
    return 1;
}

void tk_sink_str(tk_sink *s, const char *key, const char *v, size_t len,
                 unsigned flags)
{
    if (drop_str(s, key, v, len, flags))
        return;
    if (flags & TK_SINK_ENUM) {
        v = snake(s, v, len);
        len = s->name.len;
    }
    SCALAR(sb_json_str(b, v, len), sb_text_str(b, v, len, !(flags & TK_SINK_BARE)),
           CELL_TEXT);
}

void tk_sink_cstr(tk_sink *s, const char *key, const char *v, unsigned flags)
{
    /* not even a strlen for a dropped value's member */
    if (dropping(s) && !tk_limiter_is_group(&s->limit, key))
        return;
    tk_sink_str(s, key, v ? v : "", v ? strlen(v) : 0, flags);
}

void tk_sink_limit(tk_sink *s, uint64_t max, const char *group_key)
{
    tk_limiter_start(&s->limit, max, group_key);
}

void tk_sink_limit_end(tk_sink *s) { tk_limiter_stop(&s->limit); }

int tk_sink_dropped(const tk_sink *s, size_t i, const char **group, uint64_t *count)
{
    return tk_limiter_group(&s->limit, i, group, count);
}
