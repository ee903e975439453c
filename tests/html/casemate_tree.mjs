// The page-table tree of casemate's report --html (docs/formats/casemate.md,
// "HTML report") in headless Chromium: the tree holds what `bbm --dot`
// draws (each root; each table with the entries it lists, in the same
// words, and the count of clean zero ones), the entries related to the
// violation are visible when the page opens (the way to them is open),
// and clicking a collapsed node opens it and shows its children.
// Usage: node casemate_tree.mjs --html PAGE --node-dir tests/node
//        [--dot FILE] [--must-expand]
// Exit: 0 ok, 1 a check failed, 77 no chromium or no puppeteer-core.
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const args = process.argv.slice(2)
const opt = { mustExpand: false }
for (let i = 0; i < args.length; i++) {
  const a = args[i]
  if (a === '--html') opt.html = args[++i]
  else if (a === '--node-dir') opt.nodeDir = args[++i]
  else if (a === '--dot') opt.dot = args[++i]
  else if (a === '--must-expand') opt.mustExpand = true
  else { console.error(`casemate_tree.mjs: unknown argument ${a}`); process.exit(2) }
}
const chromium = process.env.CHROMIUM || '/usr/bin/chromium'
if (!fs.existsSync(chromium)) { console.log(`SKIP: no ${chromium}`); process.exit(77) }
let puppeteer
try {
  const require = createRequire(path.join(path.resolve(opt.nodeDir), 'package.json'))
  puppeteer = (await import(pathToFileURL(require.resolve('puppeteer-core')).href)).default
} catch {
  console.log(`SKIP: no puppeteer-core in ${opt.nodeDir}`)
  process.exit(77)
}

let failures = 0, checks = 0
function check(ok, msg) {
  checks++
  if (!ok && failures++ < 40) console.log('FAIL: ' + msg)
  return ok
}
const show = v => JSON.stringify(v)

// ---- bbm --dot: roots, and each table's rows
function readDot(text) {
  const roots = [], tables = new Map()
  let related = 0
  for (const line of text.split('\n')) {
    const r = line.match(/^\s*"r0x[0-9a-f]+" \[shape=box, label="(.*)"\];$/)
    if (r) roots.push(r[1].replace('\\n', ' '))
    if (!line.includes('[label=<<table')) continue
    const head = line.match(/<b>([^<]*)<\/b>/)[1]
    const rows = [...line.matchAll(/<td port="e\d+"[^>]*>([^<]*)<\/td>/g)].map(m => m[1])
    related += [...line.matchAll(/<td port="e\d+"[^>]* color="red"[^>]*>/g)].length
    const more = line.match(/<td align="left">(\d+ more invalid zero entries)<\/td>/)
    if (more) rows.push(more[1])
    tables.set(head, rows)
  }
  return { roots, tables, related }
}

const browser = await puppeteer.launch({
  executablePath: chromium, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-extensions'],
})
const page = await browser.newPage()
await page.setViewport({ width: 1280, height: 800 })
page.on('pageerror', e => check(false, `page error: ${e.message}`))
await page.goto(pathToFileURL(path.resolve(opt.html)).href, { waitUntil: 'load' })

// ---- the tree as the page holds it
const tree = await page.evaluate(() => {
  const t = document.getElementById('pagetable-tree')
  if (!t) return null
  const label = li => {
    const l = li.querySelector(':scope > details > summary > .tk-node-label, :scope > span > .tk-node-label')
    return l ? l.textContent : null
  }
  const roots = [...t.querySelectorAll(':scope > ul > li')].map(label)
  const tables = {}
  for (const d of t.querySelectorAll('details')) {
    const name = d.querySelector(':scope > summary > .tk-node-label').textContent
    if (!/^0x[0-9a-f]+ S\d L\d$/.test(name)) continue
    tables[name] = [...d.querySelector(':scope > ul').children].map(label)
  }
  const related = [...t.querySelectorAll('.tk-rec')]
    .filter(r => r.textContent.includes('related to the violation'))
    .map(r => ({ label: r.querySelector('.tk-node-label').textContent, shown: r.checkVisibility() }))
  // past the caps: nodes dropped, or tables away from the violation only named
  const truncated = /more nodes not shown|\(not shown: the tree is long\)/.test(t.textContent)
  return { roots, tables, related, truncated }
})

if (opt.dot) {
  const dot = readDot(fs.readFileSync(opt.dot, 'utf8'))
  if (check(tree !== null || dot.roots.length === 0, 'no #pagetable-tree on the page, bbm --dot has roots')) {
    if (tree) {
      check(show(tree.roots) === show(dot.roots), `roots ${show(tree.roots)}, bbm --dot ${show(dot.roots)}`)
      // past the node cap a table may be cut short: then its rows are some of dot's
      for (const [name, rows] of Object.entries(tree.tables)) {
        const want = dot.tables.get(name) || []
        const listed = rows.filter(r => !/\(not shown: the tree is long\)$/.test(r))
        const cut = tree.truncated ? listed.every(r => want.includes(r)) : show(rows) === show(want)
        check(dot.tables.has(name) && cut, `table ${name}: ${show(rows).slice(0, 300)} on the ` +
          `page, ${show(dot.tables.get(name)).slice(0, 300)} in bbm --dot`)
      }
      // the entries related to the violation: outlined in the graph, marked on the page
      check(tree.related.length === dot.related || (tree.truncated && tree.related.length > 0),
        `${tree.related.length} entries marked related on the page, ${dot.related} in bbm --dot`)
      if (!tree.truncated)
        for (const name of dot.tables.keys())
          check(name in tree.tables, `table ${name} of bbm --dot is not on the page`)
    }
  }
}

// ---- the related entries are in view; a collapsed node opens
if (tree) {
  for (const r of tree.related)
    check(r.shown, `related entry "${r.label}" is hidden when the page opens`)
  const before = await page.evaluate(() => {
    const d = document.querySelector('#pagetable-tree details:not([open])')
    if (!d) return null
    d.setAttribute('data-test', 'x')
    const first = d.querySelector(':scope > ul > li')
    return { shown: first ? first.checkVisibility() : null }
  })
  if (before) {
    check(before.shown === false, `a collapsed node's first child is visible (${before.shown})`)
    await page.click('#pagetable-tree details[data-test] > summary')
    const after = await page.evaluate(() => {
      const d = document.querySelector('#pagetable-tree details[data-test]')
      const first = d.querySelector(':scope > ul > li')
      return { open: d.open, shown: first ? first.checkVisibility() : null }
    })
    check(after.open && after.shown === true,
      `clicking a collapsed node: open ${after.open}, its first child shown ${after.shown}`)
    await page.click('#pagetable-tree details[data-test] > summary')
    check(!(await page.evaluate(() => document.querySelector('#pagetable-tree details[data-test]').open)),
      'clicking an open node does not close it')
  } else {
    check(!opt.mustExpand, 'no collapsed page-table node to expand')
  }
} else {
  check(!opt.mustExpand, 'no page-table tree')
}
await browser.close()
console.log(`${opt.html}: page-table tree, ${checks} checks, ${failures} failed`)
process.exit(failures ? 1 : 0)
