/* Internals shared by the instrumentation-map reader (instrmap.c) and the
 * symbolizer (symbolize.c). */
#ifndef TK_XRAY_MAP_INT_H
#define TK_XRAY_MAP_INT_H

#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include <tracekit/xray_map.h>

#include "core/hashmap.h"

/* One function id. */
typedef struct xm_func {
    int32_t id;
    uint64_t addr;
    uint32_t text_shndx; /* ELF .o: section of its code (0 = any) */
    char *yaml_name;     /* YAML map: non-empty function-name, else NULL */
    char *name;          /* cached symbolization (NULL = not yet) */
    char *loc;
} xm_func;

typedef struct xm_addr_id {
    uint64_t addr;
    int32_t id;
} xm_addr_id;

/* A symbol for address lookups (symbolize.c). */
typedef struct xm_sym {
    uint64_t key;  /* section index for .o files, else 0 */
    uint64_t addr, size;
    size_t index;  /* in the symbol table (ties keep the last) */
    const char *name;
    const char *file; /* local symbols: the STT_FILE before it, or NULL */
} xm_sym;

struct tk_xray_map {
    char *path;
    int yaml;
    int demangle;

    tk_xray_sled *sleds;
    size_t n;
    xm_func *funcs;       /* sorted by id, ids unique */
    size_t nfuncs;
    xm_addr_id *byaddr;   /* sorted by address, addresses unique */
    size_t nbyaddr;
    tk_map unknown;       /* id -> char* "#<id>" asked for, not in the map */

    /* ELF (kept open for symbolization) */
    int fd;
    Elf *elf;
    uint64_t file_size;
    uint16_t machine, etype;

    /* symbolize.c, loaded on first use */
    int syms_loaded;
    xm_sym *syms;
    size_t nsyms;
    int dwarf_loaded;
    Dwarf *dwarf;
    Elf *dwarf_elf;       /* relocated in-memory copy for .o files */
    unsigned char *dwarf_image;
};

/* Find function `id` (NULL if absent). */
xm_func *tk_xm_func(const tk_xray_map *m, int32_t id);

/* symbolize.c: release what symbolization loaded and the cached names and
 * locations. */
void tk_xm_symbolize_free(tk_xray_map *m);

#endif
