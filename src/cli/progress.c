/* The progress line on stderr. The input calls on_read after each chunk
 * it reads (256 KiB), on the reading thread: a coarse clock read (about
 * 10 ns, no system call) decides whether to draw, so there is no
 * timer thread or signal to synchronise with. Before any other text
 * reaches the terminal the line is erased: stderr goes through our stream
 * while the line is shown, stdout through common.c's, which calls
 * cli_progress_output. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

/* auto waits a second (short commands never flicker); redraws 10 times a
 * second; a rate needs 200 ms of reading behind it */
enum { DELAY_MS = 1000, INTERVAL_MS = 100, RATE_MS = 200 };

static const char ERASE[] = "\r\033[K";

static struct {
    int on;             /* the reading is being shown */
    int drawn;          /* the line is on the screen */
    int midline;        /* the last text written left the cursor mid-line */
    int out_shared;     /* stdout is the file stderr is */
    char label[256];    /* "COMMAND FILE" */
    int64_t next_ms;    /* no drawing before */
    unsigned pass;      /* the input's pass, started at pass_ms ... */
    int64_t pass_ms;
    uint64_t pass_base; /* ... at this offset */
} P;

int cli_progress_mode(const char *arg)
{
    static const char *const names[] = {"auto", "always", "never"};
    for (int i = 0; i < 3; i++)
        if (strcmp(arg, names[i]) == 0)
            return i;
    return -1;
}

static int64_t now_ms(void)
{
    struct timespec ts;
#ifdef CLOCK_MONOTONIC_COARSE
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts); /* vDSO, tick resolution */
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

static void erase(void)
{
    if (!P.drawn)
        return;
    int e = errno; /* a failed stdout write's reason is read after us */
    write_all(STDERR_FILENO, ERASE, sizeof ERASE - 1);
    errno = e;
    P.drawn = 0;
}

/* Text goes to the terminal next: take the line away; after text that
 * does not end its line, draw nothing until a newline comes. */
static void before_text(const char *buf, size_t n)
{
    erase();
    if (n)
        P.midline = buf[n - 1] != '\n';
}

void cli_progress_output(const char *buf, size_t n)
{
    if (P.out_shared)
        before_text(buf, n);
}

static ssize_t err_write(void *cookie, const char *buf, size_t n)
{
    (void)cookie;
    before_text(buf, n);
    return write_all(STDERR_FILENO, buf, n) == 0 ? (ssize_t)n : 0;
}

/* The terminal's width, 0 when stderr is not one. */
static size_t columns(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
        return ws.ws_col;
    return 0;
}

static void draw(const tk_input_progress *p, int64_t now)
{
    char line[512];
    cli_progress_view v = {P.label, p->pass, p->offset, p->size, 0};
    if (now - P.pass_ms >= RATE_MS && p->offset > P.pass_base)
        v.rate = (double)(p->offset - P.pass_base) * 1000 / (double)(now - P.pass_ms);
    line[0] = '\r';
    size_t len = cli_progress_format(line + 1, sizeof line - 4, &v);
    size_t cols = columns();
    if (cols && len > cols - 1) { /* a wrapped line would not erase; cut it whole chars */
        len = cols - 1;
        while (len > 0 && ((unsigned char)line[1 + len] & 0xC0) == 0x80)
            len--;
    }
    memcpy(line + 1 + len, "\033[K", 3);
    write_all(STDERR_FILENO, line, len + 4);
    P.drawn = 1;
}

static void on_read(void *ctx, const tk_input_progress *p)
{
    (void)ctx;
    int64_t now = now_ms();
    if (p->pass != P.pass) { /* the rate of this pass alone */
        P.pass = p->pass;
        P.pass_ms = now;
        P.pass_base = p->offset;
    }
    if (!P.on || P.midline || now < P.next_ms)
        return;
    P.next_ms = now + INTERVAL_MS;
    draw(p, now);
}

/* auto: stderr is a terminal that can erase a line, and stdout is not a
 * pipe, whose reader (less, grep) would likely print over the line. */
static int wanted(int mode)
{
    if (mode == CLI_PROGRESS_ALWAYS)
        return 1;
    if (mode != CLI_PROGRESS_AUTO || !isatty(STDERR_FILENO))
        return 0;
    struct stat st;
    if (fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        return 0;
    const char *term = getenv("TERM");
    return !term || strcmp(term, "dumb") != 0;
}

/* Our stream in stderr's place (glibc lets a program set stderr), so that
 * every message erases the line first. Kept to the end: a stream handed
 * out stays valid. */
static int wrap_stderr(void)
{
    static FILE *ours;
    if (ours)
        return 0;
    cookie_io_functions_t io = {.write = err_write};
    ours = fopencookie(NULL, "w", io);
    if (!ours)
        return -1;
    setvbuf(ours, NULL, _IONBF, 0);
    fflush(stderr);
    stderr = ours;
    return 0;
}

static int same_file(int a, int b)
{
    struct stat x, y;
    return fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev &&
           x.st_ino == y.st_ino;
}

void cli_progress_start(int mode, const char *command, const char *file, tk_input *in)
{
    if (!wanted(mode) || wrap_stderr() != 0)
        return;
    snprintf(P.label, sizeof P.label, "%s %s", command, file);
    for (char *s = P.label; *s; s++) /* no control characters from a name */
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
    P.out_shared = same_file(STDOUT_FILENO, STDERR_FILENO);
    P.midline = 0;
    P.pass = 1;
    P.pass_ms = now_ms();
    P.pass_base = 0;
    P.next_ms = P.pass_ms + (mode == CLI_PROGRESS_ALWAYS ? 0 : DELAY_MS);
    P.on = 1;
    tk_input_set_progress(in, on_read, NULL);
}

void cli_progress_stop(void)
{
    erase();
    P.on = 0;
}
