/* The selection options on the command line (selection.h). */
#include "selection.h"

static const char *const select_keys[] = {"thread", "range", "addr", "func"};

int cli_select_option(cli *c, int opt, const char *arg)
{
    if (opt < OPT_THREAD || opt > OPT_FUNC)
        return 0;
    const char *key = select_keys[opt - OPT_THREAD];
    tk_error err;
    tk_error_clear(&err);
    if (tk_selection_check(key, arg, &err) != TK_OK) {
        cli_usage_error(c->command, "%s", err.message);
        return -1;
    }
    return cli_set(c, key, arg) == EXIT_OK ? 1 : -1;
}

tk_xray_reader *cli_xray_reader(cli *c, tk_error *err)
{
    tk_selection *sel = tk_selection_new(c->opts, err);
    if (!sel)
        return NULL;
    const char *map_path = tk_options_get(c->opts, "instr-map");
    const char *demangle = tk_options_get(c->opts, "demangle");
    tk_xray_map *map = NULL;
    tk_xray_reader *r = NULL;
    /* a --func name is looked up in -m's map (its errors name the map) */
    if (tk_options_get(c->opts, "func") && map_path) {
        map = tk_xray_map_open(map_path, err);
        if (map && demangle && demangle[0] == '0')
            tk_xray_map_set_demangle(map, 0);
    }
    if (map || !map_path || !tk_options_get(c->opts, "func"))
        r = tk_xray_reader_new_selected(c->in, sel, map, err);
    tk_xray_map_free(map);
    tk_selection_free(sel);
    return r;
}

int cli_refuse_selection(cli *c, int rc, const char *why)
{
    static const char *const names[] = {"--thread", "--range", "--addr", "--func"};
    for (size_t k = 0; rc < 0 && k < sizeof names / sizeof names[0]; k++)
        if (tk_options_get(c->opts, select_keys[k]))
            return cli_usage_error(c->command, "%s does not apply: %s", names[k], why);
    return rc;
}
