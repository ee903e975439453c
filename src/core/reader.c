/* One way to read any trace (include/tracekit/reader.h): the format
 * detected or named, its options checked, the selection parsed once, then
 * the records pulled through the format's adapter (src/core/reader_int.h)
 * into one slot the reader owns. */
#include <stdlib.h>
#include <string.h>

#include "core/reader_int.h"

/* Registry names to adapters; both UCIR entries read through tk_ucir. */
static const struct {
    const char *name;
    const tk_reader_ops *ops;
} adapters[] = {
    {"cacheray", &tk_adapter_cacheray}, {"casemate", &tk_adapter_casemate},
    {"ucir", &tk_adapter_ucir},         {"usercorn", &tk_adapter_ucir},
    {"xray", &tk_adapter_xray},
};

static const tk_reader_ops *adapter_of(const tk_format *f, tk_error *err)
{
    for (size_t i = 0; i < sizeof adapters / sizeof adapters[0]; i++)
        if (strcmp(adapters[i].name, tk_format_name(f)) == 0)
            return adapters[i].ops;
    tk_error_set(err, TK_EUNSUPPORTED, TK_NO_OFFSET, TK_NO_RECORD,
                 "%s: the generic reader cannot read these traces", tk_format_name(f));
    return NULL;
}

static const tk_format *format_of(tk_input *in, const char *name, tk_error *err)
{
    if (!name)
        return tk_format_probe(in, err);
    const tk_format *f = tk_format_find(name);
    if (!f)
        tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD, "unknown format '%s'",
                     name);
    return f;
}

static int listed(const char *const *keys, const char *key)
{
    for (; keys && *keys; keys++)
        if (strcmp(*keys, key) == 0)
            return 1;
    return 0;
}

/* Beyond what the format reads (tk_format_check_options), a key only a
 * command reads ("out-endian", "sort", "json-hex") is refused too: the
 * reader would ignore it, and options are never silently ignored. */
static tk_status check_keys(const tk_format *f, const tk_reader_ops *ops,
                            const tk_options *o, tk_error *err)
{
    static const char *const read_here[] = {"skip", "limit", "thread",          "range",
                                            "addr", "func",  "allow-truncated", NULL};
    if (tk_format_check_options(f, o, err) != TK_OK)
        return err->status;
    for (size_t i = 0; i < tk_options_count(o); i++) {
        const char *key = tk_options_key(o, i), *v = tk_options_get(o, key);
        if (listed(read_here, key) || listed(ops->keys, key))
            continue;
        if (strcmp(key, "records") == 0 && ops->records && strcmp(v, ops->records) == 0)
            continue;
        if (strcmp(key, "records") == 0 && ops->records)
            return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                                "--records: the reader returns the %s records of %s traces, "
                                "not '%s'", ops->records, tk_format_name(f), v);
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--%s does not apply to reading %s traces (a command's option)",
                            key, tk_format_name(f));
    }
    return TK_OK;
}

static int next_skipping(tk_reader *r, tk_record *rec, tk_error *err);
static int next_limited(tk_reader *r, tk_record *rec, tk_error *err);
static int next_done(tk_reader *r, tk_record *rec, tk_error *err);

/* Without --skip and --limit, tk_reader_next jumps straight to the
 * adapter's next. */
static void first_step(tk_reader *r)
{
    if (r->left == 0)
        r->next = next_done;
    else if (r->skip)
        r->next = next_skipping;
    else if (r->left != UINT64_MAX)
        r->next = next_limited;
    else
        r->next = r->ops->next;
}

/* Everything the options say, before the input is read past its header. */
static tk_status setup(tk_reader *r, tk_input *in, const char *format, const tk_options *o,
                       tk_error *err)
{
    if (!(r->fmt = format_of(in, format, err)) || !(r->ops = adapter_of(r->fmt, err)) ||
        check_keys(r->fmt, r->ops, o, err) != TK_OK ||
        tk_options_get_u64(o, "skip", 0, &r->skip, err) != TK_OK ||
        tk_options_get_u64(o, "limit", UINT64_MAX, &r->left, err) != TK_OK)
        return err->status;
    tk_selection *sel = tk_selection_new(o, err);
    if (!sel)
        return err->status;
    const char *allow = tk_options_get(o, "allow-truncated");
    if (allow && strcmp(allow, "0") != 0)
        tk_input_set_allow_truncated(in, 1); /* the format's reader looks there */
    r->impl = r->ops->open(in, o, sel, err);
    tk_selection_free(sel);
    first_step(r);
    return r->impl ? TK_OK : err->status;
}

/* A reader over `in`, which it closes when `owned` (on failure too). */
static tk_reader *start(tk_input *in, int owned, const char *format, const tk_options *o,
                        tk_error *err)
{
    tk_reader *r = calloc(1, sizeof *r);
    if (!r) {
        tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
        if (owned)
            tk_input_close(in);
        return NULL;
    }
    r->owned = owned ? in : NULL;
    r->in = in;
    if (setup(r, in, format, o, err) != TK_OK) {
        tk_reader_free(r);
        return NULL;
    }
    return r;
}

tk_reader *tk_reader_new(tk_input *in, const char *format, const tk_options *o,
                         tk_error *err)
{
    return start(in, 0, format, o, err);
}

tk_reader *tk_reader_open(const char *path, const char *format, const tk_options *o,
                          tk_error *err)
{
    tk_input *in = tk_input_open(path, err);
    return in ? start(in, 1, format, o, err) : NULL;
}

tk_reader *tk_reader_from_memory(const void *data, size_t size, const char *format,
                                 const tk_options *o, tk_error *err)
{
    tk_input *in = tk_input_from_memory(data, size, "<memory>", err);
    return in ? start(in, 1, format, o, err) : NULL;
}

void tk_reader_free(tk_reader *r)
{
    if (!r)
        return;
    if (r->impl)
        r->ops->free(r->impl);
    tk_input_close(r->owned);
    free(r);
}

const tk_format *tk_reader_format(const tk_reader *r) { return r->fmt; }

int tk_reader_truncation(const tk_reader *r, tk_truncation *t)
{
    return tk_input_truncation(r->in, t);
}

static int next_done(tk_reader *r, tk_record *rec, tk_error *err)
{
    (void)r;
    (void)rec;
    (void)err;
    return 0;
}

static int next_failed(tk_reader *r, tk_record *rec, tk_error *err)
{
    (void)rec;
    *err = r->failure;
    return -1;
}

int tk_rd_ended(tk_reader *r, int rc, tk_error *err)
{
    r->next = rc < 0 ? next_failed : next_done;
    if (rc < 0)
        r->failure = *err;
    return rc;
}

/* "limit": the records returned are counted down. */
static int next_limited(tk_reader *r, tk_record *rec, tk_error *err)
{
    int rc = r->ops->next(r, rec, err);
    if (rc > 0 && --r->left == 0)
        r->next = next_done;
    return rc;
}

/* "skip": the first records selected are read and passed over (as dump's
 * --skip), at the first call. */
static int next_skipping(tk_reader *r, tk_record *rec, tk_error *err)
{
    for (; r->skip; r->skip--) {
        int rc = r->ops->next(r, rec, err);
        if (rc <= 0)
            return rc; /* r->next is now the end's or the error's */
    }
    first_step(r);
    return r->next(r, rec, err);
}

int tk_reader_next(tk_reader *r, tk_record *rec, tk_error *err)
{
    return r->next(r, rec, err);
}

tk_status tk_reader_foreach(tk_reader *r, tk_record_fn fn, void *ctx, tk_error *err)
{
    tk_record rec;
    int rc;
    while ((rc = tk_reader_next(r, &rec, err)) > 0)
        if (fn(&rec, ctx) != 0)
            return TK_OK;
    return rc < 0 ? err->status : TK_OK;
}

/* The format's reader, when `r` reads that format. */
static void *impl_of(tk_reader *r, tk_record_format format)
{
    return r && r->ops->format == format ? r->impl : NULL;
}

tk_cacheray_reader *tk_reader_cacheray(tk_reader *r)
{
    return impl_of(r, TK_RECORD_CACHERAY);
}

tk_casemate_reader *tk_reader_casemate(tk_reader *r)
{
    return impl_of(r, TK_RECORD_CASEMATE);
}

tk_ucir_reader *tk_reader_ucir(tk_reader *r) { return impl_of(r, TK_RECORD_UCIR); }

tk_xray_reader *tk_reader_xray(tk_reader *r) { return impl_of(r, TK_RECORD_XRAY); }
