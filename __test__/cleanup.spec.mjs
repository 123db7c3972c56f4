// @ts-check
// Clean-up of what models paste (DESIGN §5): echoed view prefixes and
// echoed neighbour lines are removed only when that is unambiguous, every
// removal is reported, `cleanup: false` turns it off, and text that merely
// resembles an echo (Markdown, diffs, CSV, `#` comments) is written as
// given.
import test from 'ava'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { binding, refsOf as untypedRefsOf, scratch } from './helpers.mjs'

const { Hashline } = binding

/** The refs of a view's lines, by 1-based line number. @param {string} text */
const refsOf = (text) => /** @type {Record<number, string>} */ (untypedRefsOf(text))

/**
 * Edits f.txt (holding `text`) with the operations `build` makes from the
 * refs of a fresh view; returns the file's new text and the result output.
 * @param {import('ava').ExecutionContext} t
 * @param {string} text
 * @param {(r: Record<number, string>) => unknown[]} build
 * @param {{ cleanup?: boolean }} [options]
 */
function edit(t, text, build, options = {}) {
  const dir = scratch(t)
  const file = join(dir, 'f.txt')
  writeFileSync(file, text)
  const hl = new Hashline({ view: 'full', root: dir, ...options })
  const refs = refsOf(hl.read('f.txt').text)
  const result = hl.edit('f.txt', { operations: build(refs) })
  return { text: readFileSync(file, 'utf8'), output: result.output, refs }
}

/** The notes of a result output. @param {string} output */
const notes = (output) => output.split('\n').filter((l) => l.startsWith('Note: '))

/**
 * @typedef {{
 *   text: string,
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
    note: /^Note: operation 1: removed the view prefixes \(LINE#HASH#ANCHOR\|\) copied into its content\.$/,
  },
  'view prefixes as an edit result shows them (+, >>> and context markers)': {
    text: 'a\nb\nc\n',
    ops: (r) => [{ op: 'replace', ref: r[2], content: [`+${r[2]}|B`, `>>> ${r[3]}|C2`, ` ${r[1]}|A2`] }],
    cleaned: 'a\nB\nC2\nA2\nc\n',
    raw: 'a\n+REF2|B\n>>> REF3|C2\n REF1|A2\nc\n',
    note: /removed the view prefixes/,
  },
  'a replace that repeats the line before it': {
    text: 'fn a() {\n  old();\n}\n',
    ops: (r) => [{ op: 'replace', ref: r[2], content: 'fn a() {\n  new();' }],
    cleaned: 'fn a() {\n  new();\n}\n',
    raw: 'fn a() {\nfn a() {\n  new();\n}\n',
    note: /^Note: operation 1 \(replace\): dropped its first content line, a copy of line 1 next to it, which stays as it was\.$/,
  },
  'a replace that repeats the line after it': {
    text: 'fn a() {\n  old();\n}\n',
    ops: (r) => [{ op: 'replace', ref: r[2], content: '  new();\n}' }],
    cleaned: 'fn a() {\n  new();\n}\n',
    raw: 'fn a() {\n  new();\n}\n}\n',
    note: /dropped its last content line, a copy of line 3 next to it/,
  },
  'an insert_after that repeats its anchor line': {
    text: 'import a\nimport b\n\nrun()\n',
    ops: (r) => [{ op: 'insert_after', ref: r[2], content: 'import b\nimport c' }],
    cleaned: 'import a\nimport b\nimport c\n\nrun()\n',
    raw: 'import a\nimport b\nimport b\nimport c\n\nrun()\n',
    note: /operation 1 \(insert_after\): dropped its first content line, a copy of line 2/,
  },
  'an insert_before that repeats its anchor line': {
    text: 'x = 1\nreturn x\n',
    ops: (r) => [{ op: 'insert_before', ref: r[2], content: 'x += 1\nreturn x' }],
    cleaned: 'x = 1\nx += 1\nreturn x\n',
    raw: 'x = 1\nx += 1\nreturn x\nreturn x\n',
    note: /operation 1 \(insert_before\): dropped its last content line, a copy of line 2/,
  },
}

for (const [what, c] of Object.entries(cleanups)) {
  test(`clean-up of ${what} is applied and reported`, (t) => {
    const out = edit(t, c.text, c.ops)
    t.is(out.text, c.cleaned)
    t.is(notes(out.output).length, 1, out.output)
    t.regex(notes(out.output)[0], c.note)
  })

  test(`cleanup: false writes ${what} as given, with no note`, (t) => {
    const out = edit(t, c.text, c.ops, { cleanup: false })
    const raw = c.raw.replace(/REF(\d+)/g, (_, n) => out.refs[Number(n)])
    t.is(out.text, raw)
    t.deepEqual(notes(out.output), [])
  })
}

test('both boundary echoes and prefixes in one batch are each removed and each reported', (t) => {
  const out = edit(t, 'a\nb\nc\nd\ne\n', (r) => [
    { op: 'replace', ref: r[2], content: `${r[1]}|a\n${r[2]}|B` },
    { op: 'replace', ref: r[4], content: 'D\ne' },
  ])
  t.is(out.text, 'a\nB\nc\nD\ne\n')
  t.is(notes(out.output).length, 3, out.output)
})

/**
 * Content that only looks like an echo: it must reach the file unchanged.
 * @type {Record<string, { text: string, ops: (r: Record<number, string>) => unknown[], want: string }>}
 */
const lookalikes = {
  'a Markdown list': {
    text: '# List\n- a\n- b\n',
    ops: (r) => [{ op: 'replace', ref: r[3], content: '- b\n  - nested\n- 1. numbered\n-2#ABC#DEF|not a prefix' }],
    want: '# List\n- a\n- b\n  - nested\n- 1. numbered\n-2#ABC#DEF|not a prefix\n',
  },
  'diff-like text with + and - lines': {
    text: '```diff\n@@ -1 +1 @@\n```\n',
    ops: (r) => [{ op: 'insert_after', ref: r[2], content: '-old line\n+new line\n+12#ABC#DEF|added\n context' }],
    want: '```diff\n@@ -1 +1 @@\n-old line\n+new line\n+12#ABC#DEF|added\n context\n```\n',
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
  'lines where only some carry a view prefix': {
    text: 'a\nb\n',
    ops: (r) => [{ op: 'replace', ref: r[2], content: `${r[2]}|b\nplain line` }],
    want: 'a\nREF2|b\nplain line\n',
  },
  'a line echoing its neighbour with different indentation': {
    text: 'if x:\n    a()\n',
    ops: (r) => [{ op: 'replace', ref: r[2], content: '  if x:\n    b()' }],
    want: 'if x:\n  if x:\n    b()\n',
  },
  'a blank first line next to a blank line, in a file that has two in a row elsewhere': {
    text: 'a\n\n\nx\n\nb\n',
    ops: (r) => [{ op: 'replace', ref: r[6], content: '\nc' }],
    want: 'a\n\n\nx\n\n\nc\n',
  },
  'a closing bracket the new block needs': {
    text: 'function f() {\n  z();\n}\n',
    ops: (r) => [{ op: 'replace', ref: r[2], content: '  if (x) {\n    y();\n}' }],
    want: 'function f() {\n  if (x) {\n    y();\n}\n}\n',
  },
  'a single line that duplicates its anchor on purpose': {
    text: 'row\nend\n',
    ops: (r) => [{ op: 'insert_after', ref: r[1], content: 'row' }],
    want: 'row\nrow\nend\n',
  },
  'a first line the replaced range already started with': {
    text: 'x\nx\ny\n',
    ops: (r) => [{ op: 'replace', ref: r[2], through: r[3], content: 'x\nz' }],
    want: 'x\nx\nz\n',
  },
}

for (const [what, c] of Object.entries(lookalikes)) {
  test(`${what} is written as given: no clean-up touches it`, (t) => {
    const out = edit(t, c.text, c.ops)
    t.is(out.text, c.want.replace(/REF(\d+)/g, (_, n) => out.refs[Number(n)]))
    // A repeat of a neighbouring line may be flagged as kept; nothing may be changed.
    t.deepEqual(notes(out.output).filter((n) => !/ was kept; /.test(n)), [])
  })
}
