#include <tracekit/tracekit.h>

const char *tk_version(void) { return TRACEKIT_VERSION_STRING; }
