#!/usr/bin/python3
"""The parts of a UCIR HTML report that no --json prints whole, checked
against the trace's own records (tracekit dump --json), recomputed here
independently of the page's C code:

  - the hot-code table: each address's executions (the instructions
    placed there: spec traces at their EXEC, .uc traces at their STEP)
    and its disassembly (dump's, at the address's last execution);
  - the regions table: per MEM_MAP range, the instructions executed and
    the bytes written there (a write in the region holding its first
    byte; later keyframes skipped, as the replay skips them).

It also writes the dump's syscall and memory-map records as JSON arrays
(DOCS/syscalls.json, DOCS/memevents.json) for check.mjs, which compares
the page's tables with them.

usage: ucir_check.py DUMP_JSONL PAGE_HTML DOCS_DIR
Exit: 0 ok, 1 a check failed."""
import bisect
import html.parser
import json
import os
import re
import sys


class Tables(html.parser.HTMLParser):
    """Rows of the tables with an id: {id: [[(data-v, text), ...], ...]}."""

    def __init__(self):
        super().__init__()
        self.tables, self.cur, self.row, self.cell, self.in_body = {}, None, None, None, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'table' and a.get('id'):
            self.cur = self.tables.setdefault(a['id'], [])
        elif tag == 'tbody' and self.cur is not None:
            self.in_body = True
        elif tag == 'tr' and self.in_body:
            self.row = []
        elif tag == 'td' and self.row is not None:
            self.cell = [a.get('data-v'), '']

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data

    def handle_endtag(self, tag):
        if tag == 'td' and self.cell is not None:
            v = self.cell[0]
            self.row.append((json.loads(v) if v is not None else None, self.cell[1]))
            self.cell = None
        elif tag == 'tr' and self.row is not None:
            self.cur.append(self.row)
            self.row = None
        elif tag == 'tbody':
            self.in_body = False
        elif tag == 'table':
            self.cur = None


class Spans:
    """Mapped spans [lo, hi) -> region key (addr, size), as regions.c."""

    def __init__(self):
        self.lo, self.items = [], []  # sorted by lo: (lo, hi, key)

    def cut(self, lo, hi):
        out = []
        for a, b, k in self.items:
            if b <= lo or a >= hi:
                out.append((a, b, k))
                continue
            if a < lo:
                out.append((a, lo, k))
            if b > hi:
                out.append((hi, b, k))
        self.items = sorted(out)
        self.lo = [s[0] for s in self.items]

    def map(self, lo, size):
        hi = min(lo + size, 2**64 - 1)
        if hi == lo:
            return
        self.cut(lo, hi)
        self.items = sorted(self.items + [(lo, hi, (lo, size))])
        self.lo = [s[0] for s in self.items]

    def find(self, addr):
        i = bisect.bisect_right(self.lo, addr) - 1
        if i >= 0 and self.items[i][0] <= addr < self.items[i][1]:
            return self.items[i][2]
        return None


def recompute(records):
    """Executions per pc, last disasm per pc, and per region (key or
    'no region') instructions, bytes written and writes."""
    uc = any(r['kind'] == 'step' for r in records)
    placed_insns = set()
    if uc:
        skip = False
        for r in records:
            if r['kind'] == 'frame':
                skip = r['keyframe']
            elif r['kind'] == 'step' and r['depth'] == 0 and not skip and r['insn'] is not None:
                placed_insns.add(r['insn'])
    # later keyframes: records between a keyframe FRAME (not the first) and the next FRAME
    first_key, skipping = False, False
    spans, regions = Spans(), {}
    counts, disasm = {}, {}
    for r in records:
        if r['kind'] == 'frame':
            skipping = r['keyframe'] and first_key
            first_key |= r['keyframe']
            continue
        if skipping:
            continue
        if 'pc' in r and r['pc'] is not None and (not uc or r['insn'] in placed_insns):
            counts[r['pc']] = counts.get(r['pc'], 0) + 1
            disasm[r['pc']] = r.get('disasm')
            key = spans.find(r['pc']) or 'no region'
            regions.setdefault(key, [0, 0, 0])[0] += 1
        k = r['kind']
        if k == 'mem_write':
            key = spans.find(r['addr']) or 'no region'
            reg = regions.setdefault(key, [0, 0, 0])
            reg[1] += r['size']
            reg[2] += 1
        elif k == 'mem_map':
            regions.setdefault((r['addr'], r['size']), [0, 0, 0])
            spans.map(r['addr'], r['size'])
        elif k == 'mem_unmap':
            hi = min(r['addr'] + r['size'], 2**64 - 1)
            if hi > r['addr']:
                spans.cut(r['addr'], hi)
    return counts, disasm, regions


def main():
    dump, page, docs = sys.argv[1:4]
    records = [json.loads(line) for line in open(dump) if line.strip()]
    for name, kinds in (('syscalls', {'syscall'}), ('memevents', {'mem_map', 'mem_unmap', 'mem_prot'})):
        sel = [r for r in records if r['kind'] in kinds]
        if sel:
            with open(os.path.join(docs, name + '.json'), 'w') as f:
                json.dump(sel, f)
    p = Tables()
    p.feed(open(page, encoding='utf-8').read())
    counts, disasm, regions = recompute(records)
    failures, checks = [], 0

    def check(ok, msg):
        nonlocal checks
        checks += 1
        if not ok:
            failures.append(msg)

    hot = p.tables.get('hot-code', [])
    check(len(hot) == min(len(counts), 100), f'hot-code: {len(hot)} rows, {len(counts)} addresses')
    want = sorted(counts.items(), key=lambda e: (-e[1], e[0]))
    for row, (pc, n) in zip(hot, want):
        check(row[0][0] == pc and row[1][0] == n,
              f'hot-code: row {row[0][1]} x{row[1][0]}, expected 0x{pc:x} x{n}')
        d = disasm.get(row[0][0])
        if d is not None or row[5][0] is not None:
            # without capstone the page shows none; with it, dump's text
            check(row[5][0] == d or row[5][0] is None and d is None,
                  f'hot-code 0x{pc:x}: disassembly {row[5][0]!r}, dump {d!r}')
    regs = p.tables.get('region-table', [])
    seen = set()
    for row in regs:
        name = row[0][1]
        m = re.match(r'0x([0-9a-f]+)-0x([0-9a-f]+)', name)
        key = (int(m.group(1), 16), row[1][0]) if m else name
        seen.add(key)
        got = [row[3][0], row[4][0], row[5][0]]
        check(got == regions.get(key, [0, 0, 0]),
              f'region {name}: instructions, bytes written, writes {got}, '
              f'expected {regions.get(key)}')
    for key, v in regions.items():
        check(key in seen or v == [0, 0, 0], f'region {key} ({v}) not on the page')
    check(len(regs) > 0, 'no region-table rows')
    for f in failures[:40]:
        print('FAIL: ' + f)
    print(f'{page}: {checks} checks of hot code and regions against dump --json, '
          f'{len(failures)} failed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
