/* The CLI's rewriting of llvm-xray's option spellings for getopt_long
 * (src/cli/spelling.c), on the option tables of account and convert. */
#include <stdlib.h>
#include <string.h>

#include "spelling.h"
#include "testutil.h"

static const char account_short[] = "hs:r:p:dkm:f:o:";
static const struct option account_long[] = {
    {"format", required_argument, NULL, 0x200},
    {"output-format", required_argument, NULL, 'f'},
    {"output", required_argument, NULL, 'o'},
    {"json", no_argument, NULL, 0x201},
    {"help", no_argument, NULL, 'h'},
    {"sort", required_argument, NULL, 's'},
    {"sortorder", required_argument, NULL, 'r'},
    {"sort-order", required_argument, NULL, 'r'},
    {"top", required_argument, NULL, 'p'},
    {"deduce-sibling-calls", no_argument, NULL, 'd'},
    {"keep-going", no_argument, NULL, 'k'},
    {"recursive-calls-only", no_argument, NULL, 0x202},
    {"instr_map", required_argument, NULL, 'm'},
    {"no-demangle", no_argument, NULL, 0x203},
    {"demangle", no_argument, NULL, 0x204},
    {0}};

static const char convert_short[] = "ho:m:f:sy";
static const struct option convert_long[] = {
    {"output", required_argument, NULL, 'o'},
    {"output-format", required_argument, NULL, 'f'},
    {"no-sort", no_argument, NULL, 0x200},
    {"sort", no_argument, NULL, 's'},
    {"symbolize", no_argument, NULL, 'y'},
    {0}};

/* Respell the space-separated `args` (after a command name) and compare
 * the result, joined by spaces, with `want`. */
static void check(const char *shortopts, const struct option *longopts, const char *args,
                  const char *want)
{
    char *copy = strdup(args), *argv[32] = {"cmd"};
    int argc = 1;
    for (char *t = strtok(copy, " "); t; t = strtok(NULL, " "))
        argv[argc++] = t;
    int n = argc;
    char **out = cli_spell_llvm(&n, argv, shortopts, longopts);
    assert_non_null(out);
    assert_null(out[n]);
    assert_string_equal(out[0], "cmd");
    char got[512] = "";
    for (int i = 1; i < n; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i > 1 ? " " : "", out[i]);
    assert_string_equal(got, want);
    free(out);
    free(copy);
}

static void test_long_names_with_one_dash(void **state)
{
    (void)state;
    check(account_short, account_long, "-sort=count -sortorder=dsc F",
          "--sort=count --sortorder=dsc F");
    check(account_short, account_long, "-sort count -top 5 -instr_map BIN F",
          "--sort count --top 5 --instr_map BIN F");
    check(account_short, account_long, "F -output=out.txt -format=csv",
          "F --output=out.txt --format=csv");
    check(account_short, account_long, "--sort=count --sort-order dsc F",
          "--sort=count --sort-order dsc F");
    check(account_short, account_long, "-help", "--help");
}

static void test_letters_with_values(void **state)
{
    (void)state;
    check(account_short, account_long, "-s=count --r=dsc -f=csv F",
          "-s count -r dsc -f csv F");
    check(account_short, account_long, "--s count --p 3 --k F", "-s count -p 3 -k F");
    check(account_short, account_long, "-s count -r dsc -scount F",
          "-s count -r dsc -scount F");
}

static void test_booleans(void **state)
{
    (void)state;
    check(account_short, account_long,
          "-keep-going -keep-going=true -keep-going=false -k=1 -k=0 --k=TRUE F",
          "--keep-going --keep-going -k -k F");
    check(account_short, account_long, "-recursive-calls-only=0 -d=False -d=True F", "-d F");
    check(account_short, account_long, "-demangle=false -no-demangle=0 -demangle=1",
          "--no-demangle --demangle --demangle");
    check(convert_short, convert_long, "-sort=false -s=0 -s=1 -sort -symbolize=true -y=false",
          "--no-sort --no-sort -s --sort --symbolize");
    check(convert_short, convert_long, "--sort=false --no-sort=false F", "--no-sort --sort F");
    /* not a boolean: left for getopt_long to refuse */
    check(account_short, account_long, "-keep-going=maybe -k=yes",
          "--keep-going=maybe -k=yes");
}

static void test_left_alone(void **state)
{
    (void)state;
    /* short clusters, unknown options, '-' and everything after '--' */
    check(account_short, account_long, "-kd -dk -kds count -bogus -x=1 --bogus=1 -",
          "-kd -dk -kds count -bogus -x=1 --bogus=1 -");
    check(account_short, account_long, "-k -- -sort=count -keep-going -s=count",
          "-k -- -sort=count -keep-going -s=count");
    /* the value of an option that takes one, however it looks */
    check(account_short, account_long, "-o -sort -output -keep-going --output -k=1 F",
          "-o -sort --output -keep-going --output -k=1 F");
    check(account_short, account_long, "-kdm -sort --outp -top --instr -k=0 F",
          "-kdm -sort --outp -top --instr -k=0 F");
    check(account_short, account_long, "-o -- -sort=count", "-o -- --sort=count");
    /* abbreviations are getopt_long's; LLVM's names are exact */
    check(account_short, account_long, "-sor=count -keep=1", "-sor=count -keep=1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_names_with_one_dash),
        cmocka_unit_test(test_letters_with_values),
        cmocka_unit_test(test_booleans),
        cmocka_unit_test(test_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
