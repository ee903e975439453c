/* tk-mrc-gen OUT RECORDS LINES SEED: a Cacheray trace from gen.c's
 * stream, for the command-line tests. */
#include <stdio.h>
#include <stdlib.h>

#include <tracekit/cacheray.h>

#include "gen.h"

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: tk-mrc-gen OUT RECORDS LINES SEED\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "wb");
    tk_error err;
    tk_cacheray_writer *w = f ? tk_cacheray_writer_new(f, TK_ENDIAN_LITTLE, &err) : NULL;
    if (!w) {
        fprintf(stderr, "tk-mrc-gen: cannot write %s\n", argv[1]);
        return 2;
    }
    mg_state g;
    mg_init(&g, strtoull(argv[4], NULL, 0), strtoull(argv[3], NULL, 0));
    uint64_t n = strtoull(argv[2], NULL, 0);
    tk_status st = TK_OK;
    for (uint64_t i = 0; i < n && st == TK_OK; i++) {
        tk_cacheray_record rec;
        mg_next(&g, &rec);
        st = tk_cacheray_write(w, &rec, &err);
    }
    if (tk_cacheray_writer_free(w, st == TK_OK ? &err : NULL) != TK_OK || st != TK_OK ||
        fclose(f) != 0) {
        fprintf(stderr, "tk-mrc-gen: %s\n", err.message);
        return 2;
    }
    return 0;
}
