// @ts-check
// Builds of hashline against each other, in one process: the before/after
// of a change without the drift of a loaded machine between two runs.
//
//   node bench/peers/builds.mjs [--rounds N] [--only "100 000"] DIR...
//
// Each DIR holds a loader (`index.js`) and its addon, such as
// `napi build --platform --release --output-dir DIR` makes. The builds run
// in rotation after three warm-up rounds; each cell is the median, and the
// ratio is the first build's median over this one's (above 1: faster).

import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { editedLines, parsingSource, replacement, textOf } from './corpus.mjs'
import { asCount, load, median, options } from '../harness.mjs'

const opts = options(import.meta.url, { rounds: { parse: asCount, default: 21 }, only: {} }, { positionals: true })
const { rounds, only } = opts
const dirs = opts._.map((/** @type {string} */ dir) => path.resolve(dir))
if (dirs.length === 0) throw new Error('name at least one build folder')

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hashline-builds-'))
const sizes = [50, 500, 5000, 100000]
for (const n of sizes) fs.writeFileSync(path.join(root, `f${n}.js`), textOf(n))
const parsing = parsingSource()

/** The refs of a full view, by 0-based line. */
function refs(/** @type {any} */ native, /** @type {string} */ text, /** @type {number} */ n) {
  return native.formatView(text, { limit: n, view: 'full' }).split('\n').slice(1, n + 1).map((/** @type {string} */ l) => l.split('|')[0])
}

/** A timed call, and what restores its input untimed before each call. */
/** @typedef {{ run: () => unknown, setup?: () => void }} Job */
/** @type {Map<string, Map<string, Job>>} */
const work = new Map()
for (const [b, dir] of dirs.entries()) {
  const native = load(path.join(dir, 'index.js'))
  const session = new native.Hashline({ root })
  /** @type {Map<string, Job>} */
  const jobs = new Map()
  for (const n of sizes) {
    const text = textOf(n)
    const label = n.toLocaleString('en').replace(/,/g, ' ')
    jobs.set(`formatView, ${label} lines`, { run: () => native.formatView(text, { limit: n }) })
    jobs.set(`read, ${label} lines`, { run: () => session.read(`f${n}.js`, { limit: n }) })
    if (n >= 500) {
      const r = refs(native, text, n)
      const operations = editedLines(n, 10).map((at, j) => ({ op: 'replace', ref: r[at], content: replacement(j) }))
      jobs.set(`applyEdits, ${label} lines, 10 replacements`, { run: () => native.applyEdits(text, { operations }).text })
      // Each build edits its own copy, restored before every call.
      const name = `e${n}-${b}.js`
      const restore = () => fs.writeFileSync(path.join(root, name), text)
      restore()
      session.read(name, { limit: n })
      jobs.set(`edit, ${label} lines, 10 replacements`, { run: () => session.edit(name, { operations }), setup: restore })
    }
  }
  // The lines above are cut from a file, so they do not parse and the
  // syntax check stops at the old text; this file parses, so every edit
  // of it is parsed again as well. The comments keep it parsing.
  const name = `p-${b}.js`
  const restore = () => fs.writeFileSync(path.join(root, name), parsing.text)
  restore()
  const r = refs(native, parsing.text, parsing.lines)
  const operations = parsing.after.map((at, j) => ({ op: 'insert_after', ref: r[at], content: `// note ${j}` }))
  // The file must parse, or the check would stop at the old text: a line
  // that breaks it must be reported, and the insertions must not be.
  const breaking = [{ op: 'insert_after', ref: r[parsing.after[0]], content: 'let x = (;' }]
  if (native.applyEdits(parsing.text, { operations: breaking }, { path: name }).problems.length === 0) throw new Error(`${parsing.name} does not parse`)
  session.read(name, { limit: parsing.lines })
  const checked = session.edit(name, { operations })
  if (checked.problems.length > 0) throw new Error(`the insertions break ${parsing.name}: ${checked.problems[0].message}`)
  restore()
  jobs.set(`edit, ${parsing.name} (parses), 10 insertions`, { run: () => session.edit(name, { operations }), setup: restore })
  work.set(dir, jobs)
}

const show = (/** @type {number} */ us) => (us >= 1000 ? `${(us / 1000).toFixed(1)} ms` : `${us.toFixed(1)} µs`)
const first = work.get(dirs[0]) ?? new Map()
const rows = [`| workload | ${dirs.map((d) => path.basename(d)).join(' | ')} |`, `|---|${dirs.map(() => '---|').join('')}`]
for (const label of first.keys()) {
  if (only && !label.includes(only)) continue
  // Enough calls per sample that a sample is not one timer tick.
  const inner = label.includes('100 000') ? 1 : label.includes('5 000') || label.includes('parses') ? 10 : label.includes(' 500 ') ? 50 : 200
  /** @type {number[][]} */
  const times = dirs.map(() => [])
  for (let round = -3; round < rounds; round++) {
    for (let k = 0; k < dirs.length; k++) {
      const b = (k + round + 3) % dirs.length
      const job = work.get(dirs[b])?.get(label)
      if (!job) continue
      let ns = 0n
      for (let i = 0; i < inner; i++) {
        job.setup?.()
        const start = process.hrtime.bigint()
        job.run()
        ns += process.hrtime.bigint() - start
      }
      if (round >= 0) times[b].push(Number(ns) / 1e3 / inner)
    }
  }
  const base = median(times[0])
  rows.push(`| ${label} | ${times.map((t) => `${show(median(t))} (${(base / median(t)).toFixed(2)}×)`).join(' | ')} |`)
}
fs.rmSync(root, { recursive: true, force: true })
console.log(`Load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${rounds} rounds; ratio: the first build's median over this one's.\n`)
console.log(rows.join('\n'))
