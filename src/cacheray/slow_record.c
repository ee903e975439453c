/* The record a fast path (cachesim's, mrc's: accesses straight from the
 * input's window) does not take — an RTTA record, or anything malformed —
 * read by the real reader placed at it and given to `feed`; the cursor
 * then starts again after it. */
#include "cacheray/cacheray_int.h"
#include "core/cursor.h"

tk_status tk_cacheray_slow_record(tk_cursor *c, tk_endian e, uint64_t records_before,
                                  tk_cacheray_feed_fn feed, void *ctx, tk_error *err)
{
    tk_input *in = c->in;
    tk_input_advance(in, (size_t)(c->p - c->win));
    tk_cacheray_reader *r = tk_cacheray_reader_new(in, e, err);
    if (!r)
        return err->status;
    tk_cacheray_record rec;
    int rc = tk_cacheray_next(r, &rec, err);
    tk_status st = TK_OK;
    if (rc < 0) {
        if (err->record != TK_NO_RECORD) /* the reader counted from here */
            err->record += records_before;
        st = err->status;
    } else if (rc > 0) {
        st = feed(ctx, &rec, err);
        tk_input_advance(in, (size_t)(tk_cacheray_reader_tell(r) - tk_input_offset(in)));
    }
    tk_cacheray_reader_free(r);
    if (st == TK_OK && tk_cursor_init(c, in, TK_CACHERAY_RTTA_ADD_FIXED, err) < 0)
        st = err->status;
    return st;
}
