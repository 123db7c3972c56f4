// @ts-check
// The line tags, read views, tool results and error texts of the other
// hashline tools, modelled from their public source (see README.md, "Session
// measure"). Only the shapes and rules that decide tokens and outcomes are
// modelled; their code is not used.

import { createHash } from 'node:crypto'
import { diffLines } from './diff.mjs'

/**
 * xxHash32 as the peers compute it (Bun.hash.xxHash32, seed as given).
 * @type {(text: string, seed: number) => number}
 */
export const xxh32 = await loadXxh32()

async function loadXxh32() {
  let mod
  try {
    mod = await import('xxhash-wasm')
  } catch {
    throw new Error('xxhash-wasm is missing: run `npm install --prefix eval/editbench` once (the peers tag lines with xxHash32)')
  }
  const { h32 } = await mod.default()
  return (/** @type {string} */ text, /** @type {number} */ seed) => h32(text, seed) >>> 0
}

const sha1hex = (/** @type {string} */ s) => createHash('sha1').update(s, 'utf8').digest('hex').toUpperCase()

/** The 16 letters oh-my-openagent and oh-my-pi spell a byte with. */
const NIBBLES = 'ZPMQVRWSNKTXJBYH'
const DICT = Array.from({ length: 256 }, (_, i) => NIBBLES[i >>> 4] + NIBBLES[i & 15])
const SIGNIFICANT = /[\p{L}\p{N}]/u

/** oh-my-openagent: xxHash32 of the line without trailing space, seeded with the line number when it has no letter or digit. */
export function omoTag(/** @type {number} */ n, /** @type {string} */ line) {
  const text = line.replace(/\r/g, '').trimEnd()
  return DICT[xxh32(text, SIGNIFICANT.test(text) ? 0 : n) % 256]
}
/** oh-my-openagent also accepts its older tag: the same hash with every whitespace removed. */
export function omoLegacyTag(/** @type {number} */ n, /** @type {string} */ line) {
  const text = line.replace(/\r/g, '').replace(/\s+/g, '')
  return DICT[xxh32(text, SIGNIFICANT.test(text) ? 0 : n) % 256]
}
/** oh-my-pi v2: xxHash32 of the line with every whitespace removed, low byte. */
export function ompV2Tag(/** @type {string} */ line) {
  return DICT[xxh32(line.replace(/\s+/g, ''), 0) & 0xff]
}
/** oh-my-pi latest: one tag per file, the low 16 bits of xxHash32 of the text with trailing blanks trimmed, 4 hex digits. */
export function ompFileTag(/** @type {string} */ text) {
  const normalized = text.replace(/[ \t\r]+(?=\n|$)/g, '')
  return (xxh32(normalized, 0) & 0xffff).toString(16).padStart(4, '0').toUpperCase()
}
/** AngDrew's opencode-hashline: SHA-1 of the raw line and of prev␞line␞next, 3 hex digits (4 past 4096 lines). */
export function angRef(/** @type {string[]} */ lines, /** @type {number} */ i) {
  const w = lines.length > 4096 ? 4 : 3
  const hash = sha1hex(lines[i]).slice(0, w)
  const anchor = sha1hex(`${lines[i - 1] ?? ''}\u241E${lines[i]}\u241E${lines[i + 1] ?? ''}`).slice(0, w)
  return `${i + 1}#${hash}#${anchor}`
}
export const angRev = (/** @type {string} */ text) => sha1hex(text).slice(0, 8)

/** OpenCode's read output around numbered lines (`packages/opencode/src/tool/read.ts`). */
export function opencodeRead(/** @type {string} */ path, /** @type {string[]} */ rows, /** @type {number} */ start, /** @type {number} */ total) {
  const end = start + rows.length - 1
  const tail = end < total ? `(Showing lines ${start}-${end} of ${total}. Use offset=${end + 1} to continue.)` : `(End of file - total ${total} lines)`
  return `<path>/work/project/${path}</path>\n<type>file</type>\n<content>\n${rows.join('\n')}\n\n${tail}\n</content>`
}

/** The lines of `lines` from `start` (1-based) on, at most `limit`, each with `prefix`. */
export function numbered(/** @type {string[]} */ lines, /** @type {number} */ start, /** @type {number} */ limit, /** @type {(n: number, line: string) => string} */ prefix) {
  const rows = []
  for (let n = start; n < start + limit && n <= lines.length; n++) rows.push(prefix(n, lines[n - 1]) + lines[n - 1])
  return rows
}

/** 1-based line numbers within two lines of any of `lines`, in order. */
export function around(/** @type {number[]} */ lines, /** @type {number} */ total, context = 2) {
  /** @type {Set<number>} */
  const out = new Set()
  for (const l of lines) for (let n = Math.max(1, l - context); n <= Math.min(total, l + context); n++) out.add(n)
  return [...out].sort((a, b) => a - b)
}

/**
 * The rows a diff-style result shows: each hunk's new lines and two lines of
 * context each side, as 1-based line numbers of `after`, merged and in order;
 * `removed` counts the old lines that went.
 */
export function changedRows(/** @type {string[]} */ before, /** @type {string[]} */ after) {
  const hunks = diffLines(before, after)
  /** @type {Set<number>} */
  const rows = new Set()
  /** @type {Set<number>} */
  const added = new Set()
  let removed = 0
  for (const h of hunks) {
    removed += h.oldLen
    for (let n = Math.max(1, h.newStart + 1 - 2); n <= Math.min(after.length, h.newStart + h.newLen + 2); n++) rows.add(n)
    for (let j = 0; j < h.newLen; j++) added.add(h.newStart + 1 + j)
  }
  return { rows: [...rows].sort((a, b) => a - b), added, removed }
}
