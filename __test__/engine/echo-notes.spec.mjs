// A content line that repeats the line next to where the content goes is
// dropped only where a parse proves it an echo, kept where a parse proves
// it the content's own, and otherwise refused with AMBIGUOUS_ECHO: never
// judged by a rule that is right most of the time.
import test from 'ava'
import { binding, refsOf } from '../helpers.mjs'

const { applyEdits, formatView, lineHash } = binding

/**
 * @param {string[]} lines
 * @param {(refs: Record<number, string>) => object[]} ops
 * @param {{ path?: string, literal?: boolean }} [options]
 */
function edit(lines, ops, options = {}) {
  const text = lines.join('\n') + '\n'
  const request = { operations: ops(refsOf(formatView(text, { view: 'full' }))), ...(options.literal ? { literal: true } : {}) }
  return applyEdits(text, request, options.path ? { path: options.path } : undefined)
}

test('a blank line repeated before content is refused, and written with literal', (t) => {
  const lines = ['fn a() {}', '', 'fn b() {}', 'fn c() {}']
  const ops = (refs) => [{ op: 'replace', ref: refs[3], content: '\nfn b2() {}' }]
  const err = t.throws(() => edit(lines, ops, { path: 'x.rs' }))
  t.is(err?.code, 'AMBIGUOUS_ECHO')
  t.regex(String(err?.message), /operation 1 \(replace\): its first content line \(a blank line\) is the same as line 2, just before the lines it replaces/)
  t.is(edit(lines, ops, { path: 'x.rs', literal: true }).text, 'fn a() {}\n\n\nfn b2() {}\nfn c() {}\n')
})

test('a blank line repeated before content is refused even in a file that has two blank lines in a row', (t) => {
  const err = t.throws(() => edit(['fn a() {}', '', '', 'fn b() {}', '', 'fn c() {}'], (refs) => [{ op: 'replace', ref: refs[6], content: '\nfn c2() {}' }], { path: 'x.rs' }))
  t.is(err?.code, 'AMBIGUOUS_ECHO')
})

test('a closer the content needs, after which the same closer follows, is kept: dropping it breaks the parse', (t) => {
  const r = edit(['fn f() {', '    a();', '}'], (refs) => [{ op: 'replace', ref: refs[2], content: '    if x {\n        b();\n}' }], { path: 'x.rs' })
  t.is(r.text, 'fn f() {\n    if x {\n        b();\n}\n}\n')
  t.notRegex(r.output, /Note:/)
})

test('the same repeat in a file no parser reads is refused', (t) => {
  const err = t.throws(() => edit(['fn f() {', '    a();', '}'], (refs) => [{ op: 'replace', ref: refs[2], content: '    if x {\n        b();\n}' }]))
  t.is(err?.code, 'AMBIGUOUS_ECHO')
  t.regex(String(err?.message), /its last content line "}" is the same as line 3/)
})

test('a ref without ANCHOR whose HASH another line shares is refused for the shared HASH, not for repeated text', (t) => {
  t.is(lineHash('let v50 = 50;'), lineHash('let v59 = 59;'))
  const err = t.throws(() => edit(['let v50 = 50;', 'let v59 = 59;'], (refs) => [{ op: 'replace', ref: refs[1].split('#').slice(0, 2).join('#'), content: 'x' }]))
  t.is(err?.code, 'HASH_MISMATCH')
  t.regex(String(err?.message), /whose HASH other lines of text share/)
})

test('content made only of copies of both neighbours is refused, never half of it written', (t) => {
  const err = t.throws(() => edit(['a', 'b', 'c'], (refs) => [{ op: 'replace', ref: refs[2], content: 'a\nc' }]))
  t.is(err?.code, 'AMBIGUOUS_ECHO')
  t.regex(String(err?.message), /first content line "a" is the same as line 1/)
  t.regex(String(err?.message), /last content line "c" is the same as line 3/)
})

test("content that opens and closes its own element keeps its closer, though the parent's closer follows, or is refused", (t) => {
  for (const [open, close] of [['<div class="a">', '</div>'], ['<section>', '</section>']]) {
    const lines = [open, '  <p>old</p>', close]
    const ops = (refs) => [{ op: 'replace', ref: refs[2], content: `  ${open}\n    <p>new</p>\n${close}` }]
    const sent = `${open}\n  ${open}\n    <p>new</p>\n${close}\n${close}\n`
    try {
      t.is(edit(lines, ops, { path: 'x.html' }).text, sent)
    } catch (err) {
      t.is(/** @type {any} */ (err).code, 'AMBIGUOUS_ECHO')
    }
    t.is(edit(lines, ops, { path: 'x.html', literal: true }).text, sent)
  }
})

test('a markup closer echoed after a range that had it is dropped where the parse proves it', (t) => {
  const r = edit(['<ul>', '  <li>a</li>', '</ul>', '<p>x</p>'], (refs) => [{ op: 'replace', ref: refs[2], content: '  <li>b</li>\n</ul>' }], { path: 'x.html' })
  t.is(r.text, '<ul>\n  <li>b</li>\n</ul>\n<p>x</p>\n')
  t.regex(r.output, /dropped its last content line, a copy of line 3 just after it \(only without it does the file parse\)/)
})
