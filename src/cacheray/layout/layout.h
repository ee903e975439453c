/* Struct layouts for Cacheray's per-field statistics: read from a binary's
 * DWARF (elfutils libdw) or from the original tool's dwarf2json file, and
 * looked up by the type names RTTA records carry ("struct.Basic", ...). */
#ifndef TK_CACHERAY_LAYOUT_H
#define TK_CACHERAY_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include <tracekit/error.h>

typedef struct tk_cacheray_field {
    const char *name;   /* "b", nested members flattened: "inner.x" */
    uint64_t offset;    /* bytes from the start of the struct */
    uint64_t size;      /* bytes (a bit-field: the bytes its bits touch) */
} tk_cacheray_field;

typedef struct tk_cacheray_layout {
    const char *name;          /* "struct Basic", "union U", "class C" */
    uint64_t size;             /* sizeof, tail padding included: the array stride */
    size_t nfields;
    const tk_cacheray_field *fields; /* leaf fields sorted by offset */
} tk_cacheray_layout;

typedef struct tk_cacheray_layouts tk_cacheray_layouts;

/* Load every struct, union and class type (and the typedefs naming them)
 * from `path`: an ELF file with DWARF, or a dwarf2json ".json" file. Errors
 * (no such file, not ELF, no debug info, malformed JSON) name the file. */
tk_cacheray_layouts *tk_cacheray_layouts_load(const char *path, tk_error *err);
void tk_cacheray_layouts_free(tk_cacheray_layouts *l);

/* The layout an RTTA type name refers to, or NULL: accepts LLVM names
 * ("struct.Basic", "class.ns::C", "union.U", with LLVM's ".N" renaming
 * suffixes), C spellings ("struct Basic") and bare or typedef names
 * ("Basic", "TdBasic"). `name` need not be NUL-terminated. */
const tk_cacheray_layout *tk_cacheray_layouts_find(const tk_cacheray_layouts *l,
                                       const char *name, size_t len);

/* Index of the field holding byte `offset` (< layout->size), or -1 when the
 * byte is padding. Overlapping fields (unions, bit-fields sharing a byte):
 * the first in `fields` order. */
long tk_cacheray_layout_field_at(const tk_cacheray_layout *layout, uint64_t offset);

#endif
