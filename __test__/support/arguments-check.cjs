// Reads arguments the ways the argument tests do, in whichever runtime runs
// this file (Node or Bun), and prints what each call did as JSON: the
// reading relies on what each runtime's Node-API gives, which differs in
// details (Bun lists array indices as strings, Node as numbers).
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { Hashline } = require(process.argv[2])

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hashline-arguments-'))
const outcome = (fn) => {
  try {
    const value = fn()
    return { ok: value }
  } catch (err) {
    return { code: err.code ?? 'no code', message: String(err.message) }
  }
}
const polluted = (target, key, value, fn) => {
  Object.defineProperty(target, key, { value, configurable: true, enumerable: true, writable: true })
  try {
    return outcome(fn)
  } finally {
    delete target[key]
  }
}

try {
  fs.writeFileSync(path.join(root, 'f.txt'), 'b\nb\nc\n')
  const hl = new Hashline({ view: 'full', root })
  const view = hl.read('f.txt').text
  const ref = /^3#\w{3}#\w{3}/m.exec(view)[0]
  const results = {
    'a dense content array': outcome(() => hl.plan('f.txt', { operations: [{ op: 'append', content: ['x', 'y'] }] }).diff),
    // eslint-disable-next-line no-sparse-arrays
    'a sparse content array on a polluted Array.prototype': polluted(Array.prototype, 1, 'polluted', () => hl.plan('f.txt', { operations: [{ op: 'append', content: ['x', , 'y'] }] }).diff),
    'replaceAll on Object.prototype': polluted(Object.prototype, 'replaceAll', true, () => hl.plan('f.txt', { oldString: 'b', newString: 'x' }).diff),
    'a lone surrogate in content': outcome(() => hl.plan('f.txt', { operations: [{ op: 'replace', ref, content: ['ok', 'x\uD800'] }] }).diff),
    'a lone surrogate in a path': outcome(() => hl.edit('g\uDC00.txt', { oldString: '', newString: 'x' }).path),
    'a getter that throws': outcome(() => hl.plan('f.txt', { operations: [{ op: 'replace', ref, get content() { throw new Error('boom') } }] })),
    'a Proxy': outcome(() => hl.plan('f.txt', { operations: [new Proxy({ op: 'append', content: 'x' }, {})] })),
    'shown lines given to tag': outcome(() => hl.tag('f.txt', [{ line: 3, text: 'c' }, { line: 1, text: 'b', truncated: true }]).refs.map(Boolean)),
    'commit of a plain object': outcome(() => hl.commit({})),
    'characters outside the BMP': outcome(() => {
      hl.edit('f.txt', { operations: [{ op: 'replace', ref, content: '🚀 𝔘' }] })
      return fs.readFileSync(path.join(root, 'f.txt')).toString('hex')
    }),
  }
  process.stdout.write(JSON.stringify(results))
} finally {
  fs.rmSync(root, { recursive: true, force: true })
}
