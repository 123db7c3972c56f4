// @ts-check
// Clean-up of what models paste (docs/format.md §7, "Nothing is written on a guess"):
// echoed view prefixes and echoed neighbour lines are removed only where the
// engine proves them copies of what it showed, every removal is reported,
// `cleanup: false` and `literal: true` turn it off, a repeat nothing proves
// is refused with AMBIGUOUS_ECHO, and text that merely resembles an echo
// (Markdown, diffs, CSV, `#` comments) is written as given.
import test from 'ava'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { binding, refsOf as untypedRefsOf, scratch } from '../helpers.mjs'

const { Hashline } = binding

/** The refs of a view's lines, by 1-based line number. @param {string} text */
const refsOf = (text) => /** @type {Record<number, string>} */ (untypedRefsOf(text))

/**
 * Edits `name` (holding `text`) with the operations `build` makes from the
 * refs of a fresh view; returns the file's new text and the result output.
 * @param {import('ava').ExecutionContext} t
 * @param {string} text
 * @param {(r: Record<number, string>) => unknown[]} build
 * @param {{ cleanup?: boolean, name?: string, literal?: boolean }} [options]
 */
function edit(t, text, build, options = {}) {
  const { name = 'f.txt', literal, ...engine } = options
  const dir = scratch(t)
  const file = join(dir, name)
  writeFileSync(file, text)
  const hl = new Hashline({ view: 'full', root: dir, ...engine })
  const refs = refsOf(hl.read(name).text)
  const result = hl.edit(name, { operations: build(refs), ...(literal ? { literal } : {}) })
  return { text: readFileSync(file, 'utf8'), output: result.output, refs }
}

/** The notes of a result output. @param {string} output */
const notes = (output) => output.split('\n').filter((l) => l.startsWith('Note: '))

/**
 * @typedef {{
 *   text: string,
 *   name?: string,
 *   ops: (r: Record<number, string>) => unknown[],
 *   cleaned: string,
 *   raw: string,
 *   note: RegExp,
 * }} Cleanup
 */

/** @type {Record<string, Cleanup>} */
const cleanups = {
  'view prefixes copied into content': {
    text: 'a\nb\nc\n',
    ops: (r) => [{ op: 'replace', ref: r[2], content: `${r[2]}|B\n\n${r[3]}|C2` }],
    cleaned: 'a\nB\n\nC2\nc\n',
    raw: 'a\nREF2|B\n\nREF3|C2\nc\n',
    note: /^Note: operation 1: removed the view prefixes \(LINEab or LINE#HASH#ANCHOR\|\) copied into its content; they name lines the views showed\.$/,
  },
  'view prefixes as an edit result shows them (+, >>> and context markers)': {
    text: 'a\nb\nc\n',
    ops: (r) => [{ op: 'replace', ref: r[2], content: [`+${r[2]}|B`, `>>> ${r[3]}|C2`, ` ${r[1]}|A2`] }],
    cleaned: 'a\nB\nC2\nA2\nc\n',
    raw: 'a\n+REF2|B\n>>> REF3|C2\n REF1|A2\nc\n',
    note: /removed the view prefixes/,
  },
  'a view prefix on some lines only, proven a copy': {
    text: 'a\nb\n',
    ops: (r) => [{ op: 'replace', ref: r[2], content: `${r[2]}|b\nplain line` }],
    cleaned: 'a\nb\nplain line\n',
    raw: 'a\nREF2|b\nplain line\n',
    note: /removed the view prefixes/,
  },
  'a replace that repeats the line before it, which only its absence lets parse': {
    name: 'f.rs',
    text: 'fn a() {\n  old();\n}\n',
    ops: (r) => [{ op: 'replace', ref: r[2], content: 'fn a() {\n  new();' }],
    cleaned: 'fn a() {\n  new();\n}\n',
    raw: 'fn a() {\nfn a() {\n  new();\n}\n',
    note: /^Note: operation 1 \(replace\): dropped its first content line, a copy of line 1 just before it \(only without it does the file parse\); the file's own line stays as it was\.$/,
  },
  'a replace that repeats the line after it, which only its absence lets parse': {
    name: 'f.rs',
    text: 'fn a() {\n  old();\n}\n',
    ops: (r) => [{ op: 'replace', ref: r[2], content: '  new();\n}' }],
    cleaned: 'fn a() {\n  new();\n}\n',
    raw: 'fn a() {\n  new();\n}\n}\n',
    note: /dropped its last content line, a copy of line 3 just after it/,
  },
  'a repeated neighbour that carries its own ref': {
    text: 'import a\nimport b\n\nrun()\n',
    ops: (r) => [{ op: 'insert_after', ref: r[2], content: `${r[2]}|import b\nimport c` }],
    cleaned: 'import a\nimport b\nimport c\n\nrun()\n',
    raw: 'import a\nimport b\nREF2|import b\nimport c\n\nrun()\n',
    note: /dropped its first content line, a copy of line 2 just before it \(it carried that line's ref\)/,
  },
}

for (const [what, c] of Object.entries(cleanups)) {
  test(`clean-up of ${what} is applied and reported`, (t) => {
    const out = edit(t, c.text, c.ops, { name: c.name })
    t.is(out.text, c.cleaned)
    t.true(notes(out.output).some((n) => c.note.test(n)), out.output)
  })

  for (const off of [{ cleanup: false }, { literal: true }]) {
    test(`${Object.keys(off)[0]}: ${Object.values(off)[0]} writes ${what} as given, with no note`, (t) => {
      const out = edit(t, c.text, c.ops, { name: c.name, ...off })
      const raw = c.raw.replace(/REF(\d+)/g, (_, n) => out.refs[Number(n)])
      t.is(out.text, raw)
      t.deepEqual(notes(out.output), [])
    })
  }
}

test('both boundary echoes and prefixes in one batch are each removed and each reported', (t) => {
  const out = edit(t, 'a\nb\nc\nd\ne\n', (r) => [
    { op: 'replace', ref: r[2], content: `${r[1]}|a\n${r[2]}|B` },
    { op: 'replace', ref: r[4], content: `D\n${r[5]}|e` },
  ])
  t.is(out.text, 'a\nB\nc\nD\ne\n')
  t.is(notes(out.output).length, 4, out.output)
})

/**
 * A repeat of a neighbouring line that nothing proves an echo or the
 * content's own: refused, nothing written; sent with `literal: true`, it is
 * written as given.
 * @type {Record<string, { text: string, name?: string, ops: (r: Record<number, string>) => Array<Record<string, unknown>>, names: RegExp, want: string }>}
 */
const doubtful = {
  'an insert_after that repeats its anchor line': {
    name: 'f.py',
    text: 'import a\nimport b\n\nrun()\n',
    ops: (r) => [{ op: 'insert_after', ref: r[2], content: 'import b\nimport c' }],
    names: /operation 1 \(insert_after\): its first content line "import b" is the same as line 2, just before where it inserts/,
    want: 'import a\nimport b\nimport b\nimport c\n\nrun()\n',
  },
  'an insert_before that repeats its anchor line': {
    name: 'f.py',
    text: 'x = 1\nreturn x\n',
    ops: (r) => [{ op: 'insert_before', ref: r[2], content: 'x += 1\nreturn x' }],
    names: /its last content line "return x" is the same as line 2, just after where it inserts/,
    want: 'x = 1\nx += 1\nreturn x\nreturn x\n',
  },
  'a blank first line next to a blank line, whatever the file\'s spacing': {
    text: 'a\n\n\nx\n\nb\n',
    ops: (r) => [{ op: 'replace', ref: r[6], content: '\nc' }],
    names: /its first content line \(a blank line\) is the same as line 5/,
    want: 'a\n\n\nx\n\n\nc\n',
  },
  'a first line the replaced range also started with, the line before it the same': {
    text: 'x\nx\ny\n',
    ops: (r) => [{ op: 'replace', ref: r[2], through: r[3], content: 'x\nz' }],
    names: /its first content line "x" is the same as line 1/,
    want: 'x\nx\nz\n',
  },
  'a line in the form of a full ref that names no line a view showed': {
    text: '```diff\n@@ -1 +1 @@\n```\n',
    ops: (r) => [{ op: 'insert_after', ref: r[2], content: '-old line\n+12#ABC#DEF|added' }],
    names: /line 2: "\+12#ABC#DEF\|" has the shape of a view's ref where it stands, though no view showed that line/,
    want: '```diff\n@@ -1 +1 @@\n-old line\n+12#ABC#DEF|added\n```\n',
  },
  'a replace that repeats its neighbour in a file no parser reads': {
    text: 'a = 1;\nb = 2;\n',
    ops: (r) => [{ op: 'replace', ref: r[1], content: 'a = 1;\nb = 2;' }],
    names: /its last content line "b = 2;" is the same as line 2, just after the lines it replaces/,
    want: 'a = 1;\nb = 2;\nb = 2;\n',
  },
}

for (const [what, c] of Object.entries(doubtful)) {
  test(`${what} is refused with AMBIGUOUS_ECHO, and written as given with literal`, (t) => {
    const dir = scratch(t)
    const name = c.name ?? 'f.txt'
    const file = join(dir, name)
    writeFileSync(file, c.text)
    const hl = new Hashline({ view: 'full', root: dir })
    const refs = refsOf(hl.read(name).text)
    const err = /** @type {any} */ (t.throws(() => hl.edit(name, { operations: c.ops(refs) })))
    t.is(err.code, 'AMBIGUOUS_ECHO')
    t.regex(err.message, c.names)
    t.regex(err.message, /"literal": true/)
    t.is(readFileSync(file, 'utf8'), c.text)
    hl.edit(name, { operations: c.ops(refs).map((op) => ({ ...op, literal: true })) })
    t.is(readFileSync(file, 'utf8'), c.want)
  })
}

/**
 * Content that only looks like an echo: it must reach the file unchanged.
 * @type {Record<string, { text: string, name?: string, ops: (r: Record<number, string>) => unknown[], want: string }>}
 */
const lookalikes = {
  'a Markdown list': {
    text: '# List\n- a\n- b\n',
    ops: (r) => [{ op: 'replace', ref: r[3], content: '- b\n  - nested\n- 1. numbered\n-2#ABC#DEF|not a prefix' }],
    want: '# List\n- a\n- b\n  - nested\n- 1. numbered\n-2#ABC#DEF|not a prefix\n',
  },
  'diff-like text with + and - lines': {
    text: '```diff\n@@ -1 +1 @@\n```\n',
    ops: (r) => [{ op: 'insert_after', ref: r[2], content: '-old line\n+new line\n+12:abc|added\n context' }],
    want: '```diff\n@@ -1 +1 @@\n-old line\n+new line\n+12:abc|added\n context\n```\n',
  },
  'CSV lines that look like refs in another style': {
    text: 'id:key|value\n',
    ops: (r) => [{ op: 'insert_after', ref: r[1], content: '12:abc|x\n13:ABC|y\n14:a3f:9bc|z' }],
    want: 'id:key|value\n12:abc|x\n13:ABC|y\n14:a3f:9bc|z\n',
  },
  'lines in the ref form but lowercase': {
    text: 'log\n',
    ops: (r) => [{ op: 'append', content: '12#abc#def|one\n13#a3f#9bc|two' }],
    want: 'log\n12#abc#def|one\n13#a3f#9bc|two\n',
  },
  'lines in the ref form without an ANCHOR': {
    text: 'log\n',
    ops: () => [{ op: 'append', content: '12#ABC|one\n13#A3F|two' }],
    want: 'log\n12#ABC|one\n13#A3F|two\n',
  },
  'a shell script with a shebang and comments': {
    text: 'echo hi\n',
    ops: () => [{ op: 'prepend', content: '#!/bin/sh\n# 12#ABC#DEF|set up\nset -e' }],
    want: '#!/bin/sh\n# 12#ABC#DEF|set up\nset -e\necho hi\n',
  },
  'Python comments': {
    text: 'def f():\n    return 1\n',
    ops: (r) => [{ op: 'insert_before', ref: r[2], content: '    # 1#ABC#DEF|why\n    #: doc comment' }],
    want: 'def f():\n    # 1#ABC#DEF|why\n    #: doc comment\n    return 1\n',
  },
  'C preprocessor lines': {
    text: 'int main(void) { return 0; }\n',
    ops: () => [{ op: 'prepend', content: '#include <stdio.h>\n#define A 1\n#if A\n#endif' }],
    want: '#include <stdio.h>\n#define A 1\n#if A\n#endif\nint main(void) { return 0; }\n',
  },
  'a line echoing its neighbour with different indentation': {
    text: 'if x:\n    a()\n',
    ops: (r) => [{ op: 'replace', ref: r[2], content: '  if x:\n    b()' }],
    want: 'if x:\n  if x:\n    b()\n',
  },
  'a closing bracket the new block needs': {
    name: 'f.js',
    text: 'function f() {\n  z();\n}\n',
    ops: (r) => [{ op: 'replace', ref: r[2], content: '  if (x) {\n    y();\n}' }],
    want: 'function f() {\n  if (x) {\n    y();\n}\n}\n',
  },
  'a single line that duplicates its anchor on purpose': {
    text: 'row\nend\n',
    ops: (r) => [{ op: 'insert_after', ref: r[1], content: 'row' }],
    want: 'row\nrow\nend\n',
  },
}

for (const [what, c] of Object.entries(lookalikes)) {
  test(`${what} is written as given: no clean-up touches it`, (t) => {
    const out = edit(t, c.text, c.ops, { name: c.name })
    t.is(out.text, c.want.replace(/REF(\d+)/g, (_, n) => out.refs[Number(n)]))
    t.deepEqual(notes(out.output), [])
  })
}

/**
 * A session on a folder holding `name` with `text`, in the lean view, and
 * the lines of its read (the header first).
 * @param {import('ava').ExecutionContext} t @param {string} name @param {string} text
 */
function leanRead(t, name, text) {
  const dir = scratch(t)
  writeFileSync(join(dir, name), text)
  const hl = new Hashline({ root: dir, view: 'lean' })
  return { hl, file: join(dir, name), view: hl.read(name).text.split('\n') }
}

/** The ref a lean view line starts with. @param {string} line */
const leanRef = (line) => line.split(' ')[0]

test('a copied lean range whose blank line lost the space after its tag is written without any prefix, in a session and on held text', (t) => {
  const text = 'fn a() {\n    one();\n\n    two();\n}\n'
  const want = 'fn a() {\n    one();\n\n    TWO();\n}\n'
  const { hl, file, view } = leanRead(t, 'a.rs', text)
  const content = [view[2], view[3].trimEnd(), view[4].replace('two', 'TWO')]
  t.regex(content[1], /^3[a-z]{2}$/)
  hl.edit('a.rs', { operations: [{ op: 'replace', ref: leanRef(view[2]), through: leanRef(view[4]), content }] })
  t.is(readFileSync(file, 'utf8'), want)

  const held = binding.formatView(text, { view: 'lean' }).split('\n')
  const full = refsOf(binding.formatView(text, { view: 'full' }))
  const copied = [held[2], held[3].trimEnd(), held[4].replace('two', 'TWO')]
  t.is(binding.applyEdits(text, { operations: [{ op: 'replace', ref: full[2], through: full[4], content: copied }] }).text, want)
})

test('a line the view cut, copied unchanged in a range, is written whole and the restoring is said; changed before the cut, it is refused', (t) => {
  const long = `const DATA = "${'abcdefghij'.repeat(260)}";`
  const text = `// data\n${long}\nlet x = 1;\n`
  const { hl, file, view } = leanRead(t, 'a.js', text)
  t.regex(view[2], /… \(line cut at 2000 of 2616 characters; its ref covers the whole line\)$/)
  const op = (/** @type {string[]} */ content) => ({ op: 'replace', ref: leanRef(view[1]), through: leanRef(view[3]), content })
  const err = /** @type {any} */ (t.throws(() => hl.edit('a.js', { operations: [op([view[1], view[2].replace('DATA', 'MORE'), view[3]])] })))
  t.is(err.code, 'AMBIGUOUS_ECHO')
  t.regex(err.message, /line 2: .*ends with the note of a line a view cut/)
  t.is(readFileSync(file, 'utf8'), text)
  const out = hl.edit('a.js', { operations: [op([view[1], view[2], view[3].replace('1', '2')])] }).output
  t.is(readFileSync(file, 'utf8'), `// data\n${long}\nlet x = 2;\n`)
  t.true(notes(out).some((n) => /wrote line 2 of the content whole: it was copied as a view cut it/.test(n)), out)
})

test('a deletion sent as the two lines around its range is refused, naming both, and written as sent with literal', (t) => {
  const text = 'package cobra\n\n// and which persist.\n// nolint:goconst\nfunc (c *Command) DebugFlags() {\n}\n'
  const { hl, file, view } = leanRead(t, 'command.go', text)
  const op = { op: 'replace', ref: leanRef(view[4]), content: '// and which persist.\nfunc (c *Command) DebugFlags() {' }
  const err = /** @type {any} */ (t.throws(() => hl.edit('command.go', { operations: [op] })))
  t.is(err.code, 'AMBIGUOUS_ECHO')
  t.regex(err.message, /first content line "\/\/ and which persist\." is the same as line 3/)
  t.regex(err.message, /last content line "func \(c \*Command\) DebugFlags\(\) \{" is the same as line 5/)
  t.is(readFileSync(file, 'utf8'), text)
  hl.edit('command.go', { operations: [{ ...op, literal: true }] })
  t.is(readFileSync(file, 'utf8'), text.replace('// nolint:goconst\n', '// and which persist.\nfunc (c *Command) DebugFlags() {\n'))
})

test("a view's header copied above its lines is left out and said; another file's header, a footer or a bare ref is refused", (t) => {
  const text = 'alpha\nbeta\ngamma\n'
  const { hl, file, view } = leanRead(t, 'notes.txt', text)
  const op = (/** @type {string} */ first) => ({ op: 'replace', ref: leanRef(view[2]), content: [first, view[2].replace('beta', 'beta two')] })
  const out = hl.edit('notes.txt', { operations: [op(view[0])] }).output
  t.is(readFileSync(file, 'utf8'), 'alpha\nbeta two\ngamma\n')
  t.true(notes(out).some((n) => /left out line 1 of the content, the header of a view, copied with it/.test(n)), out)
  const now = hl.read('notes.txt').text.split('\n')
  for (const piece of [now[0].replace('notes.txt', 'other.txt'), '(Showing lines 1-2 of 3. Read on with offset=3.)', `${refsOf(binding.formatView('alpha\nbeta two\ngamma\n', { view: 'full' }))[2]}`]) {
    const err = /** @type {any} */ (t.throws(() => hl.edit('notes.txt', { operations: [{ op: 'replace', ref: leanRef(now[2]), content: [piece, now[2]] }] })))
    t.is(err.code, 'AMBIGUOUS_ECHO', piece)
    t.regex(err.message, /line 1: /)
    t.notRegex(err.message, /line 2: /)
  }
  t.is(readFileSync(file, 'utf8'), 'alpha\nbeta two\ngamma\n')
})
