/* The five UCIR tables: their columns (docs/formats/ucir.md, "Parquet
 * tables") and one row per record. Every row carries its instruction
 * (`insn`, null for the setup) and its record's index, so rows join with
 * each other and with `dump --json`. */
#include <string.h>

#include "ucir/parquet_int.h"
#include "ucir/perfetto_int.h" /* tk_ucir_syscall_name */

#define U64 TK_PQ_UINT64
#define OPT TK_PQ_NULLABLE
#define AUTO TK_PQ_ENC_AUTO

enum { I_INSN, I_RECORD, I_PC, I_SIZE, I_BYTES };
static const tk_pq_column instr_cols[] = {
    {"insn", U64, 0, TK_PQ_ENC_DELTA},       {"record", U64, 0, TK_PQ_ENC_DELTA},
    {"pc", U64, OPT, AUTO},                  {"size", TK_PQ_UINT32, OPT, AUTO},
    {"bytes", TK_PQ_BINARY, OPT, TK_PQ_ENC_PLAIN},
};

/* The columns every record table starts with. */
enum { C_INSN, C_RECORD, C_DEPTH };
#define COMMON                                                                              \
    {"insn", U64, OPT, AUTO}, {"record", U64, 0, TK_PQ_ENC_DELTA},                          \
        {"depth", TK_PQ_UINT8, 0, AUTO}

enum { M_KIND = 3, M_ADDR, M_SIZE, M_DATA };
static const tk_pq_column mem_cols[] = {
    COMMON,
    {"kind", TK_PQ_STRING, 0, AUTO},
    {"addr", U64, 0, AUTO},
    {"size", U64, 0, AUTO},
    {"data", TK_PQ_BINARY, OPT, TK_PQ_ENC_PLAIN},
};

enum { R_REG = 3, R_REG_NUM, R_VALUE, R_DATA };
static const tk_pq_column reg_cols[] = {
    COMMON,
    {"reg", TK_PQ_STRING, 0, AUTO},
    {"reg_num", TK_PQ_UINT16, 0, AUTO},
    {"value", U64, OPT, AUTO},
    {"data", TK_PQ_BINARY, OPT, TK_PQ_ENC_PLAIN},
};

enum { S_PC = 3, S_NUM, S_NAME, S_RET, S_ARGC, S_ARG0, S_MORE = S_ARG0 + TK_UCIR_PQ_ARGS, S_OPS };
static const tk_pq_column sys_cols[] = {
    COMMON,
    {"pc", U64, OPT, AUTO},
    {"num", TK_PQ_UINT32, 0, AUTO},
    {"name", TK_PQ_STRING, OPT, AUTO},
    {"ret", U64, 0, AUTO},
    {"argc", TK_PQ_UINT16, 0, AUTO},
    {"arg0", U64, OPT, AUTO},
    {"arg1", U64, OPT, AUTO},
    {"arg2", U64, OPT, AUTO},
    {"arg3", U64, OPT, AUTO},
    {"arg4", U64, OPT, AUTO},
    {"arg5", U64, OPT, AUTO},
    {"more_args", TK_PQ_STRING, OPT, TK_PQ_ENC_PLAIN},
    {"op_count", TK_PQ_UINT16, 0, AUTO},
};

enum { P_KIND = 3, P_ADDR, P_SIZE, P_PROT, P_PERMS, P_DESC, P_FILE, P_FOFF, P_FSIZE };
static const tk_pq_column map_cols[] = {
    COMMON,
    {"kind", TK_PQ_STRING, 0, AUTO},
    {"addr", U64, 0, AUTO},
    {"size", U64, 0, AUTO},
    {"prot", TK_PQ_UINT8, OPT, AUTO},
    {"perms", TK_PQ_STRING, OPT, AUTO},
    {"desc", TK_PQ_STRING, OPT, AUTO},
    {"file", TK_PQ_STRING, OPT, AUTO},
    {"file_offset", U64, OPT, AUTO},
    {"file_size", U64, OPT, AUTO},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Bytes of a field that may be NULL when empty. */
static const void *nz(const void *p) { return p ? p : ""; }

tk_status tk_ucir_pq_tables(tk_ucir_pq_rows *r, tk_pq_dir *d, const tk_ucir_header *h,
                            tk_error *err)
{
    static const struct {
        const char *name;
        const tk_pq_column *cols;
        size_t n;
    } defs[TK_UCIR_PQ_NTABLES] = {
        {"instructions", instr_cols, N(instr_cols)}, {"memory", mem_cols, N(mem_cols)},
        {"registers", reg_cols, N(reg_cols)},        {"syscalls", sys_cols, N(sys_cols)},
        {"maps", map_cols, N(map_cols)},
    };
    memset(r, 0, sizeof *r);
    r->h = h;
    for (int i = 0; i < TK_UCIR_PQ_NTABLES; i++) {
        r->t[i] = tk_pq_dir_table(d, defs[i].name, defs[i].cols, defs[i].n, err);
        if (!r->t[i])
            return err->status;
    }
    return TK_OK;
}

void tk_ucir_pq_rows_free(tk_ucir_pq_rows *r) { sb_free(&r->more); }

tk_status tk_ucir_pq_instruction(tk_ucir_pq_rows *r, const tk_ucir_pq_at *at, int size_known,
                                 uint64_t size, const uint8_t *bytes, tk_error *err)
{
    tk_pq_table *t = r->t[TK_UCIR_PQ_INSTRUCTIONS];
    tk_pq_writer *w = tk_pq_table_writer(t);
    tk_pq_put_u64(w, I_INSN, (uint64_t)at->insn);
    tk_pq_put_u64(w, I_RECORD, at->record);
    if (at->pc_known)
        tk_pq_put_u64(w, I_PC, at->pc);
    if (size_known)
        tk_pq_put_u64(w, I_SIZE, size);
    if (bytes)
        tk_pq_put_bytes(w, I_BYTES, bytes, (size_t)size);
    return tk_pq_table_row_end(t, err);
}

/* The columns every record table starts with; the table's writer. */
static tk_pq_writer *common(tk_pq_table *t, const tk_ucir_pq_at *at, const tk_ucir_op *op)
{
    tk_pq_writer *w = tk_pq_table_writer(t);
    if (at->insn >= 0)
        tk_pq_put_u64(w, C_INSN, (uint64_t)at->insn);
    tk_pq_put_u64(w, C_RECORD, at->record);
    tk_pq_put_u64(w, C_DEPTH, op->depth);
    return w;
}

static tk_status memory(tk_ucir_pq_rows *r, const tk_ucir_pq_at *at, const tk_ucir_op *op,
                        tk_error *err)
{
    tk_pq_table *t = r->t[TK_UCIR_PQ_MEMORY];
    tk_pq_writer *w = common(t, at, op);
    tk_pq_put_str(w, M_KIND, op->kind == TK_UCIR_MEM_READ ? "read" : "write");
    tk_pq_put_u64(w, M_ADDR, op->addr);
    tk_pq_put_u64(w, M_SIZE, op->size);
    /* .uc reads carry no bytes: null (a spec op of size 0 has 0 bytes) */
    if (r->h->variant == TK_UCIR_SPEC || op->kind == TK_UCIR_MEM_WRITE)
        tk_pq_put_bytes(w, M_DATA, nz(op->data), (size_t)op->len);
    return tk_pq_table_row_end(t, err);
}

static tk_status registers(tk_ucir_pq_rows *r, const tk_ucir_pq_at *at, const tk_ucir_op *op,
                           tk_error *err)
{
    char buf[24];
    tk_pq_table *t = r->t[TK_UCIR_PQ_REGISTERS];
    tk_pq_writer *w = common(t, at, op);
    tk_pq_put_str(w, R_REG, tk_ucir_reg_label(r->h->arch, r->h->mode, op->reg, buf, sizeof buf));
    tk_pq_put_u64(w, R_REG_NUM, op->reg);
    if (op->kind == TK_UCIR_REG_CHANGE)
        tk_pq_put_u64(w, R_VALUE, op->value);
    else
        tk_pq_put_bytes(w, R_DATA, nz(op->data), (size_t)op->len);
    return tk_pq_table_row_end(t, err);
}

static tk_status syscalls(tk_ucir_pq_rows *r, const tk_ucir_pq_at *at, const tk_ucir_op *op,
                          tk_error *err)
{
    tk_pq_table *t = r->t[TK_UCIR_PQ_SYSCALLS];
    tk_pq_writer *w = common(t, at, op);
    if (at->pc_known)
        tk_pq_put_u64(w, S_PC, at->pc);
    tk_pq_put_u64(w, S_NUM, op->num);
    const char *name = tk_ucir_syscall_name(r->h, op->num);
    if (name)
        tk_pq_put_str(w, S_NAME, name);
    tk_pq_put_u64(w, S_RET, op->ret);
    tk_pq_put_u64(w, S_ARGC, op->argc);
    for (uint32_t i = 0; i < op->argc && i < TK_UCIR_PQ_ARGS; i++)
        tk_pq_put_u64(w, S_ARG0 + i, op->args[i]);
    if (op->argc > TK_UCIR_PQ_ARGS) {
        sb_reset(&r->more);
        for (uint32_t i = TK_UCIR_PQ_ARGS; i < op->argc; i++) {
            if (i > TK_UCIR_PQ_ARGS)
                sb_putc(&r->more, ',');
            sb_hex(&r->more, op->args[i]);
        }
        if (r->more.oom)
            return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        tk_pq_put_bytes(w, S_MORE, r->more.p, r->more.len);
    }
    tk_pq_put_u64(w, S_OPS, op->op_count);
    return tk_pq_table_row_end(t, err);
}

static tk_status maps(tk_ucir_pq_rows *r, const tk_ucir_pq_at *at, const tk_ucir_op *op,
                      tk_error *err)
{
    char perms[8];
    tk_pq_table *t = r->t[TK_UCIR_PQ_MAPS];
    tk_pq_writer *w = common(t, at, op);
    tk_pq_put_str(w, P_KIND, op->kind == TK_UCIR_MEM_MAP     ? "map"
                             : op->kind == TK_UCIR_MEM_UNMAP ? "unmap"
                                                             : "protect");
    tk_pq_put_u64(w, P_ADDR, op->addr);
    tk_pq_put_u64(w, P_SIZE, op->size);
    if (op->kind != TK_UCIR_MEM_UNMAP) {
        tk_pq_put_u64(w, P_PROT, op->prot);
        tk_pq_put_str(w, P_PERMS, ucir_prot_text(op->prot, perms));
    }
    if (op->kind == TK_UCIR_MEM_MAP && r->h->variant == TK_UCIR_USERCORN) {
        tk_pq_put_bytes(w, P_DESC, nz(op->desc), op->desc_len);
        tk_pq_put_bytes(w, P_FILE, nz(op->path), op->path_len);
        tk_pq_put_u64(w, P_FOFF, op->map_off);
        tk_pq_put_u64(w, P_FSIZE, op->map_len);
    }
    return tk_pq_table_row_end(t, err);
}

tk_status tk_ucir_pq_op(tk_ucir_pq_rows *r, const tk_ucir_pq_at *at, const tk_ucir_op *op,
                        tk_error *err)
{
    switch (op->kind) {
    case TK_UCIR_MEM_READ:
    case TK_UCIR_MEM_WRITE:
        return memory(r, at, op, err);
    case TK_UCIR_REG_CHANGE:
    case TK_UCIR_SPREG_CHANGE:
        return registers(r, at, op, err);
    case TK_UCIR_SYSCALL:
        return syscalls(r, at, op, err);
    case TK_UCIR_MEM_MAP:
    case TK_UCIR_MEM_UNMAP:
    case TK_UCIR_MEM_PROT:
        return maps(r, at, op, err);
    default:
        return TK_OK;
    }
}
