// @ts-check
// The MCP server's memory is bounded whatever its client does: a client
// that sends hundreds of reads of a large file and never reads the answers
// leaves the server holding a few of them, not all. The server process is
// measured from outside (its peak resident size, from /proc), once it has
// stopped working; then the client reads again and the answers come.
import test from 'ava'
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { scratch } from '../helpers.mjs'

const CLI = fileURLToPath(new URL('../../cli/hashline.cjs', import.meta.url))
/** The peak resident size the server may reach here. */
const BOUND_MB = 400
const CALLS = 300

/**
 * A field of /proc/PID/status, in kB.
 * @param {number} pid @param {string} field
 */
function status(pid, field) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`))
  return Number(line?.split(/\s+/)[1])
}

/** The processor time the process used so far, in clock ticks. @param {number} pid */
function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(fields[11]) + Number(fields[12])
}

const linux = process.platform === 'linux' ? test : test.skip

linux(`a client that never reads its answers leaves the server under ${BOUND_MB} MB, and it answers once read again`, async (t) => {
  const root = scratch(t)
  // 2000 lines of 2000 characters: each read answers about 4 MB of text,
  // and as much again as structured content.
  writeFileSync(join(root, 'big.txt'), `${'x'.repeat(1999)}\n`.repeat(2000))
  const server = spawn(process.execPath, [CLI, 'mcp', '--root', root], { stdio: ['pipe', 'pipe', 'inherit'] })
  t.teardown(() => server.kill('SIGKILL'))
  const stdin = /** @type {import('node:stream').Writable} */ (server.stdin)
  const stdout = /** @type {import('node:stream').Readable} */ (server.stdout)
  const pid = /** @type {number} */ (server.pid)

  let buffered = ''
  /** @type {any[]} */
  const answers = []
  stdout.setEncoding('utf8')
  stdout.on('data', (chunk) => {
    buffered += chunk
    let end
    while ((end = buffered.indexOf('\n')) !== -1) {
      answers.push(JSON.parse(buffered.slice(0, end)))
      buffered = buffered.slice(end + 1)
    }
  })
  const send = (/** @type {object} */ message) => stdin.write(`${JSON.stringify(message)}\n`)
  send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '1' } } })
  while (answers.length === 0) await new Promise((resolve) => setTimeout(resolve, 20))
  send({ jsonrpc: '2.0', method: 'notifications/initialized' })

  // From here on the client reads nothing.
  stdout.pause()
  for (let id = 1; id <= CALLS; id++) send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'read', arguments: { filePath: 'big.txt' } } })

  // Until the server has been idle for a second (it waits on its full
  // output), or a minute has passed.
  let last = -1
  let idle = 0
  for (let waited = 0; waited < 60_000 && idle < 1000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    const now = cpuTicks(pid)
    idle = now === last ? idle + 100 : 0
    last = now
  }
  const peakMB = status(pid, 'VmHWM') / 1024
  t.log(`peak resident size of the server: ${peakMB.toFixed(0)} MB`)
  t.true(peakMB < BOUND_MB, `the server reached ${peakMB.toFixed(0)} MB`)

  // Reading again, answers come.
  const before = answers.length
  stdout.resume()
  while (answers.length < before + 5) await new Promise((resolve) => setTimeout(resolve, 20))
  t.true(answers.slice(before).every((a) => a.result?.content?.[0]?.text?.startsWith('big.txt REV:')))
})
