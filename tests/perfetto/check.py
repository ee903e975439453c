#!/usr/bin/python3
"""Checks a Perfetto trace (.pftrace) as the trace processor would read it.

Usage:
  /usr/bin/python3 check.py --proto PROTO TRACE [--summary S.json]
                   [--events E.jsonl] [--cache DIR]   (DIR: else $TK_PERFETTO_CACHE)

Exit 0: valid; 1: invalid (each problem printed with its packet index,
0-based, up to 20 and then a count); 2: usage; 77: protoc, Python's
google.protobuf (Debian: python3-protobuf) or PROTO missing ("SKIP: ...").

Two checks (issue 19, "How it is checked"):
 1. `protoc --decode=perfetto.protos.Trace` parses the file with no unknown
    fields (a numeric field name in its output), run alongside 2.
 2. Packets are parsed one by one with classes protoc generates from PROTO
    (cached in DIR, default a per-user temp dir), and the checker follows
    each sequence's state as Perfetto does:
    - tracks: a TrackEvent's track (track_uuid, else the sequence's
      TracePacketDefaults) has a TrackDescriptor earlier in the file;
      counter events (TYPE_COUNTER) only on tracks with `counter`, slices
      and instants never there;
    - slices: begin/end balance per track, in file order (an end with no
      open slice, or a slice open at the end of the file, is a problem);
    - time: per trusted_packet_sequence_id, timestamps resolved through the
      clocks (a ClockSnapshot clock 64..127 is sequence-scoped; with
      is_incremental each timestamp on it is a delta from the previous one,
      the snapshot's value the first base) never decrease; a TrackEvent
      packet has a timestamp;
    - interning: InternedData per sequence, reset by SEQ_INCREMENTAL_STATE_
      CLEARED (sequence_flags & 1); every name_iid, category_iids,
      annotation name_iid and string_value_iid resolves there; a packet
      using interned ids or defaults carries SEQ_NEEDS_INCREMENTAL_STATE
      (2) and follows a cleared packet on its sequence.

S.json: {"packets", "sequences", "track_events",
  "tracks": {uuid: {"name", "kind": process|thread|track|counter, "parent",
                    "pid", "tid"}},
  "slices": {uuid: {name: completed begin/end pairs}}   (name "" if none)
  "instants": {uuid: {name: count}},
  "counters": {uuid: {"values", "sum", "last"}}}        (every counter track)
E.jsonl: one line per TrackEvent in file order: {"seq", "ts" (ns, resolved),
  "track", "type": begin|end|instant|counter, "name", "category" (the
  categories joined with ","), "args": {name: value}, "value" (counters)}.
  Annotation values: bool, int, float, str; pointers as "0x..." strings;
  dicts and arrays as JSON objects and lists. uuids are decimal strings.
"""
import argparse
import hashlib
import importlib.util
import json
import math
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading

MAX_PROBLEMS = 20
MAX_PACKET = 256 << 20  # no real packet comes near; a corrupt length does
SEQ_CLEARED = 1
SEQ_NEEDS = 2
BOOTTIME = 6
TYPE_NAMES = {1: "begin", 2: "end", 3: "instant", 4: "counter"}


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def find_protoc():
    """Debian's protoc matches Debian's python3-protobuf; $TK_PROTOC wins."""
    for p in (os.environ.get("TK_PROTOC"), "/usr/bin/protoc", shutil.which("protoc")):
        if p and os.access(p, os.X_OK):
            return p
    return None


def load_proto_module(proto, cache=None, protoc=None):
    """The module protoc generates from `proto`, built once per proto,
    protoc and protobuf version in `cache` (default: a per-user temp dir),
    next to the proto's descriptor set (module file's name, .desc). Calls
    skip() when something it needs is missing."""
    try:
        import google.protobuf
    except ImportError:
        skip("%s has no google.protobuf (Debian: python3-protobuf)" % sys.executable)
    protoc = protoc or find_protoc()
    if not protoc:
        skip("protoc not found (Debian: protobuf-compiler)")
    if not os.path.isfile(proto):
        skip("no Perfetto proto at %s (../shared absent?)" % proto)
    with open(proto, "rb") as f:
        h = hashlib.sha256(f.read())
    ver = subprocess.run([protoc, "--version"], capture_output=True, text=True).stdout
    h.update((ver + google.protobuf.__version__ + " pb2+desc").encode())
    base = cache or os.path.join(tempfile.gettempdir(), "tracekit-perfetto-%d" % os.getuid())
    os.makedirs(base, exist_ok=True)
    name = os.path.splitext(os.path.basename(proto))[0] + "_pb2"
    final = os.path.join(base, "pb2-" + h.hexdigest()[:16])
    if not os.path.isfile(os.path.join(final, name + ".desc")):
        generate(protoc, proto, base, final, name)
    spec = importlib.util.spec_from_file_location(name, os.path.join(final, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def generate(protoc, proto, base, final, name):
    """The Python classes and a descriptor set (for protoc --decode), into
    a fresh directory renamed into place: parallel tests may race."""
    tmp = tempfile.mkdtemp(dir=base)
    r = subprocess.run([protoc, "--python_out=" + tmp,
                        "--descriptor_set_out=" + os.path.join(tmp, name + ".desc"),
                        "-I", os.path.dirname(os.path.abspath(proto)), os.path.abspath(proto)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        sys.exit("check.py: protoc --python_out failed: " + r.stderr.strip())
    try:
        os.rename(tmp, final)
    except OSError:  # another run got there first
        shutil.rmtree(tmp, ignore_errors=True)


class ProtocDecode:
    """`protoc --decode` in the background, on batches of whole packets (any
    run of packets is a Trace) so that its memory, about 50 times its
    input, stays bounded; its text output is scanned in chunks for unknown
    fields (a line starting with a number). The main loop calls cut() at
    packet boundaries and finish() at the end."""
    UNKNOWN = re.compile(rb"^[ \t]*[0-9]+(?::| \{)[^\n]*", re.M)
    BATCH = 2 << 20
    LAST_MAX = 64 << 20  # the last batch, when a bad record stopped the loop

    def __init__(self, protoc, proto, desc, trace):
        if desc and os.path.isfile(desc):  # compiled once: protoc starts 4x faster
            self.cmd = [protoc, "--decode=perfetto.protos.Trace",
                        "--descriptor_set_in=" + desc, os.path.basename(proto)]
        else:
            self.cmd = [protoc, "--decode=perfetto.protos.Trace", "-I",
                        os.path.dirname(os.path.abspath(proto)), os.path.abspath(proto)]
        self.f = open(trace, "rb")
        self.start = 0
        self.unknown = []
        self.count = 0
        self.failures = []
        self.queue = queue.Queue(maxsize=2)  # the main loop waits for protoc
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def cut(self, off):
        self.queue.put((self.start, off))
        self.start = off

    def finish(self, size):
        if size > self.start:
            self.queue.put((self.start, min(size, self.start + self.LAST_MAX)))
        self.queue.put(None)

    def _run(self):
        while True:
            item = self.queue.get()
            if item is None:
                return
            start, end = item
            self.f.seek(start)
            with tempfile.TemporaryFile() as inp, tempfile.TemporaryFile() as err:
                inp.write(self.f.read(end - start))
                inp.seek(0)
                proc = subprocess.Popen(self.cmd, stdin=inp, stdout=subprocess.PIPE, stderr=err)
                self._scan(proc.stdout)
                if proc.wait() != 0:
                    err.seek(0)
                    self.failures.append((start, end, proc.returncode,
                                          err.read(300).decode("utf-8", "replace").strip()))

    def _scan(self, out):
        tail = b""
        while True:
            chunk = out.read(1 << 20)
            if not chunk:
                break
            cut = chunk.rfind(b"\n") + 1
            if cut == 0:
                tail += chunk
                continue
            self._match(tail + chunk[:cut])
            tail = chunk[cut:]
        self._match(tail)
        out.close()

    def _match(self, text):
        for m in self.UNKNOWN.finditer(text):
            self.count += 1
            if len(self.unknown) < 5:
                self.unknown.append(m.group(0).strip().decode("utf-8", "replace")[:100])

    def problems(self):
        self.thread.join()
        self.f.close()
        out = []
        for start, end, rc, msg in self.failures[:3]:
            out.append("protoc --decode=perfetto.protos.Trace failed on bytes %d..%d "
                       "(exit %d): %s" % (start, end, rc, msg))
        if len(self.failures) > 3:
            out.append("protoc --decode failed on %d more batches" % (len(self.failures) - 3))
        if self.count:
            out.append("protoc --decode: %d unknown field(s), e.g. %s"
                       % (self.count, "; ".join(self.unknown)))
        return out


def read_varint(buf, pos):
    """(value, next position), or (None, pos) when `buf` ends first."""
    v = shift = 0
    n = len(buf)
    while pos < n:
        b = buf[pos]
        pos += 1
        v |= (b & 0x7F) << shift
        if b < 0x80:
            return v, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint longer than 10 bytes")
    return None, pos


def trace_records(f, size, problem):
    """The Trace's field-1 records (packet bytes), one at a time, with a
    buffer of about one packet: (index, file offset, bytes)."""
    buf, pos, off, idx = b"", 0, 0, 0
    while True:
        if len(buf) - pos < 20:
            buf, off, pos = buf[pos:] + f.read(1 << 20), off + pos, 0
        if pos >= len(buf):
            return
        start = off + pos
        try:
            tag, p = read_varint(buf, pos)
            length, p = read_varint(buf, p) if tag is not None else (None, p)
        except ValueError as e:
            problem(idx, "offset %d: %s" % (start, e))
            return
        if tag is None or length is None:
            problem(idx, "offset %d: the file ends inside a record header" % start)
            return
        if tag != (1 << 3 | 2):
            problem(idx, "offset %d: Trace field %d wire type %d, not a packet (field 1, "
                    "length-delimited)" % (start, tag >> 3, tag & 7))
            return
        if length > MAX_PACKET or off + p + length > size:
            problem(idx, "offset %d: packet of %d bytes runs past the end of the file (%d)"
                    % (start, length, size))
            return
        if len(buf) - p < length:
            buf = buf[p:] + f.read(length - (len(buf) - p))
            off, p = off + p, 0
        yield idx, start, buf[p:p + length]
        pos = p + length
        idx += 1


class Sequence:
    """What Perfetto keeps per trusted_packet_sequence_id."""

    def __init__(self):
        self.cleared = False      # a SEQ_INCREMENTAL_STATE_CLEARED packet seen
        self.interned = {}        # table -> {iid: str}
        self.defaults = None      # TracePacketDefaults
        self.clock_id = None      # its timestamp_clock_id
        self.track = None         # its track_event_defaults.track_uuid
        self.clocks = {}          # clock id 64..127 -> Clock
        self.last_ts = None

    def clear(self):
        self.cleared = True
        self.interned = {}
        self.set_defaults(None)

    def set_defaults(self, d):
        self.defaults = d
        self.clock_id = self.track = None
        if d is None:
            return
        if d.HasField("timestamp_clock_id"):
            self.clock_id = d.timestamp_clock_id
        if d.HasField("track_event_defaults") and d.track_event_defaults.HasField("track_uuid"):
            self.track = d.track_event_defaults.track_uuid


class Clock:
    def __init__(self, c, ref):
        self.incremental = c.is_incremental
        self.mult = c.unit_multiplier_ns or 1
        self.base = c.timestamp
        self.last = c.timestamp
        # the snapshot's BOOTTIME ns; without one, the clock's own ns
        self.ref = ref if ref is not None else c.timestamp * self.mult


INTERNED = ("event_names", "event_categories", "debug_annotation_names",
            "debug_annotation_string_values")


class Checker:
    def __init__(self, pb, events_out=None):
        self.pb = pb
        self.events_out = events_out
        self.problems = []
        self.nproblems = 0
        self.packets = 0
        self.track_events = 0
        self.seqs = {}
        self.tracks = {}          # uuid -> summary dict
        self.counter_tracks = set()
        self.open = {}            # uuid -> [(name, ts)]
        self.slices = {}
        self.instants = {}
        self.counters = {}
        self.global_clocks = {}   # builtin clock id -> (its ts, BOOTTIME ts)

    def problem(self, idx, msg):
        self.nproblems += 1
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(("packet %d: " % idx if idx is not None else "file: ") + msg)

    def feed(self, idx, raw):
        pkt = self.pb.TracePacket()
        try:
            pkt.ParseFromString(raw)
        except Exception as e:  # DecodeError, or the C++ backend's RuntimeError
            self.problem(idx, "does not parse as a TracePacket (%s)" % e)
            return
        self.packets += 1
        has_seq = pkt.HasField("trusted_packet_sequence_id")
        sid = pkt.trusted_packet_sequence_id
        seq = self.seqs.get(sid)
        if seq is None:
            seq = self.seqs[sid] = Sequence()
        flags = pkt.sequence_flags
        if flags and not has_seq:
            self.problem(idx, "sequence_flags without trusted_packet_sequence_id")
        if flags & SEQ_CLEARED or pkt.incremental_state_cleared:
            seq.clear()
        if pkt.HasField("trace_packet_defaults"):
            seq.set_defaults(pkt.trace_packet_defaults)
        if pkt.HasField("interned_data"):
            self.intern(idx, seq, pkt.interned_data)
        data = pkt.WhichOneof("data")
        if data == "clock_snapshot":
            self.snapshot(idx, seq, pkt.clock_snapshot)
            return
        ts = self.timestamp(idx, seq, pkt, flags)
        if data == "track_descriptor":
            self.declare(idx, pkt.track_descriptor)
        elif data == "track_event":
            self.track_event(idx, sid, seq, pkt, ts, flags)

    def uses_state(self, idx, seq, flags, what):
        if flags & SEQ_NEEDS and seq.cleared:
            return
        if not flags & SEQ_NEEDS:
            self.problem(idx, "uses %s without SEQ_NEEDS_INCREMENTAL_STATE in sequence_flags"
                         % what)
        if not seq.cleared:
            self.problem(idx, "uses %s before any SEQ_INCREMENTAL_STATE_CLEARED packet on "
                         "its sequence" % what)

    def intern(self, idx, seq, data):
        for table in INTERNED:
            entries = getattr(data, table)
            if not entries:
                continue
            t = seq.interned.setdefault(table, {})
            for e in entries:
                s = e.str.decode("utf-8", "replace") if table.endswith("values") else e.name
                if e.iid == 0:
                    self.problem(idx, "%s entry with iid 0" % table)
                elif t.get(e.iid, s) != s:
                    self.problem(idx, "%s iid %d redefined (%r, was %r)"
                                 % (table, e.iid, s, t[e.iid]))
                t[e.iid] = s

    def lookup(self, idx, seq, table, iid, what):
        s = seq.interned.get(table, {}).get(iid)
        if s is None:
            self.problem(idx, "unresolved %s %d (no %s entry on its sequence)"
                         % (what, iid, table))
        return s

    def snapshot(self, idx, seq, snap):
        ref = None
        for c in snap.clocks:
            if c.clock_id == BOOTTIME:
                ref = c.timestamp
        for c in snap.clocks:
            if 64 <= c.clock_id <= 127:
                seq.clocks[c.clock_id] = Clock(c, ref)
            elif c.is_incremental:
                self.problem(idx, "clock %d is incremental but not sequence-scoped (64..127)"
                             % c.clock_id)
            elif ref is not None and c.clock_id != BOOTTIME:
                self.global_clocks[c.clock_id] = (c.timestamp, ref)

    def timestamp(self, idx, seq, pkt, flags):
        """The packet's time in ns (BOOTTIME when the clocks say how), or
        None; checks it does not go back on the sequence."""
        if not pkt.HasField("timestamp"):
            return None
        v = pkt.timestamp
        if pkt.HasField("timestamp_clock_id"):
            cid = pkt.timestamp_clock_id
        elif seq.clock_id is not None:
            cid = seq.clock_id
            if not (flags & SEQ_NEEDS and seq.cleared):
                self.uses_state(idx, seq, flags, "TracePacketDefaults.timestamp_clock_id")
        else:
            cid = BOOTTIME
        if 64 <= cid <= 127:
            clk = seq.clocks.get(cid)
            if clk is None:
                self.problem(idx, "timestamp on clock %d, which no ClockSnapshot on its "
                             "sequence defines" % cid)
                return None
            if clk.incremental:
                if v >= 1 << 63:  # the trace processor reads it as int64
                    v -= 1 << 64
                    self.problem(idx, "negative timestamp delta %d on clock %d" % (v, cid))
                v = clk.last + v
                clk.last = v
            ts = (v - clk.base) * clk.mult + clk.ref
        elif cid in self.global_clocks:
            at, ref = self.global_clocks[cid]
            ts = v - at + ref
        else:
            ts = v
        if seq.last_ts is not None and ts < seq.last_ts:
            self.problem(idx, "timestamp decreases on sequence %d: %d after %d"
                         % (pkt.trusted_packet_sequence_id, ts, seq.last_ts))
        seq.last_ts = ts
        return ts

    def declare(self, idx, d):
        if not d.uuid:
            self.problem(idx, "TrackDescriptor without a uuid")
            return
        if d.HasField("process"):
            kind, pid, tid = "process", d.process.pid, None
            name = d.name or d.process.process_name
        elif d.HasField("thread"):
            kind, pid, tid = "thread", d.thread.pid, d.thread.tid
            name = d.name or d.thread.thread_name
        else:
            kind, pid, tid = ("counter" if d.HasField("counter") else "track"), None, None
            name = d.name or d.static_name or d.atrace_name
        info = {"name": name, "kind": kind,
                "parent": str(d.parent_uuid) if d.parent_uuid else None,
                "pid": pid, "tid": tid}
        old = self.tracks.get(d.uuid)
        if old is not None and old != info:
            self.problem(idx, "track %d declared again differently (%s, was %s)"
                         % (d.uuid, info, old))
        self.tracks[d.uuid] = info
        if kind == "counter":
            self.counter_tracks.add(d.uuid)
            self.counters.setdefault(str(d.uuid), {"values": 0, "sum": 0, "last": None})

    def track_event(self, idx, sid, seq, pkt, ts, flags):
        te = pkt.track_event
        self.track_events += 1
        if not pkt.HasField("timestamp"):
            self.problem(idx, "TrackEvent without a timestamp")
        if te.HasField("track_uuid"):
            uuid = te.track_uuid
        else:
            uuid = seq.track
            if uuid is not None:
                if not (flags & SEQ_NEEDS and seq.cleared):
                    self.uses_state(idx, seq, flags, "TrackEventDefaults.track_uuid")
            else:
                uuid = None
                self.problem(idx, "TrackEvent with no track (no track_uuid, no default)")
        name, cats, args = self.strings(idx, seq, te, flags)
        kind = TYPE_NAMES.get(te.type)
        if kind is None:
            self.problem(idx, "TrackEvent of type %d (want begin, end, instant or counter)"
                         % te.type)
        if uuid is not None and uuid not in self.tracks:
            self.problem(idx, "TrackEvent on undeclared track %d" % uuid)
            uuid = None
        value = None
        if kind is not None and uuid is not None:
            value = self.apply(idx, kind, uuid, te, name, ts)
        if te.extra_counter_values or te.extra_double_counter_values:
            self.extra_counters(idx, seq, te)
        if self.events_out is not None:
            ev = {"seq": sid, "ts": ts, "track": str(uuid) if uuid is not None else None,
                  "type": kind, "name": name, "category": cats, "args": args}
            if kind == "counter":
                ev["value"] = value
            self.events_out.write(json.dumps(ev, separators=(",", ":")) + "\n")

    def strings(self, idx, seq, te, flags):
        """The event's name, categories (joined) and annotations."""
        interned = False
        name = None
        if te.HasField("name_iid"):
            interned = True
            name = self.lookup(idx, seq, "event_names", te.name_iid, "name_iid")
        elif te.HasField("name"):
            name = te.name
        cats = list(te.categories)
        for iid in te.category_iids:
            interned = True
            cats.append(self.lookup(idx, seq, "event_categories", iid, "category_iid") or "?")
        args = {}
        for a in te.debug_annotations:
            interned |= self.annotation(idx, seq, a, args)
        if interned:
            self.uses_state(idx, seq, flags, "interned ids")
        return name, (",".join(cats) if cats else None), args

    def annotation(self, idx, seq, a, into):
        """Adds `a` to dict `into` (or list, name ignored); True when it
        uses interned ids."""
        interned = False
        if a.HasField("name_iid"):
            interned = True
            key = self.lookup(idx, seq, "debug_annotation_names", a.name_iid,
                              "debug annotation name_iid") or "?"
        else:
            key = a.name
        which = a.WhichOneof("value")
        if which == "string_value_iid":
            interned = True
            v = self.lookup(idx, seq, "debug_annotation_string_values", a.string_value_iid,
                            "string_value_iid")
        elif which == "pointer_value":
            v = "0x%x" % a.pointer_value
        elif which == "double_value":
            d = a.double_value
            v = d if math.isfinite(d) else str(d)
        elif which == "nested_value":
            v = "(nested)"
        elif which is not None:
            v = getattr(a, which)
        elif len(a.dict_entries):
            v = {}
            for e in a.dict_entries:
                interned |= self.annotation(idx, seq, e, v)
        elif len(a.array_values):
            v = []
            for e in a.array_values:
                interned |= self.annotation(idx, seq, e, v)
        else:
            v = None
        if a.HasField("proto_type_name_iid"):
            self.problem(idx, "proto_type_name_iid %d: the checker does not resolve "
                         "debug_annotation_value_type_names" % a.proto_type_name_iid)
        if isinstance(into, list):
            into.append(v)
        else:
            into[key] = v
        return interned

    def apply(self, idx, kind, uuid, te, name, ts):
        """Balance and counts for one event on a declared track; the
        counter value for counters."""
        key = str(uuid)
        is_counter = uuid in self.counter_tracks
        if kind == "counter":
            if not is_counter:
                self.problem(idx, "counter event on non-counter track %d" % uuid)
                return None
            which = te.WhichOneof("counter_value_field")
            if which is None:
                self.problem(idx, "counter event on track %d without a value" % uuid)
                return None
            value = getattr(te, which)
            self.count_value(key, value)
            return value
        if is_counter:
            self.problem(idx, "%s event on counter track %d (slice/instant event on "
                         "counter track)" % (kind, uuid))
            return None
        if kind == "begin":
            self.open.setdefault(uuid, []).append((name, ts))
        elif kind == "end":
            stack = self.open.get(uuid)
            if not stack:
                self.problem(idx, "slice end with no open slice on track %d" % uuid)
                return None
            bname, bts = stack.pop()
            if ts is not None and bts is not None and ts < bts:
                self.problem(idx, "slice %r on track %d ends (%d) before it begins (%d)"
                             % (bname, uuid, ts, bts))
            n = self.slices.setdefault(key, {})
            n[bname or ""] = n.get(bname or "", 0) + 1
        else:
            n = self.instants.setdefault(key, {})
            n[name or ""] = n.get(name or "", 0) + 1
        return None

    def count_value(self, key, value):
        c = self.counters.setdefault(key, {"values": 0, "sum": 0, "last": None})
        c["values"] += 1
        c["sum"] += value
        c["last"] = value

    def extra_counters(self, idx, seq, te):
        d = seq.defaults.track_event_defaults if seq.defaults is not None else None
        for uf, vf in (("extra_counter_track_uuids", "extra_counter_values"),
                       ("extra_double_counter_track_uuids", "extra_double_counter_values")):
            values = getattr(te, vf)
            if not values:
                continue
            uuids = getattr(te, uf) or (getattr(d, uf) if d is not None else [])
            if len(uuids) != len(values):
                self.problem(idx, "%d %s for %d track uuids" % (len(values), vf, len(uuids)))
                continue
            for u, v in zip(uuids, values):
                if u not in self.counter_tracks:
                    self.problem(idx, "extra counter value on %s track %d"
                                 % ("non-counter" if u in self.tracks else "undeclared", u))
                else:
                    self.count_value(str(u), v)

    def finish(self):
        for uuid, stack in self.open.items():
            if stack:
                self.problem(None, "%d slice(s) on track %d still open at end of "
                             "file (innermost %r)" % (len(stack), uuid, stack[-1][0]))
        for uuid, info in self.tracks.items():
            if info["parent"] is not None and int(info["parent"]) not in self.tracks:
                self.problem(None, "track %d has undeclared parent %s"
                             % (uuid, info["parent"]))

    def summary(self):
        return {"packets": self.packets, "sequences": len(self.seqs),
                "track_events": self.track_events,
                "tracks": {str(u): t for u, t in self.tracks.items()},
                "slices": self.slices, "instants": self.instants, "counters": self.counters}


def main(argv):
    ap = argparse.ArgumentParser(description="Check a Perfetto trace (tracekit issue 19).")
    ap.add_argument("--proto", required=True, help="Perfetto's perfetto_trace.proto")
    ap.add_argument("--summary", help="write the summary JSON here")
    ap.add_argument("--events", help="write one JSON line per TrackEvent here")
    ap.add_argument("--cache", default=os.environ.get("TK_PERFETTO_CACHE") or None,
                    help="directory for the generated Python classes "
                    "(default: $TK_PERFETTO_CACHE, else a per-user temp dir)")
    ap.add_argument("trace")
    args = ap.parse_args(argv)
    pb = load_proto_module(args.proto, args.cache)
    try:
        f = open(args.trace, "rb")
    except OSError as e:
        print("check.py: %s: %s" % (args.trace, e.strerror))
        return 1
    desc = os.path.splitext(pb.__file__)[0] + ".desc"
    decode = ProtocDecode(find_protoc(), args.proto, desc, args.trace)
    events = open(args.events, "w") if args.events else None
    chk = Checker(pb, events)
    batch = ProtocDecode.BATCH
    with f:
        size = os.fstat(f.fileno()).st_size
        for idx, off, raw in trace_records(f, size, chk.problem):
            if off - decode.start >= batch:
                decode.cut(off)
            chk.feed(idx, raw)
    decode.finish(size)
    chk.finish()
    if events:
        events.close()
    for p in decode.problems():
        chk.problem(None, p)
    if args.summary:
        with open(args.summary, "w") as s:
            json.dump(chk.summary(), s, indent=1, sort_keys=True)
            s.write("\n")
    for p in chk.problems:
        print(p)
    if chk.nproblems > len(chk.problems):
        print("... and %d more problems" % (chk.nproblems - len(chk.problems)))
    if chk.nproblems:
        print("check.py: %s: INVALID, %d problem(s)" % (args.trace, chk.nproblems))
        return 1
    print("check.py: %s: ok, %d packets, %d sequences, %d tracks, %d track events"
          % (args.trace, chk.packets, len(chk.seqs), len(chk.tracks), chk.track_events))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
