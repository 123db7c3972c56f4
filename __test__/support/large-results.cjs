// Large and small results built in one runtime, checked against what JS computes for
// the same text: prints one JSON object of check name → true or a reason.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const binding = require(process.argv[2])
const { formatView, applyEdits, lineHash, anchorHash, rev, Hashline } = binding

/** `lines` lines of about 40 characters, `extra` appended to every 7th. */
function textOf(lines, extra) {
  const out = []
  for (let i = 0; i < lines; i++) out.push(`  const value${i} = compute(${i * 7919 % 1000}, "x")${i % 7 ? '' : extra}`)
  return out.join('\n') + '\n'
}

function expectedView(text, name) {
  const lines = text.slice(0, -1).split('\n')
  const body = lines.map((line, i) => `${i + 1}#${lineHash(line)}#${anchorHash(lines[i - 1] ?? null, line, lines[i + 1])}|${line}`)
  return `${name} REV:${rev(text)} lines 1-${lines.length} of ${lines.length}\n${body.join('\n')}\n`
}

function check(name, fn, results) {
  try {
    const why = fn()
    results[name] = why === undefined ? true : why
  } catch (e) {
    results[name] = `threw ${e && e.code} ${e && e.message}`
  }
}

const results = {}
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hashline-large-'))
try {
  // Large results are lent to the runtime, small ones copied; each as
  // Latin-1 when every character fits it, else as UTF-8 or UTF-16.
  for (const [size, n] of [['large', 4000], ['small', 40]]) {
    for (const [kind, extra] of [['ascii', ' // ok'], ['latin-1', ' // é ü ÿ'], ['non-ascii', ' // é 🚀']]) {
      const name = size === 'large' ? kind : `small ${kind}`
      const text = textOf(n, extra)
      const at = n / 2
      check(`${name} view`, () => {
        const view = formatView(text, { path: 'big.js', view: 'full', limit: n })
        if (view !== expectedView(text, 'big.js')) return 'the view differs from the one computed in JS'
      }, results)
      check(`${name} edit`, () => {
        const lines = text.slice(0, -1).split('\n')
        const ref = `${at}#${lineHash(lines[at - 1])}#${anchorHash(lines[at - 2], lines[at - 1], lines[at])}`
        const out = applyEdits(text, { operations: [{ op: 'replace', ref, content: `changed(); // ${extra}` }] })
        lines[at - 1] = `changed(); // ${extra}`
        if (out.text !== lines.join('\n') + '\n') return 'the edited text differs'
        if (out.rev !== rev(out.text)) return 'the REV is not the text\'s'
      }, results)
      check(`${name} read`, () => {
        fs.writeFileSync(path.join(root, `${name}.js`), text)
        const read = new Hashline({ root }).read(`${name}.js`, { view: 'full', limit: n })
        if (read.text !== expectedView(text, `${name}.js`)) return 'the read view differs from the one computed in JS'
      }, results)
    }
  }
  // Many large results dropped while others live: each kept one must still
  // read as it was made once the collector has freed the rest.
  check('results outlive collections', () => {
    const text = textOf(4000, ' // ok')
    const kept = []
    for (let i = 0; i < 40; i++) {
      const view = formatView(text, { path: `f${i}.js`, view: 'full', limit: 4000 })
      if (i % 8 === 0) kept.push([i, view])
    }
    if (typeof globalThis.gc === 'function') globalThis.gc()
    else if (typeof Bun !== 'undefined') Bun.gc(true)
    for (const [i, view] of kept) {
      if (view !== expectedView(text, `f${i}.js`)) return `result ${i} changed after a collection`
    }
  }, results)
} finally {
  fs.rmSync(root, { recursive: true, force: true })
}
process.stdout.write(JSON.stringify(results))
