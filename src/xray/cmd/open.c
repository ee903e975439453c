/* What XRay's commands share: the reader with the selection, the map. */
#include <string.h>

#include "xray/cmd/cmd.h"

/* A reader on c->in with the selection of c->opts (a --func name is
 * looked up in -m's map, whose errors name the map). NULL with err set. */
static tk_xray_reader *selected_reader(tk_command_ctx *c, tk_error *err)
{
    tk_selection *sel = tk_selection_new(c->opts, err);
    if (!sel)
        return NULL;
    const char *map_path = tk_options_get(c->opts, "instr-map");
    const char *func = tk_options_get(c->opts, "func");
    const char *demangle = tk_options_get(c->opts, "demangle");
    tk_xray_map *map = NULL;
    tk_xray_reader *r = NULL;
    if (func && map_path) {
        map = tk_xray_map_open(map_path, err);
        if (map && demangle && demangle[0] == '0')
            tk_xray_map_set_demangle(map, 0);
    }
    if (map || !map_path || !func)
        r = tk_xray_reader_new_selected(c->in, sel, map, err);
    tk_xray_map_free(map);
    tk_selection_free(sel);
    return r;
}

int tk_xray_cmd_open(tk_command_ctx *c, int rc, tk_xray_reader **r)
{
    *r = NULL;
    if (rc >= 0)
        return rc;
    if ((rc = c->host->open(c)) != TK_EXIT_OK)
        return rc;
    tk_error err;
    tk_error_clear(&err);
    if (!(*r = selected_reader(c, &err)))
        return c->host->report(c, c->path, &err);
    return TK_EXIT_OK;
}

tk_xray_map *tk_xray_cmd_map(tk_command_ctx *c, int *rc)
{
    const char *path = tk_options_get(c->opts, "instr-map");
    tk_error err;
    tk_error_clear(&err);
    *rc = TK_EXIT_OK;
    if (!path)
        return NULL;
    tk_xray_map *m = tk_xray_map_open(path, &err);
    if (!m) {
        *rc = c->host->report(c, path, &err);
        return NULL;
    }
    const char *d = tk_options_get(c->opts, "demangle");
    if (d && strcmp(d, "0") == 0)
        tk_xray_map_set_demangle(m, 0);
    return m;
}

int tk_xray_cmd_feed(tk_command_ctx *c, tk_xray_reader *r, int keep_going,
                     const tk_xray_cmd_sink *s)
{
    tk_error err;
    tk_error_clear(&err);
    tk_xray_record rec;
    int got;
    uint64_t failures = 0;
    while ((got = tk_xray_next(r, &rec, &err)) > 0) {
        int f = s->add(s->analysis, &rec, &err);
        if (f < 0 && err.offset == TK_NO_OFFSET) { /* out of memory: the record that asked */
            err.offset = tk_xray_reader_offset(r);
            err.record = tk_xray_reader_index(r);
        }
        if (f < 0)
            return c->host->report(c, err.offset == TK_NO_OFFSET ? NULL : c->path, &err);
        if (f == 0)
            continue;
        failures++;
        if (!keep_going || failures <= 20)
            s->describe(c, s->ctx, r, &rec, f, keep_going);
        if (!keep_going)
            return TK_EXIT_FAILED;
    }
    if (got < 0)
        return c->host->report(c, c->path, &err);
    if (failures > 20)
        tk_cmd_note(c, "%s: warning: %llu records could not be %s", c->path,
                    (unsigned long long)failures, s->verb);
    return -1;
}
