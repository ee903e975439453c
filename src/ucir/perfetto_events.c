/* UCIR on Perfetto: syscalls as slices on "syscalls" (named by the
 * architecture's Linux table when it is known, with arguments and return
 * value as annotations), and memory maps, unmaps and protection changes
 * as instants on "memory map". */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ucir/perfetto_int.h"

#define SHOWN_ARGS (sizeof ((tk_ucir_pf_ids *)0)->arg / sizeof(uint64_t))

static uint64_t arg_name(tk_ucir_pf_events *e, const char *s, tk_error *err)
{
    return tk_perfetto_arg_name(e->p, s, strlen(s), err);
}

tk_status tk_ucir_pf_events_init(tk_ucir_pf_events *e, tk_perfetto *p, tk_perfetto_seq *seq,
                                 const tk_ucir_header *h, tk_error *err)
{
    memset(e, 0, sizeof *e);
    e->p = p;
    e->seq = seq;
    e->h = h;
    tk_ucir_pf_ids *d = &e->ids;
    struct {
        uint64_t *id;
        const char *s;
    } args[] = {{&d->num, "num"},   {&d->ret, "ret"},       {&d->err_no, "errno"},
                {&d->pc, "pc"},     {&d->addr, "addr"},     {&d->size, "size"},
                {&d->prot, "prot"}, {&d->desc, "desc"},     {&d->file, "file"},
                {&d->offset, "file_offset"}, {&d->more_args, "more_args"}};
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++)
        if (!(*args[i].id = arg_name(e, args[i].s, err)))
            return err->status;
    for (size_t i = 0; i < SHOWN_ARGS; i++) {
        char s[16];
        snprintf(s, sizeof s, "arg%zu", i);
        if (!(d->arg[i] = arg_name(e, s, err)))
            return err->status;
    }
    if (!(d->cat_syscall = tk_perfetto_category(p, "syscall", 7, err)) ||
        !(d->cat_memory = tk_perfetto_category(p, "memory", 6, err)) ||
        !(d->map = tk_perfetto_name(p, "map", 3, err)) ||
        !(d->unmap = tk_perfetto_name(p, "unmap", 5, err)) ||
        !(d->protect = tk_perfetto_name(p, "protect", 7, err)))
        return err->status;
    return TK_OK;
}

/* The slice name of syscall num: its Linux name, else "syscall N"; the
 * first 512 numbers' ids are kept. 0 when out of memory. */
static uint64_t syscall_id(tk_ucir_pf_events *e, uint32_t num, tk_error *err)
{
    size_t cached = sizeof e->ids.syscall / sizeof e->ids.syscall[0];
    if (num < cached && e->ids.syscall[num])
        return e->ids.syscall[num];
    char buf[32];
    const char *name = tk_ucir_syscall_name(e->h, num);
    if (!name) {
        snprintf(buf, sizeof buf, "syscall %" PRIu32, num);
        name = buf;
    }
    uint64_t id = tk_perfetto_name(e->p, name, strlen(name), err);
    if (num < cached)
        e->ids.syscall[num] = id;
    return id;
}

/* Linux returns -4095..-1 in the register, which is 32 bits wide outside
 * the 64-bit modes. */
int tk_ucir_syscall_errno(const tk_ucir_header *h, uint64_t ret, int64_t *eno)
{
    int wide = h->arch == TK_UCIR_ARCH_ARM64 || (h->mode & TK_UCIR_MODE_64);
    int64_t v = wide ? (int64_t)ret : (int64_t)(int32_t)(uint32_t)ret;
    if (v < -4095 || v > -1)
        return 0;
    *eno = -v;
    return 1;
}

static tk_perfetto_arg arg(uint64_t name, tk_perfetto_arg_type type, uint64_t u)
{
    tk_perfetto_arg a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.type = type;
    a.v.u = u;
    return a;
}

tk_status tk_ucir_pf_syscall_end(tk_ucir_pf_events *e, uint64_t ts, tk_error *err)
{
    if (!e->open)
        return TK_OK;
    e->open = 0;
    return tk_perfetto_end(e->seq, ts, TK_UCIR_PF_SYSCALLS, err);
}

tk_status tk_ucir_pf_syscall(tk_ucir_pf_events *e, uint64_t ts, const tk_ucir_op *op,
                             int pc_known, uint64_t pc, tk_error *err)
{
    const tk_ucir_pf_ids *d = &e->ids;
    tk_perfetto_arg a[SHOWN_ARGS + 5];
    size_t n = 0;
    int64_t eno;
    if (tk_ucir_pf_syscall_end(e, ts, err) != TK_OK)
        return err->status;
    uint64_t name = syscall_id(e, op->num, err);
    if (!name)
        return err->status;
    a[n++] = arg(d->num, TK_PERFETTO_ARG_UINT, op->num);
    for (uint32_t i = 0; i < op->argc && i < SHOWN_ARGS; i++)
        a[n++] = arg(d->arg[i], TK_PERFETTO_ARG_HEX, op->args[i]);
    if (op->argc > SHOWN_ARGS)
        a[n++] = arg(d->more_args, TK_PERFETTO_ARG_UINT, op->argc - SHOWN_ARGS);
    a[n++] = arg(d->ret, TK_PERFETTO_ARG_HEX, op->ret);
    if (tk_ucir_syscall_errno(e->h, op->ret, &eno))
        a[n++] = arg(d->err_no, TK_PERFETTO_ARG_INT, (uint64_t)eno);
    if (pc_known)
        a[n++] = arg(d->pc, TK_PERFETTO_ARG_HEX, pc);
    tk_perfetto_event ev = {ts, TK_UCIR_PF_SYSCALLS, name, d->cat_syscall, a, n};
    if (tk_perfetto_begin(e->seq, &ev, err) != TK_OK)
        return err->status;
    e->open = 1;
    return TK_OK;
}

const char *tk_ucir_pf_map_label(const tk_ucir_op *op, size_t *len)
{
    if (op->path_len) {
        size_t i = op->path_len;
        while (i > 0 && op->path[i - 1] != '/')
            i--;
        if (i < op->path_len) {
            *len = op->path_len - i;
            return op->path + i;
        }
    }
    *len = op->desc_len;
    return op->desc_len ? op->desc : "";
}

static tk_perfetto_arg str_arg(uint64_t name, const char *s, size_t n)
{
    tk_perfetto_arg a = arg(name, TK_PERFETTO_ARG_STR, 0);
    a.v.s.p = s;
    a.v.s.n = n;
    return a;
}

tk_status tk_ucir_pf_mem(tk_ucir_pf_events *e, uint64_t ts, const tk_ucir_op *op,
                         tk_error *err)
{
    const tk_ucir_pf_ids *d = &e->ids;
    tk_perfetto_arg a[7];
    size_t n = 0;
    a[n++] = arg(d->addr, TK_PERFETTO_ARG_HEX, op->addr);
    a[n++] = arg(d->size, TK_PERFETTO_ARG_UINT, op->size);
    if (op->kind != TK_UCIR_MEM_UNMAP) {
        char p[8];
        ucir_prot_text(op->prot, p);
        uint64_t id = tk_perfetto_string(e->p, p, strlen(p), err);
        if (!id)
            return err->status;
        a[n++] = arg(d->prot, TK_PERFETTO_ARG_ISTR, id);
    }
    if (op->kind == TK_UCIR_MEM_MAP && op->desc_len)
        a[n++] = str_arg(d->desc, op->desc, op->desc_len);
    if (op->kind == TK_UCIR_MEM_MAP && op->path_len) {
        a[n++] = str_arg(d->file, op->path, op->path_len);
        a[n++] = arg(d->offset, TK_PERFETTO_ARG_HEX, op->map_off);
    }
    uint64_t name = op->kind == TK_UCIR_MEM_MAP     ? d->map
                    : op->kind == TK_UCIR_MEM_UNMAP ? d->unmap
                                                    : d->protect;
    tk_perfetto_event ev = {ts, TK_UCIR_PF_MEMMAP, name, d->cat_memory, a, n};
    return tk_perfetto_instant(e->seq, &ev, err);
}
