/* Selections on casemate logs (docs/formats/casemate.md, "Selection"). */
#include "casemate/casemate_int.h"
#include "core/select.h"

/* The memory a record names: an 8-byte word for reads, writes, locks and
 * hints, `size` bytes for init, free and set; nothing for the others
 * (barriers, TLBIs, system registers). */
static int location_selected(const tk_selection *s, const tk_casemate_record *r)
{
    switch (r->kind) {
    case TK_CASEMATE_MEM_WRITE:
    case TK_CASEMATE_MEM_READ:
    case TK_CASEMATE_LOCK:
    case TK_CASEMATE_TRYLOCK:
    case TK_CASEMATE_UNLOCK:
        return tk_sel_addr(s, r->address, 8);
    case TK_CASEMATE_MEM_INIT:
    case TK_CASEMATE_MEM_FREE:
    case TK_CASEMATE_MEM_SET:
        return tk_sel_addr(s, r->address, r->size);
    case TK_CASEMATE_HINT:
        return tk_sel_addr(s, r->location, 8);
    default:
        return 0;
    }
}

int tk_casemate_selected(const tk_selection *s, const tk_casemate_record *rec)
{
    return tk_sel_in_range(s, rec->id) && tk_sel_thread(s, rec->tid) &&
           (!s->naddrs || location_selected(s, rec));
}

tk_casemate_reader *tk_casemate_open(tk_input *in, const tk_options *o, tk_error *err)
{
    tk_selection *sel = tk_selection_new(o, err);
    tk_casemate_reader *r = sel ? tk_casemate_reader_new(in, err) : NULL;
    if (r && tk_casemate_reader_select(r, sel, err) != TK_OK) {
        tk_casemate_reader_free(r);
        r = NULL;
    }
    tk_selection_free(sel);
    return r;
}
