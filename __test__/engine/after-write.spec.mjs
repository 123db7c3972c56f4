// @ts-check
// Nothing fails after the write: everything that can fail is done before
// the file is replaced, and what cannot be bounded is cut. A caller that
// gets an error finds the file as it was; a caller that gets a result finds
// the file written.
import test from 'ava'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { binding, refsOf as untypedRefsOf, scratch } from '../helpers.mjs'

const { Hashline } = binding

/** The refs of a view's lines, by 1-based line number. @param {string} text */
const refsOf = (text) => /** @type {Record<number, string>} */ (untypedRefsOf(text))

/** The longest `output` or `diff` an edit returns, in UTF-8 bytes, before its closing note. */
const MAX_RESULT_BYTES = 16 << 20

test('an edit whose output and diff would be larger than the bound is written, with both cut and a note saying so', (t) => {
  const dir = scratch(t)
  const big = 9 << 20
  const file = join(dir, 'big.txt')
  writeFileSync(file, `${'a'.repeat(big)}\n${'b'.repeat(big)}\nend\n`)
  const hl = new Hashline({ view: 'full', root: dir, maxFileBytes: 64 << 20 })
  const refs = refsOf(hl.read('big.txt').text)
  const result = hl.edit('big.txt', { operations: [{ op: 'replace', ref: refs[1], through: refs[2], content: 'small' }] })
  t.is(readFileSync(file, 'utf8'), 'small\nend\n')
  for (const field of /** @type {const} */ (['output', 'diff'])) {
    const text = result[field]
    t.true(Buffer.byteLength(text) < MAX_RESULT_BYTES + 1000, `${field} is bounded (${text.length})`)
    t.regex(text, new RegExp(`${field} cut at \\d+ of \\d+ bytes`), field)
  }
  t.regex(result.output, /^Applied 1 operation to big\.txt\. REV/)
  t.true(result.diff.startsWith('--- a/big.txt\n+++ b/big.txt\n'))
  t.is(result.deletions, 2)
  t.is(result.additions, 1)
})

test('a result that fits is returned whole', (t) => {
  const dir = scratch(t)
  const line = 'x'.repeat(4 << 20)
  writeFileSync(join(dir, 'f.txt'), `${line}\n`)
  const hl = new Hashline({ view: 'full', root: dir })
  const refs = refsOf(hl.read('f.txt').text)
  const result = hl.edit('f.txt', { operations: [{ op: 'insert_after', ref: refs[1], content: 'y' }] })
  t.is(result.diff, `--- a/f.txt\n+++ b/f.txt\n@@ -1 +1,2 @@\n ${line}\n+y\n`)
  t.notRegex(result.output, /output cut at/)
})
