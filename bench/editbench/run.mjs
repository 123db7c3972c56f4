#!/usr/bin/env node
// @ts-check
// The edit-format benchmark: real changes replayed in every format, applied
// by every applier, with and without the mistakes models make; token costs
// with real tokenizers. Writes REPORT.md and plot.svg beside this file (a
// subset run writes them under bench/.cache/editbench instead).
//
//   node bench/editbench/run.mjs           every fixture
//   node bench/editbench/run.mjs --quick   a 60-file subset spread over the corpus
//   options: --seed N (default 1), --files N (subset size), --no-write (print the report only)

import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CACHE, loadCorpus, readFixtures } from './corpus.mjs'
import { KINDS, mistakesAtRate, oneMistake } from './lib/mistakes.mjs'
import { OUR_VIEW, RATES, SHORT_VIEW, renderReport } from './lib/report.mjs'
import { COMBOS, FORMATS, Scenario } from './lib/scenario.mjs'
import { ENCODINGS, tokenizer } from './lib/tokens.mjs'
import { PEER_VIEWS, renderView, viewWithRefs } from './lib/views.mjs'
import { rng } from './lib/rng.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))
const KIND_IDS = KINDS.map((k) => k.id)
/**
 * The engine's oldString fallback takes about 0.1 ms per file line for every
 * search that finds nothing, and mistakes make many such searches; its rows
 * are measured on every FALLBACK_EVERY-th file, with one kind at a time and mixed
 * rates (not each kind at each rate), to keep the run bounded.
 */
const FALLBACK_EVERY = 4
const sampled = (/** @type {Combo} */ c) => c.applier === 'engine-fallback'

/**
 * @typedef {import('./lib/scenario.mjs').Combo} Combo
 * @typedef {import('./lib/scenario.mjs').FormatId} FormatId
 * @typedef {import('./lib/scenario.mjs').Variant} Variant
 * @typedef {import('./lib/scenario.mjs').TrialResult} TrialResult
 * @typedef {{ n: number, correct: number, rejected: number, silent: number, noted: number, na: number, tokens: Record<string, number> }} Cell
 */

function parseArgs(/** @type {string[]} */ argv) {
  const opt = { quick: false, seed: 1, files: 0, write: true }
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--quick') opt.quick = true
    else if (argv[i] === '--seed') opt.seed = Number(argv[++i])
    else if (argv[i] === '--files') opt.files = Number(argv[++i])
    else if (argv[i] === '--no-write') opt.write = false
    else throw new Error(`unknown option ${argv[i]}`)
  }
  if (opt.quick && !opt.files) opt.files = 60
  return opt
}

const emptyCell = () => /** @type {Cell} */ ({ n: 0, correct: 0, rejected: 0, silent: 0, noted: 0, na: 0, tokens: Object.fromEntries(ENCODINGS.map((e) => [e, 0])) })

/** A growing table of cells keyed by condition and combo. */
class Tally {
  constructor() {
    /** @type {Map<string, Cell>} */
    this.cells = new Map()
  }
  /** @param {string} cond @param {string} combo */
  cell(cond, combo) {
    const key = `${cond}\t${combo}`
    let c = this.cells.get(key)
    if (!c) {
      c = emptyCell()
      this.cells.set(key, c)
    }
    return c
  }
}

/** The view a format's user reads: this project's for hashline and patches citing @@ refs, OpenCode's plain one otherwise. */
const viewOf = (/** @type {FormatId} */ f) => (f === 'hashline' || f.startsWith('patch-ref') ? 'hashline' : f === 'hashline-short' ? 'short' : 'plain')
/** Formats with the same sites draw the same mistakes. */
const drawKey = (/** @type {FormatId} */ f) => (f.startsWith('hashline') ? 'hashline' : f)

function main() {
  const opt = parseArgs(process.argv.slice(2))
  const started = performance.now()
  const fixtures = readFixtures()
  let corpus = loadCorpus(fixtures)
  const fullSize = corpus.length
  if (opt.files && opt.files < corpus.length) {
    const step = corpus.length / opt.files
    corpus = Array.from({ length: opt.files }, (_, i) => corpus[Math.floor(i * step)])
  }
  const toks = ENCODINGS.map((e) => tokenizer(e))

  /** @type {Array<{ file: string, combo: string, outcome: string, detail: string }>} */
  const gateFailures = []
  const forced = new Tally()
  const rated = new Tally()
  /** @type {Record<string, { calls: number, new: number, old: number, structure: number, total: number }>} */
  const editTokens = {}
  /** @type {Record<string, Record<string, { tokens: number, lines: number }>>} */
  const viewTokens = {}
  /** @type {Array<{ kind: string, cond: string, file: string, mistakes: any, detail: string, echo?: string }>} */
  const hashlineSilent = []
  /** Boundary echoes in hashline ops, one at a time: by what was echoed, how they ended. */
  /** @type {Record<string, Record<string, number>>} */
  const echoes = {}
  /** Ideal hashline ops whose first or last content line legitimately repeats the neighbouring line. */
  const repeats = { blank: 0, text: 0 }
  /** @type {import('./lib/scenario.mjs').Timing} time of each applier call on the files every applier runs on */
  const timing = {}
  let hunks = 0
  let widened = 0
  let hashOps = 0
  let extended = 0
  /** @type {Record<string, number>} */
  const byLanguage = {}
  /** @type {Set<string>} */
  const packages = new Set()

  for (const [fi, file] of corpus.entries()) {
    const sc = new Scenario(file, opt.seed)
    hunks += sc.specs.length
    byLanguage[file.language] = (byLanguage[file.language] ?? 0) + 1
    packages.add(`${file.ecosystem}:${file.package}`)
    const hl = /** @type {import('./lib/formats.mjs').HashlineEdit} */ (sc.ideal.edits.hashline)
    widened += hl.widened
    hashOps += hl.units.length
    for (const op of hl.units) {
      const first = op.lines[0]
      const last = op.lines[op.lines.length - 1]
      /** @type {Array<[import('./lib/formats.mjs').Line | undefined, string | undefined]>} */
      const ends = [
        [first, op.before],
        [last, op.after],
      ]
      for (const [line, neighbour] of ends) {
        if (line && !line.copy && neighbour !== undefined && line.text === neighbour) repeats[neighbour.trim() === '' ? 'blank' : 'text']++
      }
    }
    extended += /** @type {import('./lib/formats.mjs').PatchEdit} */ (sc.ideal.edits['patch-ctx3']).extended

    // The gate: every ideal edit applies correctly with every applier.
    for (const combo of COMBOS) {
      const r = sc.trial(combo, sc.ideal, [])
      if (r.outcome !== 'correct') gateFailures.push({ file: file.id, combo: combo.id, outcome: r.outcome, detail: firstDifference(sc.ideal.finalText, r.got ?? '') + (r.output ? `\n${r.output.slice(0, 600)}` : '') })
    }

    // Tokens of each ideal edit, and of reading the file in each view.
    /** @type {Map<Variant, Record<string, Record<string, number[]>>>} */
    const callCost = new Map()
    const costOf = (/** @type {Variant} */ variant) => {
      let c = callCost.get(variant)
      if (!c) {
        c = {}
        for (const f of FORMATS) {
          const calls = sc.calls(variant, f.id)
          /** @type {Record<string, number[]>} */
          const byEncoding = {}
          for (const t of toks) byEncoding[t.name] = calls.map((call) => t.split(call).total)
          c[f.id] = byEncoding
        }
        callCost.set(variant, c)
      }
      return c
    }
    for (const f of FORMATS) {
      const calls = sc.calls(sc.ideal, f.id)
      for (const t of toks) {
        const s = (editTokens[`${f.id}\t${t.name}`] ??= { calls: 0, new: 0, old: 0, structure: 0, total: 0 })
        for (const call of calls) {
          const split = t.split(call)
          s.calls++
          s.new += split.new
          s.old += split.old
          s.structure += split.structure
          s.total += split.total
        }
      }
    }
    /** @type {Record<string, Record<string, number>>} */
    const readCost = { hashline: {}, short: {}, plain: {} }
    const raw = file.beforeText
    for (const t of toks) {
      const add = (/** @type {string} */ name, /** @type {string} */ text) => {
        const v = ((viewTokens[t.name] ??= {})[name] ??= { tokens: 0, lines: 0 })
        const n = t.count(text)
        v.tokens += n
        v.lines += sc.oldLines.length
        return n
      }
      add('raw', raw)
      readCost.hashline[t.name] = add(OUR_VIEW, sc.view)
      readCost.short[t.name] = add(SHORT_VIEW, viewWithRefs(sc.view, sc.refs.short))
      for (const v of PEER_VIEWS) {
        const n = add(v.name, renderView(sc.oldLines, v))
        if (v.name === 'N: ') readCost.plain[t.name] = n
      }
    }

    /** @param {Tally} tally @param {string} cond @param {Combo} combo @param {Variant} variant @param {TrialResult} r @param {string} kind @param {any} mistakes */
    const record = (tally, cond, combo, variant, r, kind, mistakes) => {
      const cell = tally.cell(cond, combo.id)
      cell.n++
      cell[r.outcome]++
      if (r.outcome === 'silent' && r.noted) cell.noted++
      const cost = costOf(variant)[combo.format]
      for (const t of toks) {
        const calls = cost[t.name]
        let sum = calls.reduce((a, b) => a + b, 0)
        for (const i of r.rejected) sum += readCost[viewOf(combo.format)][t.name] + calls[i]
        cell.tokens[t.name] += sum
      }
      if (combo.format !== 'hashline') return
      const edit = /** @type {import('./lib/formats.mjs').HashlineEdit} */ (variant.edits.hashline)
      const echoed = mistakes
        .filter((/** @type {any} */ m) => m.kind === 'echo-boundary')
        .map((/** @type {any} */ m) => String(m.site.side === 'before' ? edit.units[m.site.unit].before : edit.units[m.site.unit].after))
      const echo = echoed.length === 0 ? undefined : echoed.some((/** @type {string} */ t) => t.trim() === '') ? 'blank line' : 'non-blank line'
      if (kind === 'echo-boundary' && echo) {
        const e = (echoes[`${echo}\t${tally === forced ? 'one' : 'rates'}`] ??= { correct: 0, rejected: 0, silent: 0, noted: 0 })
        e[r.outcome]++
        if (r.outcome === 'silent' && r.noted) e.noted++
      }
      if (r.outcome === 'silent' && hashlineSilent.length < 500) {
        hashlineSilent.push({ kind, cond, file: file.id, mistakes, echo, detail: firstDifference(variant.finalText, r.got ?? '') })
      }
    }

    const inSample = fi % FALLBACK_EVERY === 0
    for (const kind of KIND_IDS) {
      const variant = kind === 'stale' ? sc.stale : sc.ideal
      for (const combo of COMBOS) {
        if (sampled(combo) && !inSample) continue
        if (!variant) {
          forced.cell(kind, combo.id).na++
          continue
        }
        const mistakes = kind === 'stale' ? [] : oneMistake(variant.edits[combo.format], kind, rng(`${opt.seed}|forced|${kind}|${drawKey(combo.format)}|${file.id}`))
        if (!mistakes) {
          forced.cell(kind, combo.id).na++
          continue
        }
        record(forced, kind, combo, variant, sc.trial(combo, variant, mistakes, inSample ? timing : undefined), kind, mistakes)
      }
    }

    for (const rate of RATES) {
      for (const cond of [...KIND_IDS, 'mixed']) {
        const kinds = cond === 'mixed' ? KIND_IDS : [cond]
        const stale = kinds.includes('stale') && rng(`${opt.seed}|${rate}|${cond}|stale|${file.id}`).chance(rate) ? sc.stale : null
        const variant = stale ?? sc.ideal
        for (const combo of COMBOS) {
          if (sampled(combo) && (!inSample || cond !== 'mixed')) continue
          const r = rng(`${opt.seed}|${rate}|${cond}|${drawKey(combo.format)}|${file.id}`)
          const mistakes = mistakesAtRate(variant.edits[combo.format], /** @type {any} */ (kinds.filter((k) => k !== 'stale')), rate, r)
          /** @type {TrialResult} */
          const result = !stale && mistakes.length === 0 ? { outcome: 'correct', rejected: [], noted: false } : sc.trial(combo, variant, mistakes, inSample ? timing : undefined)
          record(rated, `${rate}\t${cond}`, combo, variant, result, cond, mistakes)
        }
      }
    }
    if ((fi + 1) % 25 === 0) process.stderr.write(`${fi + 1}/${corpus.length} files, ${((performance.now() - started) / 1000).toFixed(0)} s\n`)
  }

  if (gateFailures.length > 0) {
    console.error(`GATE FAILED: ${gateFailures.length} ideal edit(s) did not apply correctly`)
    for (const g of gateFailures.slice(0, 20)) console.error(`- ${g.combo} ${g.outcome} ${g.file}\n${g.detail}`)
    process.exit(1)
  }

  const seconds = (performance.now() - started) / 1000
  const report = renderReport({
    opt,
    seconds,
    files: corpus.length,
    fullSize,
    hunks,
    byLanguage,
    packages: [...packages].sort(),
    fallbackFiles: Math.ceil(corpus.length / FALLBACK_EVERY),
    widened,
    hashOps,
    extended,
    forced,
    rated,
    editTokens,
    viewTokens,
    hashlineSilent,
    echoes,
    repeats,
    timing,
  })
  if (opt.write) {
    // Only a run over every fixture replaces the committed report.
    const dir = corpus.length < fullSize ? CACHE : HERE
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'REPORT.md'), report.markdown)
    writeFileSync(join(dir, 'plot.svg'), report.svg)
    console.log(`wrote ${relative(process.cwd(), join(dir, 'REPORT.md'))} and plot.svg (${corpus.length} files, ${seconds.toFixed(0)} s)`)
  } else console.log(report.markdown)
  console.log(report.verdict)
  if (!report.ok) process.exitCode = 2
}

/** Where two texts first differ, as a few lines of each. */
function firstDifference(/** @type {string} */ want, /** @type {string} */ got) {
  const a = want.split('\n')
  const b = got.split('\n')
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  const show = (/** @type {string[]} */ l) => l.slice(Math.max(0, i - 1), i + 3).map((x) => `    ${JSON.stringify(x)}`).join('\n')
  return `  line ${i + 1}, expected:\n${show(a)}\n  got:\n${show(b)}`
}

main()
