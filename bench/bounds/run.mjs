// @ts-check
// How every heavy call grows with what it is given: bytes of the file, lines
// of a changed region, operations in one request, nesting of the text. Each
// workload runs at sizes four times apart, up to 100 MB files, 50,000
// operations and 100,000-deep nesting; the table shows each size's median
// time and its ratio to the size before. Near-linear calls show ratios near
// 4; the bound checked here is 5 (a step over it is marked FAIL). Times are
// the CPU time of the process (every thread of it) during the call, the
// median of its calls in several passes over all the workloads: other work
// on a shared machine adds less to the processor time than to the
// wall-clock time (shown beside it), and a burst of it falls on few calls. For inputs measured in bytes, the
// floor ratio beside it is that of reading and hashing the same files once
// in the same process: where it passes 4 too, the machine's caches, not the
// call, make the step grow faster than the input.
//
//   node bench/bounds/run.mjs [--build-release | --binding path/to/index.js]
//                             [--only 1,3] [--rounds N] [--passes N] [--timeout S] [--quick] [--json out.json]
//
// --binding        the loader to measure (default: the package's index.js, a
//                  debug build: use a release build for numbers).
// --build-release  first build a release copy of the addon into
//                  bench/.cache/bounds-release and measure that.
// --only           run only the numbered workloads.
// --rounds         timed calls per size in each pass (default 7).
// --passes         times the whole run is made (default 2); each size shows
//                  the median of its calls in all passes, so that a burst of
//                  other work on the machine during one of them counts little.
// --timeout        seconds one size may take in all before the workload
//                  stops there (default 120): a stall shows as `> S s`.
// --quick          the three smallest sizes only.
// --json           also write the raw numbers.
//
// Every size runs in a process of its own (so a stall can be stopped and
// memory is measured per size: the peak RSS is shown too), on files written
// into a fresh temporary folder, removed afterwards. Times are of the calls
// alone, setup and garbage collection excluded; a size repeats its call
// `--rounds` times, or fewer once the calls took 20 s in all.

import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import { asNumber, asNumbers, asPath, bindingOptions, codeFile, codeLine, flag, fullRefs, load, loaderOf, median, options, progress, repo, table, timed, writeReport } from '../harness.mjs'

const self = fileURLToPath(import.meta.url)

/** The worst ratio of times allowed for four times the input. */
const BOUND = 5
/** A size stops repeating its call once the calls took this long in all. */
const SPEND_MS = 20000
const MB = 1 << 20

const cli = {
  ...bindingOptions,
  only: { parse: asNumbers },
  rounds: { parse: asNumber, default: 7 },
  passes: { parse: asNumber, default: 2 },
  timeout: { parse: asNumber, default: 120 },
  quick: flag,
  json: { parse: asPath },
  worker: { parse: asNumber },
  size: { parse: asNumber },
}

/** Lines of a file of about `bytes` bytes. */
const linesFor = (/** @type {number} */ bytes) => Math.max(1, Math.round(bytes / 48))

/**
 * @typedef {{ hl: any, dir: string, write: (name: string, text: string) => void, session: (options?: object) => any }} Env
 * @typedef {{ setup?: () => void, call: () => unknown }} Timed
 * @typedef {{ name: string, dimension: 'bytes' | 'lines' | 'operations' | 'nesting', sizes?: number[], prepare: (n: number, env: Env) => Timed }} Workload
 */

/**
 * A plan of `n` operations, `op(k, refs)`, on a file of `2n` code lines
 * read whole first; `then` changes the file after that read (given its
 * text), and with `stale` the plan may be refused as stale.
 * @param {number} n
 * @param {Env} env
 * @param {(k: number, refs: string[]) => object} op
 * @param {{ then?: (text: string) => void, stale?: boolean }} [how]
 * @returns {Timed}
 */
function planOf(n, env, op, { then, stale = false } = {}) {
  const text = codeFile(2 * n)
  env.write('f.txt', text)
  const refs = fullRefs(env.hl.read('f.txt', { limit: 2 * n }).text)
  then?.(text)
  const operations = Array.from({ length: n }, (_, k) => op(k, refs))
  return stale ? staleAllowed(env, operations) : { call: () => env.hl.plan('f.txt', { operations }) }
}

/**
 * A plan of `operations` on f.txt that the engine may refuse as stale
 * (HASH_MISMATCH): the refusal, with its fresh refs, is the work measured.
 * @param {Env} env
 * @param {object[]} operations
 * @returns {Timed}
 */
function staleAllowed(env, operations) {
  return {
    call: () => {
      try {
        env.hl.plan('f.txt', { operations })
      } catch (err) {
        if (/** @type {any} */ (err).code !== 'HASH_MISMATCH') throw err
      }
    },
  }
}

/**
 * A workload that plans one line inserted after line `after` (0-based) of a
 * file of `n` nested blocks, a parse of the whole nesting with it.
 * @param {string} name
 * @param {string} file
 * @param {(n: number) => string} text
 * @param {number} after
 * @param {string} content
 * @returns {Workload}
 */
function nestedInsert(name, file, text, after, content) {
  return {
    name,
    dimension: 'nesting',
    prepare: (n, env) => {
      env.write(file, text(n))
      const refs = fullRefs(env.hl.read(file, { limit: 3 }).text)
      return { call: () => env.session().plan(file, { operations: [{ op: 'insert_after', ref: refs[after], content }] }) }
    },
  }
}

const SIZES = {
  bytes: [1.5625 * MB, 6.25 * MB, 25 * MB, 100 * MB],
  lines: [2000, 8000, 32000, 128000],
  operations: [3125, 12500, 50000],
  nesting: [6250, 25000, 100000],
}

/**
 * A replace of the middle line of a file of `n` lines, cited by a view of
 * the lines around it.
 * @param {Env} env
 * @param {string} file
 * @param {number} lines
 */
function middleLine(env, file, lines) {
  const at = lines >> 1
  const refs = fullRefs(env.hl.read(file, { offset: at - 1, limit: 5 }).text)
  return { operations: [{ op: 'replace', ref: refs[at], content: '  const edited = 1;' }] }
}

/** @type {Workload[]} */
const WORKLOADS = [
  {
    name: 'read: the first 2000 lines of a file',
    dimension: 'bytes',
    prepare: (n, env) => {
      env.write('f.txt', codeFile(linesFor(n)))
      return { call: () => env.session().read('f.txt') }
    },
  },
  {
    name: 'read: every line of a file',
    dimension: 'bytes',
    prepare: (n, env) => {
      const lines = linesFor(n)
      env.write('f.txt', codeFile(lines))
      return { call: () => env.session().read('f.txt', { limit: lines }) }
    },
  },
  {
    name: 'tag: 2000 lines another viewer showed',
    dimension: 'bytes',
    prepare: (n, env) => {
      const lines = linesFor(n)
      env.write('f.txt', codeFile(lines))
      const shown = Array.from({ length: 2000 }, (_, i) => ({ line: i + 1, text: codeLine(i) }))
      return { call: () => env.session().tag('f.txt', shown) }
    },
  },
  {
    name: 'edit: one line of a text file replaced, written',
    dimension: 'bytes',
    prepare: (n, env) => {
      const lines = linesFor(n)
      const text = codeFile(lines)
      /** @type {{ hl: any, request: object }} */
      let state = { hl: null, request: {} }
      return {
        setup: () => {
          env.write('f.txt', text)
          env.hl = env.session()
          state = { hl: env.hl, request: middleLine(env, 'f.txt', lines) }
        },
        call: () => state.hl.edit('f.txt', state.request),
      }
    },
  },
  {
    name: 'plan: one line of a Rust file replaced (parse check)',
    dimension: 'bytes',
    prepare: (n, env) => {
      const lines = linesFor(n)
      env.write('f.rs', codeFile(lines, (i) => `fn f${i}() -> u32 { ${i} } // line ${i}`))
      const request = middleLine(env, 'f.rs', lines)
      return { call: () => env.hl.plan('f.rs', request) }
    },
  },
  {
    name: 'search: a word on 100 lines of a file',
    dimension: 'bytes',
    prepare: (n, env) => {
      const lines = linesFor(n)
      const step = Math.max(1, Math.floor(lines / 100))
      env.write('f.txt', codeFile(lines, (i) => (i % step === 0 ? `  needle(${i});` : codeLine(i))))
      return { call: () => env.session().search('needle', { maxResults: 100, path: 'f.txt' }) }
    },
  },
  {
    name: 'planPatch: one hunk in a file',
    dimension: 'bytes',
    prepare: (n, env) => {
      const lines = linesFor(n)
      env.write('f.txt', codeFile(lines))
      const at = lines >> 1
      const patch = `*** Begin Patch\n*** Update File: f.txt\n@@\n ${codeLine(at - 1)}\n-${codeLine(at)}\n+  const edited = 1;\n ${codeLine(at + 1)}\n*** End Patch\n`
      return { call: () => env.hl.planPatch(patch) }
    },
  },
  {
    // The store keeps no version over 32 MiB: past that the written version
    // is gone and the whole file is new to the result.
    name: 'reformatted: another tool rewrote one line',
    dimension: 'bytes',
    sizes: [1.5625 * MB, 6.25 * MB, 25 * MB],
    prepare: (n, env) => {
      const lines = linesFor(n)
      const text = codeFile(lines)
      const at = lines >> 1
      const written = env.hl.edit('f.txt', { oldString: '', newString: text }).rev
      const rewritten = text.replace(`${codeLine(at)}\n`, `${codeLine(at)} // rewritten\n`)
      env.write('f.txt', rewritten)
      return { call: () => env.hl.reformatted('f.txt', written) }
    },
  },
  {
    // The store keeps no version over 32 MiB, so past that nothing remaps.
    name: 'plan: 10 stale refs after another tool added a line at the top (remapped)',
    dimension: 'bytes',
    sizes: [1.5625 * MB, 6.25 * MB, 25 * MB],
    prepare: (n, env) => {
      const lines = linesFor(n)
      const text = codeFile(lines)
      env.write('f.txt', text)
      const at = lines >> 1
      const refs = fullRefs(env.hl.read('f.txt', { offset: at + 1, limit: 20 }).text)
      env.write('f.txt', `// added\n${text}`)
      const operations = Array.from({ length: 10 }, (_, k) => ({ op: 'replace', ref: refs[at + 2 * k], content: `  edited(${k})` }))
      return { call: () => env.hl.plan('f.txt', { operations }) }
    },
  },
  {
    name: 'plan: 10 stale refs to lines another tool changed (rejected, with where each line is now)',
    dimension: 'bytes',
    prepare: (n, env) => {
      const lines = linesFor(n)
      const text = codeFile(lines)
      env.write('f.txt', text)
      const at = lines >> 1
      const refs = fullRefs(env.hl.read('f.txt', { offset: at + 1, limit: 20 }).text)
      const changed = text.split('\n')
      for (let k = 0; k < 10; k++) changed[at + 2 * k] = `${changed[at + 2 * k]} // changed`
      env.write('f.txt', changed.join('\n'))
      const operations = Array.from({ length: 10 }, (_, k) => ({ op: 'replace', ref: refs[at + 2 * k], content: `  edited(${k})` }))
      return staleAllowed(env, operations)
    },
  },
  {
    name: 'applyEdits: oldString on one line of a text',
    dimension: 'bytes',
    prepare: (n, env) => {
      const lines = linesFor(n)
      const text = codeFile(lines)
      const { applyEdits } = load(binding)
      const request = { oldString: `${codeLine(lines >> 1)}\n`, newString: '  const edited = 1;\n' }
      return { call: () => applyEdits(text, request) }
    },
  },
  {
    name: 'plan: a file of one line with no line break, oldString in it',
    dimension: 'bytes',
    prepare: (n, env) => {
      const unit = 'abcdefgh'.repeat(8)
      const half = unit.repeat(Math.round(n / unit.length / 2))
      env.write('f.txt', `${half}NEEDLE${half}`)
      return { call: () => env.hl.plan('f.txt', { oldString: 'NEEDLE', newString: 'found' }) }
    },
  },
  {
    name: 'plan: n lines replaced by n new lines in one operation',
    dimension: 'lines',
    prepare: (n, env) => {
      env.write('f.txt', codeFile(n + 2))
      const refs = fullRefs(env.hl.read('f.txt', { limit: n + 2 }).text)
      const content = Array.from({ length: n }, (_, i) => `  const other${i} = 0;`)
      return { call: () => env.hl.plan('f.txt', { operations: [{ op: 'replace', ref: refs[1], through: refs[n], content }] }) }
    },
  },
  {
    name: 'plan: n lines replaced, every other one retyped as it was',
    dimension: 'lines',
    prepare: (n, env) => {
      env.write('f.txt', codeFile(n + 2))
      const refs = fullRefs(env.hl.read('f.txt', { limit: n + 2 }).text)
      const content = Array.from({ length: n }, (_, i) => (i % 2 ? codeLine(i + 1) : `  const other${i} = 0;`))
      return { call: () => env.hl.plan('f.txt', { operations: [{ op: 'replace', ref: refs[1], through: refs[n], content }] }) }
    },
  },
  {
    name: 'plan: n lines replaced by n copies of one line',
    dimension: 'lines',
    prepare: (n, env) => {
      env.write('f.txt', codeFile(n + 2, (i) => (i % 3 ? '}' : codeLine(i))))
      const refs = fullRefs(env.hl.read('f.txt', { limit: n + 2 }).text)
      const content = Array.from({ length: n }, (_, i) => (i % 2 ? '}' : ''))
      return { call: () => env.hl.plan('f.txt', { operations: [{ op: 'replace', ref: refs[1], through: refs[n], content }] }) }
    },
  },
  {
    name: 'reformatted: another tool rewrote all n lines',
    dimension: 'lines',
    prepare: (n, env) => {
      const text = codeFile(n)
      const written = env.hl.edit('f.txt', { oldString: '', newString: text }).rev
      env.write('f.txt', text.replace(/const/g, 'let'))
      return { call: () => env.hl.reformatted('f.txt', written) }
    },
  },
  {
    name: 'reformatted: another tool changed every other of n lines',
    dimension: 'lines',
    prepare: (n, env) => {
      const text = codeFile(n)
      const written = env.hl.edit('f.txt', { oldString: '', newString: text }).rev
      env.write('f.txt', codeFile(n, (i) => (i % 2 ? codeLine(i) : `  let value${i} = compute(${i});`)))
      return { call: () => env.hl.reformatted('f.txt', written) }
    },
  },
  {
    name: 'planPatch: one hunk replacing n lines',
    dimension: 'lines',
    prepare: (n, env) => {
      env.write('f.txt', codeFile(n + 2))
      const removed = Array.from({ length: n }, (_, i) => `-${codeLine(i + 1)}\n`).join('')
      const added = Array.from({ length: n }, (_, i) => `+  const other${i} = 0;\n`).join('')
      const patch = `*** Begin Patch\n*** Update File: f.txt\n@@\n ${codeLine(0)}\n${removed}${added} ${codeLine(n + 1)}\n*** End Patch\n`
      return { call: () => env.hl.planPatch(patch) }
    },
  },
  {
    name: 'plan: oldString of n lines replaced',
    dimension: 'lines',
    prepare: (n, env) => {
      const text = codeFile(n + 2)
      env.write('f.txt', text)
      const lines = text.split('\n')
      const oldString = lines.slice(1, n + 1).join('\n')
      const newString = Array.from({ length: n }, (_, i) => `  const other${i} = 0;`).join('\n')
      return { call: () => env.hl.plan('f.txt', { oldString, newString }) }
    },
  },
  {
    name: 'plan: n adjacent one-line replaces',
    dimension: 'operations',
    prepare: (n, env) => planOf(n, env, (k, refs) => ({ op: 'replace', ref: refs[k], content: `  edited(${k})` })),
  },
  {
    name: 'plan: n one-line replaces, a line apart',
    dimension: 'operations',
    prepare: (n, env) => planOf(n, env, (k, refs) => ({ op: 'replace', ref: refs[2 * k], content: `  edited(${k})` })),
  },
  {
    name: 'plan: n inserts, a line apart',
    dimension: 'operations',
    prepare: (n, env) => planOf(n, env, (k, refs) => ({ op: 'insert_after', ref: refs[2 * k], content: `  added(${k})` })),
  },
  {
    name: 'plan: n replaces whose content repeats the line before',
    dimension: 'operations',
    prepare: (n, env) => planOf(n, env, (k, refs) => ({ op: 'replace', ref: refs[2 * k + 1], content: `${codeLine(2 * k)}\n  edited(${k})` })),
  },
  {
    name: 'plan: n replaces in a Python file, each repeating the line after',
    dimension: 'operations',
    prepare: (n, env) => {
      env.write('f.py', codeFile(2 * n, (i) => `value${i} = compute(${i})`))
      const refs = fullRefs(env.hl.read('f.py', { limit: 2 * n }).text)
      const operations = Array.from({ length: n }, (_, k) => ({ op: 'replace', ref: refs[2 * k], content: `edited${k} = 1\nvalue${2 * k + 1} = compute(${2 * k + 1})` }))
      return { call: () => env.hl.plan('f.py', { operations }) }
    },
  },
  {
    name: 'plan: n stale refs (rejected, each shown with a fresh ref)',
    dimension: 'operations',
    prepare: (n, env) => planOf(n, env, (k, refs) => ({ op: 'delete', ref: refs[2 * k] }), { then: (text) => env.write('f.txt', text.replace(/value/g, 'valeur')), stale: true }),
  },
  {
    name: 'plan: n replaces from a view before another edit moved every line',
    dimension: 'operations',
    prepare: (n, env) =>
      planOf(n, env, (k, refs) => ({ op: 'replace', ref: refs[2 * k + 1], content: `  edited(${k})` }), { then: () => env.hl.edit('f.txt', { operations: [{ op: 'prepend', content: '// header' }] }) }),
  },
  {
    name: 'plan: n replaces after another tool added a line at the top',
    dimension: 'operations',
    prepare: (n, env) => planOf(n, env, (k, refs) => ({ op: 'replace', ref: refs[2 * k + 1], content: `  edited(${k})` }), { then: (text) => env.write('f.txt', `// added\n${text}`) }),
  },
  {
    name: 'plan: n moves of one line to the end',
    dimension: 'operations',
    prepare: (n, env) => {
      env.write('f.txt', codeFile(2 * n + 1))
      const refs = fullRefs(env.hl.read('f.txt', { limit: 2 * n + 1 }).text)
      const operations = Array.from({ length: n }, (_, k) => ({ op: 'move', ref: refs[2 * k], after: refs[2 * k + 1] }))
      return { call: () => env.hl.plan('f.txt', { operations }) }
    },
  },
  {
    name: 'planPatch: n hunks',
    dimension: 'operations',
    prepare: (n, env) => {
      env.write('f.txt', codeFile(3 * n))
      const hunks = Array.from({ length: n }, (_, k) => `@@\n ${codeLine(3 * k)}\n-${codeLine(3 * k + 1)}\n+  edited(${k})\n`).join('')
      return { call: () => env.hl.planPatch(`*** Begin Patch\n*** Update File: f.txt\n${hunks}*** End Patch\n`) }
    },
  },
  {
    name: 'search: n hits shown',
    dimension: 'operations',
    prepare: (n, env) => {
      env.write('f.txt', codeFile(2 * n, (i) => (i % 2 ? codeLine(i) : `  needle(${i});`)))
      return { call: () => env.session().search('needle', { maxResults: n, path: 'f.txt' }) }
    },
  },
  {
    name: 'tag: n lines another viewer showed',
    dimension: 'operations',
    prepare: (n, env) => {
      env.write('f.txt', codeFile(n))
      const shown = Array.from({ length: n }, (_, i) => ({ line: i + 1, text: codeLine(i) }))
      return { call: () => env.session().tag('f.txt', shown) }
    },
  },
  nestedInsert('plan: an HTML file of n nested elements, one line added', 'f.html', (n) => '<div>\n'.repeat(n) + '</div>\n'.repeat(n), 1, '<p>x</p>'),
  nestedInsert('plan: a JSON file of n nested arrays, one line added', 'f.json', (n) => '[\n'.repeat(n) + ']\n'.repeat(n), 0, '1,'),
  nestedInsert('plan: a Rust file of n nested blocks, one line added', 'f.rs', (n) => 'fn f() {\n' + '{\n'.repeat(n) + '}\n'.repeat(n) + '}\n', 1, 'g();'),
  nestedInsert('plan: a YAML file of n nested flow sequences, one line added', 'f.yaml', (n) => 'a:\n' + '[\n'.repeat(n) + ']\n'.repeat(n), 1, '1,'),
  {
    name: 'plan: replace_block of the outermost of n nested HTML elements (or its refusal)',
    dimension: 'nesting',
    prepare: (n, env) => {
      env.write('f.html', '<div>\n'.repeat(n) + '</div>\n'.repeat(n))
      const refs = fullRefs(env.hl.read('f.html', { limit: 3 }).text)
      return {
        call: () => {
          try {
            env.session().plan('f.html', { operations: [{ op: 'replace_block', ref: refs[0], content: '<p>x</p>' }] })
          } catch (err) {
            // A parse past its bound finds no block: the op is refused.
            if (/** @type {any} */ (err).code !== 'INVALID_REQUEST') throw err
          }
        },
      }
    },
  },
  {
    name: 'plan: n nested HTML elements, a replace repeating the line after',
    dimension: 'nesting',
    prepare: (n, env) => {
      env.write('f.html', '<div>\n'.repeat(n) + '<p>x</p>\n' + '</div>\n'.repeat(n))
      const refs = fullRefs(env.hl.read('f.html', { offset: n + 1, limit: 2 }).text)
      return { call: () => env.session().plan('f.html', { operations: [{ op: 'replace', ref: refs[n], content: '<p>y</p>\n</div>' }] }) }
    },
  },
]

let binding = ''

/** Runs one workload at one size and prints its times as JSON. */
function worker(/** @type {Record<string, any>} */ opts) {
  const w = WORKLOADS[/** @type {number} */ (opts.worker)]
  const n = /** @type {number} */ (opts.size)
  const { Hashline } = load(binding)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hashline-bounds-'))
  try {
    const session = (/** @type {object} */ options = {}) => new Hashline({ root: dir, view: 'full', maxFileBytes: 512 * MB, ...options })
    /** @type {Env} */
    const env = { hl: session(), dir, write: (name, text) => fs.writeFileSync(path.join(dir, name), text), session }
    const work = w.prepare(n, env)
    const wall = []
    const cpu = []
    let spent = 0
    for (let r = 0; r < opts.rounds && (r === 0 || spent < SPEND_MS); r++) {
      work.setup?.()
      // The garbage of the setup and of the round before is collected
      // outside the timed call.
      global.gc?.()
      const t = timed(work.call)
      wall.push(t.ms)
      cpu.push(t.cpu)
      spent += t.ms
    }
    // The floor, for inputs measured in bytes: reading the input files and
    // hashing them once, which any check of a version does; its ratio shows
    // how this machine's memory makes even such a pass grow with the size.
    /** @type {number[] | undefined} */
    let floorMs
    if (w.dimension === 'bytes') {
      const floors = []
      for (let r = 0; r < opts.rounds; r++) {
        global.gc?.()
        const t = timed(() => {
          for (const name of fs.readdirSync(dir)) {
            const file = path.join(dir, name)
            if (fs.statSync(file).isFile()) createHash('sha1').update(fs.readFileSync(file)).digest()
          }
        })
        floors.push(t.cpu)
      }
      floorMs = floors
    }
    process.stdout.write(JSON.stringify({ cpu, wall, floors: floorMs, rssMB: process.resourceUsage().maxRSS / 1024 }))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** @param {number} n @param {string} dimension */
function sizeName(n, dimension) {
  if (dimension === 'bytes') return `${+(n / MB).toFixed(2)} MB`
  return n.toLocaleString('en')
}

const opts = options(import.meta.url, cli)
opts.binding = loaderOf(opts, 'bounds-release')
binding = opts.binding
if (opts.worker !== undefined) {
  worker(opts)
} else {
  console.log(`# Growth of each call with its input\n`)
  console.log(`${path.relative(repo, opts.binding) || opts.binding}, Node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} cores); median of up to ${opts.rounds} calls per size in each of ${opts.passes} passes; ratio: CPU time / CPU time at a quarter of the input (linear: 4, bound: ${BOUND})\n`)
  const rows = []
  /** @type {any[]} */
  const raw = []
  const failures = []
  /** One size of one workload in its own process; its result, or why it has none. */
  const measure = (/** @type {number} */ index, /** @type {number} */ n) => {
    const args = [self, '--worker', String(index), '--size', String(n), '--rounds', String(opts.rounds), '--binding', opts.binding]
    const run = spawnSync(process.execPath, ['--max-old-space-size=8192', '--expose-gc', ...args], { encoding: 'utf8', timeout: opts.timeout * 1000, maxBuffer: 1 << 24 })
    if (run.error || run.status !== 0) {
      const stalled = run.signal === 'SIGTERM' || /ETIMEDOUT/.test(String(run.error))
      return { error: stalled ? `> ${opts.timeout} s` : `failed: ${(run.stderr || String(run.error)).trim().split('\n').slice(-3).join(' ')}` }
    }
    return JSON.parse(run.stdout)
  }
  /** @type {Map<string, any>} the best of the passes, by workload and size */
  const best = new Map()
  for (let pass = 0; pass < opts.passes; pass++) {
    for (const [index, w] of WORKLOADS.entries()) {
      if (opts.only && !opts.only.has(index + 1)) continue
      let sizes = w.sizes ?? SIZES[w.dimension]
      if (opts.quick) sizes = sizes.slice(0, 3)
      for (const n of sizes) {
        const key = `${index}:${n}`
        const earlier = best.get(key)
        if (earlier?.error) break
        const result = measure(index, n)
        if (result.error || !earlier) best.set(key, result)
        else
          best.set(key, {
            cpu: [...earlier.cpu, ...result.cpu],
            wall: [...earlier.wall, ...result.wall],
            floors: result.floors && [...earlier.floors, ...result.floors],
            rssMB: Math.max(result.rssMB, earlier.rssMB),
          })
        progress(`pass ${pass + 1}, ${index + 1}. ${w.name}, ${sizeName(n, w.dimension)}: ${result.error ?? `${median(result.cpu).toFixed(1)} ms CPU, ${median(result.wall).toFixed(1)} ms wall`}`)
        if (result.error) break
      }
    }
  }
  for (const [index, w] of WORKLOADS.entries()) {
    if (opts.only && !opts.only.has(index + 1)) continue
    let sizes = w.sizes ?? SIZES[w.dimension]
    if (opts.quick) sizes = sizes.slice(0, 3)
    const label = `${index + 1}. ${w.name}`
    /** @type {number | undefined} */
    let previous
    /** @type {number | undefined} */
    let previousFloor
    for (const n of sizes) {
      const pooled = best.get(`${index}:${n}`)
      if (!pooled) break
      const result = pooled.error ? pooled : { ...pooled, ms: median(pooled.cpu), wallMs: median(pooled.wall), floorMs: pooled.floors && median(pooled.floors) }
      if (result.error) {
        rows.push([label, sizeName(n, w.dimension), result.error, '', '', '', '', 'FAIL'])
        failures.push(`${label} at ${sizeName(n, w.dimension)}: ${result.error}`)
        raw.push({ workload: index + 1, name: w.name, size: n, error: result.error })
        break
      }
      const ratio = previous ? result.ms / previous : undefined
      const fail = ratio !== undefined && ratio > BOUND
      if (fail) failures.push(`${label}: ${ratio.toFixed(1)}× from ${sizeName(n / 4, w.dimension)} to ${sizeName(n, w.dimension)}`)
      const floorRatio = previousFloor && result.floorMs !== undefined ? (result.floorMs / previousFloor).toFixed(2) : ''
      rows.push([label, sizeName(n, w.dimension), `${result.ms.toFixed(1)} ms`, ratio ? ratio.toFixed(2) : '', floorRatio, `${result.wallMs.toFixed(1)} ms`, `${result.rssMB.toFixed(0)} MB`, fail ? 'FAIL' : ''])
      raw.push({ workload: index + 1, name: w.name, size: n, ...result })
      previous = result.ms
      previousFloor = result.floorMs
    }
  }
  const header = ['workload', 'size', 'CPU time', 'ratio', 'floor ratio', 'wall time', 'peak RSS', '']
  console.log(table(header, rows, { pad: true }))
  console.log(failures.length ? `\n${failures.length} over the bound:\n${failures.map((f) => `- ${f}`).join('\n')}` : `\nEvery step within ${BOUND}× for 4× the input.`)
  if (opts.json) writeReport(opts.json, raw)
  process.exitCode = failures.length ? 1 : 0
}
