/* String key/value options passed from the CLI (or a caller) to formats. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/format.h>

typedef struct opt {
    char *key, *value;
} opt;

struct tk_options {
    opt *v;
    size_t n, cap;
};

tk_options *tk_options_new(tk_error *err)
{
    tk_options *o = calloc(1, sizeof(tk_options));
    if (!o)
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return o;
}

void tk_options_free(tk_options *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->n; i++) {
        free(o->v[i].key);
        free(o->v[i].value);
    }
    free(o->v);
    free(o);
}

static tk_status nomem(tk_error *err, const char *key)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                        "out of memory setting option '%s'", key);
}

/* A new entry key=value at the end (value already copied; freed on
 * failure). */
static tk_status append(tk_options *o, const char *key, char *v, tk_error *err)
{
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 8;
        opt *nv = realloc(o->v, cap * sizeof *nv);
        if (!nv) {
            free(v);
            return nomem(err, key);
        }
        o->v = nv;
        o->cap = cap;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return nomem(err, key);
    }
    o->v[o->n].key = k;
    o->v[o->n++].value = v;
    return TK_OK;
}

tk_status tk_options_set(tk_options *o, const char *key, const char *value,
                         tk_error *err)
{
    char *v = strdup(value);
    if (!v)
        return nomem(err, key);
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->v[i].key, key) == 0) {
            free(o->v[i].value);
            o->v[i].value = v;
            return TK_OK;
        }
    return append(o, key, v, err);
}

tk_status tk_options_add(tk_options *o, const char *key, const char *value,
                         tk_error *err)
{
    char *v = strdup(value);
    return v ? append(o, key, v, err) : nomem(err, key);
}

size_t tk_options_count(const tk_options *o) { return o ? o->n : 0; }

const char *tk_options_key(const tk_options *o, size_t i)
{
    return o && i < o->n ? o->v[i].key : NULL;
}

const char *tk_options_value(const tk_options *o, size_t i)
{
    return o && i < o->n ? o->v[i].value : NULL;
}

const char *tk_options_get(const tk_options *o, const char *key)
{
    if (!o)
        return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->v[i].key, key) == 0)
            return o->v[i].value;
    return NULL;
}

tk_status tk_options_get_u64(const tk_options *o, const char *key,
                             uint64_t dflt, uint64_t *value, tk_error *err)
{
    const char *s = tk_options_get(o, key);
    *value = dflt;
    if (!s)
        return TK_OK;
    char *end;
    errno = 0;
    /* Decimal, or hex with 0x: no signs, blanks or accidental octal. */
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *digits = hex ? s + 2 : s;
    if (!(hex ? isxdigit((unsigned char)*digits) : isdigit((unsigned char)*digits)))
        goto bad;
    unsigned long long v = strtoull(digits, &end, hex ? 16 : 10);
    if (errno)
        goto bad;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end != '\0' || (shift && v > (UINT64_MAX >> shift)))
        goto bad;
    *value = (uint64_t)v << shift;
    return TK_OK;
bad:
    return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                        "--%s: '%s' is not a non-negative number", key, s);
}
