/* Loading optional shared libraries (capstone, libLLVM's demangler). */
#ifndef TK_CORE_DL_H
#define TK_CORE_DL_H

/* dlopen(soname, flags), or NULL in a program linked fully static: there
 * glibc's dlopen brings a second C library beside the one linked in, and
 * libLLVM's initialisers crash in it. The callers then do without the
 * library, as when it is not installed. */
void *tk_dlopen(const char *soname, int flags);

#endif
