// Reads a `convert --to parquet` directory back with both readers, DuckDB
// (@duckdb/node-api) and hyparquet (pure JavaScript), fails when they
// disagree on any table's schema, row count or value, and writes what they
// read as JSON, for the formats' compare scripts (tests/parquet/compare_*.py).
//
// Usage: node tables.mjs NODE_DIR DIR OUT.json [SQL_FILE]
//   NODE_DIR  tests/node (its node_modules)
//   DIR       the conversion's directory: DIR/T.parquet or DIR/T/part-*.parquet
//   OUT.json  {"tables": {T: {"columns": [[name, duckdb_type], ...],
//                             "rows": [[v, ...], ...]}},       (file order)
//              "queries": {NAME: [[v, ...], ...]}}              (SQL_FILE's)
//   SQL_FILE  queries to run with DuckDB, one per line as NAME<TAB>SQL, where
//             each table is a view of its name (T or the union of T's parts)
// Values: integers as JSON numbers when |v| < 2^53, else as decimal strings
// (so 64-bit values compare exactly); timestamps as ns integers; blobs as
// hex; NULL as null. Exit 0 read and agreed, 1 disagreement, 2 trouble,
// 77 when the readers are not installed (scripts/deps.sh test).
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const [nodeDir, dir, outFile, sqlFile] = process.argv.slice(2)
if (!outFile) {
  console.error('usage: node tables.mjs NODE_DIR DIR OUT.json [SQL_FILE]')
  process.exit(2)
}
const require = createRequire(path.join(path.resolve(nodeDir), 'package.json'))
let DuckDBInstance, hy, compressors
try {
  ({ DuckDBInstance } = require('@duckdb/node-api'))
  hy = await import(pathToFileURL(require.resolve('hyparquet')).href)
  ;({ compressors } = await import(pathToFileURL(require.resolve('hyparquet-compressors')).href))
} catch (e) {
  console.log(`SKIP: DuckDB or hyparquet not installed in ${nodeDir} (scripts/deps.sh test): ${e.message}`)
  process.exit(77)
}

let failures = 0
const fail = msg => { if (failures++ < 20) console.log('FAIL: ' + msg) }

// One JSON-safe value: exact integers, ns timestamps, hex blobs.
function norm(v) {
  if (v === null || v === undefined) return null
  if (typeof v === 'bigint') return v >= -(2n ** 53n) && v <= 2n ** 53n ? Number(v) : v.toString()
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') return v
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex')
  if (v instanceof Date) return v.getTime() * 1e6
  if (typeof v === 'object' && 'micros' in v) return norm(v.micros * 1000n) // not ours
  if (typeof v === 'object' && 'nanos' in v) return norm(v.nanos)
  if (typeof v === 'object' && 'bytes' in v) return Buffer.from(v.bytes).toString('hex')
  return String(v)
}

// The tables of DIR: name -> [files] (one file, or the parts in order).
function tables() {
  const t = {}
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name < b.name ? -1 : 1)) {
    if (e.isFile() && e.name.endsWith('.parquet')) t[e.name.slice(0, -8)] = [path.join(dir, e.name)]
    else if (e.isDirectory()) {
      const parts = fs.readdirSync(path.join(dir, e.name)).filter(f => /^part-\d+\.parquet$/.test(f)).sort()
      if (parts.length) t[e.name] = parts.map(f => path.join(dir, e.name, f))
    }
  }
  return t
}

const sqlStr = s => `'${s.replace(/'/g, "''")}'`
const db = await DuckDBInstance.create(':memory:')
const con = await db.connect()
const run = async sql => (await con.runAndReadAll(sql)).getRows()

// DuckDB's expression for a column: ns for timestamps, hex for blobs.
const duckExpr = (name, type) => type.startsWith('TIMESTAMP') ? `epoch_ns("${name}")`
  : type === 'BLOB' ? `lower(hex("${name}"))` : `"${name}"`

async function readTable(name, files) {
  const list = `[${files.map(sqlStr).join(', ')}]`
  await run(`create view "${name}" as select * from read_parquet(${list}, hive_partitioning = false)`)
  const columns = (await run(`select column_name, column_type from (describe "${name}")`)).map(r => [r[0], r[1]])
  const rows = (await run(`select ${columns.map(c => duckExpr(c[0], c[1])).join(', ')} from read_parquet(${list}, hive_partitioning = false)`))
    .map(r => r.map(norm))
  // hyparquet, file by file, row by row
  let i = 0
  for (const f of files) {
    const md = await hy.parquetMetadataAsync(await hy.asyncBufferFromFile(f))
    const hnames = md.schema.slice(1).map(s => s.name)
    if (hnames.join() !== columns.map(c => c[0]).join())
      fail(`${f}: hyparquet's columns ${hnames} are not DuckDB's ${columns.map(c => c[0])}`)
    const hrows = await hy.parquetReadObjects({ file: await hy.asyncBufferFromFile(f), compressors,
      parsers: { timestampFromNanoseconds: v => v }, utf8: false })
    for (const h of hrows) {
      const d = rows[i++]
      if (!d) { fail(`${name}: hyparquet reads more rows than DuckDB's ${rows.length}`); break }
      columns.forEach((c, k) => {
        const hv = norm(h[c[0]])
        if (JSON.stringify(hv) !== JSON.stringify(d[k]))
          fail(`${name} row ${i - 1} ${c[0]}: DuckDB ${JSON.stringify(d[k])}, hyparquet ${JSON.stringify(hv)}`)
      })
    }
  }
  if (i !== rows.length) fail(`${name}: hyparquet reads ${i} rows, DuckDB ${rows.length}`)
  return { columns, rows }
}

try {
  const out = { tables: {}, queries: {} }
  for (const [name, files] of Object.entries(tables())) out.tables[name] = await readTable(name, files)
  if (sqlFile) {
    for (const line of fs.readFileSync(sqlFile, 'utf8').split('\n')) {
      const tab = line.indexOf('\t')
      if (!line.trim() || line.startsWith('#') || tab < 0) continue
      out.queries[line.slice(0, tab)] = (await run(line.slice(tab + 1))).map(r => r.map(norm))
    }
  }
  fs.writeFileSync(outFile, JSON.stringify(out))
} catch (e) {
  console.log(`FAIL: ${e.message}`)
  process.exit(1)
}
process.exit(failures ? 1 : 0)
