/* Degenerate casemate logs for make bench's "shapes" section (issue 23),
 * each stressing one dimension of the checker's model and passing
 * `tracekit bbm` (the normal log is tk-gen-casemate's, 2N events):
 *   roots N    N stage-2 roots over time, each named a lock, loaded by a
 *              VTTBR_EL2 write (2-entry start tables: T0SZ 42) and later
 *              released (VMIDs are 16 bits: at most 4096 alive at once)
 *   locks N    N distinct locks taken by one thread, then all released
 *   tables N   N/4 level-3 tables hung into one root's level-2 table, 512
 *              alive at once, each replaced by the next with a full
 *              break-before-make (the old one leaves the tree)
 *   threads N  N threads (vCPUs), each loading the same root and issuing
 *              a DSB
 * Keyword form, compact numbers; IDs increase. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/tracekit.h>

#include "gen_common.h"

#define PAGES 0x40000000ull   /* table pages from here */
#define LOCKS 0x7f000000ull
#define LIVE_ROOTS 4096
#define TABLE 0x3ull

static tk_casemate_writer *w;
static tk_casemate_record rec;
static uint64_t id;
static tk_error err;

static void usage(void)
{
    fprintf(stderr, "usage: tk-gen-casemate-shapes roots|locks|tables|threads N -o OUT\n");
    exit(2);
}

static void emit(tk_casemate_kind kind, uint64_t tid)
{
    rec.kind = kind;
    rec.id = id++;
    rec.tid = tid;
    if (tk_casemate_write(w, &rec, &err) != TK_OK) {
        fprintf(stderr, "tk-gen-casemate-shapes: %s\n", err.message);
        exit(2);
    }
    memset(&rec, 0, sizeof rec);
}

static void sysreg(uint64_t tid, tk_casemate_sysreg reg, uint64_t value)
{
    rec.sysreg = reg;
    rec.value = value;
    emit(TK_CASEMATE_SYSREG_WRITE, tid);
}

static void hint(tk_casemate_hint h, uint64_t location, uint64_t value)
{
    rec.hint = h;
    rec.location = location;
    rec.value = value;
    emit(TK_CASEMATE_HINT, 0);
}

static void mem(tk_casemate_kind kind, uint64_t addr, uint64_t size_or_value)
{
    rec.address = addr;
    if (kind == TK_CASEMATE_MEM_WRITE)
        rec.value = size_or_value;
    else
        rec.size = size_or_value;
    emit(kind, 0);
}

static void lock(tk_casemate_kind kind, uint64_t tid, uint64_t addr)
{
    rec.address = addr;
    emit(kind, tid);
}

static void barrier(uint64_t tid, tk_casemate_barrier b)
{
    rec.barrier = b;
    emit(TK_CASEMATE_BARRIER, tid);
}

/* casemate's prelude, with `vtcr` for the stage-2 geometry */
static void prelude(uint64_t vtcr, uint64_t hcr)
{
    sysreg(0, TK_CASEMATE_VTCR_EL2, vtcr);
    sysreg(0, TK_CASEMATE_TCR_EL2, 0x10);
    sysreg(0, TK_CASEMATE_MAIR_EL2, 0);
    sysreg(0, TK_CASEMATE_HCR_EL2, hcr);
    sysreg(0, TK_CASEMATE_SCTLR_EL2, 0);
}

static void roots(uint64_t n)
{
    prelude(0x2a, 1);
    mem(TK_CASEMATE_MEM_INIT, PAGES, n * 0x1000);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t base = PAGES + i * 0x1000;
        if (i >= LIVE_ROOTS)
            hint(TK_CASEMATE_RELEASE_TABLE, base - LIVE_ROOTS * 0x1000, 0);
        hint(TK_CASEMATE_SET_ROOT_LOCK, base, LOCKS + 8 * i);
        sysreg(0, TK_CASEMATE_VTTBR_EL2, base | (1 + i % LIVE_ROOTS) << 48);
    }
}

static void locks(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        lock(TK_CASEMATE_LOCK, 0, LOCKS + 8 * i);
    for (uint64_t i = 0; i < n; i++)
        lock(TK_CASEMATE_UNLOCK, 0, LOCKS + 8 * i);
}

/* L0 at PAGES, L1, L2 after it, then the level-3 tables */
static void tables(uint64_t n)
{
    uint64_t l0 = PAGES, l1 = l0 + 0x1000, l2 = l1 + 0x1000, l3 = l2 + 0x1000;
    uint64_t count = n / 4 ? n / 4 : 1;
    prelude(0x10, 0);
    mem(TK_CASEMATE_MEM_INIT, PAGES, (3 + count) * 0x1000);
    hint(TK_CASEMATE_SET_ROOT_LOCK, l0, LOCKS);
    mem(TK_CASEMATE_MEM_WRITE, l1, l2 | TABLE);
    mem(TK_CASEMATE_MEM_WRITE, l0, l1 | TABLE);
    sysreg(0, TK_CASEMATE_VTTBR_EL2, l0 | 1ull << 48);
    sysreg(0, TK_CASEMATE_HCR_EL2, 1);
    for (uint64_t i = 0; i < count; i++) {
        uint64_t slot = l2 + 8 * (i % 512);
        lock(TK_CASEMATE_LOCK, 0, LOCKS);
        if (i >= 512) { /* break the old table's entry, clean it */
            mem(TK_CASEMATE_MEM_WRITE, slot, 0);
            barrier(0, TK_CASEMATE_DSB_ISH);
            rec.tlbi = TK_CASEMATE_TLBI_VMALLS12E1IS;
            emit(TK_CASEMATE_TLBI, 0);
            barrier(0, TK_CASEMATE_DSB_ISH);
        }
        mem(TK_CASEMATE_MEM_WRITE, slot, (l3 + i * 0x1000) | TABLE);
        lock(TK_CASEMATE_UNLOCK, 0, LOCKS);
    }
}

static void threads(uint64_t n)
{
    mem(TK_CASEMATE_MEM_INIT, PAGES, 0x1000);
    for (uint64_t t = 0; t < n; t++) {
        sysreg(t, TK_CASEMATE_VTTBR_EL2, PAGES | 1ull << 48);
        barrier(t, TK_CASEMATE_DSB_ISH);
    }
}

int main(int argc, char **argv)
{
    uint64_t n;
    FILE *out;
    const char *shape = shape_args(argc, argv, &n, &out);
    (void)rnd; /* the shapes are regular */
    if (!(w = tk_casemate_writer_new(out, TK_CASEMATE_KEYWORD, &err))) {
        fprintf(stderr, "tk-gen-casemate-shapes: %s\n", err.message);
        return 2;
    }
    if (!strcmp(shape, "roots")) roots(n);
    else if (!strcmp(shape, "locks")) locks(n);
    else if (!strcmp(shape, "tables")) tables(n);
    else if (!strcmp(shape, "threads")) threads(n);
    else usage();
    if (tk_casemate_writer_free(w, &err) != TK_OK || fclose(out) != 0) {
        fprintf(stderr, "tk-gen-casemate-shapes: %s\n", err.message[0] ? err.message : "write failed");
        return 2;
    }
    return 0;
}
