import test from 'ava'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { binding, refsOf, scratch } from '../helpers.mjs'

const { Hashline, applyEdits, formatView } = binding

/** Lines as any reader splits them: CRLF, LF and a lone CR each end one. */
function linesOf(text) {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text
  const lines = body.split(/\r\n|\r|\n/)
  if (lines.at(-1) === '') lines.pop()
  return lines
}

test('deleting the line between a lone CR and an empty line keeps the empty line', (t) => {
  const dir = scratch(t)
  const file = join(dir, 'f.txt')
  writeFileSync(file, 'a\rb\n\nc\n')
  const hl = new Hashline({ view: 'full', root: dir })
  const refs = refsOf(hl.read('f.txt').text)
  hl.edit('f.txt', { operations: [{ op: 'delete', ref: refs[2] }] })
  const text = readFileSync(file, 'utf8')
  t.deepEqual(linesOf(text), ['a', '', 'c'])
  // `a` keeps its lone CR; the empty line is written CRLF, one byte more.
  t.is(text, 'a\r\r\nc\n')
})

test('inserting a blank line after a lone CR inserts it', (t) => {
  const dir = scratch(t)
  const file = join(dir, 'f.txt')
  writeFileSync(file, 'x\na\r')
  const hl = new Hashline({ view: 'full', root: dir })
  const refs = refsOf(hl.read('f.txt').text)
  hl.edit('f.txt', { operations: [{ op: 'insert_after', ref: refs[2], content: '\n' }] })
  t.deepEqual(linesOf(readFileSync(file, 'utf8')), ['x', 'a', ''])
})

// Every file of up to four pieces among `a`, CR, LF and CRLF; every line
// deleted, and a blank line inserted before every line: the file must
// read back as the lines meant, never an INTERNAL error or NO_CHANGE.
test('every delete and blank insert in small files of mixed endings reads back as meant', (t) => {
  const pieces = ['a', '\r', '\n', '\r\n']
  const files = new Set([''])
  let frontier = ['']
  for (let n = 0; n < 4; n++) {
    frontier = frontier.flatMap((f) => pieces.map((p) => f + p))
    for (const f of frontier) files.add(f)
  }
  let edits = 0
  for (const text of files) {
    const lines = linesOf(text)
    const refs = refsOf(formatView(text, { view: 'full' }))
    for (let i = 0; i < lines.length; i++) {
      for (const [op, want] of [
        [{ op: 'delete' }, [...lines.slice(0, i), ...lines.slice(i + 1)]],
        [{ op: 'insert_before', content: '\n' }, [...lines.slice(0, i), '', ...lines.slice(i)]],
      ]) {
        const label = `${JSON.stringify(text)} ${op.op} line ${i + 1}`
        let result
        try {
          result = applyEdits(text, { operations: [{ ...op, ref: refs[i + 1] }] })
        } catch (err) {
          t.is(err.code, 'NO_CHANGE', `${label}: ${err.message}`)
          t.deepEqual(want, lines, `${label}: NO_CHANGE for an edit that changes lines`)
          continue
        }
        t.deepEqual(linesOf(result.text), want, label)
        edits++
      }
    }
  }
  t.true(edits > 300, `${edits} edits`)
})

test('after an edit at a lone CR, a ref from before it still finds its line', (t) => {
  const dir = scratch(t)
  const file = join(dir, 'f.txt')
  writeFileSync(file, 'a\rb\n\nc\n\nd\n')
  const hl = new Hashline({ view: 'full', root: dir })
  const refs = refsOf(hl.read('f.txt').text)
  hl.edit('f.txt', { operations: [{ op: 'delete', ref: refs[2] }] })
  hl.edit('f.txt', { operations: [{ op: 'replace', ref: refs[4], content: 'C' }] })
  t.deepEqual(linesOf(readFileSync(file, 'utf8')), ['a', '', 'C', '', 'd'])
})
