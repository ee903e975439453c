/* The words of the casemate format, record comparison and the writer's
 * acceptance test. */
#include <string.h>

#include "casemate/casemate_int.h"

#define W(s, v) {s, (uint8_t)(sizeof s - 1), (uint8_t)(v), s}
#define WORDS(name, what, ...)                                               \
    static const tk_casemate_word name##_v[] = {__VA_ARGS__};                      \
    const tk_casemate_words name = {name##_v, sizeof name##_v / sizeof name##_v[0], what}

WORDS(tk_casemate_kinds,
      "a record kind (mem-write, mem-read, mem-init, mem-free, mem-set, "
      "sysreg-write, msr, barrier, tlbi, hint, lock, trylock, unlock)",
      W("mem-write", TK_CASEMATE_MEM_WRITE), W("mem-read", TK_CASEMATE_MEM_READ),
      W("mem-init", TK_CASEMATE_MEM_INIT), W("mem-free", TK_CASEMATE_MEM_FREE),
      W("mem-set", TK_CASEMATE_MEM_SET), W("sysreg-write", TK_CASEMATE_SYSREG_WRITE),
      W("barrier", TK_CASEMATE_BARRIER), W("tlbi", TK_CASEMATE_TLBI), W("hint", TK_CASEMATE_HINT),
      W("lock", TK_CASEMATE_LOCK), W("trylock", TK_CASEMATE_TRYLOCK), W("unlock", TK_CASEMATE_UNLOCK),
      W("msr", TK_CASEMATE_SYSREG_WRITE));

WORDS(tk_casemate_mem_orders, "a memory order (plain, release)",
      W("plain", TK_CASEMATE_PLAIN), W("release", TK_CASEMATE_RELEASE));

/* The word after the ids of a barrier record; value 1 = dsb, 0 = isb. */
WORDS(tk_casemate_barrier_words, "a barrier (dsb, isb)", W("dsb", 1), W("isb", 0));

WORDS(tk_casemate_dsb_kinds, "a DSB kind (nsh, ish, ishst, sy)",
      W("nsh", TK_CASEMATE_DSB_NSH), W("ish", TK_CASEMATE_DSB_ISH),
      W("ishst", TK_CASEMATE_DSB_ISHST), W("sy", TK_CASEMATE_DSB_SY));

WORDS(tk_casemate_tlbis,
      "a TLBI operation (vmalls12e1, vmalls12e1is, vmalle1is, alle1, alle1is, "
      "vmalle1, alle2, alle2is, vale2is, vae2is, ipas2e1is, vae2)",
      W("vmalls12e1", TK_CASEMATE_TLBI_VMALLS12E1), W("vmalls12e1is", TK_CASEMATE_TLBI_VMALLS12E1IS),
      W("vmalle1is", TK_CASEMATE_TLBI_VMALLE1IS), W("alle1", TK_CASEMATE_TLBI_ALLE1),
      W("alle1is", TK_CASEMATE_TLBI_ALLE1IS), W("vmalle1", TK_CASEMATE_TLBI_VMALLE1),
      W("alle2", TK_CASEMATE_TLBI_ALLE2), W("alle2is", TK_CASEMATE_TLBI_ALLE2IS),
      W("vale2is", TK_CASEMATE_TLBI_VALE2IS), W("vae2is", TK_CASEMATE_TLBI_VAE2IS),
      W("ipas2e1is", TK_CASEMATE_TLBI_IPAS2E1IS), W("vae2", TK_CASEMATE_TLBI_VAE2));

WORDS(tk_casemate_sysregs,
      "a system register (vttbr_el2, ttbr0_el2, vtcr_el2, hcr_el2, tcr_el2, "
      "sctlr_el2, mair_el2)",
      W("vttbr_el2", TK_CASEMATE_VTTBR_EL2), W("ttbr0_el2", TK_CASEMATE_TTBR0_EL2),
      W("vtcr_el2", TK_CASEMATE_VTCR_EL2), W("hcr_el2", TK_CASEMATE_HCR_EL2),
      W("tcr_el2", TK_CASEMATE_TCR_EL2), W("sctlr_el2", TK_CASEMATE_SCTLR_EL2),
      W("mair_el2", TK_CASEMATE_MAIR_EL2), W("ttbr_el2", TK_CASEMATE_TTBR0_EL2));

WORDS(tk_casemate_hints,
      "a hint kind (set_root_lock, set_owner_root, release_table, "
      "set_pte_thread_owner)",
      W("set_root_lock", TK_CASEMATE_SET_ROOT_LOCK), W("set_owner_root", TK_CASEMATE_SET_OWNER_ROOT),
      W("release_table", TK_CASEMATE_RELEASE_TABLE),
      W("set_pte_thread_owner", TK_CASEMATE_SET_PTE_THREAD_OWNER));

/* Words are short: a byte loop beats a call to memcmp. */
static inline int same(const char *a, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((uint8_t)a[i] != b[i])
            return 0;
    return 1;
}

int tk_casemate_lookup(const tk_casemate_words *t, const uint8_t *w, size_t n)
{
    if (n == 0)
        return -1;
    for (size_t i = 0; i < t->n; i++) /* as written: lower case */
        if (t->v[i].len == n && (uint8_t)t->v[i].s[0] == w[0] && same(t->v[i].s, w, n))
            return t->v[i].value;
    uint8_t low[24];
    if (n >= sizeof low)
        return -1;
    for (size_t i = 0; i < n; i++)
        low[i] = (uint8_t)(w[i] >= 'A' && w[i] <= 'Z' ? w[i] + ('a' - 'A') : w[i]);
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].len == n && same(t->v[i].s, low, n))
            return t->v[i].value;
    return -1;
}

/* The first (writer's) word for `value`, "?" if none. */
static const char *word_for(const tk_casemate_words *t, unsigned value)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].value == value)
            return t->v[i].s;
    return "?";
}

const char *tk_casemate_kind_name(tk_casemate_kind k)
{
    return (unsigned)k < TK_CASEMATE_KIND_COUNT ? word_for(&tk_casemate_kinds, (unsigned)k) : "?";
}

const char *tk_casemate_mem_order_name(tk_casemate_mem_order o)
{
    return (unsigned)o < TK_CASEMATE_MEM_ORDER_COUNT ? word_for(&tk_casemate_mem_orders, (unsigned)o) : "?";
}

const char *tk_casemate_barrier_name(tk_casemate_barrier b)
{
    static const char *const names[] = {"dsb nsh", "dsb ish", "dsb ishst", "dsb sy", "isb"};
    return (unsigned)b < TK_CASEMATE_BARRIER_COUNT ? names[b] : "?";
}

const char *tk_casemate_tlbi_name(tk_casemate_tlbi t)
{
    return (unsigned)t < TK_CASEMATE_TLBI_COUNT ? word_for(&tk_casemate_tlbis, (unsigned)t) : "?";
}

const char *tk_casemate_sysreg_name(tk_casemate_sysreg s)
{
    return (unsigned)s < TK_CASEMATE_SYSREG_COUNT ? word_for(&tk_casemate_sysregs, (unsigned)s) : "?";
}

const char *tk_casemate_hint_name(tk_casemate_hint h)
{
    return (unsigned)h < TK_CASEMATE_HINT_COUNT ? word_for(&tk_casemate_hints, (unsigned)h) : "?";
}

int tk_casemate_tlbi_has_operand(tk_casemate_tlbi t)
{
    return t == TK_CASEMATE_TLBI_VALE2IS || t == TK_CASEMATE_TLBI_VAE2IS ||
           t == TK_CASEMATE_TLBI_IPAS2E1IS || t == TK_CASEMATE_TLBI_VAE2;
}

const char *tk_casemate_record_problem(const tk_casemate_record *r)
{
    switch (r->kind) {
    case TK_CASEMATE_MEM_WRITE:
        if ((unsigned)r->mem_order >= TK_CASEMATE_MEM_ORDER_COUNT)
            return "memory order out of range";
        break;
    case TK_CASEMATE_SYSREG_WRITE:
        if ((unsigned)r->sysreg >= TK_CASEMATE_SYSREG_COUNT)
            return "system register out of range";
        break;
    case TK_CASEMATE_BARRIER:
        if ((unsigned)r->barrier >= TK_CASEMATE_BARRIER_COUNT)
            return "barrier kind out of range";
        break;
    case TK_CASEMATE_TLBI:
        if ((unsigned)r->tlbi >= TK_CASEMATE_TLBI_COUNT)
            return "TLBI operation out of range";
        if (tk_casemate_tlbi_has_operand(r->tlbi)) {
            if (r->tlbi_operand != TK_CASEMATE_OPERAND_VALUE &&
                r->tlbi_operand != TK_CASEMATE_OPERAND_ADDR_LEVEL)
                return "this TLBI operation needs an operand (value, or addr and level)";
        } else if (r->tlbi_operand != TK_CASEMATE_OPERAND_NONE) {
            return "this TLBI operation takes no operand";
        }
        break;
    case TK_CASEMATE_HINT:
        if ((unsigned)r->hint >= TK_CASEMATE_HINT_COUNT)
            return "hint kind out of range";
        break;
    case TK_CASEMATE_MEM_READ:
    case TK_CASEMATE_MEM_INIT:
    case TK_CASEMATE_MEM_FREE:
    case TK_CASEMATE_MEM_SET:
    case TK_CASEMATE_LOCK:
    case TK_CASEMATE_TRYLOCK:
    case TK_CASEMATE_UNLOCK:
        break;
    default:
        return "record kind out of range";
    }
    switch (r->src_kind) {
    case TK_CASEMATE_SRC_NONE:
    case TK_CASEMATE_SRC_INT:
        return NULL;
    case TK_CASEMATE_SRC_STRING:
        if (r->src_len && !r->src)
            return "src string missing";
        if (r->src_len && memchr(r->src, '"', r->src_len))
            return "src string contains '\"' (the format has no escapes)";
        return NULL;
    }
    return "src kind out of range";
}

int tk_casemate_record_equal(const tk_casemate_record *a, const tk_casemate_record *b)
{
    if (a->kind != b->kind || a->id != b->id || a->tid != b->tid ||
        a->src_kind != b->src_kind)
        return 0;
    if (a->src_kind == TK_CASEMATE_SRC_INT && a->src_int != b->src_int)
        return 0;
    if (a->src_kind == TK_CASEMATE_SRC_STRING &&
        (a->src_len != b->src_len ||
         (a->src_len && memcmp(a->src, b->src, a->src_len) != 0)))
        return 0;
    switch (a->kind) {
    case TK_CASEMATE_MEM_WRITE:
        return a->mem_order == b->mem_order && a->address == b->address &&
               a->value == b->value;
    case TK_CASEMATE_MEM_READ:
        return a->address == b->address && a->value == b->value;
    case TK_CASEMATE_MEM_INIT:
    case TK_CASEMATE_MEM_FREE:
        return a->address == b->address && a->size == b->size;
    case TK_CASEMATE_MEM_SET:
        return a->address == b->address && a->size == b->size && a->value == b->value;
    case TK_CASEMATE_SYSREG_WRITE:
        return a->sysreg == b->sysreg && a->value == b->value;
    case TK_CASEMATE_BARRIER:
        return a->barrier == b->barrier;
    case TK_CASEMATE_TLBI:
        if (a->tlbi != b->tlbi || a->tlbi_operand != b->tlbi_operand)
            return 0;
        if (a->tlbi_operand == TK_CASEMATE_OPERAND_VALUE)
            return a->value == b->value;
        if (a->tlbi_operand == TK_CASEMATE_OPERAND_ADDR_LEVEL)
            return a->address == b->address && a->level == b->level;
        return 1;
    case TK_CASEMATE_HINT:
        return a->hint == b->hint && a->location == b->location && a->value == b->value;
    case TK_CASEMATE_LOCK:
    case TK_CASEMATE_TRYLOCK:
    case TK_CASEMATE_UNLOCK:
        return a->address == b->address;
    default:
        return 1;
    }
}
