// @ts-check
// Arguments are read as data the caller owns: own properties only, so a
// polluted prototype changes nothing; strings as valid Unicode; and the
// JS hosts read their arguments the same way. Each pollution test compares
// what a call does on a clean prototype with what it does on a polluted one.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseEditArguments, parseReadArguments } from '../../lib/arguments.cjs'
import { createTools } from '../../lib/tools.mjs'
import { binding, refsOf as untypedRefsOf, scratch } from '../helpers.mjs'

const { Hashline, formatView, applyEdits } = binding

/** Where a polluted `storeDir` would put versions. */
const STORE = join(tmpdir(), `hashline-polluted-store-${process.pid}`)
test.after.always(() => rmSync(STORE, { recursive: true, force: true }))

/** @param {string} text */
const refsOf = (text) => /** @type {Record<number, string>} */ (untypedRefsOf(text))

/**
 * A project with f.txt ("b", "b", "c", "d"), a file outside it, and an
 * engine that has read f.txt.
 * @param {import('ava').ExecutionContext} t
 */
function setup(t) {
  const parent = scratch(t)
  const root = join(parent, 'root')
  mkdirSync(root)
  writeFileSync(join(root, 'f.txt'), 'b\nb\nc\nd\n')
  writeFileSync(join(parent, 'secret.txt'), 'secret\n')
  const hl = new Hashline({ view: 'full', root })
  const refs = refsOf(hl.read('f.txt').text)
  return { parent, root, hl, refs, secret: join(parent, 'secret.txt') }
}

/**
 * What a call did, as plain data with the scratch folder's name taken out.
 * @param {string} parent
 * @param {() => unknown} call
 */
async function outcome(parent, call) {
  /** @type {unknown} */
  let result
  try {
    const value = await call()
    result = { ok: value === undefined ? null : JSON.parse(JSON.stringify(value)) }
  } catch (err) {
    const e = /** @type {{ code?: unknown, message?: unknown }} */ (err)
    result = { code: e.code ?? 'no code', message: String(e.message) }
  }
  return JSON.parse(JSON.stringify(result).split(parent).join('<dir>'))
}

/**
 * Runs `call` on a fresh project with `target[key]` unset, and again on
 * another with it set to `value`, and checks that both did the same.
 * @param {import('ava').ExecutionContext} t
 * @param {object} target
 * @param {PropertyKey} key
 * @param {unknown} value
 * @param {(s: ReturnType<typeof setup>) => unknown} call
 */
async function samePolluted(t, target, key, value, call) {
  const clean = setup(t)
  const expected = await outcome(clean.parent, () => call(clean))
  const dirty = setup(t)
  Object.defineProperty(target, key, { value, configurable: true, enumerable: true, writable: true })
  /** @type {unknown} */
  let actual
  try {
    actual = await outcome(dirty.parent, () => call(dirty))
  } finally {
    delete (/** @type {any} */ (target))[key]
  }
  t.deepEqual(actual, expected)
}

/** @type {Array<[string, unknown, string, (s: ReturnType<typeof setup>) => unknown]>} */
const polluted = [
  ['replaceAll', true, 'an oldString found twice stays ambiguous', (s) => s.hl.plan('f.txt', { oldString: 'b', newString: 'x' }).diff],
  ['operations', [{ op: 'append', content: 'x' }], 'a fallback request stays a fallback', (s) => s.hl.plan('f.txt', { oldString: 'c', newString: 'x' }).diff],
  ['oldString', 'c', 'a request of operations stays one', (s) => s.hl.plan('f.txt', { operations: [{ op: 'append', content: 'x' }] }).diff],
  ['newString', 'x', 'a request of operations stays one', (s) => s.hl.plan('f.txt', { operations: [{ op: 'append', content: 'x' }] }).diff],
  ['rev', 'FFFFFFFF', 'no REV is read into a request without one', (s) => s.hl.plan('f.txt', { operations: [{ op: 'replace', ref: s.refs[3], content: 'x' }] }).output],
  ['through', '4#000#000', 'a one-line replace stays one line', (s) => s.hl.plan('f.txt', { operations: [{ op: 'replace', ref: s.refs[3], content: 'x' }] }).diff],
  ['content', 'x', 'a delete takes no content', (s) => s.hl.plan('f.txt', { operations: [{ op: 'delete', ref: s.refs[3] }] }).diff],
  ['ref', '1#000#000', 'an append takes no ref', (s) => s.hl.plan('f.txt', { operations: [{ op: 'append', content: 'x' }] }).diff],
  ['allowOutsideRoot', true, 'a read with options stays inside the root', (s) => s.hl.read(s.secret, {}).text],
  ['allowOutsideRoot', true, 'a plan with options stays inside the root', (s) => s.hl.plan(s.secret, { operations: [{ op: 'append', content: 'x' }] }, {}).diff],
  ['allowOutsideRoot', true, 'a new engine stays inside the root', (s) => new Hashline({ view: 'full', root: s.root }).read(s.secret).text],
  ['offset', 3, 'a read with options starts at line 1', (s) => s.hl.read('f.txt', {}).text],
  ['limit', 1, 'a read with options shows every line', (s) => s.hl.read('f.txt', {}).text],
  ['maxFileBytes', 1, 'a new engine keeps the default size limit', (s) => new Hashline({ view: 'full', root: s.root }).read('f.txt').text],
  ['root', '/', 'a new engine without a root works in the current folder', () => new Hashline({ view: 'full' }).root],
  [
    'storeDir',
    STORE,
    'a new engine keeps versions in memory',
    (s) => {
      new Hashline({ view: 'full', root: s.root }).read('f.txt')
      return existsSync(STORE)
    },
  ],
  ['cleanup', false, 'view prefixes copied into content are still removed', (s) => s.hl.plan('f.txt', { operations: [{ op: 'replace', ref: s.refs[3], content: '3#AAA#BBB|x' }] }).diff],
  [
    'seenGuard',
    false,
    'an edit on lines no view showed is still refused',
    (s) => {
      const hl = new Hashline({ view: 'full', root: s.root })
      hl.read('f.txt', { limit: 1 })
      return hl.plan('f.txt', { operations: [{ op: 'delete', ref: s.refs[4] }] }).diff
    },
  ],
  ['path', 'EVIL', 'formatView names the text "text"', () => formatView('a\n', { view: 'full' })],
  ['limit', 1, 'formatView shows every line', () => formatView('a\nb\n', { view: 'full' })],
  ['truncated', true, 'a shown line is compared whole', (s) => s.hl.tag('f.txt', [{ line: 3, text: 'c' }, { line: 4, text: '' }]).refs],
  ['hidden', true, 'a search skips hidden files', (s) => {
    writeFileSync(join(s.root, '.hidden.txt'), 'b\n')
    return s.hl.search('b', {}).text
  }],
  ['maxResults', 1, 'a search shows every hit up to the default limit', (s) => s.hl.search('b', {}).text],
  ['invert', true, 'a search shows matching lines', (s) => s.hl.search('c', {}).text],
  ['op', 'delete', 'applyEdits reads only the fields given', () => applyEdits('a\n', { operations: [{ op: 'append', content: 'x' }] }).text],
]
for (const [key, value, what, call] of polluted) {
  test.serial(`a polluted Object.prototype.${key} changes nothing: ${what}`, (t) => samePolluted(t, Object.prototype, key, value, call))
}

test.serial('a polluted Array.prototype does not fill the holes of a sparse content array', (t) =>
  // eslint-disable-next-line no-sparse-arrays
  samePolluted(t, Array.prototype, 1, 'polluted', (s) => s.hl.plan('f.txt', { operations: [{ op: 'append', content: ['a', , 'c'] }] }).diff),
)

test.serial('a polluted Array.prototype does not fill the holes of a sparse operations array', (t) =>
  // eslint-disable-next-line no-sparse-arrays
  samePolluted(t, Array.prototype, 1, { op: 'append', content: 'x' }, (s) => s.hl.plan('f.txt', { operations: [{ op: 'append', content: 'a' }, , { op: 'prepend', content: 'c' }] }).diff),
)

test.serial('a polluted Object.prototype changes no argument of the JS hosts', async (t) => {
  await samePolluted(t, Object.prototype, 'operations', [{ op: 'append', content: 'x' }], () => parseEditArguments({ filePath: 'f.txt', oldString: 'c', newString: 'x' }))
  await samePolluted(t, Object.prototype, 'oldString', 'c', () => parseEditArguments({ filePath: 'f.txt', operations: [{ op: 'append', content: 'x' }] }))
  await samePolluted(t, Object.prototype, 'replaceAll', true, () => parseEditArguments({ filePath: 'f.txt', oldString: 'c', newString: 'x' }))
  await samePolluted(t, Object.prototype, 'offset', 3, () => parseReadArguments({ filePath: 'f.txt' }))
  await samePolluted(t, Object.prototype, 'operations', [{ op: 'append', content: 'x' }], (s) => createTools({ root: s.root }).edit.execute({ filePath: 'f.txt', oldString: 'c', newString: 'x' }))
  await samePolluted(t, Object.prototype, 'allowOutsideRoot', true, (s) => createTools({ root: s.root }).read.execute({ filePath: s.secret }))
  await samePolluted(t, Object.prototype, 'path', 'g.txt', (s) => s.hl.applyBatch([{ filePath: 'f.txt', operations: [{ op: 'append', content: 'x' }] }]))
  await samePolluted(t, Object.prototype, 'filePath', 'g.txt', (s) => s.hl.applyBatch([{ path: 'f.txt', operations: [{ op: 'append', content: 'x' }] }]))
})

test('a getter that throws or a Proxy in the arguments of a JS host is INVALID_REQUEST', async (t) => {
  const s = setup(t)
  const tools = createTools({ root: s.root })
  const boom = () => {
    throw new Error('boom')
  }
  const attempts = [
    () => parseEditArguments(new Proxy({ filePath: 'f.txt', operations: [{ op: 'append', content: 'x' }] }, {})),
    () => parseEditArguments({ filePath: 'f.txt', get operations() { return boom() } }),
    () => parseReadArguments({ get filePath() { return boom() } }),
    () => tools.edit.execute({ filePath: 'f.txt', get oldString() { return boom() }, newString: 'x' }),
    () => tools.read.execute(new Proxy({ filePath: 'f.txt' }, {})),
    () => tools.edit.execute({ filePath: 'f.txt', operations: [new Proxy({ op: 'append', content: 'x' }, {})] }),
    () => s.hl.applyBatch([new Proxy({ path: 'f.txt', operations: [{ op: 'append', content: 'x' }] }, {})]),
  ]
  for (const attempt of attempts) {
    const result = await outcome(s.parent, attempt)
    if ('ok' in result && result.ok && typeof result.ok === 'object' && 'errors' in result.ok) {
      t.is(result.ok.errors[0].code, 'INVALID_REQUEST', JSON.stringify(result))
    } else {
      t.is(result.code, 'INVALID_REQUEST', JSON.stringify(result))
    }
  }
  t.is(readFileSync(join(s.root, 'f.txt'), 'utf8'), 'b\nb\nc\nd\n')
})

test('characters outside the BMP, held by JS as surrogate pairs, are written as their UTF-8 bytes', (t) => {
  const s = setup(t)
  const text = 'naïve 🚀 データ 𝔘'
  s.hl.edit('f.txt', { operations: [{ op: 'replace', ref: s.refs[3], content: text }] })
  t.deepEqual(readFileSync(join(s.root, 'f.txt')), Buffer.from(`b\nb\n${text}\nd\n`, 'utf8'))
  s.hl.edit('🚀-ü.txt', { oldString: '', newString: text })
  t.true(readdirSync(s.root).includes('🚀-ü.txt'))
  t.deepEqual(readFileSync(join(s.root, '🚀-ü.txt')), Buffer.from(text, 'utf8'))
  t.is(formatView(`${text}\n`, { path: '🚀', view: 'full' }).split('\n')[0].slice(0, 2), '🚀')
})

test('a getter that returns a value is read once, as the value it returned', (t) => {
  const s = setup(t)
  let reads = 0
  const operation = {
    op: 'replace',
    ref: s.refs[3],
    get content() {
      reads += 1
      return reads === 1 ? 'first' : 'second'
    },
  }
  s.hl.edit('f.txt', { operations: [operation] })
  t.is(reads, 1)
  t.is(readFileSync(join(s.root, 'f.txt'), 'utf8'), 'b\nb\nfirst\nd\n')
})

const REPO = fileURLToPath(new URL('../..', import.meta.url))
const CHECK = fileURLToPath(new URL('../support/arguments-check.cjs', import.meta.url))

/** Bun from the `bun` npm package (its launcher, else its platform binary). */
function bunBinary() {
  const exe = process.platform === 'win32' ? '.exe' : ''
  const arch = process.arch === 'arm64' ? 'aarch64' : process.arch
  const base = `bun-${process.platform === 'win32' ? 'windows' : process.platform}-${arch}`
  const candidates = [join(REPO, 'node_modules', '.bin', `bun${exe}`), ...[base, `${base}-baseline`, `${base}-musl`, `${base}-baseline-musl`].map((name) => join(REPO, 'node_modules', '@oven', name, 'bin', `bun${exe}`))]
  const found = candidates.find((file) => existsSync(file) && spawnSync(file, ['--version'], { timeout: 30_000 }).status === 0)
  if (!found) throw new Error('no working bun binary in node_modules; run npm install')
  return found
}

test('under Bun the arguments are read exactly as under Node', (t) => {
  const runs = [process.execPath, bunBinary()].map((runtime) => {
    const out = spawnSync(runtime, [CHECK, join(REPO, 'index.js')], { encoding: 'utf8', timeout: 60_000 })
    t.is(out.status, 0, out.stderr)
    return JSON.parse(out.stdout)
  })
  t.deepEqual(runs[1], runs[0])
  const codes = Object.fromEntries(Object.entries(runs[0]).map(([name, r]) => [name, r.code ?? 'ok']))
  t.deepEqual(codes, {
    'a dense content array': 'ok',
    'a sparse content array on a polluted Array.prototype': 'INVALID_REQUEST',
    'replaceAll on Object.prototype': 'OLD_STRING_AMBIGUOUS',
    'a lone surrogate in content': 'INVALID_REQUEST',
    'a lone surrogate in a path': 'INVALID_REQUEST',
    'a getter that throws': 'INVALID_REQUEST',
    'a Proxy': 'INVALID_REQUEST',
    'shown lines given to tag': 'ok',
    'commit of a plain object': 'INVALID_REQUEST',
    'characters outside the BMP': 'ok',
  })
  t.regex(runs[0]['a sparse content array on a polluted Array.prototype'].message, /holds null/)
  t.is(runs[0]['characters outside the BMP'].ok, Buffer.from('b\nb\n🚀 𝔘\n').toString('hex'))
})

test('text arguments read back byte for byte on the ASCII path and the UTF-16 path, and a lone surrogate is refused at its index', (t) => {
  // Pieces that take each path: ASCII only, other BMP characters, pairs,
  // and lone surrogates, which no UTF-8 can hold.
  const pieces = ['a', 'Z', ' ', '\t', '~', 'é', 'ÿ', 'Ā', '日', '\uFFFF', '🎉', '\u{10FFFF}', '\uD800', '\uDFFF']
  let seed = 7
  /** @param {number} n */
  const random = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n
  }
  for (let run = 0; run < 400; run++) {
    const length = random(40)
    let line = ''
    for (let i = 0; i < length; i++) line += pieces[random(run % 3 === 0 ? 5 : pieces.length)]
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.exec(line)
    if (lone) {
      const err = /** @type {any} */ (t.throws(() => applyEdits('x\n', { oldString: 'x', newString: line })))
      t.is(err?.code, 'INVALID_REQUEST')
      t.true(err?.message.includes(`at index ${lone.index}`), err?.message)
    } else {
      const { text } = applyEdits('x\n', { oldString: 'x', newString: line })
      t.is(text, `${line}\n`)
      t.is(Buffer.from(text, 'utf8').toString('utf8'), `${line}\n`)
    }
  }
})
