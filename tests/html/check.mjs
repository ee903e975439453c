// Opens a `tracekit report --html` page in headless Chromium (Debian's
// chromium, driven by puppeteer-core from tests/node) from file:// and
// checks it: no console error or warning, no page error, no request but
// the page itself (and data: URLs); the size bound; every number the page
// shows with a data-key equals the command's --json output (the blocks'
// data-src name the documents, given with --json NAME=FILE; see
// src/export/html/html.h); and, with --interact, that the interactions
// work, each asserted in the DOM: a flame-graph frame clicked is zoomed to
// the full width (and "Zoom out" restores it), a table header clicked sorts
// its rows, text typed in the search box highlights exactly the frames
// whose names contain it, a collapsed tree node opens, and the dark theme
// applies. --screenshot PNG writes a 1280x800 view.
// Usage: node check.mjs --html PAGE --node-dir tests/node [--json NAME=FILE]...
//        [--interact] [--screenshot PNG] [--max-bytes N]
// Exit: 0 ok, 1 a check failed, 77 no chromium or no puppeteer-core.
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const args = process.argv.slice(2)
const opt = { json: {}, interact: false, maxBytes: 5e6 }
for (let i = 0; i < args.length; i++) {
  const a = args[i]
  if (a === '--html') opt.html = args[++i]
  else if (a === '--node-dir') opt.nodeDir = args[++i]
  else if (a === '--json') {
    const [name, file] = args[++i].split(/=(.*)/s)
    opt.json[name] = file
  } else if (a === '--interact') opt.interact = true
  else if (a === '--screenshot') opt.screenshot = args[++i]
  else if (a === '--max-bytes') opt.maxBytes = Number(args[++i])
  else { console.error(`check.mjs: unknown argument ${a}`); process.exit(2) }
}
if (!opt.html || !opt.nodeDir) { console.error('check.mjs: --html and --node-dir are required'); process.exit(2) }

const chromium = process.env.CHROMIUM || '/usr/bin/chromium'
if (!fs.existsSync(chromium)) { console.log(`SKIP: no ${chromium}`); process.exit(77) }
let puppeteer
try {
  const require = createRequire(path.join(path.resolve(opt.nodeDir), 'package.json'))
  puppeteer = (await import(pathToFileURL(require.resolve('puppeteer-core')).href)).default
} catch (e) {
  console.log(`SKIP: no puppeteer-core in ${opt.nodeDir} (scripts/deps.sh test installs it)`)
  process.exit(77)
}

let failures = 0, checks = 0
function check(ok, msg) {
  checks++
  if (!ok && failures++ < 40) console.log('FAIL: ' + msg)
  return ok
}

// ---- the documents: one JSON value, or JSON Lines (stack --json)
const docs = {}
for (const [name, file] of Object.entries(opt.json)) {
  const text = fs.readFileSync(file, 'utf8')
  try { docs[name] = JSON.parse(text) } catch {
    docs[name] = text.split('\n').filter(l => l.trim()).map(l => JSON.parse(l))
  }
}

const size = fs.statSync(opt.html).size
check(size <= opt.maxBytes, `${opt.html} is ${size} bytes, over ${opt.maxBytes}`)

// ---- the browser
const browser = await puppeteer.launch({
  executablePath: chromium, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-extensions'],
})
const page = await browser.newPage()
await page.setViewport({ width: 1280, height: 800 })
const pageUrl = pathToFileURL(path.resolve(opt.html)).href
await page.setRequestInterception(true)
page.on('request', req => {
  const url = req.url()
  if (url === pageUrl || url.startsWith('data:')) return req.continue()
  check(false, `the page requested ${url}`)
  req.abort()
})
page.on('console', m => {
  if (m.type() === 'error' || m.type() === 'warn' || m.type() === 'warning')
    check(false, `console ${m.type()}: ${m.text()}`)
})
page.on('pageerror', e => check(false, `page error: ${e.message}`))
await page.goto(pageUrl, { waitUntil: 'load' })

// ---- numbers: every data-key value against its document
const records = await page.evaluate(() => {
  const out = []
  for (const el of document.querySelectorAll('[data-src]')) {
    const recs = el.tagName === 'TABLE' ? [...(el.tBodies[0] ? el.tBodies[0].rows : [])]
      : el.tagName === 'DL' ? [el] : [...el.querySelectorAll('.tk-rec')]
    for (const r of recs) {
      const vals = {}
      let n = 0
      for (const c of r.querySelectorAll('[data-key]')) {
        if (c.closest('[data-src]') !== el) continue
        vals[c.dataset.key] = JSON.parse(c.dataset.v)
        n++
      }
      if (n) out.push({ src: el.dataset.src, keys: (el.dataset.keys || '').split(' ').filter(Boolean),
        agg: el.dataset.agg || null, filter: el.dataset.filter || null, vals, id: el.id || el.tagName })
    }
  }
  return out
})
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b)
const show = v => JSON.stringify(v)
const compared = {}
// the elements of an array by their key members (and filter), indexed once
const indexes = new Map()
function lookup(src, base, filter, keys) {
  const id = `${src}|${filter}|${keys.join(' ')}`
  if (indexes.has(id)) return indexes.get(id)
  const ix = new Map()
  let len = -1, field
  if (filter) [field, len] = filter.split(':')
  for (const e of base) {
    if (filter && !(Array.isArray(e[field]) && e[field].length === Number(len))) continue
    const k = show(keys.map(k => e[k]))
    if (!ix.has(k)) ix.set(k, [])
    ix.get(k).push(e)
  }
  indexes.set(id, ix)
  return ix
}
for (const rec of records) {
  const [name, ...members] = rec.src.split('.')
  if (!(name in docs)) continue
  let base = docs[name]
  for (const m of members) base = base == null ? undefined : base[m]
  const where = `${rec.src} (#${rec.id}) ${rec.keys.map(k => `${k}=${show(rec.vals[k])}`).join(' ')}`
  if (!Array.isArray(base)) {
    if (!check(base && typeof base === 'object', `${rec.src}: not an object in the JSON`)) continue
    for (const [k, v] of Object.entries(rec.vals))
      check(same(base[k], v), `${where}: ${k} is ${show(v)} on the page, ${show(base[k])} in --json`)
    compared[name] = (compared[name] || 0) + Object.keys(rec.vals).length
    continue
  }
  // a row whose key is null (a path too deep to write) is not compared
  if (rec.keys.some(k => rec.vals[k] === null || rec.vals[k] === undefined)) continue
  const cands = lookup(rec.src, base, rec.filter, rec.keys).get(show(rec.keys.map(k => rec.vals[k]))) || []
  if (!check(cands.length > 0, `${where}: no such element in --json`)) continue
  const fields = Object.keys(rec.vals).filter(k => !rec.keys.includes(k))
  if (rec.agg === 'sum') {
    for (const k of fields) {
      const sum = cands.reduce((s, e) => s + e[k], 0)
      check(sum === rec.vals[k], `${where}: ${k} is ${show(rec.vals[k])} on the page, the sum in --json ${sum}`)
    }
  } else {
    const hit = cands.find(e => fields.every(k => same(e[k], rec.vals[k])))
    if (!hit) {
      const e = cands[0]
      for (const k of fields)
        check(same(e[k], rec.vals[k]), `${where}: ${k} is ${show(rec.vals[k])} on the page, ${show(e[k])} in --json`)
    } else checks++
  }
  compared[name] = (compared[name] || 0) + Object.keys(rec.vals).length
}
for (const name of Object.keys(docs))
  check(compared[name] > 0, `nothing on the page was compared with --json ${name}`)

// ---- interactions
async function flame() {
  const wrap = await page.$('.tk-flame-wrap')
  if (!wrap) return
  // the widest frame that is not the whole: zoomed, it spans the width
  const target = await page.evaluate(() => {
    const frs = [...document.querySelectorAll('.tk-flame .tk-fr:not(.tk-fr-root):not(.tk-fr-other)')]
    frs.sort((a, b) => (b.dataset.d === '1') - (a.dataset.d === '1') || +b.dataset.w - +a.dataset.w)
    const f = frs.find(x => +x.dataset.w < 0.999 && +x.dataset.w > 0) || frs[0]
    return f ? { i: f.dataset.i, w: f.style.width } : null
  })
  if (!target) return
  const sel = `.tk-flame .tk-fr[data-i="${target.i}"]`
  await page.click(sel)
  const z = await page.evaluate(s => {
    const f = document.querySelector(s), box = f.closest('.tk-flame')
    const r = f.getBoundingClientRect(), b = box.getBoundingClientRect()
    const hidden = [...box.querySelectorAll('.tk-fr')].filter(x => x.style.display === 'none').length
    return { width: f.style.width, px: r.width, box: b.width, zoom: box.dataset.zoom, hidden }
  }, sel)
  check(z.width === '100%' && Math.abs(z.px - z.box) < 2,
    `flame: frame ${target.i} clicked is ${z.width} (${z.px}px of ${z.box}px), not the full width`)
  check(z.zoom === target.i, `flame: data-zoom is ${z.zoom}, not ${target.i}`)
  await page.click('.tk-flame-reset')
  const back = await page.evaluate(s => document.querySelector(s).style.width, sel)
  check(back === target.w, `flame: after "Zoom out" the frame is ${back}, was ${target.w}`)
  // search: the frames whose names contain the text, exactly
  const word = await page.evaluate(s => document.querySelector(s).textContent.slice(0, 3), sel)
  await page.type('.tk-flame-search', word)
  const s = await page.evaluate(w => {
    const frs = [...document.querySelectorAll('.tk-flame .tk-fr:not(.tk-fr-root):not(.tk-fr-other)')]
    const want = frs.filter(f => f.textContent.toLowerCase().includes(w.toLowerCase())).map(f => f.dataset.i)
    const got = [...document.querySelectorAll('.tk-flame .tk-fr.tk-hit')].map(f => f.dataset.i)
    return { want, got, status: document.querySelector('.tk-flame-status').textContent }
  }, word)
  check(s.want.length > 0 && same(s.want, s.got),
    `flame: search "${word}" highlights [${s.got}], expected [${s.want}]`)
  check(s.status.startsWith(String(s.want.length)), `flame: status "${s.status}"`)
}

async function sortTable() {
  // the first table with two rows or more and a numeric column
  const t = await page.evaluate(() => {
    const tables = [...document.querySelectorAll('table.tk-table')]
      .map((t, ti) => ({ t, ti })).filter(({ t }) => t.tBodies[0] && t.tBodies[0].rows.length >= 2 &&
        !t.closest('details:not([open])'))
    for (const { t, ti } of tables) {
      const cells = t.tHead.rows[0].cells
      for (let i = 0; i < cells.length; i++)
        if ([...t.tBodies[0].rows].every(r => typeof JSON.parse(r.cells[i].dataset.v) === 'number'))
          return { ti, i }
    }
    return tables.length ? { none: true } : null
  })
  if (!t) return console.log('note: no visible table of two rows or more to sort')
  if (!check(!t.none, 'no visible sortable table with a numeric column')) return
  const read = () => page.evaluate(({ ti, i }) => {
    const tb = document.querySelectorAll('table.tk-table')[ti]
    return { v: [...tb.tBodies[0].rows].map(r => JSON.parse(r.cells[i].dataset.v)),
      sort: tb.tHead.rows[0].cells[i].getAttribute('aria-sort') }
  }, t)
  const click = () => page.evaluate(({ ti, i }) =>
    document.querySelectorAll('table.tk-table')[ti].tHead.rows[0].cells[i].click(), t)
  for (const want of ['descending', 'ascending']) {
    await click()
    const r = await read()
    const sorted = r.v.every((x, k) => k === 0 || (want === 'descending' ? r.v[k - 1] >= x : r.v[k - 1] <= x))
    check(r.sort === want && sorted, `sort: column ${t.i} of table ${t.ti} is not ${want}: ${show(r.v.slice(0, 12))}`)
  }
}

async function tree() {
  const n = await page.$$eval('.tk-tree details:not([open]) > summary', s => s.length)
  if (!n) return
  await page.click('.tk-tree details:not([open]) > summary')
  const open = await page.$$eval('.tk-tree details:not([open]) > summary', s => s.length)
  check(open === n - 1, `tree: clicking a collapsed node left ${open} of ${n} collapsed`)
}

async function dark() {
  const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor)
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }])
  const dk = await page.evaluate(() => getComputedStyle(document.body).backgroundColor)
  check(light !== dk, `dark theme: the background stays ${light}`)
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }])
}

if (opt.screenshot) await page.screenshot({ path: opt.screenshot })
if (opt.interact) {
  await flame()
  await sortTable()
  await tree()
  await dark()
}
await browser.close()
const summary = Object.entries(compared).map(([k, n]) => `${k}: ${n}`).join(', ')
console.log(`${opt.html}: ${size} bytes, ${checks} checks (values compared: ${summary || 'none'}), ${failures} failed`)
process.exit(failures ? 1 : 0)
