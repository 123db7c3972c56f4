// @ts-check
// How planning grows with the number of operations in one request. Each
// workload is planned (checked and computed, not written) at doubling sizes
// through the JS binding, so the time includes reading the request from JS;
// the table shows each size's median time and its ratio to the size before.
// A near-linear engine shows ratios near 2; a quadratic part shows 4.
//
//   node bench/plan-scaling/run.mjs [--build-release | --binding path/to/index.js]
//                                   [--max N] [--rounds N] [--only 1,3]
//
// --binding        the loader to measure (default: the package's index.js, a
//                  debug build after `npm test`: use a release build for numbers).
// --build-release  first build a release copy of the addon into
//                  bench/.cache/plan-release and measure that.
// --max            the largest number of operations (default 16000).
// --rounds         timed rounds per size, after one untimed (default 5).
// --only           run only the numbered workloads.
import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildRelease } from '../release.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.resolve(here, '..', '..')
const require = createRequire(import.meta.url)

function parseArgs(/** @type {string[]} */ argv) {
  /** @type {{ binding: string, buildRelease: boolean, max: number, rounds: number, only?: Set<number> }} */
  const o = { binding: path.join(repo, 'index.js'), buildRelease: false, max: 16000, rounds: 5 }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const value = () => {
      const v = argv[++i]
      if (v === undefined) throw new Error(`${a} needs a value`)
      return v
    }
    if (a === '--binding') o.binding = path.resolve(value())
    else if (a === '--build-release') o.buildRelease = true
    else if (a === '--max') o.max = Number(value())
    else if (a === '--rounds') o.rounds = Number(value())
    else if (a === '--only') o.only = new Set(value().split(',').map(Number))
    else throw new Error(`unknown argument ${a} (see the comment at the top of bench/plan-scaling/run.mjs)`)
  }
  return o
}

/** @param {number[]} xs */
function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/**
 * The refs of a view's lines, by 0-based index.
 * @param {string} text
 */
function refsOf(text) {
  /** @type {string[]} */
  const refs = []
  for (const line of text.split('\n')) {
    const m = /^(\d+)#([0-9A-F]{3})#([0-9A-F]{3})\|/.exec(line)
    if (m) refs[Number(m[1]) - 1] = `${m[1]}#${m[2]}#${m[3]}`
  }
  return refs
}

/**
 * A file of `n` distinct lines, as code has them.
 * @param {number} n
 */
const fileOf = (n) => Array.from({ length: n }, (_, i) => `  const value${i} = compute(${i}); // line ${i}\n`).join('')

/**
 * @typedef {{ file: string, request: object, code?: string }} Case
 * @typedef {{ name: string, lines: (n: number) => number, build: (n: number, refs: string[], hl: any, dir: string) => Case }} Workload
 */

/** @type {Workload[]} */
const WORKLOADS = [
  {
    name: 'replace n distinct lines',
    lines: (n) => 2 * n,
    build: (n, refs) => ({ file: 'f.txt', request: { operations: Array.from({ length: n }, (_, k) => ({ op: 'replace', ref: refs[2 * k], content: `  edited(${k})` })) } }),
  },
  {
    name: 'inserts after n lines, between n replaced lines',
    lines: (n) => 2 * n,
    build: (n, refs) => ({
      file: 'f.txt',
      request: {
        operations: Array.from({ length: n }, (_, k) =>
          k % 2 === 0 ? { op: 'insert_after', ref: refs[2 * k], content: `  added(${k})` } : { op: 'replace', ref: refs[2 * k], through: refs[2 * k + 1], content: `  edited(${k})` },
        ),
      },
    }),
  },
  {
    name: 'the same replace n times (collapsed to one)',
    lines: (n) => n,
    build: (n, refs) => ({ file: 'f.txt', request: { operations: Array.from({ length: n }, () => ({ op: 'replace', ref: refs[0], content: '  edited' })) } }),
  },
  {
    name: 'n stale refs (rejected, each shown with a fresh ref)',
    lines: (n) => 2 * n,
    build: (n, refs, _hl, dir) => {
      const stale = fs.readFileSync(path.join(dir, 'f.txt'), 'utf8').replace(/value/g, 'valeur')
      fs.writeFileSync(path.join(dir, 'g.txt'), stale)
      return { file: 'g.txt', code: 'HASH_MISMATCH', request: { operations: Array.from({ length: n }, (_, k) => ({ op: 'delete', ref: refs[2 * k] })) } }
    },
  },
  {
    name: 'n replaces whose content repeats the line before (trimmed)',
    lines: (n) => 2 * n,
    build: (n, refs, _hl, dir) => {
      const lines = fs.readFileSync(path.join(dir, 'f.txt'), 'utf8').split('\n')
      return { file: 'f.txt', request: { operations: Array.from({ length: n }, (_, k) => ({ op: 'replace', ref: refs[2 * k + 1], content: `${lines[2 * k]}\n  edited(${k})` })) } }
    },
  },
  {
    name: 'n replaces from a view before another edit moved every line',
    lines: (n) => 2 * n,
    build: (n, refs, hl) => {
      hl.edit('f.txt', { operations: [{ op: 'prepend', content: '// header' }] })
      return { file: 'f.txt', request: { operations: Array.from({ length: n }, (_, k) => ({ op: 'replace', ref: refs[2 * k + 1], content: `  edited(${k})` })) } }
    },
  },
]

const opts = parseArgs(process.argv.slice(2))
if (opts.buildRelease) opts.binding = buildRelease('plan-release')
const { Hashline } = require(opts.binding)
const sizes = []
for (let n = 1000; n <= opts.max; n *= 2) sizes.push(n)

console.log(`# Planning time against the number of operations\n`)
console.log(`${path.relative(repo, opts.binding) || opts.binding}, Node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} cores); median of ${opts.rounds} rounds; ratio: time / time at half the operations (2.0 is linear)\n`)
const rows = []
/** @type {string[]} */
const growth = []
for (const [index, w] of WORKLOADS.entries()) {
  if (opts.only && !opts.only.has(index + 1)) continue
  let first = 0
  let previous
  for (const n of sizes) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hashline-plan-scaling-'))
    try {
      fs.writeFileSync(path.join(dir, 'f.txt'), fileOf(w.lines(n)))
      const hl = new Hashline({ root: dir, view: 'full' })
      const refs = refsOf(hl.read('f.txt', { limit: w.lines(n) }).text)
      const c = w.build(n, refs, hl, dir)
      hl.read(c.file, { limit: w.lines(n) + 1 })
      const times = []
      for (let r = -1; r < opts.rounds; r++) {
        const start = performance.now()
        let code = 'OK'
        try {
          hl.plan(c.file, c.request)
        } catch (err) {
          code = /** @type {any} */ (err).code
        }
        const ms = performance.now() - start
        if (code !== (c.code ?? 'OK')) throw new Error(`${w.name}, ${n}: ${code}, expected ${c.code ?? 'OK'}`)
        if (r >= 0) times.push(ms)
      }
      const ms = median(times)
      rows.push([`${index + 1}. ${w.name}`, String(n), `${ms.toFixed(1)} ms`, previous ? `${(ms / previous).toFixed(2)}` : ''])
      previous = ms
      if (n === sizes[0]) first = ms
      if (n === sizes[sizes.length - 1] && sizes.length > 1) {
        growth.push(`- ${index + 1}. ${w.name}: ${(ms / first).toFixed(1)}× the time for ${n / sizes[0]}× the operations; ${n} operations in ${ms.toFixed(0)} ms`)
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}
const header = ['workload', 'operations', 'plan', 'ratio']
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
const line = (/** @type {string[]} */ cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`
console.log(line(header))
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`)
for (const r of rows) console.log(line(r))
console.log(`\nFrom ${sizes[0]} to ${sizes[sizes.length - 1]} operations (linear: ${sizes[sizes.length - 1] / sizes[0]}×):\n${growth.join('\n')}`)
