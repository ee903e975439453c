/* The text of the progress line: amounts, rate and time left for people. */
#include <stdarg.h>
#include <stdio.h>

#include "progress.h"

void cli_progress_bytes(char *buf, size_t n, double bytes)
{
    /* decimal units, as disk and network speeds are quoted */
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    int i = 0;
    while (bytes >= 999.5 && i < 6) {
        bytes /= 1000;
        i++;
    }
    if (i == 0 || bytes >= 9.95)
        snprintf(buf, n, "%.0f %s", bytes, unit[i]);
    else
        snprintf(buf, n, "%.1f %s", bytes, unit[i]);
}

void cli_progress_eta(char *buf, size_t n, double seconds)
{
    if (!(seconds < 100.0 * 3600)) { /* also NaN: a stalled rate */
        snprintf(buf, n, "over 99 h");
        return;
    }
    unsigned long s = seconds > 0 ? (unsigned long)seconds : 0;
    s += s < seconds; /* round up: "0 s" only when done */
    if (s < 60)
        snprintf(buf, n, "%lu s", s);
    else if (s < 3600)
        snprintf(buf, n, "%lu min %02lu s", s / 60, s % 60);
    else
        snprintf(buf, n, "%lu h %02lu min", s / 3600, s / 60 % 60);
}

/* printf at buf + *len, keeping *len below n. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void append(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
    if (*len + 1 >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *len, n - *len, fmt, ap);
    va_end(ap);
    *len += w < 0 ? 0 : (size_t)w;
    if (*len >= n)
        *len = n - 1;
}

static void amounts(char *buf, size_t n, size_t *len, const cli_progress_view *v)
{
    char done[16], size[16];
    cli_progress_bytes(done, sizeof done, (double)v->done);
    if (v->size < 0) {
        append(buf, n, len, "%s", done);
        return;
    }
    uint64_t total = (uint64_t)v->size;
    uint64_t at = v->done < total ? v->done : total;
    cli_progress_bytes(size, sizeof size, (double)total);
    append(buf, n, len, "%s of %s", done, size);
    if (total > 0) /* rounded down: 100% only at the end */
        append(buf, n, len, " (%u%%)", (unsigned)((double)at * 100 / (double)total));
}

size_t cli_progress_format(char *buf, size_t n, const cli_progress_view *v)
{
    size_t len = 0;
    if (n == 0)
        return 0;
    buf[0] = 0;
    append(buf, n, &len, "tracekit: %s: ", v->label);
    if (v->pass > 1)
        append(buf, n, &len, "pass %u: ", v->pass);
    amounts(buf, n, &len, v);
    if (v->rate > 0) {
        char rate[16], eta[24];
        cli_progress_bytes(rate, sizeof rate, v->rate);
        append(buf, n, &len, ", %s/s", rate);
        if (v->size >= 0) {
            uint64_t total = (uint64_t)v->size;
            uint64_t left = v->done < total ? total - v->done : 0;
            cli_progress_eta(eta, sizeof eta, (double)left / v->rate);
            append(buf, n, &len, ", ETA %s", eta);
        }
    }
    return len;
}
