#!/usr/bin/env python3
"""The libraries export the public API, exactly (tracekit.h, "Symbols"):

  static   every global symbol libtracekit.a defines starts with tk_, and
           they are the functions include/tracekit/ declares (the recorder's
           cacheray_record.h aside): nothing missing, nothing internal;
  shared   libtracekit.so exports the same set;
  soname   libtracekit.so.MAJOR, the file libtracekit.so.VERSION, VERSION
           being the project's (CMakeLists.txt);
  pragmas  every declaration is inside its header's
           `#pragma GCC visibility push(default)` ... `pop` (the library
           is compiled with -fvisibility=hidden).

The declarations are read with unit.api_convention's parser.
Usage: symbols_test.py INCLUDE_DIR LIBTRACEKIT.a LIBTRACEKIT.so VERSION
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit"))
import api_convention_test  # noqa: E402  (the header parser)

NOT_IN_LIBRARY = {"cacheray_record.h"}  # the recorder runtime's API


PUSH = "#pragma GCC visibility push(default)"
POP = "#pragma GCC visibility pop"


def declared(inc, problems):
    """The functions the headers declare; a declaration outside the
    header's visibility pragmas (which the library would hide) is a
    problem."""
    names = set()
    for n in sorted(os.listdir(inc)):
        if not n.endswith(".h") or n in NOT_IN_LIBRARY:
            continue
        with open(os.path.join(inc, n), encoding="utf-8") as fh:
            text = fh.read()
        lines = text.split("\n")
        push = [i + 1 for i, ln in enumerate(lines) if ln.strip() == PUSH]
        pop = [i + 1 for i, ln in enumerate(lines) if ln.strip() == POP]
        for f in api_convention_test.functions(text):
            if f["ret"].startswith("static"):
                continue
            names.add(f["name"])
            if not any(a < f["line"] < b for a, b in zip(push, pop)):
                problems.append("%s:%d: %s is declared outside `%s` ... `%s`: the library "
                                "hides it" % (n, f["line"], f["name"], PUSH, POP))
    return names


def defined_globals(args):
    """Names of the defined global symbols `nm ARGS` lists."""
    out = subprocess.run(["nm", "-g", "--defined-only"] + args, check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3:  # value, type, name ("FILE.o:" lines have one field)
            names.add(f[2])
    return names


def compare(what, got, want):
    problems = []
    for n in sorted(got - want):
        problems.append("%s: exports %s, which include/tracekit/ does not declare" % (what, n))
    for n in sorted(want - got):
        problems.append("%s: does not define %s, declared in include/tracekit/" % (what, n))
    return problems


def soname_problems(so, version):
    major = version.split(".")[0]
    problems = []
    dyn = subprocess.run(["readelf", "-d", so], check=True, capture_output=True,
                         text=True).stdout
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^]]+)\]", dyn)
    if not m or m.group(1) != "libtracekit.so." + major:
        problems.append("soname: %s, not libtracekit.so.%s" % (m.group(1) if m else "none", major))
    real = os.path.basename(os.path.realpath(so))
    if real != "libtracekit.so." + version:
        problems.append("soname: the library file is %s, not libtracekit.so.%s" % (real, version))
    return problems


def main():
    if len(sys.argv) != 5:
        print(__doc__.strip().splitlines()[-1])
        return 2
    inc, static, shared, version = sys.argv[1:]
    problems = []
    want = declared(inc, problems)
    if len(want) < 100:  # the parser found the API, or this test means nothing
        print("only %d functions declared in %s" % (len(want), inc))
        return 1
    in_static = defined_globals([static])
    in_shared = defined_globals(["-D", shared])
    problems += ["libtracekit.a: global %s lacks the tk_ prefix" % n
                 for n in sorted(in_static) if not n.startswith("tk_")]
    problems += compare("libtracekit.a", in_static, want)
    problems += compare("libtracekit.so", in_shared, want)
    problems += soname_problems(shared, version)
    for p in problems:
        print(p)
    print("%d public functions; libtracekit.a %d globals, libtracekit.so %d exports: %s"
          % (len(want), len(in_static), len(in_shared),
             "%d problems" % len(problems) if problems else "ok"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
