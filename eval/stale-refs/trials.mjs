// @ts-check
// Trials: a file as the model read it, a change made after the read, an
// edit citing lines of the read, and the ground truth. Each line of the
// changed file remembers which line of the read it was (or that it is new),
// so the intended result is known exactly: the edit applied to the lines
// the model meant, or "must reject" when one of them changed or went away.

/**
 * @typedef {import('./setup.mjs').SourceFile} SourceFile
 * @typedef {import('./schemes.mjs').Op} Op
 * @typedef {{ orig: number, text: string }} Cell  orig: index in the read version, -1 for a new line
 * @typedef {{ step: 'insert', at: number, lines: string[] }
 *   | { step: 'delete', at: number, count: number }
 *   | { step: 'modify', at: number, text: string }} Step  positions in the lines as they are when the step runs
 * @typedef {{ reject: true, why: string } | { reject: false, lines: string[] }} Expected
 * @typedef {{
 *   id: number, seed: number, kind: Kind, file: SourceFile, lines: string[], finalNewline: boolean,
 *   op: Op, steps: Step[], earlier: Op | null, current: string[], expected: Expected, note: string
 * }} Trial
 * @typedef {typeof KINDS[number]} Kind
 */

export const KINDS = /** @type {const} */ (['insert-above', 'delete-above', 'edit-neighbour', 'earlier-edit', 'duplicates', 'outside', 'edit-target'])

/** Kinds in which the cited lines only moved or lost a neighbour: the edit must apply. */
export const SHIFTED = new Set(['insert-above', 'delete-above', 'edit-neighbour', 'earlier-edit'])

export const KIND_LABELS = {
  'insert-above': 'lines inserted above',
  'delete-above': 'lines deleted above',
  'edit-neighbour': 'a neighbour edited',
  'earlier-edit': 'an earlier edit (engine)',
  duplicates: 'shift in duplicate-dense files',
  outside: 'outside changes on disk',
  'edit-target': 'the target itself changed',
}

/** A small, fast, seedable generator (sfc32), one per trial so trials are independent. */
export class Rng {
  /** @param {number} seed @param {number} stream */
  constructor(seed, stream) {
    let h = (seed ^ 0x9e3779b9) >>> 0
    const mix = () => {
      h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
      h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
      return (h ^= h >>> 16) >>> 0
    }
    h ^= Math.imul(stream + 1, 0x27d4eb2d)
    this.s = [mix(), mix(), mix(), mix()]
    for (let i = 0; i < 12; i++) this.next()
  }

  next() {
    const s = this.s
    const t = (((s[0] + s[1]) >>> 0) + s[3]) >>> 0
    s[3] = (s[3] + 1) >>> 0
    s[0] = s[1] ^ (s[1] >>> 9)
    s[1] = (s[2] + (s[2] << 3)) >>> 0
    s[2] = (s[2] << 21) | (s[2] >>> 11)
    s[2] = (s[2] + t) >>> 0
    return t / 4294967296
  }

  /** Integer in `lo..hi` inclusive. @param {number} lo @param {number} hi */
  int(lo, hi) {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }

  /** @template T @param {readonly T[]} items @returns {T} */
  pick(items) {
    return /** @type {T} */ (items[Math.floor(this.next() * items.length)])
  }

  /** @param {number} p */
  chance(p) {
    return this.next() < p
  }
}

const trimEnd = (/** @type {string} */ s) => s.replace(/[ \t]+$/, '')
const indentOf = (/** @type {string} */ s) => /^[ \t]*/.exec(s)?.[0] ?? ''

/** @param {string} text */
export function splitLines(text) {
  const finalNewline = text.endsWith('\n')
  const lines = text.split('\n')
  if (finalNewline) lines.pop()
  return { lines, finalNewline }
}

/** @param {readonly string[]} lines @param {boolean} finalNewline */
export function joinLines(lines, finalNewline) {
  return lines.join('\n') + (finalNewline && lines.length > 0 ? '\n' : '')
}

/** Per file: its lines, and which lines have a text that occurs elsewhere in it. */
class FileInfo {
  /** @param {SourceFile} file */
  constructor(file) {
    this.file = file
    const { lines, finalNewline } = splitLines(file.text)
    this.lines = lines
    this.finalNewline = finalNewline
    /** @type {Map<string, number[]>} */
    this.where = new Map()
    lines.forEach((l, i) => {
      const key = trimEnd(l)
      const list = this.where.get(key)
      if (list) list.push(i)
      else this.where.set(key, [i])
    })
    this.duplicated = lines.map((_, i) => i).filter((i) => (this.where.get(trimEnd(this.lines[i] ?? ''))?.length ?? 0) > 1)
    this.dupShare = this.duplicated.length / lines.length
  }
}

/**
 * A realistic change to one line whose hashed text (trailing blanks
 * trimmed) really differs: rename a word, append a comment, re-indent, or
 * turn it into a copy of another line of the file (often `}` or blank).
 * @param {Rng} rng @param {FileInfo} info @param {string} text
 */
function mutate(rng, info, text) {
  const comment = info.file.lang === 'Python' ? '#' : '//'
  const roll = rng.int(0, 3)
  /** @type {string} */
  let out = text
  if (roll === 0) {
    const words = [...text.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)]
    if (words.length > 0) {
      const w = rng.pick(words)
      const idx = w.index ?? 0
      out = text.slice(0, idx) + rng.pick(['next', 'old', 'tmp', 'x']) + w[0].charAt(0).toUpperCase() + w[0].slice(1) + text.slice(idx + w[0].length)
    }
  } else if (roll === 1) {
    out = `${trimEnd(text)} ${comment} ${rng.pick(['TODO', 'checked', 'see below', 'fix'])}`
  } else if (roll === 2) {
    const indent = indentOf(text)
    out = indent.length >= 2 && rng.chance(0.5) ? text.slice(2) : `  ${text}`
  } else {
    out = info.lines[rng.int(0, info.lines.length - 1)] ?? text
  }
  if (trimEnd(out) === trimEnd(text)) out = `${trimEnd(text)} ${comment} changed`
  return out
}

/** `count` consecutive lines copied from somewhere in the file: new code that looks like the old. @param {Rng} rng @param {FileInfo} info @param {number} count */
function chunk(rng, info, count) {
  const start = rng.int(0, Math.max(0, info.lines.length - count))
  return info.lines.slice(start, start + count)
}

/** @param {Cell[]} cells @param {Step} step */
export function applyStep(cells, step) {
  if (step.step === 'insert') cells.splice(step.at, 0, ...step.lines.map((text) => ({ orig: -1, text })))
  else if (step.step === 'delete') cells.splice(step.at, step.count)
  else cells[step.at] = { orig: /** @type {Cell} */ (cells[step.at]).orig, text: step.text }
}

/**
 * The intended result: the op on the lines the model meant, wherever they
 * are now, or a required rejection when one of them changed, went away, or
 * (for a range) is no longer contiguous.
 * @param {Cell[]} cells @param {string[]} lines @param {Op} op @returns {Expected}
 */
export function groundTruth(cells, lines, op) {
  const positions = []
  for (let i = op.first; i <= op.last; i++) {
    const at = cells.findIndex((c) => c.orig === i)
    if (at < 0) return { reject: true, why: `line ${i + 1} was deleted` }
    if (/** @type {Cell} */ (cells[at]).text !== lines[i]) return { reject: true, why: `line ${i + 1} changed` }
    positions.push(at)
  }
  const start = /** @type {number} */ (positions[0])
  if (positions.some((p, k) => p !== start + k)) return { reject: true, why: 'lines were inserted inside the range' }
  const end = start + (op.last - op.first)
  const text = cells.map((c) => c.text)
  if (op.op === 'insert_after') return { reject: false, lines: [...text.slice(0, start + 1), ...op.content, ...text.slice(start + 1)] }
  return { reject: false, lines: [...text.slice(0, start), ...(op.op === 'replace' ? op.content : []), ...text.slice(end + 1)] }
}

/**
 * The edit with the old refs. Its content is marker lines found nowhere
 * else, so no clean-up applies and a misplaced edit always shows.
 * @param {Rng} rng @param {FileInfo} info @param {number} id @param {number} first
 * @param {'replace' | 'delete' | 'insert_after'} [kind] @param {number} [size]
 * @returns {Op}
 */
function makeOp(rng, info, id, first, kind, size) {
  const n = info.lines.length
  const last = Math.min(n - 1, first + (size ?? 1) - 1)
  const indent = indentOf(info.lines[first] ?? '')
  const content = (/** @type {number} */ k) => Array.from({ length: k }, (_, j) => `${indent}EDITED_${id}_${j}`)
  if (kind === 'insert_after') return { op: 'insert_after', first, last: first, content: content(rng.int(1, 3)) }
  if (kind === 'delete') return { op: 'delete', first, last, content: [] }
  return { op: 'replace', first, last, content: content(last > first ? rng.int(1, 3) : rng.int(1, 2)) }
}

/** @param {Rng} rng @returns {{ kind: 'replace' | 'delete' | 'insert_after', size: number }} */
function opShape(rng) {
  const r = rng.next()
  if (r < 0.35) return { kind: 'replace', size: 1 }
  if (r < 0.55) return { kind: 'replace', size: rng.int(2, 4) }
  if (r < 0.75) return { kind: 'insert_after', size: 1 }
  if (r < 0.9) return { kind: 'delete', size: 1 }
  return { kind: 'delete', size: rng.int(2, 3) }
}

/**
 * Content for the earlier edit, kept from echoing the lines around it (the
 * engine would trim such an echo, and the earlier edit is meant to be
 * applied exactly as written).
 * @param {Rng} rng @param {FileInfo} info @param {string[]} content @param {string | undefined} before @param {string | undefined} after
 */
function noEcho(rng, info, content, before, after) {
  const out = [...content]
  const clash = () => out.length > 0 && (out[0] === before || out[out.length - 1] === after)
  for (let tries = 0; clash() && tries < 8; tries++) {
    if (out[0] === before) out[0] = mutate(rng, info, /** @type {string} */ (out[0]))
    if (out[out.length - 1] === after) out[out.length - 1] = mutate(rng, info, /** @type {string} */ (out[out.length - 1]))
  }
  return clash() ? out.map((l) => `${l} // edited`) : out
}

export class TrialMaker {
  /** @param {SourceFile[]} files @param {number} seed */
  constructor(files, seed) {
    this.seed = seed
    this.infos = files.map((f) => new FileInfo(f))
    /** @type {Map<string, FileInfo[]>} */
    this.byLang = new Map()
    for (const info of this.infos) {
      const list = this.byLang.get(info.file.lang)
      if (list) list.push(info)
      else this.byLang.set(info.file.lang, [info])
    }
    this.langs = [...this.byLang.keys()].sort()
    // The densest quarter of the files in duplicated lines, at least 30%.
    const shares = this.infos.map((i) => i.dupShare).sort((a, b) => a - b)
    const cut = Math.max(0.3, shares[Math.floor(shares.length * 0.75)] ?? 0)
    this.dense = this.infos.filter((i) => i.dupShare >= cut && i.duplicated.length > 0)
  }

  /** @param {number} id @param {Kind} kind @returns {Trial} */
  make(id, kind) {
    const rng = new Rng(this.seed, id)
    const info = kind === 'duplicates' ? rng.pick(this.dense) : rng.pick(/** @type {FileInfo[]} */ (this.byLang.get(rng.pick(this.langs))))
    const lines = info.lines
    const n = lines.length
    const shape = opShape(rng)
    /** @type {Step[]} */
    const steps = []
    /** @type {Op | null} */
    let earlier = null
    let note = ''
    let op

    switch (kind) {
      case 'insert-above': {
        op = makeOp(rng, info, id, rng.int(0, n - shape.size), shape.kind, shape.size)
        const at = rng.int(Math.max(0, op.first - 40), op.first)
        steps.push({ step: 'insert', at, lines: chunk(rng, info, rng.int(1, 6)) })
        break
      }
      case 'delete-above': {
        op = makeOp(rng, info, id, rng.int(1, n - shape.size), shape.kind, shape.size)
        const count = rng.int(1, Math.min(6, op.first))
        steps.push({ step: 'delete', at: rng.int(Math.max(0, op.first - count - 40), op.first - count), count })
        break
      }
      case 'edit-neighbour': {
        op = makeOp(rng, info, id, rng.int(0, n - shape.size), shape.kind, shape.size)
        const above = op.first > 0 && (op.last + 1 >= n || rng.chance(0.5))
        const at = above ? op.first - 1 : op.last + 1
        steps.push({ step: 'modify', at, text: mutate(rng, info, /** @type {string} */ (lines[at])) })
        break
      }
      case 'edit-target': {
        op = makeOp(rng, info, id, rng.int(0, n - shape.size), shape.kind, shape.size)
        const at = rng.int(op.first, op.last)
        if (rng.chance(0.2)) steps.push({ step: 'delete', at, count: 1 })
        else steps.push({ step: 'modify', at, text: mutate(rng, info, /** @type {string} */ (lines[at])) })
        break
      }
      case 'earlier-edit': {
        op = makeOp(rng, info, id, rng.int(0, n - shape.size), shape.kind, shape.size)
        earlier = this.earlierEdit(rng, info, op)
        note = `earlier ${earlier.op} of lines ${earlier.first + 1}-${earlier.last + 1}`
        break
      }
      case 'duplicates': {
        const made = this.duplicateShift(rng, info, id, shape)
        op = made.op
        steps.push(made.step)
        note = made.note
        break
      }
      case 'outside': {
        op = makeOp(rng, info, id, rng.int(0, n - shape.size), shape.kind, shape.size)
        steps.push(...this.outsideHunks(rng, info, op))
        break
      }
    }

    const cells = lines.map((text, orig) => ({ orig, text }))
    if (earlier) {
      // With fresh refs every tool applies it the same way: as written.
      const e = earlier
      if (e.op === 'insert_after') applyStep(cells, { step: 'insert', at: e.first + 1, lines: e.content })
      else {
        applyStep(cells, { step: 'delete', at: e.first, count: e.last - e.first + 1 })
        if (e.op === 'replace') applyStep(cells, { step: 'insert', at: e.first, lines: e.content })
      }
    }
    for (const step of steps) applyStep(cells, step)
    const expected = groundTruth(cells, lines, op)
    // The kinds promise what the ground truth must say; a generator slip
    // would otherwise skew a whole column unnoticed.
    if ((SHIFTED.has(kind) || kind === 'duplicates') && expected.reject) throw new Error(`trial ${id} (${kind}): the cited lines did not survive: ${expected.why}`)
    if (kind === 'edit-target' && !expected.reject) throw new Error(`trial ${id} (edit-target): the cited lines survived`)
    return {
      id,
      seed: this.seed,
      kind,
      file: info.file,
      lines,
      finalNewline: info.finalNewline,
      op,
      steps,
      earlier,
      current: cells.map((c) => c.text),
      expected,
      note,
    }
  }

  /**
   * An edit made through the engine before this one, with fresh refs from
   * the same read, on lines clear of the target (above or below it).
   * @param {Rng} rng @param {FileInfo} info @param {Op} target @returns {Op}
   */
  earlierEdit(rng, info, target) {
    const lines = info.lines
    const n = lines.length
    const r = rng.next()
    const kind = r < 0.4 ? 'replace' : r < 0.75 ? 'insert_after' : 'delete'
    const size = kind === 'insert_after' ? 1 : rng.int(1, 3)
    // Lines the earlier edit may use: all of them lie above the target's
    // first line or below its last (an insert may sit right after the last).
    const lowMax = target.first - size
    const highMin = kind === 'insert_after' ? target.last : target.last + 1
    const canLow = lowMax >= 0
    const canHigh = highMin + size - 1 <= n - 1
    const low = canLow && (!canHigh || rng.chance(0.5))
    const first = low ? rng.int(Math.max(0, lowMax - 60), lowMax) : rng.int(highMin, Math.min(n - size, highMin + 60))
    const last = first + size - 1
    if (kind === 'delete') return { op: 'delete', first, last, content: [] }
    if (kind === 'insert_after') {
      return { op: 'insert_after', first, last: first, content: noEcho(rng, info, chunk(rng, info, rng.int(1, 4)), lines[first], lines[first + 1]) }
    }
    const changed = lines.slice(first, last + 1).map((l) => mutate(rng, info, l))
    if (rng.chance(0.4)) changed.push(...chunk(rng, info, rng.int(1, 2)))
    return { op: 'replace', first, last, content: noEcho(rng, info, changed, lines[first - 1], lines[last + 1]) }
  }

  /**
   * In a file dense in repeated lines, target a repeated line and shift it
   * so that a line with the same text slides under its old line number
   * (when the file allows), the case a per-line hash cannot see.
   * @param {Rng} rng @param {FileInfo} info @param {number} id @param {{ kind: 'replace' | 'delete' | 'insert_after', size: number }} shape
   * @returns {{ op: Op, step: Step, note: string }}
   */
  duplicateShift(rng, info, id, shape) {
    const lines = info.lines
    const n = lines.length
    const candidates = info.duplicated.filter((i) => i + shape.size <= n)
    const first = candidates.length > 0 ? rng.pick(candidates) : rng.int(0, n - shape.size)
    const op = makeOp(rng, info, id, first, shape.kind, shape.size)
    const text = lines[first] ?? ''
    const same = (/** @type {number} */ i) => i >= 0 && i < n && trimEnd(lines[i] ?? '') === trimEnd(text)
    if (rng.chance(0.5)) {
      const ks = []
      for (let k = 1; k <= Math.min(12, first); k++) if (same(first + k)) ks.push(k)
      if (ks.length > 0) {
        const count = rng.pick(ks)
        return { op, step: { step: 'delete', at: rng.int(Math.max(0, first - count - 30), first - count), count }, note: `deleted ${count} above; same text slides under` }
      }
    }
    const ks = []
    for (let k = 1; k <= Math.min(12, first); k++) if (same(first - k)) ks.push(k)
    if (ks.length > 0 && rng.chance(0.5)) {
      const count = rng.pick(ks)
      const at = rng.int(Math.max(0, first - 30), first - count)
      return { op, step: { step: 'insert', at, lines: chunk(rng, info, count) }, note: `inserted ${count} above; same text slides under` }
    }
    // Copy a block holding the same text so that this copy lands exactly
    // under the old line number.
    const count = rng.int(1, 8)
    const offset = rng.int(0, Math.min(count - 1, first))
    const occurrences = (info.where.get(trimEnd(text)) ?? []).filter((o) => o - offset >= 0 && o - offset + count <= n)
    if (occurrences.length === 0) {
      return { op, step: { step: 'insert', at: rng.int(Math.max(0, first - 30), first), lines: chunk(rng, info, count) }, note: 'inserted above' }
    }
    const o = rng.pick(occurrences)
    return { op, step: { step: 'insert', at: first - offset, lines: lines.slice(o - offset, o - offset + count) }, note: `inserted a copy of lines ${o - offset + 1}-${o - offset + count} above; same text slides under` }
  }

  /**
   * One to three changes made by someone else, anywhere in the file (one
   * of them near the target half the time), never touching each other.
   * @param {Rng} rng @param {FileInfo} info @param {Op} op @returns {Step[]}
   */
  outsideHunks(rng, info, op) {
    const n = info.lines.length
    /** @type {{ lo: number, hi: number, step: Step }[]} */
    const hunks = []
    const count = rng.int(1, 3)
    for (let tries = 0; hunks.length < count && tries < 40; tries++) {
      const near = hunks.length === 0 && rng.chance(0.5)
      const center = near ? rng.int(Math.max(0, op.first - 10), Math.min(n - 1, op.last + 10)) : rng.int(0, n - 1)
      const r = rng.next()
      /** @type {{ lo: number, hi: number, step: Step }} */
      let hunk
      if (r < 0.4) {
        // An insert before line `center` touches the lines either side of it.
        hunk = { lo: center - 1, hi: center, step: { step: 'insert', at: center, lines: chunk(rng, info, rng.int(1, 6)) } }
      } else if (r < 0.7) {
        const k = Math.min(rng.int(1, 4), n - center)
        hunk = { lo: center, hi: center + k - 1, step: { step: 'delete', at: center, count: k } }
      } else {
        hunk = { lo: center, hi: center, step: { step: 'modify', at: center, text: mutate(rng, info, info.lines[center] ?? '') } }
      }
      if (hunks.some((h) => hunk.lo <= h.hi + 1 && h.lo <= hunk.hi + 1)) continue
      hunks.push(hunk)
    }
    // Bottom first, so each position still names the read version's line.
    hunks.sort((a, b) => b.lo - a.lo)
    return hunks.map((h) => h.step)
  }
}
