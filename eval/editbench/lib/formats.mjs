// @ts-check
// The ideal edit of one file change in each format, as structured units the
// mistake injector can alter, and the serialisers that turn units into what a
// model would send (a JSON tool call, tagged for the token split) and what an
// applier takes.
//
// Every line of a unit records whether the model re-types it from the file
// (`copy`) or writes it new, and where it came from (`origin`: `o<i>` for old
// line i, `n<j>` for new line j), so that one copying slip of one line shows
// up in every place that format copies that line.

import { applyHunks, diffLines, joinLines, splitLines } from './diff.mjs'
import { plainPrefix } from './views.mjs'

/**
 * @typedef {import('./diff.mjs').Hunk} Hunk
 * @typedef {import('./tokens.mjs').Tagged} Tagged
 * @typedef {{ text: string, origin: string, side: 'both' | 'old' | 'new', copy: boolean }} Line
 * @typedef {{ oldText: string, newText: string, oldLines: string[], newLines: string[], hunks: Hunk[] }} Change
 *
 * @typedef {{ op: string, first?: number, last?: number, lines: Line[], before?: string, after?: string,
 *   refShift?: number, throughShift?: number, echo?: boolean, hunk?: number }} HashlineOp
 * @typedef {{ kind: 'hashline', units: HashlineOp[], widened: number, refs: string[], throughAlways?: boolean, blocks?: number }} HashlineEdit
 *
 * @typedef {{ lines: Line[], startLine: number, before?: string, after?: string, newline?: 'suffix' | 'prefix', echo?: boolean }} Call
 * @typedef {{ kind: 'str', units: Call[], context: number }} StrEdit
 *
 * @typedef {{ oldStart: number, newStart: number, lines: Line[], shift?: number, echo?: boolean }} PatchHunk
 * @typedef {{ kind: 'patch', units: PatchHunk[], context: number, extended: number }} PatchEdit
 *
 * @typedef {{ anchor: number, lines: Line[], before?: string, after?: string, refShift?: number, echo?: boolean }} RefPatchHunk
 * @typedef {{ kind: 'refpatch', units: RefPatchHunk[], refs: string[], widened: number }} RefPatchEdit
 *
 * @typedef {{ lines: Line[], echo?: boolean }} WholeUnit
 * @typedef {{ kind: 'whole', units: WholeUnit[] }} WholeEdit
 *
 * @typedef {HashlineEdit | StrEdit | PatchEdit | RefPatchEdit | WholeEdit} Edit
 */

/** @param {string} oldText @param {string} newText @returns {Change} */
export function makeChange(oldText, newText) {
  const oldLines = splitLines(oldText)
  const newLines = splitLines(newText)
  return { oldText, newText, oldLines, newLines, hunks: diffLines(oldLines, newLines) }
}

const oldLine = (/** @type {Change} */ c, /** @type {number} */ i) => /** @type {Line} */ ({ text: c.oldLines[i], origin: `o${i}`, side: 'both', copy: true })
const newLine = (/** @type {Change} */ c, /** @type {number} */ j) => /** @type {Line} */ ({ text: c.newLines[j], origin: `n${j}`, side: 'new', copy: false })

/** Text of `content` as the engine reads it back: split on \n, one final \n dropped. */
export function contentString(/** @type {string[]} */ lines) {
  if (lines.length === 0) return ''
  return lines.join('\n') + (lines[lines.length - 1] === '' ? '\n' : '')
}

// ---------------------------------------------------------------- hashline

/**
 * One batch per file, refs from the view of the old file. An op the
 * engine's clean-up would alter (its first or last content line repeats the
 * line next to it, e.g. an inserted block that starts with `}` after a `}`)
 * is re-expressed: the insert in its other form, else the range widened by
 * unchanged lines, which are then copied. `widened` counts those ops.
 * @param {Change} change
 * @param {string[]} refs as the model copies them from the view of the old text, by 1-based line
 * @param {(text: string, request: any) => string} apply the engine
 * @param {{ blocks?: boolean, natural?: boolean }} [options] `blocks`: a hunk that replaces or
 *   deletes exactly a block is sent as `replace_block`/`delete_block`, and
 *   one that inserts right after a block as `insert_after_block`, each
 *   citing the block's first line; `apply` must then know the file's name.
 *   The engine resolves the block, so each such op is checked against it.
 *   `natural`: every hunk goes in its first form (a range, or an insert
 *   after the line above it), as a model writes it before it knows what
 *   a clean-up would make of it; nothing is re-expressed or checked.
 * @returns {HashlineEdit}
 */
export function buildHashline(change, refs, apply, options = {}) {
  const n = change.oldLines.length
  /** Per hunk, its ops as a range (and the plain form when that had to be widened) and, where a block fits, as block ops. */
  const perHunk = /** @type {Array<{ plain: HashlineOp, natural?: HashlineOp, block?: HashlineOp[] }>} */ ([])
  for (const [hunk, h] of change.hunks.entries()) {
    const expected = joinLines(applyHunks(change.oldLines, change.newLines, [h]))
    const added = Array.from({ length: h.newLen }, (_, j) => newLine(change, h.newStart + j))
    const a = h.oldStart
    const k = h.oldLen
    /** @type {HashlineOp[]} */
    const candidates = []
    const around = (/** @type {number} */ first, /** @type {number} */ last) => ({ before: change.oldLines[first - 2], after: change.oldLines[last] })
    const block = options.blocks
      ? blockCandidates(change, a, k, added).find((ops) => {
          try {
            return apply(change.oldText, { operations: ops.map((op) => hashlineOperation(op, refs)) }) === expected
          } catch {
            return false
          }
        })
      : undefined
    if (k > 0) {
      candidates.push({ op: added.length > 0 ? 'replace' : 'delete', first: a + 1, last: a + k, lines: added, ...around(a + 1, a + k) })
    } else if (n === 0) {
      candidates.push({ op: 'append', lines: added })
    } else {
      if (a === 0) candidates.push({ op: 'prepend', lines: added, after: change.oldLines[0] })
      else if (a === n) candidates.push({ op: 'append', lines: added, before: change.oldLines[n - 1] })
      if (a > 0) candidates.push({ op: 'insert_after', first: a, last: a, lines: added, before: change.oldLines[a - 1], after: change.oldLines[a] })
      if (a < n) candidates.push({ op: 'insert_before', first: a + 1, last: a + 1, lines: added, before: change.oldLines[a - 1], after: change.oldLines[a] })
    }
    for (let w = 1; w <= 3; w++) {
      for (const [wb, wa] of [[w, 0], [0, w], [w, w]]) {
        const from = a - wb
        const to = a + k + wa
        if (from < 0 || to > n || to === from) continue
        const lines = [
          ...Array.from({ length: wb }, (_, i) => oldLine(change, from + i)),
          ...added,
          ...Array.from({ length: wa }, (_, i) => oldLine(change, a + k + i)),
        ]
        candidates.push({ op: lines.length > 0 ? 'replace' : 'delete', first: from + 1, last: to, lines, ...around(from + 1, to) })
      }
    }
    const fit = candidates.find((op) => {
      if (options.natural || !mayBeCleanedUp(op)) return true
      try {
        return apply(change.oldText, { operations: [hashlineOperation(op, refs)] }) === expected
      } catch {
        return false
      }
    })
    if (!fit) throw new Error(`no hashline operation expresses hunk at old line ${a + 1} exactly`)
    perHunk.push({
      plain: { ...fit, hunk },
      ...(fit !== candidates[0] ? { natural: { ...candidates[0], hunk } } : {}),
      ...(block ? { block: block.map((op) => ({ ...op, hunk })) } : {}),
    })
  }
  /** @param {boolean[]} asBlock */
  const assemble = (asBlock) => perHunk.flatMap((p, i) => (asBlock[i] && p.block ? p.block : [p.plain]))
  const asBlock = perHunk.map((p) => p.block !== undefined)
  const batchGives = (/** @type {HashlineOp[]} */ ops) => {
    try {
      return apply(change.oldText, { operations: ops.map((op) => hashlineOperation(op, refs)) }) === change.newText
    } catch {
      return false
    }
  }
  // A hunk checked alone can look like an echo that the rest of the batch
  // shows is none (a blank line beside lines another hunk inserts): the
  // plain form is kept wherever the whole batch still comes out right.
  for (const p of perHunk) {
    if (!p.natural) continue
    const widenedForm = p.plain
    p.plain = p.natural
    if (batchGives(assemble(perHunk.map(() => false)))) delete p.natural
    else p.plain = widenedForm
  }
  const widened = perHunk.filter((p) => p.natural).length
  // Each block op was checked alone; where lines repeat, a block op and a
  // range can put the same line at different places among its copies,
  // which only the whole batch shows: fall back to ranges, hunk by hunk.
  for (let i = 0; options.blocks && i <= asBlock.length; i++) {
    if (batchGives(assemble(asBlock))) break
    const next = asBlock.indexOf(true)
    if (next < 0) break
    asBlock[next] = false
  }
  const blocks = asBlock.filter(Boolean).length
  return { kind: 'hashline', units: assemble(asBlock), widened, refs, ...(options.blocks ? { blocks } : {}) }
}

/**
 * The ways a model citing blocks by their first line would send the hunk
 * replacing the `k` old lines after line `a` with `added`: the block op
 * alone, or, for a deletion that takes blank lines around a block with it,
 * the block op and a delete of those lines.
 * @param {Change} change @param {number} a @param {number} k @param {Line[]} added
 * @returns {HashlineOp[][]}
 */
function blockCandidates(change, a, k, added) {
  const old = change.oldLines
  const around = (/** @type {number} */ first, /** @type {number} */ last) => ({ before: old[first - 2], after: old[last] })
  const lines = (/** @type {number} */ first, /** @type {number} */ last) => ({ op: 'delete', first, last, lines: [], ...around(first, last) })
  /** @type {HashlineOp[][]} */
  const out = []
  if (k >= 2) out.push([{ op: added.length > 0 ? 'replace_block' : 'delete_block', first: a + 1, lines: added, ...around(a + 1, a + k) }])
  if (k >= 3 && added.length === 0) {
    const blank = (/** @type {number} */ i) => old[i - 1].trim() === ''
    let head = 0
    while (head < k - 2 && blank(a + 1 + head)) head++
    let tail = 0
    while (tail < k - 2 - head && blank(a + k - tail)) tail++
    const from = a + 1 + head
    const to = a + k - tail
    if (head + tail > 0) {
      out.push([
        ...(head > 0 ? [lines(a + 1, a + head)] : []),
        { op: 'delete_block', first: from, lines: [], ...around(from, to) },
        ...(tail > 0 ? [lines(to + 1, a + k)] : []),
      ])
    }
  }
  if (k === 0 && a > 0) {
    for (const s of blockStarts(old, a)) out.push([{ op: 'insert_after_block', first: s, lines: added, before: old[a - 1], after: old[a] }])
  }
  return out
}

/**
 * Where a block that ends on line `last` (1-based) may start, as a model
 * reading the file would find it: the nearest line above at the same or a
 * lower indentation (a brace language's opener), and the nearest at a lower
 * one (an indented body's header).
 * @param {string[]} lines @param {number} last
 */
function blockStarts(lines, last) {
  const indent = (/** @type {string} */ l) => l.length - l.trimStart().length
  const end = indent(lines[last - 1])
  /** @type {number[]} */
  const out = []
  for (const lower of [false, true]) {
    for (let i = last - 1; i >= 1; i--) {
      const l = lines[i - 1]
      if (l.trim() === '' || (lower ? indent(l) >= end : indent(l) > end)) continue
      if (!out.includes(i)) out.push(i)
      break
    }
  }
  return out
}

/**
 * Whether the engine's clean-up could touch this op: its first or last content
 * line looks like the line next to its range, or its content looks like view
 * lines. Other ops are taken as they are (the gate checks them all anyway).
 * @param {HashlineOp} op
 */
function mayBeCleanedUp(op) {
  const lines = op.lines
  if (lines.length === 0) return false
  const same = (/** @type {string | undefined} */ a, /** @type {string} */ b) => a !== undefined && a.trim() === b.trim()
  return same(op.before, lines[0].text) || same(op.after, lines[lines.length - 1].text) || lines.every((l) => l.text.trim() === '' || /^\s*(>>>|[+-])?\s*(#HL\s*)?\d+\s*[#:]/.test(l.text))
}

/** A ref with its line number moved by `shift` (a model's off-by-one). */
function refText(/** @type {string} */ ref, shift = 0) {
  const [line, ...rest] = ref.split('#')
  return [Math.max(1, Number(line) + shift), ...rest].join('#')
}

/**
 * The operation object the engine takes.
 * @param {HashlineOp} op @param {string[]} refs
 */
function hashlineOperation(op, refs) {
  /** @type {Record<string, string>} */
  const out = { op: op.op }
  if (op.first !== undefined) out.ref = refText(refs[op.first], op.refShift)
  if (op.last !== undefined && op.last !== op.first && (op.op === 'replace' || op.op === 'delete')) out.through = refText(refs[op.last], op.throughShift)
  if (op.op !== 'delete' && op.op !== 'delete_block') out.content = contentString(echoLines(op, refs))
  return out
}

/** Content lines, with view prefixes when the model echoed them. */
function echoLines(/** @type {HashlineOp} */ op, /** @type {string[]} */ refs) {
  if (!op.echo) return op.lines.map((l) => l.text)
  const start = op.op === 'insert_after' ? (op.first ?? 0) + 1 : op.op === 'append' ? refs.length : op.first ?? 1
  return op.lines.map((l, i) => `${refs[start + i] ?? `${start + i}#${'0'.repeat(3)}#${'0'.repeat(3)}`}|${l.text}`)
}

/** @param {HashlineEdit} edit */
export function hashlineRequest(edit) {
  return { operations: edit.units.map((op) => hashlineOperation(op, edit.refs)) }
}

// ------------------------------------------------------------ str_replace

/**
 * Sequential calls, one per hunk, each computed on the text as the earlier
 * calls left it. The old side is the changed lines plus `context` lines each
 * side (an insertion needs one neighbour), widened a line at a time (after,
 * then before) until it occurs once in the file.
 * @param {Change} change @param {number} context
 * @returns {StrEdit}
 */
export function buildStrReplace(change, context) {
  /** @type {Array<{ text: string, origin: string }>} */
  const cur = change.oldLines.map((text, i) => ({ text, origin: `o${i}` }))
  /** @type {Call[]} */
  const units = []
  let delta = 0
  for (const h of change.hunks) {
    const p = h.oldStart + delta
    const k = h.oldLen
    let s = Math.max(0, p - context)
    let e = Math.min(cur.length, p + k + context)
    if (s === e) {
      if (p > 0) s = p - 1
      else if (p < cur.length) e = p + 1
      else throw new Error('str_replace cannot edit an empty file')
    }
    const text = joinLines(cur.map((l) => l.text))
    const added = Array.from({ length: h.newLen }, (_, j) => newLine(change, h.newStart + j))
    let grow = 0
    for (;;) {
      /** @type {Line[]} */
      const lines = [
        ...cur.slice(s, p).map((l) => /** @type {Line} */ ({ ...l, side: 'both', copy: true })),
        ...cur.slice(p, p + k).map((l) => /** @type {Line} */ ({ ...l, side: 'old', copy: true })),
        ...added,
        ...cur.slice(p + k, e).map((l) => /** @type {Line} */ ({ ...l, side: 'both', copy: true })),
      ]
      /** @type {Call} */
      const call = { lines, startLine: s + 1, before: cur[s - 1]?.text, after: cur[e]?.text }
      if (!lines.some((l) => l.side !== 'old')) call.newline = e < cur.length ? 'suffix' : 'prefix'
      const { oldString } = strStrings(call)
      if (text.indexOf(oldString) === text.lastIndexOf(oldString)) {
        units.push(call)
        break
      }
      if ((grow++ % 2 === 0 || s === 0) && e < cur.length) e++
      else if (s > 0) s--
      else throw new Error('no unique oldString for a hunk')
    }
    cur.splice(p, k, ...added.map((l) => ({ text: l.text, origin: l.origin })))
    delta += h.newLen - k
  }
  return { kind: 'str', units, context }
}

/** @param {Call} call */
export function strStrings(call) {
  const side = (/** @type {'old' | 'new'} */ which) => {
    const lines = call.lines.filter((l) => l.side === 'both' || l.side === which)
    return lines.map((l, i) => (call.echo ? plainPrefix(call.startLine + i) : '') + l.text)
  }
  let oldString = side('old').join('\n')
  const newString = side('new').join('\n')
  if (call.newline === 'suffix') oldString += '\n'
  if (call.newline === 'prefix') oldString = '\n' + oldString
  return { oldString, newString }
}

// ------------------------------------------------------------------ patch

/**
 * A unified diff with `context` lines of context, hunks merged where their
 * contexts meet. Patch appliers search each hunk's old side from where the
 * previous hunk ended: Codex's takes the first match, this project's refuses
 * a hunk that fits more than one place. So a hunk whose old side also occurs
 * elsewhere after the previous hunk gets more context (before, then after)
 * until its own place is the only one; `extended` counts those.
 * @param {Change} change @param {number} context
 * @returns {PatchEdit}
 */
export function buildPatch(change, context) {
  const n = change.oldLines.length
  /** @type {Array<{ start: number, end: number, hunks: Hunk[] }>} */
  const groups = []
  for (const h of change.hunks) {
    const start = Math.max(0, h.oldStart - context)
    const end = Math.min(n, h.oldStart + h.oldLen + context)
    const last = groups[groups.length - 1]
    if (last && start <= last.end) {
      last.end = Math.max(last.end, end)
      last.hunks.push(h)
    } else groups.push({ start, end, hunks: [h] })
  }
  let extended = 0
  for (let i = 0, from = 0, turn = 0; i < groups.length; ) {
    const g = groups[i]
    const side = change.oldLines.slice(g.start, g.end)
    if (seekExact(change.oldLines, side, from) === g.start && seekExact(change.oldLines, side, g.start + 1) === -1) {
      from = g.end
      i++
      turn = 0
      continue
    }
    extended++
    const floor = i > 0 ? groups[i - 1].end : 0
    const canBefore = g.start > floor
    const canAfter = g.end < n
    if (canBefore && (turn++ % 2 === 0 || !canAfter)) g.start--
    else if (canAfter) g.end++
    else if (i > 0) {
      // Hemmed in by the previous hunk and the end of the file: merge and recheck from the previous one.
      const prev = groups[i - 1]
      prev.end = g.end
      prev.hunks.push(...g.hunks)
      groups.splice(i, 1)
      i--
      from = i > 0 ? groups[i - 1].end : 0
    } else throw new Error('no unique patch hunk')
  }
  /** @type {PatchHunk[]} */
  const units = []
  let delta = 0
  let applied = 0
  const all = change.hunks
  for (const g of groups) {
    while (applied < all.length && all[applied].oldStart < g.start) {
      delta += all[applied].newLen - all[applied].oldLen
      applied++
    }
    /** @type {Line[]} */
    const lines = []
    let pos = g.start
    for (const h of g.hunks) {
      for (; pos < h.oldStart; pos++) lines.push(oldLine(change, pos))
      for (let i = 0; i < h.oldLen; i++) lines.push({ ...oldLine(change, h.oldStart + i), side: 'old' })
      for (let j = 0; j < h.newLen; j++) lines.push(newLine(change, h.newStart + j))
      pos = h.oldStart + h.oldLen
    }
    for (; pos < g.end; pos++) lines.push(oldLine(change, pos))
    units.push({ oldStart: g.start, newStart: g.start + delta, lines })
    for (const h of g.hunks) {
      delta += h.newLen - h.oldLen
      applied++
    }
  }
  return { kind: 'patch', units, context, extended }
}

/** First index ≥ from where `pattern` occurs exactly in `lines`, or -1. */
export function seekExact(/** @type {string[]} */ lines, /** @type {string[]} */ pattern, /** @type {number} */ from) {
  outer: for (let i = from; i + pattern.length <= lines.length; i++) {
    for (let j = 0; j < pattern.length; j++) if (lines[i + j] !== pattern[j]) continue outer
    return i
  }
  return -1
}

/** @param {PatchEdit} edit @param {string} path */
export function patchText(edit, path) {
  return patchTagged(edit, path)
    .map((p) => p[0])
    .join('')
}

/** @param {PatchEdit} edit @param {string} path @returns {Tagged} */
export function patchTagged(edit, path) {
  /** @type {Tagged} */
  const out = [[`--- a/${path}\n+++ b/${path}\n`, 'structure']]
  for (const u of edit.units) {
    const oldCount = u.lines.filter((l) => l.side !== 'new').length
    const newCount = u.lines.filter((l) => l.side !== 'old').length
    const shift = u.shift ?? 0
    out.push([`@@ -${Math.max(1, u.oldStart + 1 + shift)},${oldCount} +${Math.max(1, u.newStart + 1 + shift)},${newCount} @@\n`, 'structure'])
    let oldNo = u.oldStart + 1
    let newNo = u.newStart + 1
    for (const l of u.lines) {
      const no = l.side === 'new' ? newNo : oldNo
      out.push([(l.side === 'both' ? ' ' : l.side === 'old' ? '-' : '+') + (u.echo ? plainPrefix(no) : ''), 'structure'])
      out.push([l.text + '\n', l.copy ? 'old' : 'new'])
      if (l.side !== 'new') oldNo++
      if (l.side !== 'old') newNo++
    }
  }
  return out
}

// ------------------------------------------------- apply_patch with @@ refs

/**
 * The apply_patch format with the ref of each hunk's first line after its
 * `@@`: the removed lines, the added ones, and `context` unchanged lines (0
 * or 1: the line after the change, else the one before it). A hunk of added
 * lines only names the line above it (at the top of the file, it keeps the
 * first line as context after its new lines); with context, changes one
 * unchanged line apart share it in one hunk. A hunk the engine would not read
 * as meant gets a line of context more at each end; `widened` counts those.
 * @param {Change} change
 * @param {string[]} refs as the model copies them from the view of the old text, by 1-based line
 * @param {(text: string, patchText: string) => string} apply the engine
 * @param {number} context
 * @returns {RefPatchEdit}
 */
export function buildRefPatch(change, refs, apply, context) {
  const n = change.oldLines.length
  /** @type {Hunk[][]} */
  const groups = []
  for (const h of change.hunks) {
    const last = groups[groups.length - 1]?.at(-1)
    if (last && context > 0 && h.oldStart - (last.oldStart + last.oldLen) <= 1) groups[groups.length - 1].push(h)
    else groups.push([h])
  }
  /** @type {RefPatchHunk[]} */
  const units = []
  let widened = 0
  for (const group of groups) {
    const expected = joinLines(applyHunks(change.oldLines, change.newLines, group))
    const a = group[0].oldStart
    const e = group[group.length - 1].oldStart + group[group.length - 1].oldLen
    /** @type {Line[]} */
    const body = []
    for (const [g, h] of group.entries()) {
      for (let i = 0; i < h.oldLen; i++) body.push({ ...oldLine(change, h.oldStart + i), side: 'old' })
      for (let j = 0; j < h.newLen; j++) body.push(newLine(change, h.newStart + j))
      const next = group[g + 1]
      if (next) for (let i = h.oldStart + h.oldLen; i < next.oldStart; i++) body.push(oldLine(change, i))
    }
    const around = { before: change.oldLines[a - 1], after: change.oldLines[e] }
    const removes = group[0].oldLen > 0
    /** @type {RefPatchHunk[]} */
    const candidates = []
    if (n === 0) candidates.push({ anchor: 0, lines: body })
    else if (!removes && a === 0) candidates.push({ anchor: 1, lines: [...body, oldLine(change, 0)], ...around })
    else if (!removes && context === 0 && body.every((l) => l.side === 'new')) candidates.push({ anchor: a, lines: body, ...around })
    else if (!removes) candidates.push({ anchor: a, lines: [oldLine(change, a - 1), ...body], ...around })
    else if (context === 0) candidates.push({ anchor: a + 1, lines: body, ...around })
    else if (e < n) candidates.push({ anchor: a + 1, lines: [...body, oldLine(change, e)], ...around })
    else candidates.push({ anchor: a, lines: [oldLine(change, a - 1), ...body], ...around })
    for (let w = 1; w <= 3 && n > 0; w++) {
      const from = Math.max(0, a - w)
      const to = Math.min(n, e + w)
      const lines = [...Array.from({ length: a - from }, (_, i) => oldLine(change, from + i)), ...body, ...Array.from({ length: to - e }, (_, i) => oldLine(change, e + i))]
      candidates.push({ anchor: from + 1, lines, ...around })
    }
    const fit = candidates.find((u) => {
      try {
        return apply(change.oldText, refPatchText({ kind: 'refpatch', units: [u], refs, widened: 0 }, 'file')) === expected
      } catch {
        return false
      }
    })
    if (!fit) throw new Error(`no @@ ref hunk expresses the change at old line ${a + 1} exactly`)
    if (fit !== candidates[0]) widened++
    units.push(fit)
  }
  return { kind: 'refpatch', units, refs, widened }
}

/** @param {RefPatchEdit} edit @param {string} path */
export function refPatchText(edit, path) {
  return refPatchTagged(edit, path)
    .map((p) => p[0])
    .join('')
}

/** @param {RefPatchEdit} edit @param {string} path @returns {Tagged} */
export function refPatchTagged(edit, path) {
  /** @type {Tagged} */
  const out = [[`*** Begin Patch\n*** Update File: ${path}\n`, 'structure']]
  for (const u of edit.units) {
    out.push([u.anchor > 0 ? `@@ ${refText(edit.refs[u.anchor], u.refShift)}\n` : '@@\n', 'structure'])
    u.lines.forEach((l, i) => {
      const marker = l.side === 'both' ? ' ' : l.side === 'old' ? '-' : '+'
      // An echoed view prefix: the line's own ref for a line of the file, the ref at its place for a new one.
      const own = /^o(\d+)$/.exec(l.origin)
      const prefix = u.echo ? `${edit.refs[own ? Number(own[1]) + 1 : u.anchor + i] ?? `${u.anchor + i}#000#000`}|` : ''
      out.push([marker + prefix, 'structure'])
      out.push([l.text + '\n', l.copy ? 'old' : 'new'])
    })
  }
  out.push(['*** End Patch', 'structure'])
  return out
}

// ------------------------------------------------------------- whole file

/** @param {Change} change @returns {WholeEdit} */
export function buildWhole(change) {
  /** @type {Line[]} */
  const lines = []
  let i = 0
  for (const h of [...change.hunks, { oldStart: change.oldLines.length, oldLen: 0, newStart: change.newLines.length, newLen: 0 }]) {
    for (; i < h.oldStart; i++) lines.push(oldLine(change, i))
    for (let t = 0; t < h.newLen; t++) lines.push(newLine(change, h.newStart + t))
    i = h.oldStart + h.oldLen
  }
  return { kind: 'whole', units: [{ lines }] }
}

/** @param {WholeEdit} edit */
export function wholeText(edit) {
  const u = edit.units[0]
  return joinLines(u.lines.map((l, i) => (u.echo ? plainPrefix(i + 1) : '') + l.text))
}

// ------------------------------------------------------- JSON tool calls

/** @param {string} s */
const esc = (s) => JSON.stringify(s).slice(1, -1)

/**
 * The tool-call arguments a model writes for each call of the edit, tagged
 * new / old (re-typed from the file) / structure (keys, refs, markers, path).
 * @param {Edit} edit @param {string} path
 * @returns {Tagged[]} one per call
 */
export function toolCalls(edit, path) {
  const head = `{"filePath":"${esc(path)}",`
  /** @param {Tagged} out @param {Line[]} lines @param {(l: Line, i: number) => string} [prefix] @param {string} [extra] */
  const body = (out, lines, prefix, extra = '') => {
    lines.forEach((l, i) => {
      if (prefix) out.push([esc(prefix(l, i)), 'structure'])
      out.push([esc(l.text + (i < lines.length - 1 ? '\n' : extra)), l.copy ? 'old' : 'new'])
    })
  }
  if (edit.kind === 'hashline') {
    /** @type {Tagged} */
    const out = [[`${head}"operations":[`, 'structure']]
    const refs = edit.refs
    edit.units.forEach((op, i) => {
      const o = hashlineOperation(op, refs)
      let s = `${i > 0 ? ',' : ''}{"op":"${o.op}"`
      if (o.ref) s += `,"ref":"${o.ref}"`
      if (o.through) s += `,"through":"${o.through}"`
      if (o.content === undefined) {
        out.push([s + '}', 'structure'])
        return
      }
      out.push([s + ',"content":"', 'structure'])
      const prefixed = echoLines(op, refs)
      const tail = op.lines.length > 0 && op.lines[op.lines.length - 1].text === '' ? '\n' : ''
      body(out, op.lines, op.echo ? (_l, k) => prefixed[k].slice(0, prefixed[k].length - op.lines[k].text.length) : undefined, tail)
      out.push(['"}', 'structure'])
    })
    out.push([']}', 'structure'])
    return [out]
  }
  if (edit.kind === 'str') {
    return edit.units.map((call) => {
      /** @type {Tagged} */
      const out = [[`${head}"oldString":"`, 'structure']]
      const oldLines = call.lines.filter((l) => l.side !== 'new')
      const newLines = call.lines.filter((l) => l.side !== 'old')
      const prefix = call.echo ? (/** @type {Line} */ _l, /** @type {number} */ i) => plainPrefix(call.startLine + i) : undefined
      if (call.newline === 'prefix') out.push(['\\n', 'old'])
      body(out, oldLines, prefix, call.newline === 'suffix' ? '\n' : '')
      out.push(['","newString":"', 'structure'])
      body(out, newLines, prefix)
      out.push(['"}', 'structure'])
      return out
    })
  }
  if (edit.kind === 'patch') {
    return [[['{"patch":"', 'structure'], ...patchTagged(edit, path).map(([t, c]) => /** @type {[string, import('./tokens.mjs').Category]} */ ([esc(t), c])), ['"}', 'structure']]]
  }
  if (edit.kind === 'refpatch') {
    return [[['{"patchText":"', 'structure'], ...refPatchTagged(edit, path).map(([t, c]) => /** @type {[string, import('./tokens.mjs').Category]} */ ([esc(t), c])), ['"}', 'structure']]]
  }
  /** @type {Tagged} */
  const out = [[`${head}"content":"`, 'structure']]
  const u = edit.units[0]
  body(out, u.lines, u.echo ? (_l, i) => plainPrefix(i + 1) : undefined, '\n')
  out.push(['"}', 'structure'])
  return [out]
}
