/* Track descriptors (perfetto.h): one untimed packet per track. Field
 * numbers are those of perfetto_trace.proto's TrackDescriptor. */
#include <string.h>

#include "export/perfetto/perfetto_int.h"

#define F_TRACE_PACKET 1
#define F_SEQUENCE_ID 10
#define F_TRACK_DESCRIPTOR 60
/* TrackDescriptor */
#define F_UUID 1
#define F_NAME 2
#define F_PROCESS 3
#define F_THREAD 4
#define F_PARENT 5
#define F_COUNTER 8

/* Open the packet and its TrackDescriptor; `*desc` is where it starts. */
static size_t open_descriptor(tk_perfetto_seq *s, uint64_t uuid, uint64_t parent,
                              const char *name, size_t *desc)
{
    tk_pb *b = &s->p->buf;
    size_t at = tk_pb_open(b, F_TRACE_PACKET);
    tk_pb_uint(b, F_SEQUENCE_ID, s->id);
    *desc = tk_pb_open(b, F_TRACK_DESCRIPTOR);
    tk_pb_uint(b, F_UUID, uuid);
    if (parent)
        tk_pb_uint(b, F_PARENT, parent);
    if (name)
        tk_pb_str(b, F_NAME, name);
    return at;
}

static tk_status close_descriptor(tk_perfetto_seq *s, size_t at, size_t desc, tk_error *err)
{
    tk_perfetto *p = s->p;
    tk_pb_close(&p->buf, desc);
    tk_pb_close(&p->buf, at);
    p->packets++;
    if (p->buf.oom)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    return TK_OK;
}

tk_status tk_perfetto_process_track(tk_perfetto_seq *s, uint64_t uuid, int32_t pid,
                                    const char *name, tk_error *err)
{
    tk_pb *b = &s->p->buf;
    size_t desc, at = open_descriptor(s, uuid, 0, name, &desc);
    size_t pr = tk_pb_open(b, F_PROCESS);
    tk_pb_uint(b, 1, (uint64_t)(int64_t)pid);
    if (name)
        tk_pb_str(b, 6, name); /* process_name */
    tk_pb_close(b, pr);
    return close_descriptor(s, at, desc, err);
}

/* A thread track with a short ASCII name (XRay's "thread <tid>", one per
 * thread of a trace of millions), written straight into the buffer with
 * its lengths computed up front: the general path's bytes. */
static tk_status thread_track_short(tk_perfetto_seq *s, uint64_t uuid, uint64_t parent,
                                    int32_t pid, int64_t tid, const char *name, size_t n,
                                    tk_error *err)
{
    tk_perfetto *p = s->p;
    uint64_t upid = (uint64_t)(int64_t)pid;
    size_t th = 1 + tk_pb_varint_size(upid) + 1 + tk_pb_varint_size((uint64_t)tid) + 2 + n;
    size_t desc = 1 + tk_pb_varint_size(uuid) + (parent ? 1 + tk_pb_varint_size(parent) : 0) +
                  2 + n + 2 + th;
    size_t body = 1 + tk_pb_varint_size(s->id) + 2 + 1 + desc; /* every length < 128 */
    if (tk_pb_room(&p->buf, 2 + body) != 0)
        return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
    uint8_t *o = p->buf.p;
    size_t k = p->buf.len;
    o[k++] = F_TRACE_PACKET << 3 | TK_PB_LEN;
    o[k++] = (uint8_t)body;
    o[k++] = F_SEQUENCE_ID << 3;
    tk_pb_raw_varint(o, &k, s->id);
    tk_pb_raw_varint(o, &k, F_TRACK_DESCRIPTOR << 3 | TK_PB_LEN);
    o[k++] = (uint8_t)desc;
    o[k++] = F_UUID << 3;
    tk_pb_raw_varint(o, &k, uuid);
    if (parent) {
        o[k++] = F_PARENT << 3;
        tk_pb_raw_varint(o, &k, parent);
    }
    o[k++] = F_NAME << 3 | TK_PB_LEN;
    o[k++] = (uint8_t)n;
    memcpy(o + k, name, n);
    k += n;
    o[k++] = F_THREAD << 3 | TK_PB_LEN;
    o[k++] = (uint8_t)th;
    o[k++] = 1 << 3;
    tk_pb_raw_varint(o, &k, upid);
    o[k++] = 2 << 3;
    tk_pb_raw_varint(o, &k, (uint64_t)tid);
    o[k++] = 5 << 3 | TK_PB_LEN; /* thread_name */
    o[k++] = (uint8_t)n;
    memcpy(o + k, name, n);
    p->buf.len = k + n;
    p->packets++;
    return TK_OK;
}

/* Is `name` ASCII and short (n: its length)? */
static int short_ascii(const char *name, size_t *n)
{
    size_t i = 0;
    for (; i < 32 && name[i]; i++)
        if ((unsigned char)name[i] >= 0x80)
            return 0;
    *n = i;
    return !name[i];
}

tk_status tk_perfetto_thread_track(tk_perfetto_seq *s, uint64_t uuid, uint64_t parent,
                                   int32_t pid, int64_t tid, const char *name,
                                   tk_error *err)
{
    size_t n;
    if (name && short_ascii(name, &n))
        return thread_track_short(s, uuid, parent, pid, tid, name, n, err);
    tk_pb *b = &s->p->buf;
    size_t desc, at = open_descriptor(s, uuid, parent, name, &desc);
    size_t th = tk_pb_open(b, F_THREAD);
    tk_pb_uint(b, 1, (uint64_t)(int64_t)pid);
    tk_pb_uint(b, 2, (uint64_t)tid);
    if (name)
        tk_pb_str(b, 5, name); /* thread_name */
    tk_pb_close(b, th);
    return close_descriptor(s, at, desc, err);
}

tk_status tk_perfetto_track(tk_perfetto_seq *s, uint64_t uuid, uint64_t parent,
                            const char *name, tk_error *err)
{
    size_t desc, at = open_descriptor(s, uuid, parent, name, &desc);
    return close_descriptor(s, at, desc, err);
}

tk_status tk_perfetto_counter_track(tk_perfetto_seq *s, uint64_t uuid, uint64_t parent,
                                    const char *name, tk_perfetto_unit unit,
                                    const char *unit_name, tk_error *err)
{
    tk_pb *b = &s->p->buf;
    size_t desc, at = open_descriptor(s, uuid, parent, name, &desc);
    size_t c = tk_pb_open(b, F_COUNTER);
    if (unit)
        tk_pb_uint(b, 3, (uint64_t)unit);
    if (unit_name)
        tk_pb_str(b, 6, unit_name);
    tk_pb_close(b, c);
    return close_descriptor(s, at, desc, err);
}
