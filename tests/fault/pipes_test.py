#!/usr/bin/env python3
"""Pipes that close early and a full device (issue 23, item 5): no shim,
so these run in the sanitized build too.

* The trace arrives through a pipe whose writer stops early: a truncated
  trace, reported with its offset as a malformed one (exit 1), like a cut
  file; --allow-truncated reads the records before the cut.
* Standard output is a pipe nobody reads any more (SIGPIPE ignored, as a
  shell's `trap '' PIPE` does): one line, exit 2.
* -o /dev/full: the device fills: one line with the reason, exit 2.

usage: pipes_test.py TRACEKIT SOURCE_DIR BIN_DIR"""
import os
import subprocess
import sys
import tempfile

tk, src, bindir = sys.argv[1:4]
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(args, stdin=None, stdout=subprocess.PIPE, restore=True):
    p = subprocess.run([tk] + args, input=stdin, stdout=stdout, stderr=subprocess.PIPE,
                       restore_signals=restore)
    return p.returncode, p.stdout, p.stderr.decode()


with tempfile.TemporaryDirectory() as tmp:
    traces = {}
    gens = {
        "xray": ["tk-gen-xray", "--mode", "basic", "--version", "3", "--bytes", "1M"],
        "cacheray": ["tk-gen-cacheray", "--bytes", "1M"],
        "casemate": ["tk-gen-casemate", "--bytes", "1M"],
        "ucir": ["tk-gen-ucir", "--bytes", "2M", "--frame-bytes", "64K"],
    }
    for fmt, argv in gens.items():
        path = os.path.join(tmp, fmt)
        subprocess.run([os.path.join(bindir, argv[0])] + argv[1:] + ["-o", path], check=True,
                       stderr=subprocess.DEVNULL)
        traces[fmt] = path

    # the writer of the input pipe stops 600007 bytes in, inside a record
    for fmt, path in traces.items():
        data = open(path, "rb").read()
        cut = data[:600007]
        rc, out, err = run(["validate", "-"], stdin=cut)
        lines = err.splitlines()
        if rc != 1 or len(lines) != 1 or not lines[0].startswith("tracekit: <stdin>"):
            fail(f"{fmt}: input pipe closed early: exit {rc}, stderr {err!r}")
        # the records before the cut read, with one warning
        rc, out, err = run(["dump", "--allow-truncated", "--json", "-"], stdin=cut)
        full = run(["dump", "--json", path])[1].splitlines()
        got = out.splitlines()
        if rc != 0 or not got or got != full[:len(got)] or len(got) >= len(full):
            fail(f"{fmt}: --allow-truncated on the cut pipe: exit {rc}, {len(got)} of "
                 f"{len(full)} records, stderr {err!r}")
        if "warning" not in err or "truncated tail" not in err:
            fail(f"{fmt}: --allow-truncated: no warning: {err!r}")

        # standard output's reader is gone: EPIPE with SIGPIPE ignored
        r, w = os.pipe()
        os.close(r)
        p = subprocess.run([tk, "dump", path], stdout=w, stderr=subprocess.PIPE,
                           restore_signals=False)
        os.close(w)
        err = p.stderr.decode()
        if p.returncode != 2 or err != "tracekit: <stdout>: write failed: Broken pipe\n":
            fail(f"{fmt}: stdout closed: exit {p.returncode}, stderr {err!r}")

        # -o /dev/full (a device: written in place, so the error comes at
        # the first flush)
        rc, out, err = run(["convert", "--to", "jsonl", "-o", "/dev/full", path])
        if rc != 2 or err != "tracekit: /dev/full: write failed: No space left on device\n":
            fail(f"{fmt}: -o /dev/full: exit {rc}, stderr {err!r}")

    # the inputs are untouched by all this
    for fmt, argv in gens.items():
        again = os.path.join(tmp, fmt + ".again")
        subprocess.run([os.path.join(bindir, argv[0])] + argv[1:] + ["-o", again], check=True,
                       stderr=subprocess.DEVNULL)
        if open(again, "rb").read() != open(traces[fmt], "rb").read():
            fail(f"{fmt}: the input changed")

if failures:
    print(f"{len(failures)} pipe/device check(s) failed")
    sys.exit(1)
print("early-closing pipes and a full device: clear errors, right exit statuses")
