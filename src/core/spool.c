/* Pipes copied to temporary files (see spool.h). */
#include "core/spool.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "core/tempfile.h"
#include "core/truncation.h"

int tk_spool_open(tk_spool *sp, tk_input *from, const char *tag, const char *what,
                  tk_error *err)
{
    sp->in = sp->from = NULL;
    sp->fd = tk_tempfile_open(tag);
    if (sp->fd < 0) {
        tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                     "copying %s to a temporary file failed: %s", what, strerror(errno));
        return 1;
    }
    const uint8_t *p;
    int64_t n;
    while ((n = tk_input_window(from, 1, &p, err)) > 0) {
        if (tk_write_all(sp->fd, p, (size_t)n) != 0) {
            tk_error_set(err, TK_EIO, tk_input_offset(from), TK_NO_RECORD,
                         "copying %s to a temporary file failed: %s", what, strerror(errno));
            n = -1;
            break;
        }
        tk_input_advance(from, (size_t)n);
    }
    if (n == 0 && (sp->in = tk_input_from_fd(sp->fd, tk_input_name(from), err))) {
        tk_input_share_progress(sp->in, from);
        tk_input_set_allow_truncated(sp->in, tk_input_allows_truncated(from));
        sp->from = from;
    }
    if (!sp->in) {
        close(sp->fd);
        sp->fd = -1;
        return -1;
    }
    return 0;
}

void tk_spool_close(tk_spool *sp)
{
    tk_truncation t;
    if (sp->in && sp->from && tk_input_truncation(sp->in, &t)) /* "truncated tail: ..." */
        tk_input_note_truncation(sp->from, t.offset, t.dropped, "%s",
                                 t.message + strlen("truncated tail: "));
    tk_input_close(sp->in);
    if (sp->fd >= 0)
        close(sp->fd);
    sp->in = NULL;
    sp->fd = -1;
}
