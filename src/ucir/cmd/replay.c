/* tracekit replay: the machine state of a Usercorn trace at any
 * instruction (seeking through a cached checkpoint index), memory
 * contents, and the history of a memory range or a register. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ucir/cmd/cmd.h"

#define MAX_MEM 16

/* The arguments, from c->opts. */
typedef struct replay_args {
    int have_at;
    uint64_t at;
    tk_ucir_range mem[MAX_MEM];
    size_t nmem;
    int have_history;
    tk_ucir_range history;
    const char *reg;
    const char *index;
    int no_index;
    uint64_t interval;
    int seek_threads; /* threads=1 was set for the seek, not by the user */
} replay_args;

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    if (!*s || *s == '-')
        return -1;
    *v = strtoull(s, &end, 0);
    return *end ? -1 : 0;
}

/* ADDR[:LEN] (ADDR:LEN when need_len); -1 when it does not parse. */
static int parse_range(const char *arg, int need_len, tk_ucir_range *r)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", arg);
    char *colon = strchr(buf, ':');
    if (colon)
        *colon = '\0';
    r->len = 1;
    if (parse_u64(buf, &r->addr) != 0 || (colon && parse_u64(colon + 1, &r->len) != 0) ||
        (need_len && !colon) || r->len == 0 || r->len > ((uint64_t)1 << 30))
        return -1;
    return 0;
}

static tk_status bad_range(const tk_option *opt, int need_len, const char *value,
                           tk_error *err)
{
    return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                        "--%s takes ADDR%s (numbers, 0x for hex; LEN 1..1G), not '%s'",
                        opt->name, need_len ? ":LEN" : "[:LEN]", value);
}

static tk_status parse_at(tk_options *o, const tk_option *opt, const char *value, tk_error *err)
{
    uint64_t v;
    if (parse_u64(value, &v) != 0)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--at takes an instruction number, not '%s'", value);
    return tk_options_set(o, tk_opt_key(opt), value, err);
}

static tk_status parse_mem(tk_options *o, const tk_option *opt, const char *value, tk_error *err)
{
    size_t n = 0;
    for (size_t i = 0; i < tk_options_count(o); i++)
        n += strcmp(tk_options_key(o, i), tk_opt_key(opt)) == 0;
    if (n == MAX_MEM)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "at most %d --mem ranges", MAX_MEM);
    tk_ucir_range r;
    if (parse_range(value, 1, &r) != 0)
        return bad_range(opt, 1, value, err);
    return tk_options_add(o, tk_opt_key(opt), value, err);
}

static tk_status parse_history(tk_options *o, const tk_option *opt, const char *value,
                               tk_error *err)
{
    tk_ucir_range r;
    if (parse_range(value, 0, &r) != 0)
        return bad_range(opt, 0, value, err);
    return tk_options_set(o, tk_opt_key(opt), value, err);
}

static void read_args(const tk_command_ctx *c, replay_args *a)
{
    memset(a, 0, sizeof *a);
    const char *at = tk_options_get(c->opts, "at");
    const char *history = tk_options_get(c->opts, "history");
    a->have_at = at && parse_u64(at, &a->at) == 0; /* checked when parsed */
    a->have_history = history && parse_range(history, 0, &a->history) == 0;
    for (size_t i = 0; i < tk_options_count(c->opts) && a->nmem < MAX_MEM; i++)
        if (strcmp(tk_options_key(c->opts, i), "mem") == 0)
            parse_range(tk_options_value(c->opts, i), 1, &a->mem[a->nmem++]);
    a->reg = tk_options_get(c->opts, "reg");
    a->index = tk_options_get(c->opts, "index");
    a->no_index = tk_cmd_flag(c, "no-index");
    tk_options_get_u64(c->opts, "interval", 0, &a->interval, NULL); /* checked when parsed */
}

/* The options that do not go together; -1 when they all do. */
static int check_args(tk_command_ctx *c, const replay_args *a)
{
    int rc = tk_cmd_refuse_selection(c, -1, "replay selects with --at and --history");
    /* a history covers the whole trace, the state one instruction */
    rc = tk_cmd_exclusive(c, rc, a->have_at && a->have_history, "--at", "--history");
    rc = tk_cmd_exclusive(c, rc, a->have_at && a->reg, "--at", "--reg");
    rc = tk_cmd_exclusive(c, rc, a->nmem && (a->have_history || a->reg), "--mem",
                          a->have_history ? "--history" : "--reg");
    rc = tk_cmd_exclusive(c, rc, a->no_index && a->index, "--no-index", "--index");
    return tk_cmd_exclusive(c, rc, a->no_index && a->interval, "--no-index", "--interval");
}

/* all_cores: ignore the one-thread default of seeks (index building
 * reads the whole trace) */
static tk_ucir_reader *open_reader(tk_command_ctx *c, const replay_args *a, tk_input *in,
                                   int all_cores, tk_error *err)
{
    tk_ucir_reader_options ro = {0, 0};
    uint64_t threads = 0;
    if (!(all_cores && a->seek_threads) &&
        tk_options_get_u64(c->opts, "threads", 0, &threads, err) != TK_OK)
        return NULL;
    ro.threads = threads > 1024 ? 1024 : (unsigned)threads;
    return tk_ucir_reader_new(in, &ro, err);
}

static int reg_number(const tk_ucir_header *h, const char *name, uint32_t *num)
{
    uint64_t v;
    if (strncasecmp(name, "reg", 3) == 0 && parse_u64(name + 3, &v) == 0 && v < 65536) {
        *num = (uint32_t)v;
        return 0;
    }
    for (uint32_t i = 0; i < 65536; i++) {
        const char *n = tk_ucir_reg_name(h->arch, h->mode, i);
        if (n && strcasecmp(n, name) == 0) {
            *num = i;
            return 0;
        }
    }
    return -1;
}

/* Open (building it first if missing or stale) the checkpoint index of
 * c->path; NULL when the trace cannot have one (a note is printed when
 * an index was wanted but cannot be made). */
static tk_ucir_index *open_index(tk_command_ctx *c, const replay_args *a, tk_error *err)
{
    char def[4096];
    const char *path = a->index;
    tk_error e;
    tk_error_clear(&e);
    if (!path && tk_ucir_index_default_path(c->path, def, sizeof def, &e) != TK_OK)
        return NULL; /* no cache directory: replay without an index */
    path = path ? path : def;
    tk_ucir_index *ix = tk_ucir_index_open(path, c->path, &e);
    if (ix)
        return ix;
    tk_error_clear(&e);
    tk_input *in = tk_input_open(c->path, &e);
    if (in) /* the index covers what the replay reads */
        tk_input_set_allow_truncated(in, tk_input_allows_truncated(c->in));
    tk_ucir_reader *r = in ? open_reader(c, a, in, 1, &e) : NULL;
    tk_ucir_index_options o = {a->interval};
    tk_status st = r ? tk_ucir_index_build(r, c->path, path, &o, &e) : e.status;
    tk_ucir_reader_free(r);
    tk_input_close(in);
    /* the trace itself, or the index --index names (a cache of our own
     * choosing that cannot be written is only noted) */
    if (st == TK_EMALFORMED || (a->index && (st == TK_EIO || st == TK_ENOMEM))) {
        *err = e;
        return NULL;
    }
    if (st != TK_OK) {
        tk_cmd_note(c, "replay: note: no checkpoint index (%s%s%s); replaying from the start",
                    e.file, e.file[0] ? ": " : "", e.message);
        return NULL;
    }
    tk_error_clear(&e);
    ix = tk_ucir_index_open(path, c->path, &e);
    if (!ix)
        tk_cmd_note(c, "replay: note: %s; replaying from the start", e.message);
    return ix;
}

/* What run_state and history left: done, or failed with `err` (reported
 * after what was written is flushed); other values are exit statuses of
 * problems reported already. */
enum { DONE = -1, FAILED = -2 };

/* The state at --at (seeking through the index) or at the end, into `s`. */
static int run_state(tk_command_ctx *c, const replay_args *a, tk_ucir_reader *r,
                     tk_ucir_replay *rp, tk_sink *s, tk_error *err)
{
    const tk_ucir_header *h = tk_ucir_reader_header(r);
    tk_ucir_index *ix = NULL;
    int seekable = a->have_at && !a->no_index && strcmp(c->file, "-") != 0 &&
                   h->variant == TK_UCIR_SPEC;
    if (seekable && !(ix = open_index(c, a, err)) && err->status != TK_OK)
        return c->host->report(c, c->path, err);
    /* the index stays open: pages are read from it after the seek */
    tk_status st = ix ? tk_ucir_replay_seek(rp, r, ix, a->at, err) : TK_OK;
    int got = 0, rc = DONE;
    if (st == TK_OK) {
        got = a->have_at ? tk_ucir_replay_run_to(rp, r, a->at, err)
                         : tk_ucir_replay_run_all(rp, r, err);
        st = got < 0 ? err->status : TK_OK;
    }
    if (st == TK_OK && a->have_at && got == 0) {
        tk_ucir_replay_info in;
        tk_ucir_replay_info_get(rp, &in);
        rc = tk_cmd_usage(c, "--at %llu: %s has %llu instructions",
                          (unsigned long long)a->at, c->path,
                          (unsigned long long)in.instructions);
    } else if (st == TK_OK) {
        st = tk_ucir_print_state(c, rp, h, a->mem, a->nmem, s, err);
    }
    tk_ucir_index_close(ix);
    return rc != DONE ? rc : st == TK_OK ? DONE : FAILED;
}

/* The reader, the replay and the sink; the state or the history. */
static int replay(tk_command_ctx *c, replay_args *a)
{
    tk_error err;
    tk_error_clear(&err);
    tk_ucir_reader *r = open_reader(c, a, c->in, 0, &err);
    if (!r)
        return c->host->report(c, c->path, &err);
    const tk_ucir_header *h = tk_ucir_reader_header(r);
    uint32_t reg = 0;
    tk_ucir_replay *rp = NULL;
    tk_sink *s = NULL;
    int rc;
    if (a->reg && reg_number(h, a->reg, &reg) != 0) {
        const char *arch = tk_ucir_arch_name(h->arch);
        rc = tk_cmd_usage(c, "no register '%s' on %s", a->reg, arch ? arch : "this architecture");
    } else if (!(rp = tk_ucir_replay_new(h, &err)) || !(s = c->host->sink(c))) {
        rc = rp ? TK_EXIT_TROUBLE : c->host->report(c, NULL, &err); /* sink() printed */
    } else if (a->have_history || a->reg) {
        rc = tk_ucir_print_history(c, r, rp, a->have_history ? &a->history : NULL,
                                   a->reg != NULL, reg, s, &err) == TK_OK ? DONE : FAILED;
    } else {
        rc = run_state(c, a, r, rp, s, &err);
    }
    if (s) { /* what was written goes out, also before an error */
        int out = c->host->finish(c, s);
        rc = rc == DONE ? out : rc == FAILED ? c->host->report(c, c->path, &err) : rc;
        tk_sink_free(s);
    }
    tk_ucir_replay_free(rp);
    tk_ucir_reader_free(r);
    return rc;
}

static int run(tk_command_ctx *c)
{
    replay_args a;
    read_args(c, &a);
    int rc = check_args(c, &a);
    if (rc >= 0 || (rc = c->host->open(c)) != TK_EXIT_OK)
        return rc;
    /* a seek replays about one checkpoint interval: frames decoded ahead
     * by more threads would be wasted */
    if (a.have_at && !a.no_index && !tk_options_get(c->opts, "threads")) {
        tk_error err;
        if (tk_options_set(c->opts, "threads", "1", &err) != TK_OK)
            return c->host->report(c, NULL, &err);
        a.seek_threads = 1;
    }
    return replay(c, &a);
}

static const tk_option options[] = {
    {.name = "at", .letter = 'a', .value = "N", .parse = parse_at,
     .help = "the state after instruction N"},
    {.name = "mem", .letter = 'M', .value = "ADDR:LEN", .parse = parse_mem,
     .flags = TK_OPTION_REPEAT,
     .help = "also hexdump memory there (?? = no value known; repeatable)"},
    {.name = "history", .letter = 'H', .value = "ADDR[:LEN]", .parse = parse_history,
     .help = "list every read and write touching the range (LEN default 1) with "
             "instruction and values"},
    {.name = "reg", .letter = 'r', .value = "NAME",
     .help = "list every change of register NAME (rax, x0, sp, reg<N>)"},
    {.name = "index", .value = "PATH",
     .help = "checkpoint index file (default: a cache file in $XDG_CACHE_HOME/tracekit or "
             "~/.cache/tracekit, built on the first --at and reused)"},
    {.name = "no-index", .help = "replay from the start instead of seeking"},
    {.name = "interval", .value = "SIZE", .parse = tk_opt_size,
     .help = "inflated bytes between checkpoints when building the index (default 2M)"},
    /* listed so that getopt does not read --thread as --threads */
    {.name = "thread", .value = "LIST", .parse = tk_opt_select, .flags = TK_OPTION_HIDDEN},
    {.name = "range", .value = "FROM:TO", .parse = tk_opt_select, .flags = TK_OPTION_HIDDEN},
    {.name = "addr", .value = "LIST", .parse = tk_opt_select, .flags = TK_OPTION_HIDDEN},
    {.name = "func", .value = "NAME", .parse = tk_opt_select, .flags = TK_OPTION_HIDDEN},
    {.name = "json", .flags = TK_OPTION_SHARED,
     .help = "one JSON object (history: one per line)"},
    {0}};

const tk_command tk_ucir_cmd_replay = {
    .name = "replay",
    .summary = "UCIR: machine state at any instruction; memory and register history",
    .synopsis = "[OPTIONS] FILE",
    .help = "Replay a Usercorn trace (UCIR) and print the machine state: the current\n"
            "instruction and its address, the registers, the memory map. Instruction\n"
            "0 is the first one executed; the state of instruction N includes its\n"
            "effects. Without --at: the state at the end of the trace. --at and\n"
            "--history select; --range, --addr, --thread and --func do not apply.\n",
    .needs = ": replay reads Usercorn (ucir) traces",
    .options = options,
    .run = run,
};
