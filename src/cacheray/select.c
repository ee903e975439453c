/* Selections on Cacheray traces (docs/formats/cacheray.md, "Selection"). */
#include "cacheray/cacheray_int.h"
#include "core/select.h"

/* The bytes a record is about, against --addr. */
static int addr_selected(const tk_selection *s, const tk_cacheray_record *rec)
{
    if (!s->naddrs)
        return 1;
    switch (rec->type) {
    case TK_CACHERAY_READ:
    case TK_CACHERAY_WRITE:
        return tk_sel_addr(s, rec->addr, rec->size);
    case TK_CACHERAY_RTTA_ADD:
        return tk_sel_addr(s, rec->addr, (uint64_t)rec->elemsize * rec->elemcount);
    default:
        return tk_sel_addr(s, rec->addr, 0);
    }
}

int tk_cacheray_select(const tk_selection *s, unsigned flags, const tk_cacheray_record *rec,
                 uint64_t index)
{
    if (s->has_range && index >= s->to)
        return flags & TK_CACHERAY_SELECT_STOP ? TK_CACHERAY_SEL_END : TK_CACHERAY_SEL_DROP;
    if (tk_sel_in_range(s, index) && tk_sel_thread(s, rec->thread) && addr_selected(s, rec))
        return TK_CACHERAY_SEL_KEEP;
    /* annotations make the types of the accesses after them */
    if ((flags & TK_CACHERAY_SELECT_CONTEXT) && rec->type >= TK_CACHERAY_RTTA_ADD)
        return TK_CACHERAY_SEL_CONTEXT;
    return TK_CACHERAY_SEL_DROP;
}
