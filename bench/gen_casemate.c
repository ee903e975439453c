/* Generate a large casemate log with tracekit's writer: break-before-make
 * cycles on 4-level stage-2 page tables, several roots (VMIDs) and
 * threads, each cycle done the way casemate's checker accepts it:
 *
 *   lock; write invalid; dsb ish; tlbi ipas2e1is; dsb ish; tlbi vmalle1is;
 *   dsb ish; write the new valid descriptor; unlock
 *
 * with a VTTBR_EL2 context switch when the thread last ran on another
 * root, and now and then a read of the entry. Before the cycles: the
 * system-register prelude of current casemate logs, then per root
 * mem-init of its table pages, set_root_lock / set_owner_root hints and
 * the whole tree written bottom-up (one L0, one L1, two L2 and eight L3
 * tables: 4096 mapped 4 KiB pages), activated by VTTBR_EL2 and HCR_EL2.
 * The log passes tracekit bbm (bench/run.sh checks that, then times it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/tracekit.h>

#include "gen_common.h"

#define L3_TABLES 8
#define ENTRIES (L3_TABLES * 512)
#define PAGES (1 + 1 + 2 + L3_TABLES) /* L0, L1, L2 x2, L3 x8 */
#define MAX_ROOTS 64
#define MAX_THREADS 256
#define PAGE_DESC 0x4FFull        /* valid L3 page, AF, S2AP RW, normal WB */
#define TABLE_DESC 0x3ull

static void usage(void)
{
    fprintf(stderr,
            "usage: tk-gen-casemate [--events N | --bytes N] [--seed S] [--threads T]\n"
            "                       [--roots R] [--style keyword|compact] -o OUT\n");
    exit(2);
}

typedef struct gen {
    tk_casemate_writer *w;
    tk_casemate_style style;
    tk_casemate_record rec;
    uint64_t id, events, bytes;
    tk_error err;
} gen;

static const char *const srcs[] = {
    "arch/arm64/kvm/hyp/pgtable.c:412", "arch/arm64/kvm/hyp/pgtable.c:431",
    "arch/arm64/kvm/hyp/nvhe/mem_protect.c:208", "arch/arm64/kvm/hyp/nvhe/tlb.c:77",
    "arch/arm64/kvm/hyp/nvhe/tlb.c:91", "arch/arm64/kvm/hyp/nvhe/spinlock.h:52",
    "arch/arm64/kvm/hyp/nvhe/mm.c:119", "arch/arm64/kvm/hyp/nvhe/setup.c:301",
};

static void emit(gen *g, tk_casemate_kind kind, uint64_t tid, int src)
{
    g->rec.kind = kind;
    g->rec.id = g->id++;
    g->rec.tid = tid;
    g->rec.src_kind = TK_CASEMATE_SRC_STRING;
    g->rec.src = srcs[src];
    g->rec.src_len = strlen(srcs[src]);
    char line[TK_CASEMATE_FORMAT_MAX + 64];
    g->bytes += tk_casemate_format(&g->rec, g->style, line, sizeof line) + 1;
    if (tk_casemate_write(g->w, &g->rec, &g->err) != TK_OK) {
        fprintf(stderr, "tk-gen-casemate: %s\n", g->err.message);
        exit(1);
    }
    memset(&g->rec, 0, sizeof g->rec);
    g->events++;
}

static void write_mem(gen *g, uint64_t tid, uint64_t addr, uint64_t value, int src)
{
    g->rec.mem_order = TK_CASEMATE_PLAIN;
    g->rec.address = addr;
    g->rec.value = value;
    emit(g, TK_CASEMATE_MEM_WRITE, tid, src);
}

static void sysreg(gen *g, uint64_t tid, tk_casemate_sysreg reg, uint64_t value)
{
    g->rec.sysreg = reg;
    g->rec.value = value;
    emit(g, TK_CASEMATE_SYSREG_WRITE, tid, 7);
}

static void barrier(gen *g, uint64_t tid, tk_casemate_barrier b)
{
    g->rec.barrier = b;
    emit(g, TK_CASEMATE_BARRIER, tid, 3);
}

static void lock(gen *g, tk_casemate_kind kind, uint64_t tid, uint64_t addr)
{
    g->rec.address = addr;
    emit(g, kind, tid, 5);
}

typedef struct root {
    uint64_t page[PAGES];    /* L0, L1, L2 x2, L3 x8 */
    uint64_t lock, vmid;
    uint64_t value[ENTRIES]; /* current L3 descriptors */
} root;

/* The L3 entry `e` of a root: its address and the IPA it maps. */
static uint64_t entry_addr(const root *r, unsigned e)
{
    return r->page[4 + e / 512] + 8 * (e % 512);
}

static uint64_t entry_ipa(unsigned e)
{
    unsigned k = e / 512; /* L3 table k hangs off L2 table k / 4, entry k % 4 */
    return (uint64_t)(k / 4) << 30 | (uint64_t)(k % 4) << 21 | (uint64_t)(e % 512) << 12;
}

static uint64_t new_page(void)
{
    return (0x800000000ull + (rnd() % (1u << 20)) * 0x1000) | PAGE_DESC;
}

int main(int argc, char **argv)
{
    uint64_t events = 1000000, bytes = 0;
    unsigned threads = 4, nroots = 3;
    tk_casemate_style style = TK_CASEMATE_KEYWORD;
    const char *out_path = NULL;
    for (int i = 1; i < argc; i += 2) { /* options all take a value */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage();
        if (!strcmp(a, "--events")) events = parse_num(v);
        else if (!strcmp(a, "--bytes")) bytes = parse_num(v);
        else if (!strcmp(a, "--seed")) rng_state ^= parse_num(v) * 0x9E3779B97F4A7C15ULL;
        else if (!strcmp(a, "--threads")) threads = (unsigned)parse_num(v);
        else if (!strcmp(a, "--roots")) nroots = (unsigned)parse_num(v);
        else if (!strcmp(a, "--style")) {
            if (!strcmp(v, "keyword")) style = TK_CASEMATE_KEYWORD;
            else if (!strcmp(v, "compact")) style = TK_CASEMATE_COMPACT;
            else usage();
        } else if (!strcmp(a, "-o")) out_path = v;
        else usage();
    }
    if (!out_path || threads == 0 || threads > MAX_THREADS || nroots == 0 || nroots > MAX_ROOTS)
        usage();
    if (rng_state == 0)
        rng_state = 0x2545F4914F6CDD1DULL;
    FILE *out = strcmp(out_path, "-") ? fopen(out_path, "wb") : stdout;
    if (!out) {
        perror(out_path);
        return 2;
    }
    gen g;
    memset(&g, 0, sizeof g);
    tk_error_clear(&g.err);
    g.style = style;
    g.w = tk_casemate_writer_new(out, style, &g.err);
    root *roots = calloc(nroots, sizeof *roots);
    if (!g.w || !roots) {
        fprintf(stderr, "tk-gen-casemate: out of memory\n");
        return 2;
    }

    /* the system-register prelude of current casemate logs */
    sysreg(&g, 0, TK_CASEMATE_VTCR_EL2, 0x10);
    sysreg(&g, 0, TK_CASEMATE_TCR_EL2, 0x10);
    sysreg(&g, 0, TK_CASEMATE_MAIR_EL2, 0);
    sysreg(&g, 0, TK_CASEMATE_HCR_EL2, 0);
    sysreg(&g, 0, TK_CASEMATE_SCTLR_EL2, 0);

    /* the trees, built bottom-up before their roots are loaded */
    for (unsigned r = 0; r < nroots; r++) {
        root *t = &roots[r];
        t->vmid = r + 1;
        t->lock = 0x7f000000ull + 0x40 * r;
        for (unsigned i = 0; i < PAGES; i++) {
            t->page[i] = 0x40000000ull + ((uint64_t)r * PAGES + i) * 0x1000;
            g.rec.address = t->page[i];
            g.rec.size = 0x1000;
            emit(&g, TK_CASEMATE_MEM_INIT, 0, 6);
        }
        g.rec.hint = TK_CASEMATE_SET_ROOT_LOCK;
        g.rec.location = t->page[0];
        g.rec.value = t->lock;
        emit(&g, TK_CASEMATE_HINT, 0, 2);
        for (unsigned i = 1; i < PAGES; i++) {
            g.rec.hint = TK_CASEMATE_SET_OWNER_ROOT;
            g.rec.location = t->page[i];
            g.rec.value = t->page[0];
            emit(&g, TK_CASEMATE_HINT, 0, 2);
        }
        for (unsigned e = 0; e < ENTRIES; e++) {
            t->value[e] = (0x100000000ull + ((uint64_t)r << 28) + entry_ipa(e)) | PAGE_DESC;
            write_mem(&g, 0, entry_addr(t, e), t->value[e], 0);
        }
        for (unsigned k = 0; k < L3_TABLES; k++) /* L2[k % 4] -> L3 k */
            write_mem(&g, 0, t->page[2 + k / 4] + 8 * (k % 4), t->page[4 + k] | TABLE_DESC, 0);
        for (unsigned k = 0; k < 2; k++) /* L1[k] -> L2 k */
            write_mem(&g, 0, t->page[1] + 8 * k, t->page[2 + k] | TABLE_DESC, 0);
        write_mem(&g, 0, t->page[0], t->page[1] | TABLE_DESC, 0); /* L0[0] -> L1 */
    }

    /* load every root on thread 0, then each thread its first root */
    unsigned cur[MAX_THREADS];
    for (unsigned r = 0; r < nroots; r++) {
        sysreg(&g, 0, TK_CASEMATE_VTTBR_EL2, roots[r].page[0] | roots[r].vmid << 48);
        if (r == 0)
            sysreg(&g, 0, TK_CASEMATE_HCR_EL2, 1);
    }
    cur[0] = nroots - 1;
    for (unsigned t = 1; t < threads; t++) {
        cur[t] = t % nroots;
        sysreg(&g, t, TK_CASEMATE_VTTBR_EL2, roots[cur[t]].page[0] | roots[cur[t]].vmid << 48);
        sysreg(&g, t, TK_CASEMATE_HCR_EL2, 1);
    }

    /* break-before-make cycles */
    while (bytes ? g.bytes < bytes : g.events < events) {
        uint64_t x = rnd();
        unsigned t = (unsigned)(x % threads), r = (unsigned)((x >> 16) % nroots);
        unsigned e = (unsigned)((x >> 32) % ENTRIES);
        root *rt = &roots[r];
        if (cur[t] != r) {
            sysreg(&g, t, TK_CASEMATE_VTTBR_EL2, rt->page[0] | rt->vmid << 48);
            cur[t] = r;
        }
        uint64_t addr = entry_addr(rt, e);
        if ((x >> 60) == 0) {
            g.rec.address = addr;
            g.rec.value = rt->value[e];
            emit(&g, TK_CASEMATE_MEM_READ, t, 1);
        }
        lock(&g, TK_CASEMATE_LOCK, t, rt->lock);
        write_mem(&g, t, addr, 0, 1);
        barrier(&g, t, TK_CASEMATE_DSB_ISH);
        g.rec.tlbi = TK_CASEMATE_TLBI_IPAS2E1IS;
        g.rec.tlbi_operand = TK_CASEMATE_OPERAND_VALUE;
        g.rec.value = entry_ipa(e) >> 12;
        emit(&g, TK_CASEMATE_TLBI, t, 3);
        barrier(&g, t, TK_CASEMATE_DSB_ISH);
        g.rec.tlbi = TK_CASEMATE_TLBI_VMALLE1IS;
        emit(&g, TK_CASEMATE_TLBI, t, 4);
        barrier(&g, t, TK_CASEMATE_DSB_ISH);
        rt->value[e] = new_page();
        write_mem(&g, t, addr, rt->value[e], 1);
        lock(&g, TK_CASEMATE_UNLOCK, t, rt->lock);
    }
    if (tk_casemate_writer_free(g.w, &g.err) != TK_OK || (out != stdout && fclose(out) != 0)) {
        fprintf(stderr, "tk-gen-casemate: writing %s failed\n", out_path);
        return 1;
    }
    free(roots);
    fprintf(stderr, "tk-gen-casemate: %llu events\n", (unsigned long long)g.events);
    return 0;
}
