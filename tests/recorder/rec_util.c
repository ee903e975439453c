/* See rec_util.h. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rec_util.h"

char *rec_dir;

int rec_sh(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof cmd);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void rec_build(const char *out, const char *src, const char *flags)
{
    int rc = rec_sh("'%s' %s -Wall -Wextra -Werror '%s/%s' -o '%s/%s'", TK_CC, flags,
                    TK_SOURCE_DIR, src, rec_dir, out);
    if (rc != 0)
        fail_msg("tracekit-cc %s %s failed (exit %d)", flags, src, rc);
}

void rec_build_under_tsan(const char *out, const char *src, const char *flags)
{
    /* The runtime once per directory (flat: tu_rmdir removes no
     * subdirectory): TK_RT_TSAN_SOURCES is a space-separated list of paths
     * (recorder/CMakeLists.txt). */
    if (!rec_exists("rt-tsan.a")) {
        int rc = rec_sh("cd '%s' && for f in %s; do '%s' -std=c11 -D_GNU_SOURCE -O1 -g "
                        "-fsanitize=thread -fPIC -fvisibility=hidden -Wall -Wextra -Werror "
                        "-I'%s/include' -c \"$f\" -o rt-tsan-\"$(basename \"$f\" .c)\".o "
                        "|| exit 1; done && ar rcs rt-tsan.a rt-tsan-*.o",
                        rec_dir, TK_RT_TSAN_SOURCES, TK_CLANG, TK_SOURCE_DIR);
        if (rc != 0)
            fail_msg("building the runtime under ThreadSanitizer failed (exit %d)", rc);
    }
    int rc = rec_sh("'%s' -fsanitize=thread -fsanitize-coverage=func,trace-loads,trace-stores "
                    "-I'%s/include' %s -Wall -Wextra -Werror '%s/%s' -o '%s/%s' -pthread "
                    "-Wl,--whole-archive '%s/rt-tsan.a' -Wl,--no-whole-archive",
                    TK_CLANG, TK_SOURCE_DIR, flags, TK_SOURCE_DIR, src, rec_dir, out, rec_dir);
    if (rc != 0)
        fail_msg("clang -fsanitize=thread %s %s failed (exit %d)", flags, src, rc);
}

int rec_run(const char *prog, const char *const *env, const char *const *args)
{
    char exe[4096], out[4096], err[4096];
    snprintf(exe, sizeof exe, "%s/%s", rec_dir, prog);
    snprintf(out, sizeof out, "%s/%s.out", rec_dir, prog);
    snprintf(err, sizeof err, "%s/%s.err", rec_dir, prog);
    const char *argv[16] = {exe};
    size_t na = 1;
    for (; args && args[na - 1]; na++) {
        assert_true(na < 15);
        argv[na] = args[na - 1];
    }
    argv[na] = NULL;
    const char *envp[16] = {"PATH=/usr/bin:/bin"};
    size_t ne = 1;
    for (; env && env[ne - 1]; ne++) {
        assert_true(ne < 15);
        envp[ne] = env[ne - 1];
    }
    envp[ne] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0 || chdir(rec_dir) != 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(126);
        execve(exe, (char *const *)argv, (char *const *)envp);
        _exit(127);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return st;
}

char *rec_text(const char *name)
{
    size_t n;
    uint8_t *p = tu_read_file(tu_path(rec_dir, name), &n);
    if (!p)
        return NULL;
    char *s = realloc(p, n + 1);
    assert_non_null(s);
    s[n] = 0;
    return s;
}

int rec_exists(const char *name)
{
    struct stat st;
    return stat(tu_path(rec_dir, name), &st) == 0;
}

void rec_load(const char *name, tu_recs *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", rec_dir, name);
    tk_error err;
    tk_input *in = tk_input_open(path, &err);
    if (!in)
        fail_msg("cannot open trace %s", path);
    int rc = tu_read_all(in, TK_ENDIAN_LITTLE, out, &err);
    tk_input_close(in);
    if (rc != 0)
        fail_msg("%s: not a clean trace: %s", path, err.message);
    assert_int_equal(rec_sh("'%s' validate --strict '%s' >/dev/null", TK_TRACEKIT, path), 0);
}

static int name_is(const tk_cacheray_record *rec, const char *type)
{
    size_t n = strlen(type);
    return rec->typename_len == n && memcmp(rec->type_name, type, n) == 0;
}

long rec_find_add(const tu_recs *r, const char *type, int nth)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].type == TK_CACHERAY_RTTA_ADD && name_is(&r->v[i], type) && nth-- == 0)
            return (long)i;
    return -1;
}

long rec_find_remove(const tu_recs *r, uint64_t addr, size_t from)
{
    for (size_t i = from; i < r->n; i++)
        if (r->v[i].type == TK_CACHERAY_RTTA_REMOVE && r->v[i].addr == addr)
            return (long)i;
    return -1;
}

size_t rec_count(const tu_recs *r, rec_filter f)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        const tk_cacheray_record *x = &r->v[i];
        if (x->type != f.type || x->addr < f.lo || (f.hi && x->addr >= f.hi))
            continue;
        if ((f.size && x->size != f.size) || (f.thread && x->thread != f.thread) ||
            (f.flags >= 0 && x->flags != f.flags))
            continue;
        n++;
    }
    return n;
}
