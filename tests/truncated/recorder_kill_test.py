#!/usr/bin/env python3
"""A program recorded with tracekit-cc and killed with SIGKILL (issue 23).

The recorder writes whole records only (recorder/rt_buffer.c: a record is
committed to the buffer after it is complete, and the buffer is written
whole), but a SIGKILL arriving during write(2) makes the kernel stop
copying at a page boundary, inside a record. So: a trace ending at a record
boundary validates as it is; one ending inside a record fails as before
and validates with --allow-truncated, the warning naming the last whole
record's end. Either way the records read are exactly the whole ones
(their boundaries parsed here). Exit 77 without tracekit-cc's clang.

usage: recorder_kill_test.py TRACEKIT_CC TRACEKIT SOURCE_DIR SCRATCH_DIR
"""
import os
import signal
import struct
import subprocess
import sys
import time

CC, TK, SRC, TMP = (os.path.abspath(a) for a in sys.argv[1:5])
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def boundaries(b):
    """Offsets of whole records (and where the last whole one ends)."""
    o, n = 0, 0
    while o < len(b):
        base = b[o] & 0x3F
        size = 18 if base in (0, 1) else 17 if base == 3 else None
        if base == 2:
            if o + 29 > len(b):
                break
            size = 29 + struct.unpack_from("<I", b, o + 25)[0]
        if size is None:
            raise ValueError("tag 0x%02x at 0x%x" % (b[o], o))
        if o + size > len(b):
            break
        o += size
        n += 1
    return o, n


def tk(*args):
    p = subprocess.run([TK] + list(args), capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def one(exe, k):
    trace = os.path.join(TMP, "killed%d.trace" % k)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TRACEKIT_CACHERAY": trace}
    if os.path.exists(trace):  # a previous run's trace would end the wait at once
        os.remove(trace)
    p = subprocess.Popen([exe], env=env)
    deadline = time.time() + 20
    want = (3 + k) << 20  # a few buffers' worth, then kill
    while time.time() < deadline and (not os.path.exists(trace) or os.path.getsize(trace) < want):
        time.sleep(0.002)
    p.send_signal(signal.SIGKILL)
    p.wait()
    with open(trace, "rb") as f:
        data = f.read()
    if len(data) < want:
        fail("run %d: trace of %d bytes only" % (k, len(data)))
        return None
    end, records = boundaries(data)
    rc, out, err = tk("validate", trace)
    if end == len(data):
        if rc != 0:
            fail("run %d: trace ends at a record boundary but validate says %r" % (k, err))
    elif rc != 1 or "truncated" not in err:
        fail("run %d: cut at 0x%x: validate exit %d, %r" % (k, end, rc, err))
    rc, out, err = tk("validate", "--allow-truncated", trace)
    want_err = "" if end == len(data) else \
        "tracekit: warning: %s: truncated tail: dropped %d byte%s of a write record at " \
        "offset 0x%x\n" % (trace, len(data) - end, "" if len(data) - end == 1 else "s", end)
    if rc != 0 or err != want_err:
        fail("run %d: validate --allow-truncated: exit %d, %r (wanted %r)" % (k, rc, err, want_err))
    rc, out, err = tk("info", "--allow-truncated", "--json", trace)
    if rc != 0 or ('"records":%d,' % records) not in out:
        fail("run %d: info --allow-truncated: %d records wanted, got %s" % (k, records, out[:300]))
    return end == len(data)


def main():
    if not os.access(CC, os.X_OK):
        print("SKIP: no tracekit-cc")
        return 77
    os.makedirs(TMP, exist_ok=True)
    exe = os.path.join(TMP, "forever")
    src = os.path.join(SRC, "tests/truncated/programs/forever.c")
    if subprocess.run([CC, "-O1", "-Wall", "-Wextra", "-Werror", src, "-o", exe]).returncode:
        print("SKIP: tracekit-cc cannot build (no clang?)")
        return 77
    ends = [one(exe, k) for k in range(4)]
    print("record-boundary ends: %s" % ends)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
