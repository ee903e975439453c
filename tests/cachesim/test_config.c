/* Cache configurations: --level specs, tracekit's JSON format, the
 * original simulator's format (its sample configs), and the messages for
 * what is not acceptable. */
#include <string.h>

#include "simtest.h"

static void expect_level(const tk_cachesim_level *l, const char *name, uint64_t size,
                         uint32_t ways, uint32_t line, tk_cachesim_policy policy)
{
    assert_string_equal(l->name, name);
    assert_int_equal(l->size, size);
    assert_int_equal(l->ways, ways);
    assert_int_equal(l->line, line);
    assert_int_equal(l->policy, policy);
}

static void level_specs(void **state)
{
    (void)state;
    tk_cachesim_config c;
    tk_error err;
    tk_cachesim_config_init(&c);
    assert_int_equal(c.seed, 1);
    assert_int_equal(tk_cachesim_config_add_level(&c, "L1:32K:8:64:lru", &err), TK_OK);
    assert_int_equal(tk_cachesim_config_add_level(&c, "L2:1M:full:64", &err), TK_OK);
    assert_int_equal(tk_cachesim_config_add_level(&c, "LLC:48KiB:12:64:RANDOM", &err), TK_OK);
    assert_int_equal(tk_cachesim_config_add_level(&c, "x:16kb:4:128:plru", &err), TK_OK);
    assert_int_equal(c.nlevels, 4);
    expect_level(&c.levels[0], "L1", 32768, 8, 64, TK_CACHESIM_LRU);
    expect_level(&c.levels[1], "L2", 1 << 20, 0, 64, TK_CACHESIM_LRU);
    expect_level(&c.levels[2], "LLC", 48 << 10, 12, 64, TK_CACHESIM_RANDOM);
    expect_level(&c.levels[3], "x", 16 << 10, 4, 128, TK_CACHESIM_PLRU);
    assert_true(c.levels[0].write_back && c.levels[0].write_allocate && !c.levels[0].inclusive);
    assert_int_equal(tk_cachesim_config_check(&c, &err), TK_OK);

    static const struct {
        const char *spec, *message;
    } bad[] = {
        {"L1:32K:8", "--level 'L1:32K:8': expected NAME:SIZE:WAYS:LINE[:POLICY], e.g. L1:32K:8:64:lru"},
        {":32K:8:64", "expected NAME:SIZE:WAYS:LINE"},
        {"L1:32K:8:64:lru:x", "expected NAME:SIZE:WAYS:LINE"},
        {"L1:32Q:8:64", "--level 'L1:32Q:8:64': bad size '32Q'"},
        {"L1:32K:x:64", "ways must be a number or 'full', not 'x'"},
        {"L1:32K:0:64", "ways must be a number or 'full', not '0'"},
        {"L1:32K:8:48", "the line size must be a power of two from 4 to 1M"},
        {"L1:32K:8:2", "the line size must be a power of two from 4 to 1M"},
        {"L1:100:1:64", "the size must be a nonzero multiple of the line size"},
        {"L1:3K:4:1K", "the size must be a multiple of line size x ways"},
        {"L1:32K:8:64:lifo", "policy must be lru, fifo, plru or random, not 'lifo'"},
        {"L1:24K:3:64:plru", "--level 'L1:24K:3:64:plru': plru needs a power-of-two number of ways"},
        {"L1:24K:full:64:plru", "plru needs a power-of-two number of ways"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tk_cachesim_config_init(&c);
        assert_int_equal(tk_cachesim_config_add_level(&c, bad[i].spec, &err), TK_EUSAGE);
        if (!strstr(err.message, bad[i].message))
            fail_msg("%s: '%s' lacks '%s'", bad[i].spec, err.message, bad[i].message);
        assert_int_equal(c.nlevels, 0);
    }
    tk_cachesim_config_init(&c);
    for (int i = 0; i < TK_CACHESIM_MAX_LEVELS; i++)
        assert_int_equal(tk_cachesim_config_add_level(&c, "L:1K:1:64", &err), TK_OK);
    assert_int_equal(tk_cachesim_config_add_level(&c, "L:1K:1:64", &err), TK_EUSAGE);
    assert_non_null(strstr(err.message, "too many levels"));
    tk_cachesim_config_init(&c);
    assert_int_equal(tk_cachesim_config_check(&c, &err), TK_EUSAGE);
    assert_null(tk_cachesim_new(&c, &err));
}

static void default_hierarchy(void **state)
{
    (void)state;
    tk_cachesim_config c;
    tk_cachesim_config_init(&c);
    tk_cachesim_config_default(&c);
    assert_int_equal(c.nlevels, 2);
    expect_level(&c.levels[0], "L1", 32 << 10, 8, 64, TK_CACHESIM_LRU);
    expect_level(&c.levels[1], "L2", 1 << 20, 16, 64, TK_CACHESIM_LRU);
    assert_true(c.levels[1].write_back && c.levels[1].write_allocate && !c.levels[1].inclusive);
}

static tk_status parse(tk_cachesim_config *c, const char *json, tk_error *err)
{
    tk_cachesim_config_init(c);
    return tk_cachesim_config_parse(c, json, strlen(json), err);
}

static void own_json(void **state)
{
    (void)state;
    tk_cachesim_config c;
    tk_error err;
    assert_int_equal(parse(&c,
                           "{\"levels\": [{\"name\": \"L1\", \"size\": \"32K\", \"ways\": 8, "
                           "\"line\": 64, \"policy\": \"plru\", \"write_back\": false, "
                           "\"write_allocate\": false, \"inclusive\": true}, "
                           "{\"size\": 1048576, \"ways\": \"full\", \"line\": \"64\"}], "
                           "\"seed\": 9}",
                           &err),
                     TK_OK);
    assert_int_equal(c.nlevels, 2);
    assert_int_equal(c.seed, 9);
    expect_level(&c.levels[0], "L1", 32768, 8, 64, TK_CACHESIM_PLRU);
    assert_true(!c.levels[0].write_back && !c.levels[0].write_allocate && c.levels[0].inclusive);
    expect_level(&c.levels[1], "L2", 1 << 20, 0, 64, TK_CACHESIM_LRU); /* named by position */
    assert_true(c.levels[1].write_back && c.levels[1].write_allocate);

    static const struct {
        const char *json, *message;
    } bad[] = {
        {"", "line 1 column 0: "},
        {"[]", "a cache configuration is a JSON object"},
        {"{\"levels\": []}", "\"levels\" must be a non-empty array"},
        {"{\"levels\": [{\"size\": 1024, \"line\": 64}], \"colour\": 1}", "unknown key 'colour'"},
        {"{\"levels\": [{\"size\": 1024, \"line\": 64, \"way\": 2}]}", "levels[0]: unknown key 'way'"},
        {"{\"levels\": [{\"size\": 1024}]}", "levels[0]: \"size\" and \"line\" are required"},
        {"{\"levels\": [{\"size\": 1024, \"line\": 64, \"policy\": \"lifo\"}]}",
         "levels[0]: bad value for \"policy\""},
        {"{\"levels\": [{\"size\": 1024, \"line\": 64, \"inclusive\": 1}]}",
         "levels[0]: bad value for \"inclusive\""},
        {"{\"levels\": [{\"size\": 1024, \"line\": 64}, {\"size\": 1000, \"line\": 64}]}",
         "levels[1]: the size must be a nonzero multiple of the line size"},
        {"{\"levels\": [{\"size\": 1024, \"line\": 64}], \"seed\": -1}",
         "\"seed\" must be a non-negative integer"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse(&c, bad[i].json, &err), TK_EUSAGE);
        if (!strstr(err.message, bad[i].message))
            fail_msg("%s: '%s' lacks '%s'", bad[i].json, err.message, bad[i].message);
    }
}

/* The original simulator's samples: basic.json, two_layer.json. */
static void original_json(void **state)
{
    (void)state;
    tk_cachesim_config c;
    tk_error err;
    assert_int_equal(parse(&c,
                           "{\"caches\":[{\"name\":\"L1\",\"cache_size\":16,\"block_size\":6,"
                           "\"write_policy\":0,\"set_assoc\":1,\"rep_policy\":0}]}",
                           &err),
                     TK_OK);
    assert_int_equal(c.nlevels, 1);
    expect_level(&c.levels[0], "L1", 65536, 1, 64, TK_CACHESIM_LRU);
    assert_int_equal(parse(&c,
                           "{\"caches\":[{\"name\":\"L1\",\"cache_size\":16,\"block_size\":6,"
                           "\"write_policy\":0,\"set_assoc\":1,\"rep_policy\":0},"
                           "{\"name\":\"L2\",\"cache_size\":18,\"block_size\":6,"
                           "\"write_policy\":0,\"set_assoc\":1,\"rep_policy\":0}]}",
                           &err),
                     TK_OK);
    expect_level(&c.levels[1], "L2", 262144, 1, 64, TK_CACHESIM_LRU);
    assert_int_equal(parse(&c,
                           "{\"caches\":[{\"cache_size\":12,\"block_size\":5,\"set_assoc\":0,"
                           "\"rep_policy\":1},{\"cache_size\":14,\"block_size\":6,"
                           "\"set_assoc\":4,\"rep_policy\":4}]}",
                           &err),
                     TK_OK);
    expect_level(&c.levels[0], "L1", 4096, 0, 32, TK_CACHESIM_FIFO);
    expect_level(&c.levels[1], "L2", 16384, 4, 64, TK_CACHESIM_RANDOM);

    static const struct {
        const char *json, *message;
    } bad[] = {
        {"{\"caches\":[{\"cache_size\":12,\"block_size\":6,\"set_assoc\":1,\"rep_policy\":2}]}",
         "caches[0]: rep_policy LIFO is not supported"},
        {"{\"caches\":[{\"cache_size\":12,\"block_size\":6,\"set_assoc\":1,\"rep_policy\":3}]}",
         "caches[0]: rep_policy FILO is not supported"},
        {"{\"caches\":[{\"cache_size\":12,\"block_size\":6,\"set_assoc\":1,\"rep_policy\":5}]}",
         "\"rep_policy\" must be 0 (LRU), 1 (FIFO) or 4 (RANDOM)"},
        {"{\"caches\":[{\"cache_size\":1,\"block_size\":6,\"set_assoc\":1,\"rep_policy\":0}]}",
         "\"cache_size\" and \"block_size\" must be log2 of the bytes"},
        {"{\"caches\":[{\"cache_size\":12,\"block_size\":6,\"set_assoc\":3,\"rep_policy\":0}]}",
         "caches[0]: the size must be a multiple of line size x ways"},
        {"{\"caches\":[]}", "\"caches\" must be a non-empty array"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse(&c, bad[i].json, &err), TK_EUSAGE);
        if (!strstr(err.message, bad[i].message))
            fail_msg("%s: '%s' lacks '%s'", bad[i].json, err.message, bad[i].message);
    }
}

static void files(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    const char *path = tu_path(dir, "two.json");
    static const char text[] = "{\"levels\":[{\"size\":\"1K\",\"line\":64,\"ways\":2}]}";
    tu_write_file(path, text, strlen(text));
    tk_cachesim_config c;
    tk_error err;
    tk_cachesim_config_init(&c);
    assert_int_equal(tk_cachesim_config_load(&c, path, &err), TK_OK);
    expect_level(&c.levels[0], "L1", 1024, 2, 64, TK_CACHESIM_LRU);
    path = tu_path(dir, "empty.json"); /* the original's empty.json */
    tu_write_file(path, "", 0);
    assert_int_equal(tk_cachesim_config_load(&c, path, &err), TK_EUSAGE);
    assert_int_equal(c.nlevels, 1); /* unchanged on failure */
    assert_int_equal(tk_cachesim_config_load(&c, tu_path(dir, "absent.json"), &err), TK_EIO);
    assert_non_null(strstr(err.message, "cannot open"));
    tu_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(level_specs),
        cmocka_unit_test(default_hierarchy),
        cmocka_unit_test(own_json),
        cmocka_unit_test(original_json),
        cmocka_unit_test(files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
