import test from 'ava'
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { binding, refsOf, scratch } from '../helpers.mjs'
import { cannotRestrict, unprivileged } from '../support/unprivileged.mjs'

const { Hashline, lineHash, anchorHash } = binding

function setup(t, text = 'a\nb\nc\nd\n') {
  const dir = scratch(t)
  const file = join(dir, 'f.txt')
  writeFileSync(file, text)
  const hl = new Hashline({ view: 'full', root: dir })
  const refs = refsOf(hl.read('f.txt').text)
  const unchanged = () => t.is(readFileSync(file, 'utf8'), text, 'the file is unchanged')
  return { dir, file, hl, refs, unchanged }
}

function rejects(t, fn, code) {
  const err = t.throws(fn)
  t.true(err instanceof Error)
  t.is(err.code, code, err.message)
  return err
}

test('HASH_MISMATCH lists every mismatched ref with expected and actual, and shows fresh refs', (t) => {
  const s = setup(t)
  writeFileSync(s.file, 'a\nB\nc\nD\n')
  const err = rejects(t, () => s.hl.edit('f.txt', { operations: [{ op: 'replace', ref: s.refs[2], content: 'x' }, { op: 'delete', ref: s.refs[4] }] }), 'HASH_MISMATCH')
  const now = refsOf(new Hashline({ view: 'full', root: s.dir }).read('f.txt').text)
  t.deepEqual(err.mismatches, [
    { line: 2, expected: s.refs[2], actual: now[2] },
    { line: 4, expected: s.refs[4], actual: now[4] },
  ])
  t.regex(err.message, /^Edit rejected, nothing written: 2 refs no longer match f\.txt/)
  t.true(err.message.includes(`>>> ${now[2]}|B`))
  t.true(err.message.includes(`>>> ${now[4]}|D`))
  t.is(err.path, 'f.txt')
  t.is(readFileSync(s.file, 'utf8'), 'a\nB\nc\nD\n')
})

test('INVALID_REF says the expected form and suggests the current ref of the line', (t) => {
  const s = setup(t)
  const err = rejects(t, () => s.hl.edit('f.txt', { operations: [{ op: 'delete', ref: '3#XYZ' }] }), 'INVALID_REF')
  t.regex(err.message, /LINE#HASH#ANCHOR/)
  t.is(err.suggestion, s.refs[3])
  t.regex(err.message, new RegExp(`Did you mean ${s.refs[3]}`))
  s.unchanged()
})

test('OUT_OF_RANGE for a ref past the end of the file', (t) => {
  const s = setup(t)
  const err = rejects(t, () => s.hl.edit('f.txt', { operations: [{ op: 'delete', ref: '40#ABC#DEF' }] }), 'OUT_OF_RANGE')
  t.is(err.mismatches.length, 1)
  t.like(err.mismatches[0], { line: 40, expected: '40#ABC#DEF' })
  t.is(err.mismatches[0].actual, undefined)
  s.unchanged()
})

test('OUT_OF_RANGE for a read offset past the end', (t) => {
  const s = setup(t)
  rejects(t, () => s.hl.read('f.txt', { offset: 99 }), 'OUT_OF_RANGE')
})

test('CONFLICT for overlapping ranges and for an insert anchored inside a replaced range', (t) => {
  const s = setup(t)
  const r = s.refs
  let err = rejects(t, () => s.hl.edit('f.txt', { operations: [{ op: 'replace', ref: r[1], through: r[3], content: 'x' }, { op: 'delete', ref: r[3] }] }), 'CONFLICT')
  t.regex(err.message, /operation 1 \(replace lines 1-3\) and operation 2 \(delete lines 3-3\) overlap/)
  err = rejects(t, () => s.hl.edit('f.txt', { operations: [{ op: 'delete', ref: r[2], through: r[3] }, { op: 'insert_before', ref: r[3], content: 'y' }] }), 'CONFLICT')
  s.unchanged()
})

test('NO_CHANGE for a batch that changes nothing', (t) => {
  const s = setup(t)
  const err = rejects(t, () => s.hl.edit('f.txt', { operations: [{ op: 'replace', ref: s.refs[2], content: 'b' }] }), 'NO_CHANGE')
  t.regex(err.message, /No changes to apply/)
  rejects(t, () => s.hl.edit('f.txt', { oldString: 'a', newString: 'a' }), 'NO_CHANGE')
  s.unchanged()
})

test('UNSEEN_LINES for an edit on lines no view showed; the rejection shows them so the retry lands', (t) => {
  const dir = scratch(t)
  const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`)
  const file = join(dir, 'f.txt')
  writeFileSync(file, lines.join('\n') + '\n')
  const hl = new Hashline({ view: 'full', root: dir })
  hl.read('f.txt', { limit: 5 })
  const guessed = `40#${lineHash(lines[39])}#${anchorHash(lines[38], lines[39], lines[40])}`
  const err = rejects(t, () => hl.edit('f.txt', { operations: [{ op: 'delete', ref: guessed }] }), 'UNSEEN_LINES')
  t.true(err.message.includes(`>>> ${guessed}|line 40`))
  t.is(readFileSync(file, 'utf8'), lines.join('\n') + '\n')
  hl.edit('f.txt', { operations: [{ op: 'delete', ref: guessed }] })
  t.false(readFileSync(file, 'utf8').includes('line 40\n'))
})

test('NOT_FOUND for a missing file', (t) => {
  const s = setup(t)
  const err = rejects(t, () => s.hl.read('missing.txt'), 'NOT_FOUND')
  t.is(err.message, 'File missing.txt not found')
  rejects(t, () => s.hl.edit('missing.txt', { operations: [{ op: 'delete', ref: s.refs[1] }] }), 'NOT_FOUND')
})

test('NOT_A_FILE for a directory and for a FIFO', (t) => {
  const s = setup(t)
  mkdirSync(join(s.dir, 'sub'))
  const err = rejects(t, () => s.hl.read('sub'), 'NOT_A_FILE')
  t.is(err.message, 'Path is a directory, not a file: sub')
  const made = spawnSync('mkfifo', [join(s.dir, 'pipe')])
  if (made.status === 0) rejects(t, () => s.hl.read('pipe'), 'NOT_A_FILE')
})

test('NOT_UTF8 for a file that is not UTF-8, and it stays as it was', (t) => {
  const s = setup(t)
  const bytes = Buffer.from([0x61, 0x0a, 0xff, 0xfe, 0x62, 0x0a])
  writeFileSync(join(s.dir, 'latin.txt'), bytes)
  const err = rejects(t, () => s.hl.edit('latin.txt', { operations: [{ op: 'append', content: 'x' }] }), 'NOT_UTF8')
  t.regex(err.message, /line 2/)
  t.deepEqual(readFileSync(join(s.dir, 'latin.txt')), bytes)
})

test('BINARY for a file with NUL bytes', (t) => {
  const s = setup(t)
  writeFileSync(join(s.dir, 'bin.dat'), Buffer.from([1, 0, 2]))
  rejects(t, () => s.hl.read('bin.dat'), 'BINARY')
})

test('TOO_LARGE over the configured size limit', (t) => {
  const dir = scratch(t)
  writeFileSync(join(dir, 'big.txt'), 'x'.repeat(2000) + '\n')
  const hl = new Hashline({ view: 'full', root: dir, maxFileBytes: 1000 })
  const err = rejects(t, () => hl.read('big.txt'), 'TOO_LARGE')
  t.regex(err.message, /2001 bytes, over the limit of 1000 bytes/)
})

test('OUTSIDE_ROOT for .. paths, absolute paths and symlinks that leave the root', (t) => {
  const s = setup(t)
  const other = scratch(t)
  writeFileSync(join(other, 'secret.txt'), 'secret\n')
  symlinkSync(other, join(s.dir, 'escape'))
  rejects(t, () => s.hl.read('../outside.txt'), 'OUTSIDE_ROOT')
  rejects(t, () => s.hl.read(join(other, 'secret.txt')), 'OUTSIDE_ROOT')
  rejects(t, () => s.hl.edit('escape/secret.txt', { operations: [{ op: 'append', content: 'x' }] }), 'OUTSIDE_ROOT')
  t.is(readFileSync(join(other, 'secret.txt'), 'utf8'), 'secret\n')
  t.is(s.hl.read(join(other, 'secret.txt'), { allowOutsideRoot: true }).totalLines, 1)
})

test('IO for a symlink loop', (t) => {
  const s = setup(t)
  symlinkSync('loop-b', join(s.dir, 'loop-a'))
  symlinkSync('loop-a', join(s.dir, 'loop-b'))
  const err = rejects(t, () => s.hl.read('loop-a'), 'IO')
  t.regex(err.message, /symbolic links/)
})

;(cannotRestrict ? test.skip : test)(`PERMISSION when the OS refuses access${cannotRestrict ? ` (skipped: ${cannotRestrict})` : ''}`, (t) => {
  const s = setup(t)
  chmodSync(s.file, 0o000)
  chmodSync(s.dir, 0o755)
  const out = unprivileged(s.dir, 'f.txt', 'read')
  t.is(out.code, 'PERMISSION', out.message)
})

test('OLD_STRING_NOT_FOUND keeps the OpenCode text and shows the closest lines with refs', (t) => {
  const s = setup(t, 'function total(items) {\n  return items.length;\n}\n')
  const err = rejects(t, () => s.hl.edit('f.txt', { oldString: 'return item.length;', newString: 'x' }), 'OLD_STRING_NOT_FOUND')
  t.true(err.message.startsWith('Could not find oldString in the file. It must match exactly, including whitespace, indentation, and line endings.'))
  t.true(err.message.includes(`>>> ${s.refs[2]}|  return items.length;`))
  s.unchanged()
})

test('OLD_STRING_AMBIGUOUS keeps the OpenCode text and lists the matches', (t) => {
  const s = setup(t, 'x = 1\ny = 2\nx = 1\n')
  const err = rejects(t, () => s.hl.edit('f.txt', { oldString: 'x = 1', newString: 'x = 3' }), 'OLD_STRING_AMBIGUOUS')
  t.true(err.message.startsWith('Found multiple matches for oldString. Provide more surrounding context to make the match unique.'))
  t.regex(err.message, /lines 1, 3/)
  s.unchanged()
})

test('INVALID_REQUEST for malformed requests, naming the problem', (t) => {
  const s = setup(t)
  const cases = [
    [{}, /needs `operations`/],
    [{ operations: 'x' }, /must be an array/],
    [{ operations: [] }, /is empty/],
    [{ operations: [{ op: 'swap', ref: s.refs[1] }] }, /unknown op "swap"/],
    [{ operations: [{ op: 'move', ref: s.refs[1] }] }, /needs `after` or `before`/],
    [{ operations: [{ op: 'replace', ref: s.refs[1] }] }, /needs `content`/],
    [{ operations: [{ op: 'replace', ref: s.refs[1], content: 'x', extra: 1 }] }, /unknown field `extra`/],
    [{ operations: [{ op: 'replace', ref: 12, content: 'x' }] }, /must be a ref string/],
    [{ operations: [{ op: 'replace', ref: s.refs[3], through: s.refs[1], content: 'x' }] }, /comes before `ref`/],
    [{ oldString: 'a' }, /needs `newString`/],
    [null, /must be an object/],
  ]
  for (const [request, why] of cases) {
    const err = rejects(t, () => s.hl.edit('f.txt', request), 'INVALID_REQUEST')
    t.regex(err.message, why)
  }
  rejects(t, () => s.hl.read('f.txt', { offset: -1 }), 'INVALID_REQUEST')
  rejects(t, () => s.hl.read('f.txt', { limit: 1.5 }), 'INVALID_REQUEST')
  s.unchanged()
})
