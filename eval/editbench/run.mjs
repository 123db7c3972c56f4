#!/usr/bin/env node
// @ts-check
// The edit-format benchmark: real changes replayed in every format, applied
// by every applier, with and without the mistakes models make; token costs
// with real tokenizers. Writes REPORT.md and plot.svg beside this file (a
// subset run writes them under eval/.cache/editbench instead).
//
//   node eval/editbench/run.mjs           every fixture
//   node eval/editbench/run.mjs --quick   a 60-file subset spread over the corpus
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
import { SESSION_FORMATS, Session } from './lib/session.mjs'
import { LEAN_CHOICE, refFormat, tagsOf } from './lib/refformats.mjs'
import { binding } from './appliers/hashline.mjs'
import { shapes } from './lib/shapes.mjs'
import { movedBlocks, moveOperation } from './lib/moves.mjs'
import { stripLeanPrefixes, LEAN_PREFIX } from './lib/lean.mjs'
import { toolCalls } from './lib/formats.mjs'
import { asNumber, flag, options } from '../../bench/harness.mjs'

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
/** The line-prefix shapes are measured on every SHAPES_EVERY-th file: there are a few hundred of them. */
const SHAPES_EVERY = 8
/** Session conditions: every mistake kind mixed, and the same without boundary echoes (owned by another issue). */
export const SESSION_CONDS = ['mixed', 'mixed-nb']

/**
 * @typedef {import('./lib/scenario.mjs').Combo} Combo
 * @typedef {import('./lib/scenario.mjs').FormatId} FormatId
 * @typedef {import('./lib/scenario.mjs').Variant} Variant
 * @typedef {import('./lib/scenario.mjs').TrialResult} TrialResult
 * @typedef {{ n: number, correct: number, rejected: number, silent: number, noted: number, na: number, tokens: Record<string, number> }} Cell
 */

function parseArgs() {
  const opt = options(import.meta.url, { quick: flag, seed: { parse: asNumber, default: 1 }, files: { parse: asNumber, default: 0 }, 'no-write': flag })
  opt.write = !opt.noWrite
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
const viewOf = (/** @type {FormatId} */ f) => (f === 'hashline' || f === 'hashline-block' || f.startsWith('patch-ref') ? 'hashline' : f === 'hashline-short' ? 'short' : 'plain')
/** Formats with the same sites draw the same mistakes. */
const drawKey = (/** @type {FormatId} */ f) => (f.startsWith('hashline') ? 'hashline' : f)

function main() {
  const opt = parseArgs()
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
  /** Silently wrong results with one mistake of a kind, and how many of them carried a parse-check warning. */
  /** @type {Record<string, { silent: number, flagged: number }>} */
  const parseFlags = {}
  /** Ideal hashline ops whose first or last content line legitimately repeats the neighbouring line. */
  const repeats = { blank: 0, text: 0 }
  /** @type {import('./lib/scenario.mjs').Timing} time of each applier call on the files every applier runs on */
  const timing = {}
  let hunks = 0
  let widened = 0
  let hashOps = 0
  let extended = 0
  /** Hunks the block format sent as block ops, by op. */
  const blockOps = /** @type {Record<string, number>} */ ({})
  /** Every off-by-one and boundary echo on those hunks, by kind, where it fell and format. */
  const blockMistakes = /** @type {Record<string, { n: number, correct: number, rejected: number, silent: number }>} */ ({})
  /** @type {Map<string, import('./lib/sessionreport.mjs').SessionCell>} session outcomes and tokens by rate, condition and format */
  const sessions = new Map()
  /** @type {Map<string, { n: number, correct: number, rejected: number, silent: number }>} one mistake of a kind, by kind and format */
  const sessionForced = new Map()
  /** @type {Record<string, { reads: Record<string, number>, lines: number, calls: Record<string, number>, view: Record<string, number> }>} */
  const sessionCost = {}
  const shapeList = shapes()
  /** @type {Record<string, Record<string, number>>} view tokens per shape and encoding, over the sampled files */
  const shapeTokens = {}
  const shapeRaw = { lines: 0, tokens: /** @type {Record<string, number>} */ ({}) }
  /** How often the lean clean-up rule would touch content that is no echo: ideal ops, and single file lines. */
  const leanFalse = { ops: 0, opsStripped: 0, lines: 0, linesMatching: 0 }
  const moves = {
    files: 0, blocks: 0, moves: 0, lines: 0, worth: 0, worthLines: 0, worthMoves: 0,
    retyped: /** @type {Record<string, number>} */ ({}), ops: /** @type {Record<string, number>} */ ({}), saved: /** @type {Record<string, number>} */ ({}), hashlineTotal: /** @type {Record<string, number>} */ ({}),
  }
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

    // The session measure: every format's session of this file, at every rate, and one mistake of each kind.
    const ss = new Session(sc, toks)
    for (const f of SESSION_FORMATS) {
      const c = ss.cost(f.id)
      const acc = (sessionCost[f.id] ??= { reads: {}, lines: 0, calls: {}, view: {} })
      acc.lines += sc.oldLines.length
      for (const t of toks) {
        acc.reads[t.name] = (acc.reads[t.name] ?? 0) + c.read[t.name]
        acc.calls[t.name] = (acc.calls[t.name] ?? 0) + c.calls[t.name].reduce((a, b) => a + b, 0)
        // Tokens per line of view: the whole file in one view, less the raw file.
        const whole = f.id === 'opencode' ? renderView(sc.oldLines, PEER_VIEWS[0]) : f.id === 'hashline' ? sc.view : f.id === LEAN_CHOICE ? binding.formatView(raw, { path: sc.path, limit: 1_000_000, view: 'lean' }) : refFormat(f.id).page(sc.path, ss.shown, 1, Infinity)
        acc.view[t.name] = (acc.view[t.name] ?? 0) + t.count(whole) - t.count(raw)
      }
    }
    for (const kind of KIND_IDS) {
      const variant = kind === 'stale' ? sc.stale : sc.ideal
      if (!variant) continue
      for (const f of SESSION_FORMATS) {
        const edit = ss.editFor(f.id, variant)
        const mistakes = kind === 'stale' ? [] : oneMistake(edit, kind, rng(`${opt.seed}|session-forced|${kind}|${f.id === 'opencode' ? 'str' : 'ref'}|${file.id}`))
        if (!mistakes) continue
        const r = ss.play(f.id, variant, mistakes)
        const cell = sessionForced.get(`${kind}\t${f.id}`) ?? { n: 0, correct: 0, rejected: 0, silent: 0 }
        cell.n++
        cell[r.outcome]++
        sessionForced.set(`${kind}\t${f.id}`, cell)
      }
    }
    for (const rate of RATES) {
      for (const cond of SESSION_CONDS) {
        const kinds = KIND_IDS.filter((k) => k !== 'stale' && (cond === 'mixed' || k !== 'echo-boundary'))
        const stale = rng(`${opt.seed}|${rate}|session|stale|${file.id}`).chance(rate) ? sc.stale : null
        const variant = stale ?? sc.ideal
        for (const f of SESSION_FORMATS) {
          const edit = ss.editFor(f.id, variant)
          const mistakes = mistakesAtRate(edit, /** @type {any} */ (kinds), rate, rng(`${opt.seed}|${rate}|session|${f.id === 'opencode' ? 'str' : 'ref'}|${file.id}`))
          const r = ss.play(f.id, variant, mistakes)
          const key = `${rate}\t${cond}\t${f.id}`
          const cell = sessions.get(key) ?? { n: 0, correct: 0, rejected: 0, silent: 0, rejections: 0, input: {}, output: {} }
          cell.n++
          cell[r.outcome]++
          cell.rejections += r.rejections
          for (const t of toks) {
            cell.input[t.name] = (cell.input[t.name] ?? 0) + r.input[t.name]
            cell.output[t.name] = (cell.output[t.name] ?? 0) + r.output[t.name]
          }
          sessions.set(key, cell)
        }
      }
    }

    // Lean-view shapes, on a sample of the files.
    if (fi % SHAPES_EVERY === 0) {
      shapeRaw.lines += sc.oldLines.length
      for (const t of toks) {
        shapeRaw.tokens[t.name] = (shapeRaw.tokens[t.name] ?? 0) + t.count(raw)
        for (const shape of shapeList) {
          let view = ''
          for (let i = 0; i < sc.oldLines.length; i++) view += shape.prefix(i + 1, sc.oldLines[i]) + sc.oldLines[i] + '\n'
          const row = (shapeTokens[shape.name + '\t' + shape.alphabet] ??= {})
          row[t.name] = (row[t.name] ?? 0) + t.count(view)
        }
      }
    }
    // The lean clean-up rule on content that is no echo: every ideal op, and every file line on its own.
    for (const u of /** @type {import('./lib/formats.mjs').HashlineEdit} */ (sc.ideal.edits.hashline).units) {
      if (u.lines.length === 0) continue
      leanFalse.ops++
      if (stripLeanPrefixes(u.lines.map((l) => l.text))) leanFalse.opsStripped++
    }
    leanFalse.lines += sc.oldLines.length
    for (const l of sc.oldLines) if (LEAN_PREFIX.test(l)) leanFalse.linesMatching++

    // Moved and copied code: what citing it instead of retyping it would save.
    const blocks = movedBlocks(sc.change)
    const leanTags = tagsOf(refFormat('pair'), ss.shown)
    for (const t of toks) {
      const [call] = toolCalls(sc.ideal.edits.hashline, sc.path)
      moves.hashlineTotal[t.name] = (moves.hashlineTotal[t.name] ?? 0) + t.split(call).total
    }
    if (blocks.length > 0) {
      moves.files++
      for (const b of blocks) {
        moves.blocks++
        if (b.kind === 'move') moves.moves++
        moves.lines += b.len
        for (const t of toks) {
          const retyped = t.count(JSON.stringify(b.lines.join('\n') + '\n').slice(1, -1))
          // The op that cites the block, plus the header of the op split around it when the block sat inside one.
          const op = t.count(moveOperation(b, (n) => `${n}${leanTags[n]}`)) + (b.inside ? t.count(',{"op":"insert_after","ref":"123ab","content":""}') : 0)
          moves.retyped[t.name] = (moves.retyped[t.name] ?? 0) + retyped
          moves.ops[t.name] = (moves.ops[t.name] ?? 0) + op
          // A model cites the block only where that is shorter than retyping it.
          moves.saved[t.name] = (moves.saved[t.name] ?? 0) + Math.max(0, retyped - op)
          if (t.name === ENCODINGS[0] && retyped > op) {
            moves.worth++
            moves.worthLines += b.len
            if (b.kind === 'move') moves.worthMoves++
          }
        }
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
      if (tally === forced && r.outcome === 'silent') {
        const f = (parseFlags[kind] ??= { silent: 0, flagged: 0 })
        f.silent++
        if (r.flagged) f.flagged++
      }
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

    const blockEdit = /** @type {import('./lib/formats.mjs').HashlineEdit} */ (sc.ideal.edits['hashline-block'])
    const plainUnits = /** @type {import('./lib/formats.mjs').HashlineEdit} */ (sc.ideal.edits.hashline).units
    blockEdit.units.forEach((unit, b) => {
      if (!unit.op.endsWith('_block')) return
      blockOps[unit.op] = (blockOps[unit.op] ?? 0) + 1
      const p = plainUnits.findIndex((u) => u.hunk === unit.hunk)
      for (const [format, u, i] of /** @type {Array<[FormatId, import('./lib/formats.mjs').HashlineOp, number]>} */ ([['hashline-block', unit, b], ['hashline', plainUnits[p], p]])) {
        const combo = /** @type {Combo} */ (COMBOS.find((c) => c.format === format && c.applier === 'engine'))
        const through = u.last !== undefined && u.last !== u.first && (u.op === 'replace' || u.op === 'delete')
        /** @type {Array<[string, import('./lib/mistakes.mjs').Mistake]>} */
        const slips = [
          ...(u.first !== undefined ? [-1, 1].map((d) => /** @type {[string, any]} */ (['off-by-one, first line', { kind: 'off-by-one', site: { unit: i, which: 'ref' }, pick: d < 0 ? 0.25 : 0.75 }])) : []),
          ...(through ? [-1, 1].map((d) => /** @type {[string, any]} */ (['off-by-one, last line', { kind: 'off-by-one', site: { unit: i, which: 'through' }, pick: d < 0 ? 0.25 : 0.75 }])) : []),
          ...(u.op.startsWith('delete') ? [] : /** @type {const} */ (['before', 'after']).flatMap((side) => (u[side] === undefined ? [] : [/** @type {[string, any]} */ ([`echo of the line ${side}`, { kind: 'echo-boundary', site: { unit: i, side }, pick: 0 }])]))),
        ]
        for (const [where, m] of slips) {
          const r = sc.trial(combo, sc.ideal, [m])
          const cell = (blockMistakes[`${where}\t${format}`] ??= { n: 0, correct: 0, rejected: 0, silent: 0 })
          cell.n++
          cell[r.outcome]++
        }
      }
    })

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
    blockOps,
    blockMistakes,
    forced,
    rated,
    editTokens,
    viewTokens,
    hashlineSilent,
    echoes,
    parseFlags,
    repeats,
    timing,
    sessions,
    sessionForced,
    sessionCost,
    shapeList,
    shapeTokens,
    shapeRaw,
    leanFalse,
    moves,
    shapesEvery: SHAPES_EVERY,
  })
  if (opt.write) {
    // Only a run over every fixture replaces the committed report.
    const dir = corpus.length < fullSize ? CACHE : HERE
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'REPORT.md'), report.markdown)
    writeFileSync(join(dir, 'plot.svg'), report.svg)
    writeFileSync(join(dir, 'session.svg'), report.sessionSvg)
    console.log(`wrote ${relative(process.cwd(), join(dir, 'REPORT.md'))}, plot.svg and session.svg (${corpus.length} files, ${seconds.toFixed(0)} s)`)
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
