/* The struct-layout table: loading (which loader reads the file), the
 * layouts and their names in one arena, lookups by the names RTTA records
 * carry, and the field holding a byte. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cacheray/layout/layout_int.h"
#include "core/hashmap.h"

/* Strings, fields and layouts live in chunks freed together: a table is
 * built once and never edited. */
typedef struct cr_chunk {
    struct cr_chunk *next;
    size_t used, cap;
    /* data follows, 16-byte aligned */
} cr_chunk;

#define CHUNK_HEADER ((sizeof(cr_chunk) + 15) & ~(size_t)15)
/* Chunks double from 4 KiB (most tables are small) up to 1 MiB. */
#define CHUNK_FIRST ((size_t)4 << 10)
#define CHUNK_MAX ((size_t)1 << 20)

struct tk_cacheray_layouts {
    cr_chunk *chunks;
    tk_cacheray_layout **layouts; /* in load order */
    unsigned char *kinds;   /* cr_kind per layout */
    size_t n, cap;
    tk_map tags[CR_NKINDS]; /* qualified tag name -> index + 1 */
    tk_map bare;            /* tag or typedef name -> index + 1 */
};

const char *cr_kind_word(cr_kind kind)
{
    static const char *const words[CR_NKINDS] = {"struct", "union", "class"};
    return words[kind];
}

/* ------------------------------------------------------------- arena */

static void *arena_alloc(tk_cacheray_layouts *l, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    cr_chunk *c = l->chunks;
    if (!c || c->cap - c->used < n) {
        size_t cap = !c ? CHUNK_FIRST
                     : c->cap < CHUNK_MAX ? c->cap * 2
                                          : CHUNK_MAX;
        if (cap < n)
            cap = n;
        c = malloc(CHUNK_HEADER + cap);
        if (!c)
            return NULL;
        c->used = 0;
        c->cap = cap;
        c->next = l->chunks;
        l->chunks = c;
    }
    void *p = (unsigned char *)c + CHUNK_HEADER + c->used;
    c->used += n;
    return p;
}

static char *arena_concat(tk_cacheray_layouts *l, const char *a, size_t alen,
                          const char *b, size_t blen)
{
    char *s = arena_alloc(l, alen + blen + 1);
    if (!s)
        return NULL;
    if (alen)
        memcpy(s, a, alen);
    if (blen)
        memcpy(s + alen, b, blen);
    s[alen + blen] = '\0';
    return s;
}

/* ------------------------------------------------------------ fields */

void cr_fields_free(cr_fields *fv)
{
    free(fv->v);
    memset(fv, 0, sizeof *fv);
}

int cr_fields_push(tk_cacheray_layouts *l, cr_fields *fv, const char *prefix,
                   size_t plen, const char *name, uint64_t offset,
                   uint64_t size)
{
    if (fv->n == fv->cap) {
        size_t cap = fv->cap ? fv->cap * 2 : 16;
        tk_cacheray_field *v = realloc(fv->v, cap * sizeof *v);
        if (!v)
            return -1;
        fv->v = v;
        fv->cap = cap;
    }
    char *full = arena_concat(l, prefix, plen, name, strlen(name));
    if (!full)
        return -1;
    fv->v[fv->n++] = (tk_cacheray_field){full, offset, size};
    return 0;
}

/* Stable merge sort by offset (declaration order breaks ties, so a union's
 * members stay in source order). */
static void sort_by_offset(tk_cacheray_field *v, tk_cacheray_field *tmp, size_t n)
{
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = v[j].offset < v[i].offset ? v[j++] : v[i++];
            while (i < mid)
                tmp[k++] = v[i++];
            while (j < hi)
                tmp[k++] = v[j++];
        }
        memcpy(v, tmp, n * sizeof *v);
    }
}

/* Sorted copy of fv in the arena, unknown sizes filled in. */
static tk_cacheray_field *finish_fields(tk_cacheray_layouts *l, const cr_fields *fv,
                                  uint64_t size)
{
    tk_cacheray_field *out = arena_alloc(l, (fv->n ? fv->n : 1) * sizeof *out);
    tk_cacheray_field *tmp = malloc((fv->n ? fv->n : 1) * sizeof *tmp);
    if (!out || !tmp) {
        free(tmp);
        return NULL;
    }
    if (fv->n)
        memcpy(out, fv->v, fv->n * sizeof *out);
    sort_by_offset(out, tmp, fv->n);
    free(tmp);
    for (size_t i = 0; i < fv->n; i++) {
        if (out[i].size != CR_SIZE_UNKNOWN)
            continue;
        uint64_t end = size > out[i].offset ? size : out[i].offset;
        for (size_t j = i + 1; j < fv->n; j++)
            if (out[j].offset > out[i].offset) {
                end = out[j].offset;
                break;
            }
        out[i].size = end - out[i].offset;
    }
    return out;
}

/* ------------------------------------------------------------- table */

tk_cacheray_layouts *cr_layouts_new(void)
{
    tk_cacheray_layouts *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    for (int k = 0; k < CR_NKINDS; k++)
        tk_map_init(&l->tags[k], sizeof(size_t));
    tk_map_init(&l->bare, sizeof(size_t));
    return l;
}

void tk_cacheray_layouts_free(tk_cacheray_layouts *l)
{
    if (!l)
        return;
    for (int k = 0; k < CR_NKINDS; k++)
        tk_map_free(&l->tags[k]);
    tk_map_free(&l->bare);
    free(l->layouts);
    free(l->kinds);
    while (l->chunks) {
        cr_chunk *next = l->chunks->next;
        free(l->chunks);
        l->chunks = next;
    }
    free(l);
}

size_t cr_map_get(const tk_map *m, const char *key, size_t len)
{
    const size_t *v = tk_map_find_str(m, key, len);
    return v ? *v : 0;
}

/* Point `key` at layout `index` unless it already names one. */
static int map_claim(tk_map *m, const char *key, size_t len, size_t index)
{
    size_t *v = tk_map_str(m, key, len);
    if (!v)
        return -1;
    if (!*v)
        *v = index + 1;
    return 0;
}

long cr_find_tag(const tk_cacheray_layouts *l, cr_kind kind, const char *name,
                 size_t len)
{
    return (long)cr_map_get(&l->tags[kind], name, len) - 1;
}

long cr_add_layout(tk_cacheray_layouts *l, cr_kind kind, const char *name,
                   size_t len, uint64_t size, cr_fields *fv)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        tk_cacheray_layout **v = realloc(l->layouts, cap * sizeof *v);
        if (!v)
            return -1;
        l->layouts = v;
        unsigned char *k = realloc(l->kinds, cap);
        if (!k)
            return -1;
        l->kinds = k;
        l->cap = cap;
    }
    const char *word = cr_kind_word(kind);
    size_t wlen = strlen(word);
    char *full = arena_alloc(l, wlen + 1 + len + 1);
    tk_cacheray_layout *lay = arena_alloc(l, sizeof *lay);
    tk_cacheray_field *fields = finish_fields(l, fv, size);
    if (!full || !lay || !fields)
        return -1;
    memcpy(full, word, wlen);
    full[wlen] = ' ';
    memcpy(full + wlen + 1, name, len);
    full[wlen + 1 + len] = '\0';
    *lay = (tk_cacheray_layout){full, size, fv->n, fields};
    fv->n = 0;
    size_t index = l->n;
    if (map_claim(&l->tags[kind], name, len, index) != 0 ||
        map_claim(&l->bare, name, len, index) != 0)
        return -1;
    l->layouts[index] = lay;
    l->kinds[index] = (unsigned char)kind;
    l->n++;
    return (long)index;
}

int cr_add_alias(tk_cacheray_layouts *l, const char *alias, size_t len,
                 size_t index)
{
    return map_claim(&l->bare, alias, len, index);
}

/* ----------------------------------------------------------- loading */

static int is_json_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

tk_cacheray_layouts *tk_cacheray_layouts_load(const char *path, tk_error *err)
{
    if (!path) {
        tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                     "no type-layout file given");
        return NULL;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                     "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    /* The first bytes decide: ELF magic, or '{' after JSON blanks. */
    unsigned char head[4096];
    size_t n = 0;
    while (n < sizeof head) {
        ssize_t r = read(fd, head + n, sizeof head - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                         "%s: cannot read: %s", path, strerror(errno));
            close(fd);
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    size_t first = 0;
    while (first < n && is_json_space(head[first]))
        first++;

    tk_cacheray_layouts *l = cr_layouts_new();
    tk_status st;
    if (!l)
        st = tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                          "out of memory");
    else if (n >= 4 && memcmp(head, "\177ELF", 4) == 0)
        st = cr_load_dwarf(l, path, err);
    else if (first < n && head[first] == '{')
        st = lseek(fd, 0, SEEK_SET) == 0
                 ? cr_load_json(l, path, fd, err)
                 : tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                                "%s: cannot seek: %s", path,
                                strerror(errno));
    else
        st = tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                          "%s: neither an ELF file with DWARF nor a "
                          "dwarf2json file",
                          path);
    close(fd);
    if (st != TK_OK) {
        tk_cacheray_layouts_free(l);
        return NULL;
    }
    return l;
}

/* ------------------------------------------------------------ lookup */

/* LLVM renames clashing struct types "struct.Basic.12": drop one trailing
 * ".<digits>" (C and C++ names never contain '.'). */
static size_t strip_llvm_suffix(const char *s, size_t len)
{
    size_t i = len;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    return i < len && i >= 2 && s[i - 1] == '.' ? i - 1 : len;
}

static const tk_cacheray_layout *by_index(const tk_cacheray_layouts *l, size_t v)
{
    return v ? l->layouts[v - 1] : NULL;
}

static const tk_cacheray_layout *find_kind(const tk_cacheray_layouts *l, cr_kind kind,
                                     const char *name, size_t len)
{
    size_t v = cr_map_get(&l->tags[kind], name, len);
    /* struct and class are the same kind of type; the keyword is only
     * how the source happened to declare it. */
    if (!v && kind != CR_UNION)
        v = cr_map_get(&l->tags[kind == CR_STRUCT ? CR_CLASS : CR_STRUCT],
                    name, len);
    if (v)
        return by_index(l, v);
    /* A typedef: "struct.TdBasic" for `typedef struct {...} TdBasic`. */
    v = cr_map_get(&l->bare, name, len);
    if (v && (l->kinds[v - 1] == CR_UNION) == (kind == CR_UNION))
        return by_index(l, v);
    return NULL;
}

const tk_cacheray_layout *tk_cacheray_layouts_find(const tk_cacheray_layouts *l,
                                       const char *name, size_t len)
{
    if (!l || !name)
        return NULL;
    for (int k = 0; k < CR_NKINDS; k++) {
        const char *word = cr_kind_word((cr_kind)k);
        size_t wlen = strlen(word);
        if (len <= wlen + 1 || memcmp(name, word, wlen) != 0)
            continue;
        const char *rest = name + wlen + 1;
        size_t rlen = len - wlen - 1;
        if (name[wlen] == '.')
            return find_kind(l, (cr_kind)k, rest,
                             strip_llvm_suffix(rest, rlen));
        if (name[wlen] == ' ') {
            while (rlen && *rest == ' ')
                rest++, rlen--;
            return find_kind(l, (cr_kind)k, rest, rlen);
        }
    }
    return by_index(l, cr_map_get(&l->bare, name, len));
}

long tk_cacheray_layout_field_at(const tk_cacheray_layout *layout, uint64_t offset)
{
    if (!layout || offset >= layout->size)
        return -1;
    const tk_cacheray_field *f = layout->fields;
    /* Fields starting at or before the byte: [0, lo). */
    size_t lo = 0, hi = layout->nfields;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f[mid].offset <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Any of them may reach the byte (a union member spanning later
     * fields); the first in order wins, so look at all of them. */
    long found = -1;
    for (size_t i = lo; i-- > 0;)
        if (offset - f[i].offset < f[i].size)
            found = (long)i;
    return found;
}
