import test from 'ava'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { binding, refsOf, scratch } from '../helpers.mjs'

const { Hashline, lineHash } = binding

/** A session that has read `text` from f.txt; `refs` are that first view's. */
function firstRead(t, text) {
  const dir = scratch(t)
  const file = join(dir, 'f.txt')
  writeFileSync(file, text)
  const hl = new Hashline({ view: 'full', root: dir })
  const view = hl.read('f.txt')
  return { dir, file, hl, view, refs: refsOf(view.text), bytes: () => readFileSync(file, 'utf8') }
}

const edit = (s, ...operations) => s.hl.edit('f.txt', { operations })

test('after lines are inserted above, an old ref lands on the line it named', (t) => {
  const s = firstRead(t, 'a\nb\nc\n')
  edit(s, { op: 'prepend', content: 'p1\np2' })
  const result = edit(s, { op: 'replace', ref: s.refs[2], content: 'B' })
  t.is(s.bytes(), 'p1\np2\na\nB\nc\n')
  t.regex(result.output, new RegExp(`refs were from REV ${s.view.rev}`))
})

test('after lines are deleted above, an old ref lands on the line it named', (t) => {
  const s = firstRead(t, 'a\nb\nc\nd\n')
  edit(s, { op: 'delete', ref: s.refs[1], through: s.refs[2] })
  edit(s, { op: 'insert_after', ref: s.refs[4], content: 'e' })
  t.is(s.bytes(), 'c\nd\ne\n')
})

test('an old ref to a line that was itself edited is rejected with the line as it is now', (t) => {
  const s = firstRead(t, 'a\nb\nc\n')
  edit(s, { op: 'replace', ref: s.refs[2], content: 'changed' })
  const err = t.throws(() => edit(s, { op: 'delete', ref: s.refs[2] }))
  t.is(err.code, 'HASH_MISMATCH')
  t.regex(err.message, />>> 2#[0-9A-F]{3}#[0-9A-F]{3}\|changed/)
  t.is(s.bytes(), 'a\nchanged\nc\n')
})

test('an old ref next to an edited line still lands: its own line is unchanged', (t) => {
  const s = firstRead(t, 'a\nb\nc\n')
  edit(s, { op: 'replace', ref: s.refs[2], content: 'B1\nB2' })
  edit(s, { op: 'replace', ref: s.refs[3], content: 'C' })
  edit(s, { op: 'replace', ref: s.refs[1], content: 'A' })
  t.is(s.bytes(), 'A\nB1\nB2\nC\n')
})

test('after an outside change shifts lines, an old ref lands through a diff of the stored version', (t) => {
  const s = firstRead(t, 'one\ntwo\nthree\n')
  writeFileSync(s.file, 'header\none\ntwo\nthree\n')
  edit(s, { op: 'replace', ref: s.refs[3], content: 'THREE' })
  t.is(s.bytes(), 'header\none\ntwo\nTHREE\n')
})

test('after an outside change alters the named line, the old ref is rejected and nothing is written', (t) => {
  const s = firstRead(t, 'one\ntwo\nthree\n')
  writeFileSync(s.file, 'one\nTWO!\nthree\n')
  const err = t.throws(() => edit(s, { op: 'delete', ref: s.refs[2] }))
  t.is(err.code, 'HASH_MISMATCH')
  t.is(s.bytes(), 'one\nTWO!\nthree\n')
})

test('a range with a line inserted inside it since the read is rejected, not stretched', (t) => {
  const s = firstRead(t, 'a\nb\nc\nd\n')
  edit(s, { op: 'insert_after', ref: s.refs[2], content: 'new' })
  const err = t.throws(() => edit(s, { op: 'delete', ref: s.refs[1], through: s.refs[3] }))
  t.is(err.code, 'HASH_MISMATCH')
  t.regex(err.message, /changed since then/)
  t.is(s.bytes(), 'a\nb\nnew\nc\nd\n')
})

test('among identical lines, an edit made here keeps every old ref on its own line', (t) => {
  const s = firstRead(t, '{\n}\n}\n}\nend\n')
  edit(s, { op: 'insert_after', ref: s.refs[1], content: '}' })
  edit(s, { op: 'replace', ref: s.refs[4], content: '} // last' })
  t.is(s.bytes(), '{\n}\n}\n}\n} // last\nend\n')
})

test('a ref string that names different lines in the read and in the edit result is rejected until rev says which', (t) => {
  // After the insert, line 3 of the new version looks exactly like line 3 of
  // the read (a `}` between two `}`), but the read's line 3 is now line 4.
  const s = firstRead(t, '{\n}\n}\n}\n')
  edit(s, { op: 'insert_after', ref: s.refs[1], content: '}' })
  const err = t.throws(() => edit(s, { op: 'replace', ref: s.refs[3], content: '} // third' }))
  t.is(err.code, 'HASH_MISMATCH')
  t.regex(err.message, /pass `rev`/)
  t.is(s.bytes(), '{\n}\n}\n}\n}\n')
  s.hl.edit('f.txt', { rev: s.view.rev, operations: [{ op: 'replace', ref: s.refs[3], content: '} // third' }] })
  t.is(s.bytes(), '{\n}\n}\n} // third\n}\n')
})

test('among identical lines, an outside insert that could be any of them makes the old refs rejected, never misplaced', (t) => {
  const s = firstRead(t, 'x\n}\n}\n}\ny\n')
  writeFileSync(s.file, 'x\n}\n}\n}\n}\ny\n')
  const err = t.throws(() => edit(s, { op: 'replace', ref: s.refs[3], content: '} // mid' }))
  t.is(err.code, 'HASH_MISMATCH')
  t.is(s.bytes(), 'x\n}\n}\n}\n}\ny\n')
  edit(s, { op: 'replace', ref: s.refs[5], content: 'Y' })
  t.is(s.bytes(), 'x\n}\n}\n}\n}\nY\n')
})

test('several edits in a row all use refs from the first read', (t) => {
  const text = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'
  const s = firstRead(t, text)
  edit(s, { op: 'insert_before', ref: s.refs[5], content: 'before 5' })
  edit(s, { op: 'delete', ref: s.refs[10], through: s.refs[12] })
  edit(s, { op: 'replace', ref: s.refs[20], content: 'twenty' })
  edit(s, { op: 'insert_after', ref: s.refs[30], content: 'after 30' })
  const want = text.split('\n').slice(0, 30)
  want.splice(29, 1, 'line 30', 'after 30')
  want.splice(19, 1, 'twenty')
  want.splice(9, 3)
  want.splice(4, 0, 'before 5')
  t.is(s.bytes(), want.join('\n') + '\n')
})

test('rev names the version the refs were copied from', (t) => {
  const s = firstRead(t, 'a\nb\nc\n')
  edit(s, { op: 'prepend', content: 'top' })
  s.hl.edit('f.txt', { rev: s.view.rev, operations: [{ op: 'delete', ref: s.refs[3] }] })
  t.is(s.bytes(), 'top\na\nb\n')
})

test('a ref without ANCHOR on a repeated line is rejected without a stored version, accepted with one', (t) => {
  const dir = scratch(t)
  writeFileSync(join(dir, 'f.txt'), '}\nx\n}\n')
  const bare = `3#${lineHash('}')}`
  const fresh = new Hashline({ view: 'full', root: dir })
  const err = t.throws(() => fresh.edit('f.txt', { operations: [{ op: 'replace', ref: bare, content: '};' }] }))
  t.is(err.code, 'HASH_MISMATCH')
  t.regex(err.message, /without ANCHOR/)
  fresh.read('f.txt')
  fresh.edit('f.txt', { operations: [{ op: 'replace', ref: bare, content: '};' }] })
  t.is(readFileSync(join(dir, 'f.txt'), 'utf8'), '}\nx\n};\n')
})

test('a ref without ANCHOR on a unique line is accepted', (t) => {
  const dir = scratch(t)
  writeFileSync(join(dir, 'f.txt'), 'a\nb\n')
  new Hashline({ view: 'full', root: dir }).edit('f.txt', { operations: [{ op: 'delete', ref: `2#${lineHash('b')}` }] })
  t.is(readFileSync(join(dir, 'f.txt'), 'utf8'), 'a\n')
})

test('a rev that is not 8 hex digits is refused; an unknown one is said to be unknown', (t) => {
  const s = firstRead(t, 'a\nb\n')
  const err = t.throws(() => s.hl.edit('f.txt', { rev: 'nonsense', operations: [{ op: 'delete', ref: s.refs[1] }] }))
  t.is(err.code, 'INVALID_REQUEST')
  t.is(s.bytes(), 'a\nb\n')
  const result = s.hl.edit('f.txt', { rev: 'REV:0000abcd', operations: [{ op: 'delete', ref: s.refs[1] }] })
  t.regex(result.output, /REV 0000ABCD is not a version known here; the refs were checked against the current text/)
  t.is(s.bytes(), 'b\n')
})
