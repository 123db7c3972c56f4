import test from 'ava'
import { chmodSync, linkSync, lstatSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { binding, refsOf, scratch } from '../helpers.mjs'

const { Hashline } = binding

/** A session on a scratch folder holding `name` with `bytes`, and the refs of its view. */
function setup(t, bytes, name = 'f.txt') {
  const dir = scratch(t)
  const file = join(dir, name)
  writeFileSync(file, bytes)
  const hl = new Hashline({ view: 'full', root: dir })
  const view = hl.read(name)
  return { dir, file, hl, view, refs: refsOf(view.text), read: () => readFileSync(file) }
}

const ops = {
  replace: ['a\nb\nc\nd\n', (r) => ({ op: 'replace', ref: r[2], through: r[3], content: 'X\nY\nZ' }), 'a\nX\nY\nZ\nd\n'],
  delete: ['a\nb\nc\nd\n', (r) => ({ op: 'delete', ref: r[2], through: r[3] }), 'a\nd\n'],
  insert_before: ['a\nb\n', (r) => ({ op: 'insert_before', ref: r[2], content: 'new' }), 'a\nnew\nb\n'],
  insert_after: ['a\nb\n', (r) => ({ op: 'insert_after', ref: r[2], content: ['n1', 'n2'] }), 'a\nb\nn1\nn2\n'],
  prepend: ['a\nb\n', () => ({ op: 'prepend', content: '#!/bin/sh\n' }), '#!/bin/sh\na\nb\n'],
  append: ['a\nb\n', () => ({ op: 'append', content: 'end' }), 'a\nb\nend\n'],
}
for (const [name, [before, op, after]] of Object.entries(ops)) {
  test(`${name} writes exactly the expected bytes`, (t) => {
    const s = setup(t, before)
    const result = s.hl.edit('f.txt', { operations: [op(s.refs)] })
    t.is(s.read().toString(), after)
    t.is(result.path, 'f.txt')
    t.is(result.previousRev, s.view.rev)
    t.not(result.rev, s.view.rev)
  })
}

test('a batch applies every operation against the version read, bottom-up, in one write', (t) => {
  const s = setup(t, '1\n2\n3\n4\n5\n')
  const r = s.refs
  const result = s.hl.edit('f.txt', {
    operations: [
      { op: 'delete', ref: r[1] },
      { op: 'replace', ref: r[3], content: 'three' },
      { op: 'insert_after', ref: r[5], content: '6' },
    ],
  })
  t.is(s.read().toString(), '2\nthree\n4\n5\n6\n')
  t.regex(result.output, /^Applied 3 operations to f\.txt\. REV [0-9A-F]{8} -> [0-9A-F]{8} \(\+2 -2\)/)
})

const envelopes = {
  'CRLF': ['a\r\nb\r\nc\r\n', 'a\r\nB\r\nB2\r\nc\r\n'],
  'BOM and CRLF': ['\uFEFFa\r\nb\r\nc\r\n', '\uFEFFa\r\nB\r\nB2\r\nc\r\n'],
  'mixed endings': ['a\r\nb\nc\rd\n', 'a\r\nB\nB2\nc\rd\n'],
  'no final newline': ['a\nb\nc', 'a\nB\nB2\nc'],
  'lone CR': ['a\rb\rc\r', 'a\rB\rB2\rc\r'],
}
for (const [name, [before, after]] of Object.entries(envelopes)) {
  test(`an edit of a file with ${name} changes only the named line, byte for byte`, (t) => {
    const s = setup(t, before)
    s.hl.edit('f.txt', { operations: [{ op: 'replace', ref: s.refs[2], content: 'B\nB2' }] })
    t.deepEqual(s.read(), Buffer.from(after))
  })
}

test('appending to a file without a final newline keeps it without one', (t) => {
  const s = setup(t, 'a\r\nb')
  s.hl.edit('f.txt', { operations: [{ op: 'append', content: 'c' }] })
  t.deepEqual(s.read(), Buffer.from('a\r\nb\r\nc'))
})

test('emoji and CJK content is written as UTF-8 exactly', (t) => {
  const s = setup(t, 'const s = "hi";\n')
  s.hl.edit('f.txt', { operations: [{ op: 'replace', ref: s.refs[1], content: 'const s = "你好 👋🏽";' }] })
  t.is(s.read().toString('utf8'), 'const s = "你好 👋🏽";\n')
})

test('the result gives fresh refs for the changed region, the removed lines and shift hints', (t) => {
  const s = setup(t, 'a\nb\nc\nd\ne\n')
  const result = s.hl.edit('f.txt', { operations: [{ op: 'replace', ref: s.refs[2], content: 'B\nB2' }] })
  const after = s.hl.read('f.txt')
  const fresh = refsOf(after.text)
  t.true(result.output.includes(`\n ${fresh[1]}|a\n-|b\n+${fresh[2]}|B\n+${fresh[3]}|B2\n ${fresh[4]}|c\n`))
  t.regex(result.output, /Lines moved: old 3-5 are now 4-6 \(\+1\)\./)
  t.is(result.rev, after.rev)
  t.is(result.diff, '--- a/f.txt\n+++ b/f.txt\n@@ -1,5 +1,6 @@\n a\n-b\n+B\n+B2\n c\n d\n e\n')
  t.deepEqual([result.additions, result.deletions], [2, 1])
})

test('append and prepend create a missing file and its parent folders', (t) => {
  const dir = scratch(t)
  const hl = new Hashline({ view: 'full', root: dir })
  const result = hl.edit('new/deep/file.md', { operations: [{ op: 'append', content: '# Title\n' }] })
  t.is(readFileSync(join(dir, 'new/deep/file.md'), 'utf8'), '# Title\n')
  t.regex(result.output, /^Created new\/deep\/file\.md with 1 operation/)
})

test('an edit keeps the file mode', (t) => {
  const s = setup(t, '#!/bin/sh\necho hi\n', 'run.sh')
  chmodSync(s.file, 0o751)
  s.hl.edit('run.sh', { operations: [{ op: 'replace', ref: s.refs[2], content: 'echo bye' }] })
  t.is(statSync(s.file).mode & 0o777, 0o751)
})

test('plan writes nothing; commit writes the planned bytes', (t) => {
  const s = setup(t, 'a\nb\n')
  const plan = s.hl.plan('f.txt', { operations: [{ op: 'replace', ref: s.refs[1], content: 'A' }] })
  t.is(s.read().toString(), 'a\nb\n')
  t.is(plan.diff, '--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n')
  t.deepEqual([plan.additions, plan.deletions, plan.previousRev], [1, 1, s.view.rev])
  const result = s.hl.commit(plan)
  t.is(s.read().toString(), 'A\nb\n')
  t.is(result.rev, plan.rev)
  t.is(result.output, plan.output)
})

test('commit refuses with BASE_CHANGED when the file changed after the plan, and leaves it as it is', (t) => {
  const s = setup(t, 'a\nb\n')
  const plan = s.hl.plan('f.txt', { operations: [{ op: 'replace', ref: s.refs[1], content: 'A' }] })
  writeFileSync(s.file, 'a\nb\nexternal\n')
  const err = t.throws(() => s.hl.commit(plan))
  t.is(err.code, 'BASE_CHANGED')
  t.regex(err.message, /nothing written/)
  t.is(s.read().toString(), 'a\nb\nexternal\n')
})

test('a plan cannot be committed twice', (t) => {
  const s = setup(t, 'a\nb\n')
  const plan = s.hl.plan('f.txt', { operations: [{ op: 'delete', ref: s.refs[2] }] })
  s.hl.commit(plan)
  t.is(t.throws(() => s.hl.commit(plan)).code, 'BASE_CHANGED')
  t.is(s.read().toString(), 'a\n')
})

test('a second edit with refs from the first view lands on the right lines after the first shifted them', (t) => {
  const s = setup(t, 'head\n}\nbody\n}\ntail\n')
  s.hl.edit('f.txt', { operations: [{ op: 'insert_after', ref: s.refs[1], content: 'added 1\nadded 2' }] })
  const result = s.hl.edit('f.txt', { operations: [{ op: 'replace', ref: s.refs[4], content: '} // end' }] })
  t.is(s.read().toString(), 'head\nadded 1\nadded 2\n}\nbody\n} // end\ntail\n')
  t.regex(result.output, /refs were from REV/)
})

test('echoed view prefixes that name the lines a read showed are stripped and reported', (t) => {
  const s = setup(t, 'a\nb\n')
  const result = s.hl.edit('f.txt', { operations: [{ op: 'replace', ref: s.refs[2], content: `${s.refs[2]}|B\n${s.refs[2]}|C` }] })
  t.is(s.read().toString(), 'a\nB\nC\n')
  t.regex(result.output, /Note: operation 1: removed the view prefixes/)
})

test('a made-up view prefix beside one that names a shown line is refused, nothing removed', (t) => {
  const s = setup(t, 'a\nb\n')
  const err = t.throws(() => s.hl.edit('f.txt', { operations: [{ op: 'replace', ref: s.refs[2], content: `${s.refs[2]}|B\n3#ABC#DEF|C` }] }))
  t.is(/** @type {any} */ (err).code, 'AMBIGUOUS_ECHO')
  t.regex(String(err?.message), /line 2: "3#ABC#DEF\|" has the shape of a view's ref where it stands, though no view showed that line/)
  t.is(s.read().toString(), 'a\nb\n')
})

test('content that repeats the lines around the range is trimmed where only that parses, and reported', (t) => {
  // A struct cannot hold a struct: only the reading without both repeats parses.
  const s = setup(t, 'struct S {\n    a: u8,\n}\n', 'f.rs')
  const result = s.hl.edit('f.rs', { operations: [{ op: 'replace', ref: s.refs[2], content: 'struct S {\n    b: u8,\n}' }] })
  t.is(s.read().toString(), 'struct S {\n    b: u8,\n}\n')
  t.regex(result.output, /dropped its first content line, a copy of line 1 just before it \(only without it does the file parse\), and its last content line, a copy of line 3/)
})

test('cleanup: false leaves content exactly as sent', (t) => {
  const dir = scratch(t)
  writeFileSync(join(dir, 'f.txt'), 'a\nb\n')
  const hl = new Hashline({ view: 'full', root: dir, cleanup: false })
  const refs = refsOf(hl.read('f.txt').text)
  hl.edit('f.txt', { operations: [{ op: 'replace', ref: refs[2], content: '1#ABC#DEF|x' }] })
  t.is(readFileSync(join(dir, 'f.txt'), 'utf8'), 'a\n1#ABC#DEF|x\n')
})

test('aliases from other tools are accepted: start/end/lines and camelCase ops', (t) => {
  const s = setup(t, 'a\nb\nc\n')
  s.hl.edit('f.txt', { operations: [{ op: 'replace', start: s.refs[1], end: s.refs[2], lines: ['x'] }, { op: 'insertAfter', pos: s.refs[3], new_string: 'd' }] })
  t.is(s.read().toString(), 'x\nc\nd\n')
})

test('the oldString/newString fallback replaces a unique exact match', (t) => {
  const s = setup(t, 'let a = 1;\nlet b = 2;\n')
  const result = s.hl.edit('f.txt', { oldString: 'b = 2', newString: 'b = 3' })
  t.is(s.read().toString(), 'let a = 1;\nlet b = 3;\n')
  t.regex(result.output, /^Replaced 1 match in f\.txt/)
})

test('the fallback with replaceAll is literal: $& stays $&', (t) => {
  const s = setup(t, 'x x\nx\n')
  s.hl.edit('f.txt', { oldString: 'x', newString: '$&-$1', replaceAll: true })
  t.is(s.read().toString(), '$&-$1 $&-$1\n$&-$1\n')
})

test('the fallback with an empty oldString creates a missing file with exactly newString', (t) => {
  const dir = scratch(t)
  const hl = new Hashline({ view: 'full', root: dir })
  hl.edit('n.txt', { oldString: '', newString: 'line one\nline two' })
  t.is(readFileSync(join(dir, 'n.txt'), 'utf8'), 'line one\nline two')
})

test('the fallback keeps CRLF endings of the lines around the match', (t) => {
  const s = setup(t, 'a\r\nb\r\nc\r\n')
  s.hl.edit('f.txt', { oldString: 'b', newString: 'B1\nB2' })
  t.deepEqual(s.read(), Buffer.from('a\r\nB1\r\nB2\r\nc\r\n'))
})

test('edits follow a symlink inside the root and keep the link', (t) => {
  const s = setup(t, 'a\n', 'real.txt')
  symlinkSync('real.txt', join(s.dir, 'link.txt'))
  const refs = refsOf(s.hl.read('link.txt').text)
  s.hl.edit('link.txt', { operations: [{ op: 'append', content: 'b' }] })
  t.true(lstatSync(join(s.dir, 'link.txt')).isSymbolicLink())
  t.is(s.read().toString(), 'a\nb\n')
  t.truthy(refs[1])
  t.deepEqual(readdirSync(s.dir).sort(), ['link.txt', 'real.txt'])
})

test('with storeDir, a new session remaps refs from a view an earlier session showed', (t) => {
  const dir = scratch(t)
  const storeDir = join(scratch(t), 'store')
  const file = join(dir, 'f.txt')
  writeFileSync(file, 'one\ntwo\nthree\n')
  const first = new Hashline({ view: 'full', root: dir, storeDir })
  const refs = refsOf(first.read('f.txt').text)
  first.edit('f.txt', { operations: [{ op: 'prepend', content: 'zero' }] })

  const withoutStore = new Hashline({ view: 'full', root: dir })
  t.is(t.throws(() => withoutStore.edit('f.txt', { operations: [{ op: 'replace', ref: refs[3], content: 'THREE' }] })).code, 'HASH_MISMATCH')

  const later = new Hashline({ view: 'full', root: dir, storeDir })
  later.edit('f.txt', { operations: [{ op: 'replace', ref: refs[3], content: 'THREE' }] })
  t.is(readFileSync(file, 'utf8'), 'zero\none\ntwo\nTHREE\n')
})

test('prepend and append on a missing file create it in the only order there is, whatever the order of the batch', (t) => {
  const dir = scratch(t)
  const hl = new Hashline({ root: dir })
  hl.edit('new.txt', { operations: [{ op: 'append', content: 'last' }, { op: 'prepend', content: 'first' }] })
  t.is(readFileSync(join(dir, 'new.txt'), 'utf8'), 'first\nlast\n')
  const err = t.throws(() => hl.edit('other.txt', { operations: [{ op: 'prepend', content: 'a' }, { op: 'prepend', content: 'b' }] }))
  t.is(err?.code, 'CONFLICT')
})

test('an edit of a file with hard links says that its other names keep the old version', (t) => {
  const s = setup(t, 'a\nb\n')
  const other = join(s.dir, 'other.txt')
  linkSync(s.file, other)
  const result = s.hl.edit('f.txt', { operations: [{ op: 'append', content: 'c' }] })
  t.is(s.read().toString(), 'a\nb\nc\n')
  t.is(readFileSync(other, 'utf8'), 'a\nb\n')
  t.regex(result.output, /^Note: f\.txt is one of 2 names of the same file \(hard links\)\. The edit gave this name a new file, as every write here does, so the other name still holds the old version\.$/m)
  const single = s.hl.edit('f.txt', { operations: [{ op: 'append', content: 'd' }] })
  t.notRegex(single.output, /hard links/)
})

test('every result names its headline, the first sentence of its output: an edit, a batch, a patch, an edit of text, a file a formatter rewrote', (t) => {
  const s = setup(t, 'a\nb\n')
  /** The output's first line is the headline, then the REVs and the counts. */
  const heads = (result) => t.true(result.output.startsWith(`${result.headline}. REV ${result.previousRev || '00000000'} -> ${result.rev} (`), `${result.headline} / ${result.output}`)
  const edited = s.hl.edit('f.txt', { operations: [{ op: 'replace', ref: s.refs[2], content: 'B' }] })
  t.is(edited.headline, 'Applied 1 operation to f.txt')
  heads(edited)
  const batch = s.hl.applyBatch([{ filePath: 'f.txt', operations: [{ op: 'append', content: 'c' }] }, { filePath: 'g.txt', operations: [{ op: 'append', content: 'g' }] }])
  for (const file of batch.files) heads(file)
  const patched = s.hl.commitPatch(s.hl.planPatch('*** Begin Patch\n*** Update File: f.txt\n@@\n a\n-B\n+b\n*** Delete File: g.txt\n*** End Patch'))
  t.is(patched.files[0].headline, 'Patched f.txt with 1 hunk')
  t.true(patched.files[0].output.startsWith(`${patched.files[0].headline}. REV ${patched.files[0].previousRev} -> ${patched.files[0].rev} (`))
  t.is(patched.files[1].headline, undefined)
  const text = binding.applyEdits('x\n', { operations: [{ op: 'append', content: 'y' }] })
  t.true(text.output.startsWith(`${text.headline}. REV ${text.previousRev} -> ${text.rev} (`), text.output)
  writeFileSync(s.file, 'a\nb\nc\nformatted\n')
  const reformatted = s.hl.reformatted('f.txt', patched.files[0].rev, { headline: `${patched.files[0].headline}, then formatted it` })
  t.is(reformatted.headline, 'Patched f.txt with 1 hunk, then formatted it')
  heads(reformatted)
})
