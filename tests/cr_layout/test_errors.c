/* Loading errors: files that are missing, unreadable, not ELF, without
 * DWARF (argv[1]: a fixture built with -g0), and damaged copies of fixtures
 * with DWARF (argv[2...]): a clear error or a table, never a crash. */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

#include "cacheray/layout/layout.h"

static const char *nodebug;
static const char *const *with_debug;
static int n_with_debug;
static char *dir;

/* Load must fail with `status`, the message starting with the path. */
static void expect_error(const char *path, tk_status status,
                         const char *message_part)
{
    tk_error err;
    tk_error_clear(&err);
    tk_cacheray_layouts *l = tk_cacheray_layouts_load(path, &err);
    if (l)
        fail_msg("%s loaded", path);
    if (err.status != status || strncmp(err.message, path, strlen(path)) ||
        !strstr(err.message, message_part))
        fail_msg("%s: status %d, message \"%s\"", path, err.status,
                 err.message);
}

static void not_layout_files(void **state)
{
    (void)state;
    char missing[4096];
    snprintf(missing, sizeof missing, "%s", tu_path(dir, "missing"));
    expect_error(missing, TK_EIO, ": cannot open: No such file or directory");
    expect_error(dir, TK_EIO, ": cannot read:");

    const char *cases[][2] = {
        {"empty", ""},
        {"blank", " \n\t\n"},
        {"text", "struct Basic { int a; };\n"},
        {"array.json", "[{\"version\": 4}]"},
        {"elfish", "\177EL"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s", tu_path(dir, cases[i][0]));
        tu_write_file(path, cases[i][1], strlen(cases[i][1]));
        expect_error(path, TK_EUSAGE,
                     ": neither an ELF file with DWARF nor a dwarf2json file");
    }
    tk_error err;
    assert_null(tk_cacheray_layouts_load(NULL, &err));
    assert_int_equal(err.status, TK_EUSAGE);
    assert_null(tk_cacheray_layouts_load(missing, NULL)); /* err may be NULL */
}

static void no_debug_info(void **state)
{
    (void)state;
    tk_error err;
    assert_null(tk_cacheray_layouts_load(nodebug, &err));
    assert_int_equal(err.status, TK_EUSAGE);
    char want[4096 + 64];
    snprintf(want, sizeof want,
             "%s: no DWARF debug information (compile with -g)", nodebug);
    assert_string_equal(err.message, want);
}

/* Load a damaged copy; either outcome is fine as long as it is clean. */
static int load_copy(const char *path, const uint8_t *data, size_t n)
{
    tu_write_file(path, data, n);
    tk_error err;
    tk_error_clear(&err);
    tk_cacheray_layouts *l = tk_cacheray_layouts_load(path, &err);
    if (!l) {
        assert_int_not_equal(err.status, TK_OK);
        assert_memory_equal(err.message, path, strlen(path));
        return 0;
    }
    /* whatever was read must be consistent */
    const char *names[] = {"struct.Basic", "TdBasic", "struct.Nested",
                           "union.U", "struct.Bits", "struct.Deep"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const tk_cacheray_layout *t =
            tk_cacheray_layouts_find(l, names[i], strlen(names[i]));
        if (!t)
            continue;
        for (size_t k = 0; k < t->nfields; k++)
            assert_non_null(t->fields[k].name);
        for (size_t k = 1; k < t->nfields; k++)
            assert_true(t->fields[k - 1].offset <= t->fields[k].offset);
        uint64_t end = t->size < 4096 ? t->size : 4096;
        for (uint64_t o = 0; o < end; o++) {
            long f = tk_cacheray_layout_field_at(t, o);
            assert_true(f >= -1 && f < (long)t->nfields);
        }
    }
    tk_cacheray_layouts_free(l);
    return 1;
}

/* File offset and size of a named section. */
static int find_section(const uint8_t *data, size_t n, const char *want,
                        uint64_t *off, uint64_t *size)
{
    elf_version(EV_CURRENT);
    Elf *elf = elf_memory((char *)data, n);
    size_t shstrndx;
    int found = 0;
    if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0)
        for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && !found;
             scn = elf_nextscn(elf, scn)) {
            GElf_Shdr sh;
            const char *name;
            if (gelf_getshdr(scn, &sh) &&
                (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
                !strcmp(name, want) && sh.sh_type != SHT_NOBITS) {
                *off = sh.sh_offset;
                *size = sh.sh_size;
                found = 1;
            }
        }
    elf_end(elf);
    return found;
}

/* Truncated copies and copies with damaged DWARF bytes. */
static void damaged(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s", tu_path(dir, "damaged"));
    uint64_t seed = 0x1a7e5;
    int loaded = 0, failed = 0;
    for (int f = 0; f < n_with_debug; f++) {
        size_t n;
        uint8_t *data = tu_read_file(with_debug[f], &n);
        assert_non_null(data);
        assert_int_equal(load_copy(path, data, n), 1); /* intact: loads */
        const size_t cuts[] = {4, 16, 52, 64, n / 4, n / 2, n - 1};
        for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
            load_copy(path, data, cuts[i]) ? loaded++ : failed++;

        const char *sections[] = {".debug_info", ".debug_abbrev",
                                  ".debug_str", ".debug_types"};
        for (size_t s = 0; s < sizeof sections / sizeof sections[0]; s++) {
            uint64_t off, size;
            if (!find_section(data, n, sections[s], &off, &size) || !size)
                continue;
            uint8_t *copy = malloc(n);
            assert_non_null(copy);
            for (int k = 0; k < 40; k++) {
                memcpy(copy, data, n);
                /* a few bytes at once, some set to extremes */
                for (int b = 0; b < 1 + (int)tu_rand_below(&seed, 4); b++) {
                    uint64_t at = off + tu_rand_below(&seed, size);
                    uint64_t r = tu_rand(&seed);
                    copy[at] = (r & 3) == 0   ? 0xff
                               : (r & 3) == 1 ? 0x00
                                              : (uint8_t)(r >> 8);
                }
                load_copy(path, copy, n) ? loaded++ : failed++;
            }
            free(copy);
        }
        free(data);
    }
    print_message("damaged copies: %d loaded, %d refused\n", loaded, failed);
    assert_true(failed > 0); /* truncations at least */
}

static int setup(void **state)
{
    (void)state;
    dir = tu_tmpdir();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmdir(dir);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s NODEBUG-FIXTURE DEBUG-FIXTURE...\n",
                argv[0]);
        return 2;
    }
    nodebug = argv[1];
    with_debug = (const char *const *)argv + 2;
    n_with_debug = argc - 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(not_layout_files),
        cmocka_unit_test(no_debug_info),
        cmocka_unit_test(damaged),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
