// @ts-check
// What an edit keeps besides the bytes: the special mode bits, names as long
// as the file system allows, and no folders left behind by a failed edit.
import test from 'ava'
import { chmodSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { binding, refsOf as untypedRefsOf, scratch, thrown } from '../helpers.mjs'

const { Hashline } = binding

/** The refs of a view's lines, by 1-based line number. @param {string} text */
const refsOf = (text) => /** @type {Record<number, string>} */ (untypedRefsOf(text))

test('setuid, setgid and sticky bits survive an edit', (t) => {
  const dir = scratch(t)
  const hl = new Hashline({ view: 'full', root: dir })
  for (const mode of [0o4755, 0o2750, 0o1644, 0o7755]) {
    const name = `m${mode.toString(8)}.sh`
    const file = join(dir, name)
    writeFileSync(file, 'a\nb\n')
    chmodSync(file, mode)
    const refs = refsOf(hl.read(name).text)
    hl.edit(name, { operations: [{ op: 'replace', ref: refs[1], content: 'A' }] })
    t.is(readFileSync(file, 'utf8'), 'A\nb\n')
    t.is((statSync(file).mode & 0o7777).toString(8), mode.toString(8), name)
  }
})

test('a file whose name is 255 bytes long is edited and created', (t) => {
  const dir = scratch(t)
  const name = `${'n'.repeat(251)}.txt`
  const made = `${'é'.repeat(125)}.txt`
  t.is(Buffer.byteLength(made), 254)
  writeFileSync(join(dir, name), 'a\nb\n')
  const hl = new Hashline({ view: 'full', root: dir })
  const refs = refsOf(hl.read(name).text)
  hl.edit(name, { operations: [{ op: 'replace', ref: refs[2], content: 'B' }] })
  t.is(readFileSync(join(dir, name), 'utf8'), 'a\nB\n')
  hl.edit(made, { oldString: '', newString: 'new\n' })
  t.is(readFileSync(join(dir, made), 'utf8'), 'new\n')
  t.deepEqual(readdirSync(dir).sort(), [name, made].sort())
})

test('an edit that fails after creating folders removes the folders it made', (t) => {
  const dir = scratch(t)
  writeFileSync(join(dir, 'keep.txt'), 'k\n')
  const hl = new Hashline({ view: 'full', root: dir })
  const cases = [
    `made/deeper/${'x'.repeat(256)}`,
    `made/${'d'.repeat(256)}/f.txt`,
  ]
  for (const path of cases) {
    const err = /** @type {{ code?: string, message?: string }} */ (thrown(t, () => hl.edit(path, { oldString: '', newString: 'x\n' })))
    t.truthy(err?.code, path.slice(0, 20))
    t.false(existsSync(join(dir, 'made')), `no folder is left by ${path.slice(0, 20)}…`)
  }
  // A folder that existed before stays, even when the edit made folders inside it.
  hl.edit('kept/f.txt', { oldString: '', newString: 'f\n' })
  t.truthy(thrown(t, () => hl.edit(`kept/new/${'x'.repeat(256)}`, { oldString: '', newString: 'x\n' })))
  t.deepEqual(readdirSync(join(dir, 'kept')), ['f.txt'])
  t.deepEqual(readdirSync(dir).sort(), ['keep.txt', 'kept'])
})
