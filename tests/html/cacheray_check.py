#!/usr/bin/env python3
"""What check.mjs cannot match by key on a Cacheray HTML report.

- the per-level miss columns ("L1 misses", ...) of the type, field and
  thread tables equal report --json's `misses` arrays;
- the windows: at most 256, in order, their misses add up to each level's
  misses, and a window's miss rate is blank exactly when no line access
  reached the level (then it has no misses);
- the miss-ratio curve equals the one the reuse histogram of cachesim
  --reuse --json implies (misses at 2^j lines: cold + distances >= 2^j);
  the cold line accesses are L1's compulsory misses, and at L1's size (a
  power of two lines) the curve's misses are at least L1's compulsory +
  capacity ones (a capacity miss is a miss of L1 that a fully associative
  LRU cache of its size misses too), exactly those when L1 is that cache.

usage: cacheray_check.py REPORT.html REPORT.json CACHESIM.json
Exit: 0 ok, 1 a check failed.
"""
import json
import sys
from html.parser import HTMLParser


class Tables(HTMLParser):
    """Every table: its id (or its figure's), data-src, headers, rows."""

    def __init__(self):
        super().__init__()
        self.tables, self.ids, self.cell = [], [], None
        self.in_head, self.row = False, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ('figure', 'section', 'table', 'div', 'details'):
            self.ids.append((tag, a.get('id')))
        if tag == 'table':
            owner = next((i for _, i in reversed(self.ids) if i), None)
            self.tables.append({'id': owner, 'src': a.get('data-src'), 'head': [],
                                'rows': []})
        elif tag == 'tr' and self.tables:
            self.row = None if 'tk-other' in (a.get('class') or '') else []
            if self.row is not None and not self.in_head:
                self.tables[-1]['rows'].append(self.row)
        elif tag == 'thead':
            self.in_head = True
        elif tag == 'tbody':
            self.in_head = False
        elif tag == 'th':
            self.cell = ''
        elif tag == 'td' and self.row is not None:
            self.row.append(json.loads(a['data-v']) if 'data-v' in a else None)

    def handle_endtag(self, tag):
        if tag in ('figure', 'section', 'table', 'div', 'details'):
            while self.ids and self.ids.pop()[0] != tag:
                pass
        elif tag == 'th' and self.cell is not None and self.in_head:
            self.tables[-1]['head'].append(self.cell.strip())
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


failures = 0


def check(ok, msg):
    global failures
    if not ok:
        failures += 1
        if failures <= 40:
            print('FAIL: ' + msg)
    return ok


def misses_match(t, elems, keys, levels, what):
    """Each row's "<level> misses" cells equal its element's misses."""
    cols = [t['head'].index(f'{lv["name"]} misses') for lv in levels]
    kcols = [t['head'].index(k) for k in keys]
    n = 0
    for r in t['rows']:
        kv = [r[i] for i in kcols]
        e = [e for e in elems if [e[k] for k in keys.values()] == kv]
        if not check(len(e) == 1, f'{what}: {kv} is not one element of --json'):
            continue
        check([r[i] for i in cols] == e[0]['misses'],
              f'{what} {kv}: misses {[r[i] for i in cols]} on the page, {e[0]["misses"]} in --json')
        n += 1
    return n


def windows(tables, levels):
    rate = next((t for t in tables if t['id'] == 'window-rate'), None)
    miss = next((t for t in tables if t['id'] == 'window-misses'), None)
    if not check(rate and miss, 'no window tables'):
        return
    check(0 < len(miss['rows']) <= 256 and len(miss['rows']) == len(rate['rows']),
          f'{len(miss["rows"])} windows')
    xs = [r[0] for r in miss['rows']]
    check(xs == sorted(set(xs)) and xs == [r[0] for r in rate['rows']], 'windows out of order')
    for k, lv in enumerate(levels):
        got = sum(r[k + 1] for r in miss['rows'])
        check(got == lv['read_misses'] + lv['write_misses'],
              f'{lv["name"]}: the windows add up to {got} misses, --json has '
              f'{lv["read_misses"] + lv["write_misses"]}')
        for rr, rm in zip(rate['rows'], miss['rows']):
            v, m = rr[k + 1], rm[k + 1]
            ok = m == 0 if v is None else 0 <= v <= 1 and (m == 0) == (v == 0)
            check(ok, f'{lv["name"]} window {rr[0]}: rate {v} with {m} misses')


def curve(tables, levels, reuse):
    t = next((t for t in tables if t['id'] == 'mrc'), None)
    if not check(t and reuse, 'no miss-ratio curve or no reuse in --json'):
        return
    line, cold = levels[0]['line_size'], reuse['cold']
    counts = [b['count'] for b in reuse['histogram']]
    total = cold + sum(counts)
    for j, (x, y) in enumerate((r[0], r[1]) for r in t['rows']):
        want = (cold + sum(counts[j + 1:])) / total
        check(x == line * 2 ** j and y == want, f'curve point {j}: ({x}, {y}), expected '
                                                f'({line * 2 ** j}, {want})')
    l1 = levels[0]
    lines = l1['size'] // l1['line_size']
    j = lines.bit_length() - 1
    if lines != 1 << j or l1['compulsory'] is None or not l1['write_allocate']:
        return
    check(cold == l1['compulsory'], f'{cold} cold line accesses, L1 has {l1["compulsory"]} '
                                    'compulsory misses')
    if not check(j < len(t['rows']), f'the curve stops before L1 ({lines} lines)'):
        return
    # L1's capacity misses are its misses the LRU cache of its size misses
    # too: all of them when L1 is that cache
    fa, cc = cold + sum(counts[j + 1:]), l1['compulsory'] + l1['capacity']
    full = l1['ways'] == lines and l1['policy'] == 'lru'
    check(fa == cc if full else fa >= cc,
          f'LRU of L1\'s {lines} lines misses {fa} times, L1 has compulsory + capacity = {cc}')


def main():
    html, rep, sim = sys.argv[1:4]
    p = Tables()
    with open(html, encoding='utf-8') as f:
        p.feed(f.read())
    report = json.load(open(rep))
    reuse = json.load(open(sim))['reuse']
    levels = report['levels']
    n = 0
    for t in p.tables:
        src = t['src'] or ''
        if src == 'report.types':
            if t['id'] == 'type-table':
                n += misses_match(t, report['types'], {'type': 'name'}, levels, 'type')
        elif src == 'report.threads':
            n += misses_match(t, report['threads'], {'thread': 'thread'}, levels, 'thread')
        elif src.startswith('report.types.') and src.endswith('.fields'):
            fields = report['types'][int(src.split('.')[2])]['fields']
            n += misses_match(t, fields, {'field': 'name', 'offset': 'offset'}, levels, src)
    check(n > 0 or not report['types'], 'no per-level miss cells compared')
    if report['records'] == 0:  # an empty selection: neither windows nor a curve
        check(not any(t['id'] in ('window-rate', 'window-misses', 'mrc') for t in p.tables),
              'windows or a curve without records')
    else:
        windows(p.tables, levels)
        curve(p.tables, levels, reuse)
    print(f'{html}: {n} rows of misses, windows and curve checked, {failures} failed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
