/* Records of one size in chunks of TK_CHUNK_RECORDS: a record's address
 * never moves (unlike a growing array's), and a million small records
 * cost no malloc header each. Record k is tk_chunks_at(c, k). */
#ifndef TK_CORE_CHUNKS_H
#define TK_CORE_CHUNKS_H

#include <stdlib.h>

#define TK_CHUNK_RECORDS 4096u

typedef struct tk_chunks {
    unsigned char **chunk;
    size_t nchunk;
} tk_chunks;

static inline void *tk_chunks_at(const tk_chunks *c, size_t k, size_t size)
{
    return c->chunk[k / TK_CHUNK_RECORDS] + (k % TK_CHUNK_RECORDS) * size;
}

/* Room for record k (records below it have room already): 0, or -1 when
 * out of memory. */
static inline int tk_chunks_reserve(tk_chunks *c, size_t k, size_t size)
{
    if (k / TK_CHUNK_RECORDS < c->nchunk)
        return 0;
    unsigned char **v = realloc(c->chunk, (c->nchunk + 1) * sizeof *v);
    if (!v)
        return -1;
    c->chunk = v;
    if (!(v[c->nchunk] = malloc(TK_CHUNK_RECORDS * size)))
        return -1;
    c->nchunk++;
    return 0;
}

static inline void tk_chunks_free(tk_chunks *c)
{
    for (size_t k = 0; k < c->nchunk; k++)
        free(c->chunk[k]);
    free(c->chunk);
    c->chunk = NULL;
    c->nchunk = 0;
}

#endif
