/* Small Cacheray traces for the cachesim command-line tests, written with
 * tracekit's writer: mktrace NAME OUT where NAME is
 *   shared     two threads writing neighbouring counters of one line (false
 *              sharing), typed arrays walked and freed (little-endian)
 *   shared-be  the same, big-endian
 *   badtag     a few accesses, then an unknown record tag
 *   truncated  a few accesses, the last one cut short
 *   threads    30 threads, the t-th to come thread 100 + 11t mod 31 with
 *              7t mod 31 + 1 accesses (2 to 31, all distinct), each on its
 *              own page, 8 accesses a line, reads and writes in turn
 *   threads-ties  threads 6, 5, 4, 3, 2, 1 in that order with 3, 5, 3, 5,
 *              3, 1 accesses */
#include <stdio.h>
#include <string.h>

#include <tracekit/tracekit.h>

static tk_cacheray_writer *w;

static void put(tk_cacheray_type type, uint64_t addr, uint8_t size, uint64_t thread)
{
    tk_cacheray_record r = {.type = type, .addr = addr, .size = size, .thread = thread};
    tk_error err;
    tk_cacheray_write(w, &r, &err);
}

static void add(uint64_t addr, uint32_t elemsize, uint32_t count, const char *name)
{
    tk_cacheray_record r = {.type = TK_CACHERAY_RTTA_ADD, .addr = addr, .thread = 1,
                            .elemsize = elemsize, .elemcount = count, .type_name = name,
                            .typename_len = (uint32_t)strlen(name)};
    tk_error err;
    tk_cacheray_write(w, &r, &err);
}

static void shared(void)
{
    add(0x10000, 16, 1, "struct.counters");
    add(0x20008, 16, 3, "struct.Pad"); /* malloc(3 * sizeof(struct Pad)) */
    for (int i = 0; i < 6; i++) {
        put(TK_CACHERAY_WRITE, 0x10000, 8, 1);
        put(TK_CACHERAY_WRITE, 0x10008, 8, 2);
    }
    for (uint64_t a = 0x20008; a < 0x20008 + 48; a += 8)
        put(TK_CACHERAY_READ, a, 8, 1);
    put(TK_CACHERAY_WRITE, 0x20008 + 40, 1, 2);
    put(TK_CACHERAY_READ, 0x30000, 4, 1); /* untyped */
    put(TK_CACHERAY_READ, 0x30000 + 64 * 1024, 4, 1);
    tk_cacheray_record rm = {.type = TK_CACHERAY_RTTA_REMOVE, .addr = 0x20008, .thread = 1};
    tk_error err;
    tk_cacheray_write(w, &rm, &err);
    put(TK_CACHERAY_READ, 0x20010, 8, 1); /* freed: untyped */
}

/* Thread `id`'s `n` accesses up page `page`, 8 bytes each (a miss per
 * line): reads and writes in turn. */
static void thread_run(uint64_t id, unsigned page, unsigned n)
{
    for (unsigned j = 0; j < n; j++)
        put(j % 2 ? TK_CACHERAY_WRITE : TK_CACHERAY_READ, 0x100000 + page * 0x1000 + j * 8,
            8, id);
}

static void threads(void)
{
    for (unsigned t = 1; t <= 30; t++)
        thread_run(100 + t * 11 % 31, t, t * 7 % 31 + 1);
}

static void threads_ties(void)
{
    static const unsigned n[] = {3, 5, 3, 5, 3, 1};
    for (unsigned i = 0; i < 6; i++)
        thread_run(6 - i, i, n[i]);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    FILE *out = fopen(argv[2], "wb");
    tk_error err;
    if (!out)
        return 2;
    w = tk_cacheray_writer_new(out, strcmp(argv[1], "shared-be") ? TK_ENDIAN_LITTLE
                                                                 : TK_ENDIAN_BIG, &err);
    if (!strncmp(argv[1], "shared", 6)) {
        shared();
    } else if (!strcmp(argv[1], "threads")) {
        threads();
    } else if (!strcmp(argv[1], "threads-ties")) {
        threads_ties();
    } else {
        put(TK_CACHERAY_READ, 0x1000, 8, 0);
        put(TK_CACHERAY_WRITE, 0x1008, 8, 0);
    }
    tk_cacheray_writer_free(w, &err);
    if (!strcmp(argv[1], "badtag"))
        fputc(0x07, out);
    if (!strcmp(argv[1], "truncated"))
        fwrite("\x00\x10\x20", 1, 3, out);
    return fclose(out) != 0;
}
