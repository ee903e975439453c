/* UCIR's HTML report (report --html): what the report's pass gathers
 * beyond the text report (html_collect.c) for the page's sections
 * (html.c, html_events.c, html_code.c). All of it is bounded: the first
 * syscalls and memory-map changes are listed, regions are capped, the
 * hottest addresses shown. */
#ifndef TK_UCIR_HTML_INT_H
#define TK_UCIR_HTML_INT_H

#include "core/hashmap.h"
#include "export/html/html.h"
#include "ucir/regions.h"
#include "ucir/report_int.h"

/* Syscalls and memory-map changes listed (the first ones). */
#define TK_UH_SYSCALLS 1000
#define TK_UH_MEMEVENTS 1000
/* Regions with a row of their own; further ones share "other regions". */
#define TK_UH_REGIONS 4096
/* Syscall arguments kept per syscall. */
#define TK_UH_ARGS 6

typedef struct tk_uh_syscall {
    uint64_t record;
    int64_t instr; /* -1: the setup */
    uint32_t num, argc;
    uint64_t args[TK_UH_ARGS];
    uint64_t ret;
} tk_uh_syscall;

typedef struct tk_uh_memev {
    uint64_t record;
    int64_t instr;
    tk_ucir_kind kind; /* MEM_MAP, MEM_UNMAP, MEM_PROT */
    uint64_t addr, size;
    uint8_t prot;
    char label[40];
} tk_uh_memev;

/* A region (one MEM_MAP's range) and what happened in it. */
typedef struct tk_uh_region {
    uint64_t addr, size;
    int64_t mapped_at; /* the instruction of its first map, -1: the setup */
    uint8_t prot;
    char label[40];
    uint64_t instructions, written, writes;
} tk_uh_region;

typedef struct tk_uh {
    tk_ucir_rep rep;
    tk_ucir_stats stats;    /* info's counts, over every record */
    tk_ucir_regions spans;  /* span ids: index into regions + 1 */
    tk_map region_ids;      /* (addr, size) -> uint32_t index + 1 */
    tk_uh_region *regions;
    size_t nregions, regions_cap;
    tk_uh_region other;     /* regions past TK_UH_REGIONS */
    tk_uh_region unmapped;  /* addresses in no region */
    uint64_t unknown_pc;    /* instructions at an unknown address */
    tk_uh_syscall *sys;     /* TK_UH_SYSCALLS */
    size_t nsys;
    uint64_t syscalls;      /* every syscall applied */
    tk_uh_memev *mem;       /* TK_UH_MEMEVENTS */
    size_t nmem;
    uint64_t mem_changes;   /* every map, unmap and protect applied */
} tk_uh;

/* The report's pass with the page's hook. TK_OK, or the trace's error /
 * TK_ENOMEM with `err`; tk_uh_free in any case. */
tk_status tk_uh_collect(tk_uh *u, tk_input *in, const tk_options *o, tk_error *err);
void tk_uh_free(tk_uh *u);

/* The sections (html_events.c, html_code.c). */
void tk_uh_syscalls(tk_html *h, tk_uh *u);
void tk_uh_memory(tk_html *h, tk_uh *u);
void tk_uh_hot_code(tk_html *h, tk_uh *u);
void tk_uh_regions(tk_html *h, tk_uh *u);

/* "0x400000-0x401000 r-x demo": a region's name, into buf. */
const char *tk_uh_region_name(const tk_uh_region *r, char *buf, size_t cap);

#endif
