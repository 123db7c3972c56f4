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
