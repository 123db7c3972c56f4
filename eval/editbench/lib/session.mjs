// @ts-check
// The session measure: for one file, the session a model runs to make its
// change in one edit format. It reads the file (views of at most PAGE lines,
// the pages holding the lines the change touches), sends the edit (with the
// mistakes drawn for it), reads each result, and for each rejected call reads
// the error, reads the pages again and sends the call again. Input tokens are
// what the model reads (views, results, errors); output tokens what it writes
// (the tool-call arguments).

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { splitLines } from './diff.mjs'
import { toolCalls } from './formats.mjs'
import { inject } from './mistakes.mjs'
import { COMBOS } from './scenario.mjs'
import { LEAN_CHOICE, REF_FORMATS, applyRefEdit, plainPage, refFormat, specMap, tagsOf } from './refformats.mjs'
import { binding } from '../appliers/hashline.mjs'
import { pairTag } from './lean.mjs'

/**
 * @typedef {import('./scenario.mjs').Scenario} Scenario
 * @typedef {import('./scenario.mjs').Variant} Variant
 * @typedef {import('./mistakes.mjs').Mistake} Mistake
 * @typedef {import('./tokens.mjs').Tokenizer} Tokenizer
 * @typedef {import('./tokens.mjs').Tagged} Tagged
 * @typedef {import('./formats.mjs').HashlineEdit} HashlineEdit
 * @typedef {import('./refformats.mjs').RefFormat} RefFormat
 * @typedef {import('./refformats.mjs').Version} Version
 * @typedef {{ outcome: 'correct' | 'rejected' | 'silent', input: Record<string, number>, output: Record<string, number>, rejections: number, resends: number }} SessionResult
 * @typedef {{ mistakes: Mistake[], literal: boolean }} Attempt
 * @typedef {{ outcome: 'correct' | 'rejected' | 'silent', rejected: number[], errors: string[], resent?: Array<{ error: string, literal: boolean }> }} Played
 */

/**
 * The refusal that asks only for the content again: the engine could not
 * tell an echo from content. The model resends the same call without
 * reading again: its echoes taken out if it made any, else with
 * `literal: true` (write exactly this).
 */
export const ECHO_REFUSAL = 'AMBIGUOUS_ECHO'
/** Resends after echo refusals, at most, before the call counts as refused. */
const MAX_RESENDS = 2
const ECHO_KINDS = new Set(['echo-prefix', 'echo-boundary'])

/**
 * Plays a call and, while the engine refuses it as an ambiguous echo, the
 * model's resends: first without its echoes, then marked literal.
 * @param {Mistake[]} mistakes @param {(a: Attempt) => { outcome: Played['outcome'], code?: string, output?: string }} send
 * @returns {{ last: { outcome: Played['outcome'], code?: string, output?: string }, resent: Array<{ error: string, literal: boolean }> }}
 */
export function withResends(mistakes, send) {
  /** @type {Attempt} */
  let attempt = { mistakes, literal: false }
  let last = send(attempt)
  /** @type {Array<{ error: string, literal: boolean }>} */
  const resent = []
  while (last.outcome === 'rejected' && last.code === ECHO_REFUSAL && resent.length < MAX_RESENDS) {
    const echoes = attempt.mistakes.some((m) => ECHO_KINDS.has(m.kind))
    attempt = echoes ? { mistakes: attempt.mistakes.filter((m) => !ECHO_KINDS.has(m.kind)), literal: attempt.literal } : { mistakes: attempt.mistakes, literal: true }
    resent.push({ error: last.output ?? '', literal: attempt.literal })
    last = send(attempt)
  }
  return { last, resent }
}

/** What a model adds to a call to say "write exactly this". */
const LITERAL_ARGUMENT = ',"literal":true'

/** Lines a view shows at most; a longer file is read in pages. */
export const PAGE = 2000
/** Output tokens weigh this many input tokens in the session cost. */
export const OUTPUT_WEIGHT = 4

/** The chosen lean view's label once the engine renders it (the default view of every host). */
const LEAN_ENGINE_LABEL = 'this project, lean view `Nab ` (the engine)'

/**
 * The formats of the session measure, in table order.
 * @type {Array<{ id: string, label: string, family: 'builtin' | 'peer' | 'ours' | 'lean' }>}
 */
export const SESSION_FORMATS = [
  { id: 'opencode', label: 'OpenCode built-in: `N: ` view, str_replace (matcher chain)', family: 'builtin' },
  ...REF_FORMATS.map((f) => ({ id: f.id, label: f.id === LEAN_CHOICE ? LEAN_ENGINE_LABEL : f.label, family: /** @type {'peer' | 'ours' | 'lean'} */ (f.id === 'hashline' ? 'ours' : ['omo', 'omp-v2', 'omp', 'angdrew'].includes(f.id) ? 'peer' : 'lean') })),
]

const OPENCODE_OK = 'Edit applied successfully.'
const OPENCODE_NOT_FOUND = 'Could not find oldString in the file. It must match exactly, including whitespace, indentation, and line endings.'
const STR_COMBO = /** @type {import('./scenario.mjs').Combo} */ (COMBOS.find((c) => c.id === 'str-min/opencode'))
const ENGINE_COMBO = /** @type {import('./scenario.mjs').Combo} */ (COMBOS.find((c) => c.id === 'hashline/engine'))

/** First lines (1-based) of the pages that hold the lines a change touches. */
export function pagesOf(/** @type {Scenario} */ sc) {
  /** @type {Set<number>} */
  const pages = new Set()
  const n = sc.oldLines.length
  for (const s of sc.specs) {
    const from = Math.max(1, Math.min(n, s.oldStart))
    const to = Math.max(from, Math.min(n, s.oldStart + Math.max(1, s.oldLen)))
    for (let l = from; l <= to; l++) pages.add(Math.floor((l - 1) / PAGE) * PAGE + 1)
  }
  if (pages.size === 0) pages.add(1)
  return [...pages].sort((a, b) => a - b)
}

/** A version of a text, with the tags of each format computed when first asked. */
export const version = (/** @type {string} */ text) => /** @type {Version} */ ({ text, lines: splitLines(text) })

/** The session of one file in every format. */
export class Session {
  /** @param {Scenario} sc @param {Tokenizer[]} toks */
  constructor(sc, toks) {
    this.sc = sc
    this.toks = toks
    this.path = sc.path
    this.shown = version(sc.file.beforeText)
    this.after = version(sc.file.afterText)
    this.pages = pagesOf(sc)
    /** @type {Map<string, { read: Record<string, number>, calls: Record<string, number[]>, ok: Record<string, number[]>, lines: number }>} */
    this.costs = new Map()
    /** @type {Map<string, import('./scenario.mjs').TrialResult>} engine outcomes by mistakes: the same draw recurs across conditions */
    this.engineTrials = new Map()
    /** @type {Version | undefined} the text the stale scenario's earlier edit left */
    this.staleBase = undefined
  }

  /** @param {string} text */
  count(text) {
    return Object.fromEntries(this.toks.map((t) => [t.name, t.count(text)]))
  }

  /** The read output of every needed page of the version read, in a format. */
  readText(/** @type {string} */ id) {
    const v = this.shown
    return this.pages
      .map((start) => {
        if (id === 'opencode') return plainPage(this.path, v, start, PAGE)
        if (id === 'hashline') return binding.formatView(v.text, { path: this.path, offset: start, limit: PAGE, view: 'full' })
        if (id === LEAN_CHOICE) return binding.formatView(v.text, { path: this.path, offset: start, limit: PAGE, view: 'lean' })
        return refFormat(id).page(this.path, v, start, PAGE)
      })
      .join('\n')
  }

  /** The ideal calls of a format on the change as a whole, tagged for the token split. */
  idealCalls(/** @type {string} */ id) {
    if (id === 'opencode') return toolCalls(this.sc.ideal.edits['str-min'], this.path)
    if (id === 'hashline') return toolCalls(this.sc.ideal.edits.hashline, this.path)
    const f = refFormat(id)
    return [f.call(refOps(f, /** @type {HashlineEdit} */ (this.sc.ideal.edits.hashline), this.shown), this.path, this.shown)]
  }

  /** Token costs of a format's read, ideal calls and their results, computed once. */
  cost(/** @type {string} */ id) {
    let c = this.costs.get(id)
    if (c) return c
    const calls = this.idealCalls(id)
    let okTexts
    if (id === 'opencode') okTexts = calls.map(() => OPENCODE_OK)
    // The result a success shows: an ideal edit the engine refuses as an
    // ambiguous echo succeeds when resent literal (play() counts the refusal).
    else if (id === 'hashline') okTexts = [orLiteral((literal) => binding.applyEdits(this.shown.text, { ...hashlineRequestOf(this.sc), ...(literal ? { literal } : {}) })).output]
    else if (id === LEAN_CHOICE) okTexts = [orLiteral((literal) => leanEngineEdit(this.path, this.shown.text, /** @type {HashlineEdit} */ (this.sc.ideal.edits.hashline), undefined, { literal })).output]
    else okTexts = [refFormat(id).ok(this.path, this.shown, this.after, this.sc.ideal.edits.hashline.units.length)]
    /** @type {Record<string, number[]>} */
    const callTokens = {}
    /** @type {Record<string, number[]>} */
    const okTokens = {}
    const read = this.count(this.readText(id))
    for (const t of this.toks) {
      callTokens[t.name] = calls.map((call) => t.split(call).total)
      okTokens[t.name] = okTexts.map((s) => t.count(s))
    }
    c = { read, calls: callTokens, ok: okTokens, lines: this.pages.reduce((a, p) => a + Math.min(PAGE, this.shown.lines.length - p + 1), 0) }
    this.costs.set(id, c)
    return c
  }

  /**
   * The edit of a format whose mistakes are drawn: ref formats share this
   * project's operations (one batch per file); oh-my-pi's latest types both
   * numbers of every range.
   */
  editFor(/** @type {string} */ id, /** @type {Variant} */ variant) {
    if (id === 'opencode') return variant.edits['str-min']
    const e = /** @type {HashlineEdit} */ (variant.edits.hashline)
    return id === 'omp' ? { ...e, throughAlways: true } : e
  }

  /**
   * Plays the session of one format with these mistakes.
   * @param {string} id @param {Variant} variant @param {Mistake[]} mistakes
   * @returns {SessionResult}
   */
  play(id, variant, mistakes) {
    const c = this.cost(id)
    const stale = variant.earlierSpec !== undefined
    /** @type {Played} */
    let r
    if (id === 'opencode') {
      const t = !stale && mistakes.length === 0 ? { outcome: /** @type {const} */ ('correct'), rejected: [] } : this.sc.trial(STR_COMBO, variant, mistakes)
      r = { outcome: t.outcome, rejected: t.rejected, errors: t.rejected.map(() => OPENCODE_NOT_FOUND) }
    } else if (id === 'hashline') {
      const { last: t, resent } = withResends(mistakes, (a) => {
        const key = `${stale}|${a.literal}|${JSON.stringify(a.mistakes)}`
        let t = this.engineTrials.get(key)
        if (!t) {
          // The ideal edit in its first form may itself be refused or changed by a clean-up: it is sent too.
          t = !stale && a.mistakes.length === 0 && !this.sc.natural ? { outcome: /** @type {const} */ ('correct'), rejected: [], noted: false, output: '' } : this.sc.trial(ENGINE_COMBO, variant, a.mistakes, undefined, { literal: a.literal })
          this.engineTrials.set(key, t)
        }
        return t
      })
      r = { outcome: t.outcome, rejected: t.outcome === 'rejected' ? [0] : [], errors: t.outcome === 'rejected' ? [t.output ?? ''] : [], resent }
    } else if (id === LEAN_CHOICE) r = this.playLeanEngine(variant, mistakes)
    else r = this.playRef(refFormat(id), variant, mistakes)

    /** @type {Record<string, number>} */
    const input = {}
    /** @type {Record<string, number>} */
    const output = {}
    for (const t of this.toks) {
      const e = t.name
      let inTokens = c.read[e] + c.ok[e].reduce((a, b) => a + b, 0)
      let outTokens = c.calls[e].reduce((a, b) => a + b, 0)
      r.rejected.forEach((call, k) => {
        inTokens += t.count(r.errors[k]) + c.read[e]
        outTokens += c.calls[e][Math.min(call, c.calls[e].length - 1)]
      })
      // A resend after an echo refusal: the error, then the call again, without a read.
      for (const s of r.resent ?? []) {
        inTokens += t.count(s.error)
        outTokens += c.calls[e].reduce((a, b) => a + b, 0) + (s.literal ? t.count(LITERAL_ARGUMENT) : 0)
      }
      input[e] = inTokens
      output[e] = outTokens
    }
    return { outcome: r.outcome, input, output, rejections: r.rejected.length, resends: r.resent?.length ?? 0 }
  }

  /**
   * The chosen lean view's edit through the engine (once the binding has the lean view).
   * @returns {Played}
   */
  playLeanEngine(/** @type {Variant} */ variant, /** @type {Mistake[]} */ mistakes) {
    const edit = /** @type {HashlineEdit} */ (variant.edits.hashline)
    const { last, resent } = withResends(mistakes, (a) => {
      const sent = a.mistakes.length > 0 ? injectInto(edit, a.mistakes) : edit
      try {
        const r = leanEngineEdit(this.path, this.shown.text, sent, variant.earlier?.hashline, { literal: a.literal })
        return { outcome: r.text === variant.finalText ? /** @type {const} */ ('correct') : /** @type {const} */ ('silent') }
      } catch (err) {
        const e = /** @type {any} */ (err)
        return { outcome: /** @type {const} */ ('rejected'), code: e.code, output: String(e.message) }
      }
    })
    return { outcome: last.outcome, rejected: last.outcome === 'rejected' ? [0] : [], errors: last.outcome === 'rejected' ? [last.output ?? ''] : [], resent }
  }

  /** A ref format's edit through its modelled tool. */
  playRef(/** @type {RefFormat} */ f, /** @type {Variant} */ variant, /** @type {Mistake[]} */ mistakes) {
    const stale = variant.earlierSpec
    const edit = /** @type {HashlineEdit} */ (this.editFor(f.id, variant))
    const sent = mistakes.length > 0 ? injectInto(edit, mistakes) : edit
    const current = stale ? (this.staleBase ??= version(variant.base)) : this.shown
    const res = applyRefEdit(f, sent, { shown: this.shown, current, map: stale ? specMap(stale) : undefined })
    if (res.outcome === 'rejected') return { outcome: /** @type {const} */ ('rejected'), rejected: [0], errors: [f.fail(this.path, current, res.bad)] }
    return { outcome: res.text === variant.finalText ? /** @type {const} */ ('correct') : /** @type {const} */ ('silent'), rejected: [], errors: [] }
  }
}

/**
 * A call made as sent, and again marked literal when the engine refuses it
 * as an ambiguous echo.
 * @template T
 * @param {(literal: boolean) => T} call
 * @returns {T}
 */
function orLiteral(call) {
  try {
    return call(false)
  } catch (err) {
    if (/** @type {any} */ (err)?.code !== 'AMBIGUOUS_ECHO') throw err
    return call(true)
  }
}

/**
 * The chosen lean view through the engine itself, driven as a host drives it:
 * a session in the lean view reads the file, makes the earlier edit of the
 * stale scenario (its ideal request, the refs copied from that first view),
 * and sends the batch citing the refs of the first view. A model that echoes
 * prefixes past the end of the file makes up tags there in the view's shape.
 * @param {string} path the file's path in the project, as the model names it
 * @param {string} oldText @param {HashlineEdit} edit mistakes injected
 * @param {{ operations: Array<Record<string, string>> } | undefined} earlier the earlier edit's request, in full refs
 * @param {{ literal?: boolean }} [options] `literal`: the requests carry `literal: true` (a model that was
 *   refused an echo it did not make resends its edits so)
 */
export function leanEngineEdit(path, oldText, edit, earlier, options = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'editbench-lean-'))
  try {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), oldText)
    const session = new binding.Hashline({ root: dir, view: 'lean' })
    const view = session.read(path, { limit: 1_000_000 }).text
    /** @type {string[]} */
    const tags = []
    for (const line of view.split('\n')) {
      const m = /^(\d+)([a-z]{2})[ \t]/.exec(line)
      if (m) tags[Number(m[1])] = m[2]
    }
    const tag = (/** @type {number} */ n) => tags[n] ?? pairTag(n, '')
    const ref = (/** @type {number} */ n, shift = 0) => `${Math.max(1, n + shift)}${tag(n)}`
    if (earlier) {
      const lean = (/** @type {string | undefined} */ full) => (full === undefined ? undefined : ref(Number(full.split('#')[0])))
      session.edit(path, { operations: earlier.operations.map((o) => ({ ...o, ref: lean(o.ref), through: lean(o.through) })), ...(options.literal ? { literal: true } : {}) })
    }
    const operations = edit.units.map((u) => {
      /** @type {Record<string, string>} */
      const o = { op: u.op }
      if (u.first !== undefined) o.ref = ref(u.first, u.refShift)
      if (u.last !== undefined && u.last !== u.first && (u.op === 'replace' || u.op === 'delete')) o.through = ref(u.last, u.throughShift)
      if (u.op !== 'delete') {
        const start = u.op === 'insert_after' ? (u.first ?? 0) + 1 : u.op === 'append' ? tags.length : u.op === 'prepend' ? 1 : u.first ?? 1
        o.content = u.lines.map((l, k) => (u.echo ? `${start + k}${tag(start + k)} ` : '') + l.text).join('\n') + (u.lines.length > 0 && u.lines[u.lines.length - 1].text === '' ? '\n' : '')
      }
      return o
    })
    const r = session.edit(path, { operations, ...(options.literal ? { literal: true } : {}) })
    return { text: readFileSync(join(dir, path), 'utf8'), output: r.output }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The request of this project's ideal edit. */
function hashlineRequestOf(/** @type {Scenario} */ sc) {
  const e = /** @type {HashlineEdit} */ (sc.ideal.edits.hashline)
  return { operations: e.units.map((u) => operationOf(u, e.refs)) }
}

function operationOf(/** @type {import('./formats.mjs').HashlineOp} */ u, /** @type {string[]} */ refs) {
  /** @type {Record<string, string>} */
  const o = { op: u.op }
  if (u.first !== undefined) o.ref = refs[u.first]
  if (u.last !== undefined && u.last !== u.first && (u.op === 'replace' || u.op === 'delete')) o.through = refs[u.last]
  if (u.op !== 'delete') o.content = u.lines.map((l) => l.text).join('\n') + (u.lines.length > 0 && u.lines[u.lines.length - 1].text === '' ? '\n' : '')
  return o
}

/** The refs each op of an edit cites, in a format, as the model copies them from the view. */
export function refOps(/** @type {RefFormat} */ f, /** @type {HashlineEdit} */ edit, /** @type {Version} */ shown) {
  const tags = tagsOf(f, shown)
  return edit.units.map((op) => ({
    op,
    ref: op.first !== undefined ? f.ref(op.first, tags[op.first]) : undefined,
    through: op.last !== undefined && op.last !== op.first && (op.op === 'replace' || op.op === 'delete') ? f.ref(op.last, tags[op.last]) : undefined,
  }))
}

/** Mistakes injected into a ref-format edit (the shared injector, keeping the format's flags). */
function injectInto(/** @type {HashlineEdit} */ edit, /** @type {Mistake[]} */ mistakes) {
  return { ...inject(edit, mistakes), throughAlways: edit.throughAlways }
}

