/* The probe table: every format, and dispatch of the common commands. */
#include <string.h>

#include "core/format_ops.h"
#include "core/select.h"

static const struct tk_format *const formats[] = {
    &tk_fmt_xray,
    &tk_fmt_cacheray,
    &tk_fmt_casemate,
    &tk_fmt_ucir,
    &tk_fmt_usercorn,
};

#define NFORMATS (sizeof formats / sizeof formats[0])

size_t tk_format_count(void) { return NFORMATS; }

const tk_format *tk_format_at(size_t i) { return i < NFORMATS ? formats[i] : NULL; }

const tk_format *tk_format_find(const char *name)
{
    for (size_t i = 0; i < NFORMATS; i++)
        if (strcmp(formats[i]->name, name) == 0)
            return formats[i];
    return NULL;
}

const char *tk_format_name(const tk_format *f) { return f->name; }
const char *tk_format_description(const tk_format *f) { return f->description; }
const char *const *tk_format_targets(const tk_format *f) { return f->targets; }
const char *const *tk_format_options(const tk_format *f) { return f->options; }

/* ---- the formats' own commands (include/tracekit/command.h) */

int tk_format_has_command(const tk_format *f, const tk_command *c)
{
    for (const tk_command *const *k = f->commands; k && *k; k++)
        if (*k == c)
            return 1;
    return 0;
}

/* Is `c` owned by a format before formats[i] (listed there already)? */
static int listed_before(size_t i, const tk_command *c)
{
    for (size_t j = 0; j < i; j++)
        if (tk_format_has_command(formats[j], c))
            return 1;
    return 0;
}

size_t tk_command_count(void)
{
    size_t n = 0;
    for (size_t i = 0; i < NFORMATS; i++)
        for (const tk_command *const *k = formats[i]->commands; k && *k; k++)
            n += !listed_before(i, *k);
    return n;
}

const tk_command *tk_command_at(size_t at)
{
    size_t n = 0;
    for (size_t i = 0; i < NFORMATS; i++)
        for (const tk_command *const *k = formats[i]->commands; k && *k; k++)
            if (!listed_before(i, *k) && n++ == at)
                return *k;
    return NULL;
}

const tk_command *tk_command_find(const char *name)
{
    for (size_t i = 0; i < NFORMATS; i++)
        for (const tk_command *const *k = formats[i]->commands; k && *k; k++)
            if (strcmp((*k)->name, name) == 0)
                return *k;
    return NULL;
}

const tk_option *tk_format_command_options(const tk_format *f) { return f->command_options; }

const char *tk_format_help(const tk_format *f, const char *topic, const char *target)
{
    for (const struct tk_format_help *h = f->help; h && h->command; h++)
        if (strcmp(h->command, topic) == 0 &&
            (target ? h->target && strcmp(h->target, target) == 0 : !h->target))
            return h->text;
    return NULL;
}

static int all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

const tk_format *tk_format_probe(tk_input *in, tk_error *err)
{
    const uint8_t *head;
    int64_t n = tk_input_window(in, TK_PROBE_BYTES, &head, err);
    if (n < 0)
        return NULL;
    if (n == 0) {
        tk_error_set(err, TK_EMALFORMED, 0, TK_NO_RECORD,
                     "empty input: cannot tell its format (use --format)");
        return NULL;
    }
    size_t len = (size_t)n < TK_PROBE_BYTES ? (size_t)n : TK_PROBE_BYTES;
    int whole = (size_t)n == len && (size_t)n < TK_PROBE_BYTES;
    const struct tk_format *best = NULL;
    int best_score = TK_PROBE_MIN_SCORE - 1;
    /* Zeros are what a failed copy or a preallocated file holds; every
     * format would read them as something, none as a trace. */
    int zero = all_zero(head, len);
    for (size_t i = 0; i < NFORMATS && !zero; i++) {
        int score = formats[i]->probe(head, len, whole);
        if (score > best_score) {
            best = formats[i];
            best_score = score;
        }
    }
    if (!best)
        tk_error_set(err, TK_EMALFORMED, TK_NO_OFFSET, TK_NO_RECORD,
                     "not a recognized trace (use --format)");
    return best;
}

/* An option the format does not read is a usage error, not ignored: the
 * options travel as keys named after the command-line options. */
tk_status tk_format_check_options(const tk_format *f, const tk_options *o, tk_error *err)
{
    static const char *const common[] = {"skip",     "limit",           "strict",
                                         "json-hex", "allow-truncated", NULL};
    for (size_t i = 0; i < tk_options_count(o); i++) {
        const char *key = tk_options_key(o, i);
        int known = 0;
        for (const char *const *k = common; *k && !known; k++)
            known = strcmp(*k, key) == 0;
        for (const char *const *k = f->options; k && *k && !known; k++)
            known = strcmp(*k, key) == 0;
        static const char *const dir_keys[] = {TK_DIR_TARGET_OPTION_KEYS, NULL};
        for (const char *const *k = dir_keys; f->convert_dir && *k && !known; k++)
            known = strcmp(*k, key) == 0;
        if (!known)
            return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                                "--%s does not apply to %s traces", key, f->name);
    }
    return TK_OK;
}

const char tk_fmt_jsonl_help[] =
    "JSON Lines, one object per record (as dump --json; with --json-hex as dump --json-hex)";

tk_sink *tk_fmt_jsonl_sink(FILE *out, const tk_options *o, tk_error *err)
{
    tk_sink *s = tk_sink_new(out, TK_SINK_JSON, err);
    const char *hex = tk_options_get(o, "json-hex");
    if (s)
        tk_sink_set_json_hex(s, hex && strcmp(hex, "0") != 0);
    return s;
}

static tk_status unsupported(const tk_format *f, const char *what, tk_error *err)
{
    return tk_error_set(err, TK_EUNSUPPORTED, TK_NO_OFFSET, TK_NO_RECORD,
                        "%s: %s is not supported for this format", f->name, what);
}

/* The options checked, and "allow-truncated" passed to the readers of
 * `in` (<tracekit/input.h>). */
static tk_status check(const tk_format *f, tk_input *in, const tk_options *o, tk_error *err)
{
    if (tk_format_check_options(f, o, err) != TK_OK)
        return err->status;
    const char *allow = tk_options_get(o, "allow-truncated");
    if (allow && strcmp(allow, "0") != 0)
        tk_input_set_allow_truncated(in, 1);
    return TK_OK;
}

tk_status tk_info(const tk_format *f, tk_input *in, const tk_options *o,
                  tk_sink *out, tk_error *err)
{
    if (check(f, in, o, err) != TK_OK)
        return err->status;
    return f->info ? f->info(in, o, out, err) : unsupported(f, "info", err);
}

tk_status tk_dump(const tk_format *f, tk_input *in, const tk_options *o,
                  tk_sink *out, tk_error *err)
{
    if (check(f, in, o, err) != TK_OK)
        return err->status;
    return f->dump ? f->dump(in, o, out, err) : unsupported(f, "dump", err);
}

tk_status tk_validate(const tk_format *f, tk_input *in, const tk_options *o,
                      tk_sink *warnings, uint64_t *nwarnings, tk_error *err)
{
    uint64_t dummy;
    if (!nwarnings)
        nwarnings = &dummy;
    *nwarnings = 0;
    if (check(f, in, o, err) != TK_OK)
        return err->status;
    const char *sel = tk_sel_option_given(o);
    if (sel) /* a subset's verdict would not be the trace's */
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "validate checks the whole trace: %s does not apply", sel);
    return f->validate ? f->validate(in, o, warnings, nwarnings, err)
                       : unsupported(f, "validate", err);
}

tk_status tk_report(const tk_format *f, tk_input *in, const tk_options *o,
                    tk_sink *out, tk_error *err)
{
    if (check(f, in, o, err) != TK_OK)
        return err->status;
    return f->report ? f->report(in, o, out, err) : unsupported(f, "report", err);
}

tk_status tk_report_html(const tk_format *f, tk_input *in, const tk_options *o, FILE *out,
                         tk_error *err)
{
    if (check(f, in, o, err) != TK_OK)
        return err->status;
    if (!f->report_html)
        return tk_error_set(err, TK_EUNSUPPORTED, TK_NO_OFFSET, TK_NO_RECORD,
                            "%s: no HTML report yet", f->name);
    return f->report_html(in, o, out, err);
}

tk_status tk_convert(const tk_format *f, tk_input *in, const tk_options *o,
                     const char *target, FILE *out, tk_error *err)
{
    if (!f->convert)
        return unsupported(f, "convert", err);
    if (check(f, in, o, err) != TK_OK)
        return err->status;
    if (tk_format_target_is_dir(f, target))
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--to %s writes a directory (tk_convert_dir)", target);
    for (const char *const *t = f->targets; t && *t; t++)
        if (strcmp(*t, target) == 0)
            return f->convert(in, o, target, out, err);
    return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                        "%s cannot be converted to '%s'", f->name, target);
}

int tk_format_target_is_dir(const tk_format *f, const char *target)
{
    for (const char *const *t = f->dir_targets; t && *t; t++)
        if (strcmp(*t, target) == 0)
            return 1;
    return 0;
}

tk_status tk_convert_dir(const tk_format *f, tk_input *in, const tk_options *o,
                         const char *target, const char *source, const char *dir,
                         tk_error *err)
{
    if (!f->convert_dir || !tk_format_target_is_dir(f, target))
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "%s cannot be converted to a directory as '%s'", f->name, target);
    if (check(f, in, o, err) != TK_OK)
        return err->status;
    return f->convert_dir(in, o, target, source, dir, err);
}
