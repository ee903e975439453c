// Reads back the files pq_write.c wrote with two independent readers,
// DuckDB (@duckdb/node-api) and hyparquet (pure JavaScript), and checks
// every value, the schema, row counts and row groups, the statistics and
// page index against values computed here again (value(), as gen() in
// pq_write.c), and that both readers skip what the statistics exclude:
// the pages they must skip are overwritten with garbage in a copy.
// Usage: node check.mjs DIR NODE_DIR VERSION   (NODE_DIR: tests/node, with
// its node_modules; VERSION: tracekit's, as created_by names it)
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const [dir, nodeDir, version] = process.argv.slice(2)
const require = createRequire(path.join(path.resolve(nodeDir), 'package.json'))
const { DuckDBInstance } = require('@duckdb/node-api')
const hy = await import(pathToFileURL(require.resolve('hyparquet')).href)
const { compressors } = await import(pathToFileURL(require.resolve('hyparquet-compressors')).href)
// hyparquet's own Thrift decoder, for the footer's raw bytes
const hyDir = path.join(path.resolve(nodeDir), 'node_modules', 'hyparquet')
const { deserializeTCompactProtocol } = await import(pathToFileURL(path.join(hyDir, 'src/thrift.js')).href)

let failures = 0
let checks = 0
function check(ok, msg) {
  checks++
  if (!ok && failures++ < 40) console.log('FAIL: ' + msg)
}
const show = v => typeof v === 'bigint' ? v + 'n' : Object.is(v, -0) ? '-0' : JSON.stringify(v)

// ---- the tables pq_write.c writes
const KINDS = ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32',
  'uint64', 'ts', 'double', 'string', 'binary']
const INTS = new Set(['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'ts'])
const BYTES = new Set(['string', 'binary'])
function allColumns() {
  const cols = [{ name: 'seq', kind: 'seq', opt: false, enc: 'auto' }]
  for (const kind of KINDS) {
    for (const enc of ['plain', 'dict', 'delta']) {
      if ((enc === 'dict' && !BYTES.has(kind)) || (enc === 'delta' && !INTS.has(kind))) continue
      for (const opt of [false, true]) cols.push({ name: `${kind}_${enc}_${opt ? 'opt' : 'req'}`, kind, opt, enc })
    }
  }
  cols.push({ name: 'all_null', kind: 'int64', opt: true, enc: 'auto', allNull: true })
  return cols
}
const ROWS = 5000
const RG_ROWS = 1500
const isNull = i => i % 4 === 1 || (i >= 3000 && i < 4500)

// Row i's value, normalized: integers BigInt, binary hex, the rest as is.
function value(kind, i) {
  const m = i % 1000
  const I = BigInt(i)
  switch (kind) {
  case 'seq': return I
  case 'bool': return i % 3 === 0
  case 'int8': return BigInt((i * 7) % 256 - 128)
  case 'int16': return BigInt((i * 31) % 65536 - 32768)
  case 'int32': return m === 1 ? -(2n ** 31n) : m === 2 ? 2n ** 31n - 1n : BigInt.asIntN(32, I * 2654435761n)
  case 'int64': return m === 1 ? -(2n ** 63n) : m === 2 ? 2n ** 63n - 1n : I * 1000n + BigInt(i % 7)
  case 'uint8': return BigInt(i % 256)
  case 'uint16': return BigInt((i * 17) % 65536)
  case 'uint32': return m === 1 ? 0n : m === 2 ? 2n ** 32n - 1n : BigInt.asUintN(32, I * 2654435761n)
  case 'uint64': return m === 2 ? 2n ** 64n - 1n : BigInt.asUintN(64, I * 0x9E3779B97F4A7C15n)
  case 'ts': return 1700000000000000000n + I * 1000003n
  case 'double': return m === 3 ? NaN : m === 4 ? -0 : m === 5 ? Infinity : m === 6 ? -Infinity : i * 0.25 - 100
  case 'string':
    if (m === 7) return ''
    if (m === 8) return 'z'.repeat(100) + i
    if (m === 9) return 'bad\uFFFD\uFFFD'
    if (m === 10) return '\u00e9\u4e2d\u{1F600}'
    return 'func_' + (i % 50)
  case 'binary': {
    const b = []
    for (let k = 0; k < i % 5; k++) b.push((i * 13 + k * 101) & 255)
    return Buffer.from(b).toString('hex')
  }
  }
  throw new Error('kind ' + kind)
}
const expected = (col, i) => col.allNull || (col.opt && isNull(i)) ? null : value(col.kind, i)

// A reader's value, normalized like value()'s.
function norm(kind, v) {
  if (v === null || v === undefined) return null
  if (INTS.has(kind) || kind === 'seq') return BigInt(v)
  if (kind === 'binary') return typeof v === 'string' ? v.toLowerCase() : Buffer.from(v).toString('hex')
  return v
}
const same = (a, b) => typeof a === 'number' && typeof b === 'number' ? Object.is(a, b) : a === b

// ---- statistics as written: PLAIN bytes in the column's order
const PHYS = { bool: 'BOOLEAN', int8: 'INT32', int16: 'INT32', int32: 'INT32', uint8: 'INT32',
  uint16: 'INT32', uint32: 'INT32', int64: 'INT64', uint64: 'INT64', ts: 'INT64', seq: 'INT64',
  double: 'DOUBLE', string: 'BYTE_ARRAY', binary: 'BYTE_ARRAY' }
function encodeStat(kind, v) {
  const b = Buffer.alloc(8)
  switch (PHYS[kind]) {
  case 'BOOLEAN': return Buffer.from([v ? 1 : 0])
  case 'INT32': b.writeUInt32LE(Number(BigInt.asUintN(32, v))); return b.subarray(0, 4)
  case 'INT64': b.writeBigUInt64LE(BigInt.asUintN(64, v)); return b
  case 'DOUBLE': b.writeDoubleLE(v); return b
  default: return kind === 'binary' ? Buffer.from(v, 'hex') : Buffer.from(v, 'utf8')
  }
}
function cmp(kind, a, b) {
  if (kind === 'string' || kind === 'binary') return Buffer.compare(encodeStat(kind, a), encodeStat(kind, b))
  if (kind === 'bool') return Number(a) - Number(b)
  return a < b ? -1 : a > b ? 1 : 0
}
// Bounds of some values as the writer cuts them (stats.c: cut_bytes).
function bounds(kind, vals) {
  const live = vals.filter(v => v !== null && !(typeof v === 'number' && isNaN(v)))
  const nulls = vals.filter(v => v === null).length
  if (!live.length) return { nulls }
  let lo = live[0], hi = live[0]
  for (const v of live) { if (cmp(kind, v, lo) < 0) lo = v; if (cmp(kind, v, hi) > 0) hi = v }
  if (kind === 'double') { if (lo === 0) lo = -0; if (hi === 0) hi = 0 }
  let min = encodeStat(kind, lo), max = encodeStat(kind, hi)
  let minExact = true, maxExact = true
  const utf8 = kind === 'string'
  if (min.length > 64) {
    let n = 64
    while (utf8 && n > 0 && (min[n] & 0xc0) === 0x80) n--
    min = min.subarray(0, n); minExact = false
  }
  if (max.length > 64) {
    let n = 64
    while (utf8 && n > 0 && (max[n] & 0xc0) === 0x80) n--
    const m = Buffer.from(max.subarray(0, n))
    while (n > 0 && (utf8 ? m[n - 1] >= 0x7f : m[n - 1] === 0xff)) n--
    max = n ? Buffer.concat([m.subarray(0, n - 1), Buffer.from([m[n - 1] + 1])]) : null
    maxExact = false
  }
  return { nulls, min, max, minExact, maxExact, lo, hi }
}

// ---- the footer through hyparquet's Thrift decoder
function rawFooter(buf) {
  const len = buf.readUInt32LE(buf.length - 8)
  check(buf.subarray(0, 4).toString() === 'PAR1' && buf.subarray(buf.length - 4).toString() === 'PAR1', 'magic')
  const view = new DataView(buf.buffer, buf.byteOffset + buf.length - 8 - len, len)
  return deserializeTCompactProtocol({ view, offset: 0 })
}
const hex = b => b === undefined || b === null ? String(b) : Buffer.from(b).toString('hex')

async function duck() {
  const db = await DuckDBInstance.create(':memory:')
  const con = await db.connect()
  return { run: async sql => (await con.runAndReadAll(sql)).getRows(), con }
}
const sqlStr = s => `'${s.replace(/'/g, "''")}'`
const duckExpr = c => c.kind === 'ts' ? `epoch_ns("${c.name}")` : c.kind === 'binary' ? `lower(hex("${c.name}"))` : `"${c.name}"`

const DUCK_TYPES = { seq: 'BIGINT', bool: 'BOOLEAN', int8: 'TINYINT', int16: 'SMALLINT', int32: 'INTEGER',
  int64: 'BIGINT', uint8: 'UTINYINT', uint16: 'USMALLINT', uint32: 'UINTEGER', uint64: 'UBIGINT',
  ts: 'TIMESTAMP_NS', double: 'DOUBLE', string: 'VARCHAR', binary: 'BLOB' }
const LOGICAL = { int8: [8, true], int16: [16, true], uint8: [8, false], uint16: [16, false],
  uint32: [32, false], uint64: [64, false] }
const hyFile = async f => hy.asyncBufferFromFile(f)
const hyParsers = { timestampFromNanoseconds: v => v }
// utf8: false: BYTE_ARRAY without the STRING annotation stays bytes
const hyOpts = { compressors, parsers: hyParsers, utf8: false }

const ctx = { db: await duck() }

// Every value, by both readers.
async function checkValues(file, cols, n) {
  const rows = await ctx.db.run(`select ${cols.map(duckExpr).join(', ')} from read_parquet(${sqlStr(file)})`)
  check(rows.length === n, `${file}: DuckDB reads ${rows.length} rows, not ${n}`)
  const hrows = await hy.parquetReadObjects({ file: await hyFile(file), ...hyOpts })
  check(hrows.length === n, `${file}: hyparquet reads ${hrows.length} rows, not ${n}`)
  let bad = 0
  for (let i = 0; i < Math.min(n, rows.length, hrows.length); i++) {
    cols.forEach((c, k) => {
      const want = c.value ? c.value(i) : expected(c, i)
      const d = norm(c.kind, rows[i][k]), h = norm(c.kind, hrows[i][c.name])
      if (!(same(d, want) && same(h, want)) && bad++ < 10)
        check(false, `${path.basename(file)} row ${i} ${c.name}: want ${show(want)}, DuckDB ${show(d)}, hyparquet ${show(h)}`)
      checks++
    })
  }
  check(bad === 0, `${path.basename(file)}: ${bad} values differ`)
}

// Schema: DuckDB's types; hyparquet's physical, repetition, logical types.
async function checkSchema(file, cols) {
  const desc = await ctx.db.run(`describe select * from read_parquet(${sqlStr(file)})`)
  check(desc.length === cols.length, `${file}: ${desc.length} columns`)
  cols.forEach((c, k) => check(desc[k] && desc[k][0] === c.name && desc[k][1] === DUCK_TYPES[c.kind],
    `${path.basename(file)} ${c.name}: DuckDB type ${desc[k] && desc[k][1]}, not ${DUCK_TYPES[c.kind]}`))
  const md = await hy.parquetMetadataAsync(await hyFile(file))
  check(md.schema.length === cols.length + 1 && md.schema[0].num_children === cols.length, 'root schema element')
  cols.forEach((c, k) => {
    const e = md.schema[k + 1]
    check(e.name === c.name && e.type === PHYS[c.kind] && e.repetition_type === (c.opt ? 'OPTIONAL' : 'REQUIRED'),
      `${c.name}: hyparquet schema ${JSON.stringify(e)}`)
    const lt = e.logical_type
    if (LOGICAL[c.kind]) {
      check(lt && lt.type === 'INTEGER' && lt.bitWidth === LOGICAL[c.kind][0] && lt.isSigned === LOGICAL[c.kind][1],
        `${c.name}: logical type ${JSON.stringify(lt)}`)
    } else if (c.kind === 'string') {
      check(lt && lt.type === 'STRING' && e.converted_type === 'UTF8', `${c.name}: logical type ${JSON.stringify(lt)}`)
    } else if (c.kind === 'ts') {
      check(lt && lt.type === 'TIMESTAMP' && lt.unit === 'NANOS' && lt.isAdjustedToUTC === false,
        `${c.name}: logical type ${JSON.stringify(lt)}`)
    } else {
      check(!lt, `${c.name}: unexpected logical type ${JSON.stringify(lt)}`)
    }
  })
  return md
}

// Row groups, statistics (raw bytes, both readers' view) and column orders.
async function checkStats(file, cols, n, rgRows) {
  const buf = fs.readFileSync(file)
  const raw = rawFooter(buf)
  const base = path.basename(file)
  const groups = Math.ceil(n / rgRows)
  check(raw.field_1 === 2 && raw.field_3 === BigInt(n) && raw.field_4.length === groups,
    `${base}: version ${raw.field_1}, ${raw.field_3} rows, ${raw.field_4.length} row groups (want ${n}, ${groups})`)
  check(Buffer.from(raw.field_6).toString() === `tracekit version ${version}`, `${base}: created_by ${raw.field_6}`)
  check(raw.field_7 && raw.field_7.length === cols.length && raw.field_7.every(o => o.field_1 && Object.keys(o).length === 1),
    `${base}: column_orders TYPE_DEFINED_ORDER for each column`)
  const meta = await ctx.db.run(`select row_group_id, path_in_schema, row_group_num_rows, stats_null_count, stats_min_value, stats_max_value,
    ${''}case when path_in_schema like 'ts%' then epoch_ns(stats_min_value::timestamp_ns)::varchar end,
    case when path_in_schema like 'ts%' then epoch_ns(stats_max_value::timestamp_ns)::varchar end
    from parquet_metadata(${sqlStr(file)}) order by row_group_id, column_id`)
  check(meta.length === groups * cols.length, `${base}: parquet_metadata rows ${meta.length}`)
  for (let r = 0; r < groups; r++) {
    const lo = r * rgRows, hi = Math.min(n, lo + rgRows)
    check(raw.field_4[r].field_3 === BigInt(hi - lo), `${base}: row group ${r} has ${raw.field_4[r].field_3} rows`)
    cols.forEach((c, k) => {
      const vals = []
      for (let i = lo; i < hi; i++) vals.push(c.value ? c.value(i) : expected(c, i))
      const want = bounds(c.kind, vals)
      const st = raw.field_4[r].field_1[k].field_3.field_12
      const what = `${base} rg ${r} ${c.name}`
      check(st.field_3 === BigInt(want.nulls), `${what}: null_count ${st.field_3}, want ${want.nulls}`)
      check(hex(st.field_6) === hex(want.min) && hex(st.field_5) === hex(want.max ?? undefined),
        `${what}: min_value/max_value ${hex(st.field_6)}/${hex(st.field_5)}, want ${hex(want.min)}/${hex(want.max ?? undefined)}`)
      if (want.min) check(st.field_8 === want.minExact && (want.max ? st.field_7 === want.maxExact : true), `${what}: exactness`)
      const signed = !c.kind.startsWith('uint') && c.kind !== 'string' && c.kind !== 'binary'
      check(signed && want.min && want.max ? hex(st.field_2) === hex(want.min) && hex(st.field_1) === hex(want.max)
        : st.field_1 === undefined && st.field_2 === undefined, `${what}: legacy min/max`)
      // DuckDB's reading of the same statistics
      const d = meta[r * cols.length + k]
      if (!d) return
      check(d[1] === c.name && Number(d[2]) === hi - lo && Number(d[3]) === want.nulls, `${what}: DuckDB row count or nulls ${d}`)
      let dmin = d[4], dmax = d[5], wmin = want.lo, wmax = want.hi
      if (c.kind === 'ts') { dmin = d[6]; dmax = d[7] }
      if (want.min === undefined) {
        check(dmin === null && dmax === null, `${what}: DuckDB bounds ${dmin}/${dmax} of no values`)
      } else if (c.kind === 'double') {
        // DuckDB leaves infinite bounds out
        check(isFinite(wmin) ? Object.is(Number(dmin), wmin) || (wmin === 0 && Number(dmin) === 0) : dmin === null, `${what}: DuckDB min ${dmin}`)
        check(isFinite(wmax) ? Number(dmax) === wmax : dmax === null, `${what}: DuckDB max ${dmax}`)
      } else if (c.kind === 'string') {
        check(dmin === want.min.toString() && dmax === (want.max ? want.max.toString() : null), `${what}: DuckDB bounds ${dmin}/${dmax}`)
      } else if (c.kind !== 'binary') {
        check(String(dmin) === String(wmin) && String(dmax) === String(wmax), `${what}: DuckDB bounds ${dmin}/${dmax}, want ${wmin}/${wmax}`)
      }
    })
  }
  return raw
}

// The page index through hyparquet: each page's first row, bounds and
// nulls; the pages tile the chunk.
async function checkPageIndex(file, cols, rgRows, md) {
  const buf = fs.readFileSync(file)
  const base = path.basename(file)
  let pages = 0
  md.row_groups.forEach((rg, r) => {
    rg.columns.forEach((cc, k) => {
      const c = cols[k]
      const what = `${base} rg ${r} ${c.name}`
      const oi = hy.readOffsetIndex({ view: new DataView(buf.buffer, buf.byteOffset + Number(cc.offset_index_offset), cc.offset_index_length), offset: 0 })
      const locs = oi.page_locations
      check(locs.length > 0 && Number(locs[0].offset) === Number(cc.meta_data.data_page_offset) && locs[0].first_row_index === 0n,
        `${what}: first page at ${locs[0]?.offset}, data_page_offset ${cc.meta_data.data_page_offset}`)
      const chunkEnd = Number(cc.meta_data.dictionary_page_offset ?? cc.meta_data.data_page_offset) + Number(cc.meta_data.total_compressed_size)
      for (let p = 0; p < locs.length; p++) {
        const end = p + 1 < locs.length ? Number(locs[p + 1].offset) : chunkEnd
        check(Number(locs[p].offset) + locs[p].compressed_page_size === end, `${what}: page ${p} does not end where the next starts`)
      }
      if (!cc.column_index_length) { check(false, `${what}: no column index`); return }
      const ciView = () => ({ view: new DataView(buf.buffer, buf.byteOffset + Number(cc.column_index_offset), cc.column_index_length), offset: 0 })
      // the bounds as bytes through hyparquet's Thrift decoder; its
      // readColumnIndex, which converts them, where no page is all null
      // (it fails on the empty bounds the spec asks of null pages)
      const raw = deserializeTCompactProtocol(ciView())
      const ci = { null_pages: raw.field_1, null_counts: raw.field_5, boundary_order: ['UNORDERED', 'ASCENDING', 'DESCENDING'][raw.field_4] }
      if (!raw.field_1.some(x => x)) {
        const hci = hy.readColumnIndex(ciView(), md.schema[k + 1], hyParsers)
        check(hci.boundary_order === ci.boundary_order && hci.min_values.length === locs.length, `${what}: hyparquet's column index`)
      }
      check(ci.null_pages.length === locs.length, `${what}: ${ci.null_pages.length} column index entries, ${locs.length} pages`)
      for (let p = 0; p < locs.length; p++) {
        const lo = r * rgRows + Number(locs[p].first_row_index)
        const hi = r * rgRows + (p + 1 < locs.length ? Number(locs[p + 1].first_row_index) : Number(rg.num_rows))
        const vals = []
        for (let i = lo; i < hi; i++) vals.push(c.value ? c.value(i) : expected(c, i))
        const want = bounds(c.kind, vals)
        const allNull = want.nulls === vals.length
        check(ci.null_pages[p] === allNull && ci.null_counts[p] === BigInt(want.nulls), `${what} page ${p}: null page/count`)
        check(allNull ? raw.field_2[p].length === 0 && raw.field_3[p].length === 0
          : hex(raw.field_2[p]) === hex(want.min) && hex(raw.field_3[p]) === hex(want.max),
        `${what} page ${p} (rows ${lo}-${hi}): bounds ${hex(raw.field_2[p])}/${hex(raw.field_3[p])}, want ${hex(want.min)}/${hex(want.max)}`)
        pages++
      }
      if (c.kind === 'seq') check(ci.boundary_order === 'ASCENDING', `${what}: boundary order ${ci.boundary_order}`)
    })
  })
  check(pages > md.row_groups.length * cols.length, `${base}: only ${pages} pages`)
}

// Pruning: a copy whose skipped parts are garbage still answers a query
// the statistics decide, and fails one that needs them.
async function checkPruning(file, cols, md) {
  const buf = Buffer.from(fs.readFileSync(file))
  const bad = Buffer.from(buf)
  const seqCol = cols.findIndex(c => c.name === 'seq')
  // DuckDB: row groups 1.. are garbage; seq < 1000 lies in row group 0
  md.row_groups.forEach((rg, r) => {
    if (r === 0) return
    for (const cc of rg.columns) {
      const start = Number(cc.meta_data.dictionary_page_offset ?? cc.meta_data.data_page_offset)
      bad.fill(0xee, start, start + Number(cc.meta_data.total_compressed_size))
    }
  })
  const f1 = path.join(dir, 'pruned_rg.parquet')
  fs.writeFileSync(f1, bad)
  const want = [0n, 0n]
  for (let i = 0; i < 1000; i++) { want[0] += 1n; want[1] += value('int32', i) }
  const got = await ctx.db.run(`select count(*), sum(int32_plain_req) from read_parquet(${sqlStr(f1)}) where seq < 1000`)
  check(got[0][0] === want[0] && BigInt(got[0][1]) === want[1], `DuckDB with row groups 1.. garbage, seq < 1000: ${got[0]}, want ${want}`)
  let failed = false
  try { await ctx.db.run(`select sum(int32_plain_req) from read_parquet(${sqlStr(f1)})`) } catch { failed = true }
  check(failed, 'DuckDB read garbage row groups without an error: the pruning test proves nothing')
  // hyparquet with the page index: seq < 40 lies in seq's first page, rows
  // [0, end); the pages of every column past those rows are garbage
  const bad2 = Buffer.from(buf)
  const offsetIndex = cc => hy.readOffsetIndex({ view: new DataView(buf.buffer, buf.byteOffset + Number(cc.offset_index_offset), cc.offset_index_length), offset: 0 })
  const end = Number(offsetIndex(md.row_groups[0].columns[seqCol]).page_locations[1].first_row_index)
  let garbage = 0
  md.row_groups.forEach((rg, r) => {
    for (const cc of rg.columns) {
      offsetIndex(cc).page_locations.forEach(l => {
        if (r || Number(l.first_row_index) >= end) {
          bad2.fill(0xee, Number(l.offset), Number(l.offset) + l.compressed_page_size)
          garbage++
        }
      })
    }
  })
  check(end >= 40 && garbage > md.row_groups.length * cols.length, `pruning: seq's first page ends at ${end}, ${garbage} pages garbage`)
  const f2 = path.join(dir, 'pruned_pages.parquet')
  fs.writeFileSync(f2, bad2)
  const rows = await hy.parquetReadObjects({ file: await hyFile(f2), ...hyOpts,
    filter: { seq: { $lt: 40 } }, usePageIndex: true, useOffsetIndex: true })
  check(rows.length === 40, `hyparquet with pages garbage, seq < 40: ${rows.length} rows`)
  let diff = 0
  rows.forEach((row, i) => cols.forEach(c => { if (!same(norm(c.kind, row[c.name]), expected(c, i))) diff++ }))
  check(diff === 0 && seqCol >= 0, `hyparquet with pages garbage: ${diff} values differ`)
  failed = false
  try { await hy.parquetReadObjects({ file: await hyFile(f2), ...hyOpts }) } catch { failed = true }
  check(failed, 'hyparquet read garbage pages without an error: the pruning test proves nothing')
}

// The dictionary's fallback: chunks with dictionary and PLAIN pages.
async function checkFallback(file) {
  const cols = [
    { name: 'uniq', kind: 'string', value: i => 'value_' + i },
    { name: 'rep', kind: 'string', opt: true, value: i => i % 10 ? 'r' + (i % 7) : null }]
  await checkValues(file, cols, 20000)
  await checkSchema(file, cols)
  const raw = await checkStats(file, cols, 20000, 8000)
  raw.field_4.forEach((rg, r) => {
    const [u, rep] = rg.field_1.map(cc => cc.field_3)
    const encs = es => es.map(e => `${e.field_1}:${e.field_2}`).sort().join(',')
    // dictionary page PLAIN, data pages RLE_DICTIONARY then PLAIN
    check(encs(u.field_13) === '0:0,0:8,2:0' && u.field_11 !== undefined, `fallback rg ${r} uniq: encoding_stats ${encs(u.field_13)}`)
    check(encs(rep.field_13) === '0:8,2:0' && rep.field_2.join(',') === '0,3,8', `fallback rg ${r} rep: ${encs(rep.field_13)} ${rep.field_2}`)
  })
}

// The defaults: row groups of 2^20 rows; every value through SQL and hyparquet's columns.
async function checkBig(file) {
  const n = 2500000
  const s = await ctx.db.run(`select count(*), sum(seq), sum(val), count(distinct name),
    count(*) filter (where name <> 'func_' || (seq % 1000)::varchar or val <> seq * 0.5 or seq is null
      or trace <> 'run \uFFFD 7')
    from read_parquet(${sqlStr(file)})`)
  check(s[0][0] === BigInt(n) && BigInt(s[0][1]) === BigInt(n) * BigInt(n - 1) / 2n && s[0][2] === (n * (n - 1) / 2) * 0.5 &&
    s[0][3] === 1000n && s[0][4] === 0n, `big: DuckDB ${s[0]}`)
  const rgs = await ctx.db.run(`select row_group_num_rows from parquet_metadata(${sqlStr(file)}) where path_in_schema = 'seq' order by row_group_id`)
  check(rgs.map(r => Number(r[0])).join(',') === '1048576,1048576,402848', `big: row groups ${rgs}`)
  let bad = 0, seen = 0
  await hy.parquetRead({ file: await hyFile(file), compressors, columns: ['seq', 'name', 'val', 'trace'], onComplete: rows => {
    seen = rows.length
    for (let i = 0; i < rows.length; i++) {
      const [sq, nm, v, tr] = rows[i]
      if (sq !== BigInt(i) || nm !== 'func_' + (i % 1000) || v !== i * 0.5 || tr !== 'run \uFFFD 7') bad++
    }
  } })
  check(seen === n && bad === 0, `big: hyparquet ${seen} rows, ${bad} wrong`)
}

async function checkEmpty(file) {
  const r = await ctx.db.run(`select count(*) from read_parquet(${sqlStr(file)})`)
  check(r[0][0] === 0n, `empty: DuckDB counts ${r[0][0]}`)
  const md = await hy.parquetMetadataAsync(await hyFile(file))
  check(md.num_rows === 0n && md.row_groups.length === 0 && md.schema.length === 3, 'empty: hyparquet metadata')
}

const cols = allColumns()
for (const codec of ['zstd', 'snappy', 'none']) {
  const file = path.join(dir, `all_${codec}.parquet`)
  await checkValues(file, cols, ROWS)
  const md = await checkSchema(file, cols)
  const raw = await checkStats(file, cols, ROWS, RG_ROWS)
  const codecs = new Set(raw.field_4.flatMap(rg => rg.field_1.map(cc => cc.field_3.field_4)))
  check(codecs.size === 1 && codecs.has({ zstd: 6, snappy: 1, none: 0 }[codec]), `${codec}: codecs ${[...codecs]}`)
  const kv = Object.fromEntries(md.key_value_metadata.map(e => [e.key, e.value]))
  check(kv.writer === `tracekit ${version}` && kv.trace_id === 't1' && 'empty' in kv && !kv.empty,
    `${codec}: key_value_metadata ${JSON.stringify(md.key_value_metadata)}`)
  // encodings per column: what was asked
  raw.field_4[0].field_1.forEach((cc, k) => {
    const c = cols[k]
    const want = c.enc === 'dict' ? 8 : c.enc === 'delta' || (c.enc === 'auto' && c.kind !== 'double') ? 5 : 0
    const data = cc.field_3.field_13.filter(e => e.field_1 === 0).map(e => e.field_2)
    check(data.length === 1 && data[0] === want, `${codec} ${c.name}: data page encodings ${data}`)
  })
  await checkPageIndex(file, cols, RG_ROWS, md)
  if (codec === 'zstd') await checkPruning(file, cols, md)
}
await checkFallback(path.join(dir, 'fallback.parquet'))
await checkBig(path.join(dir, 'big.parquet'))
await checkEmpty(path.join(dir, 'empty.parquet'))

console.log(`parquet readers: ${checks} checks, ${failures} failed`)
process.exit(failures ? 1 : 0)
