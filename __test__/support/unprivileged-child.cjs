// Runs one read or edit as an unprivileged user and prints the outcome as
// JSON. Root may read and write any file, so permission checks need a
// process that is not root; when started as root it drops to nobody
// (uid/gid 65534) before loading the addon, which must then lie where nobody
// can read it (see unprivileged.mjs). This file is read while still root.
//
// Usage: node unprivileged-child.cjs '{"binary": "...", "root": "...", "path": "...", "action": "read" | "edit"}'
// "edit" reads the file and replaces its first line with "changed".
"use strict"

const { binary, root, path, action } = JSON.parse(process.argv[2] ?? "{}")
if (process.getuid?.() === 0) {
  try {
    process.setgid?.(65534)
    process.setuid?.(65534)
  } catch (err) {
    console.log(JSON.stringify({ setup: `could not become uid 65534: ${/** @type {Error} */ (err).message}` }))
    process.exit(0)
  }
}

let Hashline
try {
  ;({ Hashline } = require(binary))
} catch (err) {
  console.log(JSON.stringify({ setup: `uid ${process.getuid?.()} could not load the addon ${binary}: ${/** @type {Error} */ (err).message.split("\n")[0]}` }))
  process.exit(0)
}

try {
  const hl = new Hashline({ view: "full", root })
  const view = hl.read(path)
  if (action === "edit") {
    const first = view.text.split("\n")[1] ?? ""
    const ref = first.slice(0, first.indexOf("|"))
    hl.edit(path, { operations: [{ op: "replace", ref, content: "changed" }] })
  }
  console.log(JSON.stringify({ ok: true }))
} catch (err) {
  const e = /** @type {{ code?: string, message: string }} */ (err)
  console.log(JSON.stringify({ code: e.code, message: e.message }))
}
