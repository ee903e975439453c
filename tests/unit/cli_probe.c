/* Compiled with the tracekit command's settings (tk_cli_settings) by the
 * test cli.public_headers, which expects it to fail at the second include:
 * the command sees the public headers, and none of the library's own. */
#include <tracekit/tracekit.h>

#include "core/format_ops.h"
