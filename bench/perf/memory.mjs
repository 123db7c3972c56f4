// @ts-check
// One memory measurement in a process of its own, so that nothing else has
// raised its peak: loads the binding (or the JS baseline), notes the
// resident memory, runs one view or one edit, and prints the peak.
//
// Usage: node memory.mjs '<json>' with
//   { binding, root, file, mode: 'engine-view' | 'engine-view-full' | 'engine-edit' | 'js-view' | 'js-edit', ops?, maxFileBytes }

import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import { JsSession } from './baseline.mjs'

/** @param {string} field */
function statusKb(field) {
  const status = fs.readFileSync('/proc/self/status', 'utf8')
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)
  if (!m) throw new Error(`no ${field} in /proc/self/status`)
  return Number(m[1])
}

const job = JSON.parse(process.argv[2])
const engine = job.mode.startsWith('engine')
const session = engine
  ? new (createRequire(import.meta.url)(job.binding).Hashline)({ root: job.root, maxFileBytes: job.maxFileBytes, seenGuard: false })
  : new JsSession({ root: job.root, maxFileBytes: job.maxFileBytes })
const request = job.ops ? { operations: JSON.parse(fs.readFileSync(job.ops, 'utf8')) } : undefined
const before = statusKb('VmRSS')
let produced = 0
switch (job.mode) {
  case 'engine-view':
  case 'js-view':
    produced = session.read(job.file).text.length
    break
  case 'engine-view-full':
    produced = session.read(job.file, { limit: job.lines }).text.length
    break
  case 'engine-edit':
  case 'js-edit':
    produced = session.edit(job.file, /** @type {any} */ (request)).output.length
    break
  default:
    throw new Error(`unknown mode ${job.mode}`)
}
process.stdout.write(JSON.stringify({ beforeKb: before, peakKb: statusKb('VmHWM'), produced }) + '\n')
