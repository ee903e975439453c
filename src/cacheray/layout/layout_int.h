/* Inside the struct-layout table: what the DWARF and dwarf2json loaders
 * share. A loader collects one type's leaf fields in a cr_fields scratch
 * vector, then hands them to cr_add_layout, which sorts them and copies them
 * into the table's arena. */
#ifndef TK_CACHERAY_LAYOUT_INT_H
#define TK_CACHERAY_LAYOUT_INT_H

#include "cacheray/layout/layout.h"

typedef enum cr_kind { CR_STRUCT, CR_UNION, CR_CLASS, CR_NKINDS } cr_kind;

/* "struct", "union", "class" */
const char *cr_kind_word(cr_kind kind);

/* A field whose size the input does not give: cr_add_layout extends it to
 * the next field that starts after it (or to the end of the type). */
#define CR_SIZE_UNKNOWN UINT64_MAX

/* Nesting deeper than this (typedef chains, nested members, scopes) is
 * not followed: it only happens in malformed or cyclic input. */
#define CR_MAX_DEPTH 32

/* Offsets and sizes past this (256 TiB) are malformed input: refusing them
 * keeps all offset arithmetic far from overflow. */
#define CR_MAX_OFFSET ((uint64_t)1 << 48)

/* Past this many fields a type's nested members stop being opened (each
 * stays one field): bounds the work on inputs that nest wide types deep. */
#define CR_MAX_FIELDS ((size_t)1 << 20)

typedef struct cr_fields {
    tk_cacheray_field *v;
    size_t n, cap;
} cr_fields;

void cr_fields_free(cr_fields *fv);
/* Append prefix+name (copied into the table's arena). -1 when out of
 * memory. */
int cr_fields_push(tk_cacheray_layouts *l, cr_fields *fv, const char *prefix,
                   size_t plen, const char *name, uint64_t offset,
                   uint64_t size);

tk_cacheray_layouts *cr_layouts_new(void);

/* The size_t stored under a string key of `m`, 0 when absent (never
 * creates the key). The table keeps index + 1 there. */
struct tk_map;
size_t cr_map_get(const struct tk_map *m, const char *key, size_t len);

/* Index of the layout with this kind and (qualified) tag name, or -1. */
long cr_find_tag(const tk_cacheray_layouts *l, cr_kind kind, const char *name,
                 size_t len);
/* Add the layout "<kind> <name>" of `size` bytes from the fields in `fv`
 * (sorted by offset, stable; fv is emptied) and register its tag and bare
 * names. The caller has checked that the tag is new. Returns the index, or
 * -1 when out of memory. */
long cr_add_layout(tk_cacheray_layouts *l, cr_kind kind, const char *name,
                   size_t len, uint64_t size, cr_fields *fv);
/* Make the bare name `alias` (a typedef) find layout `index`, unless a tag
 * or an earlier typedef already owns that name. -1 when out of memory. */
int cr_add_alias(tk_cacheray_layouts *l, const char *alias, size_t len,
                 size_t index);

/* The two loaders: fill `l` from `path`, errors naming the file. */
tk_status cr_load_dwarf(tk_cacheray_layouts *l, const char *path, tk_error *err);
tk_status cr_load_json(tk_cacheray_layouts *l, const char *path, int fd,
                       tk_error *err);

#endif
