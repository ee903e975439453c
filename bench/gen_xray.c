/* Generate a synthetic LLVM XRay trace (FDR v1–5 or basic v1–3) with
 * tracekit's writer, shaped like a real instrumented program:
 *
 *  - a call graph of F functions (ids 1..F): ~30% leaves, the others
 *    calling 1–6 callees, mostly "deeper" functions, some calling
 *    themselves or shallower ones (recursion);
 *  - per thread a random walk over that graph, nesting up to 20 deep,
 *    starting from a few top-level functions; occasional tail calls
 *    (TAIL_EXIT of the caller, then the callee's ENTER); some functions
 *    log 1 or 2 arguments (ENTER_ARG);
 *  - TSC per thread, all threads starting at the same base (so the first
 *    record of every thread has the smallest TSC of the trace: llvm-xray
 *    account treats the first record's TSC as a floor) and increasing by
 *    tens to thousands of ticks per record, with a rare jump > 2^32 (the
 *    FDR writer emits a TSCWrap) and rare CPU migrations (NewCPUId);
 *  - threads run in bursts of 1–64 records, so FDR buffers (and basic
 *    records) of different threads alternate in the file;
 *  - every call exits: each thread's stack is unwound at the end.
 *
 * --bytes stops once the records written need at least that many bytes
 * (not counting FDR block preambles), then unwinds: the file is a little
 * larger. --records counts logical records, unwinding included. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/tracekit.h>

#include "gen_common.h"
#include <tracekit/xray.h>

enum { MAX_DEPTH = 20, MAX_THREADS = 1024, MAX_CALLEES = 6, TOP_LEVEL = 8 };

typedef struct func {
    uint32_t callees[MAX_CALLEES];
    uint8_t ncallees;
    uint8_t nargs;  /* 0, or 1–2 for functions that log arguments */
    uint8_t leafy;  /* leaves do little work between entry and exit */
} func;

typedef struct thread {
    uint32_t tid;
    uint16_t cpu;
    int started;
    uint64_t tsc;
    uint32_t depth;
    uint32_t stack[MAX_DEPTH];
} thread;

static func *funcs; /* [1..nfuncs] */
static uint32_t nfuncs = 1000;
static thread threads[MAX_THREADS];
static unsigned nthreads = 4, ncpus;
static tk_xray_writer *writer;
static int fdr = 1;
static unsigned version;
static uint64_t written, est_bytes, total_depth, wraps, migrations, tails;
static tk_error err;
static const uint32_t pid = 31337;

static void usage(void)
{
    fprintf(stderr,
            "usage: tk-gen-xray [--mode fdr|basic] [--version N] (--bytes SIZE | --records N)\n"
            "                   [--threads T] [--seed S] [--functions F]\n"
            "                   [--buffer-size BYTES] -o OUT\n"
            "  FDR (default version 5) or basic mode (default version 3); SIZE may end\n"
            "  in K, M or G; --buffer-size is the FDR per-thread buffer (default 16K).\n");
    exit(2);
}

static void build_call_graph(void)
{
    funcs = calloc(nfuncs + 1, sizeof *funcs);
    if (!funcs) {
        fprintf(stderr, "tk-gen-xray: out of memory\n");
        exit(2);
    }
    for (uint32_t f = 1; f <= nfuncs; f++) {
        func *fn = &funcs[f];
        uint64_t r = rnd();
        int top = f <= TOP_LEVEL;
        fn->nargs = (r % 100) < 8 ? (uint8_t)(1 + (r >> 8) % 2) : 0;
        if (!top && ((r >> 16) % 100 < 30 || f == nfuncs)) {
            fn->leafy = 1; /* a leaf */
            continue;
        }
        fn->ncallees = (uint8_t)(1 + (r >> 24) % MAX_CALLEES);
        for (unsigned i = 0; i < fn->ncallees; i++) {
            uint64_t c = rnd();
            uint32_t rest = nfuncs - f, callee;
            if (c % 100 < 4)
                callee = f;                             /* self-recursion */
            else if (c % 100 < 7 || rest == 0)
                callee = 1 + (uint32_t)((c >> 8) % f);  /* back edge */
            else if (c % 100 < 55)
                callee = f + 1 + (uint32_t)((c >> 8) % (rest < 48 ? rest : 48));
            else
                callee = f + 1 + (uint32_t)((c >> 8) % rest);
            fn->callees[i] = callee;
        }
    }
}

static void put(thread *t, tk_xray_kind kind, uint32_t id)
{
    static uint64_t args[2];
    tk_xray_record rec;
    memset(&rec, 0, sizeof rec);
    rec.kind = kind;
    rec.cpu = t->cpu;
    rec.func_id = (int32_t)id;
    rec.tsc = t->tsc;
    rec.tid = t->tid;
    rec.pid = pid;
    if (kind == TK_XRAY_ENTER && funcs[id].nargs) {
        rec.kind = TK_XRAY_ENTER_ARG;
        rec.nargs = funcs[id].nargs;
        args[0] = rnd() % 4096;                         /* a size or index */
        args[1] = 0x7f0000000000ULL + (rnd() % (1u << 28) & ~15ULL); /* a pointer */
        rec.args = args;
    }
    if (tk_xray_write(writer, &rec, &err) != TK_OK) {
        fprintf(stderr, "tk-gen-xray: %s\n", err.message[0] ? err.message : "write failed");
        exit(2);
    }
    written++;
    est_bytes += fdr ? 8 + 16 * rec.nargs : 32 * (1 + rec.nargs);
}

/* Time spent since the thread's previous record. */
static void advance(thread *t, int small)
{
    if (!t->started) { /* the first record is at the common base */
        t->started = 1;
        return;
    }
    uint64_t r = rnd();
    unsigned bits = small ? 3 + (unsigned)(r % 6) : 4 + (unsigned)(r % 9); /* <= 256 / 4096 */
    t->tsc += 10 + ((r >> 8) & ((1ULL << bits) - 1));
    if ((r >> 32) % 4000000 == 0) { /* descheduled for seconds: > 2^32 ticks */
        t->tsc += (1ULL << 32) + (rnd() % (1ULL << 31));
        wraps++;
    }
    if ((r >> 40) % 100000 == 7) { /* migrated to another CPU */
        t->cpu = (uint16_t)((t->cpu + 1 + rnd() % (ncpus - 1)) % ncpus);
        migrations++;
        est_bytes += fdr ? 16 : 0;
    }
}

static void enter(thread *t, uint32_t id)
{
    put(t, TK_XRAY_ENTER, id);
    t->stack[t->depth++] = id;
    total_depth++;
}

/* One record of thread t: a call or a return. */
static void step(thread *t)
{
    if (t->depth == 0) {
        advance(t, 0);
        enter(t, 1 + (uint32_t)(rnd() % (nfuncs < TOP_LEVEL ? nfuncs : TOP_LEVEL)));
        return;
    }
    uint32_t f = t->stack[t->depth - 1];
    const func *fn = &funcs[f];
    uint64_t r = rnd();
    /* call with a probability falling with depth; leaves always return */
    unsigned p_call = t->depth >= MAX_DEPTH ? 0 : 940 - 40 * t->depth;
    advance(t, fn->leafy);
    if (fn->ncallees && r % 1000 < p_call) {
        enter(t, fn->callees[(r >> 16) % fn->ncallees]);
        return;
    }
    int tail_ok = fdr || version >= 2;
    if (tail_ok && fn->ncallees && t->depth >= 2 && (r >> 32) % 64 == 0) {
        /* tail call: f jumps to a callee that returns to f's caller */
        put(t, TK_XRAY_TAIL_EXIT, f);
        t->depth--;
        total_depth--;
        tails++;
        advance(t, 1);
        enter(t, fn->callees[(r >> 40) % fn->ncallees]);
        return;
    }
    put(t, TK_XRAY_EXIT, f);
    t->depth--;
    total_depth--;
}

int main(int argc, char **argv)
{
    uint64_t records = 0, bytes = 0, buffer_size = 0;
    const char *out_path = NULL, *mode = "fdr";
    for (int i = 1; i < argc; i += 2) { /* options all take a value */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage();
        if (!strcmp(a, "--mode")) mode = v;
        else if (!strcmp(a, "--version")) version = (unsigned)parse_num(v);
        else if (!strcmp(a, "--records")) records = parse_num(v);
        else if (!strcmp(a, "--bytes")) bytes = parse_num(v);
        else if (!strcmp(a, "--seed")) rng_state ^= parse_num(v) * 0x9E3779B97F4A7C15ULL;
        else if (!strcmp(a, "--threads")) nthreads = (unsigned)parse_num(v);
        else if (!strcmp(a, "--functions")) nfuncs = (uint32_t)parse_num(v);
        else if (!strcmp(a, "--buffer-size")) buffer_size = parse_num(v);
        else if (!strcmp(a, "-o")) out_path = v;
        else usage();
    }
    if (!strcmp(mode, "fdr")) fdr = 1;
    else if (!strcmp(mode, "basic")) fdr = 0;
    else usage();
    if (!version)
        version = fdr ? 5 : 3;
    if (!out_path || !(records || bytes) || (records && bytes) || nthreads == 0 ||
        nthreads > MAX_THREADS || nfuncs == 0 || nfuncs >= (1u << 28) ||
        version > (fdr ? 5u : 3u))
        usage();
    if (rng_state == 0) /* --seed cancelled the initial state: xorshift */
        rng_state = 0x2545F4914F6CDD1DULL; /* would then repeat 0 forever */
    ncpus = nthreads < 8 ? 8 : nthreads;

    FILE *out = strcmp(out_path, "-") ? fopen(out_path, "wb") : stdout;
    if (!out) {
        perror(out_path);
        return 2;
    }
    static char obuf[1 << 20];
    setvbuf(out, obuf, _IOFBF, sizeof obuf);
    tk_xray_header h;
    tk_xray_default_header(&h, fdr ? TK_XRAY_FDR : TK_XRAY_BASIC, (uint16_t)version);
    if (fdr && buffer_size)
        h.buffer_size = buffer_size;
    tk_error_clear(&err);
    writer = tk_xray_writer_new(out, &h, &err);
    if (!writer) {
        fprintf(stderr, "tk-gen-xray: %s\n", err.message);
        return 2;
    }
    build_call_graph();

    /* about 3 days of uptime at 1 GHz; the same base for every thread */
    uint64_t base = 259200000000000ULL + (rnd() % 1000000) * 1000;
    for (unsigned i = 0; i < nthreads; i++) {
        threads[i].tid = pid + 1 + i;
        threads[i].cpu = (uint16_t)(i % ncpus);
        threads[i].tsc = base;
    }
    for (;;) {
        if (bytes ? est_bytes >= bytes : written + total_depth + 2 >= records)
            break;
        thread *t = &threads[rnd() % nthreads];
        for (unsigned n = 1 + (unsigned)(rnd() % 64); n; n--) {
            step(t);
            if (!bytes && written + total_depth + 2 >= records)
                break;
        }
    }
    for (unsigned i = 0; i < nthreads; i++) { /* every call returns */
        thread *t = &threads[i];
        while (t->depth) {
            advance(t, 1);
            put(t, TK_XRAY_EXIT, t->stack[--t->depth]);
        }
    }
    int status = 0;
    if (tk_xray_writer_free(writer, &err) != TK_OK || (out != stdout && fclose(out) != 0) ||
        (out == stdout && fflush(out) != 0)) {
        fprintf(stderr, "tk-gen-xray: %s: %s\n", out_path,
                err.message[0] ? err.message : "write failed");
        status = 2;
    }
    if (!status)
        fprintf(stderr,
                "tk-gen-xray: wrote %llu records (%llu tail calls, %llu TSC jumps, "
                "%llu CPU migrations) of %u threads, %s v%u, to %s\n",
                (unsigned long long)written, (unsigned long long)tails,
                (unsigned long long)wraps, (unsigned long long)migrations, nthreads,
                fdr ? "FDR" : "basic", version, out_path);
    free(funcs);
    return status;
}
