/* The formats' commands and option tables (include/tracekit/command.h):
 * the registry finds each command once and knows its owners; every table
 * is well formed (names and letters unique per command, aliases after an
 * option, options several formats declare for one command parse alike,
 * the keys a format's options store are keys it reads); every target has
 * help; a command runs with a host other than the command line's. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static const char *const common[] = {"info", "dump", "validate", "convert", "report"};
#define NCOMMON (sizeof common / sizeof common[0])

static const char *key_of(const tk_option *o) { return o->key ? o->key : o->name; }

static void test_registry(void **state)
{
    (void)state;
    size_t n = tk_command_count();
    assert_true(n >= 6);
    for (size_t i = 0; i < n; i++) {
        const tk_command *c = tk_command_at(i);
        assert_non_null(c);
        assert_ptr_equal(tk_command_find(c->name), c);
        for (size_t j = 0; j < i; j++) /* each once */
            assert_string_not_equal(tk_command_at(j)->name, c->name);
        for (size_t k = 0; k < NCOMMON; k++) /* no format takes a common name */
            assert_string_not_equal(common[k], c->name);
        assert_non_null(c->run);
        assert_non_null(c->needs);
        assert_non_null(c->help);
    }
    assert_null(tk_command_at(n));
    assert_null(tk_command_find("info"));
    assert_null(tk_command_find("bogus"));
    /* both UCIR flavours replay; XRay's own are not casemate's */
    const tk_command *replay = tk_command_find("replay"), *account = tk_command_find("account");
    assert_true(tk_format_has_command(tk_format_find("ucir"), replay));
    assert_true(tk_format_has_command(tk_format_find("usercorn"), replay));
    assert_true(tk_format_has_command(tk_format_find("xray"), account));
    assert_false(tk_format_has_command(tk_format_find("casemate"), account));
}

static void test_applies(void **state)
{
    (void)state;
    tk_option o = {.name = "x", .commands = "info  dump convert"};
    assert_true(tk_option_applies(&o, "info"));
    assert_true(tk_option_applies(&o, "dump"));
    assert_true(tk_option_applies(&o, "convert"));
    assert_false(tk_option_applies(&o, "conv"));
    assert_false(tk_option_applies(&o, "report"));
    o.commands = NULL;
    assert_false(tk_option_applies(&o, "info"));
}

/* The options command `name` (owned by `cmd`'s formats, or common when
 * cmd is NULL) takes from tables, into v (at most cap); returns how many. */
static size_t options_of(const char *name, const tk_command *cmd, const tk_option **v,
                         size_t cap)
{
    size_t n = 0;
    for (const tk_option *o = cmd ? cmd->options : NULL; o && o->name && n < cap; o++)
        v[n++] = o;
    for (size_t i = 0; i < tk_format_count(); i++) {
        const tk_format *f = tk_format_at(i);
        if (cmd && !tk_format_has_command(f, cmd))
            continue;
        for (const tk_option *o = tk_format_command_options(f); o && o->name && n < cap; o++)
            if ((o->flags & TK_OPTION_ALIAS) ? n && v[n - 1] == o - 1 : tk_option_applies(o, name))
                v[n++] = o;
    }
    assert_true(n < cap);
    return n;
}

/* Options of one name parse alike; different names have different
 * letters, and none takes ours (-h). */
static void check_command(const char *name, const tk_command *cmd)
{
    const tk_option *v[256];
    size_t n = options_of(name, cmd, v, 256);
    for (size_t i = 0; i < n; i++) {
        const tk_option *a = v[i];
        if (a->flags & TK_OPTION_ALIAS) {
            assert_true(i > 0 && !(a->letter || a->value || a->parse || a->key));
            continue;
        }
        assert_true(a->letter != 'h');
        assert_true(a->help || (a->flags & TK_OPTION_HIDDEN));
        for (size_t j = 0; j < i; j++) {
            const tk_option *b = v[j];
            if (strcmp(a->name, b->name) == 0) {
                if (!cmd && !(b->flags & TK_OPTION_ALIAS)) { /* two formats' */
                    assert_int_equal(a->letter, b->letter);
                    assert_int_equal(!a->value, !b->value);
                    assert_string_equal(key_of(a), key_of(b));
                    assert_ptr_equal(a->parse, b->parse);
                    assert_true(!a->choices == !b->choices);
                    if (a->choices)
                        assert_string_equal(a->choices, b->choices);
                }
            } else if (a->letter && b->letter == a->letter && !(b->flags & TK_OPTION_ALIAS)) {
                fail_msg("%s: -%c is --%s and --%s", name, a->letter, b->name, a->name);
            }
        }
    }
}

static void test_tables(void **state)
{
    (void)state;
    for (size_t k = 0; k < NCOMMON; k++)
        check_command(common[k], NULL);
    for (size_t i = 0; i < tk_command_count(); i++)
        check_command(tk_command_at(i)->name, tk_command_at(i));
}

/* A format's options of the common commands store keys it reads (those
 * with a parser decide what they store). */
static void test_keys(void **state)
{
    (void)state;
    for (size_t i = 0; i < tk_format_count(); i++) {
        const tk_format *f = tk_format_at(i);
        for (const tk_option *o = tk_format_command_options(f); o && o->name; o++) {
            int is_common = 0;
            for (size_t k = 0; k < NCOMMON; k++)
                is_common |= tk_option_applies(o, common[k]);
            if (!is_common || o->parse || (o->flags & TK_OPTION_ALIAS))
                continue;
            int known = 0;
            for (const char *const *key = tk_format_options(f); key && *key; key++)
                known |= strcmp(*key, key_of(o)) == 0;
            if (!known)
                fail_msg("%s: --%s stores '%s', which it does not read", tk_format_name(f),
                         o->name, key_of(o));
        }
    }
}

static void test_target_help(void **state)
{
    (void)state;
    for (size_t i = 0; i < tk_format_count(); i++) {
        const tk_format *f = tk_format_at(i);
        for (const char *const *t = tk_format_targets(f); t && *t; t++)
            if (!tk_format_help(f, "convert", *t))
                fail_msg("%s: no help on convert --to %s", tk_format_name(f), *t);
        assert_non_null(tk_format_help(f, "report", NULL));
        assert_null(tk_format_help(f, "report", "jsonl"));
    }
}

/* ---- a host of our own: the command runs without the command line */

typedef struct mock {
    int opened, notes, usages;
    tk_error last;
} mock;

static int mock_open(tk_command_ctx *c)
{
    mock *m = c->host_data;
    tk_error err;
    m->opened++;
    c->path = c->file;
    c->in = tk_input_open(c->file, &err);
    c->format = c->in ? tk_format_probe(c->in, &err) : NULL;
    if (!c->format || !tk_format_has_command(c->format, c->command)) {
        m->usages++;
        return TK_EXIT_TROUBLE;
    }
    return TK_EXIT_OK;
}

static int mock_report(tk_command_ctx *c, const char *file, const tk_error *err)
{
    mock *m = c->host_data;
    (void)file;
    m->last = *err;
    return tk_exit_status(err->status);
}

static int mock_usage(tk_command_ctx *c, const char *message)
{
    mock *m = c->host_data;
    (void)message;
    m->usages++;
    return TK_EXIT_TROUBLE;
}

static void mock_note(tk_command_ctx *c, const char *line)
{
    mock *m = c->host_data;
    (void)line;
    m->notes++;
}

static tk_sink *mock_sink(tk_command_ctx *c)
{
    tk_error err;
    return tk_sink_new(c->out, TK_SINK_TEXT, &err);
}

static int mock_finish(tk_command_ctx *c, tk_sink *s)
{
    tk_error err;
    (void)c;
    return tk_sink_finish(s, &err) == TK_OK ? TK_EXIT_OK : TK_EXIT_TROUBLE;
}

static int mock_failed(tk_command_ctx *c)
{
    (void)c;
    return TK_EXIT_TROUBLE;
}

static const tk_command_host mock_host = {
    .open = mock_open, .report = mock_report, .usage = mock_usage, .note = mock_note,
    .sink = mock_sink, .finish = mock_finish, .out_failed = mock_failed};

/* Run `name` on examples/`file` with option key=value (key NULL: none);
 * returns the exit status, the output in *out (freed by the caller). */
static int run(const char *name, const char *file, const char *key, const char *value,
               mock *m, char **out)
{
    tk_error err;
    size_t len;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", TK_EXAMPLES_DIR, file);
    tk_command_ctx c = {.command = tk_command_find(name), .file = path,
                        .opts = tk_options_new(&err), .host = &mock_host, .host_data = m};
    assert_non_null(c.command);
    if (key)
        assert_int_equal(tk_options_add(c.opts, key, value, &err), TK_OK);
    c.out = open_memstream(out, &len);
    int rc = c.command->run(&c);
    fclose(c.out);
    tk_input_close(c.in);
    tk_options_free(c.opts);
    return rc;
}

static void test_run(void **state)
{
    (void)state;
    mock m = {0};
    char *out;
    /* bbm finds the violation the log expects and prints it last */
    assert_int_equal(run("bbm", "casemate/missing-tlbi.log", "quiet", "1", &m, &out), 1);
    assert_non_null(strstr(out, "! "));
    assert_int_equal(m.opened, 1);
    free(out);
    /* a repeated option: each --watch value is watched */
    assert_int_equal(run("bbm", "casemate/bbm.log", "watch", "0", &m, &out), 0);
    assert_non_null(strstr(out, "log checked successfully."));
    free(out);
    /* the owner check is the host's */
    assert_int_equal(run("cachesim", "casemate/bbm.log", NULL, NULL, &m, &out), 2);
    assert_int_equal(m.usages, 1);
    free(out);
    /* a usage error before opening */
    m.opened = 0;
    assert_int_equal(run("stack", "xray/fdr-v5.xray", "all-stacks", "1", &m, &out), 2);
    assert_int_equal(m.opened, 0);
    assert_int_equal(m.usages, 2);
    free(out);
}

static void test_options_add(void **state)
{
    (void)state;
    tk_error err;
    tk_options *o = tk_options_new(&err);
    assert_int_equal(tk_options_add(o, "w", "1", &err), TK_OK);
    assert_int_equal(tk_options_set(o, "k", "a", &err), TK_OK);
    assert_int_equal(tk_options_add(o, "w", "2", &err), TK_OK);
    assert_int_equal(tk_options_count(o), 3);
    assert_string_equal(tk_options_get(o, "w"), "1");
    assert_string_equal(tk_options_key(o, 2), "w");
    assert_string_equal(tk_options_value(o, 2), "2");
    assert_null(tk_options_value(o, 3));
    assert_int_equal(tk_exit_status(TK_EVIOLATION), TK_EXIT_FAILED);
    assert_int_equal(tk_exit_status(TK_EUSAGE), TK_EXIT_TROUBLE);
    tk_options_free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),    cmocka_unit_test(test_applies),
        cmocka_unit_test(test_tables),      cmocka_unit_test(test_keys),
        cmocka_unit_test(test_target_help), cmocka_unit_test(test_run),
        cmocka_unit_test(test_options_add),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
