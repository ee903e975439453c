/* UCIR's HTML report: the syscall timeline (a lane per syscall, named by
 * the Linux table of perfetto_syscalls.c), the syscalls listed and
 * counted, and the memory map's changes over the instructions with the
 * map the replay ends with. Time is the instruction index; the setup
 * (before instruction 0) is at 0. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "ucir/html_int.h"
#include "ucir/perfetto_int.h" /* tk_ucir_syscall_name, tk_ucir_syscall_errno */

/* Syscalls with a lane of their own; the rest share "other". */
#define LANES 12

static double at(int64_t instr) { return instr < 0 ? 0 : (double)instr; }

static tk_html_value insn(int64_t instr)
{
    return instr < 0 ? tk_html_null() : tk_html_u64((uint64_t)instr);
}

static const char *sys_name(const tk_uh *u, uint32_t num, char *buf, size_t cap)
{
    const char *s = tk_ucir_syscall_name(u->rep.h, num);
    if (s)
        return s;
    snprintf(buf, cap, "syscall %" PRIu32, num);
    return buf;
}

/* "write(0x1, 0x7fffffffe100, 0x5) = 5" into b. */
static void sys_text(const tk_uh *u, const tk_uh_syscall *s, tk_strbuf *b)
{
    char nb[32];
    int64_t eno;
    sb_reset(b);
    sb_printf(b, "%s(", sys_name(u, s->num, nb, sizeof nb));
    for (uint32_t i = 0; i < s->argc && i < TK_UH_ARGS; i++)
        sb_printf(b, "%s0x%" PRIx64, i ? ", " : "", s->args[i]);
    sb_puts(b, s->argc > TK_UH_ARGS ? ", ...)" : ")");
    if (tk_ucir_syscall_errno(u->rep.h, s->ret, &eno))
        sb_printf(b, " = -%" PRId64 " (error)", eno);
    else
        sb_printf(b, " = 0x%" PRIx64, s->ret);
}

/* The lane of syscall num among lanes[0..*n) (made when new; the last
 * lane takes the rest). */
static size_t lane_of(uint32_t *nums, size_t *n, uint32_t num)
{
    for (size_t i = 0; i < *n; i++)
        if (nums[i] == num)
            return i;
    if (*n < LANES)
        nums[*n] = num;
    return *n < LANES ? (*n)++ : LANES;
}

static void timeline(tk_html *h, tk_uh *u, double end)
{
    tk_html_event *ev = calloc(u->nsys ? u->nsys : 1, sizeof *ev);
    char(*labels)[160] = calloc(u->nsys ? u->nsys : 1, sizeof *labels);
    size_t *lane = calloc(u->nsys ? u->nsys : 1, sizeof *lane);
    tk_strbuf b = {0};
    if (!ev || !labels || !lane) {
        tk_html_para(h, "The syscall timeline could not be drawn (out of memory).");
        goto done;
    }
    uint32_t nums[LANES];
    size_t nl = 0, count[LANES + 1] = {0};
    for (size_t i = 0; i < u->nsys; i++) {
        lane[i] = lane_of(nums, &nl, u->sys[i].num);
        count[lane[i]]++;
    }
    /* events grouped by lane: each lane's slice of ev */
    size_t start[LANES + 2] = {0};
    for (size_t l = 0; l <= LANES; l++)
        start[l + 1] = start[l] + count[l];
    size_t fill[LANES + 1];
    memcpy(fill, start, sizeof fill);
    for (size_t i = 0; i < u->nsys; i++) {
        const tk_uh_syscall *s = &u->sys[i];
        int64_t eno;
        sys_text(u, s, &b);
        snprintf(labels[i], sizeof labels[i], "%s", b.p ? b.p : "");
        tk_html_tone tone = tk_ucir_syscall_errno(u->rep.h, s->ret, &eno) ? TK_HTML_BAD
                                                                           : TK_HTML_INFO;
        ev[fill[lane[i]]++] = (tk_html_event){at(s->instr), at(s->instr), 1, tone, labels[i]};
    }
    tk_html_lane lanes[LANES + 1];
    char names[LANES][32];
    size_t n = 0;
    for (size_t l = 0; l <= LANES; l++) {
        if (!count[l])
            continue;
        const char *name = l < nl ? sys_name(u, nums[l], names[l], sizeof names[l]) : "other";
        lanes[n++] = (tk_html_lane){name, ev + start[l], count[l]};
    }
    tk_html_chart c = {.id = "syscall-timeline", .title = "Syscalls over the instructions",
                       .caption = "A tick per syscall at its instruction; failed ones in red.",
                       .x_label = "instruction", .y_label = "syscall"};
    tk_html_timeline(h, &c, 0, end, lanes, n);
done:
    sb_free(&b);
    free(ev);
    free(labels);
    free(lane);
}

/* The syscalls listed, as the dump's records (key: record). */
static void syscall_table(tk_html *h, tk_uh *u)
{
    static const tk_html_column cols[] = {
        {.label = "record", .key = "record", .flags = TK_HTML_COL_KEY},
        {.label = "instruction", .key = "insn"},
        {.label = "number", .key = "num"},
        {.label = "call", .flags = TK_HTML_COL_MONO},
        {.label = "returned", .key = "ret", .unit = TK_HTML_HEX, .flags = TK_HTML_COL_MONO}};
    tk_html_table_spec spec = {
        .id = "syscall-list", .src = "syscalls", .cols = cols, .ncols = 5,
        .max_rows = TK_UH_SYSCALLS,
        .caption = "Each syscall in order (as dump --json's syscall records; arguments past "
                   "the sixth left out)"};
    tk_strbuf b = {0};
    tk_html_table_begin(h, &spec);
    for (size_t i = 0; i < u->nsys; i++) {
        const tk_uh_syscall *s = &u->sys[i];
        sys_text(u, s, &b);
        tk_html_value row[5] = {tk_html_u64(s->record), insn(s->instr), tk_html_u64(s->num),
                                tk_html_str(b.p ? b.p : ""), tk_html_u64(s->ret)};
        tk_html_table_row(h, row);
    }
    tk_html_table_end(h);
    sb_free(&b);
}

/* Syscalls by number, as report --json's. */
static void syscall_counts(tk_html *h, tk_uh *u)
{
    static const tk_html_column cols[] = {
        {.label = "number", .key = "num", .flags = TK_HTML_COL_KEY},
        {.label = "name", .flags = TK_HTML_COL_MONO},
        {.label = "calls", .key = "count", .flags = TK_HTML_COL_HEAT | TK_HTML_COL_SUM}};
    tk_html_table_spec spec = {.id = "syscall-counts", .src = "report.syscalls", .cols = cols,
                               .ncols = 3, .caption = "Syscalls by number"};
    tk_html_table_begin(h, &spec);
    for (size_t i = 0; i < u->rep.syscalls.n; i++) {
        uint32_t num = (uint32_t)u->rep.syscalls.ukeys[i];
        const char *name = tk_ucir_syscall_name(u->rep.h, num);
        tk_html_value row[3] = {
            tk_html_u64(u->rep.syscalls.ukeys[i]), tk_html_str(name ? name : "?"),
            tk_html_u64(*(uint64_t *)tk_map_value(&u->rep.syscalls, i))};
        tk_html_table_row(h, row);
    }
    tk_html_table_end(h);
}

void tk_uh_syscalls(tk_html *h, tk_uh *u)
{
    uint64_t all = u->syscalls;
    if (!all) {
        tk_html_para(h, "The trace makes no syscall.");
        return;
    }
    tk_ucir_replay_info info;
    tk_ucir_replay_info_get(u->rep.rp, &info);
    if (all > u->nsys)
        tk_html_paraf(h, "The first %zu of %" PRIu64 " syscalls are drawn and listed.", u->nsys,
                      all);
    timeline(h, u, (double)info.instructions);
    syscall_counts(h, u);
    syscall_table(h, u);
}

/* The changes on three lanes (map, protect, unmap). */
static void memory_timeline(tk_html *h, tk_uh *u, double end)
{
    static const tk_ucir_kind kinds[3] = {TK_UCIR_MEM_MAP, TK_UCIR_MEM_PROT, TK_UCIR_MEM_UNMAP};
    static const char *const names[3] = {"map", "protect", "unmap"};
    static const tk_html_tone tones[3] = {TK_HTML_OK, TK_HTML_WARN, TK_HTML_BAD};
    tk_html_event *ev = calloc(u->nmem ? u->nmem : 1, sizeof *ev);
    char(*labels)[128] = calloc(u->nmem ? u->nmem : 1, sizeof *labels);
    if (!ev || !labels) {
        tk_html_para(h, "The memory-map timeline could not be drawn (out of memory).");
        free(ev);
        free(labels);
        return;
    }
    tk_html_lane lanes[3];
    size_t n = 0, k = 0;
    for (int l = 0; l < 3; l++) {
        size_t first = k;
        for (size_t i = 0; i < u->nmem; i++) {
            const tk_uh_memev *e = &u->mem[i];
            if (e->kind != kinds[l])
                continue;
            tk_uh_region r = {.addr = e->addr, .size = e->size, .prot = e->prot};
            snprintf(r.label, sizeof r.label, "%s", e->label);
            tk_uh_region_name(&r, labels[k], sizeof labels[k]);
            if (e->kind == TK_UCIR_MEM_UNMAP) /* no protection to show */
                snprintf(labels[k], sizeof labels[k], "0x%" PRIx64 "-0x%" PRIx64, e->addr,
                         tk_ucir_region_end(e->addr, e->size));
            ev[k] = (tk_html_event){at(e->instr), at(e->instr), 1, tones[l], labels[k]};
            k++;
        }
        if (k > first)
            lanes[n++] = (tk_html_lane){names[l], ev + first, k - first};
    }
    tk_html_chart c = {.id = "memory-timeline", .title = "Memory-map changes over the instructions",
                       .caption = "A tick per map, protection change and unmap (the setup's at "
                                  "0).",
                       .x_label = "instruction", .y_label = "change"};
    tk_html_timeline(h, &c, 0, end, lanes, n);
    free(ev);
    free(labels);
}

/* The changes listed, as the dump's records (key: record). */
static void memory_changes(tk_html *h, tk_uh *u)
{
    static const tk_html_column cols[] = {
        {.label = "record", .key = "record", .flags = TK_HTML_COL_KEY},
        {.label = "instruction", .key = "insn"},
        {.label = "change", .key = "kind"},
        {.label = "address", .key = "addr", .unit = TK_HTML_HEX, .flags = TK_HTML_COL_MONO},
        {.label = "size", .key = "size", .unit = TK_HTML_BYTES},
        {.label = "perms", .flags = TK_HTML_COL_MONO},
        {.label = "file or description", .flags = TK_HTML_COL_MONO}};
    tk_html_table_spec spec = {
        .id = "memory-changes", .src = "memevents", .cols = cols, .ncols = 7,
        .max_rows = TK_UH_MEMEVENTS,
        .caption = "Each change in order (as dump --json's mem_map, mem_prot and mem_unmap "
                   "records; instruction empty: the setup)"};
    tk_html_table_begin(h, &spec);
    for (size_t i = 0; i < u->nmem; i++) {
        const tk_uh_memev *e = &u->mem[i];
        char p[8];
        tk_html_value row[7] = {
            tk_html_u64(e->record), insn(e->instr), tk_html_str(tk_ucir_kind_name(e->kind)),
            tk_html_u64(e->addr), tk_html_u64(e->size),
            e->kind == TK_UCIR_MEM_UNMAP ? tk_html_null() : tk_html_str(ucir_prot_text(e->prot, p)),
            tk_html_str(e->label)};
        tk_html_table_row(h, row);
    }
    tk_html_table_end(h);
}

/* The map the replay ends with, as report --json's maps. */
static void final_map(tk_html *h, tk_uh *u)
{
    static const tk_html_column cols[] = {
        {.label = "address", .key = "addr", .unit = TK_HTML_HEX,
         .flags = TK_HTML_COL_KEY | TK_HTML_COL_MONO},
        {.label = "size", .key = "size", .unit = TK_HTML_BYTES, .flags = TK_HTML_COL_HEAT},
        {.label = "prot", .key = "prot"},
        {.label = "perms", .key = "perms", .flags = TK_HTML_COL_MONO}};
    tk_html_table_spec spec = {.id = "final-map", .src = "report.maps", .cols = cols,
                               .ncols = 4, .caption = "The memory map at the end of the replay"};
    const tk_ucir_replay *rp = u->rep.rp;
    tk_html_table_begin(h, &spec);
    for (uint32_t k = tk_ucir_atree_first(&rp->map_tree); k;
         k = tk_ucir_atree_next(&rp->map_tree, k)) {
        const tk_ucir_map *m = &rp->maps[k];
        char p[4] = {m->prot & 1 ? 'r' : '-', m->prot & 2 ? 'w' : '-', m->prot & 4 ? 'x' : '-', 0};
        tk_html_value row[4] = {tk_html_u64(m->addr), tk_html_u64(m->size),
                                tk_html_u64(m->prot), tk_html_str(p)};
        tk_html_table_row(h, row);
    }
    tk_html_table_end(h);
}

void tk_uh_memory(tk_html *h, tk_uh *u)
{
    tk_ucir_replay_info info;
    tk_ucir_replay_info_get(u->rep.rp, &info);
    if (u->mem_changes > u->nmem)
        tk_html_paraf(h, "The first %zu of %" PRIu64 " changes are drawn and listed.", u->nmem,
                      u->mem_changes);
    if (u->nmem) {
        memory_timeline(h, u, (double)info.instructions);
        memory_changes(h, u);
    } else {
        tk_html_para(h, "The trace maps no memory.");
    }
    final_map(h, u);
}
