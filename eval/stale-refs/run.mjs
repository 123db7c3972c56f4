// @ts-check
// Stale refs: read a file, let lines shift or change, then edit with the
// refs of the read. Scores this engine and the peers' schemes on the same
// seeded trials: applied correctly, rejected, or silently wrong.
//
//   node eval/stale-refs/run.mjs [--trials N] [--seed S] [--schemes a,b] [--kinds a,b]
//                                 [--out FILE | --no-write] [--dump DIR] [--only ID] [--tmp DIR]
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { EngineRunner, engineVariants } from './engine.mjs'
import { anchorAt, applyAt, peerSchemes } from './schemes.mjs'
import { loadSources, MAX_LINES, MIN_LINES } from './setup.mjs'
import { joinLines, KIND_LABELS, KINDS, SHIFTED, TrialMaker } from './trials.mjs'

const here = dirname(fileURLToPath(import.meta.url))

const { values: args } = parseArgs({
  options: {
    trials: { type: 'string', default: '3500' },
    seed: { type: 'string', default: '1' },
    schemes: { type: 'string' },
    kinds: { type: 'string' },
    out: { type: 'string', default: join(here, 'RESULTS.md') },
    'no-write': { type: 'boolean', default: false },
    dump: { type: 'string' },
    only: { type: 'string' },
    tmp: { type: 'string' },
  },
})

/**
 * @typedef {import('./trials.mjs').Trial} Trial
 * @typedef {import('./trials.mjs').Kind} Kind
 * @typedef {import('./engine.mjs').Outcome} Outcome
 * @typedef {'correct' | 'rejected' | 'wrong'} Verdict
 * @typedef {{ name: string, label: string, engine: boolean, outcome: (t: Trial) => Outcome }} Contender
 * @typedef {{ n: number, correct: number, rejected: number, wrong: number, mustReject: number, rightReject: number, wrongCopy: number, codes: Map<string, number> }} Tally
 */

const seed = Number(args.seed)
const wanted = Number(args.trials)
if (!Number.isInteger(seed) || !Number.isInteger(wanted) || wanted < 1) throw new Error('--trials and --seed take integers')
const kinds = args.kinds ? args.kinds.split(',') : [...KINDS]
for (const k of kinds) if (!KINDS.includes(/** @type {Kind} */ (k))) throw new Error(`unknown kind ${k}; kinds: ${KINDS.join(', ')}`)

// The engine flushes every write to disk; in a RAM-backed folder that costs
// nothing, so the run measures remapping rather than the disk.
const scratchParent = args.tmp ?? (existsSync('/dev/shm') && statSync('/dev/shm').isDirectory() ? '/dev/shm' : tmpdir())
const scratch = mkdtempSync(join(scratchParent, 'stale-refs-'))
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }))
const engine = new EngineRunner(scratch)

/**
 * A peer scheme on the same trial: where it places the cited lines in the
 * changed file, and the edit applied there.
 * @param {import('./schemes.mjs').Scheme} scheme @param {Trial} t @returns {Outcome}
 */
function peerOutcome(scheme, t) {
  const lines = t.op.op !== 'insert_after' && t.op.last > t.op.first ? [t.op.first, t.op.last] : [t.op.first]
  const cited = lines.map((line) => ({ line, text: /** @type {string} */ (t.lines[line]), anchor: anchorAt(t.lines, line) }))
  const at = scheme.locate(cited, t.current)
  if (!at) return { applied: false, code: 'REJECTED', message: '' }
  const result = applyAt(t.current, t.op, /** @type {number} */ (at[0]), /** @type {number} */ (at[at.length - 1]))
  return { applied: true, lines: result, text: joinLines(result, t.finalNewline) }
}

/** @type {Contender[]} */
const allContenders = [
  ...engineVariants.map((v) => ({ name: v.name, label: v.label, engine: true, outcome: (/** @type {Trial} */ t) => engine.run(t, v) })),
  ...peerSchemes.map((s) => ({ name: s.name, label: s.label, engine: false, outcome: (/** @type {Trial} */ t) => peerOutcome(s, t) })),
]
const names = args.schemes ? args.schemes.split(',') : allContenders.map((c) => c.name)
const contenders = names.map((n) => {
  const c = allContenders.find((x) => x.name === n)
  if (!c) throw new Error(`unknown scheme ${n}; schemes: ${allContenders.map((x) => x.name).join(', ')}`)
  return c
})

/** @param {readonly string[]} a @param {readonly string[]} b */
const same = (a, b) => a.length === b.length && a.every((l, i) => l === b[i])

/** @param {Trial} t @param {Outcome} o @returns {Verdict} */
function verdict(t, o) {
  if (!o.applied) return 'rejected'
  if (t.expected.reject) return 'wrong'
  return o.text === joinLines(t.expected.lines, t.finalNewline) ? 'correct' : 'wrong'
}

/**
 * A wrong result that is the intended edit applied to another copy of the
 * cited lines: the failure only identical text can cause.
 * @param {Trial} t @param {Outcome} o
 */
function landedOnCopy(t, o) {
  if (!o.applied) return false
  const want = t.lines.slice(t.op.first, t.op.last + 1)
  const span = t.op.last - t.op.first
  for (let p = 0; p + span < t.current.length; p++) {
    if (!same(t.current.slice(p, p + span + 1), want)) continue
    if (same(applyAt(t.current, t.op, p, p + span), o.lines)) return true
  }
  return false
}

/** @param {Trial} t */
function describe(t) {
  const op = t.op.last > t.op.first && t.op.op !== 'insert_after' ? `${t.op.op} lines ${t.op.first + 1}-${t.op.last + 1}` : `${t.op.op} line ${t.op.first + 1}`
  const steps = t.steps.map((s) => (s.step === 'insert' ? `insert ${s.lines.length} at ${s.at + 1}` : s.step === 'delete' ? `delete ${s.count} at ${s.at + 1}` : `modify line ${s.at + 1}`))
  return `trial ${t.id} [${t.kind}] ${t.file.package}@${t.file.version}/${t.file.path}: ${op}; ${[t.note, ...steps].filter(Boolean).join(', ')}; expected ${t.expected.reject ? `rejection (${t.expected.why})` : 'applied'}`
}

const files = loadSources()
const maker = new TrialMaker(files, seed)

if (args.only !== undefined) {
  const id = Number(args.only)
  const trial = maker.make(id, /** @type {Kind} */ (KINDS[id % KINDS.length]))
  console.log(describe(trial))
  for (const c of contenders) {
    const o = c.outcome(trial)
    const v = verdict(trial, o)
    console.log(`  ${c.name}: ${v}${o.applied ? '' : ` (${o.code})`}`)
    if (v === 'wrong' && o.applied && !trial.expected.reject) {
      const exp = trial.expected.lines
      const i = exp.findIndex((l, k) => l !== o.lines[k])
      console.log(`    first difference at line ${i + 1}:\n      expected ${JSON.stringify(exp.slice(Math.max(0, i - 2), i + 4))}\n      got      ${JSON.stringify(o.lines.slice(Math.max(0, i - 2), i + 4))}`)
    }
    if (!o.applied && c.engine) console.log(o.message.replace(/^/gm, '    | '))
  }
  process.exit(0)
}

/** @returns {Tally} */
const tally = () => ({ n: 0, correct: 0, rejected: 0, wrong: 0, mustReject: 0, rightReject: 0, wrongCopy: 0, codes: new Map() })
/** @type {Map<string, Map<string, Tally>>} */
const results = new Map(contenders.map((c) => [c.name, new Map(kinds.map((k) => [k, tally()]))]))
/** @type {string[]} */
const engineWrong = []
if (args.dump) mkdirSync(args.dump, { recursive: true })

const started = performance.now()
let done = 0
for (let id = 0; done < wanted; id++) {
  const kind = /** @type {Kind} */ (KINDS[id % KINDS.length])
  if (!kinds.includes(kind)) continue
  const trial = maker.make(id, kind)
  for (const c of contenders) {
    const o = c.outcome(trial)
    const v = verdict(trial, o)
    const t = /** @type {Tally} */ (results.get(c.name)?.get(kind))
    t.n++
    t[v]++
    if (trial.expected.reject) t.mustReject++
    if (trial.expected.reject && !o.applied) t.rightReject++
    if (!o.applied) t.codes.set(o.code, (t.codes.get(o.code) ?? 0) + 1)
    if (v === 'wrong' && landedOnCopy(trial, o)) t.wrongCopy++
    if (v === 'wrong' && c.engine) {
      engineWrong.push(`${c.name}: ${describe(trial)}${landedOnCopy(trial, o) ? '; landed on an identical copy' : ''}`)
      if (args.dump) {
        writeFileSync(
          join(args.dump, `${c.name}-${trial.id}.json`),
          JSON.stringify({ scheme: c.name, ...trial, file: `${trial.file.package}@${trial.file.version}/${trial.file.path}`, result: o.applied ? o.lines : null }, null, 1),
        )
      }
    }
  }
  done++
  if (done % 500 === 0) process.stderr.write(`${done}/${wanted} trials, ${((performance.now() - started) / 1000).toFixed(1)} s\n`)
}
const seconds = (performance.now() - started) / 1000

/** @param {number} k @param {number} n */
const pct = (k, n) => (n === 0 ? '–' : `${((100 * k) / n).toFixed(1)}%`)
/** @param {number} k @param {number} n */
const cell = (k, n) => `${pct(k, n)} (${k})`

/** @param {string} scheme @param {(k: string) => boolean} which */
function sum(scheme, which) {
  const s = tally()
  for (const [k, t] of results.get(scheme) ?? []) {
    if (!which(k)) continue
    s.n += t.n
    s.correct += t.correct
    s.rejected += t.rejected
    s.wrong += t.wrong
    s.mustReject += t.mustReject
    s.rightReject += t.rightReject
    s.wrongCopy += t.wrongCopy
  }
  return s
}

const byLang = new Map()
for (const f of files) byLang.set(f.lang, (byLang.get(f.lang) ?? 0) + 1)
const packages = [...new Set(files.map((f) => `${f.package}@${f.version}`))]
const dense = maker.dense.length
const out = []
out.push('# Stale refs: results', '')
out.push(
  `Seed ${seed}, ${done} trials over ${files.length} files (${[...byLang].map(([l, n]) => `${l} ${n}`).join(', ')}; ${MIN_LINES}-${MAX_LINES} lines each) from ${packages.join(', ')}; ${dense} of them count as dense in duplicate lines.`,
  '',
  'Each trial: the file is read, then changed (see the kinds below), then edited with the refs of the read. *Applied* means the file is exactly the intended result; *rejected* means nothing was written; *silently wrong* means the file was written and differs from the intended result, or was written when the edit had to be rejected (the cited line itself changed or went away). Kinds marked † are the shifted-ref trials: the cited lines are unchanged, so the edit must apply. In the other kinds some or all trials must be rejected (the count is given with each kind); for those a rejection is the right answer.',
  '',
)
const shiftedKinds = kinds.filter((k) => SHIFTED.has(k))
out.push('## Summary', '')
out.push('| scheme | shifted-ref trials applied | shifted rejected | shifted silently wrong | all trials silently wrong | of them on an identical copy | must-reject trials rejected |')
out.push('|---|---|---|---|---|---|---|')
for (const c of contenders) {
  const s = sum(c.name, (k) => SHIFTED.has(k))
  const all = sum(c.name, () => true)
  out.push(`| ${c.label} | ${cell(s.correct, s.n)} | ${cell(s.rejected, s.n)} | ${cell(s.wrong, s.n)} | ${cell(all.wrong, all.n)} | ${all.wrongCopy} | ${cell(all.rightReject, all.mustReject)} |`)
}
out.push('')
for (const k of kinds) {
  const first = /** @type {Tally} */ (results.get(contenders[0]?.name ?? '')?.get(k))
  out.push(`## ${KIND_LABELS[/** @type {Kind} */ (k)]} (\`${k}\`)${SHIFTED.has(k) ? ' †' : ''}`, '')
  out.push(`${first.n} trials, ${first.mustReject} must reject.`, '')
  out.push('| scheme | applied correctly | rejected | silently wrong |')
  out.push('|---|---|---|---|')
  for (const c of contenders) {
    const t = /** @type {Tally} */ (results.get(c.name)?.get(k))
    out.push(`| ${c.label} | ${cell(t.correct, t.n)} | ${cell(t.rejected, t.n)} | ${cell(t.wrong, t.n)} |`)
  }
  out.push('')
}
const engines = contenders.filter((c) => c.engine)
if (engines.length > 0) {
  out.push('## Engine rejections by code', '')
  out.push(`| scheme | ${kinds.join(' | ')} |`)
  out.push(`|---|${kinds.map(() => '---').join('|')}|`)
  for (const c of engines) {
    const cells = kinds.map((k) => {
      const codes = results.get(c.name)?.get(k)?.codes ?? new Map()
      return [...codes].sort().map(([code, n]) => `${code} ${n}`).join(', ') || '–'
    })
    out.push(`| ${c.label} | ${cells.join(' | ')} |`)
  }
  out.push('')
  if (engineWrong.length > 0) {
    out.push('## Engine: silently wrong trials', '', `Rerun one with \`node eval/stale-refs/run.mjs --seed ${seed} --only ID\`.`, '')
    for (const w of engineWrong.slice(0, 40)) out.push(`- ${w}`)
    if (engineWrong.length > 40) out.push(`- … and ${engineWrong.length - 40} more`)
    out.push('')
  }
}
const markdown = out.join('\n')
console.log(markdown)
if (!args['no-write']) writeFileSync(args.out, markdown)
process.stderr.write(`${done} trials × ${contenders.length} schemes in ${seconds.toFixed(1)} s\n`)
