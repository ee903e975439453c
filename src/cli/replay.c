/* tracekit replay: the machine state of a Usercorn trace at any
 * instruction (seeking through a cached checkpoint index), memory
 * contents, and the history of a memory range or a register. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "selection.h"

static const char help[] =
    "usage: tracekit replay [OPTIONS] FILE\n"
    "\n"
    "Replay a Usercorn trace (UCIR) and print the machine state: the current\n"
    "instruction and its address, the registers, the memory map. Instruction\n"
    "0 is the first one executed; the state of instruction N includes its\n"
    "effects. Without --at: the state at the end of the trace. --at and\n"
    "--history select; --range, --addr, --thread and --func do not apply.\n"
    "\n"
    "options:\n"
    "  -a, --at N            the state after instruction N\n"
    "  -M, --mem ADDR:LEN    also hexdump memory there (?? = no value known;\n"
    "                        repeatable)\n"
    "  -H, --history ADDR[:LEN]\n"
    "                        list every read and write touching the range\n"
    "                        (LEN default 1) with instruction and values\n"
    "  -r, --reg NAME        list every change of register NAME (rax, x0,\n"
    "                        sp, reg<N>)\n"
    "  --index PATH          checkpoint index file (default: a cache file in\n"
    "                        $XDG_CACHE_HOME/tracekit or ~/.cache/tracekit,\n"
    "                        built on the first --at and reused)\n"
    "  --no-index            replay from the start instead of seeking\n"
    "  --interval SIZE       inflated bytes between checkpoints when building\n"
    "                        the index (default 2M)\n"
    "  --threads N           frame decoding threads (default: all cores)\n"
    "  --max-frame SIZE      largest inflated frame accepted (default 256M)\n"
    "  --json                one JSON object (history: one per line)\n"
    "  --json-hex            --json with addresses and integers past 2^53 as\n"
    "                        \"0x...\" strings (jq 1.6, JavaScript)\n"
    "  --format NAME         read the input as NAME\n"
    "  --progress WHEN       progress line on stderr: auto (on a terminal,\n"
    "                        after a second), always or never\n"
    "  -h, --help            show this help\n";

enum { OPT_INDEX = OPT_FIRST_COMMAND_OPTION, OPT_NO_INDEX, OPT_INTERVAL };

#define MAX_MEM 16

typedef struct range {
    uint64_t addr, len;
} range;

static struct {
    int have_at;
    uint64_t at;
    range mem[MAX_MEM];
    size_t nmem;
    int have_history;
    range history;
    const char *reg;
    const char *index;
    int no_index;
    uint64_t interval;
    int seek_threads;   /* threads=1 was set for the seek, not by the user */
} R;

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    if (!*s || *s == '-')
        return -1;
    *v = strtoull(s, &end, 0);
    return *end ? -1 : 0;
}

/* ADDR[:LEN] */
static int parse_range(cli *c, const char *opt, const char *arg, int need_len, range *r)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", arg);
    char *colon = strchr(buf, ':');
    if (colon)
        *colon = '\0';
    r->len = 1;
    if (parse_u64(buf, &r->addr) != 0 || (colon && parse_u64(colon + 1, &r->len) != 0) ||
        (need_len && !colon) || r->len == 0 || r->len > ((uint64_t)1 << 30)) {
        cli_usage_error(c->command, "%s takes ADDR%s (numbers, 0x for hex; LEN 1..1G), not '%s'",
                        opt, need_len ? ":LEN" : "[:LEN]", arg);
        return -1;
    }
    return 1;
}

static int extra(cli *c, int opt, const char *arg)
{
    switch (opt) {
    case 'a':
        if (parse_u64(arg, &R.at) != 0) {
            cli_usage_error(c->command, "--at takes an instruction number, not '%s'", arg);
            return -1;
        }
        R.have_at = 1;
        return 1;
    case 'M':
        if (R.nmem == MAX_MEM) {
            cli_usage_error(c->command, "at most %d --mem ranges", MAX_MEM);
            return -1;
        }
        return parse_range(c, "--mem", arg, 1, &R.mem[R.nmem++]);
    case 'H':
        R.have_history = 1;
        return parse_range(c, "--history", arg, 0, &R.history);
    case 'r': R.reg = arg; return 1;
    case OPT_INDEX: R.index = arg; return 1;
    case OPT_NO_INDEX: R.no_index = 1; return 1;
    case OPT_INTERVAL:
        return cli_parse_size(c->command, "--interval", arg, &R.interval) == 0 ? 1 : -1;
    }
    return 0;
}

/* all_cores: ignore the one-thread default of seeks (index building
 * reads the whole trace) */
static tk_ucir_reader *open_reader(cli *c, tk_input *in, int all_cores, tk_error *err)
{
    tk_ucir_reader_options ro = {0, 0};
    uint64_t threads = 0;
    if (!(all_cores && R.seek_threads) &&
        tk_options_get_u64(c->opts, "threads", 0, &threads, err) != TK_OK)
        return NULL;
    ro.threads = threads > 1024 ? 1024 : (unsigned)threads;
    return tk_ucir_reader_new(in, &ro, err);
}

static int reg_number(const tk_ucir_header *h, const char *name, uint32_t *num)
{
    uint64_t v;
    if (strncasecmp(name, "reg", 3) == 0 && parse_u64(name + 3, &v) == 0 && v < 65536) {
        *num = (uint32_t)v;
        return 0;
    }
    for (uint32_t i = 0; i < 65536; i++) {
        const char *n = tk_ucir_reg_name(h->arch, h->mode, i);
        if (n && strcasecmp(n, name) == 0) {
            *num = i;
            return 0;
        }
    }
    return -1;
}

static const char *reg_label(const tk_ucir_header *h, uint32_t num, char *buf, size_t n)
{
    return tk_ucir_reg_label(h->arch, h->mode, num, buf, n);
}

static void perms(uint8_t prot, char out[4])
{
    out[0] = prot & TK_UCIR_PROT_READ ? 'r' : '-';
    out[1] = prot & TK_UCIR_PROT_WRITE ? 'w' : '-';
    out[2] = prot & TK_UCIR_PROT_EXEC ? 'x' : '-';
    out[3] = '\0';
}

/* "68 69 ?? 0a" style hex of known bytes, into out (3 chars a byte). */
static void hex_bytes(const uint8_t *b, const uint8_t *known, size_t n, char *out, int spaced)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        int k = !known || known[i];
        *out++ = k ? digits[b[i] >> 4] : '?';
        *out++ = k ? digits[b[i] & 15] : '?';
        if (spaced && i + 1 < n)
            *out++ = ' ';
    }
    *out = '\0';
}

/* ---- state output */

/* The instruction and its address (null before the first instruction, or
 * when unknown). */
static void json_insn(tk_sink *s, const tk_ucir_replay_info *in)
{
    if (in->instruction >= 0)
        tk_sink_u64(s, "insn", (uint64_t)in->instruction, 0);
    else
        tk_sink_null(s, "insn");
    if (in->pc_known && in->instruction >= 0)
        tk_sink_u64(s, "pc", in->pc, TK_SINK_ADDR);
    else
        tk_sink_null(s, "pc");
}

static tk_status print_memory_text(tk_ucir_replay *rp, const range *m, tk_error *err)
{
    printf("memory 0x%llx (%llu bytes):\n", (unsigned long long)m->addr,
           (unsigned long long)m->len);
    uint8_t b[16], k[16];
    char hex[64];
    for (uint64_t off = 0; off < m->len; off += 16) {
        size_t n = m->len - off < 16 ? (size_t)(m->len - off) : 16;
        tk_status st = tk_ucir_replay_read(rp, m->addr + off, n, b, k, err);
        if (st != TK_OK)
            return st;
        hex_bytes(b, k, n, hex, 1);
        char ascii[17];
        for (size_t i = 0; i < n; i++)
            ascii[i] = !k[i] ? ' ' : isprint(b[i]) ? (char)b[i] : '.';
        ascii[n] = '\0';
        printf("  0x%016llx: %-47s  |%s|\n", (unsigned long long)(m->addr + off), hex, ascii);
    }
    return TK_OK;
}

static tk_status print_state_text(tk_ucir_replay *rp, const tk_ucir_header *h, tk_error *err)
{
    tk_ucir_replay_info in;
    tk_ucir_replay_info_get(rp, &in);
    if (in.instruction < 0)
        printf("instruction: none executed\n");
    else if (in.pc_known)
        printf("instruction %lld at 0x%llx\n", (long long)in.instruction,
               (unsigned long long)in.pc);
    else
        printf("instruction %lld at an unknown address\n", (long long)in.instruction);
    printf("records applied: %llu, syscalls: %llu%s\n", (unsigned long long)in.records,
           (unsigned long long)in.syscalls, in.exited ? ", exited" : "");
    size_t n = tk_ucir_replay_regs(rp, NULL, NULL, 0);
    uint32_t *nums = malloc((n ? n : 1) * sizeof *nums);
    uint64_t *vals = malloc((n ? n : 1) * sizeof *vals);
    if (!nums || !vals) {
        free(nums);
        free(vals);
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    }
    tk_ucir_replay_regs(rp, nums, vals, n);
    printf("registers:%s\n", n ? "" : " none known");
    for (size_t i = 0; i < n; i++) {
        char buf[24];
        printf("  %-8s 0x%016llx\n", reg_label(h, nums[i], buf, sizeof buf),
               (unsigned long long)vals[i]);
    }
    free(nums);
    free(vals);
    size_t nm = tk_ucir_replay_maps(rp, NULL, 0);
    tk_ucir_map *maps = malloc((nm ? nm : 1) * sizeof *maps);
    if (!maps)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    tk_ucir_replay_maps(rp, maps, nm);
    printf("memory map:%s\n", nm ? "" : " empty");
    for (size_t i = 0; i < nm; i++) {
        char p[4];
        perms(maps[i].prot, p);
        printf("  0x%016llx-0x%016llx %s\n", (unsigned long long)maps[i].addr,
               (unsigned long long)(maps[i].addr + maps[i].size), p);
    }
    free(maps);
    for (size_t i = 0; i < R.nmem; i++) {
        tk_status st = print_memory_text(rp, &R.mem[i], err);
        if (st != TK_OK)
            return st;
    }
    return TK_OK;
}

static tk_status print_state_json(cli *c, tk_ucir_replay *rp, const tk_ucir_header *h,
                                  tk_sink *s, tk_error *err)
{
    tk_ucir_replay_info in;
    tk_ucir_replay_info_get(rp, &in);
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "file", c->path, 0);
    tk_sink_cstr(s, "format", tk_format_name(c->fmt), 0);
    json_insn(s, &in);
    size_t n = tk_ucir_replay_regs(rp, NULL, NULL, 0), nm = tk_ucir_replay_maps(rp, NULL, 0);
    uint32_t *nums = malloc((n ? n : 1) * sizeof *nums);
    uint64_t *vals = malloc((n ? n : 1) * sizeof *vals);
    tk_ucir_map *maps = malloc((nm ? nm : 1) * sizeof *maps);
    if (!nums || !vals || !maps) {
        free(nums);
        free(vals);
        free(maps);
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    }
    tk_ucir_replay_regs(rp, nums, vals, n);
    tk_ucir_replay_maps(rp, maps, nm);
    tk_sink_array_begin(s, "registers");
    for (size_t i = 0; i < n; i++) {
        char buf[24];
        tk_sink_object_begin(s, NULL);
        tk_sink_cstr(s, "reg", reg_label(h, nums[i], buf, sizeof buf), 0);
        tk_sink_u64(s, "value", vals[i], TK_SINK_HEX);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    tk_sink_array_begin(s, "maps");
    for (size_t i = 0; i < nm; i++) {
        char p[4];
        perms(maps[i].prot, p);
        tk_sink_object_begin(s, NULL);
        tk_sink_u64(s, "addr", maps[i].addr, TK_SINK_ADDR);
        tk_sink_u64(s, "size", maps[i].size, TK_SINK_HEX);
        tk_sink_u64(s, "prot", maps[i].prot, 0);
        tk_sink_cstr(s, "perms", p, 0);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    free(nums);
    free(vals);
    free(maps);
    if (R.nmem) {
        tk_sink_array_begin(s, "memory");
        for (size_t i = 0; i < R.nmem; i++) {
            size_t len = (size_t)R.mem[i].len;
            uint8_t *b = malloc(len), *k = malloc(len);
            char *hex = malloc(2 * len + 1);
            tk_status st = b && k && hex
                               ? tk_ucir_replay_read(rp, R.mem[i].addr, len, b, k, err)
                               : tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD,
                                              "out of memory");
            if (st == TK_OK) {
                hex_bytes(b, k, len, hex, 0);
                tk_sink_object_begin(s, NULL);
                tk_sink_u64(s, "addr", R.mem[i].addr, TK_SINK_ADDR);
                tk_sink_u64(s, "size", R.mem[i].len, 0);
                tk_sink_cstr(s, "data", hex, 0);
                tk_sink_object_end(s);
            }
            free(b);
            free(k);
            free(hex);
            if (st != TK_OK)
                return st;
        }
        tk_sink_array_end(s);
    }
    tk_sink_u64(s, "syscall_count", in.syscalls, 0);
    tk_sink_bool(s, "exited", in.exited);
    tk_sink_object_end(s);
    return TK_OK;
}

/* ---- seeking */

/* Open (building it first if missing or stale) the checkpoint index of
 * c->path; NULL when the trace cannot have one (a note is printed when
 * an index was wanted but cannot be made). */
static tk_ucir_index *open_index(cli *c, tk_error *err)
{
    char def[4096];
    const char *path = R.index;
    if (!path) {
        tk_error e; /* no cache directory: replay without an index */
        if (tk_ucir_index_default_path(c->path, def, sizeof def, &e) != TK_OK)
            return NULL;
        path = def;
    }
    tk_error e;
    tk_error_clear(&e);
    tk_ucir_index *ix = tk_ucir_index_open(path, c->path, &e);
    if (ix)
        return ix;
    tk_error_clear(&e);
    tk_input *in = tk_input_open(c->path, &e);
    tk_ucir_reader *r = in ? open_reader(c, in, 1, &e) : NULL;
    tk_ucir_index_options o = {R.interval};
    tk_status st = r ? tk_ucir_index_build(r, c->path, path, &o, &e) : e.status;
    tk_ucir_reader_free(r);
    tk_input_close(in);
    if (st == TK_EMALFORMED) { /* the trace itself: report it as such */
        *err = e;
        return NULL;
    }
    if (st != TK_OK) {
        fprintf(stderr, "tracekit: replay: note: no checkpoint index (%s); replaying from the start\n",
                e.message);
        return NULL;
    }
    tk_error_clear(&e);
    ix = tk_ucir_index_open(path, c->path, &e);
    if (!ix)
        fprintf(stderr, "tracekit: replay: note: %s; replaying from the start\n", e.message);
    return ix;
}

/* ---- history */

#define HISTORY_BYTES 64 /* values longer than this are cut, with "..." */

/* A read or write of the --history range: its first HISTORY_BYTES bytes
 * (null when the trace recorded none) and a write's previous bytes (`b`
 * and `k`: ?? where unknown). */
static void history_json_mem(tk_sink *s, const tk_ucir_replay_info *in, const tk_ucir_op *op,
                             size_t n, const uint8_t *b, const uint8_t *k)
{
    char hex[2 * HISTORY_BYTES + 1];
    int write = op->kind == TK_UCIR_MEM_WRITE;
    tk_sink_object_begin(s, NULL);
    json_insn(s, in);
    tk_sink_cstr(s, "kind", write ? "mem_write" : "mem_read", 0);
    tk_sink_u64(s, "addr", op->addr, TK_SINK_ADDR);
    tk_sink_u64(s, "size", op->size, 0);
    hex_bytes(op->data, NULL, n, hex, 0);
    if (op->len)
        tk_sink_cstr(s, "data", hex, 0);
    else
        tk_sink_null(s, "data");
    if (write && n) {
        hex_bytes(b, k, n, hex, 0);
        tk_sink_cstr(s, "old_data", hex, 0);
    } else if (write) {
        tk_sink_null(s, "old_data");
    }
    tk_sink_object_end(s);
}

/* A history line in text. */
static void history_line(const tk_ucir_replay_info *in, const char *what, const char *key,
                         uint64_t addr, const char *hex, const char *old)
{
    char idx[32], pc[32];
    if (in->instruction < 0)
        snprintf(idx, sizeof idx, "setup");
    else
        snprintf(idx, sizeof idx, "%lld", (long long)in->instruction);
    if (in->pc_known && in->instruction >= 0)
        snprintf(pc, sizeof pc, "0x%llx", (unsigned long long)in->pc);
    else
        snprintf(pc, sizeof pc, "-");
    if (strcmp(key, "reg") == 0)
        printf("%-10s %-18s %s = 0x%s%s%s%s\n", idx, pc, what, hex, old ? " (was 0x" : "",
               old ? old : "", old ? ")" : "");
    else
        printf("%-10s %-18s %-5s 0x%llx: %s%s%s%s\n", idx, pc, what, (unsigned long long)addr,
               hex, old ? " (was " : "", old ? old : "", old ? ")" : "");
}

static int overlaps(const tk_ucir_op *op, const range *r)
{
    uint64_t a = op->addr, e = op->addr + (op->size ? op->size - 1 : 0);
    uint64_t ra = r->addr, re = r->addr + r->len - 1;
    return op->size && a <= re && ra <= e;
}

static tk_status run_history(cli *c, tk_ucir_reader *r, tk_ucir_replay *rp,
                             const tk_ucir_header *h, uint32_t reg, tk_sink *s, tk_error *err)
{
    tk_ucir_op op;
    tk_ucir_pos pos;
    tk_ucir_replay_info in;
    int rc;
    char hex[3 * HISTORY_BYTES + 8], old[3 * HISTORY_BYTES + 8];
    uint8_t b[HISTORY_BYTES], k[HISTORY_BYTES];
    while ((rc = tk_ucir_next(r, &op, err)) == 1) {
        tk_ucir_reader_pos(r, &pos);
        int mem = R.have_history && (op.kind == TK_UCIR_MEM_READ || op.kind == TK_UCIR_MEM_WRITE) &&
                  overlaps(&op, &R.history);
        int regc = R.reg && op.kind == TK_UCIR_REG_CHANGE && op.reg == reg;
        uint64_t prev = 0;
        int had = regc && tk_ucir_replay_reg(rp, reg, &prev);
        size_t n = op.len < HISTORY_BYTES ? (size_t)op.len : HISTORY_BYTES;
        if (mem && op.kind == TK_UCIR_MEM_WRITE && n &&
            tk_ucir_replay_read(rp, op.addr, n, b, k, err) != TK_OK)
            return err->status;
        int applied = tk_ucir_replay_apply(rp, &op, &pos, err);
        if (applied < 0)
            return err->status;
        if (!applied || (!mem && !regc))
            continue;
        tk_ucir_replay_info_get(rp, &in);
        if (regc) {
            char buf[24];
            const char *name = reg_label(h, reg, buf, sizeof buf);
            if (c->json) {
                tk_sink_object_begin(s, NULL);
                json_insn(s, &in);
                tk_sink_cstr(s, "reg", name, 0);
                tk_sink_u64(s, "value", op.value, TK_SINK_HEX);
                if (had)
                    tk_sink_u64(s, "old_value", prev, TK_SINK_HEX);
                else
                    tk_sink_null(s, "old_value");
                tk_sink_object_end(s);
                continue;
            }
            snprintf(hex, sizeof hex, "%016llx", (unsigned long long)op.value);
            snprintf(old, sizeof old, "%016llx", (unsigned long long)prev);
            history_line(&in, name, "reg", reg, hex, had ? old : NULL);
            continue;
        }
        if (c->json) {
            history_json_mem(s, &in, &op, n, b, k);
            continue;
        }
        if (op.len) {
            hex_bytes(op.data, NULL, n, hex, 0);
            if (op.len > n)
                strcat(hex, "...");
        } else {
            snprintf(hex, sizeof hex, "(%llu bytes, no value recorded)",
                     (unsigned long long)op.size);
        }
        const char *was = NULL;
        if (op.kind == TK_UCIR_MEM_WRITE && n) {
            hex_bytes(b, k, n, old, 0);
            if (op.len > n)
                strcat(old, "...");
            was = old;
        }
        history_line(&in, op.kind == TK_UCIR_MEM_READ ? "read" : "write", "addr", op.addr,
                     hex, was);
    }
    return rc < 0 ? err->status : TK_OK;
}

/* ---- the command */

static int fail(cli *c, const tk_error *err)
{
    return cli_report(c->path, err);
}

int cmd_replay(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_BASE_LONG_OPTIONS, CLI_UCIR_LONG_OPTIONS, CLI_SELECT_LONG_OPTIONS,
        {"at", required_argument, NULL, 'a'},
        {"mem", required_argument, NULL, 'M'},
        {"history", required_argument, NULL, 'H'},
        {"reg", required_argument, NULL, 'r'},
        {"index", required_argument, NULL, OPT_INDEX},
        {"no-index", no_argument, NULL, OPT_NO_INDEX},
        {"interval", required_argument, NULL, OPT_INTERVAL},
        {0}};
    cli c;
    const char *path = NULL;
    if (cli_init(&c, "replay") != EXIT_OK)
        return EXIT_TROUBLE;
    int rc = cli_parse(&c, argc, argv, "ha:M:H:r:", longopts, help, extra, &path);
    rc = cli_refuse_selection(&c, rc, "replay selects with --at and --history");
    /* a history covers the whole trace, the state one instruction */
    rc = cli_exclusive(&c, rc, R.have_at && R.have_history, "--at", "--history");
    rc = cli_exclusive(&c, rc, R.have_at && R.reg, "--at", "--reg");
    rc = cli_exclusive(&c, rc, R.nmem && (R.have_history || R.reg), "--mem",
                       R.have_history ? "--history" : "--reg");
    rc = cli_exclusive(&c, rc, R.no_index && R.index, "--no-index", "--index");
    rc = cli_exclusive(&c, rc, R.no_index && R.interval, "--no-index", "--interval");
    if (rc >= 0) {
        cli_close(&c);
        return rc;
    }
    if ((rc = cli_open(&c, path)) != EXIT_OK) {
        cli_close(&c);
        return rc;
    }
    tk_error err;
    tk_error_clear(&err);
    tk_ucir_reader *r = NULL;
    tk_ucir_replay *rp = NULL;
    tk_ucir_index *ix = NULL;
    tk_sink *s = NULL;
    if (strcmp(tk_format_name(c.fmt), "ucir") != 0 &&
        strcmp(tk_format_name(c.fmt), "usercorn") != 0) {
        rc = cli_usage_error(c.command, "%s is a %s trace: replay reads Usercorn (ucir) traces",
                             c.path, tk_format_name(c.fmt));
        goto done;
    }
    /* a seek replays about one checkpoint interval: frames decoded ahead
     * by more threads would be wasted */
    if (R.have_at && !R.no_index && !tk_options_get(c.opts, "threads")) {
        if (cli_set(&c, "threads", "1") != EXIT_OK) {
            rc = EXIT_TROUBLE;
            goto done;
        }
        R.seek_threads = 1;
    }
    if (!(r = open_reader(&c, c.in, 0, &err))) {
        rc = fail(&c, &err);
        goto done;
    }
    const tk_ucir_header *h = tk_ucir_reader_header(r);
    uint32_t reg = 0;
    if (R.reg && reg_number(h, R.reg, &reg) != 0) {
        rc = cli_usage_error(c.command, "no register '%s' on %s", R.reg,
                             tk_ucir_arch_name(h->arch) ? tk_ucir_arch_name(h->arch) : "this architecture");
        goto done;
    }
    if (!(rp = tk_ucir_replay_new(h, &err)) || !(s = cli_sink(&c))) {
        rc = rp ? EXIT_TROUBLE : cli_report(NULL, &err); /* cli_sink printed its own */
        goto done;
    }
    tk_status st = TK_OK;
    if (R.have_history || R.reg) {
        st = run_history(&c, r, rp, h, reg, s, &err);
    } else {
        int seekable = R.have_at && !R.no_index && strcmp(path, "-") != 0 &&
                       h->variant == TK_UCIR_SPEC;
        if (seekable && !(ix = open_index(&c, &err)) && err.status != TK_OK) {
            rc = fail(&c, &err);
            goto done;
        }
        if (ix)
            st = tk_ucir_replay_seek(rp, r, ix, R.at, &err);
        int got = 0;
        if (st == TK_OK) {
            got = R.have_at ? tk_ucir_replay_run_to(rp, r, R.at, &err)
                            : tk_ucir_replay_run_all(rp, r, &err);
            if (got < 0)
                st = err.status;
        }
        if (st == TK_OK && R.have_at && got == 0) {
            tk_ucir_replay_info in;
            tk_ucir_replay_info_get(rp, &in);
            rc = cli_usage_error(c.command, "--at %llu: %s has %llu instructions",
                                 (unsigned long long)R.at, c.path,
                                 (unsigned long long)in.instructions);
            goto done;
        }
        if (st == TK_OK)
            st = c.json ? print_state_json(&c, rp, h, s, &err) : print_state_text(rp, h, &err);
    }
    rc = cli_finish(&c, s);
    tk_sink_free(s);
    s = NULL;
    if (st != TK_OK)
        rc = fail(&c, &err);
done:
    if (s) {
        cli_finish(&c, s);
        tk_sink_free(s);
    }
    tk_ucir_replay_free(rp);
    tk_ucir_index_close(ix);
    tk_ucir_reader_free(r);
    cli_close(&c);
    return rc;
}
