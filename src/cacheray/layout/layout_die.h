/* Reading DWARF DIEs for struct layouts: where a member sits, how big a
 * type is, which bytes a bit-field touches (elfutils libdw). Malformed
 * values are refused (-1 / CR_SIZE_UNKNOWN), never trusted: offsets and
 * sizes past CR_MAX_OFFSET count as malformed, so the arithmetic on them
 * cannot overflow. */
#ifndef TK_CACHERAY_LAYOUT_DIE_H
#define TK_CACHERAY_LAYOUT_DIE_H

#include <stdint.h>

#include <elfutils/libdw.h>

/* The DIE's own flag attribute (DW_AT_declaration, DW_AT_external). */
int cr_die_flag(Dwarf_Die *die, unsigned name);
/* A DIE's identity across units (for maps keyed by DIE). */
uint64_t cr_die_key(Dwarf_Die *die);
/* The DIE's DW_AT_type: 0, or -1 when it has none (void). */
int cr_die_type(Dwarf_Die *die, Dwarf_Die *type);
/* The type behind typedefs, qualifiers and type-unit stubs. */
int cr_die_peel(Dwarf_Die *type, Dwarf_Die *out);
/* A constant attribute (NULL: -1). */
int cr_attr_int(Dwarf_Attribute *a, int64_t *v);
/* A member's byte offset in its aggregate: 0, or -1 when it is computed
 * at run time (virtual bases) or unreadable. */
int cr_die_member_location(Dwarf_Die *m, uint64_t *off);
/* sizeof of a type, or CR_SIZE_UNKNOWN. */
uint64_t cr_die_type_size(Dwarf_Die *type);
/* The bytes bit-field member `m` (of type `type`, may be NULL) touches in
 * its aggregate: first byte and count. */
int cr_die_bitfield_bytes(Dwarf_Die *m, Dwarf_Die *type, int big_endian,
                          uint64_t *first, uint64_t *count);

#endif
