import test from 'ava'
import { chownSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { binding, refsOf, scratch } from '../helpers.mjs'

const { Hashline } = binding

/**
 * A file read by one session and changed by another (a line prepended), as
 * two command-line runs with one storeDir would; returns the refs of the
 * view and the stored version the edit wrote.
 */
function readThenPrepend(t, text) {
  const dir = scratch(t)
  const storeDir = join(scratch(t), 'store')
  const file = join(dir, 'f.txt')
  writeFileSync(file, text)
  const refs = refsOf(new Hashline({ view: 'full', root: dir, storeDir }).read('f.txt').text)
  const { rev } = new Hashline({ view: 'full', root: dir, storeDir }).edit('f.txt', { operations: [{ op: 'prepend', content: 'N' }] })
  const entry = join(storeDir, readdirSync(storeDir).find((name) => name.endsWith(`-${rev}.hlv`)))
  return { dir, storeDir, file, refs, entry, session: () => new Hashline({ view: 'full', root: dir, storeDir }) }
}

/** Replaces the line map stored with a version (the fourth line of its file). */
function forgeMap(entry, runs) {
  const parts = readFileSync(entry, 'utf8').split('\n')
  parts[3] = `${parts[3].split(' ')[0]} ${runs}`
  writeFileSync(entry, parts.join('\n'))
}

test('a forged line map in the store never moves an edit onto another line', (t) => {
  // Old line 6, the second `q` between `p` and `r`, is line 7 now; the lie
  // sends it onto the first, which has the same text and neighbours.
  const s = readThenPrepend(t, 'p\nq\nr\ns\np\nq\nr\n')
  forgeMap(s.entry, '5:2:1')
  s.session().edit('f.txt', { operations: [{ op: 'replace', ref: s.refs[6], content: 'Q' }] })
  t.is(readFileSync(s.file, 'utf8'), 'N\np\nq\nr\ns\np\nQ\nr\n')
})

test('a stored line map past the end is ignored with a note, never an INTERNAL error', (t) => {
  const s = readThenPrepend(t, 'a\nb\nc\n')
  forgeMap(s.entry, '0:100:3')
  const result = s.session().edit('f.txt', { operations: [{ op: 'replace', ref: s.refs[2], content: 'B' }] })
  t.is(readFileSync(s.file, 'utf8'), 'N\na\nB\nc\n')
  t.regex(result.output, /a stored version of this file was damaged and was ignored/)
})

test('a new store folder is private and so are its versions', (t) => {
  if (process.platform === 'win32') return t.pass()
  const s = readThenPrepend(t, 'a\n')
  t.is(statSync(s.storeDir).mode & 0o777, 0o700)
  for (const name of readdirSync(s.storeDir)) t.is(statSync(join(s.storeDir, name)).mode & 0o777, 0o600, name)
})

test('a stored version another user owns is not used', (t) => {
  if (process.getuid?.() !== 0) return t.pass('only root can give a file to another user')
  const s = readThenPrepend(t, 'a\nb\nc\n')
  for (const name of readdirSync(s.storeDir)) chownSync(join(s.storeDir, name), 65534, 65534)
  const request = { operations: [{ op: 'replace', ref: s.refs[2], content: 'B' }] }
  t.is(t.throws(() => s.session().edit('f.txt', request)).code, 'HASH_MISMATCH')
  t.is(readFileSync(s.file, 'utf8'), 'N\na\nb\nc\n')
})
