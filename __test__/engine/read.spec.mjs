import test from 'ava'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { binding, refsOf, scratch } from '../helpers.mjs'

const { Hashline, lineHash, anchorHash, rev } = binding

test('read shows a header with path, REV, range and total, then one tagged line per file line', (t) => {
  const dir = scratch(t)
  writeFileSync(join(dir, 'a.ts'), 'const a = 1;\n\nexport { a };\n')
  const view = new Hashline({ view: 'full', root: dir }).read('a.ts')
  t.is(view.path, 'a.ts')
  t.is(view.rev, rev('const a = 1;\n\nexport { a };\n'))
  t.deepEqual([view.totalLines, view.startLine, view.endLine], [3, 1, 3])
  const lines = view.text.trimEnd().split('\n')
  t.is(lines[0], `a.ts REV:${view.rev} lines 1-3 of 3`)
  t.is(lines[2], `2#${lineHash('')}#${anchorHash('const a = 1;', '', 'export { a };')}|`)
  t.is(lines.length, 4)
})

test('read with offset and limit shows that window and says how to read on', (t) => {
  const dir = scratch(t)
  writeFileSync(join(dir, 'n.txt'), Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n') + '\n')
  const view = new Hashline({ view: 'full', root: dir }).read('n.txt', { offset: 11, limit: 5 })
  t.deepEqual([view.startLine, view.endLine, view.totalLines], [11, 15, 50])
  t.deepEqual(Object.keys(refsOf(view.text)).map(Number), [11, 12, 13, 14, 15])
  t.true(view.text.endsWith('(Showing lines 11-15 of 50. Read on with offset=16.)\n'))
})

test('read cuts lines over 2000 characters in the view while the ref hashes the whole line', (t) => {
  const dir = scratch(t)
  const long = 'x'.repeat(2500)
  writeFileSync(join(dir, 'long.txt'), `${long}\nshort\n`)
  const view = new Hashline({ view: 'full', root: dir }).read('long.txt')
  const line = view.text.split('\n')[1]
  t.true(line.startsWith(`1#${lineHash(long)}#${anchorHash(null, long, 'short')}|${'x'.repeat(2000)}…`))
  t.regex(line, /line cut at 2000 of 2500 characters/)
})

test('read handles emoji and CJK content: refs hash the UTF-8 text', (t) => {
  const dir = scratch(t)
  writeFileSync(join(dir, 'u.md'), '# 标题 🎉\n日本語のテキスト\n')
  const view = new Hashline({ view: 'full', root: dir }).read('u.md')
  t.true(view.text.includes(`1#${lineHash('# 标题 🎉')}#${anchorHash(null, '# 标题 🎉', '日本語のテキスト')}|# 标题 🎉`))
})

test('read of a 100 000-line file returns every line with its ref', (t) => {
  const dir = scratch(t)
  const lines = Array.from({ length: 100_000 }, (_, i) => (i % 10 === 0 ? '' : `  value_${i} = compute(${i});`))
  writeFileSync(join(dir, 'big.py'), lines.join('\n') + '\n')
  const view = new Hashline({ view: 'full', root: dir }).read('big.py', { limit: 100_000 })
  t.is(view.totalLines, 100_000)
  const out = view.text.split('\n')
  t.is(out.length, 100_002)
  t.is(out[100_000], `100000#${lineHash(lines[99_999])}#${anchorHash(lines[99_998], lines[99_999], null)}|${lines[99_999]}`)
})

test('read shows CRLF and BOM files without BOM or CR, with the REV of the canonical text', (t) => {
  const dir = scratch(t)
  writeFileSync(join(dir, 'w.txt'), '\uFEFFa\r\nb\r\n')
  const view = new Hashline({ view: 'full', root: dir }).read('w.txt')
  t.is(view.rev, rev('a\nb\n'))
  t.true(view.text.includes(`|a\n`))
  t.false(view.text.includes('\r'))
  t.false(view.text.includes('\uFEFF'))
})

test('tag gives refs for lines another viewer showed, and null where the text is not the file line', (t) => {
  const dir = scratch(t)
  writeFileSync(join(dir, 'f.txt'), 'alpha\nbeta\ngamma\n')
  const tagged = new Hashline({ view: 'full', root: dir }).tag('f.txt', [
    { line: 1, text: 'alpha' },
    { line: 2, text: 'BETA' },
    { line: 3, text: 'gam', truncated: true },
    { line: 9, text: 'x' },
  ])
  t.is(tagged.rev, rev('alpha\nbeta\ngamma\n'))
  t.is(tagged.totalLines, 3)
  t.deepEqual(tagged.refs, [
    `1#${lineHash('alpha')}#${anchorHash(null, 'alpha', 'beta')}`,
    null,
    `3#${lineHash('gamma')}#${anchorHash('beta', 'gamma', null)}`,
    null,
  ])
})
