/* Standalone driver for a fuzz target: run LLVMFuzzerTestOneInput over
 * every file named on the command line or found (not recursively) in a
 * directory named there. Used by ctest to replay the seed corpora in the
 * normal and sanitizer builds, and handy to reproduce a crash without
 * libFuzzer:  fuzz-replay-cacheray crash-1234...
 *
 * Each input is copied into a buffer of exactly its size, so sanitizers
 * catch reads past the end; each input is named on stderr first (-q:
 * not). Exit 0 when every input ran (a failing input
 * aborts), 1 when no input was found, 2 on I/O trouble. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int verbose = 1; /* name each input on stderr, so a sanitizer
                           report can be traced to its file */

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 12, len = 0;
    uint8_t *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "replay: %s: cannot read\n", path);
        free(buf);
        return -1;
    }
    /* an exact-size copy: one byte too far is a sanitizer report */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    if (len)
        memcpy(exact, buf, len);
    free(buf);
    if (verbose)
        fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
    tkf_current_input = path;
    LLVMFuzzerTestOneInput(exact, len);
    tkf_current_input = NULL;
    free(exact);
    return 0;
}

static int select_entry(const struct dirent *d) { return d->d_name[0] != '.'; }

int main(int argc, char **argv)
{
    unsigned long runs = 0;
    int trouble = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-q") == 0) {
            verbose = 0;
            continue;
        }
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            trouble = 1;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (run_file(argv[i]) == 0)
                runs++;
            else
                trouble = 1;
            continue;
        }
        struct dirent **names;
        int n = scandir(argv[i], &names, select_entry, alphasort);
        if (n < 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            trouble = 1;
            continue;
        }
        for (int k = 0; k < n; k++) {
            size_t len = strlen(argv[i]) + strlen(names[k]->d_name) + 2;
            char *path = malloc(len);
            if (path) {
                snprintf(path, len, "%s/%s", argv[i], names[k]->d_name);
                if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                    if (run_file(path) == 0)
                        runs++;
                    else
                        trouble = 1;
                }
            } else {
                trouble = 1;
            }
            free(path);
            free(names[k]);
        }
        free(names);
    }
    printf("replay: %lu input%s ran\n", runs, runs == 1 ? "" : "s");
    if (trouble)
        return 2;
    if (runs == 0) {
        fprintf(stderr, "usage: %s [-q] FILE|DIR... (no inputs found)\n", argv[0]);
        return 1;
    }
    return 0;
}
