/* `tracekit report --html` for UCIR traces (both layouts): the report's
 * replay (report.c) with a hook of the page's (html_collect.c), then the
 * page: architecture and counts (report's and info's facts, records by
 * kind), the syscall timeline, how the memory map changed, the hottest
 * code addresses with their disassembly, bytes written per mapped region
 * and the final state. Every number that report --json, info --json or
 * the dump's records also print is the same number (docs/formats/ucir.md,
 * "HTML report"). */
#include "ucir/html_int.h"

#define FIELDS(f) (sizeof f / sizeof f[0])

/* report --json's facts. */
static void report_facts(tk_html *h, tk_uh *u, tk_input *in)
{
    const tk_ucir_header *hd = u->rep.h;
    tk_ucir_replay_info info;
    tk_ucir_replay_info_get(u->rep.rp, &info);
    tk_html_field f[] = {
        {"file", "file", TK_HTML_PLAIN, 0, tk_html_str(tk_input_name(in))},
        {"format", "format", TK_HTML_PLAIN, 0,
         tk_html_str(hd->variant == TK_UCIR_SPEC ? "ucir" : "usercorn")},
        {"architecture", "arch", TK_HTML_PLAIN, 0, tk_html_str(tk_ucir_rep_arch(hd))},
        {"operating system", "os", TK_HTML_PLAIN, 0, tk_html_str(hd->os)},
        {"instructions", "instructions", TK_HTML_PLAIN, 0, tk_html_u64(info.instructions)},
        {"records", "records", TK_HTML_PLAIN, 0, tk_html_u64(info.records)},
        {"frames", "frames", TK_HTML_PLAIN, 0, tk_html_u64(info.frames)},
        {"records in later keyframes (skipped)", "skipped_keyframe_records", TK_HTML_PLAIN, 0,
         tk_html_u64(info.skipped_records)},
        {"unique code addresses", "unique_code_addresses", TK_HTML_PLAIN, 0,
         tk_html_u64(u->rep.pcs.n)},
        {"exited", "exited", TK_HTML_PLAIN, 0, tk_html_json(info.exited ? "true" : "false")}};
    tk_html_facts(h, "report", NULL, f, FIELDS(f));
}

/* info --json's facts, counted in the same pass. */
static void info_facts(tk_html *h, tk_uh *u)
{
    const tk_ucir_header *hd = u->rep.h;
    const tk_ucir_stats *st = &u->stats;
    tk_ucir_counts c;
    tk_ucir_reader_counts(u->rep.r, &c);
    int spec = hd->variant == TK_UCIR_SPEC;
    tk_html_field f[] = {
        {"layout", "layout", TK_HTML_PLAIN, 0,
         tk_html_str(spec ? "2016 spec (big-endian, zlib frames)"
                          : "usercorn .uc (Snappy stream, little-endian ops)")},
        {"version", "version", TK_HTML_PLAIN, 0, tk_html_u64(hd->version)},
        {"Unicorn architecture", "uc_arch", TK_HTML_PLAIN, 0, tk_html_u64(hd->arch)},
        {"Unicorn mode", "uc_mode", TK_HTML_HEX, 0, tk_html_u64(hd->mode)},
        {"keyframes", "keyframes", TK_HTML_PLAIN, 0, tk_html_u64(c.keyframes)},
        {"compressed", "compressed_bytes", TK_HTML_BYTES, 0, tk_html_u64(c.compressed)},
        {"inflated", "inflated_bytes", TK_HTML_BYTES, 0, tk_html_u64(c.inflated)},
        {"largest frame (records)", "largest_frame_ops", TK_HTML_PLAIN, 0,
         tk_html_u64(st->max_frame_ops)},
        {"syscalls", "syscall_count", TK_HTML_PLAIN, 0,
         tk_html_u64(st->by_kind[TK_UCIR_SYSCALL])},
        {"records inside syscalls", "ops_in_syscalls", TK_HTML_PLAIN, 0, tk_html_u64(st->nested)},
        {"bytes read", "bytes_read", TK_HTML_BYTES, 0, tk_html_u64(st->read_bytes)},
        {"bytes written", "bytes_written", TK_HTML_BYTES, 0, tk_html_u64(st->written_bytes)},
        {"bytes mapped", "bytes_mapped", TK_HTML_BYTES, 0, tk_html_u64(st->mapped_bytes)}};
    tk_html_facts(h, "info", NULL, f, FIELDS(f));
}

/* Records by kind: a bar each, as report --json's by_kind. */
static void by_kind(tk_html *h, tk_uh *u)
{
    tk_html_value x[TK_UCIR_KIND_COUNT], y[TK_UCIR_KIND_COUNT];
    size_t n = 0;
    for (int k = 0; k < TK_UCIR_KIND_COUNT; k++)
        if (u->rep.kinds[k]) {
            x[n] = tk_html_str(tk_ucir_kind_name((tk_ucir_kind)k));
            y[n++] = tk_html_u64(u->rep.kinds[k]);
        }
    tk_html_series s = {"records", "count", y};
    tk_html_chart c = {.id = "by-kind", .title = "Records by kind",
                       .caption = "Every record of the trace, later keyframes' included.",
                       .src = "report.by_kind", .x_label = "kind", .x_key = "kind",
                       .y_label = "records"};
    tk_html_bars(h, &c, x, n, &s, 1);
}

/* The registers the replay ends with, as report --json's. */
static void registers(tk_html *h, tk_uh *u)
{
    const tk_ucir_replay *rp = u->rep.rp;
    static const tk_html_column cols[] = {
        {.label = "register", .key = "reg", .flags = TK_HTML_COL_KEY | TK_HTML_COL_MONO},
        {.label = "value", .key = "value", .unit = TK_HTML_HEX, .flags = TK_HTML_COL_MONO}};
    tk_html_table_spec spec = {.id = "registers", .src = "report.registers", .cols = cols,
                               .ncols = 2, .caption = "Registers at the end of the replay"};
    tk_html_table_begin(h, &spec);
    for (uint32_t w = 0; w < RP_NREGS / 64; w++)
        for (uint64_t bits = rp->have[w]; bits; bits &= bits - 1) {
            uint32_t num = w * 64 + (uint32_t)__builtin_ctzll(bits);
            char buf[24];
            const char *name = tk_ucir_reg_label(u->rep.h->arch, u->rep.h->mode, num, buf,
                                                 sizeof buf);
            tk_html_value row[2] = {tk_html_str(name), tk_html_u64(rp->regs[num])};
            tk_html_table_row(h, row);
        }
    tk_html_table_end(h);
}

static void page(tk_html *h, tk_uh *u, tk_input *in)
{
    tk_html_section(h, "summary", "Architecture and counts", NULL);
    report_facts(h, u, in);
    info_facts(h, u);
    by_kind(h, u);
    tk_html_section_end(h);
    tk_html_section(h, "syscalls", "Syscalls",
                    "When the program called the kernel, by instruction index.");
    tk_uh_syscalls(h, u);
    tk_html_section_end(h);
    tk_html_section(h, "memory", "Memory map",
                    "Every map, unmap and protection change, and the map the replay ends with.");
    tk_uh_memory(h, u);
    tk_html_section_end(h);
    tk_html_section(h, "code", "Hot code",
                    "The addresses executed most often, with their disassembly.");
    tk_uh_hot_code(h, u);
    tk_html_section_end(h);
    tk_html_section(h, "regions", "Mapped regions",
                    "Instructions executed and bytes written in each mapped region.");
    tk_uh_regions(h, u);
    tk_html_section_end(h);
    tk_html_section(h, "state", "Final registers", NULL);
    registers(h, u);
    tk_html_section_end(h);
}

tk_status tk_ucir_report_html(tk_input *in, const tk_options *o, FILE *out, tk_error *err)
{
    tk_uh u;
    tk_status st = tk_uh_collect(&u, in, o, err);
    if (st == TK_OK) {
        const char *title = u.rep.h->variant == TK_UCIR_SPEC ? "UCIR report" : "Usercorn report";
        tk_html *h = tk_html_begin(out, title, tk_input_name(in), err);
        if (!h) {
            st = err->status;
        } else {
            page(h, &u, in);
            st = tk_html_end(h, err);
        }
    }
    tk_uh_free(&u);
    return st;
}
