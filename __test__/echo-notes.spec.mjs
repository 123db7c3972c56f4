import test from 'ava'
import { binding, refsOf } from './helpers.mjs'

const { applyEdits, formatView, lineHash } = binding

/** @param {string[]} lines @param {(refs: Record<number, string>) => object[]} ops */
function edit(lines, ops) {
  const text = lines.join('\n') + '\n'
  return applyEdits(text, { operations: ops(refsOf(formatView(text, { view: 'full' }))) })
}

test('content that starts with a copy of the blank line before it, in a file that never has two blank lines in a row, loses it and says so', (t) => {
  const r = edit(['fn a() {}', '', 'fn b() {}', 'fn c() {}'], (refs) => [{ op: 'replace', ref: refs[3], content: '\nfn b2() {}' }])
  t.is(r.text, 'fn a() {}\n\nfn b2() {}\nfn c() {}\n')
  t.regex(r.output, /Note: operation 1 \(replace\): dropped its first content line, a copy of line 2 next to it/)
})

test('content that starts with a copy of the blank line before it, in a file that has two blank lines in a row, keeps it and says so', (t) => {
  const r = edit(['fn a() {}', '', '', 'fn b() {}', '', 'fn c() {}'], (refs) => [{ op: 'replace', ref: refs[6], content: '\nfn c2() {}' }])
  t.is(r.text, 'fn a() {}\n\n\nfn b() {}\n\n\nfn c2() {}\n')
  t.regex(r.output, /Note: operation 1 \(replace\): its first content line repeats line 5 just before it and was kept/)
})

test('content that ends with a copy of the line after it, needed for bracket balance, is kept and flagged', (t) => {
  const r = edit(['    format!("x {}", i)', '});', '}'], (refs) => [{ op: 'replace', ref: refs[2], content: '};\n}' }])
  t.is(r.text, '    format!("x {}", i)\n};\n}\n}\n')
  t.regex(r.output, /its last content line repeats line 3 just after it and was kept/)
})

test('content that starts with a copy of an opening line, needed for bracket balance, is kept and flagged', (t) => {
  const r = edit(['if ok {', 'return f(if i == 0 {', 'a'], (refs) => [{ op: 'replace', ref: refs[2], content: 'if ok {\nreturn if i == 0 {' }])
  t.true(r.text.startsWith('if ok {\nif ok {\n'))
  t.regex(r.output, /its first content line repeats line 1 just before it and was kept/)
})

test('a ref without ANCHOR whose HASH another line shares is refused for the shared HASH, not for repeated text', (t) => {
  t.is(lineHash('let v50 = 50;'), lineHash('let v59 = 59;'))
  const err = t.throws(() => edit(['let v50 = 50;', 'let v59 = 59;'], (refs) => [{ op: 'replace', ref: refs[1].split('#').slice(0, 2).join('#'), content: 'x' }]))
  t.is(err?.code, 'HASH_MISMATCH')
  t.regex(String(err?.message), /whose HASH other lines of text share/)
})

test('content made only of copies of both neighbours is written whole, with both notes, never half of it', (t) => {
  const r = edit(['<section>', '<p>old</p>', '</section>'], (refs) => [{ op: 'replace', ref: refs[2], content: '<section>\n</section>' }])
  t.is(r.text, '<section>\n<section>\n</section>\n</section>\n')
  t.regex(r.output, /its first content line repeats line 1 just before it and was kept/)
  t.regex(r.output, /its last content line repeats line 3 just after it and was kept/)
})

test("content that opens and closes its own element keeps its closer, though the parent's closer follows", (t) => {
  for (const [open, close] of [['<div class="a">', '</div>'], ['<section>', '</section>'], ['<Card title={x}>', '</Card>']]) {
    const r = edit([open, '  <p>old</p>', close], (refs) => [{ op: 'replace', ref: refs[2], content: `  ${open}\n    <p>new</p>\n${close}` }])
    t.is(r.text, `${open}\n  ${open}\n    <p>new</p>\n${close}\n${close}\n`)
    t.regex(r.output, /its last content line repeats line 3 just after it and was kept/)
  }
})

test('a markup closer echoed after a range that had it is still dropped', (t) => {
  const r = edit(['<ul>', '  <li>a</li>', '</ul>', 'x'], (refs) => [{ op: 'replace', ref: refs[2], content: '  <li>b</li>\n</ul>' }])
  t.is(r.text, '<ul>\n  <li>b</li>\n</ul>\nx\n')
  t.regex(r.output, /dropped its last content line, a copy of line 3/)
})
