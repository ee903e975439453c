/* The UCIR dump: disassembly of code known from memory writes for every
 * architecture Unicorn names (spec traces), .uc instructions whose size
 * comes after them, and code that is unknown or only partly known. */
#include <stdio.h>

#include "ucir_test.h"

/* A spec trace: setup keyframe maps and writes `code_hex` at 0x1000 (only
 * its first `known` bytes when known >= 0), then one EXEC_ABS of `size`. */
static void spec_trace(ub *b, uint32_t arch, uint32_t mode, const char *code_hex, int known,
                       uint32_t size)
{
    ub code = {0}, body = {0};
    ub_hex(&code, code_hex);
    size_t n = known >= 0 ? (size_t)known : code.len;
    ub_spec_header(b, arch, mode, "t", "linux");
    ub_hex(&body, "08 0000000000001000 00001000 05");
    ub_u8(&body, 7);
    ub_be(&body, 0x1000, 8);
    ub_be(&body, n, 8);
    ub_put(&body, code.p, n);
    char hex[256];
    size_t k = 0;
    for (size_t i = 0; i < body.len; i++)
        k += (size_t)snprintf(hex + k, sizeof hex - k, "%02x", body.p[i]);
    ub_frame_hex(b, 1, 2, hex);
    snprintf(hex, sizeof hex, "02 0000000000001000 %08x", size);
    ub_frame_hex(b, 0, 1, hex);
    ub_free(&code);
    ub_free(&body);
}

/* `tracekit dump --json` of the trace: every line, joined. */
static char *dump_json(const ub *b, const char *format)
{
    tk_error err;
    tk_input *in = tk_input_from_memory(b->p, b->len, "mem", &err);
    assert_non_null(in);
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    tk_sink *s = tk_sink_new(fp, TK_SINK_JSON, &err);
    tk_status st = tk_dump(tk_format_find(format), in, NULL, s, &err);
    if (st != TK_OK)
        fail_msg("dump: %s", err.message);
    assert_int_equal(tk_sink_finish(s, &err), TK_OK);
    tk_sink_free(s);
    fclose(fp);
    tk_input_close(in);
    return text;
}

static void expect_disasm(uint32_t arch, uint32_t mode, const char *code_hex, int known,
                          uint32_t size, const char *want)
{
    ub b = {0};
    spec_trace(&b, arch, mode, code_hex, known, size);
    char *text = dump_json(&b, "ucir");
    char field[128];
    if (want)
        snprintf(field, sizeof field, "\"pc\":4096,\"disasm\":\"%s\"}", want);
    else
        snprintf(field, sizeof field, "\"pc\":4096,\"disasm\":null}");
    if (!strstr(text, field))
        fail_msg("arch %u mode 0x%x %s: no %s in\n%s", arch, mode, code_hex, field, text);
    free(text);
    ub_free(&b);
}

enum { BIG = 1 << 30 };

static void test_architectures(void **state)
{
    (void)state;
    expect_disasm(4, 8, "48c7c001000000", -1, 7, "mov rax, 1");
    expect_disasm(4, 4, "b801000000", -1, 5, "mov eax, 1");
    expect_disasm(4, 2, "b80100", -1, 3, "mov ax, 1");
    expect_disasm(1, 0, "0100a0e3", -1, 4, "mov r0, #1");
    expect_disasm(1, 16, "0120", -1, 2, "movs r0, #1");          /* Thumb */
    expect_disasm(2, 0, "200080d2", -1, 4, "movz x0, #0x1");
    expect_disasm(3, 4, "01000224", -1, 4, "addiu $v0, $zero, 1");
    expect_disasm(3, 4 | BIG, "24020001", -1, 4, "addiu $v0, $zero, 1");
}

static void test_unknown_code(void **state)
{
    (void)state;
    expect_disasm(4, 4, "b801000000", 2, 5, NULL);   /* 2 of 5 bytes written */
    expect_disasm(4, 4, "b801000000", 0, 5, NULL);   /* none */
    expect_disasm(4, 4, "90", -1, 5, NULL);          /* bytes of another length */
    expect_disasm(99, 0, "90", -1, 1, NULL);         /* no decoder */
}

/* .uc: the instruction's length comes with its STEP, after its effects;
 * the code is decoded from what memory holds when it starts. */
static void test_uc_listing(void **state)
{
    (void)state;
    ub ops = {0};
    /* keyframe: the code (mov eax, 1; nop) at 0x400000 */
    ub_hex(&ops, "02 0000000000000000 01000000"
                 "  08 0000400000000000 06000000 b80100000090");
    ub_hex(&ops, "01 0000000000000000 04000000"
                 "  03 0000400000000000 06000000"
                 "  05 2300 0100000000000000  04 05  04 01");
    ub b = {0};
    ub_uc_header(&b, "x86_64", "linux");
    ub_uc_chunks(&b, ops.p, ops.len, 64);
    char *text = dump_json(&b, "usercorn");
    assert_non_null(strstr(text, "\"kind\":\"jmp\",\"depth\":0,\"addr\":4194304,\"size\":6,"
                                 "\"insn\":0,\"pc\":4194304,\"disasm\":\"mov eax, 1\"}"));
    assert_non_null(strstr(text, "\"insn\":1,\"pc\":4194309,\"disasm\":\"nop\"}"));
    free(text);
    ub_free(&b);
    ub_free(&ops);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_architectures),
        cmocka_unit_test(test_unknown_code),
        cmocka_unit_test(test_uc_listing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
