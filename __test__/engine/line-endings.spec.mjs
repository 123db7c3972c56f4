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

/**
 * Writes each file, replaces oldString with newString in it, and checks the
 * bytes written.
 * @param {import('ava').ExecutionContext} t @param {string[][]} cases
 */
function oldStringEdits(t, cases) {
  const dir = scratch(t)
  const file = join(dir, 'f.txt')
  const hl = new Hashline({ view: 'full', root: dir })
  for (const [before, oldString, newString, after] of cases) {
    writeFileSync(file, before)
    hl.edit('f.txt', { oldString, newString })
    t.is(readFileSync(file, 'latin1'), after, JSON.stringify([before, oldString, newString]))
  }
}

test('an oldString edit inside one line of a mixed-ending file keeps that line\'s own ending', (t) => {
  oldStringEdits(t, [
    ['a\r\nb\nc\r\n', 'b', 'B', 'a\r\nB\nc\r\n'],
    ['a\nb\r\nc\n', 'b', 'B', 'a\nB\r\nc\n'],
    ['a\r\nb\nc\r\n', 'b', 'b1\nb2', 'a\r\nb1\nb2\nc\r\n'],
    ['a\r\nb\nc\r\nd\r\n', 'b\nc', 'B\nC', 'a\r\nB\nC\r\nd\r\n'],
  ])
})

/**
 * A small seeded generator, so that a failure can be replayed.
 * @param {number} seed
 */
function random(seed) {
  let state = seed >>> 0
  return (/** @type {number} */ n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state % n
  }
}

test('oldString edits of random mixed-ending files leave every line outside the match as its bytes were', (t) => {
  const dir = scratch(t)
  const file = join(dir, 'f.txt')
  const hl = new Hashline({ view: 'full', root: dir })
  const pick = random(40)
  const endings = ['\n', '\r\n', '\r']
  let tried = 0
  for (let round = 0; round < 300; round++) {
    const lines = Array.from({ length: 2 + pick(6) }, () => [['a', 'b', 'ab', 'a b'][pick(4)], endings[pick(3)]])
    const bytes = lines.map(([l, e]) => l + e).join('')
    const text = lines.map(([l]) => `${l}\n`).join('')
    const start = pick(text.length)
    const oldString = text.slice(start, start + 1 + pick(4))
    const newString = Array.from({ length: pick(4) }, () => ['x', 'Y', '\n', ' '][pick(4)]).join('')
    const count = text.split(oldString).length - 1
    if (oldString === newString) continue
    writeFileSync(file, bytes)
    hl.edit('f.txt', { oldString, newString, replaceAll: count > 1 })
    tried += 1
    // The lines before the first match and after the last keep their bytes.
    const first = text.indexOf(oldString)
    const last = text.lastIndexOf(oldString) + oldString.length
    const firstLine = text.slice(0, first).split('\n').length - 1
    const lastLine = text.slice(0, last - 1).split('\n').length - 1
    const head = lines.slice(0, firstLine).map(([l, e]) => l + e).join('')
    const tail = lines.slice(lastLine + 1).map(([l, e]) => l + e).join('')
    const out = readFileSync(file, 'latin1')
    const what = JSON.stringify([bytes, oldString, newString, out])
    t.true(out.startsWith(head), what)
    t.true(out.endsWith(tail), what)
    // Within one line, with no line break in or out, each line keeps its
    // ending (but where a line left empty after a lone CR takes CRLF).
    if (!oldString.includes('\n') && !newString.includes('\n') && !linesOf(out).includes('')) {
      const kept = linesOf(out).length === lines.length
      t.true(kept, what)
      t.is(out.replace(/[^\r\n]/g, ''), bytes.replace(/[^\r\n]/g, ''), what)
    }
  }
  t.true(tried > 200)
})

test('an oldString edit at the end of a file without a final newline writes no final newline and no line never sent', (t) => {
  oldStringEdits(t, [
    ['a\nb', 'b', 'c\n', 'a\nc'],
    ['a\r\nb', 'b', 'c\n', 'a\r\nc'],
    ['a\rb', 'b', 'c\n', 'a\rc'],
    ['a\r\nb\nc', 'c', 'd\n', 'a\r\nb\nd'],
    ['a\nb', 'b', '', 'a'],
    ['a\r\nb', 'b', '', 'a'],
    ['a\nb', 'b', 'c\n\n', 'a\nc\n\n'],
    ['a\r\nb', 'b', 'c\n\n', 'a\r\nc\r\n\r\n'],
    ['a\nb', 'a\nb', 'x\ny\n', 'x\ny'],
    ['a\r\nb', 'a\nb', 'x\ny\n', 'x\r\ny'],
    ['a\nb', 'a\nb', '', ''],
    // A match that took the final newline of a file that has one leaves one.
    ['a\nb\n', 'b\n', 'c', 'a\nc\n'],
    ['a\r\nb\r\n', 'b\n', '', 'a\r\n'],
  ])
})

test('replacing, deleting and appending at the last line of a file without a final newline writes none', (t) => {
  const dir = scratch(t)
  const file = join(dir, 'f.txt')
  const hl = new Hashline({ view: 'full', root: dir })
  for (const [before, op, after] of [
    ['a\r\nb', { op: 'replace', ref: 2, content: 'c\n' }, 'a\r\nc'],
    ['a\r\nb', { op: 'replace', ref: 2, content: ['c', 'd'] }, 'a\r\nc\r\nd'],
    ['a\r\nb', { op: 'delete', ref: 2 }, 'a'],
    ['a\r\nb', { op: 'append', content: 'c\n' }, 'a\r\nb\r\nc'],
    ['a\rb', { op: 'insert_after', ref: 2, content: 'c' }, 'a\rb\rc'],
    // An empty last line exists only by its line break, so it keeps it.
    ['a\nb', { op: 'replace', ref: 2, content: ['c', ''] }, 'a\nc\n\n'],
  ]) {
    writeFileSync(file, before)
    const refs = refsOf(hl.read('f.txt').text)
    const operation = 'ref' in op ? { ...op, ref: refs[op.ref] } : op
    hl.edit('f.txt', { operations: [operation] })
    t.is(readFileSync(file, 'latin1'), after, JSON.stringify([before, op]))
  }
})
