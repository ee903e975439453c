/* replay's output: the machine state, memory dumps and the history of a
 * memory range or a register, as text or JSON. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucir/cmd/cmd.h"

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

static tk_status nomem(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
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

static tk_status print_memory_text(FILE *out, tk_ucir_replay *rp, const tk_ucir_range *m,
                                   tk_error *err)
{
    fprintf(out, "memory 0x%llx (%llu bytes):\n", (unsigned long long)m->addr,
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
        fprintf(out, "  0x%016llx: %-47s  |%s|\n", (unsigned long long)(m->addr + off), hex,
                ascii);
    }
    return TK_OK;
}

/* "  0x%016llx-0x%016llx rwx\n" without printf: a million maps are a
 * million lines, and fprintf was most of replay's time on them. */
static void print_map_line(FILE *out, const tk_ucir_map *m)
{
    static const char digits[] = "0123456789abcdef";
    char line[44] = {' ', ' '}, *p = line + 2;
    uint64_t v[2] = {m->addr, m->addr + m->size};
    for (int k = 0; k < 2; k++) {
        *p++ = '0';
        *p++ = 'x';
        for (int i = 60; i >= 0; i -= 4)
            *p++ = digits[v[k] >> i & 15];
        *p++ = k ? ' ' : '-';
    }
    perms(m->prot, p); /* its NUL is overwritten */
    p[3] = '\n';
    fwrite(line, 1, sizeof line, out);
}

/* The registers and maps known, in arrays the caller frees. */
typedef struct state_lists {
    uint32_t *nums;
    uint64_t *vals;
    size_t n;
    tk_ucir_map *maps;
    size_t nm;
} state_lists;

static void lists_free(state_lists *l)
{
    free(l->nums);
    free(l->vals);
    free(l->maps);
}

static tk_status lists_get(tk_ucir_replay *rp, state_lists *l, tk_error *err)
{
    l->n = tk_ucir_replay_regs(rp, NULL, NULL, 0);
    l->nm = tk_ucir_replay_maps(rp, NULL, 0);
    l->nums = malloc((l->n ? l->n : 1) * sizeof *l->nums);
    l->vals = malloc((l->n ? l->n : 1) * sizeof *l->vals);
    l->maps = malloc((l->nm ? l->nm : 1) * sizeof *l->maps);
    if (!l->nums || !l->vals || !l->maps) {
        lists_free(l);
        return nomem(err);
    }
    tk_ucir_replay_regs(rp, l->nums, l->vals, l->n);
    tk_ucir_replay_maps(rp, l->maps, l->nm);
    return TK_OK;
}

static tk_status print_state_text(FILE *out, tk_ucir_replay *rp, const tk_ucir_header *h,
                                  const tk_ucir_range *mem, size_t nmem, tk_error *err)
{
    tk_ucir_replay_info in;
    tk_ucir_replay_info_get(rp, &in);
    if (in.instruction < 0)
        fprintf(out, "instruction: none executed\n");
    else if (in.pc_known)
        fprintf(out, "instruction %lld at 0x%llx\n", (long long)in.instruction,
                (unsigned long long)in.pc);
    else
        fprintf(out, "instruction %lld at an unknown address\n", (long long)in.instruction);
    fprintf(out, "records applied: %llu, syscalls: %llu%s\n", (unsigned long long)in.records,
            (unsigned long long)in.syscalls, in.exited ? ", exited" : "");
    state_lists l;
    if (lists_get(rp, &l, err) != TK_OK)
        return err->status;
    fprintf(out, "registers:%s\n", l.n ? "" : " none known");
    for (size_t i = 0; i < l.n; i++) {
        char buf[24];
        fprintf(out, "  %-8s 0x%016llx\n", reg_label(h, l.nums[i], buf, sizeof buf),
                (unsigned long long)l.vals[i]);
    }
    fprintf(out, "memory map:%s\n", l.nm ? "" : " empty");
    for (size_t i = 0; i < l.nm; i++)
        print_map_line(out, &l.maps[i]);
    lists_free(&l);
    for (size_t i = 0; i < nmem; i++)
        if (print_memory_text(out, rp, &mem[i], err) != TK_OK)
            return err->status;
    return TK_OK;
}

static void json_lists(tk_sink *s, const tk_ucir_header *h, const state_lists *l)
{
    tk_sink_array_begin(s, "registers");
    for (size_t i = 0; i < l->n; i++) {
        char buf[24];
        tk_sink_object_begin(s, NULL);
        tk_sink_cstr(s, "reg", reg_label(h, l->nums[i], buf, sizeof buf), 0);
        tk_sink_u64(s, "value", l->vals[i], TK_SINK_HEX);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    tk_sink_array_begin(s, "maps");
    for (size_t i = 0; i < l->nm; i++) {
        char p[4];
        perms(l->maps[i].prot, p);
        tk_sink_object_begin(s, NULL);
        tk_sink_u64(s, "addr", l->maps[i].addr, TK_SINK_ADDR);
        tk_sink_u64(s, "size", l->maps[i].size, TK_SINK_HEX);
        tk_sink_u64(s, "prot", l->maps[i].prot, 0);
        tk_sink_cstr(s, "perms", p, 0);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
}

static tk_status json_memory(tk_sink *s, tk_ucir_replay *rp, const tk_ucir_range *m,
                             tk_error *err)
{
    size_t len = (size_t)m->len;
    uint8_t *b = malloc(len), *k = malloc(len);
    char *hex = malloc(2 * len + 1);
    tk_status st = b && k && hex ? tk_ucir_replay_read(rp, m->addr, len, b, k, err)
                                 : nomem(err);
    if (st == TK_OK) {
        hex_bytes(b, k, len, hex, 0);
        tk_sink_object_begin(s, NULL);
        tk_sink_u64(s, "addr", m->addr, TK_SINK_ADDR);
        tk_sink_u64(s, "size", m->len, 0);
        tk_sink_cstr(s, "data", hex, 0);
        tk_sink_object_end(s);
    }
    free(b);
    free(k);
    free(hex);
    return st;
}

static tk_status print_state_json(tk_command_ctx *c, tk_ucir_replay *rp,
                                  const tk_ucir_header *h, const tk_ucir_range *mem,
                                  size_t nmem, tk_sink *s, tk_error *err)
{
    tk_ucir_replay_info in;
    tk_ucir_replay_info_get(rp, &in);
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "file", c->path, 0);
    tk_sink_cstr(s, "format", tk_format_name(c->format), 0);
    json_insn(s, &in);
    state_lists l;
    if (lists_get(rp, &l, err) != TK_OK)
        return err->status;
    json_lists(s, h, &l);
    lists_free(&l);
    if (nmem) {
        tk_sink_array_begin(s, "memory");
        for (size_t i = 0; i < nmem; i++)
            if (json_memory(s, rp, &mem[i], err) != TK_OK)
                return err->status;
        tk_sink_array_end(s);
    }
    tk_sink_u64(s, "syscall_count", in.syscalls, 0);
    tk_sink_bool(s, "exited", in.exited);
    tk_sink_object_end(s);
    return TK_OK;
}

tk_status tk_ucir_print_state(tk_command_ctx *c, tk_ucir_replay *rp, const tk_ucir_header *h,
                              const tk_ucir_range *mem, size_t n, tk_sink *s, tk_error *err)
{
    return c->json ? print_state_json(c, rp, h, mem, n, s, err)
                   : print_state_text(c->out, rp, h, mem, n, err);
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
static void history_line(FILE *out, const tk_ucir_replay_info *in, const char *what,
                         const char *key, uint64_t addr, const char *hex, const char *old)
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
        fprintf(out, "%-10s %-18s %s = 0x%s%s%s%s\n", idx, pc, what, hex,
                old ? " (was 0x" : "", old ? old : "", old ? ")" : "");
    else
        fprintf(out, "%-10s %-18s %-5s 0x%llx: %s%s%s%s\n", idx, pc, what,
                (unsigned long long)addr, hex, old ? " (was " : "", old ? old : "",
                old ? ")" : "");
}

static int overlaps(const tk_ucir_op *op, const tk_ucir_range *r)
{
    uint64_t a = op->addr, e = op->addr + (op->size ? op->size - 1 : 0);
    uint64_t ra = r->addr, re = r->addr + r->len - 1;
    return op->size && a <= re && ra <= e;
}

/* A change of the register: as JSON, or as a line. */
static void history_reg(tk_command_ctx *c, tk_sink *s, const tk_ucir_header *h,
                        const tk_ucir_replay_info *in, uint32_t reg, const tk_ucir_op *op,
                        int had, uint64_t prev)
{
    char buf[24], hex[32], old[32];
    const char *name = reg_label(h, reg, buf, sizeof buf);
    if (c->json) {
        tk_sink_object_begin(s, NULL);
        json_insn(s, in);
        tk_sink_cstr(s, "reg", name, 0);
        tk_sink_u64(s, "value", op->value, TK_SINK_HEX);
        if (had)
            tk_sink_u64(s, "old_value", prev, TK_SINK_HEX);
        else
            tk_sink_null(s, "old_value");
        tk_sink_object_end(s);
        return;
    }
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)op->value);
    snprintf(old, sizeof old, "%016llx", (unsigned long long)prev);
    history_line(c->out, in, name, "reg", reg, hex, had ? old : NULL);
}

/* A read or write of the range as a line; `b`, `k`: a write's old bytes. */
static void history_mem_text(FILE *out, const tk_ucir_replay_info *in, const tk_ucir_op *op,
                             size_t n, const uint8_t *b, const uint8_t *k)
{
    char hex[3 * HISTORY_BYTES + 8], old[3 * HISTORY_BYTES + 8];
    if (op->len) {
        hex_bytes(op->data, NULL, n, hex, 0);
        if (op->len > n)
            strcat(hex, "...");
    } else {
        snprintf(hex, sizeof hex, "(%llu bytes, no value recorded)",
                 (unsigned long long)op->size);
    }
    const char *was = NULL;
    if (op->kind == TK_UCIR_MEM_WRITE && n) {
        hex_bytes(b, k, n, old, 0);
        if (op->len > n)
            strcat(old, "...");
        was = old;
    }
    history_line(out, in, op->kind == TK_UCIR_MEM_READ ? "read" : "write", "addr", op->addr,
                 hex, was);
}

tk_status tk_ucir_print_history(tk_command_ctx *c, tk_ucir_reader *r, tk_ucir_replay *rp,
                                const tk_ucir_range *hist, int has_reg, uint32_t reg,
                                tk_sink *s, tk_error *err)
{
    const tk_ucir_header *h = tk_ucir_reader_header(r);
    tk_ucir_op op;
    tk_ucir_pos pos;
    tk_ucir_replay_info in;
    int rc;
    uint8_t b[HISTORY_BYTES], k[HISTORY_BYTES];
    while ((rc = tk_ucir_next(r, &op, err)) == 1) {
        tk_ucir_reader_pos(r, &pos);
        int mem = hist && (op.kind == TK_UCIR_MEM_READ || op.kind == TK_UCIR_MEM_WRITE) &&
                  overlaps(&op, hist);
        int regc = has_reg && op.kind == TK_UCIR_REG_CHANGE && op.reg == reg;
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
        if (regc)
            history_reg(c, s, h, &in, reg, &op, had, prev);
        else if (c->json)
            history_json_mem(s, &in, &op, n, b, k);
        else
            history_mem_text(c->out, &in, &op, n, b, k);
    }
    return rc < 0 ? err->status : TK_OK;
}
