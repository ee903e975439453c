/* Count the records of any trace by kind: the generic reader detects the
 * format and gives every record the same header.
 *   cc count_kinds.c $(pkg-config --cflags --libs tracekit) -o count_kinds
 *   ./count_kinds examples/ucir/hello.ucir */
#include <stdio.h>
#include <string.h>
#include <tracekit/tracekit.h>

#define MAX_KINDS 64 /* a format has about 20 */

int main(int argc, char **argv)
{
    static struct { char name[32]; unsigned long long count; } kinds[MAX_KINDS];
    size_t nkinds = 0, i;
    tk_error err;
    tk_record rec;
    int rc = -1;

    if (argc != 2) {
        fprintf(stderr, "usage: count_kinds TRACE\n");
        return 2;
    }
    tk_reader *r = tk_reader_open(argv[1], NULL, NULL, &err); /* NULL: detect the format */
    if (r) {
        while ((rc = tk_reader_next(r, &rec, &err)) == 1) {
            for (i = 0; i < nkinds && strcmp(kinds[i].name, rec.kind) != 0; i++)
                ;
            if (i == nkinds && nkinds < MAX_KINDS) /* rec lives until the next read: copy */
                snprintf(kinds[nkinds++].name, sizeof kinds[0].name, "%s", rec.kind);
            if (i < nkinds)
                kinds[i].count++;
        }
        tk_reader_free(r);
    }
    for (i = 0; i < nkinds; i++)
        printf("%-20s %llu\n", kinds[i].name, kinds[i].count);
    if (rc < 0) { /* not opened, or a malformed record: err says where */
        char msg[600];
        fprintf(stderr, "count_kinds: %s\n", tk_error_format(&err, argv[1], msg, sizeof msg));
        return 1;
    }
    return 0;
}
