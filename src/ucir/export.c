/* Tenet and drcov exports: a replay that watches instruction boundaries. */
#include <stdlib.h>
#include <string.h>

#include <tracekit/ucir_export.h>

#include "core/hashmap.h"
#include "core/strbuf.h"
#include "ucir/modules.h"
#include "ucir/replay/replay_int.h"

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

static tk_status write_failed(tk_error *err)
{
    return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "cannot write the output");
}

/* ---- Tenet */

/* The registers Tenet shows for x86 and x86-64 (its architectures), and
 * the name of the program counter; other architectures get every
 * register the trace has. */
static const uint32_t x64_regs[] = {35, 37, 38, 40, 36, 44, 43, 39,
                                    106, 107, 108, 109, 110, 111, 112, 113};
static const uint32_t x86_regs[] = {19, 21, 22, 24, 20, 30, 29, 23};

typedef struct tenet {
    tk_ucir_replay *rp;
    const uint32_t *regs;    /* NULL: every register */
    size_t nregs;
    const char *pc_name;
    uint64_t *shown;         /* RP_NREGS values last written */
    uint64_t *have_shown;    /* bits */
    tk_strbuf line;
    int open;                /* an instruction's line is being built */
} tenet;

static void put_reg(tenet *t, uint32_t num)
{
    uint64_t v;
    if (!tk_ucir_replay_reg(t->rp, num, &v))
        return;
    int had = t->have_shown[num / 64] >> (num % 64) & 1;
    if (had && t->shown[num] == v)
        return;
    t->shown[num] = v;
    t->have_shown[num / 64] |= (uint64_t)1 << (num % 64);
    char buf[24];
    sb_puts(&t->line, tk_ucir_reg_label(t->rp->h.arch, t->rp->h.mode, num, buf, sizeof buf));
    sb_putc(&t->line, '=');
    sb_hex(&t->line, v);
    sb_putc(&t->line, ',');
}

/* An instruction starts: the registers as they are now. */
static void tenet_begin(tenet *t)
{
    sb_reset(&t->line);
    if (t->regs) {
        for (size_t i = 0; i < t->nregs; i++)
            put_reg(t, t->regs[i]);
    } else {
        for (uint32_t w = 0; w < RP_NREGS / 64; w++)
            for (uint64_t bits = t->rp->have[w]; bits; bits &= bits - 1)
                put_reg(t, w * 64 + (uint32_t)__builtin_ctzll(bits));
    }
    t->open = 1;
}

static void tenet_mem(tk_strbuf *mem, const tk_ucir_op *op)
{
    sb_puts(mem, op->kind == TK_UCIR_MEM_READ ? ",mr=" : ",mw=");
    sb_hex(mem, op->addr);
    sb_putc(mem, ':');
    static const char digits[] = "0123456789abcdef";
    for (uint64_t i = 0; i < op->len; i++) {
        sb_putc(mem, digits[op->data[i] >> 4]);
        sb_putc(mem, digits[op->data[i] & 15]);
    }
}

/* Write the line: registers, the address (known now in both
 * attributions), then the accesses collected in `mem`. */
static int tenet_end(tenet *t, tk_strbuf *mem, FILE *out)
{
    if (!t->open)
        return 0;
    t->open = 0;
    sb_puts(&t->line, t->pc_name);
    sb_putc(&t->line, '=');
    sb_hex(&t->line, t->rp->pc);
    sb_putn(&t->line, mem->p ? mem->p : "", mem->len);
    sb_putc(&t->line, '\n');
    sb_reset(mem);
    if (t->line.oom || mem->oom)
        return -1;
    return fwrite(t->line.p, 1, t->line.len, out) == t->line.len ? 0 : -2;
}

tk_status tk_ucir_export_tenet(tk_ucir_reader *r, FILE *out, tk_error *err)
{
    return tk_ucir_export_tenet_window(r, out, 0, UINT64_MAX, err);
}

tk_status tk_ucir_export_tenet_window(tk_ucir_reader *r, FILE *out, uint64_t from, uint64_t to,
                                      tk_error *err)
{
    const tk_ucir_header *h = tk_ucir_reader_header(r);
    tenet t;
    memset(&t, 0, sizeof t);
    t.rp = tk_ucir_replay_new(h, err);
    t.shown = calloc(RP_NREGS, sizeof *t.shown);
    t.have_shown = calloc(RP_NREGS / 64, sizeof *t.have_shown);
    tk_strbuf mem = {0};
    tk_status st = TK_OK;
    if (!t.rp || !t.shown || !t.have_shown) {
        st = oom(err);
        goto done;
    }
    t.pc_name = "pc";
    if (h->arch == TK_UCIR_ARCH_X86 && h->mode == TK_UCIR_MODE_64) {
        t.regs = x64_regs, t.nregs = sizeof x64_regs / sizeof *x64_regs, t.pc_name = "rip";
    } else if (h->arch == TK_UCIR_ARCH_X86) {
        t.regs = x86_regs, t.nregs = sizeof x86_regs / sizeof *x86_regs, t.pc_name = "eip";
    }
    tk_ucir_op op;
    tk_ucir_pos pos;
    int rc;
    while ((rc = tk_ucir_next(r, &op, err)) == 1) {
        tk_ucir_reader_pos(r, &pos);
        if (tk_ucir_replay_starts_instruction(t.rp, &op)) {
            int w = tenet_end(&t, &mem, out);
            if (w) {
                st = w == -1 ? oom(err) : write_failed(err);
                goto done;
            }
            uint64_t next = (uint64_t)(t.rp->clk.instr + 1);
            if (next >= to)
                break; /* rc stays 1: the window's end */
            if (next >= from) /* the first line has every register: the state at from */
                tenet_begin(&t);
        }
        int applied = tk_ucir_replay_apply(t.rp, &op, &pos, err);
        if (applied < 0) {
            st = err->status;
            goto done;
        }
        if (applied && t.open && op.len &&
            (op.kind == TK_UCIR_MEM_READ || op.kind == TK_UCIR_MEM_WRITE))
            tenet_mem(&mem, &op);
    }
    if (rc < 0) {
        st = err->status;
        goto done;
    }
    int w = tenet_end(&t, &mem, out);
    if (w)
        st = w == -1 ? oom(err) : write_failed(err);
done:
    sb_free(&t.line);
    sb_free(&mem);
    free(t.shown);
    free(t.have_shown);
    tk_ucir_replay_free(t.rp);
    return st;
}

/* ---- drcov */

typedef struct drcov {
    tk_ucir_replay *rp;
    tk_map blocks;           /* mod << 48 | offset << 16 | size -> (none) */
    tk_ucir_map *mods;
    size_t nmods, mods_cap;
    tk_ucir_modules index;   /* which module holds an address */
    uint64_t start, size;    /* the block being extended */
    int in_block;
    uint64_t unmapped;
} drcov;

/* The module holding addr (an executable map, added when first used):
 * its index, -1 for none, -2 out of memory. O(log n) for n maps and
 * modules, also where no map holds addr. */
static int module_of(drcov *d, uint64_t addr)
{
    int64_t known = tk_ucir_modules_find(&d->index, addr);
    if (known >= 0)
        return (int)known;
    tk_ucir_replay *rp = d->rp;
    uint32_t k = tk_ucir_atree_floor(&rp->map_tree, addr); /* maps are disjoint */
    if (!k)
        return -1;
    const tk_ucir_map *m = &rp->maps[k];
    if (addr - m->addr >= m->size || !(m->prot & TK_UCIR_PROT_EXEC) || d->nmods == 65535)
        return -1;
    if (d->nmods == d->mods_cap) {
        size_t cap = d->mods_cap ? 2 * d->mods_cap : 8;
        tk_ucir_map *v = realloc(d->mods, cap * sizeof *v);
        if (!v)
            return -2;
        d->mods = v;
        d->mods_cap = cap;
    }
    if (tk_ucir_modules_add(&d->index, m->addr, m->addr + m->size - 1, (uint32_t)d->nmods) != 0)
        return -2;
    d->mods[d->nmods] = *m;
    return (int)d->nmods++;
}

static int close_block(drcov *d)
{
    if (!d->in_block)
        return 0;
    d->in_block = 0;
    int mod = module_of(d, d->start);
    if (mod == -2)
        return -1;
    uint64_t off = mod >= 0 ? d->start - d->mods[mod].addr : 0;
    if (mod < 0 || off > UINT32_MAX || d->start + d->size - d->mods[mod].addr > d->mods[mod].size) {
        d->unmapped++;
        return 0;
    }
    return tk_map_u64(&d->blocks, (uint64_t)mod << 48 | off << 16 | d->size) ? 0 : -1;
}

/* An instruction of `size` bytes ran at pc: extend the block or begin
 * one. */
static int drcov_instruction(drcov *d, uint64_t pc, uint64_t size)
{
    if (!d->rp->pc_known || size > 0xFFFF)
        return close_block(d);
    if (d->in_block && pc == d->start + d->size && d->size + size <= 0xFFFF) {
        d->size += size;
        return 0;
    }
    if (close_block(d) != 0)
        return -1;
    d->start = pc;
    d->size = size;
    d->in_block = 1;
    return 0;
}

static int drcov_write(drcov *d, FILE *out)
{
    fprintf(out, "DRCOV VERSION: 2\nDRCOV FLAVOR: drcov-64\n");
    fprintf(out, "Module Table: version 2, count %zu\n", d->nmods);
    fprintf(out, "Columns: id, base, end, entry, path\n");
    for (size_t i = 0; i < d->nmods; i++)
        fprintf(out, "%zu, 0x%016llx, 0x%016llx, 0x%016llx, map_0x%llx\n", i,
                (unsigned long long)d->mods[i].addr,
                (unsigned long long)(d->mods[i].addr + d->mods[i].size), 0ULL,
                (unsigned long long)d->mods[i].addr);
    fprintf(out, "BB Table: %zu bbs\n", d->blocks.n);
    for (size_t i = 0; i < d->blocks.n; i++) {
        uint64_t k = d->blocks.ukeys[i];
        uint8_t e[8];
        uint32_t start = (uint32_t)(k >> 16);
        uint16_t size = (uint16_t)k, mod = (uint16_t)(k >> 48);
        e[0] = (uint8_t)start, e[1] = (uint8_t)(start >> 8), e[2] = (uint8_t)(start >> 16),
        e[3] = (uint8_t)(start >> 24);
        e[4] = (uint8_t)size, e[5] = (uint8_t)(size >> 8);
        e[6] = (uint8_t)mod, e[7] = (uint8_t)(mod >> 8);
        fwrite(e, 1, sizeof e, out);
    }
    return ferror(out) ? -1 : 0;
}

tk_status tk_ucir_export_drcov(tk_ucir_reader *r, FILE *out, uint64_t *unmapped,
                               tk_error *err)
{
    return tk_ucir_export_drcov_window(r, out, 0, UINT64_MAX, unmapped, err);
}

tk_status tk_ucir_export_drcov_window(tk_ucir_reader *r, FILE *out, uint64_t from, uint64_t to,
                                      uint64_t *unmapped, tk_error *err)
{
    drcov d;
    memset(&d, 0, sizeof d);
    tk_map_init(&d.blocks, 1);
    d.rp = tk_ucir_replay_new(tk_ucir_reader_header(r), err);
    tk_status st = TK_OK;
    if (!d.rp) {
        st = err->status;
        goto done;
    }
    tk_ucir_op op;
    tk_ucir_pos pos;
    int rc;
    while ((rc = tk_ucir_next(r, &op, err)) == 1) {
        tk_ucir_reader_pos(r, &pos);
        int starts = tk_ucir_replay_starts_instruction(d.rp, &op);
        if (starts && (uint64_t)(d.rp->clk.instr + 1) >= to)
            break; /* the window's end */
        if (tk_ucir_replay_apply(d.rp, &op, &pos, err) < 0) {
            st = err->status;
            goto done;
        }
        if (rp_placed(d.rp, &op, starts) && (uint64_t)d.rp->clk.instr >= from &&
            drcov_instruction(&d, d.rp->pc, op.size) != 0) {
            st = oom(err);
            goto done;
        }
    }
    if (rc < 0) {
        st = err->status;
        goto done;
    }
    if (close_block(&d) != 0) {
        st = oom(err);
        goto done;
    }
    if (drcov_write(&d, out) != 0)
        st = write_failed(err);
    if (unmapped)
        *unmapped = d.unmapped;
done:
    tk_map_free(&d.blocks);
    free(d.mods);
    tk_ucir_modules_free(&d.index);
    tk_ucir_replay_free(d.rp);
    return st;
}
