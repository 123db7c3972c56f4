// @ts-check
// Runs one read or edit as an unprivileged user and prints the outcome as
// JSON. Root may read and write any file, so permission checks need a
// process that is not root; when started as root it drops to nobody
// (uid/gid 65534) before loading the binding.
//
// Usage: node unprivileged.mjs '{"root": "...", "path": "...", "action": "read" | "edit"}'
// "edit" reads the file and replaces its first line with "changed".
import { createRequire } from 'node:module'

const { root, path, action } = JSON.parse(process.argv[2] ?? '{}')
if (process.getuid?.() === 0) {
  process.setgid?.(65534)
  process.setuid?.(65534)
}
const { Hashline } = createRequire(import.meta.url)('../../index.js')

try {
  const hl = new Hashline({ view: 'full', root })
  const view = hl.read(path)
  if (action === 'edit') {
    const first = view.text.split('\n')[1] ?? ''
    const ref = first.slice(0, first.indexOf('|'))
    hl.edit(path, { operations: [{ op: 'replace', ref, content: 'changed' }] })
  }
  console.log(JSON.stringify({ ok: true }))
} catch (err) {
  const e = /** @type {{ code?: string, message: string }} */ (err)
  console.log(JSON.stringify({ code: e.code, message: e.message }))
}
