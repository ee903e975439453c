/* tracekit — XRay instrumentation maps (the `xray_instr_map` section of an
 * instrumented binary, or llvm-xray's YAML form of it) and the names and
 * source locations of instrumented functions, as llvm-xray prints them.
 * Format and quirks: docs/formats/xray.md ("Instrumentation map").
 *
 * A map is a handle (<tracekit/tracekit.h>, "Conventions"): made by
 * tk_xray_map_open, freed by tk_xray_map_free (NULL is fine), used by one
 * thread at a time — its lookups too, which fill its caches. Distinct maps
 * are independent. tk_xray_demangle, tk_xray_map_demangler and
 * tk_xray_sled_kind_name take no map and are safe from any thread. */
#ifndef TRACEKIT_XRAY_MAP_H
#define TRACEKIT_XRAY_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <tracekit/error.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct tk_xray_map tk_xray_map;

/* What a sled is for (the byte at offset 16 of a sled entry). */
typedef enum tk_xray_sled_kind {
    TK_XRAY_SLED_ENTRY = 0,          /* "function-enter" */
    TK_XRAY_SLED_EXIT = 1,           /* "function-exit" */
    TK_XRAY_SLED_TAIL = 2,           /* "tail-exit" */
    TK_XRAY_SLED_LOG_ARGS_ENTER = 3, /* "log-args-enter" */
    TK_XRAY_SLED_CUSTOM_EVENT = 4,   /* "custom-event" */
    TK_XRAY_SLED_TYPED_EVENT = 5     /* "typed-event" (llvm-xray rejects it) */
} tk_xray_sled_kind;

typedef struct tk_xray_sled {
    int32_t id;             /* function id (see tk_xray_map_open) */
    uint64_t address;       /* of the sled */
    uint64_t function;      /* entry address of its function */
    tk_xray_sled_kind kind;
    uint8_t always_instrument;
    uint8_t version;        /* 0–1 absolute addresses, >= 2 PC-relative */
} tk_xray_sled;

/* Read the instrumentation map of `path`:
 *
 * - an ELF64 little-endian executable, PIE, shared object or relocatable
 *   object (x86-64 and AArch64; the other machines llvm-xray knows —
 *   ppc64le, riscv64, loongarch64 — are read without relocations). Every
 *   section named xray_instr_map is read, in section order (llvm-xray 14
 *   reads only the first: the same for linked files, a prefix of ours for
 *   .o files, which hold one section per function). Fields stored as 0 take
 *   the value of their relocation (RELA or REL: symbol + addend, PC-relative
 *   types minus the place, RELATIVE = addend). In a .o file, addresses are
 *   offsets into the function's text section, as llvm-xray prints them.
 * - llvm-xray's YAML form (the output of `extract`, and of
 *   tk_xray_map_write_yaml); ids are taken from it.
 *
 * Function ids of an ELF map are assigned as llvm-xray (and the runtime) do:
 * walking the sleds in order from 1, the id increases whenever a sled's
 * function differs from the previous sled's. A function whose sleds are not
 * contiguous gets several ids; address -> id keeps the last one. (llvm-xray
 * also treats function address 0 as "no function yet", which in a .o would
 * merge the function at offset 0 with the next one; tracekit does not.)
 *
 * A map is not thread-safe: name and location lookups fill its caches.
 *
 * Errors (TK_EMALFORMED unless noted, with file offsets where they help):
 * "not an ELF file nor a YAML instrumentation map (...)", 32-bit or
 * big-endian ELF (TK_EUNSUPPORTED), an unsupported machine
 * (TK_EUNSUPPORTED), "no xray_instr_map section ...", a section size that is
 * not a multiple of the 32-byte entry size, a section past the end of the
 * file, an unknown sled kind (> 5). TK_EIO if the file cannot be read,
 * TK_ENOMEM. NULL on failure. */
tk_xray_map *tk_xray_map_open(const char *path, tk_error *err);
void tk_xray_map_free(tk_xray_map *m);

/* Sleds, in section order. tk_xray_map_sled returns sled i (owned by the
 * map, valid until it is freed), NULL past the end. */
size_t tk_xray_map_count(const tk_xray_map *m);
const tk_xray_sled *tk_xray_map_sled(const tk_xray_map *m, size_t i);

/* Largest function id (for ELF maps ids are 1..this). */
int32_t tk_xray_map_max_id(const tk_xray_map *m);

/* Entry address of function `id`: 1 and *addr set if known, else 0. */
int tk_xray_map_function_address(const tk_xray_map *m, int32_t id,
                                 uint64_t *addr);
/* The id llvm-xray gives the function at `addr` (the last assigned):
 * 1 and *id set if known, else 0. */
int tk_xray_map_function_id(const tk_xray_map *m, uint64_t addr, int32_t *id);

/* 1 if the map was read from YAML (then names come from its function-name
 * fields and locations are "<invalid>:0:0"). */
int tk_xray_map_is_yaml(const tk_xray_map *m);

/* ---- symbolization
 * Names and locations are looked up on first use and cached (opening a map
 * symbolizes nothing). The strings stay valid until tk_xray_map_free (or,
 * for names, until tk_xray_map_set_demangle changes the setting). */

/* C++ names are demangled by default (as llvm-xray); 0 keeps raw names
 * (llvm-xray's -no-demangle). */
void tk_xray_map_set_demangle(tk_xray_map *m, int demangle);

/* As llvm-xray: "#<id>" if the id is not in the map; else the function's
 * name — the ELF symbol containing its address (.symtab, else .dynsym),
 * else the DWARF subprogram's linkage name or name — or "@(<lower-case hex
 * address>)" when neither knows it. For a YAML map, its non-empty
 * function-name (llvm-xray ignores it and prints "@(...)").
 * m may be NULL (no map): "#<id>" from a thread-local buffer valid for the
 * next 3 calls with a NULL map in the same thread. Never NULL: a name that
 * cannot be made (out of memory) reads "#?" or "@(?)", so naming never
 * fails. */
const char *tk_xray_map_name(tk_xray_map *m, int32_t id);

/* As llvm-xray: "(unknown)" if the id is not in the map (or m is NULL),
 * else "basename(file):line:column" of the DWARF line row for the
 * function's address, "<invalid>:0:0" without one (also when out of
 * memory: a location never fails). Never NULL. */
const char *tk_xray_map_location(tk_xray_map *m, int32_t id);

/* Which demangler is in use: the soname of the libLLVM whose Itanium
 * demangler is used ("libLLVM-14.so.1", ...; llvm-xray's and llvm-cxxfilt's
 * spelling), else "libiberty" or "libstdc++" (its __cxa_demangle, loaded at
 * run time), GCC's demangler, or NULL (names stay mangled). libLLVM is
 * loaded with dlopen by the first call of this or of tk_xray_demangle with
 * an Itanium name; environment TRACEKIT_NO_LLVM_DEMANGLE (non-empty, read
 * then) skips it. Thread-safe. */
const char *tk_xray_map_demangler(void);

/* Demangle one name as tk_xray_map_name does (and LLVM's symbolizer):
 * Itanium names (starting with _Z) are demangled — with libLLVM, exactly as
 * llvm-cxxfilt prints them — anything else, or a name the demangler
 * rejects, comes back as a copy. The caller frees the result with free().
 * NULL only when out of memory (TK_ENOMEM; `err` may be NULL).
 * Thread-safe. */
char *tk_xray_demangle(const char *name, tk_error *err);

/* ---- YAML: the map as `llvm-xray extract` (LLVM 14) prints it:
 *   ---
 *   - { id: 1, address: 0x421D30, function: 0x421D30, kind: function-enter,
 *       always-instrument: false, function-name: mid, version: 2 }
 *   ...
 * (one line per sled; hex upper-case, unpadded; version omitted when 0;
 * function-name '' unless `symbolize`). The id of each line is the
 * address -> id of its function, as llvm-xray prints it. TK_EIO if writing
 * fails (`out` is flushed, not closed). */
tk_status tk_xray_map_write_yaml(tk_xray_map *m, FILE *out, int symbolize,
                                 tk_error *err);

/* "function-enter", "function-exit", "tail-exit", "log-args-enter",
 * "custom-event", "typed-event"; "unknown" otherwise. */
const char *tk_xray_sled_kind_name(tk_xray_sled_kind k);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
