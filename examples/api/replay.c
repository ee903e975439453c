/* Replay a Usercorn trace (UCIR) to instruction N and print the machine
 * state then: registers, memory map, and memory at ADDR:LEN if asked. It
 * uses UCIR's own reader, which the replay reads records through (the
 * generic reader suits code that treats every format alike).
 *   cc replay.c $(pkg-config --cflags --libs tracekit) -o replay
 *   ./replay examples/ucir/hello.ucir 8 0x401000:32 */
#include <stdio.h>
#include <stdlib.h>
#include <tracekit/tracekit.h>

enum { MAX_REGS = 512, MAX_MAPS = 256, MAX_MEM = 4096 };

static void print_regs(const tk_ucir_replay *rp, const tk_ucir_header *h)
{
    static uint32_t nums[MAX_REGS];
    static uint64_t values[MAX_REGS];
    size_t n = tk_ucir_replay_regs(rp, nums, values, MAX_REGS);
    for (size_t i = 0; i < n && i < MAX_REGS; i++) {
        char buf[32]; /* for the "reg<N>" of registers tracekit does not name */
        printf("reg %s 0x%llx\n", tk_ucir_reg_label(h->arch, h->mode, nums[i], buf, sizeof buf),
               (unsigned long long)values[i]);
    }
}

static void print_maps(const tk_ucir_replay *rp)
{
    static tk_ucir_map maps[MAX_MAPS];
    size_t n = tk_ucir_replay_maps(rp, maps, MAX_MAPS);
    for (size_t i = 0; i < n && i < MAX_MAPS; i++)
        printf("map 0x%llx size=0x%llx %c%c%c\n", (unsigned long long)maps[i].addr,
               (unsigned long long)maps[i].size, maps[i].prot & TK_UCIR_PROT_READ ? 'r' : '-',
               maps[i].prot & TK_UCIR_PROT_WRITE ? 'w' : '-',
               maps[i].prot & TK_UCIR_PROT_EXEC ? 'x' : '-');
}

/* The bytes at `spec` (ADDR:LEN), "??" where no write or read gave one. */
static tk_status print_memory(tk_ucir_replay *rp, const char *spec, tk_error *err)
{
    static uint8_t bytes[MAX_MEM], known[MAX_MEM];
    char *end;
    unsigned long long addr = strtoull(spec, &end, 0), len = 0;
    if (*end == ':')
        len = strtoull(end + 1, &end, 0);
    if (*end || len == 0 || len > MAX_MEM)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "'%s': expected ADDR:LEN, LEN from 1 to %d", spec, MAX_MEM);
    if (tk_ucir_replay_read(rp, addr, len, bytes, known, err) != TK_OK)
        return err->status;
    printf("mem 0x%llx:", addr);
    for (size_t i = 0; i < len; i++) {
        if (known[i])
            printf(" %02x", bytes[i]);
        else
            printf(" ??");
    }
    printf("\n");
    return TK_OK;
}

/* Replay `r` to instruction n and print the state: 0, or -1 (err). */
static int replay_to(tk_ucir_reader *r, uint64_t n, const char *mem, tk_error *err)
{
    const tk_ucir_header *h = tk_ucir_reader_header(r);
    tk_ucir_replay *rp = tk_ucir_replay_new(h, err);
    int rc = rp ? tk_ucir_replay_run_to(rp, r, n, err) : -1;
    if (rc == 0) { /* not an error for the library: the trace is shorter */
        tk_ucir_replay_info info;
        tk_ucir_replay_info_get(rp, &info);
        tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                     "the trace has %llu instructions", (unsigned long long)info.instructions);
        rc = -1;
    } else if (rc == 1) {
        tk_ucir_replay_info info;
        tk_ucir_replay_info_get(rp, &info);
        printf("instruction %lld pc=0x%llx\n", (long long)info.instruction,
               (unsigned long long)info.pc);
        print_regs(rp, h);
        print_maps(rp);
        rc = mem && print_memory(rp, mem, err) != TK_OK ? -1 : 0;
    }
    tk_ucir_replay_free(rp);
    return rc;
}

int main(int argc, char **argv)
{
    tk_error err;
    tk_ucir_reader *r = NULL;
    char *end;
    int rc = -1;

    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: replay TRACE N [ADDR:LEN]\n");
        return 2;
    }
    uint64_t n = strtoull(argv[2], &end, 0);
    if (*end) {
        fprintf(stderr, "replay: '%s' is not an instruction number\n", argv[2]);
        return 2;
    }
    tk_input *in = tk_input_open(argv[1], &err);
    if (in && (r = tk_ucir_reader_new(in, NULL, &err))) /* NULL: default options */
        rc = replay_to(r, n, argc == 4 ? argv[3] : NULL, &err);
    tk_ucir_reader_free(r); /* before the input it borrows */
    tk_input_close(in);
    if (rc < 0) {
        char msg[600];
        fprintf(stderr, "replay: %s\n", tk_error_format(&err, argv[1], msg, sizeof msg));
        return err.status == TK_EUSAGE ? 2 : 1;
    }
    return 0;
}
