// @ts-check
// A catalogue of hostile and malformed requests, one test each. Every case
// must fail with its documented code and a short, clear message, and leave
// the whole scratch tree (names, bytes, modes, owners, inodes, symlink
// targets) exactly as it was.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { fileURLToPath } from 'node:url'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { binding, refsOf as untypedRefsOf, scratch } from '../helpers.mjs'
import { cannotRestrict, unprivileged } from '../support/unprivileged.mjs'

const { Hashline, formatView, applyEdits, parseRef, lineHash, anchorHash, rev } = binding

/** The refs of a view's lines, by 1-based line number. @param {string} text */
const refsOf = (text) => /** @type {Record<number, string>} */ (untypedRefsOf(text))

const BASE = 'a\nb\nc\nd\n'
/** Long enough for any repair kit; short enough that no input is echoed whole. */
const MAX_MESSAGE = 8192
const HUGE = 'x'.repeat(1 << 20)

/**
 * @typedef {{ parent: string, root: string, outside: string, hl: any, refs: Record<number, string>, state: any }} Ctx
 * @typedef {{ code?: string, message?: string, mismatches?: Array<{ line: number, expected: string, actual?: string }> }} Failure
 * @typedef {{
 *   name: string,
 *   code: string,
 *   run: (ctx: Ctx) => unknown,
 *   setup?: (ctx: Ctx) => void,
 *   options?: Record<string, unknown>,
 *   read?: boolean,
 *   message?: RegExp,
 *   skip?: string,
 *   check?: (t: import('ava').ExecutionContext, err: Failure, ctx: Ctx) => void,
 * }} Case
 */

/**
 * Everything under `dir` that a write could change: for each entry its
 * kind, mode and owner; for files a digest of the bytes, the inode (a
 * rename-over changes it even when the bytes are equal) and the mtime;
 * for symlinks the target. Pipes are never opened.
 * @param {string} dir
 */
function snapshot(dir) {
  /** @type {Record<string, unknown>} */
  const out = {}
  /** @param {string} rel */
  const walk = (rel) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const path = join(rel, name)
      const st = lstatSync(join(dir, path))
      const base = { mode: st.mode, uid: st.uid, gid: st.gid }
      if (st.isSymbolicLink()) out[path] = { ...base, link: readlinkSync(join(dir, path)) }
      else if (st.isDirectory()) {
        out[path] = { ...base, dir: true }
        walk(path)
      } else if (st.isFile()) {
        const bytes = readFileSync(join(dir, path))
        const sha1 = createHash('sha1').update(bytes).digest('hex')
        out[path] = { ...base, size: st.size, sha1, ino: st.ino, mtime: st.mtimeMs }
      } else out[path] = { ...base, special: true }
    }
  }
  walk('.')
  return out
}

/** @param {string} file @param {string | Buffer} bytes */
const put = (file, bytes) => writeFileSync(file, bytes)

/** An edit of f.txt with one operation. @param {Record<string, unknown>} op */
const one = (op) => (/** @type {Ctx} */ c) => c.hl.edit('f.txt', { operations: [op] })
/** An edit of f.txt with a request built from the refs. @param {(r: Record<number, string>) => unknown} build */
const req = (build) => (/** @type {Ctx} */ c) => c.hl.edit('f.txt', build(c.refs))
/** An edit of f.txt whose one operation is built from the refs. @param {(r: Record<number, string>) => Record<string, unknown>} build */
const op = (build) => req((r) => ({ operations: [build(r)] }))

/** @type {Case[]} */
const catalogue = []

// Refs that do not parse.
const malformedRefs = {
  'a line number alone': '2',
  'the hash before the line': 'E9D#2',
  'line zero': '0#E9D#839',
  'a two-digit HASH': '2#E9#839',
  'a four-digit HASH': '2#E9D0#839',
  'a HASH that is not hex': '2#XYZ#839',
  'a two-digit ANCHOR': '2#E9D#83',
  'an ANCHOR that is not hex': '2#E9D#8G9',
  'too many parts': '2#E9D#839#000',
  'two minus signs': '--2#E9D#839',
  'a line number too large for any file': '99999999999999999999999#E9D',
  'full-width digits': '２#E9D#839',
  'two refs joined by a newline': '2#E9D#839\n3#84A#BEA',
  'a NUL inside': '2#E9\0D#839',
  'only separators': '#:#',
}
for (const [what, ref] of Object.entries(malformedRefs)) {
  catalogue.push({ name: `a ref with ${what}`, code: 'INVALID_REF', run: one({ op: 'delete', ref }), message: /LINE#HASH#ANCHOR/ })
}
catalogue.push(
  { name: 'a 1 MB ref string', code: 'INVALID_REF', run: one({ op: 'delete', ref: `2#${HUGE}` }) },
  { name: 'a malformed `through` after a valid `ref`', code: 'INVALID_REF', run: op((r) => ({ op: 'delete', ref: r[2], through: '3#ZZZ' })) },
  { name: 'an empty ref', code: 'INVALID_REQUEST', run: one({ op: 'delete', ref: '' }), message: /needs `ref`/ },
  { name: 'a ref of spaces', code: 'INVALID_REQUEST', run: one({ op: 'delete', ref: '   ' }), message: /needs `ref`/ },
)

// Refs that parse but name no line, or another line, or a changed one.
catalogue.push(
  { name: 'a ref one line past the end', code: 'OUT_OF_RANGE', run: one({ op: 'delete', ref: '5#E9D#839' }), message: /past the end of f\.txt \(4 lines/ },
  {
    name: 'a ref past 2^32 lines keeps its line number in the mismatch',
    code: 'OUT_OF_RANGE',
    run: one({ op: 'delete', ref: '4294967297#E9D#839' }),
    check: (t, err) => t.is(err.mismatches?.[0]?.line, 4294967297),
  },
  { name: 'a `through` past the end', code: 'OUT_OF_RANGE', run: op((r) => ({ op: 'delete', ref: r[3], through: '9#E9D#839' })) },
  { name: 'an insert after line 1000 of 4', code: 'OUT_OF_RANGE', run: one({ op: 'insert_after', ref: '1000#E9D#839', content: 'x' }) },
  { name: 'the right line with a wrong HASH', code: 'HASH_MISMATCH', run: op((r) => ({ op: 'delete', ref: r[2].replace(/#\w{3}#/, '#000#') })) },
  { name: 'the right HASH with a wrong ANCHOR', code: 'HASH_MISMATCH', run: op((r) => ({ op: 'delete', ref: r[2].replace(/#\w{3}$/, '#000') })) },
  { name: 'the ref of line 3 under line number 2', code: 'HASH_MISMATCH', run: op((r) => ({ op: 'delete', ref: r[3].replace(/^3/, '2') })) },
  {
    name: 'fifty operations citing one line that changed name it once',
    code: 'HASH_MISMATCH',
    setup: (c) => put(join(c.root, 'f.txt'), 'a\nB\nc\nd\n'),
    run: req((r) => ({ operations: Array.from({ length: 50 }, (_, i) => ({ op: 'replace', ref: r[2], content: `v${i}` })) })),
    check: (t, err) => t.notRegex(err.message ?? '', /2, 2/),
  },
)

// Wrong types, field by field.
/** @type {Array<[string, unknown]>} */
const wrongValues = [
  ['a number', 42],
  ['a nested array', [['x']]],
  ['a boolean', true],
  ['an object', { value: 'x' }],
]
for (const [what, value] of wrongValues) {
  catalogue.push(
    { name: `\`operations\` as ${what}`, code: 'INVALID_REQUEST', run: req(() => ({ operations: value })) },
    { name: `\`op\` as ${what}`, code: 'INVALID_REQUEST', run: op((r) => ({ op: value, ref: r[2] })) },
    { name: `\`ref\` as ${what}`, code: 'INVALID_REQUEST', run: one({ op: 'delete', ref: value }) },
    { name: `\`through\` as ${what}`, code: 'INVALID_REQUEST', run: op((r) => ({ op: 'delete', ref: r[2], through: value })) },
    { name: `\`content\` as ${what}`, code: 'INVALID_REQUEST', run: op((r) => ({ op: 'replace', ref: r[2], content: value })) },
    { name: `\`oldString\` as ${what}`, code: 'INVALID_REQUEST', run: req(() => ({ oldString: value, newString: 'x' })) },
    { name: `\`newString\` as ${what}`, code: 'INVALID_REQUEST', run: req(() => ({ oldString: 'b', newString: value })) },
    { name: `\`rev\` as ${what}`, code: 'INVALID_REQUEST', run: req((r) => ({ operations: [{ op: 'delete', ref: r[2] }], rev: value })) },
  )
  if (typeof value !== 'boolean') {
    catalogue.push({ name: `\`replaceAll\` as ${what}`, code: 'INVALID_REQUEST', run: req(() => ({ oldString: 'b', newString: 'x', replaceAll: value })) })
  }
}
catalogue.push(
  { name: '`operations` as null', code: 'INVALID_REQUEST', run: req(() => ({ operations: null })) },
  { name: '`op` as null', code: 'INVALID_REQUEST', run: op((r) => ({ op: null, ref: r[2] })) },
  { name: '`ref` as null on a delete', code: 'INVALID_REQUEST', run: one({ op: 'delete', ref: null }), message: /needs `ref`/ },
  { name: '`content` as null on a replace', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'replace', ref: r[2], content: null })), message: /needs `content`/ },
  { name: '`content` as an array holding null', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'replace', ref: r[2], content: ['x', null] })) },
  { name: '`content` as an array of numbers', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'replace', ref: r[2], content: [1, 2] })) },
  { name: '`newString` as null', code: 'INVALID_REQUEST', run: req(() => ({ oldString: 'b', newString: null })) },
  { name: '`op` as a 1 MB string', code: 'INVALID_REQUEST', run: op((r) => ({ op: HUGE, ref: r[2] })) },
  { name: '`rev` as a 1 MB string', code: 'INVALID_REQUEST', run: req((r) => ({ operations: [{ op: 'delete', ref: r[2] }], rev: HUGE })) },
  { name: 'content nested 100 000 arrays deep', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'replace', ref: r[2], content: nested(100_000) })) },
  { name: 'the request as null', code: 'INVALID_REQUEST', run: (c) => c.hl.edit('f.txt', null), message: /must be an object/ },
  { name: 'the request as a number', code: 'INVALID_REQUEST', run: (c) => c.hl.edit('f.txt', 7) },
  { name: 'the request as a string', code: 'INVALID_REQUEST', run: (c) => c.hl.edit('f.txt', 'replace line 2') },
  { name: 'the request as an array of operations', code: 'INVALID_REQUEST', run: (c) => c.hl.edit('f.txt', [{ op: 'delete', ref: c.refs[2] }]) },
  { name: 'the request as undefined', code: 'INVALID_REQUEST', run: (c) => c.hl.edit('f.txt', undefined) },
  { name: 'a NaN inside the request', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'replace', ref: r[2], content: 'x', through: NaN })) },
  { name: 'a function inside the request', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'replace', ref: r[2], content: () => 'x' })) },
  { name: 'the path as a number', code: 'INVALID_REQUEST', run: (c) => c.hl.edit(42, { operations: [{ op: 'delete', ref: c.refs[2] }] }) },
  { name: 'a read offset as a string', code: 'INVALID_REQUEST', run: (c) => c.hl.read('f.txt', { offset: '2' }) },
  { name: 'a read offset of 0', code: 'INVALID_REQUEST', run: (c) => c.hl.read('f.txt', { offset: 0 }) },
  { name: 'maxFileBytes as a string', code: 'INVALID_REQUEST', run: (c) => new Hashline({ view: 'full', root: c.root, maxFileBytes: '1000' }) },
  { name: 'maxFileBytes of -1', code: 'INVALID_REQUEST', run: (c) => new Hashline({ view: 'full', root: c.root, maxFileBytes: -1 }) },
  { name: 'a root that is a file', code: 'NOT_A_FILE', run: (c) => new Hashline({ view: 'full', root: join(c.root, 'f.txt') }) },
  { name: 'a root that does not exist', code: 'NOT_FOUND', run: (c) => new Hashline({ view: 'full', root: join(c.root, 'nope') }) },
)

// Unknown ops and fields, and contradicting request shapes.
catalogue.push(
  { name: 'the unknown op "swap"', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'swap', ref: r[2] })), message: /unknown op "swap"/ },
  { name: 'a move without a place', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'move', ref: r[2] })), message: /needs `after` or `before`/ },
  { name: 'an empty op name', code: 'INVALID_REQUEST', run: op((r) => ({ op: '', ref: r[2] })) },
  { name: 'the op "insert" without a side', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'insert', ref: r[2], content: 'x' })) },
  { name: 'an unknown field in an operation', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'replace', ref: r[2], content: 'x', indent: 2 })), message: /unknown field `indent`/ },
  { name: 'an unknown field in the request', code: 'INVALID_REQUEST', run: req((r) => ({ operations: [{ op: 'delete', ref: r[2] }], filePath: 'f.txt' })), message: /unknown field `filePath`/ },
  { name: 'an own `__proto__` field', code: 'INVALID_REQUEST', run: req((r) => JSON.parse(`{"__proto__": {"x": 1}, "operations": [{"op": "delete", "ref": "${r[2]}"}]}`)) },
  { name: '10 000 unknown fields', code: 'INVALID_REQUEST', run: req((r) => Object.fromEntries([['operations', [{ op: 'delete', ref: r[2] }]], ...Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i])])) },
  { name: '`ref` and its alias `start` together', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'delete', ref: r[2], start: r[2] })), message: /both `ref` and `start`/ },
  { name: 'operations and oldString together', code: 'INVALID_REQUEST', run: req((r) => ({ operations: [{ op: 'delete', ref: r[2] }], oldString: 'b', newString: 'x' })) },
  { name: 'replaceAll with operations', code: 'INVALID_REQUEST', run: req((r) => ({ operations: [{ op: 'delete', ref: r[2] }], replaceAll: true })) },
  { name: 'rev with oldString', code: 'INVALID_REQUEST', run: req(() => ({ oldString: 'b', newString: 'x', rev: '12345678' })) },
  { name: 'an empty operations array', code: 'INVALID_REQUEST', run: req(() => ({ operations: [] })), message: /is empty/ },
  { name: 'an empty request object', code: 'INVALID_REQUEST', run: req(() => ({})) },
  { name: 'a delete with content', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'delete', ref: r[2], content: 'x' })) },
  { name: 'an append with a ref', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'append', ref: r[2], content: 'x' })) },
  { name: 'an insert with `through`', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'insert_after', ref: r[2], through: r[3], content: 'x' })) },
  { name: 'a replace without content', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'replace', ref: r[2] })) },
  { name: '`through` before `ref`', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'delete', ref: r[3], through: r[1] })), message: /comes before `ref`/ },
)

// Overlapping and contradicting operations.
/** @type {Record<string, (r: Record<number, string>) => unknown[]>} */
const conflicts = {
  'two replaces of one line with different content': (r) => [{ op: 'replace', ref: r[2], content: 'x' }, { op: 'replace', ref: r[2], content: 'y' }],
  'a replace of 1-3 and a delete of 3': (r) => [{ op: 'replace', ref: r[1], through: r[3], content: 'x' }, { op: 'delete', ref: r[3] }],
  'a delete and a replace of one line': (r) => [{ op: 'delete', ref: r[2] }, { op: 'replace', ref: r[2], content: 'x' }],
  'an insert after 2 and an insert before 3': (r) => [{ op: 'insert_after', ref: r[2], content: 'x' }, { op: 'insert_before', ref: r[3], content: 'y' }],
  'an insert anchored inside a replaced range': (r) => [{ op: 'replace', ref: r[2], through: r[3], content: 'x' }, { op: 'insert_after', ref: r[2], content: 'y' }],
  'a prepend and an insert before line 1': (r) => [{ op: 'prepend', content: 'x' }, { op: 'insert_before', ref: r[1], content: 'y' }],
  'an append and an insert after the last line': (r) => [{ op: 'append', content: 'x' }, { op: 'insert_after', ref: r[4], content: 'y' }],
  '2000 different replaces of one line': (r) => Array.from({ length: 2000 }, (_, i) => ({ op: 'replace', ref: r[2], content: `v${i}` })),
}
for (const [what, build] of Object.entries(conflicts)) {
  catalogue.push({ name: what, code: 'CONFLICT', run: req((r) => ({ operations: build(r) })), message: /^Edit rejected, nothing written/ })
}
catalogue.push(
  { name: 'a replace with the same content', code: 'NO_CHANGE', run: op((r) => ({ op: 'replace', ref: r[2], content: 'b' })) },
  { name: 'an insert of nothing', code: 'NO_CHANGE', run: op((r) => ({ op: 'insert_after', ref: r[2], content: '' })) },
  { name: 'a delete of a line and an insert of the same line in its place', code: 'NO_CHANGE', run: req((r) => ({ operations: [{ op: 'delete', ref: r[2] }, { op: 'insert_before', ref: r[3], content: 'b' }] })) },
)

// Paths: escapes, links, things that are not regular files.
catalogue.push(
  { name: 'a `..` path out of the root', code: 'OUTSIDE_ROOT', run: (c) => c.hl.edit('../outside/secret.txt', { operations: [{ op: 'append', content: 'x' }] }) },
  { name: 'a `..` path through a subfolder', code: 'OUTSIDE_ROOT', setup: (c) => mkdirSync(join(c.root, 'sub')), run: (c) => c.hl.edit('sub/../../outside/secret.txt', { oldString: 'secret', newString: 'x' }) },
  { name: 'an absolute path outside the root', code: 'OUTSIDE_ROOT', run: (c) => c.hl.edit(join(c.outside, 'secret.txt'), { operations: [{ op: 'append', content: 'x' }] }) },
  { name: 'an absolute path creating a file outside the root', code: 'OUTSIDE_ROOT', run: (c) => c.hl.edit(join(c.outside, 'new.txt'), { oldString: '', newString: 'x' }) },
  { name: 'a symlinked file that leaves the root', code: 'OUTSIDE_ROOT', setup: (c) => symlinkSync(join(c.outside, 'secret.txt'), join(c.root, 'link.txt')), run: (c) => c.hl.edit('link.txt', { oldString: 'secret', newString: 'x' }) },
  { name: 'a new file through a symlinked folder that leaves the root', code: 'OUTSIDE_ROOT', setup: (c) => symlinkSync(c.outside, join(c.root, 'out')), run: (c) => c.hl.edit('out/new.txt', { operations: [{ op: 'append', content: 'x' }] }) },
  { name: 'a relative symlink chain that leaves the root', code: 'OUTSIDE_ROOT', setup: (c) => { symlinkSync('../outside', join(c.root, 'hop1')); symlinkSync('hop1/secret.txt', join(c.root, 'hop2')) }, run: (c) => c.hl.edit('hop2', { operations: [{ op: 'append', content: 'x' }] }) },
  { name: 'a symlink loop', code: 'IO', setup: (c) => { symlinkSync('loop-b', join(c.root, 'loop-a')); symlinkSync('loop-a', join(c.root, 'loop-b')) }, run: (c) => c.hl.edit('loop-a', { operations: [{ op: 'append', content: 'x' }] }), message: /symbolic links/ },
  { name: 'a dangling symlink', code: 'NOT_FOUND', setup: (c) => symlinkSync('nowhere.txt', join(c.root, 'dangling')), run: (c) => c.hl.edit('dangling', { operations: [{ op: 'append', content: 'x' }] }) },
  { name: 'a directory', code: 'NOT_A_FILE', setup: (c) => mkdirSync(join(c.root, 'sub')), run: (c) => c.hl.edit('sub', { operations: [{ op: 'append', content: 'x' }] }) },
  { name: 'the root itself as "."', code: 'NOT_A_FILE', run: (c) => c.hl.edit('.', { operations: [{ op: 'append', content: 'x' }] }), message: /not a file: \S/ },
  { name: 'a file named with a trailing slash', code: 'NOT_A_FILE', run: (c) => c.hl.edit('f.txt/', { operations: [{ op: 'delete', ref: c.refs[2] }] }) },
  { name: 'a FIFO', code: 'NOT_A_FILE', setup: (c) => mkfifo(join(c.root, 'pipe')), run: (c) => c.hl.edit('pipe', { operations: [{ op: 'append', content: 'x' }] }) },
  { name: 'a FIFO given an empty oldString', code: 'NOT_A_FILE', setup: (c) => mkfifo(join(c.root, 'pipe')), run: (c) => c.hl.edit('pipe', { oldString: '', newString: 'x' }) },
  { name: 'a character device', code: 'NOT_A_FILE', run: (c) => c.hl.edit('/dev/null', { operations: [{ op: 'append', content: 'x' }] }, { allowOutsideRoot: true }) },
  { name: 'an empty path', code: 'INVALID_REQUEST', run: (c) => c.hl.edit('', { operations: [{ op: 'append', content: 'x' }] }) },
  { name: 'a path with a NUL', code: 'INVALID_REQUEST', run: (c) => c.hl.edit('f.txt\0.sh', { operations: [{ op: 'append', content: 'x' }] }) },
  { name: 'a ref edit of a missing file', code: 'NOT_FOUND', run: (c) => c.hl.edit('missing.txt', { operations: [{ op: 'delete', ref: c.refs[2] }] }) },
  { name: 'a ref edit of a file in missing folders', code: 'NOT_FOUND', run: (c) => c.hl.edit('no/such/dir/f.txt', { operations: [{ op: 'replace', ref: c.refs[1], content: 'x' }] }) },
)

// Permissions, checked from an unprivileged process.
catalogue.push(
  {
    name: 'a file without read permission',
    code: 'PERMISSION',
    setup: (c) => { chmodSync(c.parent, 0o755); chmodSync(c.root, 0o777); put(join(c.root, 'secret.txt'), 'x\n'); chmodSync(join(c.root, 'secret.txt'), 0o000) },
    run: (c) => unprivileged(c.root, 'secret.txt', 'read'),
    skip: cannotRestrict,
  },
  {
    name: 'a file without write permission in a writable folder',
    code: 'PERMISSION',
    setup: (c) => { chmodSync(c.parent, 0o755); chmodSync(c.root, 0o777); put(join(c.root, 'ro.txt'), 'a\nb\n'); chmodSync(join(c.root, 'ro.txt'), 0o444) },
    run: (c) => unprivileged(c.root, 'ro.txt', 'edit'),
    skip: cannotRestrict,
  },
  {
    name: 'a writable file in a folder without write permission',
    code: 'PERMISSION',
    setup: (c) => { chmodSync(c.parent, 0o755); chmodSync(c.root, 0o755); put(join(c.root, 'w.txt'), 'a\nb\n'); chmodSync(join(c.root, 'w.txt'), 0o666) },
    run: (c) => unprivileged(c.root, 'w.txt', 'edit'),
    message: /w\.txt/,
    skip: cannotRestrict,
  },
)

// Content the envelope refuses, and odd but valid files.
catalogue.push(
  { name: 'a file that is not UTF-8', code: 'NOT_UTF8', setup: (c) => put(join(c.root, 'l1.txt'), Buffer.from('caf\xe9\n', 'latin1')), run: (c) => c.hl.edit('l1.txt', { operations: [{ op: 'append', content: 'x' }] }) },
  { name: 'a truncated UTF-8 sequence at the end', code: 'NOT_UTF8', setup: (c) => put(join(c.root, 'cut.txt'), Buffer.from([0x61, 0x0a, 0xe6, 0x97])), run: (c) => c.hl.edit('cut.txt', { oldString: '', newString: 'x' }) },
  { name: 'a binary file', code: 'BINARY', setup: (c) => put(join(c.root, 'bin.dat'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2])), run: (c) => c.hl.edit('bin.dat', { operations: [{ op: 'append', content: 'x' }] }) },
  { name: 'a UTF-16 file', code: 'BINARY', setup: (c) => put(join(c.root, 'u16.txt'), Buffer.from('\ufeffhi\n', 'utf16le')), run: (c) => c.hl.edit('u16.txt', { oldString: 'hi', newString: 'x' }) },
  { name: 'a ref into an empty file', code: 'OUT_OF_RANGE', setup: (c) => put(join(c.root, 'e.txt'), ''), run: (c) => c.hl.edit('e.txt', { operations: [{ op: 'delete', ref: '1#DA3#68C' }] }) },
  { name: 'an oldString in an empty file', code: 'OLD_STRING_NOT_FOUND', setup: (c) => put(join(c.root, 'e.txt'), ''), run: (c) => c.hl.edit('e.txt', { oldString: 'x', newString: 'y' }) },
  { name: 'an empty oldString and newString on an empty file', code: 'NO_CHANGE', setup: (c) => put(join(c.root, 'e.txt'), ''), run: (c) => c.hl.edit('e.txt', { oldString: '', newString: '' }) },
  { name: 'a ref past the one line of a file of only \\r', code: 'OUT_OF_RANGE', setup: (c) => put(join(c.root, 'cr.txt'), '\r'), run: (c) => c.hl.edit('cr.txt', { operations: [{ op: 'delete', ref: `2#${refsOf(formatView('\r', { view: 'full' }))[1].slice(2)}` }] }) },
  {
    name: 'a ref without ANCHOR on one of the identical lines of a file of only \\r',
    code: 'HASH_MISMATCH',
    options: { seenGuard: false },
    setup: (c) => put(join(c.root, 'cr.txt'), '\r\r\r'),
    run: (c) => c.hl.edit('cr.txt', { operations: [{ op: 'replace', ref: refsOf(formatView('\r\r\r', { view: 'full' }))[2].replace(/#\w{3}$/, ''), content: 'x' }] }),
    message: /without ANCHOR/,
  },
  { name: 'a file over the size limit', code: 'TOO_LARGE', options: { maxFileBytes: 1000 }, setup: (c) => put(join(c.root, 'big.txt'), 'y'.repeat(1001)), run: (c) => c.hl.edit('big.txt', { operations: [{ op: 'append', content: 'x' }] }) },
  { name: 'an edit whose result would be over the size limit', code: 'TOO_LARGE', options: { maxFileBytes: 1000 }, run: one({ op: 'append', content: 'y'.repeat(2000) }) },
  { name: 'a new file over the size limit', code: 'TOO_LARGE', options: { maxFileBytes: 1000 }, run: (c) => c.hl.edit('new.txt', { oldString: '', newString: 'y'.repeat(2000) }) },
  { name: 'a wrong HASH on a 1 MB single line', code: 'HASH_MISMATCH', setup: (c) => put(join(c.root, 'one.txt'), HUGE), run: (c) => c.hl.edit('one.txt', { operations: [{ op: 'replace', ref: '1#000#000', content: 'y' }] }) },
  { name: 'an oldString that matches a 1 MB single line a million times', code: 'OLD_STRING_AMBIGUOUS', setup: (c) => put(join(c.root, 'one.txt'), HUGE), run: (c) => c.hl.edit('one.txt', { oldString: 'x', newString: 'y' }) },
  {
    name: 'an oldString not found in a 1 MB single line',
    code: 'OLD_STRING_NOT_FOUND',
    setup: (c) => put(join(c.root, 'one.txt'), HUGE),
    // A separate process, so that an engine stuck in the closest-line search
    // fails this case instead of stalling the suite.
    run: (c) => inChild(c.root, 'one.txt', { oldString: 'y', newString: 'z' }),
  },
)

// The fallback's own refusals.
catalogue.push(
  { name: 'an empty oldString on a file that has content', code: 'INVALID_REQUEST', run: req(() => ({ oldString: '', newString: 'x' })) },
  { name: 'an empty oldString with replaceAll on a missing file', code: 'INVALID_REQUEST', run: (c) => c.hl.edit('new.txt', { oldString: '', newString: 'x', replaceAll: true }) },
  { name: 'identical oldString and newString', code: 'NO_CHANGE', run: req(() => ({ oldString: 'b', newString: 'b' })) },
  { name: 'an oldString that is not in the file', code: 'OLD_STRING_NOT_FOUND', run: req(() => ({ oldString: 'zzz', newString: 'x' })) },
  { name: 'an oldString found twice', code: 'OLD_STRING_AMBIGUOUS', setup: (c) => put(join(c.root, 'f.txt'), 'a\nb\na\n'), run: req(() => ({ oldString: 'a', newString: 'x' })) },
)

// Text that is not valid Unicode: a lone UTF-16 surrogate is refused by
// the name of the field that holds it, never written as U+FFFD.
const LONE = '\uD800'
/** @type {Array<[string, (c: Ctx) => unknown, RegExp]>} */
const loneSurrogates = [
  ['`content`', op((r) => ({ op: 'replace', ref: r[2], content: `x${LONE}y` })), /`operations\[0\]\.content`/],
  ['a line of `content` given as an array', op((r) => ({ op: 'replace', ref: r[2], content: ['x', `y\uDC00`] })), /`operations\[0\]\.content\[1\]`/],
  ['the end of `content` (a high surrogate)', op((r) => ({ op: 'insert_after', ref: r[2], content: `x\uDBFF` })), /`operations\[0\]\.content`/],
  ['`newString`', req(() => ({ oldString: 'b', newString: `x${LONE}` })), /`newString`/],
  ['`oldString`', req(() => ({ oldString: `b${LONE}`, newString: 'x' })), /`oldString`/],
  ['`ref`', op((r) => ({ op: 'delete', ref: `${r[2]}${LONE}` })), /`operations\[0\]\.ref`/],
  ['`through`', op((r) => ({ op: 'delete', ref: r[2], through: `${r[3]}${LONE}` })), /`operations\[0\]\.through`/],
  ['`rev`', req((r) => ({ operations: [{ op: 'delete', ref: r[2] }], rev: `72C4946C${LONE}` })), /`rev`/],
  ['`op`', op((r) => ({ op: `delete${LONE}`, ref: r[2] })), /`operations\[0\]\.op`/],
  ['a field name', op((r) => ({ op: 'delete', ref: r[2], [`x${LONE}`]: 1 })), /A field name in `operations\[0\]`/],
  ['the path of an edit creating a file', (c) => c.hl.edit(`g${LONE}.txt`, { oldString: '', newString: 'x' }), /`path`/],
  ['the path of a plan', (c) => c.hl.plan(`g${LONE}.txt`, { operations: [{ op: 'append', content: 'x' }] }), /`path`/],
  ['the path of a read', (c) => c.hl.read(`f.txt${LONE}`), /`path`/],
  ['the path of a tag', (c) => c.hl.tag(`f.txt${LONE}`, [{ line: 1, text: 'a' }]), /`path`/],
  ['the text of a shown line given to tag', (c) => c.hl.tag('f.txt', [{ line: 1, text: `a${LONE}` }]), /`lines\[0\]\.text`/],
  ['the root', (c) => new Hashline({ view: 'full', root: join(c.root, `sub${LONE}`) }), /`options\.root`/],
  ['the store folder', (c) => new Hashline({ view: 'full', root: c.root, storeDir: join(c.parent, `store${LONE}`) }), /`options\.storeDir`/],
  ['the text given to formatView', () => formatView(`a${LONE}\n`, { view: 'full' }), /`text`/],
  ['the path given to formatView', () => formatView('a\n', { path: `p${LONE}`, view: 'full' }), /`options\.path`/],
  ['the text given to applyEdits', () => applyEdits(`a${LONE}\n`, { operations: [{ op: 'append', content: 'x' }] }), /`text`/],
  ['the content given to applyEdits', () => applyEdits('a\n', { operations: [{ op: 'append', content: LONE }] }), /`operations\[0\]\.content`/],
  ['the ref given to parseRef', () => parseRef(`2#E9D#839${LONE}`), /`reference`/],
  ['the line given to lineHash', () => lineHash(`b${LONE}`), /`line`/],
  ['the neighbour given to anchorHash', () => anchorHash(`a${LONE}`, 'b', 'c'), /`prev`/],
  ['the text given to rev', () => rev(`a${LONE}`), /`text`/],
  ['the text given to stripViewPrefixes', () => new Hashline({ root: tmpdir() }).stripViewPrefixes('a.txt', `1#E9D#839|a${LONE}`), /`text`/],
]
for (const [what, run, message] of loneSurrogates) {
  catalogue.push({ name: `a lone UTF-16 surrogate in ${what}`, code: 'INVALID_REQUEST', run, message })
}

// New text with a NUL byte: the file would be binary afterwards.
catalogue.push(
  { name: '`content` with a NUL byte', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'replace', ref: r[2], content: 'x\ny\0z' })), message: /`content` holds a NUL byte \(its line 2, character 2\)/ },
  { name: 'a NUL byte in a line of `content` given as an array', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'insert_after', ref: r[2], content: ['x', '\0'] })), message: /`content` holds a NUL byte/ },
  { name: '`newString` with a NUL byte', code: 'INVALID_REQUEST', run: req(() => ({ oldString: 'b', newString: 'x\0' })), message: /`newString` holds a NUL byte/ },
  { name: 'a new file whose text is a NUL byte', code: 'INVALID_REQUEST', run: (c) => c.hl.edit('new.txt', { oldString: '', newString: '\0' }), message: /`newString` holds a NUL byte/ },
)

// Values that run code while they are read: getters and proxies. The
// engine reads plain data only.
const boom = () => {
  throw new Error('boom')
}
/** @param {Record<string, unknown>} target */
const proxy = (target) => new Proxy(target, {})
catalogue.push(
  { name: 'a getter that throws for `operations`', code: 'INVALID_REQUEST', run: (c) => c.hl.edit('f.txt', { get operations() { return boom() } }), message: /`operations`/ },
  { name: 'a getter that throws for the `ref` of an operation', code: 'INVALID_REQUEST', run: op(() => ({ op: 'delete', get ref() { return boom() } })), message: /`operations\[0\]\.ref`/ },
  { name: 'a getter that throws a non-Error for `content`', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'replace', ref: r[2], get content() { throw 'not an error' } })), message: /`operations\[0\]\.content`/ },
  { name: 'an array element whose getter throws', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'replace', ref: r[2], content: Object.defineProperty(['x', 'y'], 1, { get: boom, enumerable: true }) })), message: /`operations\[0\]\.content\[1\]`/ },
  { name: 'a getter that throws in read options', code: 'INVALID_REQUEST', run: (c) => c.hl.read('f.txt', { get offset() { return boom() } }), message: /`options\.offset`/ },
  { name: 'a getter that throws in edit options', code: 'INVALID_REQUEST', run: (c) => c.hl.edit('f.txt', { operations: [{ op: 'delete', ref: c.refs[2] }] }, { get allowOutsideRoot() { return boom() } }), message: /`options\.allowOutsideRoot`/ },
  { name: 'a getter that throws in the options of new Hashline', code: 'INVALID_REQUEST', run: (c) => new Hashline({ view: 'full', root: c.root, get seenGuard() { return boom() } }), message: /`options\.seenGuard`/ },
  { name: 'a getter that throws in formatView options', code: 'INVALID_REQUEST', run: () => formatView('a\n', { get path() { return boom() } }), message: /`options\.path`/ },
  { name: 'a getter that throws in a line given to tag', code: 'INVALID_REQUEST', run: (c) => c.hl.tag('f.txt', [{ line: 1, get text() { return boom() } }]), message: /`lines\[0\]\.text`/ },
  { name: 'a Proxy as the request', code: 'INVALID_REQUEST', run: (c) => c.hl.edit('f.txt', proxy({ operations: [{ op: 'delete', ref: c.refs[2] }] })), message: /Proxy/ },
  { name: 'a Proxy as an operation', code: 'INVALID_REQUEST', run: (c) => c.hl.edit('f.txt', { operations: [proxy({ op: 'delete', ref: c.refs[2] })] }), message: /`operations\[0\]` is a Proxy/ },
  { name: 'a Proxy as the content array', code: 'INVALID_REQUEST', run: op((r) => ({ op: 'replace', ref: r[2], content: new Proxy(['x'], {}) })), message: /`operations\[0\]\.content` is a Proxy/ },
  { name: 'a Proxy whose traps throw', code: 'INVALID_REQUEST', run: (c) => c.hl.edit('f.txt', new Proxy({}, { ownKeys: boom, get: boom, getOwnPropertyDescriptor: boom })) },
  { name: 'a revoked Proxy', code: 'INVALID_REQUEST', run: (c) => { const { proxy: p, revoke } = Proxy.revocable({ operations: [] }, {}); revoke(); return c.hl.edit('f.txt', p) } },
  { name: 'a Proxy as read options', code: 'INVALID_REQUEST', run: (c) => c.hl.read('f.txt', proxy({ offset: 2 })), message: /`options` is a Proxy/ },
  { name: 'a Proxy as plan options', code: 'INVALID_REQUEST', run: (c) => c.hl.plan('f.txt', { operations: [{ op: 'delete', ref: c.refs[2] }] }, proxy({})), message: /`options` is a Proxy/ },
  { name: 'a Proxy as the options of new Hashline', code: 'INVALID_REQUEST', run: (c) => new Hashline(proxy({ root: c.root })), message: /`options` is a Proxy/ },
  { name: 'a Proxy as formatView options', code: 'INVALID_REQUEST', run: () => formatView('a\n', proxy({})), message: /`options` is a Proxy/ },
  { name: 'a Proxy as the lines given to tag', code: 'INVALID_REQUEST', run: (c) => c.hl.tag('f.txt', new Proxy([{ line: 1, text: 'a' }], {})), message: /`lines` is a Proxy/ },
  { name: 'a request that contains itself', code: 'INVALID_REQUEST', run: (c) => { const r = /** @type {any} */ ({ operations: [{ op: 'append', content: [] }] }); r.operations[0].content.push(r); return c.hl.edit('f.txt', r) } },
)

// commit() of something that is not a plan.
catalogue.push(
  { name: 'commit of null', code: 'INVALID_REQUEST', run: (c) => c.hl.commit(/** @type {any} */ (null)), message: /plan/ },
  { name: 'commit of nothing', code: 'INVALID_REQUEST', run: (c) => /** @type {any} */ (c.hl).commit(), message: /plan/ },
  { name: 'commit of a plain object', code: 'INVALID_REQUEST', run: (c) => c.hl.commit(/** @type {any} */ ({})), message: /plan/ },
  {
    name: 'commit of an object copied from a plan',
    code: 'INVALID_REQUEST',
    run: (c) => {
      const plan = c.hl.plan('f.txt', { operations: [{ op: 'replace', ref: c.refs[2], content: 'x' }] })
      const copy = { output: plan.output, path: plan.path, rev: plan.rev, previousRev: plan.previousRev, diff: plan.diff, additions: plan.additions, deletions: plan.deletions }
      return c.hl.commit(/** @type {any} */ (copy))
    },
  },
  {
    name: 'commit of an object with a plan\'s prototype',
    code: 'INVALID_REQUEST',
    run: (c) => {
      const plan = c.hl.plan('f.txt', { operations: [{ op: 'replace', ref: c.refs[2], content: 'x' }] })
      return c.hl.commit(Object.create(Object.getPrototypeOf(plan)))
    },
  },
  {
    name: 'commit of a Proxy of a plan',
    code: 'INVALID_REQUEST',
    run: (c) => c.hl.commit(new Proxy(c.hl.plan('f.txt', { operations: [{ op: 'replace', ref: c.refs[2], content: 'x' }] }), {})),
  },
)

// Two phases: the file changed between plan and commit.
catalogue.push({
  name: 'a commit after the file changed on disk',
  code: 'BASE_CHANGED',
  setup: (c) => {
    c.state = c.hl.plan('f.txt', { operations: [{ op: 'replace', ref: c.refs[2], content: 'x' }] })
    put(join(c.root, 'f.txt'), 'a\nb\nc\nd\nexternal\n')
  },
  run: (c) => c.hl.commit(c.state),
})

/** Content nested `depth` arrays deep. @param {number} depth */
function nested(depth) {
  /** @type {unknown} */
  let value = 'x'
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

/** @param {string} path */
function mkfifo(path) {
  const made = spawnSync('mkfifo', [path])
  if (made.status !== 0) throw new Error('mkfifo failed')
}

/**
 * An edit in a child process, bounded so a stuck engine is a failure.
 * @param {string} root @param {string} path @param {unknown} request
 */
function inChild(root, path, request) {
  const index = fileURLToPath(new URL('../../index.js', import.meta.url))
  const script = `
    const { Hashline } = require(${JSON.stringify(index)})
    try { new Hashline({ view: 'full', root: ${JSON.stringify(root)} }).edit(${JSON.stringify(path)}, ${JSON.stringify(request)}); console.log('{}') }
    catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })) }`
  const out = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000, maxBuffer: 64 << 20 })
  if (out.signal) return { code: `no answer (killed by ${out.signal})`, message: '' }
  return JSON.parse(out.stdout)
}

const names = new Set()
for (const c of catalogue) {
  if (names.has(c.name)) throw new Error(`duplicate case name: ${c.name}`)
  names.add(c.name)
  ;(c.skip ? test.skip : test)(`hostile: ${c.name} -> ${c.code}, nothing changed${c.skip ? ` (skipped: ${c.skip})` : ''}`, (t) => {
    const parent = scratch(t)
    const root = join(parent, 'root')
    const outside = join(parent, 'outside')
    mkdirSync(root)
    mkdirSync(outside)
    put(join(root, 'f.txt'), BASE)
    put(join(outside, 'secret.txt'), 'secret\n')
    const hl = new Hashline({ view: 'full', root, ...c.options })
    const refs = refsOf(hl.read('f.txt').text)
    /** @type {Ctx} */
    const ctx = { parent, root, outside, hl, refs, state: undefined }
    c.setup?.(ctx)
    const before = snapshot(parent)
    /** @type {Failure | undefined} */
    let err
    try {
      const outcome = /** @type {Failure & { ok?: boolean }} */ (c.run(ctx))
      if (outcome && typeof outcome === 'object' && 'code' in outcome) err = outcome
    } catch (e) {
      err = /** @type {Failure} */ (e)
    }
    t.deepEqual(snapshot(parent), before, 'the scratch tree is unchanged')
    if (!err) return t.fail(`no error; expected ${c.code}`)
    t.is(err.code, c.code, err.message?.slice(0, 500))
    t.is(typeof err.message, 'string')
    const message = err.message ?? ''
    t.true(message.length > 10 && message.length <= MAX_MESSAGE, `a short message (${message.length} characters)`)
    if (c.message) t.regex(message, c.message)
    c.check?.(t, err, ctx)
  })
}

test(`the catalogue holds at least 60 cases (${catalogue.length})`, (t) => {
  t.true(catalogue.length >= 60)
})

test('null in an optional field means the field is absent, as strict tool-calling schemas send it', (t) => {
  const dir = scratch(t)
  put(join(dir, 'f.txt'), BASE)
  const hl = new Hashline({ view: 'full', root: dir })
  const refs = refsOf(hl.read('f.txt').text)
  hl.edit('f.txt', { operations: [{ op: 'replace', ref: refs[2], through: null, content: 'B' }], rev: null, oldString: null, newString: null, replaceAll: null })
  t.is(readFileSync(join(dir, 'f.txt'), 'utf8'), 'a\nB\nc\nd\n')
  hl.edit('f.txt', { operations: null, rev: null, oldString: 'B', newString: 'b', replaceAll: null })
  t.is(readFileSync(join(dir, 'f.txt'), 'utf8'), BASE)
})

test('an edit keeps the owner of a file that belongs to another user', (t) => {
  if (process.getuid?.() !== 0) return t.pass('only root can hand a file to another user')
  const dir = scratch(t)
  const file = join(dir, 'theirs.txt')
  put(file, 'a\nb\n')
  chownSync(file, 65534, 65534)
  const hl = new Hashline({ view: 'full', root: dir })
  const refs = refsOf(hl.read('theirs.txt').text)
  hl.edit('theirs.txt', { operations: [{ op: 'replace', ref: refs[1], content: 'A' }] })
  t.is(readFileSync(file, 'utf8'), 'A\nb\n')
  const st = statSync(file)
  t.deepEqual([st.uid, st.gid], [65534, 65534])
})
