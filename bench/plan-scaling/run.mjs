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
import * as os from 'node:os'
import * as path from 'node:path'
import { asNumber, asNumbers, bindingOptions, codeFile, fullRefs, load, loaderOf, median, options, repo, table } from '../harness.mjs'

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
  {
    name: 'an edit of a notebook whose cell has n keys (each checked once)',
    lines: () => 2,
    build: (n, _refs, _hl, dir) => {
      /** @type {Record<string, unknown>} */
      const cell = { cell_type: 'code', execution_count: null, id: 'c1', metadata: {}, outputs: [], source: ['a = 1'] }
      for (let k = 0; k < n; k++) cell[`k${k}`] = 0
      fs.writeFileSync(path.join(dir, 'n.ipynb'), JSON.stringify({ cells: [cell], metadata: {}, nbformat: 4, nbformat_minor: 6 }, null, 1) + '\n')
      return { file: 'n.ipynb', request: { oldString: 'a = 1', newString: 'a = 2' } }
    },
  },
]

const opts = options(import.meta.url, {
  ...bindingOptions,
  max: { parse: asNumber, default: 16000 },
  rounds: { parse: asNumber, default: 5 },
  only: { parse: asNumbers },
})
opts.binding = loaderOf(opts, 'plan-release')
const { Hashline } = load(opts.binding)
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
      fs.writeFileSync(path.join(dir, 'f.txt'), codeFile(w.lines(n)))
      const hl = new Hashline({ root: dir, view: 'full' })
      const refs = fullRefs(hl.read('f.txt', { limit: w.lines(n) }).text)
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
console.log(table(header, rows, { pad: true }))
console.log(`\nFrom ${sizes[0]} to ${sizes[sizes.length - 1]} operations (linear: ${sizes[sizes.length - 1] / sizes[0]}×):\n${growth.join('\n')}`)
