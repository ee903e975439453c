/* Cacheray writer: records encoded into a buffer in the chosen byte order. */
#include <stdlib.h>
#include <string.h>

#include <tracekit/cacheray.h>

#include "core/bytes.h"

#define WRITE_BUFFER ((size_t)1 << 18)

struct tk_cacheray_writer {
    FILE *out;
    int big;
    size_t len;
    uint8_t buf[WRITE_BUFFER];
};

size_t tk_cacheray_encode(const tk_cacheray_record *rec, tk_endian endian,
                          uint8_t *b)
{
    int big = endian == TK_ENDIAN_BIG;
    switch (rec->type) {
    case TK_CACHERAY_READ:
    case TK_CACHERAY_WRITE:
        b[0] = (uint8_t)(rec->type | (rec->flags & TK_CACHERAY_FLAG_MASK));
        tk_st64(b + 1, rec->addr, big);
        b[9] = rec->size;
        tk_st64(b + 10, rec->thread, big);
        return TK_CACHERAY_ACCESS_SIZE;
    case TK_CACHERAY_RTTA_ADD:
        b[0] = TK_CACHERAY_RTTA_ADD;
        tk_st64(b + 1, rec->addr, big);
        tk_st64(b + 9, rec->thread, big);
        tk_st32(b + 17, rec->elemsize, big);
        tk_st32(b + 21, rec->elemcount, big);
        tk_st32(b + 25, rec->typename_len, big);
        if (rec->typename_len)
            memcpy(b + TK_CACHERAY_RTTA_ADD_FIXED, rec->type_name, rec->typename_len);
        return TK_CACHERAY_RTTA_ADD_FIXED + (size_t)rec->typename_len;
    case TK_CACHERAY_RTTA_REMOVE:
        b[0] = TK_CACHERAY_RTTA_REMOVE;
        tk_st64(b + 1, rec->addr, big);
        tk_st64(b + 9, rec->thread, big);
        return TK_CACHERAY_RTTA_REMOVE_SIZE;
    }
    return 0;
}

tk_cacheray_writer *tk_cacheray_writer_new(FILE *out, tk_endian endian,
                                           tk_error *err)
{
    if (endian != TK_ENDIAN_LITTLE && endian != TK_ENDIAN_BIG) {
        tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                     "cacheray writer needs an explicit byte order");
        return NULL;
    }
    tk_cacheray_writer *w = malloc(sizeof *w);
    if (!w) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        return NULL;
    }
    w->out = out;
    w->big = endian == TK_ENDIAN_BIG;
    w->len = 0;
    return w;
}

tk_status tk_cacheray_writer_flush(tk_cacheray_writer *w, tk_error *err)
{
    if (w->len && fwrite(w->buf, 1, w->len, w->out) != w->len) {
        w->len = 0;
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                            "writing cacheray output failed");
    }
    w->len = 0;
    return TK_OK;
}

tk_status tk_cacheray_write(tk_cacheray_writer *w, const tk_cacheray_record *rec,
                            tk_error *err)
{
    size_t need;
    switch (rec->type) {
    case TK_CACHERAY_READ:
    case TK_CACHERAY_WRITE:
        if (rec->flags & ~TK_CACHERAY_FLAG_MASK)
            goto bad_flags;
        need = TK_CACHERAY_ACCESS_SIZE;
        break;
    case TK_CACHERAY_RTTA_ADD:
        if (rec->flags)
            goto bad_flags;
        if (rec->typename_len && !rec->type_name)
            return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                                "rtta_add record without its type name");
        need = TK_CACHERAY_RTTA_ADD_FIXED + (size_t)rec->typename_len;
        break;
    case TK_CACHERAY_RTTA_REMOVE:
        if (rec->flags)
            goto bad_flags;
        need = TK_CACHERAY_RTTA_REMOVE_SIZE;
        break;
    default:
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "unknown cacheray record type %d", (int)rec->type);
    }
    if (w->len + need > WRITE_BUFFER) {
        tk_status st = tk_cacheray_writer_flush(w, err);
        if (st != TK_OK)
            return st;
    }
    if (need > WRITE_BUFFER) { /* a huge type name: write it directly */
        uint8_t head[TK_CACHERAY_RTTA_ADD_FIXED];
        tk_cacheray_record fixed = *rec;
        fixed.typename_len = 0;
        tk_cacheray_encode(&fixed, w->big ? TK_ENDIAN_BIG : TK_ENDIAN_LITTLE, head);
        tk_st32(head + 25, rec->typename_len, w->big);
        if (fwrite(head, 1, sizeof head, w->out) != sizeof head ||
            fwrite(rec->type_name, 1, rec->typename_len, w->out) != rec->typename_len)
            return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                                "writing cacheray output failed");
        return TK_OK;
    }
    w->len += tk_cacheray_encode(rec, w->big ? TK_ENDIAN_BIG : TK_ENDIAN_LITTLE,
                                 w->buf + w->len);
    return TK_OK;
bad_flags:
    return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                        "flag bits 0x%02x are not allowed on a %s record",
                        rec->flags, tk_cacheray_type_name(rec->type));
}

tk_status tk_cacheray_writer_free(tk_cacheray_writer *w, tk_error *err)
{
    if (!w)
        return TK_OK;
    tk_status st = tk_cacheray_writer_flush(w, err);
    free(w);
    return st;
}
