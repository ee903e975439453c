/* Helpers shared by the cache simulator tests (simtest.h). */
#include <string.h>

#include "simtest.h"

tk_cachesim_config st_config(const char *const *specs, int write_back,
                             int write_allocate, int inclusive, unsigned flags)
{
    tk_cachesim_config c;
    tk_error err;
    tk_cachesim_config_init(&c);
    for (; *specs; specs++)
        if (tk_cachesim_config_add_level(&c, *specs, &err) != TK_OK)
            fail_msg("%s: %s", *specs, err.message);
    for (size_t k = 0; k < c.nlevels; k++) {
        c.levels[k].write_back = write_back;
        c.levels[k].write_allocate = write_allocate;
        c.levels[k].inclusive = inclusive;
    }
    c.flags = flags;
    return c;
}

tk_cachesim *st_new(const tk_cachesim_config *c)
{
    tk_error err;
    tk_cachesim *s = tk_cachesim_new(c, &err);
    if (!s)
        fail_msg("tk_cachesim_new: %s", err.message);
    return s;
}

static void feed(tk_cachesim *s, const tk_cacheray_record *rec)
{
    tk_error err;
    if (tk_cachesim_feed(s, rec, &err) != TK_OK)
        fail_msg("tk_cachesim_feed: %s", err.message);
}

void st_access(tk_cachesim *s, uint64_t addr, unsigned size, int write, uint64_t thread)
{
    tk_cacheray_record rec = {.type = write ? TK_CACHERAY_WRITE : TK_CACHERAY_READ, .addr = addr,
                              .size = (uint8_t)size, .thread = thread};
    feed(s, &rec);
}

void st_read(tk_cachesim *s, uint64_t addr, unsigned size) { st_access(s, addr, size, 0, 0); }
void st_write(tk_cachesim *s, uint64_t addr, unsigned size) { st_access(s, addr, size, 1, 0); }

void st_add(tk_cachesim *s, uint64_t addr, uint32_t elemsize, uint32_t elemcount,
            const char *type)
{
    tk_cacheray_record rec = {.type = TK_CACHERAY_RTTA_ADD, .addr = addr, .elemsize = elemsize,
                              .elemcount = elemcount, .type_name = type,
                              .typename_len = (uint32_t)strlen(type)};
    feed(s, &rec);
}

void st_remove(tk_cachesim *s, uint64_t addr)
{
    tk_cacheray_record rec = {.type = TK_CACHERAY_RTTA_REMOVE, .addr = addr};
    feed(s, &rec);
}

#define EXPECT(field)                                                          \
    if (got->field != want->field)                                             \
    fail_msg("%s: " #field " is %llu, expected %llu", what,                    \
             (unsigned long long)got->field, (unsigned long long)want->field)

void st_expect_stats(const char *what, const tk_cachesim_level_stats *got,
                     const tk_cachesim_level_stats *want)
{
    EXPECT(reads);
    EXPECT(writes);
    EXPECT(read_misses);
    EXPECT(write_misses);
    EXPECT(compulsory);
    EXPECT(capacity);
    EXPECT(conflict);
    EXPECT(writebacks);
    EXPECT(invalidations);
}

void st_expect_level(const tk_cachesim *s, size_t k, st_level w)
{
    tk_cachesim_level_stats got, want = {w.reads, w.writes, w.read_misses, w.write_misses,
                                         w.compulsory, w.capacity, w.conflict,
                                         w.writebacks, w.invalidations};
    char what[64];
    snprintf(what, sizeof what, "level %zu (%s)", k, tk_cachesim_level_config(s, k)->name);
    tk_cachesim_get_level(s, k, &got);
    st_expect_stats(what, &got, &want);
}

void st_type(const tk_cachesim *s, const char *name, tk_cachesim_type *out)
{
    for (size_t i = 0; i < tk_cachesim_types(s); i++) {
        tk_cachesim_get_type(s, i, out);
        if (strcmp(out->name, name) == 0)
            return;
    }
    fail_msg("no type %s", name);
}

const tk_cachesim_field *st_field(const tk_cachesim_type *t, const char *name)
{
    for (size_t i = 0; i < t->nfields; i++)
        if (strcmp(t->fields[i].name, name) == 0)
            return &t->fields[i];
    fail_msg("%s has no field %s", t->name, name);
    return NULL;
}
