// @ts-check
// The oldString/newString fallback: OpenCode's behaviour and error texts,
// without its faults (loose matches that keep the wrong indentation or
// swallow lines, `$` expansion in replaceAll, dead-end not-found errors).
import test from 'ava'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { binding, scratch } from '../helpers.mjs'

const { Hashline } = binding

const IDENTICAL = 'No changes to apply: oldString and newString are identical.'
const NOT_FOUND = 'Could not find oldString in the file. It must match exactly, including whitespace, indentation, and line endings.'
const AMBIGUOUS = 'Found multiple matches for oldString. Provide more surrounding context to make the match unique.'

/**
 * A session on a scratch folder holding f.txt with `text` (no view read:
 * the fallback is what a model uses when it has no refs).
 * @param {import('ava').ExecutionContext} t
 * @param {string | Buffer} text
 */
function setup(t, text) {
  const dir = scratch(t)
  const file = join(dir, 'f.txt')
  writeFileSync(file, text)
  const hl = new Hashline({ view: 'full', root: dir })
  return { dir, file, hl, read: () => readFileSync(file, 'utf8') }
}

/**
 * The error `fn` throws (failing the test if none) with its code checked.
 * @param {import('ava').ExecutionContext} t @param {() => unknown} fn @param {string} code
 * @returns {{ code: string, message: string }}
 */
function rejects(t, fn, code) {
  const err = /** @type {any} */ (t.throws(fn))
  t.is(err?.code, code, err?.message)
  return err
}

/**
 * The `LINE#HASH#ANCHOR` refs a message shows, by line text.
 * @param {string} message
 */
function shownRefs(message) {
  /** @type {Array<{ ref: string, text: string, marked: boolean }>} */
  const out = []
  for (const m of message.matchAll(/^(>>> |    )(\d+#[0-9A-F]{3}#[0-9A-F]{3})\|(.*)$/gm)) {
    out.push({ ref: m[2], text: m[3], marked: m[1] === '>>> ' })
  }
  return out
}

test('an empty oldString creates a missing file, folders included, with exactly newString', (t) => {
  const dir = scratch(t)
  const hl = new Hashline({ view: 'full', root: dir })
  const result = hl.edit('src/new/mod.ts', { oldString: '', newString: 'export const a = 1;\r\n' })
  t.is(readFileSync(join(dir, 'src/new/mod.ts'), 'utf8'), 'export const a = 1;\r\n')
  t.regex(result.output, /^Created src\/new\/mod\.ts/)
})

test('an empty oldString fills an existing empty file', (t) => {
  const s = setup(t, '')
  s.hl.edit('f.txt', { oldString: '', newString: 'first\n' })
  t.is(s.read(), 'first\n')
})

test('an empty oldString never overwrites a file that has content', (t) => {
  const s = setup(t, 'keep me\n')
  const err = rejects(t, () => s.hl.edit('f.txt', { oldString: '', newString: 'replaced\n' }), 'INVALID_REQUEST')
  t.regex(err.message, /already exists/)
  t.is(s.read(), 'keep me\n')
})

test('identical oldString and newString are refused with OpenCode\'s text, even when they differ only in line endings', (t) => {
  const s = setup(t, 'a\r\nb\r\n')
  t.is(rejects(t, () => s.hl.edit('f.txt', { oldString: 'a', newString: 'a' }), 'NO_CHANGE').message, IDENTICAL)
  t.is(rejects(t, () => s.hl.edit('f.txt', { oldString: 'a\r\nb', newString: 'a\nb' }), 'NO_CHANGE').message, IDENTICAL)
  t.is(s.read(), 'a\r\nb\r\n')
})

test('an oldString that is nowhere gets OpenCode\'s not-found text', (t) => {
  const s = setup(t, 'alpha\nbeta\n')
  const err = rejects(t, () => s.hl.edit('f.txt', { oldString: 'qqqqqqqq', newString: 'x' }), 'OLD_STRING_NOT_FOUND')
  t.is(err.message, NOT_FOUND)
  t.is(s.read(), 'alpha\nbeta\n')
})

test('an oldString found twice gets OpenCode\'s multiple-matches text and writes nothing', (t) => {
  const s = setup(t, 'x = 1\ny = 2\nx = 1\n')
  const err = rejects(t, () => s.hl.edit('f.txt', { oldString: 'x = 1', newString: 'x = 3' }), 'OLD_STRING_AMBIGUOUS')
  t.true(err.message.startsWith(AMBIGUOUS))
  t.is(s.read(), 'x = 1\ny = 2\nx = 1\n')
})

test('the multiple-matches error shows each match with refs, and a retry with one of them edits only that line', (t) => {
  const s = setup(t, 'x = 1\ny = 2\nx = 1\n')
  const err = rejects(t, () => s.hl.edit('f.txt', { oldString: 'x = 1', newString: 'x = 3' }), 'OLD_STRING_AMBIGUOUS')
  const matches = shownRefs(err.message).filter((l) => l.text === 'x = 1')
  t.deepEqual(matches.map((m) => Number(m.ref.split('#')[0])), [1, 3])
  s.hl.edit('f.txt', { operations: [{ op: 'replace', ref: matches[1].ref, content: 'x = 3' }] })
  t.is(s.read(), 'x = 1\ny = 2\nx = 3\n')
})

test('the not-found error shows the closest lines with refs, and a retry with those refs lands', (t) => {
  const s = setup(t, 'function total(items) {\n  let sum = 0;\n  for (const i of items) sum += i.price;\n  return sum;\n}\n')
  const err = rejects(
    t,
    () => s.hl.edit('f.txt', { oldString: '  for (const it of items) sum += it.price;', newString: '  for (const i of items) sum += i.price * i.qty;' }),
    'OLD_STRING_NOT_FOUND',
  )
  t.true(err.message.startsWith(NOT_FOUND))
  const closest = shownRefs(err.message).find((l) => l.marked)
  t.is(closest?.text, '  for (const i of items) sum += i.price;')
  // This session never read the file: the lines the error showed are what
  // lets the retry pass the check for lines no view displayed.
  s.hl.edit('f.txt', { operations: [{ op: 'replace', ref: closest?.ref, content: '  for (const i of items) sum += i.price * i.qty;' }] })
  t.is(s.read(), 'function total(items) {\n  let sum = 0;\n  for (const i of items) sum += i.price * i.qty;\n  return sum;\n}\n')
})

test('an exact unique match is plain string replacement, inside a line, across lines and at an unterminated end', (t) => {
  const cases = [
    ['let a = 1;\nlet b = 2;\n', '= 1', '= 10'],
    ['a\nb\nc\n', 'a\nb', 'x'],
    ['a\nb\nc\n', 'b\n', 'x'],
    ['a\nb\nc\n', 'b\nc\n', ''],
    ['a\nb', 'b', 'b\nc'],
    ['head\n  body\ntail', 'y\nta', 'Y\nTA'],
    ['one two three\n', 'two', '$& $1 $$'],
  ]
  for (const [text, oldString, newString] of cases) {
    const s = setup(t, text)
    s.hl.edit('f.txt', { oldString, newString })
    t.is(s.read(), text.split(oldString).join(newString), JSON.stringify([text, oldString, newString]))
  }
})

test('an exact match in a CRLF file keeps CRLF on every line, the replaced ones included', (t) => {
  const s = setup(t, 'a\r\nb\r\nc\r\n')
  s.hl.edit('f.txt', { oldString: 'b\nc', newString: 'B\nB2\nC' })
  t.is(s.read(), 'a\r\nB\r\nB2\r\nC\r\n')
})

test('replaceAll is literal: $&, $1, $$, $` and $\' are written as they are', (t) => {
  const s = setup(t, 'price = cost;\ntotal = cost + cost;\n')
  const newString = "$& $1 $$ $` $' $<name>"
  const result = s.hl.edit('f.txt', { oldString: 'cost', newString, replaceAll: true })
  t.is(s.read(), `price = ${newString};\ntotal = ${newString} + ${newString};\n`)
  t.regex(result.output, /^Replaced 3 matches in f\.txt/)
})

test('replaceAll with a single match replaces it', (t) => {
  const s = setup(t, 'a\nb\n')
  s.hl.edit('f.txt', { oldString: 'b', newString: 'B', replaceAll: true })
  t.is(s.read(), 'a\nB\n')
})

test('a match only with different indentation re-indents newString to the matched lines and says so', (t) => {
  const s = setup(t, 'class A {\n  run() {\n    if (ready) {\n      go();\n    }\n  }\n}\n')
  const result = s.hl.edit('f.txt', {
    oldString: 'if (ready) {\n  go();\n}',
    newString: 'if (ready) {\n  prepare();\n  go();\n} else {\n  wait();\n}',
  })
  t.is(s.read(), 'class A {\n  run() {\n    if (ready) {\n      prepare();\n      go();\n    } else {\n      wait();\n    }\n  }\n}\n')
  t.regex(result.output, /matched lines 3-5 only with different white space; newString was re-indented/)
})

test('a tolerant match into a less indented block removes the extra indentation from newString', (t) => {
  const s = setup(t, 'if x:\n    y = 1\n    z = 2\n')
  s.hl.edit('f.txt', { oldString: '        y = 1\n        z = 2', newString: '        y = 10\n        if z:\n            z = 20' })
  t.is(s.read(), 'if x:\n    y = 10\n    if z:\n        z = 20\n')
})

test('a tolerant match into a tab-indented block gives nested newString lines tabs too', (t) => {
  const s = setup(t, 'func f() {\n\tif x {\n\t\ty()\n\t}\n}\n')
  s.hl.edit('f.txt', { oldString: '    if x {\n        y()\n    }', newString: '    if x {\n        y()\n        z()\n    }' })
  t.is(s.read(), 'func f() {\n\tif x {\n\t\ty()\n\t\tz()\n\t}\n}\n')
})

test('a tolerant match never touches a line outside the lines it matched', (t) => {
  const text = '}\n\n  a();\n  b();\n\n}\n  a();\n'
  const s = setup(t, text)
  s.hl.edit('f.txt', { oldString: 'a();\nb();\n', newString: 'c();\n' })
  t.is(s.read(), '}\n\n  c();\n\n}\n  a();\n')
})

test('a tolerant match keeps the line endings of the lines around it', (t) => {
  const s = setup(t, 'x\r\n    a\r\n    b\r\ny\n')
  s.hl.edit('f.txt', { oldString: 'a\nb', newString: 'A\nB' })
  t.is(s.read(), 'x\r\n    A\r\n    B\r\ny\n')
})

test('oldString whose first and last lines frame a longer block is not found: no match is larger than oldString', (t) => {
  const text = 'function f() {\n  a();\n  b();\n  c();\n}\n'
  const s = setup(t, text)
  rejects(t, () => s.hl.edit('f.txt', { oldString: 'function f() {\n  a();\n}', newString: 'function f() {}' }), 'OLD_STRING_NOT_FOUND')
  rejects(t, () => s.hl.edit('f.txt', { oldString: 'function f() {\n}', newString: 'function f() {}' }), 'OLD_STRING_NOT_FOUND')
  t.is(s.read(), text)
})

test('a blank line in oldString matches one blank line, never a run of them', (t) => {
  const text = '  a\n\n\n\n  b\n'
  const s = setup(t, text)
  rejects(t, () => s.hl.edit('f.txt', { oldString: 'a\n\nb', newString: 'x' }), 'OLD_STRING_NOT_FOUND')
  t.is(s.read(), text)
})

test('oldString with a line that only resembles the file\'s line is not found, and the file keeps its bytes', (t) => {
  const text = '  const total = items.length;\n  return total;\n'
  const s = setup(t, text)
  rejects(t, () => s.hl.edit('f.txt', { oldString: 'const total = items.length\nreturn total;', newString: 'x' }), 'OLD_STRING_NOT_FOUND')
  rejects(t, () => s.hl.edit('f.txt', { oldString: 'const  total = items.length;\nreturn total;', newString: 'x' }), 'OLD_STRING_NOT_FOUND')
  t.is(s.read(), text)
})

test('a white-space-tolerant oldString that fits two blocks is ambiguous and writes nothing', (t) => {
  const text = '  a();\n  b();\n    a();\n    b();\n'
  const s = setup(t, text)
  const err = rejects(t, () => s.hl.edit('f.txt', { oldString: 'a();\nb();', newString: 'x();' }), 'OLD_STRING_AMBIGUOUS')
  t.true(err.message.startsWith(AMBIGUOUS))
  t.is(s.read(), text)
})

test('a missing file with a non-empty oldString is NOT_FOUND and is not created', (t) => {
  const dir = scratch(t)
  const hl = new Hashline({ view: 'full', root: dir })
  rejects(t, () => hl.edit('nope.txt', { oldString: 'a', newString: 'b' }), 'NOT_FOUND')
  t.false(existsSync(join(dir, 'nope.txt')))
})
