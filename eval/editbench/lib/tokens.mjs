// @ts-check
// Token counts with the real o200k_base and cl100k_base vocabularies that
// js-tiktoken ships (no network). Texts are split with the encoding's own
// pre-tokeniser and each piece is encoded once and remembered: encoding is a
// concatenation of independent pieces, so the counts are exactly those of
// encoding the whole text, only much faster on repetitive source code.

import { Tiktoken } from 'js-tiktoken/lite'
import cl100k from 'js-tiktoken/ranks/cl100k_base'
import o200k from 'js-tiktoken/ranks/o200k_base'

export const ENCODINGS = /** @type {const} */ (['o200k_base', 'cl100k_base'])

/** @typedef {'new' | 'old' | 'structure'} Category */
/** @typedef {Array<[string, Category]>} Tagged */

const utf8 = new TextEncoder()

export class Tokenizer {
  /** @param {typeof ENCODINGS[number]} name */
  constructor(name) {
    this.name = name
    const enc = new Tiktoken(name === 'o200k_base' ? o200k : cl100k)
    /** @type {any} */
    const internals = enc
    if (!(internals.textMap instanceof Map) || typeof internals.patStr !== 'string') {
      throw new Error('js-tiktoken internals changed: textMap/patStr are needed for per-token byte lengths')
    }
    this.enc = enc
    /** @type {Map<number, Uint8Array>} */
    this.textMap = internals.textMap
    this.pattern = new RegExp(internals.patStr, 'ug')
    /** @type {Map<string, number[]>} byte length of each token of a piece */
    this.pieces = new Map()
  }

  /** @param {string} piece */
  piece(piece) {
    let lens = this.pieces.get(piece)
    if (lens === undefined) {
      // No special tokens in source text: `<|endoftext|>` in a file is plain text.
      lens = this.enc.encode(piece, [], []).map((id) => /** @type {Uint8Array} */ (this.textMap.get(id)).length)
      if (this.pieces.size > 2_000_000) this.pieces.clear()
      this.pieces.set(piece, lens)
    }
    return lens
  }

  /** @param {string} text */
  count(text) {
    let n = 0
    for (const m of text.matchAll(this.pattern)) n += this.piece(m[0]).length
    return n
  }

  /**
   * Token count of the concatenated text, split by the category of the
   * majority of each token's bytes.
   * @param {Tagged} tagged
   * @returns {Record<Category, number> & { total: number }}
   */
  split(tagged) {
    const text = tagged.map((p) => p[0]).join('')
    /** @type {Category[]} */
    const cats = []
    /** @type {number[]} */
    const ends = []
    let end = 0
    for (const [piece, cat] of tagged) {
      end += utf8.encode(piece).length
      cats.push(cat)
      ends.push(end)
    }
    const out = { new: 0, old: 0, structure: 0, total: 0 }
    let byte = 0
    let seg = 0
    for (const m of text.matchAll(this.pattern)) {
      for (const len of this.piece(m[0])) {
        /** @type {Record<Category, number>} */
        const share = { new: 0, old: 0, structure: 0 }
        let b = byte
        const stop = byte + len
        while (b < stop) {
          while (ends[seg] <= b) seg++
          const upto = Math.min(stop, ends[seg])
          share[cats[seg]] += upto - b
          b = upto
        }
        const cat = /** @type {Category} */ (share.new >= share.old && share.new >= share.structure ? 'new' : share.old >= share.structure ? 'old' : 'structure')
        out[cat]++
        out.total++
        byte = stop
      }
    }
    return out
  }
}

/** @type {Map<string, Tokenizer>} */
const cache = new Map()
/** @param {typeof ENCODINGS[number]} name */
export function tokenizer(name) {
  let t = cache.get(name)
  if (!t) {
    t = new Tokenizer(name)
    cache.set(name, t)
  }
  return t
}
