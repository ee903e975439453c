/* casemate reader: a hand-written lexer over input windows.
 *
 * Records are parsed straight out of the window (src strings point into
 * it). A record that runs past the window's end is parsed again from its
 * start once the window has been refilled to twice the size, so records of
 * any length read with no copying and no allocation; between records the
 * reader hands its position back to the input, so memory stays flat. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casemate/casemate_int.h"
#include "core/cursor.h"
#include "core/select.h"
#include "core/truncation.h"

/* Bytes asked for at the start (the cursor then uses up to 4 MiB). */
#define PEEK ((size_t)1 << 16)

struct tk_casemate_reader {
    tk_cursor cur;
    int eof;           /* the window ends where the input ends */
    int failed, done;
    int in_comment;    /* stopped between records inside a ; comment */
    uint64_t line;     /* 1-based line at cur.p */
    uint64_t ls;       /* offset of that line's first byte */
    uint64_t rec_line, rec_col, rec_off, rec_index, next_index;
    char *expected;    /* text of the '!' line, NUL-terminated */
    size_t expected_len;
    uint64_t expected_line;
    tk_selection *sel; /* our copy; NULL: every record */
};

/* ---------------------------------------------------------------- bytes */

enum {
    C_WS = 1,      /* blank: space, tab, CR, VT, FF, newline */
    C_DELIM = 2,   /* ends a word: blanks, brackets, ';', '"' */
    C_SEMI = 4     /* ';' starts a comment */
};

static const uint8_t cls[256] = {
    [' '] = C_WS | C_DELIM, ['\t'] = C_WS | C_DELIM, ['\r'] = C_WS | C_DELIM,
    ['\v'] = C_WS | C_DELIM, ['\f'] = C_WS | C_DELIM, ['\n'] = C_WS | C_DELIM,
    ['('] = C_DELIM, [')'] = C_DELIM, ['"'] = C_DELIM, [';'] = C_DELIM | C_SEMI,
};

/* Hex digit value + 1; 0 = not a hex digit. */
static const uint8_t hexv[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7,
    ['7'] = 8, ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13,
    ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13,
    ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* ---------------------------------------------------------------- lexer */

/* Parsing state of one record attempt. */
typedef struct lx {
    const uint8_t *p, *end, *win;
    uint64_t win_off;      /* input offset of win[0] */
    uint64_t line, ls;     /* line at p, offset of its first byte */
    int eof;               /* end is the end of the input */
    uint64_t index;        /* of the record */
    tk_error *err;
} lx;

enum { OK = 0, MORE = 1, BAD = -1 };

/* Out-of-line helpers take the state by value and hand it back with their
 * result: its address never escapes, so the per-record path keeps it in
 * registers instead of storing and reloading the position per byte. */
typedef struct lxr {
    lx L;
    int rc;
} lxr;

/* The lexer's small functions make up the per-record path: inline them. */
#if defined(__GNUC__)
#define HOT static inline __attribute__((always_inline))
#else
#define HOT static inline
#endif

#define TRY(x)                                                               \
    do {                                                                     \
        int rc_ = (x);                                                       \
        if (rc_ != OK)                                                       \
            return rc_;                                                      \
    } while (0)

static inline uint64_t off_of(const lx *L, const uint8_t *p)
{
    return L->win_off + (uint64_t)(p - L->win);
}

/* What is at `at`, for messages: 'word' (shortened, escaped), '(' ... */
static void describe(const uint8_t *at, const uint8_t *end, char *buf, size_t size)
{
    if (at >= end) {
        snprintf(buf, size, "end of input");
        return;
    }
    if (*at == '"') {
        snprintf(buf, size, "a string");
        return;
    }
    size_t n = 0, len = 0;
    int more = 0;
    buf[n++] = '\'';
    if (cls[*at] & C_DELIM) {
        len = 1;
    } else {
        while (at + len < end && !(cls[at[len]] & C_DELIM)) {
            if (len == 40) {
                more = 1;
                break;
            }
            len++;
        }
    }
    for (size_t i = 0; i < len; i++) {
        if (n + 8 >= size) { /* no room for more escapes */
            more = 1;
            break;
        }
        uint8_t c = at[i];
        if (c >= 0x20 && c < 0x7F && c != '\\' && c != '\'')
            buf[n++] = (char)c;
        else if (c == '\n')
            n += (size_t)snprintf(buf + n, size - n, "\\n");
        else
            n += (size_t)snprintf(buf + n, size - n, "\\x%02x", c);
    }
    if (more && n + 5 < size) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n++] = '\'';
    buf[n] = '\0';
}

#if defined(__GNUC__)
__attribute__((cold, noinline, format(printf, 3, 4)))
#endif
static int fail(lx L, const uint8_t *at, const char *fmt, ...)
{
    char msg[sizeof L.err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tk_error_set_text(L.err, TK_EMALFORMED, L.line, off_of(&L, at) - L.ls + 1,
                      L.index, "%s", msg);
    return BAD;
}

#if defined(__GNUC__)
__attribute__((cold, noinline))
#endif
static int expected(lx L, const uint8_t *at, const char *what)
{
    char got[64];
    describe(at, L.end, got, sizeof got);
    return fail(L, at, "expected %s, got %s", what, got);
}

/* Reaching the end of the window: more input may follow. */
#define AT_END(L) ((L)->eof ? OK : MORE)

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static lxr ws_slow(lx L)
{
    const uint8_t *p = L.p, *end = L.end;
    for (;;) {
        if (p == end) {
            L.p = p;
            return (lxr){L, AT_END(&L)};
        }
        uint8_t c = *p;
        if (c == '\n') {
            p++;
            L.line++;
            L.ls = off_of(&L, p);
        } else if (cls[c] & C_WS) {
            p++;
        } else if (c == ';') {
            const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
            p = nl ? nl : end;
        } else {
            L.p = p;
            return (lxr){L, OK};
        }
    }
}

/* Run an out-of-line helper on *L: state in, state and result out. */
#define CALL(L, call)                                                        \
    do {                                                                     \
        lxr r_ = (call);                                                     \
        *(L) = r_.L;                                                         \
        if (r_.rc != OK)                                                     \
            return r_.rc;                                                    \
    } while (0)

/* Skip blanks, newlines and comments. At the end of the window: MORE, or
 * OK at the end of the input. */
HOT int ws(lx *L)
{
    const uint8_t *p = L->p;
    if (p < L->end && *p == ' ')
        p++;
    L->p = p;
    if (p < L->end && !(cls[*p] & (C_WS | C_SEMI)))
        return OK;
    CALL(L, ws_slow(*L));
    return OK;
}

/* The next byte, -1 at the end (call after ws). */
HOT int peekc(const lx *L)
{
    return L->p < L->end ? *L->p : -1;
}

/* A word: the bytes up to a delimiter (possibly none). */
HOT int word(lx *L, const uint8_t **w, size_t *n)
{
    const uint8_t *p = L->p, *end = L->end;
    while (p < end && !(cls[*p] & C_DELIM))
        p++;
    if (p == end && !L->eof)
        return MORE;
    *w = L->p;
    *n = (size_t)(p - L->p);
    L->p = p;
    return OK;
}

/* Bytes p[0..7] with p[0] lowest (one load on little-endian hosts). */
HOT uint64_t le64(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
           (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
           (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

/* The first n (0..8) bytes of an le64 value. */
HOT uint64_t low_le(size_t n)
{
    return n >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * n)) - 1;
}

/* Do the bytes at `p` (16 readable) start with `pat`, a word of k < 15
 * bytes and a space, zero-padded to 16 bytes? Two 8-byte compares. */
HOT int word_match(const uint8_t *p, const char *pat, size_t k)
{
    uint64_t a = le64(p), w = le64((const uint8_t *)pat);
    if (k + 1 <= 8)
        return ((a ^ w) & low_le(k + 1)) == 0;
    return a == w && ((le64(p + 8) ^ le64((const uint8_t *)pat + 8)) & low_le(k + 1 - 8)) == 0;
}

/* tk_casemate_lookup, inline: the enumeration words are on the per-record path. */
HOT int lookup(const tk_casemate_words *t, const uint8_t *w, size_t n)
{
    for (size_t i = 0; i < t->n; i++) {
        const tk_casemate_word *e = &t->v[i];
        if (e->len == n && n && (uint8_t)e->s[0] == w[0]) {
            size_t k = 1;
            while (k < n && (uint8_t)e->s[k] == w[k])
                k++;
            if (k == n)
                return e->value;
        }
    }
    return tk_casemate_lookup(t, w, n); /* other spellings (case) */
}

/* ---------------------------------------------------------------- fields */

typedef struct field {
    char pat[16];          /* "key " zero-padded, for word_match */
    const char *key;
    uint8_t keylen;
    const char *alias;     /* another key for the same field, or NULL */
    uint8_t aliaslen;
    const char *what;      /* "the address (a hex number)", or NULL: */
    const tk_casemate_words *words; /* the words of an enumeration field */
} field;

static const char *field_what(const field *f)
{
    return f->what ? f->what : f->words->what;
}

#define FIELD(k, a, what) FIELD_W(k, a, what, NULL)
#define FIELD_W(k, a, what, words)                                           \
    {k " ", k, (uint8_t)(sizeof k - 1), a, (uint8_t)(a ? sizeof a - 1 : 0), what, words}
static const field F_ID = FIELD("id", NULL, "the id (a decimal number)");
static const field F_TID = FIELD("tid", "thread", "the thread id (a decimal number)");
static const field F_ORDER = FIELD_W("mem-order", NULL, NULL, &tk_casemate_mem_orders);
static const field F_ADDRESS = FIELD("address", NULL, "the address (a hex number)");
static const field F_VALUE = FIELD("value", NULL, "the value (a hex number)");
static const field F_SIZE = FIELD("size", NULL, "the size (a hex number)");
static const field F_SYSREG = FIELD_W("sysreg", NULL, NULL, &tk_casemate_sysregs);
static const field F_DSB = FIELD_W("kind", NULL, NULL, &tk_casemate_dsb_kinds);
static const field F_HINT = FIELD_W("kind", NULL, NULL, &tk_casemate_hints);
static const field F_LOCATION = FIELD("location", NULL, "the location (a hex number)");
static const field F_ADDR = FIELD("addr", NULL, "the TLBI address (a hex number)");
static const field F_LEVEL = FIELD("level", NULL, "the TLBI level (a hex number)");
static const field F_SRC = FIELD("src", NULL, "the src (a string or a decimal number)");


static int key_is(const uint8_t *w, size_t n, const char *key, size_t keylen)
{
    if (n != keylen)
        return 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = w[i];
        if (c >= 'A' && c <= 'Z')
            c = (uint8_t)(c + ('a' - 'A'));
        if (c != (uint8_t)key[i])
            return 0;
    }
    return 1;
}

static int field_key_is(const field *f, const uint8_t *w, size_t n)
{
    return key_is(w, n, f->key, f->keylen) ||
           (f->alias && key_is(w, n, f->alias, f->aliaslen));
}

/* After '(' of a keyword field, not written as "key " in lower case. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static lxr key_slow(lx L, const field *f)
{
    const uint8_t *w = NULL;
    size_t n = 0;
    int rc = ws(&L);
    if (rc == OK)
        rc = word(&L, &w, &n);
    if (rc != OK)
        return (lxr){L, rc};
    if (n == 0)
        return (lxr){L, expected(L, w, "a key after '('")};
    if (!field_key_is(f, w, n)) {
        char got[64];
        describe(w, L.end, got, sizeof got);
        return (lxr){L, fail(L, w, "expected %s, got key %s", field_what(f), got)};
    }
    return (lxr){L, OK};
}

/* Opening of a field: positional (returns OK, *kw = 0) or "(key"
 * (consumed, *kw = 1). */
HOT int field_open(lx *L, const field *f, int *kw)
{
    TRY(ws(L));
    *kw = 0;
    if (peekc(L) != '(')
        return OK;
    *kw = 1;
    const uint8_t *p = ++L->p;
    size_t k = f->keylen;
    if (L->end - p >= 16 && word_match(p, f->pat, k)) { /* "(key " */
        L->p = p + k + 1;
        return OK;
    }
    if ((size_t)(L->end - p) > k && (cls[p[k]] & C_WS)) {
        size_t i = 0;
        while (i < k && p[i] == (uint8_t)f->key[i])
            i++;
        if (i == k) {
            L->p = p + k;
            return OK;
        }
    }
    CALL(L, key_slow(*L, f));
    return OK;
}

HOT int field_close(lx *L, const field *f, int kw)
{
    if (!kw)
        return OK;
    TRY(ws(L));
    if (peekc(L) == ')') {
        L->p++;
        return OK;
    }
    char what[64];
    snprintf(what, sizeof what, "')' to close (%s ...)", f->key);
    return expected(*L, L->p, what);
}

#if defined(__GNUC__)
__attribute__((cold, noinline))
#endif
static int bad_number(lx L, const uint8_t *s, const field *f, int overflow)
{
    if (!overflow)
        return expected(L, s, f->what);
    char got[64];
    describe(s, L.end, got, sizeof got);
    return fail(L, s, "%s does not fit in 64 bits: %s", f->what, got);
}

/* ---- hex digits eight at a time (SWAR) */

#define ONES 0x0101010101010101ULL
#define HIGH 0x8080808080808080ULL
/* The high bit of each byte of x that is below 0x80 and strictly between
 * m and n (0 <= m < n <= 128); no carries cross bytes. */
#define BETWEEN(x, m, n)                                                      \
    ((((ONES * (127 + (n))) - ((x) & (ONES * 127))) & ~(x) &                  \
      (((x) & (ONES * 127)) + ONES * (127 - (m)))) & HIGH)

/* The index of the lowest byte with its high bit set (x != 0). */
HOT unsigned first_set_byte(uint64_t x)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(x) / 8;
#else
    unsigned n = 0;
    while (!(x & 0x80)) {
        x >>= 8;
        n++;
    }
    return n;
#endif
}

/* How many of the 8 bytes in x (first byte lowest) are hex digits before
 * the first that is not. */
HOT unsigned hex_run(uint64_t x)
{
    uint64_t digit = BETWEEN(x, '0' - 1, '9' + 1);
    uint64_t y = x | ONES * 0x20; /* 'A'-'F' -> 'a'-'f' */
    uint64_t letter = BETWEEN(y, 'a' - 1, 'f' + 1);
    uint64_t other = ~(digit | letter) & HIGH;
    return other ? first_set_byte(other) : 8;
}

/* The value of the first n (0..8) hex digits in x. */
HOT uint64_t hex_value(uint64_t x, unsigned n)
{
    if (n == 0)
        return 0;
    uint64_t d = (x & ONES * 0x0F) + ((x >> 6) & ONES) * 9; /* digit values */
    d <<= 8 * (8 - n); /* right-align: leading zero digits */
    d = (d & 0x000F000F000F000FULL) << 4 | ((d >> 8) & 0x000F000F000F000FULL);
    d = (d & 0x000000FF000000FFULL) << 8 | ((d >> 16) & 0x000000FF000000FFULL);
    return (d & 0xFFFF) << 16 | ((d >> 32) & 0xFFFF);
}

/* A hex number, 0x optional (casemate-check reads every number but ids
 * as hex). */
HOT int hex(lx *L, const field *f, uint64_t *out)
{
    TRY(ws(L));
    const uint8_t *s = L->p, *p = s, *end = L->end;
    if (end - p >= 2 && p[0] == '0' && (p[1] | 0x20) == 'x')
        p += 2;
    const uint8_t *digits = p;
    uint64_t v = 0;
    unsigned h;
    if (end - p >= 16) { /* the usual case: up to 16 digits in two steps */
        uint64_t x = le64(p);
        unsigned n = hex_run(x);
        v = hex_value(x, n);
        p += n;
        if (n == 8) {
            x = le64(p);
            n = hex_run(x);
            v = v << (4 * n) | hex_value(x, n);
            p += n;
        }
    }
    while (p < end && (h = hexv[*p]) != 0) {
        v = v << 4 | (h - 1);
        p++;
    }
    if (p == end && !L->eof)
        return MORE;
    if (p == digits || (p < end && !(cls[*p] & C_DELIM)))
        return bad_number(*L, s, f, 0);
    if (p - digits > 16) { /* more than 64 bits, unless leading zeros */
        while (digits < p && *digits == '0')
            digits++;
        if (p - digits > 16)
            return bad_number(*L, s, f, 1);
    }
    *out = v;
    L->p = p;
    return OK;
}

/* A decimal number, or a hex one with 0x. */
HOT int dec(lx *L, const field *f, uint64_t *out)
{
    TRY(ws(L));
    const uint8_t *s = L->p, *p = s, *end = L->end;
    if (end - p >= 2 && p[0] == '0' && (p[1] | 0x20) == 'x')
        return hex(L, f, out);
    uint64_t v = 0;
    if (end - p >= 8) { /* up to 8 digits at once */
        uint64_t x = le64(p);
        uint64_t other = ~BETWEEN(x, '0' - 1, '9' + 1) & HIGH;
        unsigned n = other ? first_set_byte(other) : 8;
        if (n) {
            uint64_t d = (x & ONES * 0x0F) << 8 * (8 - n); /* right-aligned */
            d = (d & 0x00FF00FF00FF00FFULL) * 10 + ((d >> 8) & 0x00FF00FF00FF00FFULL);
            d = (d & 0x0000FFFF0000FFFFULL) * 100 + ((d >> 16) & 0x0000FFFF0000FFFFULL);
            v = (d & 0xFFFFFFFF) * 10000 + (d >> 32);
            p += n;
        }
    }
    while (p < end && *p >= '0' && *p <= '9' && p - s < 19) /* 19 digits fit */
        v = v * 10 + (unsigned)(*p++ - '0');
    while (p < end && *p >= '0' && *p <= '9') { /* more: check each */
        unsigned d = (unsigned)(*p - '0');
        if (v >= UINT64_MAX / 10 && (v > UINT64_MAX / 10 || d > UINT64_MAX % 10))
            return bad_number(*L, s, f, 1);
        v = v * 10 + d;
        p++;
    }
    if (p == end && !L->eof)
        return MORE;
    if (p == s || (p < end && !(cls[*p] & C_DELIM)))
        return bad_number(*L, s, f, 0);
    *out = v;
    L->p = p;
    return OK;
}

HOT int enum_word(lx *L, const tk_casemate_words *t, int *out)
{
    const uint8_t *w;
    size_t n;
    TRY(ws(L));
    if (L->end - L->p >= 24) { /* words as written, compared 8 bytes at a time */
        uint64_t a = le64(L->p), b = le64(L->p + 8);
        for (size_t i = 0; i < t->n; i++) {
            const tk_casemate_word *e = &t->v[i];
            size_t k = e->len;
            if (k > 16 || !(cls[L->p[k]] & C_DELIM))
                continue;
            uint64_t w0 = le64((const uint8_t *)e->pat), w1 = le64((const uint8_t *)e->pat + 8);
            if (k >= 8 ? a == w0 && ((b ^ w1) & low_le(k - 8)) == 0 : ((a ^ w0) & low_le(k)) == 0) {
                L->p += k;
                *out = e->value;
                return OK;
            }
        }
    }
    TRY(word(L, &w, &n));
    int v = lookup(t, w, n);
    if (v < 0)
        return expected(*L, w, t->what);
    *out = v;
    return OK;
}

HOT int field_hex(lx *L, const field *f, uint64_t *out)
{
    int kw;
    TRY(field_open(L, f, &kw));
    TRY(hex(L, f, out));
    return field_close(L, f, kw);
}

HOT int field_dec(lx *L, const field *f, uint64_t *out)
{
    int kw;
    TRY(field_open(L, f, &kw));
    TRY(dec(L, f, out));
    return field_close(L, f, kw);
}

HOT int field_enum(lx *L, const field *f, const tk_casemate_words *t, int *out)
{
    int kw;
    TRY(field_open(L, f, &kw));
    TRY(enum_word(L, t, out));
    return field_close(L, f, kw);
}

/* A string at L->p ('"'): no escapes, may span lines. */
HOT int string(lx *L, tk_casemate_record *rec)
{
    const uint8_t *q = L->p + 1, *end = L->end;
    const uint8_t *close = memchr(q, '"', (size_t)(end - q));
    if (!close)
        return L->eof ? fail(*L, L->p, "unterminated string (no closing '\"')") : MORE;
    for (const uint8_t *nl = q; (nl = memchr(nl, '\n', (size_t)(close - nl))) != NULL;) {
        nl++;
        L->line++;
        L->ls = off_of(L, nl);
    }
    rec->src_kind = TK_CASEMATE_SRC_STRING;
    rec->src = (const char *)q;
    rec->src_len = (size_t)(close - q);
    L->p = close + 1;
    return OK;
}

/* The src value after "(src" or in positional form: a string or a
 * decimal number. */
HOT int src_value(lx *L, tk_casemate_record *rec)
{
    TRY(ws(L));
    if (peekc(L) == '"')
        return string(L, rec);
    if (peekc(L) >= '0' && peekc(L) <= '9') {
        TRY(dec(L, &F_SRC, &rec->src_int));
        rec->src_kind = TK_CASEMATE_SRC_INT;
        return OK;
    }
    return expected(*L, L->p, F_SRC.what);
}

/* Is the next field "(src ..."? Looks without consuming. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int next_is_src_key(lx L, int *yes)
{
    const uint8_t *w = NULL;
    size_t n = 0;
    *yes = 0;
    L.p++;
    int rc = ws(&L);
    if (rc == OK)
        rc = word(&L, &w, &n);
    if (rc == OK)
        *yes = key_is(w, n, "src", 3);
    return rc == MORE ? MORE : OK;
}

/* The TLBI operand: (value V) | V | (addr A) (level L). */
HOT int tlbi_operand_in(lx *L, tk_casemate_record *rec)
{
    TRY(ws(L));
    if (peekc(L) != '(') {
        if (peekc(L) < 0 || !hexv[*L->p])
            return expected(*L, L->p, "the TLBI operand ((value HEX), HEX, or (addr HEX) (level HEX))");
        rec->tlbi_operand = TK_CASEMATE_OPERAND_VALUE;
        return hex(L, &F_VALUE, &rec->value);
    }
    /* which key? */
    lx save = *L;
    const uint8_t *w;
    size_t n;
    L->p++;
    TRY(ws(L));
    TRY(word(L, &w, &n));
    int is_addr = key_is(w, n, "addr", 4);
    if (!is_addr && !key_is(w, n, "value", 5)) {
        char got[64];
        describe(w, L->end, got, sizeof got);
        return fail(*L, w, "expected the TLBI operand ((value HEX) or (addr HEX) (level HEX)), got key %s", got);
    }
    *L = save;
    if (!is_addr) {
        rec->tlbi_operand = TK_CASEMATE_OPERAND_VALUE;
        return field_hex(L, &F_VALUE, &rec->value);
    }
    rec->tlbi_operand = TK_CASEMATE_OPERAND_ADDR_LEVEL;
    TRY(field_hex(L, &F_ADDR, &rec->address));
    return field_hex(L, &F_LEVEL, &rec->level);
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static lxr tlbi_operand(lx L, tk_casemate_record *rec)
{
    int rc = tlbi_operand_in(&L, rec);
    return (lxr){L, rc};
}

/* The record kind of a word: the lower-case spellings by length and
 * letter, anything else through the table. */
HOT int kind_of(const uint8_t *w, size_t n)
{
#define IS(lit) (n == sizeof lit - 1 && memcmp(w, lit, sizeof lit - 1) == 0)
    switch (n) {
    case 9:
        if (IS("mem-write"))
            return TK_CASEMATE_MEM_WRITE;
        break;
    case 8:
        if (w[4] == 'r' && IS("mem-read"))
            return TK_CASEMATE_MEM_READ;
        if (w[4] == 'i' && IS("mem-init"))
            return TK_CASEMATE_MEM_INIT;
        if (w[4] == 'f' && IS("mem-free"))
            return TK_CASEMATE_MEM_FREE;
        break;
    case 7:
        if (w[0] == 'b' && IS("barrier"))
            return TK_CASEMATE_BARRIER;
        if (w[0] == 'm' && IS("mem-set"))
            return TK_CASEMATE_MEM_SET;
        if (w[0] == 't' && IS("trylock"))
            return TK_CASEMATE_TRYLOCK;
        break;
    case 4:
        if (IS("lock"))
            return TK_CASEMATE_LOCK;
        if (IS("tlbi"))
            return TK_CASEMATE_TLBI;
        if (IS("hint"))
            return TK_CASEMATE_HINT;
        break;
    case 6:
        if (IS("unlock"))
            return TK_CASEMATE_UNLOCK;
        break;
    case 12:
        if (IS("sysreg-write"))
            return TK_CASEMATE_SYSREG_WRITE;
        break;
    default:
        break;
    }
#undef IS
    return lookup(&tk_casemate_kinds, w, n);
}

/* The kind at p (16 bytes readable) when written in lower case and
 * followed by a space: kind | bytes to skip << 8; else -1. */
HOT int kind_fast(const uint8_t *p)
{
#define K(lit, kind)                                                         \
    if (word_match(p, lit " \0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", sizeof lit - 1)) \
        return (int)(kind) | (int)sizeof lit << 8
    switch (p[0]) {
    case 'm':
        K("mem-write", TK_CASEMATE_MEM_WRITE);
        K("mem-read", TK_CASEMATE_MEM_READ);
        K("mem-init", TK_CASEMATE_MEM_INIT);
        K("mem-set", TK_CASEMATE_MEM_SET);
        K("mem-free", TK_CASEMATE_MEM_FREE);
        break;
    case 'b':
        K("barrier", TK_CASEMATE_BARRIER);
        break;
    case 't':
        K("tlbi", TK_CASEMATE_TLBI);
        K("trylock", TK_CASEMATE_TRYLOCK);
        break;
    case 'l':
        K("lock", TK_CASEMATE_LOCK);
        break;
    case 'u':
        K("unlock", TK_CASEMATE_UNLOCK);
        break;
    case 's':
        K("sysreg-write", TK_CASEMATE_SYSREG_WRITE);
        break;
    case 'h':
        K("hint", TK_CASEMATE_HINT);
        break;
    default:
        break;
    }
#undef K
    return -1;
}

/* Every field zero (a memset would be a slow string store here). */
HOT void clear(tk_casemate_record *r)
{
    r->id = r->tid = r->address = r->value = r->size = r->location = r->level = 0;
    r->mem_order = TK_CASEMATE_PLAIN;
    r->barrier = TK_CASEMATE_DSB_NSH;
    r->tlbi = TK_CASEMATE_TLBI_VMALLS12E1;
    r->tlbi_operand = TK_CASEMATE_OPERAND_NONE;
    r->sysreg = TK_CASEMATE_VTTBR_EL2;
    r->hint = TK_CASEMATE_SET_ROOT_LOCK;
    r->src_kind = TK_CASEMATE_SRC_NONE;
    r->src = NULL;
    r->src_len = 0;
    r->src_int = 0;
}

/* One record, L->p at its '('. */
HOT int parse_body(lx *L, tk_casemate_record *rec)
{
    const uint8_t *w;
    size_t n;
    int v = 0;
    L->p++;
    TRY(ws(L));
    int kind = L->end - L->p >= 16 ? kind_fast(L->p) : -1;
    if (kind >= 0) {
        L->p += kind >> 8;
        kind &= 0xFF;
    } else {
        TRY(word(L, &w, &n));
        kind = kind_of(w, n);
    }
    if (kind < 0)
        return expected(*L, w, tk_casemate_kinds.what);
    clear(rec);
    rec->kind = (tk_casemate_kind)kind;
    TRY(field_dec(L, &F_ID, &rec->id));
    TRY(field_dec(L, &F_TID, &rec->tid));

    /* src third (the old positional form): a string or (src ...) */
    TRY(ws(L));
    int c = peekc(L), have_src = 0;
    if (c == '"') {
        TRY(string(L, rec));
        have_src = 1;
    } else if (c == '(' && !(L->end - L->p > 1 && L->p[1] >= 'a' && L->p[1] <= 'z' &&
                             L->p[1] != 's')) {
        int yes;
        TRY(next_is_src_key(*L, &yes));
        if (yes) {
            int kw;
            TRY(field_open(L, &F_SRC, &kw));
            TRY(src_value(L, rec));
            TRY(field_close(L, &F_SRC, kw));
            have_src = 1;
        }
    }

    switch (rec->kind) {
    case TK_CASEMATE_MEM_WRITE:
        TRY(field_enum(L, &F_ORDER, &tk_casemate_mem_orders, &v));
        rec->mem_order = (tk_casemate_mem_order)v;
        TRY(field_hex(L, &F_ADDRESS, &rec->address));
        TRY(field_hex(L, &F_VALUE, &rec->value));
        break;
    case TK_CASEMATE_MEM_READ:
        TRY(field_hex(L, &F_ADDRESS, &rec->address));
        TRY(field_hex(L, &F_VALUE, &rec->value));
        break;
    case TK_CASEMATE_MEM_INIT:
    case TK_CASEMATE_MEM_FREE:
        TRY(field_hex(L, &F_ADDRESS, &rec->address));
        TRY(field_hex(L, &F_SIZE, &rec->size));
        break;
    case TK_CASEMATE_MEM_SET:
        TRY(field_hex(L, &F_ADDRESS, &rec->address));
        TRY(field_hex(L, &F_SIZE, &rec->size));
        TRY(field_hex(L, &F_VALUE, &rec->value));
        break;
    case TK_CASEMATE_SYSREG_WRITE:
        TRY(field_enum(L, &F_SYSREG, &tk_casemate_sysregs, &v));
        rec->sysreg = (tk_casemate_sysreg)v;
        TRY(field_hex(L, &F_VALUE, &rec->value));
        break;
    case TK_CASEMATE_BARRIER:
        TRY(enum_word(L, &tk_casemate_barrier_words, &v));
        if (v) {
            TRY(field_enum(L, &F_DSB, &tk_casemate_dsb_kinds, &v));
            rec->barrier = (tk_casemate_barrier)v;
        } else {
            rec->barrier = TK_CASEMATE_ISB;
        }
        break;
    case TK_CASEMATE_TLBI:
        TRY(enum_word(L, &tk_casemate_tlbis, &v));
        rec->tlbi = (tk_casemate_tlbi)v;
        if (tk_casemate_tlbi_has_operand(rec->tlbi))
            CALL(L, tlbi_operand(*L, rec));
        break;
    case TK_CASEMATE_HINT:
        TRY(field_enum(L, &F_HINT, &tk_casemate_hints, &v));
        rec->hint = (tk_casemate_hint)v;
        TRY(field_hex(L, &F_LOCATION, &rec->location));
        TRY(field_hex(L, &F_VALUE, &rec->value));
        break;
    case TK_CASEMATE_LOCK:
    case TK_CASEMATE_TRYLOCK:
    case TK_CASEMATE_UNLOCK:
        TRY(field_hex(L, &F_ADDRESS, &rec->address));
        break;
    default:
        break;
    }

    TRY(ws(L));
    if (peekc(L) == ')') {
        L->p++;
        return OK;
    }
    if (have_src)
        return expected(*L, L->p, "')' to end the record");
    c = peekc(L);
    if (c == '(') {
        int kw;
        TRY(field_open(L, &F_SRC, &kw));
        TRY(src_value(L, rec));
        TRY(field_close(L, &F_SRC, kw));
    } else if (c == '"' || (c >= '0' && c <= '9')) {
        TRY(src_value(L, rec));
    } else {
        return expected(*L, L->p, "the src or ')' to end the record");
    }
    TRY(ws(L));
    if (peekc(L) == ')') {
        L->p++;
        return OK;
    }
    return expected(*L, L->p, "')' to end the record");
}

/* parse_body on a local copy of the state, which stays in registers. */
static int parse_record(lx *L0, tk_casemate_record *rec)
{
    lx L;
    L.p = L0->p;
    L.end = L0->end;
    L.win = L0->win;
    L.win_off = L0->win_off;
    L.line = L0->line;
    L.ls = L0->ls;
    L.eof = L0->eof;
    L.index = L0->index;
    L.err = L0->err;
    int rc = parse_body(&L, rec);
    L0->p = L.p; /* only these move */
    L0->line = L.line;
    L0->ls = L.ls;
    return rc;
}

/* ---------------------------------------------------------------- reader */

static void update_eof(tk_casemate_reader *r, int64_t got, size_t need)
{
    int64_t size = tk_input_size(r->cur.in);
    if (size >= 0)
        r->eof = r->cur.win_off + (uint64_t)(r->cur.end - r->cur.win) >= (uint64_t)size;
    else
        r->eof = (uint64_t)got < need;
}

tk_casemate_reader *tk_casemate_reader_new(tk_input *in, tk_error *err)
{
    tk_casemate_reader *r = calloc(1, sizeof *r);
    if (!r) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    int64_t n = tk_cursor_init(&r->cur, in, PEEK, err);
    if (n < 0) {
        free(r);
        return NULL;
    }
    update_eof(r, n, PEEK);
    r->line = 1;
    r->ls = r->cur.win_off;
    /* a UTF-8 byte order mark at the start */
    if (r->cur.win_off == 0 && tk_cursor_avail(&r->cur) >= 3 &&
        memcmp(r->cur.p, "\xEF\xBB\xBF", 3) == 0) {
        r->cur.p += 3;
        r->ls = 3;
    }
    r->rec_off = TK_NO_OFFSET;
    r->rec_index = TK_NO_RECORD;
    return r;
}

void tk_casemate_reader_free(tk_casemate_reader *r)
{
    if (!r)
        return;
    free(r->expected);
    tk_selection_free(r->sel);
    free(r);
}

/* A refill keeping cur.p; -1 on an I/O error. */
static int64_t refill(tk_casemate_reader *r, size_t need, tk_error *err)
{
    int64_t n = tk_cursor_refill(&r->cur, need, err);
    if (n >= 0)
        update_eof(r, n, need);
    return n;
}

/* A syntax error between records, at cur.p. */
static int gap_error(tk_casemate_reader *r, tk_error *err)
{
    if (refill(r, 64, err) < 0)
        return -1;
    lx L = {r->cur.p, r->cur.end, r->cur.win, r->cur.win_off, r->line, r->ls,
            r->eof, r->next_index, err};
    expected(L, L.p, "'(' to start a record (or a line starting with '!')");
    return -1;
}

/* Skip blanks and comments before the next record, handing the position
 * back to the input as it goes. Returns 1 at '(', 2 at '!', 0 at the end
 * of the input, -1 on error. */
static int gap(tk_casemate_reader *r, tk_error *err)
{
    for (;;) {
        const uint8_t *p = r->cur.p, *end = r->cur.end;
        if (r->in_comment) {
            const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
            p = nl ? nl : end;
            r->in_comment = nl == NULL;
        }
        while (p < end) {
            uint8_t c = *p;
            if (c == '(') {
                r->cur.p = p;
                return 1;
            }
            if (c == '\n') {
                p++;
                r->line++;
                r->ls = r->cur.win_off + (uint64_t)(p - r->cur.win);
            } else if (cls[c] & C_WS) {
                p++;
            } else if (c == ';') {
                const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
                if (!nl) {
                    r->in_comment = 1;
                    p = end;
                } else {
                    p = nl;
                }
            } else {
                r->cur.p = p;
                return c == '!' ? 2 : gap_error(r, err);
            }
        }
        r->cur.p = end;
        int64_t n = refill(r, 1, err);
        if (n < 0)
            return -1;
        if (n == 0)
            return 0;
    }
}

/* The '!' line at cur.p: keep its text, stop reading. */
static int expected_line(tk_casemate_reader *r, tk_error *err)
{
    const uint8_t *nl;
    for (;;) {
        size_t avail = tk_cursor_avail(&r->cur);
        nl = memchr(r->cur.p, '\n', avail);
        if (nl || r->eof)
            break;
        size_t need = avail > SIZE_MAX / 4 ? SIZE_MAX : 2 * avail + 4096;
        if (refill(r, need, err) < 0)
            return -1;
    }
    const uint8_t *s = r->cur.p + 1, *e = nl ? nl : r->cur.end;
    while (s < e && (cls[*s] & C_WS))
        s++;
    while (e > s && (cls[e[-1]] & C_WS))
        e--;
    size_t len = (size_t)(e - s);
    r->expected = malloc(len + 1);
    if (!r->expected) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return -1;
    }
    if (len)
        memcpy(r->expected, s, len);
    r->expected[len] = '\0';
    r->expected_len = len;
    r->expected_line = r->line;
    if (nl) {
        r->cur.p = nl + 1;
        r->line++;
        r->ls = r->cur.win_off + (uint64_t)(r->cur.p - r->cur.win);
    } else {
        r->cur.p = r->cur.end;
    }
    return 0;
}

/* "allow-truncated" (<tracekit/input.h>): the record at cur.p failed at
 * the end of the input. Parsed again as if more could come, it would
 * only ask for more (MORE) when its bytes are a valid beginning: then it
 * is a cut last record, and reading ends before it. 1 when it ended. */
static int cut_tail(tk_casemate_reader *r, tk_casemate_record *rec)
{
    if (!r->eof || !tk_input_allows_truncated(r->cur.in))
        return 0;
    tk_error scratch;
    lx L = {r->cur.p, r->cur.end, r->cur.win, r->cur.win_off, r->line, r->ls,
            0, r->next_index, &scratch};
    if (parse_record(&L, rec) != MORE)
        return 0;
    uint64_t off = tk_cursor_offset(&r->cur), dropped = tk_cursor_avail(&r->cur);
    tk_input_note_truncation(r->cur.in, off, dropped,
                             "dropped %llu byte%s of a record at offset 0x%llx (line %llu)",
                             (unsigned long long)dropped, dropped == 1 ? "" : "s",
                             (unsigned long long)off, (unsigned long long)r->line);
    r->cur.p = r->cur.end;
    r->done = 1;
    return 1;
}

static int next_record(tk_casemate_reader *r, tk_casemate_record *rec, tk_error *err)
{
    if (r->failed)
        return -1;
    if (r->done)
        return 0;
    int g = gap(r, err);
    if (g == 1) {
        for (;;) {
            lx L = {r->cur.p, r->cur.end, r->cur.win, r->cur.win_off, r->line, r->ls,
                    r->eof, r->next_index, err};
            int rc = parse_record(&L, rec);
            if (rc == OK) {
                r->rec_off = tk_cursor_offset(&r->cur);
                r->rec_line = r->line;
                r->rec_col = r->rec_off - r->ls + 1;
                r->rec_index = r->next_index++;
                r->cur.p = L.p;
                r->line = L.line;
                r->ls = L.ls;
                return 1;
            }
            if (rc == BAD && cut_tail(r, rec))
                return 0;
            if (rc == BAD)
                break;
            /* the record runs past the window: twice the room, again */
            size_t avail = tk_cursor_avail(&r->cur);
            size_t need = avail > SIZE_MAX / 4 ? SIZE_MAX : 2 * avail + 4096;
            if (refill(r, need, err) < 0)
                break;
        }
    } else if (g == 2) {
        if (expected_line(r, err) == 0) {
            r->done = 1;
            return 0;
        }
    } else if (g == 0) {
        r->done = 1;
        return 0;
    }
    r->failed = 1;
    return -1;
}

int tk_casemate_next(tk_casemate_reader *r, tk_casemate_record *rec, tk_error *err)
{
    int rc;
    while ((rc = next_record(r, rec, err)) > 0 && r->sel && !tk_casemate_selected(r->sel, rec))
        ;
    return rc;
}

tk_status tk_casemate_reader_select(tk_casemate_reader *r, const tk_selection *sel,
                                    tk_error *err)
{
    tk_selection_free(r->sel);
    r->sel = NULL;
    if (tk_selection_empty(sel))
        return TK_OK;
    if (sel->func)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--func does not apply to casemate traces");
    if (tk_sel_check_counts(sel, "casemate", "event ids", err) != TK_OK)
        return err->status;
    r->sel = tk_sel_dup(sel, err);
    return r->sel ? TK_OK : err->status;
}

uint64_t tk_casemate_reader_line(const tk_casemate_reader *r) { return r->rec_line; }
uint64_t tk_casemate_reader_col(const tk_casemate_reader *r) { return r->rec_col; }
uint64_t tk_casemate_reader_offset(const tk_casemate_reader *r) { return r->rec_off; }
uint64_t tk_casemate_reader_index(const tk_casemate_reader *r) { return r->rec_index; }

uint64_t tk_casemate_reader_tell(const tk_casemate_reader *r)
{
    return tk_cursor_offset(&r->cur);
}

uint64_t tk_casemate_reader_lines(const tk_casemate_reader *r)
{
    return r->line - 1 + (tk_cursor_offset(&r->cur) > r->ls);
}

const char *tk_casemate_reader_expected(const tk_casemate_reader *r, size_t *len)
{
    if (len)
        *len = r->expected ? r->expected_len : 0;
    return r->expected;
}

uint64_t tk_casemate_reader_expected_line(const tk_casemate_reader *r)
{
    return r->expected ? r->expected_line : 0;
}
