import test from 'ava'
import { createHash } from 'node:crypto'
import { binding } from '../helpers.mjs'

const { lineHash, anchorHash, rev, parseRef, formatView, applyEdits } = binding
const sha1 = (s) => createHash('sha1').update(s, 'utf8').digest('hex').toUpperCase()

test('lineHash is the first 3 hex digits of SHA-1 of the line without trailing spaces and tabs', (t) => {
  t.is(lineHash('  const x = 1;'), sha1('  const x = 1;').slice(0, 3))
  t.is(lineHash('  const x = 1; \t'), sha1('  const x = 1;').slice(0, 3))
  t.is(lineHash('日本語 🎉'), sha1('日本語 🎉').slice(0, 3))
})

test('anchorHash joins previous, line and next with U+241E, a missing neighbour being empty', (t) => {
  t.is(anchorHash('a', 'b', 'c'), sha1('a\u241Eb\u241Ec').slice(0, 3))
  t.is(anchorHash(null, 'b', undefined), sha1('\u241Eb\u241E').slice(0, 3))
})

test('rev hashes the canonical text: BOM removed, CRLF and CR as LF', (t) => {
  t.is(rev('a\nb\n'), sha1('a\nb\n').slice(0, 8))
  t.is(rev('\uFEFFa\r\nb\r'), sha1('a\nb\n').slice(0, 8))
})

test('parseRef accepts what models copy and rejects the rest with INVALID_REF', (t) => {
  t.deepEqual({ ...parseRef('12#a3f#9bc') }, { line: 12, hash: 'A3F', anchor: '9BC' })
  const bare = parseRef('>>> 12:A3F|  code')
  t.is(bare.line, 12)
  t.is(bare.hash, 'A3F')
  t.is(bare.anchor, undefined)
  const err = t.throws(() => parseRef('A3F#12'))
  t.is(err.code, 'INVALID_REF')
  t.regex(err.message, /12#A3F#9BC/)
})

test('formatView tags every line with LINE#HASH#ANCHOR and shows the REV', (t) => {
  const text = 'one\ntwo\nthree\n'
  const view = formatView(text, { path: 'x.txt', view: 'full' })
  const lines = view.trimEnd().split('\n')
  t.is(lines[0], `x.txt REV:${rev(text)} lines 1-3 of 3`)
  t.is(lines[2], `2#${lineHash('two')}#${anchorHash('one', 'two', 'three')}|two`)
})

test('applyEdits edits text held by the caller and returns the new text, output and REV', (t) => {
  const text = 'a\nb\nc\n'
  const ref = `2#${lineHash('b')}#${anchorHash('a', 'b', 'c')}`
  const result = applyEdits(text, { operations: [{ op: 'replace', ref, content: 'B' }] })
  t.is(result.text, 'a\nB\nc\n')
  t.is(result.rev, rev('a\nB\nc\n'))
  t.is(result.previousRev, rev(text))
  t.regex(result.output, /^Applied 1 operation to text\. REV/)
  t.is(result.additions, 1)
  t.is(result.deletions, 1)
})

test('applyEdits keeps a BOM and CRLF endings of the text', (t) => {
  const text = '\uFEFFa\r\nb\r\n'
  const ref = `1#${lineHash('a')}#${anchorHash(null, 'a', 'b')}`
  t.is(applyEdits(text, { operations: [{ op: 'insert_after', ref, content: 'x' }] }).text, '\uFEFFa\r\nx\r\nb\r\n')
})

