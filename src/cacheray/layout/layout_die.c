/* Reading DWARF DIEs for struct layouts (see layout_die.h). */
#include <dwarf.h>

#include "cacheray/layout/layout_die.h"
#include "cacheray/layout/layout_int.h"

/* The DIE's own flag: not integrated through DW_AT_specification, whose
 * target is a declaration even when this DIE is the definition. */
int cr_die_flag(Dwarf_Die *die, unsigned name)
{
    Dwarf_Attribute a;
    bool v = false;
    return dwarf_attr(die, name, &a) && dwarf_formflag(&a, &v) == 0 && v;
}

/* A DIE's identity across units: its section offset, with DWARF 4's
 * .debug_types kept apart from .debug_info (their offsets overlap). */
uint64_t cr_die_key(Dwarf_Die *die)
{
    Dwarf_Half version = 0;
    uint8_t unit_type = 0;
    int types = die->cu &&
                dwarf_cu_info(die->cu, &version, &unit_type, NULL, NULL, NULL,
                              NULL, NULL) == 0 &&
                version < 5 && unit_type == DW_UT_type;
    return (uint64_t)dwarf_dieoffset(die) * 2 + (uint64_t)types;
}

int cr_die_type(Dwarf_Die *die, Dwarf_Die *type)
{
    Dwarf_Attribute a;
    return dwarf_attr_integrate(die, DW_AT_type, &a) &&
                   dwarf_formref_die(&a, type)
               ? 0
               : -1;
}

/* The type behind typedefs and qualifiers (chains capped: cycles exist
 * only in broken DWARF). */
int cr_die_peel(Dwarf_Die *type, Dwarf_Die *out)
{
    Dwarf_Die cur = *type;
    for (int depth = 0; depth < CR_MAX_DEPTH; depth++) {
        int tag = dwarf_tag(&cur);
        if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
            tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
            tag != DW_TAG_atomic_type && tag != DW_TAG_immutable_type) {
            /* a stub for a type moved into a type unit leads there */
            Dwarf_Attribute a;
            Dwarf_Die def;
            if (dwarf_attr(&cur, DW_AT_signature, &a) &&
                dwarf_formref_die(&a, &def))
                cur = def;
            *out = cur;
            return 0;
        }
        Dwarf_Die next;
        if (cr_die_type(&cur, &next) != 0)
            return -1; /* a typedef of void */
        cur = next;
    }
    return -1;
}

/* A constant attribute within ±CR_MAX_OFFSET; only DW_FORM_sdata is read
 * as signed. */
int cr_attr_int(Dwarf_Attribute *a, int64_t *v)
{
    if (dwarf_whatform(a) == DW_FORM_sdata) {
        Dwarf_Sword s;
        if (dwarf_formsdata(a, &s) != 0 || s > (int64_t)CR_MAX_OFFSET ||
            s < -(int64_t)CR_MAX_OFFSET)
            return -1;
        *v = s;
        return 0;
    }
    Dwarf_Word u;
    if (dwarf_formudata(a, &u) != 0 || u > CR_MAX_OFFSET)
        return -1;
    *v = (int64_t)u;
    return 0;
}

/* DW_AT_data_member_location: a constant, or an expression
 * DW_OP_plus_uconst N (DWARF 2). Absent means 0 (union members). -1 when
 * the place is computed at run time (virtual bases) or unreadable. */
int cr_die_member_location(Dwarf_Die *m, uint64_t *off)
{
    Dwarf_Attribute a;
    *off = 0;
    if (!dwarf_attr(m, DW_AT_data_member_location, &a))
        return 0;
    switch (dwarf_whatform(&a)) {
    case DW_FORM_data1:
    case DW_FORM_data2:
    case DW_FORM_data4:
    case DW_FORM_data8:
    case DW_FORM_udata:
    case DW_FORM_sdata:
    case DW_FORM_implicit_const: {
        int64_t v;
        if (cr_attr_int(&a, &v) != 0 || v < 0)
            return -1;
        *off = (uint64_t)v;
        return 0;
    }
    default: {
        Dwarf_Op *ops;
        size_t n;
        if (dwarf_getlocation(&a, &ops, &n) != 0 || n != 1 ||
            (ops[0].atom != DW_OP_plus_uconst && ops[0].atom != DW_OP_constu) ||
            ops[0].number > CR_MAX_OFFSET)
            return -1;
        *off = ops[0].number;
        return 0;
    }
    }
}

/* sizeof of a type; pointers without DW_AT_byte_size (clang) take the
 * unit's address size. */
uint64_t cr_die_type_size(Dwarf_Die *type)
{
    Dwarf_Word size;
    if (dwarf_aggregate_size(type, &size) == 0)
        return size;
    Dwarf_Die real;
    if (cr_die_peel(type, &real) != 0)
        return CR_SIZE_UNKNOWN;
    int tag = dwarf_tag(&real);
    if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
        tag == DW_TAG_rvalue_reference_type) {
        Dwarf_Die cu;
        uint8_t addr_size = 0;
        if (dwarf_diecu(&real, &cu, &addr_size, NULL) && addr_size)
            return addr_size;
    }
    return CR_SIZE_UNKNOWN;
}

/* The bytes a bit-field's bits touch, relative to its aggregate. DWARF 4+
 * gives DW_AT_data_bit_offset from the aggregate's start; DWARF 2-4 give
 * a storage unit (DW_AT_data_member_location, DW_AT_byte_size or the type's
 * size) and DW_AT_bit_offset counted from the unit's most significant bit. */
int cr_die_bitfield_bytes(Dwarf_Die *m, Dwarf_Die *type, int big_endian,
                          uint64_t *first, uint64_t *count)
{
    Dwarf_Attribute a;
    int64_t bits, start;
    if (cr_attr_int(dwarf_attr(m, DW_AT_bit_size, &a), &bits) != 0 || bits <= 0)
        return -1;
    if (dwarf_attr(m, DW_AT_data_bit_offset, &a)) {
        if (cr_attr_int(&a, &start) != 0)
            return -1;
    } else {
        uint64_t loc;
        if (cr_die_member_location(m, &loc) != 0)
            return -1;
        start = (int64_t)loc * 8;
        if (dwarf_attr(m, DW_AT_bit_offset, &a)) {
            int64_t bit_offset, unit;
            if (cr_attr_int(&a, &bit_offset) != 0)
                return -1;
            if (dwarf_attr(m, DW_AT_byte_size, &a)) {
                if (cr_attr_int(&a, &unit) != 0)
                    return -1;
            } else {
                uint64_t s = type ? cr_die_type_size(type) : CR_SIZE_UNKNOWN;
                if (s > CR_MAX_OFFSET)
                    return -1;
                unit = (int64_t)s;
            }
            start += big_endian ? bit_offset : unit * 8 - bit_offset - bits;
        }
    }
    if (start < 0)
        return -1;
    *first = (uint64_t)start / 8;
    *count = (uint64_t)(start + bits - 1) / 8 - *first + 1;
    return 0;
}

