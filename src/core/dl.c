#include "core/dl.h"

#include <dlfcn.h>
#include <link.h>
#include <stddef.h>

/* dl_iterate_phdr lists the main program first: does it name a dynamic
 * loader? (AT_BASE would say 0 as well for a program started through
 * ld.so by hand.) */
static int main_has_interp(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    for (size_t i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_INTERP)
            *(int *)found = 1;
    return 1; /* stop after the main program */
}

void *tk_dlopen(const char *soname, int flags)
{
    int dynamic = 0;
    dl_iterate_phdr(main_has_interp, &dynamic);
    return dynamic ? dlopen(soname, flags) : NULL;
}
