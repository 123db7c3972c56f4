// @ts-check
// Only the engine's own dead temporary files are removed: a file whose name
// merely looks like one is a file like any other.
import test from 'ava'
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { binding, refsOf as untypedRefsOf, scratch } from '../helpers.mjs'

const { Hashline } = binding

/** The refs of a view's lines, by 1-based line number. @param {string} text */
const refsOf = (text) => /** @type {Record<number, string>} */ (untypedRefsOf(text))

test('a file named like a temporary file is read and edited like any other', (t) => {
  const dir = scratch(t)
  for (const name of ['.env.hashline-tmp', '.f.txt.a1b2c3.hashline-tmp', 'notes.hashline-tmp']) {
    writeFileSync(join(dir, name), 'a\nb\n')
    const hl = new Hashline({ view: 'full', root: dir })
    const refs = refsOf(hl.read(name).text)
    const result = hl.edit(name, { operations: [{ op: 'replace', ref: refs[1], content: 'A' }] })
    t.is(result.path, name)
    t.is(readFileSync(join(dir, name), 'utf8'), 'A\nb\n', name)
  }
})

test('an edit leaves alone the files of its folder that look like temporary files', (t) => {
  const dir = scratch(t)
  const lookalikes = {
    '.env.hashline-tmp': 'API_KEY=1\n',
    '.f.txt.XyZ123.hashline-tmp': 'kept\n',
    '.hashline-tmp': 'kept too\n',
    '.abcdefghijklmnopqrstuvwx.hashline-tmp.bak': 'a backup\n',
  }
  for (const [name, text] of Object.entries(lookalikes)) writeFileSync(join(dir, name), text)
  writeFileSync(join(dir, 'f.txt'), 'a\n')
  const hl = new Hashline({ view: 'full', root: dir })
  hl.edit('f.txt', { operations: [{ op: 'append', content: 'b' }] })
  hl.edit('new.txt', { oldString: '', newString: 'new\n' })
  for (const [name, text] of Object.entries(lookalikes)) t.is(readFileSync(join(dir, name), 'utf8'), text, name)
  t.deepEqual(readdirSync(dir).sort(), [...Object.keys(lookalikes), 'f.txt', 'new.txt'].sort())
})
