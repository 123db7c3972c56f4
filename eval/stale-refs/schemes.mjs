// @ts-check
// The peers' ways of checking a cited line, re-implemented over plain line
// arrays so that each sees exactly the same refs, files and changes as the
// engine. Every hash here is SHA-1 of the line with trailing spaces and tabs
// trimmed (the engine's HASH, cut to 2, 3 or 4 hex digits), so the schemes
// differ only in what they check and how they relocate, not in hash quality.
import { createHash } from 'node:crypto'

const SEPARATOR = '\u241E'
const trimEnd = (/** @type {string} */ s) => s.replace(/[ \t]+$/, '')

/** @type {Map<string, string>} */
const digests = new Map()

/** Uppercase hex of SHA-1, memoised: the same lines are hashed in every trial of a file. @param {string} text */
function sha1(text) {
  let hex = digests.get(text)
  if (hex === undefined) {
    if (digests.size > 500_000) digests.clear()
    hex = createHash('sha1').update(text).digest('hex').slice(0, 4).toUpperCase()
    digests.set(text, hex)
  }
  return hex
}

/** The per-line hash, `width` hex digits. @param {string} line @param {number} width */
export function lineHash(line, width = 3) {
  return sha1(trimEnd(line)).slice(0, width)
}

/** The engine's ANCHOR: the line with its neighbours (a missing one is ""). @param {readonly string[]} lines @param {number} i */
export function anchorAt(lines, i) {
  const prev = i > 0 ? lines[i - 1] : ''
  const next = i + 1 < lines.length ? lines[i + 1] : ''
  return sha1(`${trimEnd(prev)}${SEPARATOR}${trimEnd(line(lines, i))}${SEPARATOR}${trimEnd(next)}`).slice(0, 3)
}

/** @param {readonly string[]} lines @param {number} i */
function line(lines, i) {
  return /** @type {string} */ (lines[i])
}

/** The engine's ref of 0-based line `i`: `LINE#HASH#ANCHOR`. @param {readonly string[]} lines @param {number} i */
export function engineRef(lines, i) {
  return `${i + 1}#${lineHash(line(lines, i))}#${anchorAt(lines, i)}`
}

/**
 * What a ref carries, computed once from the version the model read.
 * @typedef {{ line: number, text: string, anchor: string }} OldLine
 */

/**
 * Where a scheme places each cited line (0-based, in the current lines), or
 * null when it rejects the edit.
 * @typedef {(cited: OldLine[], current: readonly string[]) => number[] | null} Locate
 * @typedef {{ name: string, label: string, locate: Locate }} Scheme
 */

/** @param {readonly string[]} current @param {number} i @param {OldLine} ref @param {number} width */
const hashMatches = (current, i, ref, width) => i < current.length && lineHash(line(current, i), width) === lineHash(ref.text, width)

/** @param {readonly string[]} current @param {number} i @param {OldLine} ref */
const hashAnchorMatches = (current, i, ref) => hashMatches(current, i, ref, 3) && anchorAt(current, i) === ref.anchor

/** @param {number[]} positions */
const ordered = (positions) => (positions.length === 2 && positions[1] < positions[0] ? null : positions)

/**
 * Validate at the cited line number, reject on any mismatch.
 * @param {(current: readonly string[], i: number, ref: OldLine) => boolean} matches @returns {Locate}
 */
const atLineNumber = (matches) => (cited, current) => (cited.every((c) => matches(current, c.line, c)) ? cited.map((c) => c.line) : null)

/**
 * Validate at the cited line number; on a mismatch move the ref to the one
 * line of the file that matches it, reject if none or several do.
 * @param {(current: readonly string[], i: number, ref: OldLine) => boolean} matches @returns {Locate}
 */
const relocating = (matches) => (cited, current) => {
  const positions = []
  for (const c of cited) {
    if (matches(current, c.line, c)) {
      positions.push(c.line)
      continue
    }
    let found = -1
    for (let i = 0; i < current.length; i++) {
      if (!matches(current, i, c)) continue
      if (found >= 0) return null
      found = i
    }
    if (found < 0) return null
    positions.push(found)
  }
  return ordered(positions)
}

/** @type {Scheme[]} */
export const peerSchemes = [
  { name: 'hash2', label: 'per-line hash, 2 hex', locate: atLineNumber((cur, i, c) => hashMatches(cur, i, c, 2)) },
  { name: 'hash3', label: 'per-line hash, 3 hex', locate: atLineNumber((cur, i, c) => hashMatches(cur, i, c, 3)) },
  { name: 'hash4', label: 'per-line hash, 4 hex', locate: atLineNumber((cur, i, c) => hashMatches(cur, i, c, 4)) },
  { name: 'anchor', label: 'hash + anchor, no store', locate: atLineNumber(hashAnchorMatches) },
  { name: 'reloc2', label: 'unique-hash relocation, 2 hex', locate: relocating((cur, i, c) => hashMatches(cur, i, c, 2)) },
  { name: 'reloc3a', label: 'unique hash+anchor relocation', locate: relocating(hashAnchorMatches) },
]

/**
 * An edit operation in the terms of the version read: `first..last`
 * (0-based, inclusive; equal for a single line or an insert's anchor).
 * @typedef {{ op: 'replace' | 'delete' | 'insert_after', first: number, last: number, content: string[] }} Op
 */

/**
 * The lines after `op`, placed at `start..end` of `lines`.
 * @param {readonly string[]} lines @param {Op} op @param {number} start @param {number} end
 */
export function applyAt(lines, op, start, end) {
  if (op.op === 'insert_after') return [...lines.slice(0, start + 1), ...op.content, ...lines.slice(start + 1)]
  const content = op.op === 'replace' ? op.content : []
  return [...lines.slice(0, start), ...content, ...lines.slice(end + 1)]
}
