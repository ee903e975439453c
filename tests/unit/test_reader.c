/* The generic reader (include/tracekit/reader.h) on every example trace:
 * its records' headers equal what `tracekit dump --json` prints (the
 * command run here, and the committed golden files for the first 20),
 * the count `info --json` printed when the goldens were made, and the
 * format's own reader; from a path, memory, a borrowed input and a pipe;
 * with selections, skip and limit as dump applies them; forced formats.
 * Usage: test_reader TRACEKIT (the command-line tool). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reader_seq.h"

static const char *tracekit;
#define GOLDEN_DIR TK_EXAMPLES_DIR "/../tests/golden"

/* What dump needs to print the generic reader's records. */
static const char *dump_args(tk_record_format f)
{
    return f == TK_RECORD_XRAY ? "--records logical" : f == TK_RECORD_UCIR ? "--records raw" : "";
}

static tk_options *options(const char *const *kv)
{
    tk_error err;
    tk_options *o = tk_options_new(&err);
    assert_non_null(o);
    for (; kv && kv[0]; kv += 2)
        assert_int_equal(tk_options_set(o, kv[0], kv[1], &err), TK_OK);
    return o;
}

/* The records of `path` through tk_reader_open with options `kv`. */
static void read_path(const char *path, const char *format, const char *const *kv, rs_seq *s)
{
    tk_options *o = options(kv);
    tk_reader *r = tk_reader_open(path, format, o, &s->err);
    if (!r)
        fail_msg("%s: %s", path, s->err.message);
    tk_options_free(o);
    rs_read(r, s);
    tk_reader_free(r);
}

/* The golden dump's first records, or 0 when they are not the reader's
 * records (an FDR trace's golden dump shows raw FDR records). */
static int golden_dump(const char *fmt, const char *name, tk_record_format f, rs_seq *s)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s.dump20.jsonl", GOLDEN_DIR, fmt, name);
    size_t n;
    char *text = (char *)tu_read_file(path, &n);
    assert_non_null(text);
    text[n ? n - 1 : 0] = '\0'; /* the last newline */
    int logical = f != TK_RECORD_XRAY || !strstr(text, "\"kind\":\"buffer_extents\"");
    if (logical)
        rs_parse_jsonl(f, text, s);
    free(text);
    return logical;
}

static uint64_t golden_count(const char *fmt, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s.info.json", GOLDEN_DIR, fmt, name);
    size_t n;
    char *text = (char *)tu_read_file(path, &n);
    assert_non_null(text);
    text[n ? n - 1 : 0] = '\0';
    const char *p = strstr(text, "\"records\":");
    assert_non_null(p);
    uint64_t count = strtoull(p + 10, NULL, 10);
    free(text);
    return count;
}

/* Memory, a borrowed memory input, a pipe, and foreach give what the path
 * gave. */
static void other_inputs(const char *path, const rs_seq *want)
{
    size_t n;
    uint8_t *d = tu_read_file(path, &n);
    assert_non_null(d);
    tk_error err;
    rs_seq s = {0};
    tk_reader *r = tk_reader_from_memory(d, n, NULL, NULL, &err);
    assert_non_null(r);
    rs_read(r, &s);
    tk_reader_free(r);
    rs_assert_equal(want, &s, SIZE_MAX, "tk_reader_from_memory");
    rs_free(&s);

    tk_input *in = tk_input_from_memory(d, n, "x", &err);
    r = tk_reader_new(in, NULL, NULL, &err);
    assert_non_null(r);
    rs_read(r, &s);
    tk_reader_free(r);
    tk_input_close(in);
    rs_assert_equal(want, &s, SIZE_MAX, "tk_reader_new on memory");
    rs_free(&s);

    int fd;
    pid_t pid = tu_pipe_feed(d, n, n, &fd);
    in = tk_input_from_fd(fd, "<pipe>", &err);
    assert_non_null(in);
    r = tk_reader_new(in, NULL, NULL, &err);
    if (!r)
        fail_msg("%s on a pipe: %s", path, err.message);
    rs_read(r, &s);
    tk_reader_free(r);
    tk_input_close(in);
    tu_pipe_wait(pid, fd);
    rs_assert_equal(want, &s, SIZE_MAX, "tk_reader_new on a pipe");
    assert_int_equal(s.rc, 0);
    rs_free(&s);
    free(d);
}

/* One example: the reader against dump, the goldens, the format's reader
 * and the other inputs. */
static void check_example(const char *fmt, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s", TK_EXAMPLES_DIR, fmt, name);
    tk_record_format f = rs_format_of(fmt);
    rs_seq got = {0}, cli = {0}, gold = {0}, native = {0};
    read_path(path, NULL, NULL, &got);
    if (got.rc != 0)
        fail_msg("%s: %s", path, got.err.message);
    assert_int_equal(got.n, golden_count(fmt, name));
    assert_int_equal(rs_cli_dump(tracekit, dump_args(f), path, f, &cli), 0);
    rs_assert_equal(&cli, &got, SIZE_MAX, path);
    /* (UCIR's golden listing has the records of 20 instructions) */
    if (golden_dump(fmt, name, f, &gold)) {
        assert_true(gold.n >= (got.n < 20 ? got.n : 20));
        rs_assert_equal(&gold, &got, gold.n, "golden dump");
    }
    size_t n;
    uint8_t *d = tu_read_file(path, &n);
    rs_read_native(fmt, d, n, &native);
    free(d);
    rs_assert_equal(&native, &got, SIZE_MAX, "the format's reader");
    other_inputs(path, &got);
    rs_free(&got);
    rs_free(&cli);
    rs_free(&gold);
    rs_free(&native);
}

/* Every example that has golden outputs is a trace. */
static void test_examples(void **state)
{
    (void)state;
    static const char *const fmts[] = {"cacheray", "casemate", "ucir", "xray"};
    int traces = 0;
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", TK_EXAMPLES_DIR, fmts[i]);
        DIR *dp = opendir(dir);
        assert_non_null(dp);
        struct dirent *e;
        while ((e = readdir(dp)) != NULL) {
            char info[4096];
            struct stat st;
            snprintf(info, sizeof info, "%s/%s/%s.info.json", GOLDEN_DIR, fmts[i], e->d_name);
            if (e->d_name[0] == '.' || stat(info, &st) != 0)
                continue;
            check_example(fmts[i], e->d_name);
            traces++;
        }
        closedir(dp);
    }
    assert_true(traces >= 7); /* heap, heap-be, bbm, missing-tlbi, hello, basic, fdr */
}

/* usercorn's .uc files (no example: the fuzz seed of the demo program). */
static void test_uc_file(void **state)
{
    (void)state;
    const char *path = TK_EXAMPLES_DIR "/../tests/fuzz/corpus/ucir/uc-demo";
    rs_seq got = {0}, cli = {0};
    tk_error err;
    tk_reader *r = tk_reader_open(path, NULL, NULL, &err);
    int status = rs_cli_dump(tracekit, "--records raw", path, TK_RECORD_UCIR, &cli);
    if (!r) { /* built without Snappy: both refuse */
        assert_int_not_equal(status, 0);
        return;
    }
    assert_string_equal(tk_format_name(tk_reader_format(r)), "usercorn");
    assert_non_null(tk_reader_ucir(r));
    assert_int_equal(tk_ucir_reader_header(tk_reader_ucir(r))->variant, TK_UCIR_USERCORN);
    rs_read(r, &got);
    tk_reader_free(r);
    assert_int_equal(got.rc, 0);
    assert_int_equal(status, 0);
    assert_true(got.n > 10);
    rs_assert_equal(&cli, &got, SIZE_MAX, ".uc against dump --records raw");
    rs_free(&got);
    rs_free(&cli);
}

/* ---- selections: the reader's records are dump's with the same options */

typedef struct sel_case {
    const char *file;           /* under examples/ */
    const char *args;           /* dump's options */
    const char *kv[8];          /* the same as tk_options */
} sel_case;

static const sel_case sel_cases[] = {
    {"cacheray/heap.trace", "--thread 1001", {"thread", "1001"}},
    {"cacheray/heap.trace", "--range 10:50", {"range", "10:50"}},
    {"cacheray/heap.trace", "--addr 0x5555555a8000+4096", {"addr", "0x5555555a8000+4096"}},
    {"cacheray/heap.trace", "--thread 1000,1002 --range 100:", {"thread", "1000,1002", "range", "100:"}},
    {"cacheray/heap.trace", "--skip 5 --limit 7 --thread 1000",
     {"skip", "5", "limit", "7", "thread", "1000"}},
    {"cacheray/heap-be.trace", "--endian big --thread 1002", {"endian", "big", "thread", "1002"}},
    {"casemate/bbm.log", "--thread 1", {"thread", "1"}},
    {"casemate/bbm.log", "--range 3:9", {"range", "3:9"}},
    {"casemate/bbm.log", "--addr 0x80000+0x1000", {"addr", "0x80000+0x1000"}},
    {"casemate/missing-tlbi.log", "--limit 4", {"limit", "4"}},
    {"ucir/hello.ucir", "--records raw --range 2:5", {"records", "raw", "range", "2:5"}},
    {"ucir/hello.ucir", "--records raw --addr 0x401000+16", {"addr", "0x401000+16"}},
    {"ucir/hello.ucir", "--records raw --skip 40 --threads 1",
     {"skip", "40", "threads", "1"}},
    {"xray/basic-v3.xray", "--thread 2521", {"thread", "2521"}},
    {"xray/basic-v3.xray", "--range 100us:400us", {"range", "100us:400us"}},
    {"xray/basic-v3.xray", "--func 2", {"func", "2"}},
    {"xray/fdr-v5.xray", "--thread 2524", {"thread", "2524"}},
    {"xray/fdr-v5.xray", "--range 10us:50us", {"range", "10us:50us"}},
    {"xray/fdr-v5.xray", "--func 3 --thread 2523-2524", {"func", "3", "thread", "2523-2524"}},
    {"xray/fdr-v5.xray", "--records logical --skip 85", {"records", "logical", "skip", "85"}},
};

static void test_selections(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof sel_cases / sizeof sel_cases[0]; i++) {
        const sel_case *c = &sel_cases[i];
        char path[4096], fmt[32], what[512];
        snprintf(path, sizeof path, "%s/%s", TK_EXAMPLES_DIR, c->file);
        snprintf(fmt, sizeof fmt, "%.*s", (int)strcspn(c->file, "/"), c->file);
        snprintf(what, sizeof what, "%s %s", c->file, c->args);
        tk_record_format f = rs_format_of(fmt);
        rs_seq got = {0}, cli = {0}, all = {0};
        read_path(path, NULL, c->kv, &got);
        assert_int_equal(got.rc, 0);
        char args[256];
        snprintf(args, sizeof args, "%s %s", strstr(c->args, "--records") ? "" : dump_args(f),
                 c->args);
        assert_int_equal(rs_cli_dump(tracekit, args, path, f, &cli), 0);
        rs_assert_equal(&cli, &got, SIZE_MAX, what);
        read_path(path, NULL, NULL, &all);
        if (got.n == 0 || got.n >= all.n) /* a selection that selects nothing tests little */
            fail_msg("%s: %zu of %zu records", what, got.n, all.n);
        rs_free(&got);
        rs_free(&cli);
        rs_free(&all);
    }
}

/* --func by name, through the "instr-map" option, is --func by id. */
static void test_func_name(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    const char *map = tu_path(dir, "map.yaml");
    static const char yaml[] =
        "---\n"
        "- { id: 2, address: 0x2000, function: 0x2000, kind: function-enter, "
        "always-instrument: false, function-name: parse, version: 2 }\n"
        "- { id: 2, address: 0x2008, function: 0x2000, kind: function-exit, "
        "always-instrument: false, function-name: parse, version: 2 }\n...\n";
    tu_write_file(map, yaml, sizeof yaml - 1);
    const char *path = TK_EXAMPLES_DIR "/xray/basic-v3.xray";
    rs_seq by_name = {0}, by_id = {0};
    read_path(path, NULL, (const char *const[]){"instr-map", map, "func", "parse", NULL},
              &by_name);
    read_path(path, NULL, (const char *const[]){"func", "2", NULL}, &by_id);
    assert_true(by_id.n > 0);
    rs_assert_equal(&by_id, &by_name, SIZE_MAX, "--func parse");
    rs_free(&by_name);
    rs_free(&by_id);
    /* without a map a name cannot be looked up: the selection's error */
    tk_error err;
    tk_options *o = options((const char *const[]){"func", "parse", NULL});
    assert_null(tk_reader_open(path, NULL, o, &err));
    assert_int_equal(err.status, TK_EUSAGE);
    tk_options_free(o);
    tu_rmdir(dir);
}

/* A named format skips the probe; both UCIR names read the same. */
static void test_forced_format(void **state)
{
    (void)state;
    const char *ucir = TK_EXAMPLES_DIR "/ucir/hello.ucir";
    rs_seq a = {0}, b = {0};
    read_path(ucir, NULL, NULL, &a);
    read_path(ucir, "usercorn", NULL, &b);
    rs_assert_equal(&a, &b, SIZE_MAX, "hello.ucir read as usercorn");
    tk_error err;
    tk_reader *r = tk_reader_open(ucir, "usercorn", NULL, &err);
    assert_string_equal(tk_format_name(tk_reader_format(r)), "usercorn");
    tk_reader_free(r);
    r = tk_reader_open(ucir, NULL, NULL, &err);
    assert_string_equal(tk_format_name(tk_reader_format(r)), "ucir");
    tk_reader_free(r);
    rs_free(&a);
    rs_free(&b);

    /* a casemate log read as Cacheray: what Cacheray's reader says of it */
    const char *log = TK_EXAMPLES_DIR "/casemate/bbm.log";
    size_t n;
    uint8_t *d = tu_read_file(log, &n);
    rs_seq native = {0}, forced = {0};
    rs_read_native("cacheray", d, n, &native);
    r = tk_reader_from_memory(d, n, "cacheray", NULL, &err);
    assert_non_null(r);
    assert_non_null(tk_reader_cacheray(r));
    rs_read(r, &forced);
    tk_reader_free(r);
    assert_int_equal(native.rc, -1);
    rs_assert_equal(&native, &forced, SIZE_MAX, "bbm.log as cacheray");
    rs_assert_same_error(&native.err, &forced.err, "bbm.log as cacheray");
    rs_free(&native);
    rs_free(&forced);
    free(d);

    assert_null(tk_reader_open(log, "no-such-format", NULL, &err));
    assert_int_equal(err.status, TK_EUSAGE);
}

/* Each format's reader is reachable for its own calls, the others not. */
static void test_accessors(void **state)
{
    (void)state;
    tk_error err;
    tk_reader *r = tk_reader_open(TK_EXAMPLES_DIR "/xray/fdr-v5.xray", NULL, NULL, &err);
    assert_non_null(r);
    assert_non_null(tk_reader_xray(r));
    assert_int_equal(tk_xray_reader_header(tk_reader_xray(r))->version, 5);
    assert_null(tk_reader_cacheray(r));
    assert_null(tk_reader_casemate(r));
    assert_null(tk_reader_ucir(r));
    tk_record rec;
    assert_int_equal(tk_reader_next(r, &rec, &err), 1);
    assert_int_equal(rec.format, TK_RECORD_XRAY);
    assert_true(rec.as.xray->tsc == rec.time);
    tk_reader_free(r);
    r = tk_reader_open(TK_EXAMPLES_DIR "/casemate/bbm.log", NULL, NULL, &err);
    assert_non_null(tk_reader_casemate(r));
    assert_null(tk_reader_xray(r));
    assert_int_equal(tk_reader_next(r, &rec, &err), 1);
    assert_int_equal(rec.format, TK_RECORD_CASEMATE);
    assert_int_equal(rec.as.casemate->kind, TK_CASEMATE_SYSREG_WRITE);
    assert_int_equal(rec.offset, TK_NO_OFFSET);
    tk_reader_free(r);
    assert_null(tk_reader_xray(NULL));
    tk_reader_free(NULL);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_reader TRACEKIT\n");
        return 2;
    }
    tracekit = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples),      cmocka_unit_test(test_uc_file),
        cmocka_unit_test(test_selections),    cmocka_unit_test(test_func_name),
        cmocka_unit_test(test_forced_format), cmocka_unit_test(test_accessors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
