// @ts-check
// Candidate lean views for this project: their tags, view lines, what the
// engine would accept, and the echo clean-up rule they need. The candidates
// are modelled here; the chosen one is the engine's own lean view
// (`formatView(text, { view: 'lean' })`), taken from the engine itself.

import { createHash } from 'node:crypto'

const digest = (/** @type {string} */ s) => createHash('sha1').update(s, 'utf8').digest()
/** The text the engine hashes: trailing spaces and tabs never count. */
const hashedText = (/** @type {string} */ line) => line.replace(/[ \t]+$/, '')

/**
 * The letters a pair tag starts with: one set for even line numbers, the
 * other for odd ones, so that the tags of neighbouring lines always differ and
 * a line number typed one off never validates, whatever the lines hold.
 */
export const PAIR_FIRST = ['abcdefghijklm', 'nopqrstuvwxyz']
const LOWER = 'abcdefghijklmnopqrstuvwxyz'

/**
 * The pair tag of line `n` (1-based): SHA-1 of the hashed text, its first 32
 * bits (big-endian) modulo 338, spelled as a first letter from the set of the
 * line number's parity (value / 26) and a second letter (value % 26).
 */
export function pairTag(/** @type {number} */ n, /** @type {string} */ line) {
  const v = digest(hashedText(line)).readUInt32BE(0) % 338
  return PAIR_FIRST[n % 2][Math.floor(v / 26)] + LOWER[v % 26]
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
/** The engine's 12-bit HASH (or ANCHOR) spelled as two base64url characters instead of three hex digits. */
export function b64Tag(/** @type {string} */ hex3) {
  const v = parseInt(hex3, 16)
  return B64[v >> 6] + B64[v & 63]
}

/**
 * The lean prefix the echo clean-up must recognise: optional diff marker (`+`
 * or a space, as results show lines) or `>>> ` (as rejections show them), the
 * line number, the two tag letters, one space or tab.
 */
export const LEAN_PREFIX = /^(?:>>> |[+ ])?(\d+)([a-z]{2})[ \t]/

/**
 * The clean-up rule for echoed lean prefixes: strip only when every non-empty
 * content line starts with a lean prefix whose first tag letter belongs to the
 * set of its line number's parity (or with a full `LINE#HASH#ANCHOR|` prefix),
 * and the line numbers of those prefixes rise strictly from line to line, as
 * they do when view lines are copied; otherwise leave the content alone. The
 * parity keeps ordinals (`1st`, `2nd`) and units (`10px `) out.
 * @param {string[]} lines
 * @returns {string[] | null} the stripped lines, or null when the rule does not apply
 */
export function stripLeanPrefixes(lines) {
  const FULL = /^(?:>>> |[+ ])?(\d+)#[0-9A-F]{3}#[0-9A-F]{3}\|/
  let last = 0
  let any = false
  const out = []
  for (const line of lines) {
    if (line === '') {
      out.push(line)
      continue
    }
    const lean = LEAN_PREFIX.exec(line)
    const m = lean && PAIR_FIRST[Number(lean[1]) % 2].includes(lean[2][0]) ? lean : FULL.exec(line)
    if (!m) return null
    const n = Number(m[1])
    if (n <= last) return null
    last = n
    any = true
    out.push(line.slice(m[0].length))
  }
  return any ? out : null
}

/** The engine's full view prefix, for the full format's echoes. */
export const FULL_PREFIX = /^(?:>>> |[+ ])?\s*\d+#[0-9A-F]{3}#[0-9A-F]{3}\|/
