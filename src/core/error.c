/* The one error type: message, location, record index. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <tracekit/error.h>

void tk_error_clear(tk_error *err)
{
    if (!err)
        return;
    err->status = TK_OK;
    err->offset = TK_NO_OFFSET;
    err->line = err->col = 0;
    err->record = TK_NO_RECORD;
    err->message[0] = '\0';
    err->file[0] = '\0';
}

void tk_error_set_file(tk_error *err, const char *file)
{
    if (err)
        snprintf(err->file, sizeof err->file, "%s", file ? file : "");
}

static void set_message(tk_error *err, const char *fmt, va_list ap)
{
    vsnprintf(err->message, sizeof err->message, fmt, ap);
}

tk_status tk_error_set(tk_error *err, tk_status status, uint64_t offset,
                       uint64_t record, const char *fmt, ...)
{
    if (!err)
        return status;
    tk_error_clear(err);
    err->status = status;
    err->offset = offset;
    err->record = record;
    va_list ap;
    va_start(ap, fmt);
    set_message(err, fmt, ap);
    va_end(ap);
    return status;
}

tk_status tk_error_set_text(tk_error *err, tk_status status, uint64_t line,
                            uint64_t col, uint64_t record, const char *fmt, ...)
{
    if (!err)
        return status;
    tk_error_clear(err);
    err->status = status;
    err->line = line;
    err->col = col;
    err->record = record;
    va_list ap;
    va_start(ap, fmt);
    set_message(err, fmt, ap);
    va_end(ap);
    return status;
}

const char *tk_error_format(const tk_error *err, const char *file, char *buf,
                            size_t size)
{
    size_t n = 0;
    int w;
#define APPEND(...)                                                          \
    do {                                                                     \
        w = snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__);        \
        if (w > 0)                                                           \
            n += (size_t)w;                                                  \
    } while (0)
    if (size == 0)
        return buf;
    buf[0] = '\0';
    if (err->file[0])
        file = err->file;
    if (file)
        APPEND("%s", file);
    if (err->line) {
        APPEND("%s%" PRIu64, file ? ":" : "", err->line);
        if (err->col)
            APPEND(":%" PRIu64, err->col);
    }
    else if (err->offset != TK_NO_OFFSET)
        APPEND("%soffset 0x%" PRIx64, file ? ": " : "", err->offset);
    if (err->record != TK_NO_RECORD)
        APPEND(" (record %" PRIu64 ")", err->record);
    APPEND("%s%s", n ? ": " : "",
           err->message[0] ? err->message : tk_status_name(err->status));
#undef APPEND
    return buf;
}

const char *tk_status_name(tk_status status)
{
    switch (status) {
    case TK_OK: return "ok";
    case TK_EMALFORMED: return "malformed trace";
    case TK_EVIOLATION: return "check failed";
    case TK_EIO: return "I/O error";
    case TK_EUSAGE: return "usage error";
    case TK_ENOMEM: return "out of memory";
    case TK_EUNSUPPORTED: return "not supported";
    }
    return "unknown error";
}
