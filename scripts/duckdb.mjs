// Run one SQL query with DuckDB (@duckdb/node-api, installed for the tests
// in tests/node/ by scripts/deps.sh test) and print the result as a table:
// the demo's query over many traces' Parquet tables (docs/scale.md).
// Usage: node scripts/duckdb.mjs "SQL"   (exit 77 when DuckDB is absent)
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(path.join(here, '..', 'tests', 'node', 'package.json'))
let DuckDBInstance
try {
  ({ DuckDBInstance } = require('@duckdb/node-api'))
} catch {
  console.log('(DuckDB not installed: scripts/deps.sh test installs it into tests/node/)')
  process.exit(77)
}
const con = await (await DuckDBInstance.create(':memory:')).connect()
const reader = await con.runAndReadAll(process.argv[2])
const names = reader.columnNames()
const rows = reader.getRows().map(r => r.map(v => v === null ? 'NULL' : String(v)))
const width = names.map((n, k) => Math.max(n.length, ...rows.map(r => r[k].length)))
const line = r => r.map((v, k) => /^-?[\d.]+$/.test(v) ? v.padStart(width[k]) : v.padEnd(width[k])).join('  ')
console.log(line(names))
console.log(width.map(w => '-'.repeat(w)).join('  '))
for (const r of rows) console.log(line(r))
