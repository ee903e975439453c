/* Running the peer tools from the XRay tests (header-only, static). */
#ifndef TK_XRAY_TOOLS_H
#define TK_XRAY_TOOLS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A tool path CMake found (not "...-NOTFOUND") that can be run. */
static __attribute__((unused)) int tool_ok(const char *p)
{
    size_t n = strlen(p);
    return n > 0 && !(n >= 9 && !strcmp(p + n - 9, "-NOTFOUND")) && access(p, X_OK) == 0;
}

/* system() of a formatted command: its exit status, 128 if killed, -1. */
static __attribute__((unused, format(printf, 1, 2))) int run(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

#endif
