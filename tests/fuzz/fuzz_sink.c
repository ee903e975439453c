/* Fuzz target: the output sinks (sink.h), driven by a program read from the
 * input. Every format's info/dump/validate output goes through them, and
 * later formats will use shapes (tables with nested values, arrays of
 * arrays ...) the Cacheray commands do not, so the whole API is exercised
 * here: any well-nested sequence of calls must give valid JSON Lines (one
 * line per top-level value) or clean text, and an unfinished one must free
 * without leaks.
 *
 * Input: byte 0 = style (bit 0: JSON) and whether to close what is open at
 * the end (bit 1: leave it open); then one operation per byte, its operands
 * taken from the bytes after it. */
#include <string.h>

#include "fuzz_common.h"

#define MAX_DEPTH 48
#define MAX_OPS 2048

enum { C_OBJECT, C_ARRAY, C_RECORD };

typedef struct prog {
    const uint8_t *p, *end;
} prog;

static unsigned next_byte(prog *g) { return g->p < g->end ? *g->p++ : 0; }

static uint64_t next_u64(prog *g)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | next_byte(g);
    return v;
}

/* Keys are program constants in tracekit, never data: a fixed set. */
static const char *const keys[] = {
    "record", "offset", "kind", "addr", "size", "thread", "name", "count", "by_kind",
    "span_s", "a.b", "with space", "", "_s", "very_long_key_name_for_alignment", "value",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tk_error err;
    prog g = {data, data + size};
    unsigned mode = next_byte(&g);
    tk_sink_style style = mode & 1 ? TK_SINK_JSON : TK_SINK_TEXT;
    int leave_open = (mode & 2) != 0;
    tkf_memfile m;
    tkf_memfile_open(&m);
    tk_sink *s = tk_sink_new(m.fp, style, &err);
    TKF_CHECK(s != NULL, "tk_sink_new failed");
    tk_sink_set_json_hex(s, (mode & 4) != 0);

    int stack[MAX_DEPTH];
    int depth = 0;
    size_t top_values = 0;
    for (int ops = 0; g.p < g.end && ops < MAX_OPS; ops++) {
        unsigned op = next_byte(&g) % 13;
        /* inside an object every value has a key; elsewhere none */
        const char *key = NULL;
        if (depth > 0 && stack[depth - 1] != C_ARRAY)
            key = keys[next_byte(&g) % (sizeof keys / sizeof keys[0])];
        if (depth == 0 && op != 3)
            top_values++;
        switch (op) {
        case 0:
        case 1:
        case 2:
            if (depth == MAX_DEPTH || (op == 2 && depth > 0)) /* records: top level */
                break;
            if (op == 0)
                tk_sink_object_begin(s, key);
            else if (op == 1)
                tk_sink_array_begin(s, key);
            else
                tk_sink_record_begin(s);
            stack[depth++] = op == 0 ? C_OBJECT : op == 1 ? C_ARRAY : C_RECORD;
            break;
        case 3:
            if (depth == 0)
                break;
            depth--;
            if (stack[depth] == C_OBJECT)
                tk_sink_object_end(s);
            else if (stack[depth] == C_ARRAY)
                tk_sink_array_end(s);
            else
                tk_sink_record_end(s);
            break;
        case 4: tk_sink_u64(s, key, next_u64(&g), 0); break;
        case 5:
            tk_sink_u64(s, key, next_u64(&g), next_byte(&g) & 1 ? TK_SINK_HEX : TK_SINK_ADDR);
            break;
        case 6: tk_sink_i64(s, key, (int64_t)next_u64(&g)); break;
        case 7: {
            uint64_t bits = next_u64(&g);
            double d;
            memcpy(&d, &bits, sizeof d); /* NaN and infinities included */
            tk_sink_f64_flags(s, key, d, next_byte(&g) & 1 ? TK_SINK_SECONDS : 0);
            break;
        }
        case 8: tk_sink_bool(s, key, (int)(next_byte(&g) & 1)); break;
        case 9: tk_sink_null(s, key); break;
        case 10:
        case 11: { /* bytes from the input: any value, any UTF-8 */
            size_t len = next_byte(&g) % 64;
            size_t left = (size_t)(g.end - g.p);
            if (len > left)
                len = left;
            tk_sink_str(s, key, (const char *)g.p, len, op == 11 ? TK_SINK_BARE : TK_SINK_ENUM);
            g.p += len;
            break;
        }
        default:
            tk_sink_cstr(s, key, next_byte(&g) & 1 ? "text" : NULL, 0);
            break;
        }
    }
    if (leave_open && depth > 0) { /* abandoned midway: must free cleanly */
        tk_sink_free(s);
        tkf_memfile_free(&m);
        return 0;
    }
    while (depth > 0) {
        depth--;
        if (stack[depth] == C_OBJECT)
            tk_sink_object_end(s);
        else if (stack[depth] == C_ARRAY)
            tk_sink_array_end(s);
        else
            tk_sink_record_end(s);
    }
    tk_error_clear(&err);
    TKF_CHECK(tk_sink_finish(s, &err) == TK_OK, "tk_sink_finish: %s", err.message);
    tk_sink_free(s);
    tkf_memfile_close(&m);
    if (style == TK_SINK_JSON) {
        size_t lines = tkf_check_json_lines(m.buf, m.len);
        TKF_CHECK(lines == top_values, "%zu JSON lines for %zu top-level values", lines,
                  top_values);
    } else {
        tkf_check_text_lines(m.buf, m.len);
    }
    tkf_memfile_free(&m);
    return 0;
}
