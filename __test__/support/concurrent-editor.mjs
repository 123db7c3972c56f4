// @ts-check
// One of several processes editing the same file at once. It reads the
// file (so its session holds the version the shared refs were taken from),
// says "ready", waits for "go" on stdin, then makes `count` edits, each an
// insert of its own marker line after its region's header, citing the
// header by the ref from the shared read. It prints, as JSON, which edits
// reported success and the error code of every one that did not.
//
// Usage: node concurrent-editor.mjs '{"root", "path", "worker", "count", "ref"}'
import { createRequire } from 'node:module'
import { createInterface } from 'node:readline'

const { root, path, worker, count, ref } = JSON.parse(process.argv[2] ?? '{}')
const { Hashline } = createRequire(import.meta.url)('../../index.js')

const hl = new Hashline({ view: 'full', root })
hl.read(path)
process.stdout.write('ready\n')
await new Promise((resolve) => createInterface({ input: process.stdin }).once('line', resolve))

/** @type {number[]} */
const landed = []
/** @type {Record<string, number>} */
const rejected = {}
/** @type {Record<number, string>} */
const codes = {}
for (let i = 0; i < count; i++) {
  try {
    hl.edit(path, { operations: [{ op: 'insert_after', ref, content: `${worker}:${i}` }] })
    landed.push(i)
  } catch (err) {
    const code = /** @type {{ code?: string }} */ (err).code ?? 'NO_CODE'
    rejected[code] = (rejected[code] ?? 0) + 1
    codes[i] = code
  }
}
process.stdout.write(`${JSON.stringify({ worker, landed, rejected, codes })}\n`)
process.exit(0)
