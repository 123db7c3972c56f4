// @ts-check
// Lean refs after the file changed: a model read a file in the lean view
// (`12ab content`), the file changed (an edit through the engine, or a write
// on disk), and the model edits with the refs of its read. Every trial goes
// through every path that may know which lines a view showed (the session that read
// the file, a later process sharing its store, a restarted engine given a
// REV, `applyEdits` on text) and counts the edits applied to a line the model
// was not shown. Writes LEAN.md beside this file (a --quick run writes it
// under eval/.cache/stale-refs instead).
//
//   node eval/stale-refs/lean.mjs [--trials N | --quick] [--seed S] [--paths a,b] [--kinds a,b]
//                                  [--out FILE | --no-write] [--only ID] [--tmp DIR]
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { settleEvery } from '../editbench/lib/gc.mjs'
import { pairTag } from '../editbench/lib/lean.mjs'
import { CRAFTED, CRAFTED_LABELS, KINDS, LeanTrialMaker } from './lean-trials.mjs'
import { earlierResultShows, LEAN_PATHS, LeanRunner } from './lean-paths.mjs'
import { applyAt } from './schemes.mjs'
import { cacheDir, loadSources, MAX_LINES, MIN_LINES } from './setup.mjs'
import { joinLines, KIND_LABELS, TrialMaker } from './trials.mjs'

const here = dirname(fileURLToPath(import.meta.url))

const { values: args } = parseArgs({
  options: {
    trials: { type: 'string' },
    quick: { type: 'boolean', default: false },
    seed: { type: 'string', default: '1' },
    paths: { type: 'string' },
    kinds: { type: 'string' },
    out: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
    only: { type: 'string' },
    tmp: { type: 'string' },
  },
})

/**
 * @typedef {import('./lean-trials.mjs').LeanTrial} LeanTrial
 * @typedef {import('./lean-trials.mjs').Kind} Kind
 * @typedef {import('./engine.mjs').Outcome} Outcome
 * @typedef {'correct' | 'rejected' | 'shown' | 'wrong'} Verdict
 * @typedef {{ n: number, correct: number, rejected: number, shown: number, wrong: number, mustReject: number, rightReject: number, collided: number, codes: Map<string, number> }} Tally
 */

/**
 * Trials of a full run: each goes through every path, so 4,000 trials send
 * 48,000 stale or outside-changed lean refs (4,000 through each path) in
 * about half an hour on two shared cores; `--trials 20000` sends 20,000
 * through each path.
 */
const FULL_TRIALS = 4_000
const QUICK_TRIALS = 1_000
const seed = Number(args.seed)
const wanted = Number(args.trials ?? (args.quick ? QUICK_TRIALS : FULL_TRIALS))
if (!Number.isInteger(seed) || !Number.isInteger(wanted) || wanted < 1) throw new Error('--trials and --seed take integers')
const kinds = args.kinds ? args.kinds.split(',') : [...KINDS]
for (const k of kinds) if (!KINDS.includes(/** @type {Kind} */ (k))) throw new Error(`unknown kind ${k}; kinds: ${KINDS.join(', ')}`)
const paths = args.paths ? args.paths.split(',').map((n) => LEAN_PATHS.find((p) => p.name === n) ?? (() => { throw new Error(`unknown path ${n}; paths: ${LEAN_PATHS.map((p) => p.name).join(', ')}`) })()) : LEAN_PATHS
const partial = args.quick || args.trials !== undefined || args.kinds !== undefined || args.paths !== undefined
const out = args.out ?? (partial ? join(cacheDir, 'LEAN.md') : join(here, 'LEAN.md'))

// The engine flushes every write; a RAM-backed folder keeps the run on the refs, not the disk.
const scratchParent = args.tmp ?? (existsSync('/dev/shm') && statSync('/dev/shm').isDirectory() ? '/dev/shm' : tmpdir())
const scratch = mkdtempSync(join(scratchParent, 'lean-refs-'))
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }))
const runner = new LeanRunner(scratch)

const files = loadSources()
const maker = new LeanTrialMaker(new TrialMaker(files, seed))

/**
 * `shown`: written at the cited numbers of the changed text, on lines the
 * result of the earlier edit showed there with the very refs the model
 * typed, and the request did not name the first read's REV: the ref names
 * a line the model was shown, if not the one it read first.
 * @param {LeanTrial} t @param {import('./lean-paths.mjs').LeanPath} path @param {Outcome} o @param {Set<number>} resultShows @returns {Verdict}
 */
function verdict(t, path, o, resultShows) {
  if (!o.applied) return 'rejected'
  if (!t.expected.reject && o.text === joinLines(t.expected.lines, t.finalNewline)) return 'correct'
  const cited = t.op.op === 'insert_after' ? [t.op.first] : [t.op.first, t.op.last]
  const atNumbers = joinLines(applyAt(t.current, t.op, t.op.first, t.op.last), t.finalNewline)
  return path.rev !== 'read' && o.text === atNumbers && cited.every((i) => resultShows.has(i) && collides(t, i)) ? 'shown' : 'wrong'
}

/** Whether the refs, as typed, hold at their own numbers in the changed text: a tag collision or an identical line there. @param {LeanTrial} t */
function holdsAtNumbers(t) {
  const cited = t.op.op === 'insert_after' ? [t.op.first] : [t.op.first, t.op.last]
  return cited.every((i) => i < t.current.length && (t.current[i] === t.lines[i] || collides(t, i)))
}
/** @param {LeanTrial} t @param {number} i */
const collides = (t, i) => pairTag(i + 1, t.current[i]) === pairTag(i + 1, t.lines[i])

/** @param {LeanTrial} t */
function describe(t) {
  const op = t.op.last > t.op.first && t.op.op !== 'insert_after' ? `${t.op.op} lines ${t.op.first + 1}-${t.op.last + 1}` : `${t.op.op} line ${t.op.first + 1}`
  const steps = t.steps.map((s) => (s.step === 'insert' ? `insert ${s.lines.length} at ${s.at + 1}` : s.step === 'delete' ? `delete ${s.count} at ${s.at + 1}` : `modify line ${s.at + 1}`))
  const earlier = t.earlier ? `earlier ${t.earlier.op} of lines ${t.earlier.first + 1}-${t.earlier.last + 1}` : ''
  const later = t.later ? `later read of lines ${t.later[0] + 1}-${t.later[1] + 1}` : 'no later read'
  return `trial ${t.id} [${t.kind}] ${t.file.package}@${t.file.version}/${t.file.path}: ${op}; read lines ${t.shown[0] + 1}-${t.shown[1] + 1}; ${[earlier, ...steps].filter(Boolean).join(', ')}; ${later}; expected ${t.expected.reject ? `rejection (${t.expected.why})` : 'applied'}`
}

const kindOf = (/** @type {number} */ id) => /** @type {Kind} */ (KINDS[id % KINDS.length])

if (args.only !== undefined) {
  const id = Number(args.only)
  const trial = maker.make(id, kindOf(id))
  console.log(describe(trial))
  const resultShows = earlierResultShows(trial, scratch)
  for (const p of paths) {
    const o = runner.run(trial, p)
    console.log(`  ${p.name}: ${verdict(trial, p, o, resultShows)}${o.applied ? '' : ` (${o.code})`}`)
    if (!o.applied) console.log(o.message.replace(/^/gm, '    | '))
  }
  process.exit(0)
}

/** @returns {Tally} */
const tally = () => ({ n: 0, correct: 0, rejected: 0, shown: 0, wrong: 0, mustReject: 0, rightReject: 0, collided: 0, codes: new Map() })
/** @type {Map<string, Map<string, Tally>>} path → kind → tally */
const results = new Map(paths.map((p) => [p.name, new Map(kinds.map((k) => [k, tally()]))]))
/** @type {string[]} */
const wrongTrials = []
let holding = 0
const started = performance.now()
let done = 0
for (let id = 0; done < wanted; id++) {
  const kind = kindOf(id)
  if (!kinds.includes(kind)) continue
  const trial = maker.make(id, kind)
  const holds = holdsAtNumbers(trial)
  if (holds) holding++
  const resultShows = earlierResultShows(trial, scratch)
  for (const p of paths) {
    const o = runner.run(trial, p)
    const v = verdict(trial, p, o, resultShows)
    const t = /** @type {Tally} */ (results.get(p.name)?.get(kind))
    t.n++
    t[v]++
    if (trial.expected.reject) t.mustReject++
    if (trial.expected.reject && !o.applied) t.rightReject++
    if (!o.applied) t.codes.set(o.code, (t.codes.get(o.code) ?? 0) + 1)
    if (v === 'wrong') {
      if (holds) t.collided++
      wrongTrials.push(`${p.name}: ${describe(trial)}`)
    }
  }
  done++
  await settleEvery(20)
  if (done % 1000 === 0) process.stderr.write(`${done}/${wanted} trials, ${((performance.now() - started) / 1000).toFixed(0)} s\n`)
}
const seconds = (performance.now() - started) / 1000

/** @param {number} k @param {number} n */
const pct = (k, n) => (n === 0 ? '–' : `${((100 * k) / n).toFixed(k === 0 || k === n ? 0 : 2)}%`)
/** @param {number} k @param {number} n */
const cell = (k, n) => `${pct(k, n)} (${k})`
/** @param {string} path */
function sum(path) {
  const s = tally()
  for (const t of results.get(path)?.values() ?? []) {
    s.n += t.n
    s.correct += t.correct
    s.rejected += t.rejected
    s.shown += t.shown
    s.wrong += t.wrong
    s.mustReject += t.mustReject
    s.rightReject += t.rightReject
    s.collided += t.collided
    for (const [c, k] of t.codes) s.codes.set(c, (s.codes.get(c) ?? 0) + k)
  }
  return s
}

const byLang = new Map()
for (const f of files) byLang.set(f.lang, (byLang.get(f.lang) ?? 0) + 1)
const packages = [...new Set(files.map((f) => `${f.package}@${f.version}`))]
const totalWrong = paths.reduce((a, p) => a + sum(p.name).wrong, 0)
const command = `node eval/stale-refs/lean.mjs${args.quick ? ' --quick' : args.trials ? ` --trials ${wanted}` : ''}${seed !== 1 ? ` --seed ${seed}` : ''}${args.kinds ? ` --kinds ${args.kinds}` : ''}${args.paths ? ` --paths ${args.paths}` : ''}`
const L = []
L.push('# Lean refs after a change: results', '')
L.push(
  `Generated by \`${command}\`: seed ${seed}, ${done} trials, each through ${paths.length} paths (${done * paths.length} edits), in ${seconds.toFixed(0)} s, over ${files.length} files (${[...byLang].map(([l, n]) => `${l} ${n}`).join(', ')}; ${MIN_LINES}-${MAX_LINES} lines each) from ${packages.join(', ')}.`,
  '',
  'Each trial: a session reads the file in the lean view (all of it, or a window holding the lines the model will cite), the file changes (an earlier edit through that session, or a write on disk), half the time a later read shows a part of the changed file away from the cited lines, and the model edits citing the lean refs of its first read. *Applied* means the file is exactly the intended result; *rejected* means nothing was written; *silently wrong* means the edit was written on a line the model was not shown: somewhere else than the lines it read, or on lines that changed since.',
  '',
  `In ${holding} of the ${done} trials (${pct(holding, done)}) every cited ref still holds at its own line number in the changed text (a line with the same two-letter tag, or the same text, stands there) while the line read may be gone, changed or moved: only what the engine knows was shown can tell them apart.`,
  '',
  `**Edits applied to a line the model was not shown: ${totalWrong}** (target 0) of ${done * paths.length}.`,
  '',
)
L.push('## By path', '')
L.push('| path | trials | applied correctly | rejected | applied on a line shown after the read † | silently wrong | of them, refs holding at their numbers | must-reject trials rejected |')
L.push('|---|---:|---:|---:|---:|---:|---:|---:|')
for (const p of paths) {
  const s = sum(p.name)
  L.push(`| ${p.label} (\`${p.name}\`) | ${s.n} | ${cell(s.correct, s.n)} | ${cell(s.rejected, s.n)} | ${cell(s.shown, s.n)} | **${cell(s.wrong, s.n)}** | ${s.collided} | ${cell(s.rightReject, s.mustReject)} |`)
}
L.push('', '† written at the cited numbers on lines that the result of the earlier edit showed with the same refs the model typed, the request not naming the REV of the first read: the ref names a line the model was shown (in that result), though not the one it read first. Not counted as silently wrong; an engine may also refuse them.')
L.push('')
L.push('## Silently wrong by kind of change', '')
L.push(`| kind | trials | must reject | ${paths.map((p) => `\`${p.name}\``).join(' | ')} |`)
L.push(`|---|---:|---:|${paths.map(() => '---:').join('|')}|`)
for (const k of kinds) {
  const first = /** @type {Tally} */ (results.get(paths[0].name)?.get(k))
  const label = /** @type {Record<string, string>} */ ({ ...KIND_LABELS, ...CRAFTED_LABELS })[k]
  L.push(`| ${label} (\`${k}\`)${CRAFTED.includes(/** @type {any} */ (k)) ? ' ‡' : ''} | ${first.n} | ${first.mustReject} | ${paths.map((p) => results.get(p.name)?.get(k)?.wrong ?? 0).join(' | ')} |`)
}
L.push('', '‡ made on purpose: a line with the cited line\u2019s tag stands at the cited number.', '')
L.push('## Rejections by code', '')
L.push('| path | codes |')
L.push('|---|---|')
for (const p of paths) L.push(`| \`${p.name}\` | ${[...sum(p.name).codes].sort().map(([c, k]) => `${c} ${k}`).join(', ') || '–'} |`)
L.push('')
if (wrongTrials.length > 0) {
  L.push('## Silently wrong trials', '', `Rerun one with \`node eval/stale-refs/lean.mjs --seed ${seed} --only ID\`.`, '')
  for (const w of wrongTrials.slice(0, 40)) L.push(`- ${w}`)
  if (wrongTrials.length > 40) L.push(`- … and ${wrongTrials.length - 40} more`)
  L.push('')
}
const markdown = L.join('\n')
console.log(markdown)
if (!args['no-write']) {
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, markdown)
  process.stderr.write(`wrote ${out}\n`)
}
process.stderr.write(`${done} trials × ${paths.length} paths in ${seconds.toFixed(1)} s\n`)
if (totalWrong > 0) process.exitCode = 2
