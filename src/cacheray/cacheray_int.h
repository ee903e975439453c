/* Helpers shared by the Cacheray command implementations. */
#ifndef TK_CACHERAY_INT_H
#define TK_CACHERAY_INT_H

#include <tracekit/cacheray.h>
#include <tracekit/format.h>

/* A reader honouring the "endian" option. */
tk_cacheray_reader *tk_cr_open(tk_input *in, const tk_options *o, tk_error *err);
const char *tk_cr_endian_name(tk_endian e);
/* One dump record (text line or JSON object). */
void tk_cr_sink_record(tk_sink *s, const tk_cacheray_record *rec,
                       uint64_t index, uint64_t offset);
tk_status tk_cr_info(tk_input *in, const tk_options *o, tk_sink *s, tk_error *err);

#endif
