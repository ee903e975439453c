/* --max-memory: a ceiling on the memory a command may take, so that a
 * trace whose analysis outgrows the machine ends with one error line
 * (the offset of the record that asked) instead of the OOM killer.
 *
 * The ceiling is RLIMIT_DATA, set before the command runs: since Linux 4.7
 * it counts every private writable mapping (the heap, malloc's mmaps,
 * thread stacks), not file mappings or reservations without access, so
 * malloc and mmap return failure at the limit and the library's usual
 * out-of-memory path reports it. Sanitizer runtimes reserve terabytes of
 * shadow memory and die when their own mappings fail, so sanitized builds
 * leave the default off and say so when the option is given. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                   \
    __has_feature(memory_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* The default: this share of physical memory (numerator / 4). */
enum { DEFAULT_QUARTERS = 3 };

static uint64_t limit;   /* in force (0: none) */
static int explicit_set; /* given with --max-memory */
static char shown[32];   /* as the user wrote it, or the default's */

int cli_memlimit_parse(const char *arg, uint64_t *bytes)
{
    if (strcmp(arg, "none") == 0 || strcmp(arg, "0") == 0) {
        *bytes = 0;
        return 0;
    }
    char *end;
    unsigned long long v = strtoull(arg, &end, 10);
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    }
    if (*end == 'B' || (*end == 'i' && end[1] == 'B' && shift))
        end += *end == 'i' ? 2 : 1; /* 64MB, 64MiB */
    if (*arg < '0' || *arg > '9' || *end || v == 0 || v > (UINT64_MAX >> shift))
        return -1;
    *bytes = (uint64_t)v << shift;
    return 0;
}

int cli_memlimit_option(const char *arg)
{
    uint64_t v;
    if (cli_memlimit_parse(arg, &v) != 0)
        return -1;
    limit = v;
    explicit_set = 1;
    snprintf(shown, sizeof shown, "%s", arg);
    return 0;
}

/* 3/4 of physical memory (0 when unknown: no limit). */
static uint64_t default_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0)
        return 0;
    return (uint64_t)pages / 4 * DEFAULT_QUARTERS * (uint64_t)size;
}

void cli_memlimit_apply(void)
{
    if (SANITIZED) {
        if (explicit_set && limit)
            fprintf(stderr, "tracekit: warning: --max-memory is not enforced in a sanitized "
                            "build\n");
        limit = 0;
        return;
    }
    if (!explicit_set) {
        limit = default_limit();
        snprintf(shown, sizeof shown, "%lluM", (unsigned long long)(limit >> 20));
    }
    struct rlimit rl;
    if (!limit || getrlimit(RLIMIT_DATA, &rl) != 0)
        return;
    if (rl.rlim_max != RLIM_INFINITY && limit > rl.rlim_max)
        limit = rl.rlim_max; /* an unprivileged process cannot raise it */
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < limit && !explicit_set) {
        limit = 0; /* the caller's own, lower limit stays (and is not ours) */
        return;
    }
    rl.rlim_cur = (rlim_t)limit;
    if (setrlimit(RLIMIT_DATA, &rl) != 0)
        limit = 0;
}

const char *cli_memlimit_reached(void)
{
    static char text[96];
    if (!limit)
        return NULL;
    snprintf(text, sizeof text, "%s%s reached", explicit_set ? "--max-memory " : "the default "
             "--max-memory of ", shown);
    return text;
}
