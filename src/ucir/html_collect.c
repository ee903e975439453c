/* UCIR's HTML report: the report's pass (report.c) with a hook that keeps
 * info's counts, the first syscalls and memory-map changes, and per
 * region (ucir/regions.c follows them) the instructions executed and the
 * bytes written there. Records inside later keyframes only summarise and
 * are skipped, as the replay skips them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucir/html_int.h"
#include "ucir/perfetto_int.h" /* tk_ucir_pf_map_label */

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

/* The region of a MEM_MAP's range, made at its first map: its index, or
 * -1 past TK_UH_REGIONS, -2 out of memory. */
static int64_t region_of(tk_uh *u, const tk_ucir_op *op, int64_t instr)
{
    uint64_t key[2] = {op->addr, op->size};
    uint32_t *id = tk_map_find_str(&u->region_ids, (const char *)key, sizeof key);
    if (id)
        return (int64_t)*id - 1;
    if (u->nregions >= TK_UH_REGIONS)
        return -1;
    if (u->nregions == u->regions_cap) {
        size_t cap = u->regions_cap ? u->regions_cap * 2 : 16;
        tk_uh_region *r = realloc(u->regions, cap * sizeof *r);
        if (!r)
            return -2;
        u->regions = r;
        u->regions_cap = cap;
    }
    if (!(id = tk_map_str(&u->region_ids, (const char *)key, sizeof key)))
        return -2;
    *id = (uint32_t)++u->nregions;
    tk_uh_region *r = &u->regions[*id - 1];
    memset(r, 0, sizeof *r);
    r->addr = op->addr;
    r->size = op->size;
    r->mapped_at = instr;
    r->prot = op->prot;
    size_t n;
    const char *label = tk_ucir_pf_map_label(op, &n);
    snprintf(r->label, sizeof r->label, "%.*s", (int)n, label);
    return (int64_t)*id - 1;
}

/* The region holding addr (other regions, or no region). */
static tk_uh_region *region_at(tk_uh *u, uint64_t addr)
{
    tk_ucir_span *s = tk_ucir_regions_find(&u->spans, addr);
    if (!s)
        return &u->unmapped;
    return s->id ? &u->regions[s->id - 1] : &u->other;
}

static tk_status map(tk_uh *u, const tk_ucir_op *op, int64_t instr, tk_error *err)
{
    if (op->kind == TK_UCIR_MEM_UNMAP)
        return tk_ucir_regions_unmap(&u->spans, op->addr, op->size, err);
    if (op->kind != TK_UCIR_MEM_MAP)
        return TK_OK;
    int64_t i = region_of(u, op, instr);
    if (i == -2)
        return oom(err);
    size_t n;
    const char *label = tk_ucir_pf_map_label(op, &n);
    if (tk_ucir_regions_map(&u->spans, op->addr, op->size, op->prot, label, n, err) != TK_OK)
        return err->status;
    tk_ucir_span *s = op->size ? tk_ucir_regions_find(&u->spans, op->addr) : NULL;
    if (s && s->map_addr == op->addr && s->map_size == op->size)
        s->id = i < 0 ? 0 : (uint32_t)i + 1;
    return TK_OK;
}

/* A map, unmap or protect: listed while there is room, then applied. */
static tk_status mem_change(tk_uh *u, const tk_ucir_op *op, const tk_ucir_pos *pos,
                            int64_t instr, tk_error *err)
{
    u->mem_changes++;
    if (u->nmem < TK_UH_MEMEVENTS) {
        tk_uh_memev *e = &u->mem[u->nmem++];
        size_t n = 0;
        const char *label = op->kind == TK_UCIR_MEM_MAP ? tk_ucir_pf_map_label(op, &n) : "";
        *e = (tk_uh_memev){pos->record, instr, op->kind, op->addr, op->size, op->prot, ""};
        snprintf(e->label, sizeof e->label, "%.*s", (int)n, label);
    }
    return map(u, op, instr, err);
}

static void list_syscall(tk_uh *u, const tk_ucir_op *op, const tk_ucir_pos *pos, int64_t instr)
{
    u->syscalls++;
    if (u->nsys >= TK_UH_SYSCALLS)
        return;
    tk_uh_syscall *s = &u->sys[u->nsys++];
    memset(s, 0, sizeof *s);
    s->record = pos->record;
    s->instr = instr;
    s->num = op->num;
    s->argc = op->argc;
    for (uint32_t i = 0; i < op->argc && i < TK_UH_ARGS; i++)
        s->args[i] = op->args[i];
    s->ret = op->ret;
}

static tk_status hook(void *ctx, tk_ucir_rep *rep, const tk_ucir_op *op, const tk_ucir_pos *pos,
                      int applied, int placed, tk_error *err)
{
    tk_uh *u = ctx;
    tk_ucir_stats_add(&u->stats, op);
    if (!applied || op->kind == TK_UCIR_FRAME)
        return TK_OK;
    tk_ucir_replay *rp = rep->rp;
    int64_t instr = rp->clk.instr;
    if (placed && rp->pc_known)
        region_at(u, rp->pc)->instructions++;
    else if (placed)
        u->unknown_pc++;
    switch (op->kind) {
    case TK_UCIR_SYSCALL:
        list_syscall(u, op, pos, instr);
        return TK_OK;
    case TK_UCIR_MEM_WRITE: {
        tk_uh_region *r = region_at(u, op->addr);
        r->written += op->size;
        r->writes++;
        return TK_OK;
    }
    case TK_UCIR_MEM_MAP:
    case TK_UCIR_MEM_UNMAP:
    case TK_UCIR_MEM_PROT:
        return mem_change(u, op, pos, instr, err);
    default:
        return TK_OK;
    }
}

tk_status tk_uh_collect(tk_uh *u, tk_input *in, const tk_options *o, tk_error *err)
{
    memset(u, 0, sizeof *u);
    tk_map_init(&u->region_ids, sizeof(uint32_t));
    u->sys = malloc(TK_UH_SYSCALLS * sizeof *u->sys);
    u->mem = malloc(TK_UH_MEMEVENTS * sizeof *u->mem);
    if (!u->sys || !u->mem)
        return oom(err);
    snprintf(u->other.label, sizeof u->other.label, "other regions");
    snprintf(u->unmapped.label, sizeof u->unmapped.label, "no region");
    return tk_ucir_rep_run(&u->rep, in, o, hook, u, err);
}

void tk_uh_free(tk_uh *u)
{
    tk_ucir_rep_free(&u->rep);
    tk_ucir_regions_free(&u->spans);
    tk_map_free(&u->region_ids);
    free(u->regions);
    free(u->sys);
    free(u->mem);
    memset(u, 0, sizeof *u);
}

const char *tk_uh_region_name(const tk_uh_region *r, char *buf, size_t cap)
{
    char p[8];
    snprintf(buf, cap, "0x%" PRIx64 "-0x%" PRIx64 " %s%s%s", r->addr,
             tk_ucir_region_end(r->addr, r->size), ucir_prot_text(r->prot, p),
             r->label[0] ? " " : "", r->label);
    return buf;
}
