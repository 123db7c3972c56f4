// @ts-check
// `hashline mcp` against clients that misbehave: ones that cancel their
// calls, never read, send lines that are not JSON-RPC, flood pings, or keep
// every slot busy. Whatever the client does, the server's memory stays
// bounded (measured from outside: its peak resident size, from /proc, once it
// has stopped working), a cancelled call writes nothing and is never
// reported done, pings and cancellations get through, and honest requests
// are answered.
import test from "ava"
import { spawn } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { holdFolderLock, scratch } from "../helpers.mjs"

const CLI = fileURLToPath(new URL("../../cli/hashline.cjs", import.meta.url))
/**
 * How much the server's peak resident size may grow over what it was once
 * initialized: room for the garbage a burst of requests leaves until it is
 * collected (some 150 MB here), far under what a server that holds on to what
 * the client sends reaches on these floods (gigabytes).
 */
const GROWTH_BOUND_MB = 256

/**
 * A field of /proc/PID/status, in kB.
 * @param {number} pid @param {string} field
 */
function status(pid, field) {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${field}:`))
  return Number(line?.split(/\s+/)[1])
}

/** The processor time the process used so far, in clock ticks. @param {number} pid */
function cpuTicks(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return Number(fields[11]) + Number(fields[12])
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * `hashline mcp` over `files`, driven line by line by a client that can stop
 * reading. Answers are counted, and kept by id.
 * @param {import("ava").ExecutionContext} t
 * @param {Record<string, string>} files
 */
async function serve(t, files) {
  const root = scratch(t)
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(root, name), content)
  const child = spawn(process.execPath, [CLI, "mcp", "--root", root], { stdio: ["pipe", "pipe", "inherit"] })
  /** @type {Set<NodeJS.Timeout>} */
  const timers = new Set()
  t.teardown(() => {
    child.kill("SIGKILL")
    for (const timer of timers) clearTimeout(timer)
  })
  const stdin = /** @type {import("node:stream").Writable} */ (child.stdin)
  const stdout = /** @type {import("node:stream").Readable} */ (child.stdout)
  // A server that stops reading leaves this side's writes waiting: not an error.
  stdin.on("error", () => {})
  /** @type {Map<unknown, any>} */
  const byId = new Map()
  /** @type {Map<unknown, number>} how many answers carried each id */
  const answers = new Map()
  /** @type {any} the last error that carried no id */
  let lastAnonymous
  /** @type {Map<unknown, (message: any) => void>} */
  const waiting = new Map()
  const counts = { all: 0, errors: 0 }
  let buffered = ""
  stdout.setEncoding("utf8")
  stdout.on("data", (chunk) => {
    const lines = (buffered + chunk).split("\n")
    buffered = /** @type {string} */ (lines.pop())
    for (const line of lines) {
      const message = JSON.parse(line)
      counts.all += 1
      if (message.error) counts.errors += 1
      if (message.id === null || message.id === undefined) {
        lastAnonymous = message
        continue
      }
      byId.set(message.id, message)
      answers.set(message.id, (answers.get(message.id) ?? 0) + 1)
      waiting.get(message.id)?.(message)
    }
  })
  /** @param {string | object} message */
  const send = (message) => stdin.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`)
  /**
   * The answer carrying `id`, failing after `ms` rather than waiting for ever.
   * @param {unknown} id @param {number} [ms]
   * @returns {Promise<any>}
   */
  const answer = (id, ms = 60_000) =>
    new Promise((resolve, reject) => {
      if (byId.has(id)) return resolve(byId.get(id))
      const timer = setTimeout(() => reject(new Error(`no answer for id ${JSON.stringify(id)}`)), ms)
      timers.add(timer)
      waiting.set(id, (message) => {
        clearTimeout(timer)
        timers.delete(timer)
        resolve(message)
      })
    })
  /**
   * Whether the answer carrying `id` comes within `ms`.
   * @param {unknown} id @param {number} ms
   */
  const answeredWithin = (id, ms) =>
    answer(id, ms).then(
      () => true,
      () => false,
    )
  /** @param {number} id @param {string} method @param {unknown} params */
  const request = (id, method, params) => {
    send({ jsonrpc: "2.0", id, method, params })
    return answer(id)
  }
  const pid = /** @type {number} */ (child.pid)
  /** The server's peak resident size so far, in MB. */
  const peakMB = () => status(pid, "VmHWM") / 1024
  /** Until the server has used no processor time for a second (or a minute has passed). */
  const idle = async () => {
    let last = -1
    let still = 0
    for (let waited = 0; waited < 60_000 && still < 1000; waited += 100) {
      await sleep(100)
      const now = cpuTicks(pid)
      still = now === last ? still + 100 : 0
      last = now
    }
  }
  await request(0, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "hostile", version: "1" } })
  send({ jsonrpc: "2.0", method: "notifications/initialized" })
  /** @param {number} id @param {string} name @param {Record<string, unknown>} args */
  const call = (id, name, args) => send({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } })
  /** @param {number} id */
  const cancel = (id) => send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "stopped" } })
  return { root, send, call, cancel, request, answer, answeredWithin, byId, answers, anonymous: () => lastAnonymous, counts, peakMB, idle, stdout }
}

/** @param {any} answer */
const succeeded = (answer) => answer?.result !== undefined && answer.result.isError !== true

const linux = process.platform === "linux" ? test : test.skip

linux("a cancelled call frees its slot at once: more cancelled edits than slots, then a ping, are all read while the edits wait, and none writes", async (t) => {
  const server = await serve(t, { "a.txt": "one\ntwo\n" })
  const lock = await holdFolderLock(t, server.root)
  const cancelled = [2, 3, 4, 5, 6, 7]
  for (const id of cancelled) {
    server.call(id, "edit", { filePath: "a.txt", oldString: "two", newString: `TWO ${id}` })
    server.cancel(id)
  }
  server.send({ jsonrpc: "2.0", id: 8, method: "ping" })
  // The edits wait on the lock: the ping must get through meanwhile. A
  // server that let it wait would be let go after a while, to show what it
  // then does with the edits it was told to stop.
  const pinged = await server.answeredWithin(8, 5_000)
  await lock.release()
  t.true(pinged, "the ping was answered while the cancelled edits waited")
  const read = await server.request(9, "tools/call", { name: "read", arguments: { filePath: "a.txt" } })
  t.regex(read.result?.content?.[0]?.text ?? "", /^a\.txt REV:/)
  t.is(fs.readFileSync(path.join(server.root, "a.txt"), "utf8"), "one\ntwo\n")
  for (const id of cancelled) t.false(succeeded(server.byId.get(id)), `cancelled edit ${id} was reported done`)
})

linux("while every slot is busy, a ping is answered and a queued call that is cancelled never runs", async (t) => {
  const files = { "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "d.txt": "d\n", "e.txt": "e\n", "f.txt": "f\n" }
  const server = await serve(t, files)
  const lock = await holdFolderLock(t, server.root)
  const names = Object.keys(files)
  // More honest edits than slots, all waiting on the lock.
  names.forEach((name, k) => server.call(10 + k, "edit", { filePath: name, oldString: name[0], newString: name[0].toUpperCase() }))
  // The last one queued, then cancelled; then a ping.
  server.cancel(10 + names.length - 1)
  server.send({ jsonrpc: "2.0", id: 99, method: "ping" })
  const pinged = await server.answeredWithin(99, 5_000)
  await lock.release()
  t.true(pinged, "the ping was answered while the slots were busy")
  for (let k = 0; k < names.length - 1; k++) t.true(succeeded(await server.answer(10 + k)), names[k])
  const read = await server.request(98, "tools/call", { name: "read", arguments: { filePath: "f.txt" } })
  t.regex(read.result?.content?.[0]?.text ?? "", /^f\.txt REV:/)
  t.is(fs.readFileSync(path.join(server.root, "f.txt"), "utf8"), "f\n")
  t.false(succeeded(server.byId.get(10 + names.length - 1)))
  t.is(fs.readFileSync(path.join(server.root, "a.txt"), "utf8"), "A\n")
})

linux(`a client that sends lines that are not JSON-RPC and reads nothing leaves the server under ${GROWTH_BOUND_MB} MB more, and each line is answered once it reads`, async (t) => {
  const server = await serve(t, { "a.txt": "a\n" })
  const before = server.peakMB()
  const before_count = server.counts.all
  server.stdout.pause()
  // One megabyte of objects that are not messages: each is answered with a
  // JSON-RPC error hundreds of times its size.
  const lines = 350_000
  server.send("{}\n".repeat(lines - 1) + "{}")
  await server.idle()
  const grown = server.peakMB() - before
  t.log(`growth of the server's peak resident size: ${grown.toFixed(0)} MB`)
  t.true(grown < GROWTH_BOUND_MB, `the server grew by ${grown.toFixed(0)} MB`)
  server.stdout.resume()
  const read = await server.request(1, "tools/call", { name: "read", arguments: { filePath: "a.txt" } })
  t.regex(read.result?.content?.[0]?.text ?? "", /^a\.txt REV:/)
  t.is(server.counts.all - before_count, lines + 1, "every line was answered, in order, before the read")
})

linux(`a client that floods pings and reads nothing leaves the server under ${GROWTH_BOUND_MB} MB more, and every ping is answered once it reads`, async (t) => {
  const server = await serve(t, { "a.txt": "a\n" })
  const before = server.peakMB()
  server.stdout.pause()
  const pings = 150_000
  // Long ids: each answer is as large as its ping, and all of them several
  // times what the server lets wait.
  const pad = "p".repeat(200)
  let batch = ""
  for (let id = 1; id <= pings; id++) {
    batch += `{"jsonrpc":"2.0","id":"${pad}${id}","method":"ping"}\n`
    if (id % 10_000 === 0) {
      server.send(batch.slice(0, -1))
      batch = ""
    }
  }
  await server.idle()
  const grown = server.peakMB() - before
  t.log(`growth of the server's peak resident size: ${grown.toFixed(0)} MB`)
  t.true(grown < GROWTH_BOUND_MB, `the server grew by ${grown.toFixed(0)} MB`)
  server.stdout.resume()
  t.truthy((await server.answer(`${pad}${pings}`)).result)
  t.is(server.byId.size, pings + 1)
})

// Cancelled in the same write, a call is stopped before it reaches the
// engine; cancelled a moment later, while the engine's threads wait on the
// lock, it is under way: what it holds must be bounded all the same.
for (const [when, gap] of /** @type {const} */ ([["at once", 0], ["once under way", 50]])) {
  linux(`a client that sends large edits and cancels each ${when}, reading nothing, leaves the server under ${GROWTH_BOUND_MB} MB more; nothing is written and the server serves after`, async (t) => {
    const server = await serve(t, { "a.txt": "one\ntwo\n" })
    const lock = await holdFolderLock(t, server.root)
    const before = server.peakMB()
    server.stdout.pause()
    // Four megabytes a call, sixty calls.
    const calls = 60
    const big = "x".repeat(4 * 1024 * 1024)
    for (let id = 1; id <= calls; id++) {
      server.call(id, "edit", { filePath: "a.txt", oldString: "two", newString: big })
      if (gap) await sleep(gap)
      server.cancel(id)
    }
    await server.idle()
    const grown = server.peakMB() - before
    t.log(`growth of the server's peak resident size: ${grown.toFixed(0)} MB`)
    t.true(grown < GROWTH_BOUND_MB, `the server grew by ${grown.toFixed(0)} MB`)
    await lock.release()
    server.stdout.resume()
    const read = await server.request(calls + 1, "tools/call", { name: "read", arguments: { filePath: "a.txt" } })
    t.regex(read.result?.content?.[0]?.text ?? "", /^a\.txt REV:/)
    t.is(fs.readFileSync(path.join(server.root, "a.txt"), "utf8"), "one\ntwo\n")
    for (let id = 1; id <= calls; id++) t.false(succeeded(server.byId.get(id)), `cancelled edit ${id} was reported done`)
  })
}

linux("a request or a bad message whose id is still in use is refused without that id, and the call that holds the id is answered as itself", async (t) => {
  const server = await serve(t, { "a.txt": "one\n" })
  const lock = await holdFolderLock(t, server.root)
  server.call(5, "edit", { filePath: "a.txt", oldString: "one", newString: "ONE" })
  server.call(5, "edit", { filePath: "a.txt", oldString: "one", newString: "uno" })
  server.send({ jsonrpc: "2.0", id: 6, method: "ping" })
  t.true(await server.answeredWithin(6, 5_000))
  t.is(server.anonymous()?.error?.code, -32600)
  t.regex(server.anonymous()?.error?.message ?? "", /The id 5 is already the id of a request not answered yet/)
  // A message that is no request, with that id: refused without it too.
  server.send({ jsonrpc: "2.0", id: 5, method: 7 })
  server.send({ jsonrpc: "2.0", id: 8, method: "ping" })
  t.true(await server.answeredWithin(8, 5_000))
  t.regex(server.anonymous()?.error?.message ?? "", /not a JSON-RPC 2\.0 message/)
  await lock.release()
  t.true(succeeded(await server.answer(5)))
  const read = await server.request(7, "tools/call", { name: "read", arguments: { filePath: "a.txt" } })
  t.regex(read.result?.content?.[0]?.text ?? "", /^a\.txt REV:/)
  t.is(fs.readFileSync(path.join(server.root, "a.txt"), "utf8"), "ONE\n")
  t.is(server.answers.get(5), 1, "one answer carried id 5")
})
