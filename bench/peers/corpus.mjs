// @ts-check
// The inputs, from real source and the same in every run: the lines of
// TypeScript 5.9.3's `lib/typescript.js` (a pinned dependency of this
// benchmark, 200 276 lines, 9.1 MB), taken from the first line on and
// repeated from the top when a size needs more, each file ending in LF.

import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as path from 'node:path'

const require = createRequire(import.meta.url)

export const SOURCE = 'typescript@5.9.3 lib/typescript.js'

/** @type {string[] | undefined} */
let cached

/** The source's lines, checked to be what the benchmark expects. */
export function sourceLines() {
  if (cached) return cached
  const pkg = require('typescript/package.json')
  if (pkg.version !== '5.9.3') throw new Error(`bench/peers needs typescript 5.9.3, found ${pkg.version}: run npm install --prefix bench/peers`)
  const text = fs.readFileSync(path.join(path.dirname(require.resolve('typescript/package.json')), 'lib', 'typescript.js'), 'utf8')
  if (text.includes('\r') || text.includes('\0')) throw new Error('the source has CR or NUL bytes; the inputs assume LF text')
  cached = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n')
  return cached
}

/**
 * The first `n` lines (wrapping around), as a file's text.
 * @param {number} n
 */
export function textOf(n) {
  const lines = sourceLines()
  if (n <= lines.length) return lines.slice(0, n).join('\n') + '\n'
  const parts = []
  for (let left = n; left > 0; left -= lines.length) parts.push(lines.slice(0, Math.min(left, lines.length)).join('\n'))
  return parts.join('\n') + '\n'
}

/**
 * Whole lines adding up to at least `bytes` UTF-8 bytes.
 * @param {number} bytes
 */
export function textOfBytes(bytes) {
  const lines = sourceLines()
  const whole = Buffer.byteLength(lines.join('\n') + '\n')
  let n = Math.ceil((bytes / whole) * lines.length)
  let text = textOf(n)
  while (Buffer.byteLength(text) < bytes) text = textOf((n = Math.ceil(n * 1.001) + 1))
  return text
}

/**
 * Where the `k` replacements of an edit go in a file of `n` lines: spread
 * evenly, the line in the middle of each of `k` equal slices (0-based).
 * @param {number} n
 * @param {number} k
 */
export function editedLines(n, k) {
  return Array.from({ length: k }, (_, j) => Math.floor(((2 * j + 1) * n) / (2 * k)))
}

/**
 * The new text of replacement `j`: one line that no source line repeats.
 * @param {number} j
 */
export const replacement = (j) => `    const edited${j} = apply(${j}); // édition ${j}`

/**
 * The text every implementation must produce from `text` with `k`
 * replacements: the check run before anything is timed.
 * @param {string} text
 * @param {number} k
 */
export function expectedEdit(text, k) {
  const lines = text.slice(0, -1).split('\n')
  editedLines(lines.length, k).forEach((at, j) => (lines[at] = replacement(j)))
  return lines.join('\n') + '\n'
}

/**
 * A file that parses, for the edits whose syntax check parses the new
 * text (the cut lines of `textOf` do not parse): acorn 8.19.0's
 * `dist/acorn.js`, a pinned dependency of this benchmark, with the
 * 0-based lines after which 10 comment lines keep it parsing (statement
 * ends, spread over the file).
 */
export function parsingSource() {
  const pkg = require('acorn/package.json')
  if (pkg.version !== '8.19.0') throw new Error(`bench/peers needs acorn 8.19.0, found ${pkg.version}: run npm install --prefix bench/peers`)
  const text = fs.readFileSync(path.join(path.dirname(require.resolve('acorn/package.json')), 'dist', 'acorn.js'), 'utf8')
  if (!text.endsWith('\n') || text.includes('\r')) throw new Error('acorn.js is not LF text ending in a newline')
  const lines = text.slice(0, -1).split('\n')
  const after = []
  for (let k = 0; k < 10; k++) {
    let at = Math.floor(((k + 0.5) * lines.length) / 10)
    while (at < lines.length && !/^\s*(var|let|const|return)\b.*;$/.test(lines[at])) at++
    if (at === lines.length) throw new Error('no statement end found in acorn.js to insert after')
    after.push(at)
  }
  return { name: 'acorn.js', text, lines: lines.length, after }
}
