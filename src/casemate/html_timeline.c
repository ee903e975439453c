/* casemate's HTML report: the threads (records of each, as info --json
 * lists them) and their events over the log, by record index: a span per
 * window, darker the more of the window's records are the thread's, with
 * the violation and the events related to it marked. */
#include <stdlib.h>
#include <string.h>

#include "casemate/html_int.h"

/* info --json lists the first 64 threads by id. */
#define INFO_THREADS 64

static int by_tid(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static const tk_cmh_thread *thread_of(const tk_cmh *x, uint64_t tid)
{
    return tk_map_find_u64(&x->threads, tid);
}

/* The (at most) INFO_THREADS smallest thread ids, in order, into l: what
 * the table shows, without sorting a million threads. Their number. */
static size_t smallest_ids(const tk_cmh *x, uint64_t l[INFO_THREADS])
{
    size_t n = 0;
    for (size_t i = 0; i < x->threads.n; i++) {
        uint64_t tid = x->threads.ukeys[i];
        if (n == INFO_THREADS && tid >= l[n - 1])
            continue;
        size_t at = n < INFO_THREADS ? n++ : n - 1;
        for (; at > 0 && l[at - 1] > tid; at--)
            l[at] = l[at - 1];
        l[at] = tid;
    }
    return n;
}

/* A row per thread: those shown first, by id; the others after them, in
 * any order, only counted and summed into the "other" row. */
static void table(tk_html *h, const tk_cmh *x)
{
    static const tk_html_column cols[4] = {
        {.label = "thread", .key = "thread", .flags = TK_HTML_COL_KEY},
        {.label = "records", .key = "records", .flags = TK_HTML_COL_HEAT | TK_HTML_COL_SUM},
        {.label = "first record"},
        {.label = "last record"}};
    tk_html_table_spec spec = {.id = "thread-table", .src = "info.threads", .cols = cols,
                               .ncols = 4, .max_rows = INFO_THREADS,
                               .caption = "Records per thread (as info --json)"};
    uint64_t l[INFO_THREADS];
    size_t n = smallest_ids(x, l);
    tk_html_table_begin(h, &spec);
    for (size_t i = 0; i < n; i++) {
        const tk_cmh_thread *t = thread_of(x, l[i]);
        tk_html_table_row(h, (tk_html_value[4]){tk_html_u64(l[i]), tk_html_u64(t->records),
                                                tk_html_u64(t->first), tk_html_u64(t->last)});
    }
    for (size_t i = 0; n == INFO_THREADS && i < x->threads.n; i++) {
        uint64_t tid = x->threads.ukeys[i];
        const tk_cmh_thread *t = tk_map_value(&x->threads, i);
        if (tid > l[n - 1])
            tk_html_table_row(h, (tk_html_value[4]){tk_html_u64(tid), tk_html_u64(t->records),
                                                    tk_html_u64(t->first),
                                                    tk_html_u64(t->last)});
    }
    tk_html_table_end(h);
}

/* Labels of the marks (the violation, related events, the model giving up). */
typedef struct mark {
    uint64_t tid, record;
    tk_html_tone tone;
    char label[128];
} mark;

static size_t marks(const tk_cmh *x, mark *m)
{
    size_t n = 0;
    char code[96];
    const tk_casemate_violation *v = tk_casemate_check_violation(x->k);
    for (size_t i = 0; v && i < x->nrelated; i++) {
        const tk_cmh_event *e = &x->related[i];
        m[n] = (mark){e->tid, e->record, e->role == TK_CMH_SELF ? TK_HTML_BAD : TK_HTML_WARN, ""};
        if (e->role == TK_CMH_SELF)
            snprintf(m[n].label, sizeof m[n].label, "violation %s at record %llu (id %llu)",
                     tk_cmh_snake(v->code, code, sizeof code), (unsigned long long)e->record,
                     (unsigned long long)e->id);
        else
            snprintf(m[n].label, sizeof m[n].label, "related: %s at record %llu (id %llu)",
                     e->role == TK_CMH_WRITE ? "the last write to an entry" : "the lock's taker",
                     (unsigned long long)e->record, (unsigned long long)e->id);
        n++;
    }
    if (x->verdict < 0) {
        m[n] = (mark){x->at_tid, x->at_record, TK_HTML_WARN, ""};
        snprintf(m[n].label, sizeof m[n].label, "not checked from record %llu on",
                 (unsigned long long)x->at_record);
        n++;
    }
    return n;
}

/* One thread's lane: its windows, then its marks. */
static size_t lane_events(const tk_cmh *x, uint64_t tid, const mark *m, size_t nm,
                          tk_html_event *ev, char (*labels)[96])
{
    size_t k = 0;
    const uint64_t *win = tk_cmh_win(x, thread_of(x, tid));
    for (int w = 0; win && w < TK_CMH_WINDOWS; w++) {
        uint64_t a = (uint64_t)w * x->width, b = a + x->width;
        b = b < x->records ? b : x->records;
        if (!win[w] || b <= a)
            continue;
        snprintf(labels[k], sizeof labels[k], "records %llu-%llu: %llu of this thread's",
                 (unsigned long long)a, (unsigned long long)b - 1,
                 (unsigned long long)win[w]);
        ev[k] = (tk_html_event){(double)a, (double)b, (double)win[w] / (double)(b - a),
                                TK_HTML_INFO, labels[k]};
        k++;
    }
    for (size_t i = 0; i < nm; i++)
        if (m[i].tid == tid)
            ev[k++] = (tk_html_event){(double)m[i].record, (double)m[i].record, 1, m[i].tone,
                                      m[i].label};
    return k;
}

/* The threads that may have a lane, by id: the followed ones (the first
 * seen) and those with a mark. Their number. */
static size_t lane_threads(const tk_cmh *x, const mark *m, size_t nm, uint64_t *src)
{
    size_t n = 0;
    for (size_t i = 0; i < x->followed && i < x->threads.n; i++)
        src[n++] = x->threads.ukeys[i];
    for (size_t i = 0; i < nm; i++) {
        const tk_cmh_thread *t = thread_of(x, m[i].tid);
        size_t k = t ? (size_t)((const unsigned char *)t - x->threads.values) / sizeof *t : 0;
        int dup = !t || k < x->followed;
        for (size_t j = x->followed; j < n && !dup; j++)
            dup = src[j] == m[i].tid;
        if (!dup)
            src[n++] = m[i].tid;
    }
    qsort(src, n, sizeof *src, by_tid);
    return n;
}

static void timeline(tk_html *h, const tk_cmh *x)
{
    mark m[TK_CMH_RELATED + 1];
    size_t nm = marks(x, m), per = TK_CMH_WINDOWS + nm, nl = 0;
    uint64_t src[TK_CMH_LANES + TK_CMH_RELATED + 1];
    size_t n = lane_threads(x, m, nm, src);
    /* lanes: the followed threads, and those with a mark */
    size_t cap = n < TK_CMH_LANES + nm ? n : TK_CMH_LANES + nm;
    tk_html_lane *lanes = calloc(cap ? cap : 1, sizeof *lanes);
    tk_html_event *ev = calloc((cap ? cap : 1) * per, sizeof *ev);
    char (*labels)[96] = calloc((cap ? cap : 1) * TK_CMH_WINDOWS, sizeof *labels);
    char (*names)[32] = calloc(cap ? cap : 1, sizeof *names);
    if (!lanes || !ev || !labels || !names) {
        tk_html_para(h, "The timeline could not be drawn (out of memory).");
    } else {
        for (size_t i = 0; i < n && nl < cap; i++) {
            size_t k = lane_events(x, src[i], m, nm, ev + nl * per,
                                   labels + nl * TK_CMH_WINDOWS);
            if (!k)
                continue; /* a thread past the followed ones, nothing marked */
            snprintf(names[nl], sizeof names[nl], "thread %llu", (unsigned long long)src[i]);
            lanes[nl] = (tk_html_lane){names[nl], ev + nl * per, k};
            nl++;
        }
        tk_html_chart c = {.id = "timeline", .title = "Each thread's events over the log",
                           .caption = "A span per window of records, darker the more of them "
                                      "are the thread's; the violation in red, the events "
                                      "related to it in amber.",
                           .x_label = "record (index in the log)", .y_label = "thread"};
        tk_html_timeline(h, &c, 0, (double)x->records, lanes, nl);
        if (x->followed < x->threads.n)
            tk_html_paraf(h, "Windows are kept for the first %zu threads seen (of %zu).",
                          x->followed, x->threads.n);
    }
    free(lanes);
    free(ev);
    free(labels);
    free(names);
}

void tk_cmh_timeline(tk_html *h, tk_cmh *x)
{
    if (!x->records) {
        tk_html_para(h, "The log has no records.");
        return;
    }
    table(h, x);
    timeline(h, x);
}
