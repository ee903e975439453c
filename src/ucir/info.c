/* `tracekit info` for UCIR traces: header, frames, records by kind,
 * instructions, memory traffic and syscalls. */
#include <string.h>

#include "ucir/ucir_int.h"

typedef tk_ucir_stats stats;

static void byte_order(tk_sink *s, const char *key, int big)
{
    tk_sink_cstr(s, key, big ? "big" : "little", 0);
}

static void emit(tk_sink *s, tk_input *in, tk_ucir_reader *r, const stats *st)
{
    const tk_ucir_header *h = tk_ucir_reader_header(r);
    tk_ucir_counts c;
    tk_ucir_reader_counts(r, &c);
    int spec = h->variant == TK_UCIR_SPEC;
    tk_sink_object_begin(s, NULL);
    tk_sink_cstr(s, "file", tk_input_name(in), 0);
    tk_sink_cstr(s, "format", spec ? "ucir" : "usercorn", 0);
    tk_sink_cstr(s, "layout", spec ? "2016 spec (big-endian, zlib frames)"
                                   : "usercorn .uc (Snappy stream, little-endian ops)", 0);
    tk_sink_u64(s, "version", h->version, 0);
    const char *an = tk_ucir_arch_name(h->arch);
    tk_sink_u64(s, "uc_arch", h->arch, 0);
    if (an)
        tk_sink_cstr(s, "uc_arch_name", an, 0);
    else
        tk_sink_null(s, "uc_arch_name");
    tk_sink_u64(s, "uc_mode", h->mode, TK_SINK_HEX);
    tk_sink_cstr(s, "arch", h->arch_name, 0);
    tk_sink_cstr(s, "os", h->os, 0);
    if (!spec) {
        byte_order(s, "code_byte_order", h->code_big);
        byte_order(s, "data_byte_order", h->data_big);
    }
    tk_sink_u64(s, "frames", c.frames, 0);
    tk_sink_u64(s, "keyframes", c.keyframes, 0);
    tk_sink_u64(s, "records", c.records, 0);
    tk_sink_u64(s, "compressed_bytes", c.compressed, 0);
    tk_sink_u64(s, "inflated_bytes", c.inflated, 0);
    tk_sink_u64(s, "largest_frame_ops", st->max_frame_ops, 0);
    tk_sink_array_begin(s, "by_kind");
    for (int k = 0; k < TK_UCIR_KIND_COUNT; k++) {
        if (!st->by_kind[k])
            continue;
        tk_sink_object_begin(s, NULL);
        tk_sink_cstr(s, "kind", tk_ucir_kind_name((tk_ucir_kind)k), TK_SINK_ENUM);
        tk_sink_u64(s, "count", st->by_kind[k], 0);
        tk_sink_object_end(s);
    }
    tk_sink_array_end(s);
    tk_sink_u64(s, "instructions", spec ? st->by_kind[TK_UCIR_EXEC_ABS] + st->by_kind[TK_UCIR_EXEC_REL]
                                        : st->by_kind[TK_UCIR_STEP], 0);
    tk_sink_u64(s, "syscall_count", st->by_kind[TK_UCIR_SYSCALL], 0);
    tk_sink_u64(s, "ops_in_syscalls", st->nested, 0);
    tk_sink_u64(s, "bytes_read", st->read_bytes, 0);
    tk_sink_u64(s, "bytes_written", st->written_bytes, 0);
    tk_sink_u64(s, "bytes_mapped", st->mapped_bytes, 0);
    tk_sink_bool(s, "exited", st->exits > 0);
    tk_sink_object_end(s);
}

static uint64_t add_sat(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

void tk_ucir_stats_add(tk_ucir_stats *st, const tk_ucir_op *op)
{
    st->by_kind[op->kind]++;
    st->nested += op->depth != 0;
    switch (op->kind) {
    case TK_UCIR_FRAME:
        if (op->op_count > st->max_frame_ops)
            st->max_frame_ops = op->op_count;
        break;
    case TK_UCIR_MEM_READ: st->read_bytes = add_sat(st->read_bytes, op->size); break;
    case TK_UCIR_MEM_WRITE: st->written_bytes = add_sat(st->written_bytes, op->size); break;
    case TK_UCIR_MEM_MAP: st->mapped_bytes = add_sat(st->mapped_bytes, op->size); break;
    case TK_UCIR_EXIT: st->exits++; break;
    default: break;
    }
}

tk_status tk_ucir_info_cmd(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err)
{
    tk_ucir_reader *r = ucir_cmd_open_selected(in, o, 0, err); /* counts what it selects */
    if (!r)
        return err->status;
    stats st;
    memset(&st, 0, sizeof st);
    tk_ucir_op op;
    int rc;
    while ((rc = tk_ucir_next(r, &op, err)) > 0)
        tk_ucir_stats_add(&st, &op);
    if (rc == 0)
        emit(s, in, r, &st);
    tk_ucir_reader_free(r);
    return rc < 0 ? err->status : TK_OK;
}
