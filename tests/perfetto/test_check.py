#!/usr/bin/python3
"""Self-test of check.py (ctest perfetto.checker): small traces built with
the classes generated from Perfetto's proto, valid ones (their summaries
and events compared with the values they were built from) and broken ones
(each must fail with its own message). Exit 0, 1 on a failure, 77 when
protoc, google.protobuf or the proto is missing.

Usage: /usr/bin/python3 test_check.py --proto PROTO [--cache DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check  # noqa: E402

CLEARED, NEEDS = 1, 2
CLK = 64
# track uuids: process, thread, named slice track, counter track
PROC, THREAD, REGION, CTR = 11, 12, 13, 14


class Builder:
    """Packets of one trace, written the way Perfetto's SDK writes them."""

    def __init__(self, pb):
        self.pb = pb
        self.packets = []

    def packet(self, seq=1, flags=0):
        p = self.pb.TracePacket()
        p.trusted_packet_sequence_id = seq
        if flags:
            p.sequence_flags = flags
        self.packets.append(p)
        return p

    def start_seq(self, seq, base):
        """Cleared state, clock 64 incremental from `base` (BOOTTIME), and
        defaults selecting it."""
        p = self.packet(seq, CLEARED)
        for cid, inc in ((6, False), (CLK, True)):
            c = p.clock_snapshot.clocks.add()
            c.clock_id, c.timestamp = cid, base
            if inc:
                c.is_incremental = True
        p.trace_packet_defaults.timestamp_clock_id = CLK
        return p

    def track(self, uuid, name, parent=0, kind="track", pid=0, tid=0, seq=1):
        d = self.packet(seq).track_descriptor
        d.uuid = uuid
        if parent:
            d.parent_uuid = parent
        if kind == "process":
            d.process.pid = pid
            d.process.process_name = name
        elif kind == "thread":
            d.thread.pid, d.thread.tid = pid, tid
            d.thread.thread_name = name
        else:
            d.name = name
            if kind == "counter":
                d.counter.unit = self.pb.CounterDescriptor.UNIT_COUNT

    def event(self, delta, typ, track, seq=1, name_iid=0, name=None, flags=NEEDS):
        p = self.packet(seq, flags)
        p.timestamp = delta
        te = p.track_event
        te.type = typ
        te.track_uuid = track
        if name_iid:
            te.name_iid = name_iid
        if name is not None:
            te.name = name
        return p

    def serialize(self):
        out = bytearray()
        for p in self.packets:
            raw = p.SerializeToString()
            out += b"\x0a" + varint(len(raw)) + raw
        return bytes(out)


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def valid_trace(pb):
    """One sequence with interning, tracks of each kind, nested slices,
    instants, int and double counters, and a mid-trace reset; a second
    sequence with absolute BOOTTIME timestamps and inline names."""
    TE = pb.TrackEvent
    b = Builder(pb)
    b.start_seq(1, 1000)
    b.track(PROC, "prog", kind="process", pid=10)
    b.track(THREAD, "main", parent=PROC, kind="thread", pid=10, tid=11)
    b.track(REGION, "regions", parent=PROC)
    b.track(CTR, "misses", parent=PROC, kind="counter")
    p = b.event(5, TE.TYPE_SLICE_BEGIN, THREAD, name_iid=1)          # ts 1005
    i = p.interned_data
    i.event_names.add(iid=1, name="main")
    i.event_names.add(iid=2, name="inner")
    i.event_categories.add(iid=1, name="xray")
    i.debug_annotation_names.add(iid=1, name="arg0")
    i.debug_annotation_names.add(iid=2, name="sys")
    i.debug_annotation_string_values.add(iid=1, str=b"read")
    p.track_event.category_iids.append(1)
    a = p.track_event.debug_annotations.add()
    a.name_iid, a.uint_value = 1, 7
    a = p.track_event.debug_annotations.add()
    a.name_iid, a.string_value_iid = 2, 1
    a = p.track_event.debug_annotations.add()
    a.name, a.pointer_value = "addr", 0x1F
    p = b.event(10, TE.TYPE_SLICE_BEGIN, THREAD, name_iid=2)          # ts 1015
    p.track_event.extra_counter_track_uuids.append(CTR)
    p.track_event.extra_counter_values.append(5)
    b.event(0, TE.TYPE_INSTANT, REGION, name_iid=2)                   # ts 1015
    b.event(5, TE.TYPE_SLICE_END, THREAD)                             # ts 1020
    p = b.event(1, TE.TYPE_COUNTER, CTR)                              # ts 1021
    p.track_event.counter_value = 42
    # reset: the names must be defined again, the clock goes on
    p = b.packet(1, CLEARED | NEEDS)
    p.interned_data.event_names.add(iid=1, name="again")
    p.trace_packet_defaults.timestamp_clock_id = CLK
    b.event(4, TE.TYPE_INSTANT, REGION, name_iid=1)                   # ts 1025
    p = b.event(1, TE.TYPE_COUNTER, CTR)                              # ts 1026
    p.track_event.double_counter_value = 3.5
    b.event(2, TE.TYPE_SLICE_END, THREAD)                             # ts 1028
    # sequence 2: BOOTTIME, inline names, no incremental state
    b.event(2000, TE.TYPE_SLICE_BEGIN, REGION, seq=2, name="walk", flags=0)
    b.event(2500, TE.TYPE_SLICE_END, REGION, seq=2, flags=0)
    return b


EXPECT_SUMMARY = {
    "packets": 16, "sequences": 2, "track_events": 10,
    "slices": {str(THREAD): {"main": 1, "inner": 1}, str(REGION): {"walk": 1}},
    "instants": {str(REGION): {"inner": 1, "again": 1}},
    "counters": {str(CTR): {"values": 3, "sum": 50.5, "last": 3.5}},
}
EXPECT_TRACKS = {
    str(PROC): {"name": "prog", "kind": "process", "parent": None, "pid": 10, "tid": None},
    str(THREAD): {"name": "main", "kind": "thread", "parent": str(PROC), "pid": 10, "tid": 11},
    str(REGION): {"name": "regions", "kind": "track", "parent": str(PROC), "pid": None,
                  "tid": None},
    str(CTR): {"name": "misses", "kind": "counter", "parent": str(PROC), "pid": None,
               "tid": None},
}
EXPECT_FIRST_EVENT = {"seq": 1, "ts": 1005, "track": str(THREAD), "type": "begin",
                      "name": "main", "category": "xray",
                      "args": {"arg0": 7, "sys": "read", "addr": "0x1f"}}
EXPECT_TS = [1005, 1015, 1015, 1020, 1021, 1025, 1026, 1028, 2000, 2500]


def broken_cases(pb):
    """(name, mutate(builder), expected message) for each broken trace."""
    TE = pb.TrackEvent

    def find(b, typ, nth=0):
        hits = [p for p in b.packets if p.HasField("track_event") and p.track_event.type == typ]
        return hits[nth]

    def drop(b, p):
        b.packets.remove(p)

    def unknown_field(b):
        # field 63 (unused in TrackEvent) on the first instant
        p = find(b, TE.TYPE_INSTANT)
        p.track_event.MergeFromString(b"\xf8\x03\x01")

    return [
        ("undeclared track", lambda b: setattr(find(b, TE.TYPE_INSTANT).track_event,
                                               "track_uuid", 99),
         "TrackEvent on undeclared track 99"),
        ("track declared after use", lambda b: b.packets.append(b.packets.pop(3)),
         "TrackEvent on undeclared track %d" % REGION),
        ("unbalanced end", lambda b: drop(b, find(b, TE.TYPE_SLICE_BEGIN, 2)),
         "slice end with no open slice on track %d" % REGION),
        ("slice left open", lambda b: drop(b, find(b, TE.TYPE_SLICE_END, 1)),
         "1 slice(s) on track %d still open at end of file" % THREAD),
        ("decreasing timestamp (absolute)", lambda b: setattr(b.packets[-1], "timestamp", 1999),
         "timestamp decreases on sequence 2: 1999 after 2000"),
        ("decreasing timestamp (negative delta)",
         lambda b: setattr(find(b, TE.TYPE_SLICE_END, 0), "timestamp", (1 << 64) - 1),
         "negative timestamp delta -1 on clock 64"),
        ("unresolved name_iid", lambda b: setattr(find(b, TE.TYPE_SLICE_BEGIN, 1).track_event,
                                                  "name_iid", 9),
         "unresolved name_iid 9"),
        ("name_iid of before the reset", lambda b: setattr(
            find(b, TE.TYPE_INSTANT, 1).track_event, "name_iid", 2),
         "unresolved name_iid 2"),
        ("unresolved category", lambda b: find(b, TE.TYPE_SLICE_BEGIN, 1)
         .track_event.category_iids.append(5), "unresolved category_iid 5"),
        ("unresolved annotation name",
         lambda b: setattr(find(b, TE.TYPE_SLICE_BEGIN).track_event.debug_annotations[0],
                           "name_iid", 6),
         "unresolved debug annotation name_iid 6"),
        ("unresolved string value",
         lambda b: setattr(find(b, TE.TYPE_SLICE_BEGIN).track_event.debug_annotations[1],
                           "string_value_iid", 4),
         "unresolved string_value_iid 4"),
        ("interned id without SEQ_NEEDS_INCREMENTAL_STATE",
         lambda b: setattr(find(b, TE.TYPE_SLICE_BEGIN, 1), "sequence_flags", 0),
         "uses interned ids without SEQ_NEEDS_INCREMENTAL_STATE"),
        ("state used before it is cleared",
         lambda b: setattr(b.packets[0], "sequence_flags", 0),
         "before any SEQ_INCREMENTAL_STATE_CLEARED packet"),
        ("counter on a slice track",
         lambda b: setattr(find(b, TE.TYPE_COUNTER).track_event, "track_uuid", THREAD),
         "counter event on non-counter track %d" % THREAD),
        ("instant on a counter track",
         lambda b: setattr(find(b, TE.TYPE_INSTANT).track_event, "track_uuid", CTR),
         "instant event on counter track %d" % CTR),
        ("extra counter value on a slice track",
         lambda b: find(b, TE.TYPE_SLICE_BEGIN, 1).track_event.extra_counter_track_uuids
         .__setitem__(0, THREAD), "extra counter value on non-counter track %d" % THREAD),
        ("counter without a value",
         lambda b: find(b, TE.TYPE_COUNTER).track_event.ClearField("counter_value"),
         "counter event on track %d without a value" % CTR),
        ("event without timestamp", lambda b: find(b, TE.TYPE_INSTANT).ClearField("timestamp"),
         "TrackEvent without a timestamp"),
        ("clock never defined", lambda b: setattr(b.packets[0].clock_snapshot.clocks[1],
                                                  "clock_id", 65),
         "timestamp on clock 64, which no ClockSnapshot on its sequence defines"),
        ("unknown field", unknown_field, "unknown field(s), e.g. 63: 1"),
    ]


class Runner:
    def __init__(self, proto, cache, tmp):
        self.proto, self.cache, self.tmp = proto, cache, tmp
        self.failures = []
        self.cases = 0

    def run(self, name, data, extra=()):
        path = os.path.join(self.tmp, "t.pftrace")
        with open(path, "wb") as f:
            f.write(data)
        cmd = [sys.executable, os.path.join(HERE, "check.py"), "--proto", self.proto,
               "--cache", self.cache, path] + list(extra)
        r = subprocess.run(cmd, capture_output=True, text=True)
        self.cases += 1
        return r.returncode, r.stdout + r.stderr

    def fail(self, name, why, out=""):
        self.failures.append("FAIL: %s: %s\n%s" % (name, why, out))

    def expect_ok(self, name, data):
        s = os.path.join(self.tmp, "s.json")
        e = os.path.join(self.tmp, "e.jsonl")
        rc, out = self.run(name, data, ["--summary", s, "--events", e])
        if rc != 0:
            self.fail(name, "check.py exited %d on a valid trace" % rc, out)
            return None, None
        with open(s) as f:
            summary = json.load(f)
        with open(e) as f:
            events = [json.loads(line) for line in f]
        return summary, events

    def expect_bad(self, name, data, message):
        rc, out = self.run(name, data)
        if rc != 1:
            self.fail(name, "check.py exited %d, want 1" % rc, out)
        elif message not in out:
            self.fail(name, "no %r in its output" % message, out)


def check_valid(r, pb):
    summary, events = r.expect_ok("valid", valid_trace(pb).serialize())
    if summary is None:
        return
    for k, v in EXPECT_SUMMARY.items():
        if summary.get(k) != v:
            r.fail("valid", "summary %s = %r, want %r" % (k, summary.get(k), v))
    if summary.get("tracks") != EXPECT_TRACKS:
        r.fail("valid", "tracks = %r" % summary.get("tracks"))
    if not events or events[0] != EXPECT_FIRST_EVENT:
        r.fail("valid", "first event %r, want %r" % (events[:1], EXPECT_FIRST_EVENT))
    ts = [e["ts"] for e in events]
    if ts != EXPECT_TS:
        r.fail("valid", "event times %r, want %r" % (ts, EXPECT_TS))
    counters = [e["value"] for e in events if e["type"] == "counter"]
    if counters != [42, 3.5]:
        r.fail("valid", "counter values %r, want [42, 3.5]" % counters)
    # an empty trace is a valid (empty) Trace
    summary, _ = r.expect_ok("empty", b"")
    if summary is not None and (summary["packets"], summary["tracks"]) != (0, {}):
        r.fail("empty", "summary %r" % summary)


def check_broken(r, pb):
    for name, mutate, message in broken_cases(pb):
        b = valid_trace(pb)
        mutate(b)
        r.expect_bad(name, b.serialize(), message)
    data = valid_trace(pb).serialize()
    r.expect_bad("truncated file", data[:-3], "runs past the end of the file")
    r.expect_bad("truncated file (protoc)", data[:-3], "protoc --decode=perfetto.protos.Trace failed")
    r.expect_bad("not a packet", data + b"\x10\x01", "Trace field 2 wire type 0, not a packet")
    # more than 20 problems: 20 printed, then the count
    b = valid_trace(pb)
    for _ in range(25):
        b.event(0, pb.TrackEvent.TYPE_INSTANT, 98, seq=3, name="x", flags=0)
    r.expect_bad("many problems", b.serialize(), "... and 5 more problems")


def check_skip(r, proto):
    r.proto = os.path.join(r.tmp, "no.proto")
    rc, out = r.run("skip", b"")
    r.proto = proto
    if rc != 77 or not out.startswith("SKIP: "):
        r.fail("missing proto", "exit %d, want 77 with SKIP" % rc, out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--proto", required=True)
    ap.add_argument("--cache")
    args = ap.parse_args()
    pb = check.load_proto_module(args.proto, args.cache)  # exits 77 without it
    with tempfile.TemporaryDirectory() as tmp:
        cache = args.cache or os.path.join(tmp, "cache")
        r = Runner(args.proto, cache, tmp)
        check_valid(r, pb)
        check_broken(r, pb)
        check_skip(r, args.proto)
    for f in r.failures:
        print(f)
    if r.failures:
        print("test_check: %d of %d cases failed" % (len(r.failures), r.cases))
        return 1
    print("test_check: ok, %d cases" % r.cases)
    return 0


if __name__ == "__main__":
    sys.exit(main())
