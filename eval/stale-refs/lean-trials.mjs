// @ts-check
// Trials for lean refs (`12ab`): the stale-ref trials of trials.mjs, plus
// three kinds where a line with the cited line's two-letter tag stands at
// the cited line number, which a lean ref cannot tell from the line it
// meant. Each trial also says which lines the model's read showed and, for
// half of them, which lines a later partial read of the changed file showed
// (never the cited ones).

import { pairTag } from '../editbench/lib/lean.mjs'
import { applyStep, groundTruth, KINDS as STALE_KINDS, Rng } from './trials.mjs'

/**
 * @typedef {import('./trials.mjs').Trial} Trial
 * @typedef {import('./trials.mjs').Step} Step
 * @typedef {import('./schemes.mjs').Op} Op
 * @typedef {typeof KINDS[number]} Kind
 * @typedef {Omit<Trial, 'kind'> & { kind: Kind, shown: [number, number], later: [number, number] | null }} LeanTrial
 *   shown: the lines (0-based, inclusive) of the read version that the read showed;
 *   later: the lines of the changed text a later partial read showed, or null
 */

export const CRAFTED = /** @type {const} */ (['crafted-target', 'crafted-insert', 'crafted-earlier'])
export const KINDS = /** @type {const} */ ([...STALE_KINDS, ...CRAFTED])

export const CRAFTED_LABELS = {
  'crafted-target': 'the cited lines rewritten on disk into other lines with the same tags',
  'crafted-insert': 'lines with the cited lines\u2019 tags inserted at their numbers on disk, the cited lines pushed down',
  'crafted-earlier': 'an earlier edit through the engine rewrote the cited lines into other lines with the same tags',
}

/** Words for crafted lines: any text will do, only its tag matters. */
const WORDS = ['next', 'other', 'value', 'item', 'note', 'count', 'entry', 'flag']

/**
 * A line other than `text` whose pair tag at line `number` (1-based) is the
 * tag of `text` there: what a collision looks like, made on purpose. About
 * one candidate in 338 fits, so the search is short.
 * @param {Rng} rng @param {number} number @param {string} text
 */
export function craftSameTag(rng, number, text) {
  const want = pairTag(number, text)
  const base = text.replace(/[ \t]+$/, '')
  const word = rng.pick(WORDS)
  for (let k = rng.int(0, 1000); ; k++) {
    const candidate = `${base} ${word}${k}`
    if (pairTag(number, candidate) === want) return candidate
  }
}

const same = (/** @type {readonly string[]} */ a, /** @type {readonly string[]} */ b) => a.length === b.length && a.every((l, i) => l === b[i])

/**
 * Where the cited lines of the read are in `cells`, when all of them survive
 * unchanged (0-based), else an empty list.
 * @param {Array<{ orig: number, text: string }>} cells @param {Trial} t
 */
function citedNow(cells, t) {
  const out = []
  for (let i = t.op.first; i <= t.op.last; i++) {
    const at = cells.findIndex((c) => c.orig === i)
    if (at < 0 || cells[at].text !== t.lines[i]) return []
    out.push(at)
  }
  return out
}

export class LeanTrialMaker {
  /** @param {import('./trials.mjs').TrialMaker} maker the stale-ref trials, on the same files and seed */
  constructor(maker) {
    this.maker = maker
  }

  /** @param {number} id @param {Kind} kind @returns {LeanTrial} */
  make(id, kind) {
    const base = CRAFTED.includes(/** @type {any} */ (kind)) ? this.crafted(id, /** @type {typeof CRAFTED[number]} */ (kind)) : this.maker.make(id, /** @type {any} */ (kind))
    // A stream of its own, so the stale-ref trial is the one trials.mjs makes.
    const rng = new Rng(this.maker.seed ^ 0x1ea4, id)
    const n = base.lines.length
    // The read shows the whole file, or a window holding every line the
    // model cites (its earlier edit's lines too).
    let lo = base.op.first
    let hi = base.op.last
    if (base.earlier) {
      lo = Math.min(lo, base.earlier.first)
      hi = Math.max(hi, base.earlier.last + (base.earlier.op === 'insert_after' ? 1 : 0))
    }
    hi = Math.min(hi, n - 1)
    /** @type {[number, number]} */
    const shown = rng.chance(0.5) ? [0, n - 1] : [Math.max(0, lo - rng.int(0, 80)), Math.min(n - 1, hi + rng.int(0, 80))]
    return { ...base, kind, shown, later: rng.chance(0.5) ? laterWindow(rng, base) : null }
  }

  /**
   * A trial where lines with the cited lines' tags stand at the cited
   * numbers of the changed file, and the cited lines changed or moved.
   * @param {number} id @param {typeof CRAFTED[number]} kind @returns {Trial}
   */
  crafted(id, kind) {
    const base = this.maker.make(id, 'edit-target')
    const rng = new Rng(this.maker.seed ^ 0xc4af, id)
    const { lines, op } = base
    const cited = op.op === 'insert_after' ? [op.first] : [...new Set([op.first, op.last])]
    /** @type {Step[]} */
    const steps = []
    /** @type {Op | null} */
    let earlier = null
    if (kind === 'crafted-target') {
      for (const i of cited) steps.push({ step: 'modify', at: i, text: craftSameTag(rng, i + 1, lines[i]) })
    } else if (kind === 'crafted-insert') {
      // A block as long as the cited range, each line with the tag of the
      // cited line whose number it takes.
      const ghost = []
      for (let i = op.first; i <= op.last; i++) ghost.push(craftSameTag(rng, i + 1, lines[i]))
      steps.push({ step: 'insert', at: op.first, lines: ghost })
    } else {
      const content = []
      for (let i = op.first; i <= op.last; i++) content.push(cited.includes(i) ? craftSameTag(rng, i + 1, lines[i]) : `${lines[i]} ${rng.pick(WORDS)}`)
      earlier = { op: 'replace', first: op.first, last: op.last, content }
    }
    const cells = lines.map((text, orig) => ({ orig, text }))
    if (earlier) {
      applyStep(cells, { step: 'delete', at: earlier.first, count: earlier.last - earlier.first + 1 })
      applyStep(cells, { step: 'insert', at: earlier.first, lines: earlier.content })
    }
    for (const s of steps) applyStep(cells, s)
    const expected = groundTruth(cells, lines, op)
    if (kind !== 'crafted-insert' && !expected.reject) throw new Error(`trial ${id} (${kind}): the cited lines survived`)
    if (kind === 'crafted-insert' && expected.reject) throw new Error(`trial ${id} (${kind}): the cited lines did not survive: ${expected.why}`)
    return { ...base, kind: /** @type {any} */ (kind), steps, earlier, current: cells.map((c) => c.text), expected, note: CRAFTED_LABELS[kind] }
  }
}

/**
 * A window of the changed text that shows neither the cited line numbers
 * nor the lines the cited lines became, or null when the file leaves no
 * room for one (a short file).
 * @param {Rng} rng @param {Trial} t @returns {[number, number] | null}
 */
function laterWindow(rng, t) {
  const cells = t.lines.map((text, orig) => ({ orig, text }))
  if (t.earlier) {
    const e = t.earlier
    if (e.op === 'insert_after') applyStep(cells, { step: 'insert', at: e.first + 1, lines: e.content })
    else {
      applyStep(cells, { step: 'delete', at: e.first, count: e.last - e.first + 1 })
      if (e.op === 'replace') applyStep(cells, { step: 'insert', at: e.first, lines: e.content })
    }
  }
  for (const s of t.steps) applyStep(cells, s)
  if (!same(cells.map((c) => c.text), t.current)) throw new Error(`trial ${t.id}: the changed text differs from the trial's`)
  const avoid = [t.op.first, t.op.last, ...citedNow(cells, t)]
  const lo = Math.min(...avoid)
  const hi = Math.max(...avoid)
  const n = t.current.length
  const size = rng.int(10, 60)
  /** @type {Array<[number, number]>} */
  const options = []
  if (lo - 1 >= 0) options.push([Math.max(0, lo - 1 - size), lo - 1])
  if (hi + 1 <= n - 1) options.push([hi + 1, Math.min(n - 1, hi + 1 + size)])
  return options.length > 0 ? rng.pick(options) : null
}
