// @ts-check
// Line-prefix shapes for a lean view: a line number, a tag of some alphabet
// and width, and a separator, measured as whole view lines (the prefix's last
// character merges with the line's first token) on real files.

import { createHash } from 'node:crypto'

const ALPHABETS = /** @type {Record<string, string>} */ ({
  'hex (upper)': '0123456789ABCDEF',
  'hex (lower)': '0123456789abcdef',
  'ZPMQ… letters (16)': 'ZPMQVRWSNKTXJBYH',
  'lowercase (26)': 'abcdefghijklmnopqrstuvwxyz',
  'uppercase (26)': 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  'base32 (lower)': 'abcdefghijkmnpqrstuvwxyz23456789',
  'letters (52)': 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
  'base64url': 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
})

/** The separators tried: before the tag, and after it (before the content). */
const LEADS = ['', '#', ':']
const TAILS = [' ', '\t', ':', '|']

/**
 * @typedef {{ name: string, alphabet: string, width: number, bits: number, lead: string, tail: string, prefix(n: number, line: string): string }} Shape
 * @returns {Shape[]}
 */
export function shapes() {
  /** @type {Shape[]} */
  const out = []
  for (const tail of TAILS) out.push({ name: `N${show(tail)}`, alphabet: 'none', width: 0, bits: 0, lead: '', tail, prefix: (n) => `${n}${tail}` })
  for (const [alphabet, letters] of Object.entries(ALPHABETS)) {
    for (const width of [1, 2, 3]) {
      const bits = width * Math.log2(letters.length)
      if (bits > 18) continue
      for (const lead of LEADS) {
        // A tag that can start with a digit needs a separator after the line number.
        if (lead === '' && /[0-9]/.test(letters)) continue
        for (const tail of TAILS) {
          out.push({
            name: `N${lead}${'x'.repeat(width)}${show(tail)}`,
            alphabet,
            width,
            bits,
            lead,
            tail,
            prefix: (n, line) => `${n}${lead}${spell(line, letters, width)}${tail}`,
          })
        }
      }
    }
  }
  return out
}

const show = (/** @type {string} */ s) => (s === '\t' ? '⇥' : s === ' ' ? '␠' : s)

/** `width` letters of `alphabet` from SHA-1 of the line. */
function spell(/** @type {string} */ line, /** @type {string} */ alphabet, /** @type {number} */ width) {
  let v = createHash('sha1').update(line, 'utf8').digest().readUInt32BE(0)
  let s = ''
  for (let i = 0; i < width; i++) {
    s += alphabet[v % alphabet.length]
    v = Math.floor(v / alphabet.length)
  }
  return s
}
