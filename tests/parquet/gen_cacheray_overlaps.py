#!/usr/bin/env python3
"""Write a random Cacheray trace whose RTTA regions overlap, share starts,
are empty, wrap past 2^64, are removed or removed twice, with accesses
mostly inside them: the cases of the live-region rule for
compare_cacheray.py's model (tests/parquet/cacheray.cmake).

  gen_cacheray_overlaps.py OUT [--records N] [--seed S] [--big]"""
import argparse
import random
import struct

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--records", type=int, default=3000)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--big", action="store_true")
a = ap.parse_args()
rng = random.Random(a.seed)
e = ">" if a.big else "<"
BASE = 0x5555555a0000
NAMES = [b"struct.node", b"double", b"void*", b"i32", b"struct.pair"]
starts = []
spans = []  # (start, bytes) of the regions added
out = bytearray()
for _ in range(a.records):
    r = rng.random()
    thread = rng.choice([7, 8, 9])
    if r < 0.08 or not starts:  # RTTA_ADD, sometimes at a known start
        addr = rng.choice(starts) if starts and rng.random() < 0.3 else BASE + rng.randrange(0, 4096, 8)
        if rng.random() < 0.02:
            addr = (1 << 64) - 16  # wraps
        esize = rng.choice([0, 1, 4, 8, 24]) if rng.random() < 0.1 else rng.choice([4, 8, 24])
        count = rng.choice([0, 1, 2, 10, 40]) if rng.random() < 0.1 else rng.randrange(1, 20)
        name = rng.choice(NAMES)
        out += struct.pack(e + "BQQIII", 2, addr, thread, esize, count, len(name)) + name
        starts.append(addr)
        spans.append((addr, esize * count))
    elif r < 0.14:  # RTTA_REMOVE, mostly of a start seen
        addr = rng.choice(starts) if rng.random() < 0.9 else BASE + rng.randrange(0, 4096)
        out += struct.pack(e + "BQQ", 3, addr, thread)
    else:  # READ or WRITE, with flags
        addr = BASE + rng.randrange(-64, 4200)
        if spans and rng.random() < 0.3:  # at a boundary of a recent region
            start, n = rng.choice(spans[-8:])
            addr = (start + rng.choice([-1, 0, n - 1, n])) % (1 << 64)
        if rng.random() < 0.01:
            addr = (1 << 64) - rng.randrange(1, 16)
        tag = rng.choice([0, 1]) | rng.choice([0, 0, 0, 0x40, 0x80, 0xC0])
        out += struct.pack(e + "BQBQ", tag, addr, rng.choice([0, 1, 2, 4, 8]), thread)
open(a.out, "wb").write(out)
