/* Encoding speed and size of the Parquet writer on one-column tables:
 * INT64 (timestamps: increasing by a few hundred ns, jittered) with
 * DELTA_BINARY_PACKED and with PLAIN, and a STRING column of function
 * names (1000 distinct, 20-60 bytes) with the dictionary; under each
 * codec. MB/s counts the values' raw bytes (8 an integer, a string's
 * length) per CPU second, compression and the writes to a temporary
 * file included.
 * Usage: pq_bench [ROWS [ZSTD_LEVEL]]   (default 10 M rows, level 0: the default) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "export/parquet/parquet.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* the machine may be shared */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char names[1000][64];
static int level;

static void run(const char *what, tk_pq_type type, tk_pq_encoding enc, tk_pq_codec codec,
                uint64_t rows)
{
    tk_pq_column col = {"v", type, 0, enc};
    tk_pq_options o;
    tk_pq_options_init(&o);
    o.codec = codec;
    o.level = level;
    FILE *f = tmpfile();
    tk_error err;
    tk_pq_writer *w = tk_pq_writer_new(f, &col, 1, &o, &err);
    if (!w) {
        fprintf(stderr, "pq_bench: %s\n", err.message);
        exit(1);
    }
    uint64_t raw = 0, x = 88172645463325252ull;
    int64_t ts = 1700000000000000000;
    double t0 = now();
    for (uint64_t i = 0; i < rows; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if (type == TK_PQ_STRING) {
            /* skewed as calls are: 3 in 4 among 20 hot names */
            uint64_t k = x % 4 ? (x >> 40) % 20 : (x >> 20) % 1000;
            const char *s = names[k];
            size_t len = strlen(s);
            tk_pq_put_bytes(w, 0, s, len);
            raw += len;
        } else {
            ts += 100 + (int64_t)(x % 400);
            tk_pq_put_i64(w, 0, ts);
            raw += 8;
        }
        if (tk_pq_row_end(w, &err) != TK_OK) {
            fprintf(stderr, "pq_bench: %s\n", err.message);
            exit(1);
        }
    }
    if (tk_pq_finish(w, &err) != TK_OK) {
        fprintf(stderr, "pq_bench: %s\n", err.message);
        exit(1);
    }
    double dt = now() - t0;
    size_t n = (size_t)ftell(f);
    fclose(f);
    static const char *const codecs[] = {"zstd", "snappy", "none"};
    printf("%-22s %-6s %8.1f MB/s  %10llu -> %10zu bytes  ratio %6.2f\n", what,
           codecs[codec], (double)raw / dt / 1e6, (unsigned long long)raw, n,
           (double)raw / (double)n);
}

int main(int argc, char **argv)
{
    uint64_t rows = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    level = argc > 2 ? atoi(argv[2]) : 0;
    for (int i = 0; i < 1000; i++)
        snprintf(names[i], sizeof names[i], "ns%d::Class%d::method_%d(int, char const*)",
                 i % 7, i % 31, i);
    for (int c = TK_PQ_ZSTD; c <= TK_PQ_UNCOMPRESSED; c++) {
        run("int64 ts delta", TK_PQ_INT64, TK_PQ_ENC_DELTA, (tk_pq_codec)c, rows);
        run("int64 ts plain", TK_PQ_INT64, TK_PQ_ENC_PLAIN, (tk_pq_codec)c, rows);
        run("string names dict", TK_PQ_STRING, TK_PQ_ENC_DICT, (tk_pq_codec)c, rows);
    }
    return 0;
}
