/* Cache hierarchy configurations: --level specs, tracekit's JSON format and
 * the original simulator's ({"caches": [...]}, log2 sizes), and the checks
 * every level must pass. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "cacheray/sim/sim_int.h"

#define MAX_LINE (1u << 20)
#define MAX_LINES (1ULL << 31) /* slot indices are 32-bit */

static const char *const policy_names[] = {"lru", "fifo", "plru", "random"};

const char *tk_cachesim_policy_name(tk_cachesim_policy p)
{
    return (unsigned)p < 4 ? policy_names[p] : "unknown";
}

void tk_cachesim_config_init(tk_cachesim_config *c)
{
    memset(c, 0, sizeof *c);
    c->seed = 1;
}

static void set_level(tk_cachesim_level *l, const char *name, uint64_t size,
                      uint32_t ways, uint32_t line, tk_cachesim_policy policy)
{
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", name);
    l->size = size;
    l->ways = ways;
    l->line = line;
    l->policy = policy;
    l->write_back = 1;
    l->write_allocate = 1;
}

void tk_cachesim_config_default(tk_cachesim_config *c)
{
    c->nlevels = 2;
    set_level(&c->levels[0], "L1", 32 << 10, 8, 64, TK_CACHESIM_LRU);
    set_level(&c->levels[1], "L2", 1 << 20, 16, 64, TK_CACHESIM_LRU);
}

static int is_pow2(uint64_t v) { return v && (v & (v - 1)) == 0; }

/* What is wrong with a level, or NULL. */
static const char *level_problem(const tk_cachesim_level *l)
{
    if (!l->name[0])
        return "the name is empty";
    if (!is_pow2(l->line) || l->line < 4 || l->line > MAX_LINE)
        return "the line size must be a power of two from 4 to 1M";
    if (!l->size || l->size % l->line)
        return "the size must be a nonzero multiple of the line size";
    uint64_t lines = l->size / l->line;
    if (lines > MAX_LINES)
        return "more than 2^31 lines";
    if (l->ways && lines % l->ways)
        return "the size must be a multiple of line size x ways";
    if (l->policy == TK_CACHESIM_PLRU && !is_pow2(l->ways ? l->ways : lines))
        return "plru needs a power-of-two number of ways";
    if ((unsigned)l->policy > TK_CACHESIM_RANDOM)
        return "unknown replacement policy";
    return NULL;
}

tk_status tk_cachesim_config_check(const tk_cachesim_config *c, tk_error *err)
{
    if (c->nlevels < 1 || c->nlevels > TK_CACHESIM_MAX_LEVELS)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "a hierarchy has 1 to %d levels, not %zu",
                            TK_CACHESIM_MAX_LEVELS, c->nlevels);
    for (size_t i = 0; i < c->nlevels; i++) {
        const char *why = level_problem(&c->levels[i]);
        if (why)
            return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                                "level %zu (%s): %s", i + 1, c->levels[i].name, why);
    }
    return TK_OK;
}

/* "32K", "1M", "64", "2GiB", "16kb": bytes. 0 on success. */
static int parse_size(const char *s, uint64_t *out)
{
    if (!isdigit((unsigned char)*s))
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    }
    if (shift && (strcasecmp(end, "B") == 0 || strcasecmp(end, "iB") == 0))
        end += strlen(end);
    if (errno || *end || v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

static int parse_policy(const char *s, tk_cachesim_policy *out)
{
    for (unsigned p = 0; p < 4; p++)
        if (strcasecmp(s, policy_names[p]) == 0) {
            *out = (tk_cachesim_policy)p;
            return 0;
        }
    return -1;
}

static int parse_ways(const char *s, uint32_t *out)
{
    uint64_t v;
    if (strcasecmp(s, "full") == 0) {
        *out = 0;
        return 0;
    }
    if (!isdigit((unsigned char)*s) || parse_size(s, &v) != 0 || v == 0 || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* Append a checked level; `where` names it in messages. */
static tk_status add_level(tk_cachesim_config *c, const tk_cachesim_level *l,
                           const char *where, tk_error *err)
{
    const char *why = level_problem(l);
    if (!why && c->nlevels == TK_CACHESIM_MAX_LEVELS)
        why = "too many levels (at most 8)";
    if (why)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD, "%s: %s", where, why);
    c->levels[c->nlevels++] = *l;
    return TK_OK;
}

tk_status tk_cachesim_config_add_level(tk_cachesim_config *c, const char *spec,
                                       tk_error *err)
{
    char buf[256], *part[6];
    int n = 0;
    if (strlen(spec) >= sizeof buf)
        goto bad;
    strcpy(buf, spec);
    for (char *p = buf, *colon; n < 6; p = colon + 1) {
        part[n++] = p;
        if (!(colon = strchr(p, ':')))
            break;
        *colon = '\0';
    }
    tk_cachesim_level l;
    uint64_t size, line;
    uint32_t ways;
    tk_cachesim_policy policy = TK_CACHESIM_LRU;
    if (n < 4 || n > 5 || !part[0][0] || strlen(part[0]) >= TK_CACHESIM_NAME_MAX)
        goto bad;
    if (parse_size(part[1], &size) != 0)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--level '%s': bad size '%s'", spec, part[1]);
    if (parse_ways(part[2], &ways) != 0)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--level '%s': ways must be a number or 'full', not '%s'",
                            spec, part[2]);
    if (parse_size(part[3], &line) != 0 || line > MAX_LINE)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--level '%s': bad line size '%s'", spec, part[3]);
    if (n == 5 && parse_policy(part[4], &policy) != 0)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--level '%s': policy must be lru, fifo, plru or random, not '%s'",
                            spec, part[4]);
    set_level(&l, part[0], size, ways, (uint32_t)line, policy);
    char where[300];
    snprintf(where, sizeof where, "--level '%s'", spec);
    return add_level(c, &l, where, err);
bad:
    return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                        "--level '%s': expected NAME:SIZE:WAYS:LINE[:POLICY], e.g. "
                        "L1:32K:8:64:lru",
                        spec);
}

/* ---- JSON */

typedef struct jctx {
    tk_error *err;
} jctx;

static tk_status jerr(jctx *j, const char *fmt, const char *a, const char *b)
{
    return tk_error_set(j->err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD, fmt, a, b);
}

/* A byte count: a number or a string like "32K". */
static int json_size(json_t *v, uint64_t *out)
{
    if (json_is_integer(v) && json_integer_value(v) > 0) {
        *out = (uint64_t)json_integer_value(v);
        return 0;
    }
    return json_is_string(v) ? parse_size(json_string_value(v), out) : -1;
}

static int json_flag(json_t *v, int *out)
{
    if (!json_is_boolean(v))
        return -1;
    *out = json_is_true(v);
    return 0;
}

/* tracekit's format: {"levels": [{"name", "size", "ways", "line_size",
 * "policy", "write_back", "write_allocate", "inclusive"}], "seed"}: the
 * names cachesim --json writes ("line", the 0.1 name, is read too). */
static tk_status parse_levels(tk_cachesim_config *c, json_t *root, jctx *j)
{
    json_t *levels = json_object_get(root, "levels"), *v;
    const char *key;
    json_object_foreach(root, key, v) {
        if (strcmp(key, "levels") && strcmp(key, "seed"))
            return jerr(j, "unknown key '%s'%s", key, "");
    }
    if ((v = json_object_get(root, "seed"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return jerr(j, "%s%s", "\"seed\" must be a non-negative integer", "");
        c->seed = (uint64_t)json_integer_value(v);
    }
    if (!json_is_array(levels) || json_array_size(levels) == 0)
        return jerr(j, "%s%s", "\"levels\" must be a non-empty array", "");
    size_t i;
    json_t *lv;
    json_array_foreach(levels, i, lv) {
        char where[32];
        snprintf(where, sizeof where, "levels[%zu]", i);
        if (!json_is_object(lv))
            return jerr(j, "%s: %s", where, "not an object");
        tk_cachesim_level l;
        set_level(&l, "", 0, 0, 0, TK_CACHESIM_LRU);
        snprintf(l.name, sizeof l.name, "L%zu", i + 1);
        json_object_foreach(lv, key, v) {
            uint64_t n = 0;
            int bad = 0;
            if (!strcmp(key, "name")) {
                bad = !json_is_string(v) || json_string_length(v) == 0 ||
                      json_string_length(v) >= TK_CACHESIM_NAME_MAX;
                if (!bad)
                    snprintf(l.name, sizeof l.name, "%s", json_string_value(v));
            } else if (!strcmp(key, "size")) {
                bad = json_size(v, &l.size) != 0;
            } else if (!strcmp(key, "line_size") || !strcmp(key, "line")) {
                bad = json_size(v, &n) != 0 || n > MAX_LINE;
                l.line = (uint32_t)n;
            } else if (!strcmp(key, "ways")) {
                if (json_is_integer(v)) {
                    bad = json_integer_value(v) < 0 || json_integer_value(v) > UINT32_MAX;
                    l.ways = (uint32_t)json_integer_value(v); /* 0: full */
                } else {
                    bad = !json_is_string(v) || parse_ways(json_string_value(v), &l.ways) != 0;
                }
            } else if (!strcmp(key, "policy")) {
                bad = !json_is_string(v) || parse_policy(json_string_value(v), &l.policy) != 0;
            } else if (!strcmp(key, "write_back")) {
                bad = json_flag(v, &l.write_back) != 0;
            } else if (!strcmp(key, "write_allocate")) {
                bad = json_flag(v, &l.write_allocate) != 0;
            } else if (!strcmp(key, "inclusive")) {
                bad = json_flag(v, &l.inclusive) != 0;
            } else {
                return jerr(j, "%s: unknown key '%s'", where, key);
            }
            if (bad)
                return jerr(j, "%s: bad value for \"%s\"", where, key);
        }
        if (!l.size || !l.line)
            return jerr(j, "%s: %s", where, "\"size\" and \"line\" are required");
        tk_status st = add_level(c, &l, where, j->err);
        if (st != TK_OK)
            return st;
    }
    return TK_OK;
}

static int json_int(json_t *o, const char *key, long long lo, long long hi, long long *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return -1;
    *out = json_integer_value(v);
    return 0;
}

/* The original simulator's format: {"caches": [{"name", "cache_size" and
 * "block_size" (log2 bytes), "set_assoc" (0 full, 1 direct-mapped, N),
 * "rep_policy" (0 LRU, 1 FIFO, 2 LIFO, 3 FILO, 4 RANDOM), "write_policy"
 * (ignored, as the original does)}]}. */
static tk_status parse_caches(tk_cachesim_config *c, json_t *caches, jctx *j)
{
    static const char *const rep[] = {"LIFO", "FILO"};
    if (!json_is_array(caches) || json_array_size(caches) == 0)
        return jerr(j, "%s%s", "\"caches\" must be a non-empty array", "");
    size_t i;
    json_t *cv;
    json_array_foreach(caches, i, cv) {
        char where[32];
        snprintf(where, sizeof where, "caches[%zu]", i);
        long long size, block, assoc, policy;
        json_t *name = json_object_get(cv, "name");
        if (!json_is_object(cv))
            return jerr(j, "%s: %s", where, "not an object");
        if (json_int(cv, "cache_size", 2, 40, &size) || json_int(cv, "block_size", 2, 20, &block))
            return jerr(j, "%s: %s", where,
                        "\"cache_size\" and \"block_size\" must be log2 of the bytes (2-40, 2-20)");
        if (json_int(cv, "set_assoc", 0, UINT32_MAX, &assoc))
            return jerr(j, "%s: %s", where, "\"set_assoc\" must be 0 (full), 1 or N ways");
        if (json_int(cv, "rep_policy", 0, 4, &policy))
            return jerr(j, "%s: %s", where,
                        "\"rep_policy\" must be 0 (LRU), 1 (FIFO) or 4 (RANDOM)");
        if (policy == 2 || policy == 3)
            return jerr(j, "%s: rep_policy %s is not supported (the original simulator "
                           "fails on it too)", where, rep[policy - 2]);
        tk_cachesim_level l;
        char dflt[TK_CACHESIM_NAME_MAX];
        snprintf(dflt, sizeof dflt, "L%zu", i + 1);
        set_level(&l, json_is_string(name) && json_string_length(name) ? json_string_value(name)
                                                                         : dflt,
                  1ULL << size, (uint32_t)assoc, 1u << block,
                  policy == 0 ? TK_CACHESIM_LRU : policy == 1 ? TK_CACHESIM_FIFO
                                                              : TK_CACHESIM_RANDOM);
        tk_status st = add_level(c, &l, where, j->err);
        if (st != TK_OK)
            return st;
    }
    return TK_OK;
}

tk_status tk_cachesim_config_parse(tk_cachesim_config *c, const char *json,
                                   size_t len, tk_error *err)
{
    json_error_t je;
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
    jctx j = {err};
    tk_status st;
    size_t saved = c->nlevels;
    c->nlevels = 0;
    if (!root)
        st = tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                          "line %d column %d: %s", je.line, je.column, je.text);
    else if (!json_is_object(root))
        st = jerr(&j, "%s%s", "a cache configuration is a JSON object", "");
    else if (json_object_get(root, "caches"))
        st = parse_caches(c, json_object_get(root, "caches"), &j);
    else
        st = parse_levels(c, root, &j);
    json_decref(root);
    if (st != TK_OK)
        c->nlevels = saved;
    return st;
}

tk_status tk_cachesim_config_load(tk_cachesim_config *c, const char *path,
                                  tk_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "cannot open: %s",
                            strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    do {
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            char *nb = cap <= (1u << 24) ? realloc(buf, cap) : NULL;
            if (!nb) {
                free(buf);
                fclose(f);
                return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                                    "too large for a cache configuration");
            }
            buf = nb;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
    } while (n > 0);
    int bad = ferror(f);
    fclose(f);
    tk_status st = bad ? tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "read error")
                       : tk_cachesim_config_parse(c, buf, len, err);
    free(buf);
    return st;
}
