/* Small Cacheray traces for the cachesim command-line tests, written with
 * tracekit's writer: mktrace NAME OUT where NAME is
 *   shared     two threads writing neighbouring counters of one line (false
 *              sharing), typed arrays walked and freed (little-endian)
 *   shared-be  the same, big-endian
 *   badtag     a few accesses, then an unknown record tag
 *   truncated  a few accesses, the last one cut short */
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
