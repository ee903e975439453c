/* Start-up (options, the trace file), fork, and the exit paths that flush.
 *
 * Options, read once at start-up:
 *   TRACEKIT_CACHERAY=PATH             the trace file (wins over tracefile=)
 *   CACHERAY_OPTIONS=tracefile=PATH:enabled=0|1:verbose=0|1
 *                                      the original runtime's variable
 * Default path: cacheray.trace. "%p" in the path becomes the process id,
 * "%%" a percent sign. enabled=0 records nothing and creates no file. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt_internal.h"

enum { RT_PATH_MAX = 4096 };

int rt_fd = -1;
int rt_owner_pid;
static int rt_verbose, rt_path_has_pid, rt_hooks_installed;
/* Any thread may pause or resume recording (tk_cacheray_set_recording). */
static atomic_int rt_paused;
static char rt_pattern[RT_PATH_MAX];
static char rt_path[RT_PATH_MAX + 64];

extern char **environ;

static void say(const char *a, const char *b, const char *c)
{
    const char *parts[] = {"tracekit-cacheray: ", a, b, c, "\n"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        ssize_t w = write(2, parts[i], strlen(parts[i]));
        (void)w;
    }
}

static void set_pattern(const char *s, size_t n)
{
    if (n >= sizeof rt_pattern) {
        say("trace path too long, using ", "cacheray.trace", "");
        s = "cacheray.trace";
        n = strlen(s);
    }
    memcpy(rt_pattern, s, n);
    rt_pattern[n] = 0;
}

/* CACHERAY_OPTIONS: colon-separated key=value pairs. */
static void parse_options(const char *opts, int *enabled)
{
    while (*opts) {
        const char *end = strchr(opts, ':');
        size_t n = end ? (size_t)(end - opts) : strlen(opts);
        const char *eq = memchr(opts, '=', n);
        size_t klen = eq ? (size_t)(eq - opts) : n;
        const char *val = eq ? eq + 1 : opts + n;
        size_t vlen = (size_t)(opts + n - val);
        if (klen == 9 && !memcmp(opts, "tracefile", 9)) {
            set_pattern(val, vlen);
        } else if (klen == 7 && !memcmp(opts, "enabled", 7)) {
            *enabled = !(vlen == 1 && val[0] == '0');
        } else if (klen == 7 && !memcmp(opts, "verbose", 7)) {
            rt_verbose = !(vlen == 1 && val[0] == '0');
        } else if (n > 0) {
            char key[64];
            size_t k = klen < sizeof key - 1 ? klen : sizeof key - 1;
            memcpy(key, opts, k);
            key[k] = 0;
            say("unknown CACHERAY_OPTIONS key '", key, "' ignored");
        }
        opts += n + (end != NULL);
    }
}

static void utoa(unsigned long v, char *out)
{
    char tmp[24];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while (v /= 10);
    while (n)
        *out++ = tmp[--n];
    *out = 0;
}

/* rt_pattern with %p and %% expanded into rt_path. */
static void expand_path(void)
{
    char *o = rt_path, *end = rt_path + sizeof rt_path - 24;
    rt_path_has_pid = 0;
    for (const char *s = rt_pattern; *s && o < end; s++) {
        if (s[0] == '%' && s[1] == 'p') {
            utoa((unsigned long)getpid(), o);
            o += strlen(o);
            s++;
            rt_path_has_pid = 1;
        } else if (s[0] == '%' && s[1] == '%') {
            *o++ = '%';
            s++;
        } else {
            *o++ = *s;
        }
    }
    *o = 0;
}

static int open_trace(void)
{
    expand_path();
    rt_fd = open(rt_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (rt_fd < 0) {
        say("cannot create ", rt_path, "; not recording");
        return -1;
    }
    rt_owner_pid = getpid();
    return 0;
}

static void update_active(void)
{
    int on = atomic_load(&rt_state) == RT_ON && !atomic_load(&rt_paused);
    atomic_store(&rt_active, on);
}

void rt_start(void)
{
    /* Before libc has set up the environment (allocations made by the
     * dynamic loader) the options cannot be read yet: try again later. */
    if (!environ)
        return;
    int expect = RT_UNINIT;
    if (!atomic_compare_exchange_strong(&rt_state, &expect, RT_STARTING))
        return;
    int saved = errno; /* we may be inside the program's malloc call */
    int enabled = 1;
    set_pattern("cacheray.trace", strlen("cacheray.trace"));
    const char *opts = getenv("CACHERAY_OPTIONS");
    if (opts)
        parse_options(opts, &enabled);
    const char *path = getenv("TRACEKIT_CACHERAY");
    if (path && *path)
        set_pattern(path, strlen(path));
    if (!enabled || open_trace() != 0)
        atomic_store(&rt_state, RT_OFF);
    else
        atomic_store(&rt_state, RT_ON);
    update_active();
    errno = saved;
}

/* The recorder lock taken from outside a hook (the API, the exit paths),
 * unless this thread holds it already: a signal handler that interrupted
 * the runtime. Events of this thread are dropped meanwhile. */
typedef struct rt_hold {
    int busy, mine;
} rt_hold;

static rt_hold hold_lock(void)
{
    uint32_t tid = rt_tid();
    rt_hold h = {rt_self.busy, 0};
    rt_self.busy = 1;
    h.mine = (uint32_t)atomic_load(&rt_lock_word) == tid;
    if (!h.mine)
        rt_lock(tid);
    return h;
}

static void release_lock(rt_hold h)
{
    if (!h.mine)
        rt_unlock();
    rt_self.busy = h.busy;
}

/* Under the lock: threads pausing and resuming at once must leave
 * rt_active agreeing with the last of them. */
void rt_set_paused(int paused)
{
    rt_hold h = hold_lock();
    atomic_store(&rt_paused, paused);
    update_active();
    release_lock(h);
}

int rt_is_paused(void)
{
    return atomic_load(&rt_paused);
}

/* ---- fork: the child must not write the parent's buffered records, and
 * its records need their own file. */
static int rt_fork_locked;

static void fork_prepare(void)
{
    if (atomic_load(&rt_state) != RT_ON)
        return;
    uint32_t tid = rt_tid();
    if ((uint32_t)atomic_load(&rt_lock_word) == tid)
        return; /* fork from a signal handler that interrupted us */
    rt_self.busy = 1;
    rt_lock(tid);
    rt_fork_locked = 1;
}

static void fork_parent(void)
{
    if (!rt_fork_locked)
        return;
    rt_fork_locked = 0;
    rt_unlock();
    rt_self.busy = 0;
}

static void fork_child(void)
{
    rt_self.tid = 0;
    rt_self.busy = 0;
    rt_fork_locked = 0;
    atomic_store(&rt_lock_word, 0);
    rt_len = rt_wpos = 0;
    rt_records = rt_bytes_total = 0;
    if (atomic_load(&rt_state) != RT_ON)
        return;
    close(rt_fd);
    rt_fd = -1;
    /* Without %p the child would write into its parent's trace. */
    if (!rt_path_has_pid || open_trace() != 0)
        atomic_store(&rt_state, RT_OFF);
    update_active();
}

/* Runs early in every instrumented program: start, and install what a
 * constructor may do but an allocation hook may not. */
__attribute__((constructor(101))) static void rt_constructor(void)
{
    rt_start();
    if (atomic_load(&rt_state) != RT_ON || rt_hooks_installed)
        return;
    rt_hooks_installed = 1;
    rt_install_signal_handlers();
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* ---- exit */
void rt_finish(void)
{
    if (atomic_load(&rt_state) != RT_ON)
        return;
    rt_hold h = hold_lock();
    rt_flush_locked();
    /* Later records (destructors of other libraries, threads still running)
     * go straight to the file. */
    rt_write_through = 1;
    release_lock(h);
}

/* verbose=1: the counts so far (read under the lock: other threads may
 * still be recording). */
static void report(void)
{
    rt_hold h = hold_lock();
    unsigned long long records = rt_records, bytes = rt_bytes_total;
    release_lock(h);
    char line[RT_PATH_MAX + 160];
    snprintf(line, sizeof line,
             "tracekit-cacheray: %llu records, %llu bytes written to %s"
             " (%llu events dropped inside the runtime)\n",
             records, bytes, rt_path, (unsigned long long)rt_dropped_count());
    ssize_t w = write(2, line, strlen(line));
    (void)w;
}

/* Priority 101: the last destructor of the program, after atexit handlers
 * and C++ static destructors. */
__attribute__((destructor(101))) static void rt_destructor(void)
{
    if (atomic_load(&rt_state) != RT_ON || getpid() != rt_owner_pid)
        return;
    rt_finish();
    if (rt_verbose)
        report();
}

/* _exit and _Exit skip atexit handlers and destructors: flush here. Only
 * the process that owns the trace flushes (not a vfork child, which shares
 * our memory). */
static __attribute__((noreturn)) void rt_exit_now(int status)
{
    if (atomic_load(&rt_state) == RT_ON && getpid() == rt_owner_pid) {
        rt_finish();
        if (rt_verbose)
            report();
    }
    for (;;)
        syscall(SYS_exit_group, status);
}

RT_EXPORT void _exit(int status)
{
    rt_exit_now(status);
}

RT_EXPORT void _Exit(int status)
{
    rt_exit_now(status);
}
