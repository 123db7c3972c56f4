// @ts-check
// `hashline mcp`, driven by the MCP SDK's own client over stdio: the tool
// list, edits by refs on real files, and the root the server refuses to leave.
import test from "ava"
import { spawn } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { PassThrough } from "node:stream"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { APPLY_SCHEMA, EDIT_DESCRIPTION, EDIT_SCHEMA, GREP_SCHEMA, READ_SCHEMA } from "../../lib/definitions.mjs"
import { APPLY_DESCRIPTION, GREP_DESCRIPTION, READ_DESCRIPTION } from "../../lib/texts.cjs"
import { OUTPUT_SCHEMAS } from "../../mcp/results.mjs"
import { createServer } from "../../mcp/server.mjs"
import { IdScanner, LineTransport } from "../../mcp/transport.mjs"
import * as helpers from "../helpers.mjs"
import { nbformatProblems } from "../support/nbformat.mjs"

// These tests pin the full view's text; the lean view, the default, has its own in lean.spec.mjs.
process.env.HASHLINE_VIEW = "full"

const { scratch } = helpers
/**
 * The refs of a view's lines, by line number.
 * @param {string} text
 */
const refsOf = (text) => /** @type {Record<number, string>} */ (helpers.refsOf(text))

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "cli", "hashline.cjs")

/**
 * A project folder, a folder next to it, and a connected client whose server
 * has the project as its root.
 * @param {import("ava").ExecutionContext} t
 * @param {Record<string, string>} files
 * @param {string[]} [flags] more of the command line
 */
async function connect(t, files, flags = []) {
  const root = scratch(t)
  const outside = scratch(t)
  fs.writeFileSync(path.join(outside, "secret.txt"), "secret\n")
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
    fs.writeFileSync(path.join(root, name), content)
  }
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--root", root, "--view", "full", ...flags], cwd: outside, stderr: "pipe" })
  const client = new Client({ name: "hashline-test", version: "1.0.0" })
  await client.connect(transport)
  t.teardown(() => client.close())
  /**
   * @param {string} name
   * @param {Record<string, unknown>} args
   */
  const call = async (name, args) => {
    const result = /** @type {{ content: Array<{ type: string, text: string }>, structuredContent?: any, isError?: boolean }} */ (await client.callTool({ name, arguments: args }))
    return { text: result.content.map((c) => c.text).join(""), structured: result.structuredContent, isError: result.isError === true }
  }
  return { root, outside, client, call }
}

test("the server lists read, edit, grep and apply with the shared descriptions and JSON schemas", async (t) => {
  const { client } = await connect(t, {})
  const { tools } = await client.listTools()
  t.deepEqual(
    tools.map((tool) => [tool.name, tool.description, tool.inputSchema]),
    [
      ["read", READ_DESCRIPTION, READ_SCHEMA],
      ["edit", EDIT_DESCRIPTION, EDIT_SCHEMA],
      ["grep", GREP_DESCRIPTION, GREP_SCHEMA],
      ["apply", APPLY_DESCRIPTION, APPLY_SCHEMA],
    ],
  )
  t.true(tools.find((tool) => tool.name === "read")?.annotations?.readOnlyHint)
  t.regex(client.getInstructions() ?? "", /LINE#HASH#ANCHOR\|content/)
})

test("an edit by the refs of a read writes the file, and a second edit from the same read lands too", async (t) => {
  const { root, call } = await connect(t, { "src/app.ts": "export function total(items) {\n  if (!items) return null\n  return items.length\n}\n" })
  const view = await call("read", { filePath: "src/app.ts" })
  t.false(view.isError)
  const refs = refsOf(view.text)

  const first = await call("edit", { filePath: "src/app.ts", operations: [{ op: "replace", ref: refs[2], content: "  if (!items) {\n    return 0\n  }" }] })
  t.false(first.isError, first.text)
  t.regex(first.text, /^Applied 1 operation to src\/app\.ts/)
  const second = await call("edit", { filePath: "src/app.ts", operations: [{ op: "insert_after", ref: refs[3], content: "  // counted" }] })
  t.false(second.isError, second.text)
  t.is(
    fs.readFileSync(path.join(root, "src/app.ts"), "utf8"),
    "export function total(items) {\n  if (!items) {\n    return 0\n  }\n  return items.length\n  // counted\n}\n",
  )
})

test("a notebook reads as its cells, and one edit changes a code cell and adds a markdown cell, valid and with the outputs cleared", async (t) => {
  const notebook = fs.readFileSync(new URL("../fixtures/notebooks/nbclient/Error.ipynb", import.meta.url), "utf8")
  const { root, call } = await connect(t, { "n.ipynb": notebook })
  const view = await call("read", { filePath: "n.ipynb" })
  t.false(view.isError, view.text)
  t.regex(view.text, /^1#[0-9A-F]{3}#[0-9A-F]{3}\|# %% \[code\] id=\w+\n2#[0-9A-F]{3}#[0-9A-F]{3}\|0 \/ 0\n  » error: ZeroDivisionError/m)
  const refs = refsOf(view.text)
  const edit = await call("edit", {
    filePath: "n.ipynb",
    operations: [
      { op: "replace", ref: refs[2], content: "raise ValueError('checked')" },
      { op: "insert_cell_before", ref: refs[1], cellType: "markdown", content: "Why it fails" },
    ],
  })
  t.false(edit.isError, edit.text)
  const cells = JSON.parse(fs.readFileSync(path.join(root, "n.ipynb"), "utf8")).cells
  t.deepEqual(cells[0].source, ["Why it fails"])
  t.deepEqual(cells[1].source, ["raise ValueError('checked')"])
  t.deepEqual(cells[1].outputs, [])
  t.deepEqual(nbformatProblems([path.join(root, "n.ipynb")]), [])
})

test("apply changes several files as one: all of them by the refs of their reads, or, when one entry is refused, none", async (t) => {
  const { root, call } = await connect(t, { "a.txt": "one\ntwo\n", "b.txt": "three\nfour\n" })
  const a = refsOf((await call("read", { filePath: "a.txt" })).text)
  const b = refsOf((await call("read", { filePath: "b.txt" })).text)

  const refused = await call("apply", {
    files: [
      { filePath: "a.txt", operations: [{ op: "replace", ref: a[1], content: "ONE" }] },
      { filePath: "b.txt", operations: [{ op: "replace", ref: "2#AAA#AAA", content: "FOUR" }] },
    ],
  })
  t.true(refused.isError)
  t.like(refused.structured, { ok: false, error: { code: "HASH_MISMATCH" } })
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "one\ntwo\n")
  t.is(fs.readFileSync(path.join(root, "b.txt"), "utf8"), "three\nfour\n")

  const applied = await call("apply", {
    files: [
      { filePath: "a.txt", operations: [{ op: "replace", ref: a[1], content: "ONE" }] },
      { filePath: "b.txt", operations: [{ op: "replace", ref: b[2], content: "FOUR" }] },
    ],
  })
  t.false(applied.isError, applied.text)
  t.deepEqual(
    applied.structured.files.map((/** @type {{ path: string, additions: number }} */ f) => [f.path, f.additions]),
    [
      ["a.txt", 1],
      ["b.txt", 1],
    ],
  )
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "ONE\ntwo\n")
  t.is(fs.readFileSync(path.join(root, "b.txt"), "utf8"), "three\nFOUR\n")
})

test("grep hits carry refs an edit can cite directly", async (t) => {
  const { root, call } = await connect(t, { "a.py": "x = 1\ny = 2\n", "b.py": "z = 3\n" })
  const found = await call("grep", { pattern: "^y =", include: "*.py" })
  t.false(found.isError)
  const ref = /^ {2}(\d+#[0-9A-F]{3}#[0-9A-F]{3})\|y = 2$/m.exec(found.text)?.[1]
  t.truthy(ref, found.text)
  const edit = await call("edit", { filePath: "a.py", operations: [{ op: "replace", ref, content: "y = 20" }] })
  t.false(edit.isError, edit.text)
  t.is(fs.readFileSync(path.join(root, "a.py"), "utf8"), "x = 1\ny = 20\n")
})

test("paths outside the root are tool errors, whichever tool and however named, and nothing is written", async (t) => {
  const { root, outside, call } = await connect(t, { "in.txt": "in\n" })
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "link.txt"))
  const secret = path.join(outside, "secret.txt")
  const attempts = [
    await call("read", { filePath: secret }),
    await call("read", { filePath: "link.txt" }),
    await call("edit", { filePath: secret, operations: [{ op: "append", content: "x" }] }),
    await call("edit", { filePath: "link.txt", oldString: "secret", newString: "public" }),
    await call("grep", { pattern: "secret", path: outside }),
  ]
  for (const attempt of attempts) {
    t.true(attempt.isError)
    t.regex(attempt.text, /outside the project root/)
  }
  const everything = await call("grep", { pattern: "secret" })
  t.is(everything.text, "No matches found.\n")
  t.is(fs.readFileSync(secret, "utf8"), "secret\n")
})

test("a rejected edit is a tool error carrying the repair text", async (t) => {
  const { root, call } = await connect(t, { "a.txt": "a\nb\n" })
  const result = await call("edit", { filePath: "a.txt", operations: [{ op: "delete", ref: "2#AAA#BBB" }] })
  t.true(result.isError)
  t.regex(result.text, /^Edit rejected, nothing written: 1 ref no longer matches a\.txt/)
  t.regex(result.text, /^>>> 2#[0-9A-F]{3}#[0-9A-F]{3}\|b$/m)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "a\nb\n")

  const badArgs = await call("edit", { file: "a.txt" })
  t.true(badArgs.isError)
  t.regex(badArgs.text, /filePath must be the path of the file to edit, got an undefined \(the arguments given are file\)/)
  const unknown = await call("write", {})
  t.true(unknown.isError)
  t.regex(unknown.text, /Unknown tool write\. The tools are read, edit, grep, apply\./)
})

test("every tool declares its output schema and states all four hints", async (t) => {
  const { client } = await connect(t, {})
  const { tools } = await client.listTools()
  for (const tool of tools) {
    t.deepEqual(tool.outputSchema, OUTPUT_SCHEMAS[/** @type {keyof typeof OUTPUT_SCHEMAS} */ (tool.name)], tool.name)
    for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
      t.is(typeof tool.annotations?.[/** @type {"readOnlyHint"} */ (hint)], "boolean", `${tool.name} ${hint}`)
    }
  }
  const hints = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]))
  t.like(hints, {
    read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    edit: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    grep: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    apply: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  })
})

test("read, edit and grep return structured content beside the text, which the SDK client checks against the output schema", async (t) => {
  const { call } = await connect(t, { "a.txt": "one\ntwo\nthree\n", "b.txt": "two more\n" })
  const read = await call("read", { filePath: "a.txt", offset: 2 })
  t.like(read.structured, { ok: true, path: "a.txt", totalLines: 3, startLine: 2, endLine: 3 })
  t.deepEqual(read.structured.lines, [
    { line: 2, ref: refsOf(read.text)[2], text: "two" },
    { line: 3, ref: refsOf(read.text)[3], text: "three" },
  ])
  t.regex(read.text, new RegExp(`REV:${read.structured.rev}`))

  const edit = await call("edit", { filePath: "a.txt", operations: [{ op: "replace", ref: read.structured.lines[0].ref, content: "TWO" }] })
  t.like(edit.structured, { ok: true, path: "a.txt", previousRev: read.structured.rev, additions: 1, deletions: 1 })
  t.regex(edit.structured.diff, /^-two$/m)
  t.is(edit.structured.output, undefined)

  const grep = await call("grep", { pattern: "two", include: "*.txt" })
  t.like(grep.structured, { ok: true, shown: 1, files: 1, more: 0, stopped: false })
  t.like(grep.structured.hits[0], { path: "b.txt", line: 1, text: "two more" })
  t.regex(grep.text, new RegExp(`${grep.structured.hits[0].ref.replace(/[#]/g, "#")}\\|two more`))
})

test("a failed call's structured content carries the error code, message and mismatches", async (t) => {
  const { call } = await connect(t, { "a.txt": "a\nb\n" })
  const stale = await call("edit", { filePath: "a.txt", operations: [{ op: "delete", ref: "2#AAA#BBB" }] })
  t.true(stale.isError)
  t.like(stale.structured, { ok: false, error: { code: "HASH_MISMATCH", path: "a.txt", message: stale.text } })
  t.like(stale.structured.error.mismatches[0], { line: 2, expected: "2#AAA#BBB" })
  t.like((await call("read", { filePath: "missing.txt" })).structured, { ok: false, error: { code: "NOT_FOUND" } })
  t.like((await call("grep", { pattern: "(" })).structured, { ok: false, error: { code: "INVALID_REQUEST" } })
  t.like((await call("read", { filePath: "../x" })).structured, { ok: false, error: { code: "OUTSIDE_ROOT" } })
})

test("a failed call's structured content carries every field the error declares: the problems of a refused parse, each refused entry of a batch", async (t) => {
  const { call } = await connect(t, { "a.ts": "export const a = 1;\n", "b.txt": "b\n" }, ["--syntax", "reject"])
  const a = refsOf((await call("read", { filePath: "a.ts" })).text)
  const broken = await call("edit", { filePath: "a.ts", operations: [{ op: "replace", ref: a[1], content: "export const a = (1;" }] })
  t.true(broken.isError)
  t.like(broken.structured.error, { code: "SYNTAX_ERROR", path: "a.ts" })
  t.like(broken.structured.error.problems[0], { line: 1, severity: "error", language: "TypeScript" })

  const refused = await call("apply", {
    files: [
      { filePath: "a.ts", operations: [{ op: "append", content: "export const b = 2;" }] },
      { filePath: "b.txt", operations: [{ op: "replace", ref: "1#AAA#AAA", content: "B" }] },
    ],
  })
  t.true(refused.isError)
  t.like(refused.structured.error.errors, [{ index: 1, code: "HASH_MISMATCH", path: "b.txt" }])
  t.like(refused.structured.error.errors[0].mismatches[0], { line: 1, expected: "1#AAA#AAA" })
})

/**
 * `hashline mcp` driven line by line, to send what an SDK client would not:
 * requests before initialize, lines that are not JSON-RPC, huge messages.
 * @param {import("ava").ExecutionContext} t
 * @param {Record<string, string>} files
 */
function rawServer(t, files) {
  const root = scratch(t)
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(root, name), content)
  const child = spawn(process.execPath, [CLI, "mcp", "--root", root], { stdio: ["pipe", "pipe", "pipe"] })
  /** @type {Set<NodeJS.Timeout>} */
  const timers = new Set()
  // A request that rightly gets no answer (a cancelled one) must not keep
  // the test file running until its timer fires.
  t.teardown(() => {
    child.kill()
    for (const timer of timers) clearTimeout(timer)
  })
  /** @type {Map<unknown, (message: any) => void>} */
  const waiting = new Map()
  /** @type {any[]} */
  const unclaimed = []
  let buffered = ""
  child.stdout.setEncoding("utf8")
  child.stdout.on("data", (chunk) => {
    buffered += chunk
    let end
    while ((end = buffered.indexOf("\n")) !== -1) {
      const message = JSON.parse(buffered.slice(0, end))
      buffered = buffered.slice(end + 1)
      const resolve = waiting.get(message.id)
      if (resolve) {
        waiting.delete(message.id)
        resolve(message)
      } else unclaimed.push(message)
    }
  })
  /**
   * Sends a line and resolves with the answer carrying `id` (failing after
   * 60 s rather than waiting for ever).
   * @param {string} line
   * @param {unknown} id
   * @returns {Promise<any>}
   */
  const exchange = (line, id) =>
    new Promise((resolve, reject) => {
      const early = unclaimed.findIndex((m) => m.id === id)
      if (early !== -1) return resolve(unclaimed.splice(early, 1)[0])
      const timer = setTimeout(() => reject(new Error(`no answer for id ${JSON.stringify(id)}`)), 60_000)
      timers.add(timer)
      waiting.set(id, (message) => {
        clearTimeout(timer)
        timers.delete(timer)
        resolve(message)
      })
      child.stdin.write(`${line}\n`)
    })
  /**
   * @param {number} id
   * @param {string} method
   * @param {unknown} params
   */
  const request = (id, method, params) => exchange(JSON.stringify({ jsonrpc: "2.0", id, method, params }), id)
  const initialize = async (/** @type {number} */ id) => {
    const answer = await request(id, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } })
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`)
    return answer
  }
  return { root, request, exchange, initialize }
}

test("tool calls and the tool list before initialize are refused with a JSON-RPC error, and the server serves after", async (t) => {
  const { request, initialize } = rawServer(t, { "a.txt": "a\n" })
  const early = await request(1, "tools/call", { name: "read", arguments: { filePath: "a.txt" } })
  t.is(early.error?.code, -32600)
  t.regex(early.error?.message ?? "", /initialize/)
  t.is(early.result, undefined)
  const list = await request(2, "tools/list", {})
  t.is(list.error?.code, -32600)
  t.is((await request(3, "ping", {})).error, undefined, "a ping is allowed before initialize")
  t.truthy((await initialize(4)).result?.serverInfo)
  const read = await request(5, "tools/call", { name: "read", arguments: { filePath: "a.txt" } })
  t.regex(read.result?.content?.[0]?.text ?? "", /^a\.txt REV:/)
})

test("a 16 MB tools/call is answered, and the next call on the same connection too", async (t) => {
  const { root, call } = await connect(t, { "small.txt": "small\n" })
  // Sixteen megabytes: under the file size limit as a file, over the 10 MB
  // the SDK's own transport reads.
  const big = "0123456789abcdefghijklmnopqrstuvwxyz_=\n".repeat(400_000)
  const edit = await call("edit", { filePath: "big.txt", oldString: "", newString: big })
  t.false(edit.isError, edit.text.slice(0, 500))
  t.like(edit.structured, { ok: true, path: "big.txt", additions: 400_000 })
  t.is(edit.structured.diff, undefined)
  t.is(fs.statSync(path.join(root, "big.txt")).size, Buffer.byteLength(big))
  const read = await call("read", { filePath: "small.txt" })
  t.false(read.isError)
  t.regex(read.text, /\|small$/m)
})

test("the server answers with the latest protocol version it knows, or the client's own if it supports that", async (t) => {
  const { request } = rawServer(t, {})
  /** @param {number} id @param {string} version */
  const negotiate = async (id, version) =>
    (await request(id, "initialize", { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } })).result?.protocolVersion
  t.is(LATEST_PROTOCOL_VERSION, "2025-11-25")
  t.is(await negotiate(1, LATEST_PROTOCOL_VERSION), LATEST_PROTOCOL_VERSION)
  t.is(await negotiate(2, "2099-01-01"), LATEST_PROTOCOL_VERSION)
  t.is(await negotiate(3, "2025-06-18"), "2025-06-18")
})

test("a line that is not JSON-RPC gets a JSON-RPC error, and the server keeps serving", async (t) => {
  const { request, exchange, initialize } = rawServer(t, { "a.txt": "a\n" })
  await initialize(1)
  const notJson = await exchange("{ this is not json", null)
  t.is(notJson.error?.code, -32700)
  const notUtf8 = await exchange(Buffer.from([0x7b, 0xff, 0x7d]).toString("latin1"), null)
  t.is(notUtf8.error?.code, -32700)
  const notRpc = await exchange(JSON.stringify({ id: 9, hello: "world" }), 9)
  t.is(notRpc.error?.code, -32600)
  const read = await request(10, "tools/call", { name: "read", arguments: { filePath: "a.txt" } })
  t.regex(read.result?.content?.[0]?.text ?? "", /^a\.txt REV:/)
})

test("a message over the size limit is refused with a JSON-RPC error carrying its id, and the server keeps serving", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "a.txt"), "a\n")
  const input = new PassThrough()
  const output = new PassThrough()
  const server = createServer({ root })
  await server.connect(new LineTransport({ input, output, maxMessageBytes: 100_000 }))
  t.teardown(() => server.close())
  /** @type {any[]} */
  const answers = []
  let buffered = ""
  output.setEncoding("utf8")
  output.on("data", (chunk) => {
    buffered += chunk
    let end
    while ((end = buffered.indexOf("\n")) !== -1) {
      answers.push(JSON.parse(buffered.slice(0, end)))
      buffered = buffered.slice(end + 1)
    }
  })
  const answer = async (/** @type {unknown} */ id) => {
    for (let i = 0; i < 600; i++) {
      const found = answers.find((a) => a.id === id)
      if (found) return found
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    throw new Error(`no answer for id ${JSON.stringify(id)}`)
  }
  /** @param {object} message */
  const send = (message) => {
    const line = `${JSON.stringify(message)}\n`
    // In pieces, as a pipe delivers a large message.
    for (let i = 0; i < line.length; i += 4096) input.write(line.slice(i, i + 4096))
  }
  send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } })
  await answer(1)
  const huge = "x".repeat(200_000)
  send({ jsonrpc: "2.0", method: "tools/call", params: { name: "edit", arguments: { filePath: "a.txt", oldString: "a", newString: huge, id: 99 } }, id: "late-id" })
  const refused = await answer("late-id")
  t.is(refused.error?.code, -32600)
  t.regex(refused.error?.message ?? "", /over this server's limit of 100000 bytes/)
  send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "read", arguments: { filePath: "a.txt" } } })
  t.regex((await answer(2)).result?.content?.[0]?.text ?? "", /^a\.txt REV:/)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "a\n")
})

test("the id of a message too large to read is found wherever it is and however the message is split", (t) => {
  const messages = [
    { id: 42, jsonrpc: "2.0", method: "tools/call", params: { arguments: { id: 1, text: 'he said "id": 7 \\ ' } } },
    { jsonrpc: "2.0", method: "tools/call", params: { nested: [{ id: "inner" }], "x\"id": 3 }, id: "outer-\"quoted\"" },
    { jsonrpc: "2.0", method: "x", params: { id: 5 } },
  ]
  const expected = [42, 'outer-"quoted"', undefined]
  messages.forEach((message, k) => {
    const bytes = Buffer.from(JSON.stringify(message, null, k === 1 ? 1 : 0))
    for (let cut = 0; cut <= bytes.length; cut++) {
      const scanner = new IdScanner()
      scanner.feed(bytes.subarray(0, cut))
      scanner.feed(bytes.subarray(cut))
      t.is(scanner.id, expected[k], `message ${k} cut at ${cut}`)
    }
  })
})

const unix = process.platform === "win32" ? test.skip : test

unix("a tool call the client cancels while it waits to write writes nothing, and the server keeps serving", async (t) => {
  const { root, request, exchange, initialize } = rawServer(t, { "a.txt": "one\ntwo\n" })
  await initialize(1)
  const lock = await helpers.holdFolderLock(t, root)
  const call = exchange(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "edit", arguments: { filePath: "a.txt", oldString: "two", newString: "TWO" } } }), 2)
  await exchange(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2, reason: "the user stopped" } }) + "\n" + JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }), 3)
  await lock.release()
  const read = await request(4, "tools/call", { name: "read", arguments: { filePath: "a.txt" } })
  t.regex(read.result?.content?.[0]?.text ?? "", /\|two$/m)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "one\ntwo\n")
  // A cancelled request gets no answer; one that came would not be a success.
  const answered = await Promise.race([call, new Promise((resolve) => setTimeout(() => resolve(undefined), 200))])
  t.falsy(/** @type {any} */ (answered)?.result?.structuredContent?.ok)
})

test("without a loadable binary the server still answers initialize and lists its tools, and each call says why it fails", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "f.txt"), "a\n")
  const env = /** @type {Record<string, string>} */ ({ ...process.env, NAPI_RS_NATIVE_LIBRARY_PATH: path.join(root, "missing.node") })
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--root", root], cwd: root, env, stderr: "pipe" })
  const client = new Client({ name: "hashline-test", version: "1.0.0" })
  await client.connect(transport)
  t.teardown(() => client.close())
  t.is(client.getServerVersion()?.name, "hashline")
  const { tools } = await client.listTools()
  t.deepEqual(tools.map((tool) => tool.name), ["read", "edit", "grep", "apply"])
  for (const [name, args] of /** @type {const} */ ([["read", { filePath: "f.txt" }], ["grep", { pattern: "a" }]])) {
    const result = /** @type {{ content: Array<{ text: string }>, structuredContent?: any, isError?: boolean }} */ (await client.callTool({ name, arguments: args }))
    t.true(result.isError, name)
    t.regex(result.content[0].text, /^The hashline native module could not be loaded on .*missing\.node, which did not load/)
    t.like(result.structuredContent, { ok: false, error: { code: "NATIVE_MODULE_MISSING" } })
  }
})

test("in text-only mode the tools declare no output schema and the results, failures included, carry only the text; every tool asks to be always loaded", async (t) => {
  const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js")
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "a.txt"), "one\ntwo\n")
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const server = createServer({ root, textOnly: true })
  await server.connect(serverSide)
  const client = new Client({ name: "hashline-test", version: "1.0.0" })
  await client.connect(clientSide)
  t.teardown(() => client.close())
  const { tools } = await client.listTools()
  t.deepEqual(
    tools.map((tool) => [tool.name, tool.outputSchema, tool._meta]),
    ["read", "edit", "grep", "apply"].map((name) => [name, undefined, { "anthropic/alwaysLoad": true }]),
  )
  const view = /** @type {any} */ (await client.callTool({ name: "read", arguments: { filePath: "a.txt" } }))
  t.is(view.structuredContent, undefined)
  t.regex(view.content[0].text, /^1#[0-9A-F]{3}#[0-9A-F]{3}\|one$/m)
  const refused = /** @type {any} */ (await client.callTool({ name: "edit", arguments: { filePath: "a.txt", operations: [{ op: "replace", ref: "2#AAA#AAA", content: "x" }] } }))
  t.true(refused.isError)
  t.is(refused.structuredContent, undefined)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "one\ntwo\n")
})

test("hashline mcp --text-only serves tools without output schemas and results without structured content", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "a.txt"), "one\n")
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--root", root, "--text-only"], stderr: "pipe" })
  const client = new Client({ name: "hashline-test", version: "1.0.0" })
  await client.connect(transport)
  t.teardown(() => client.close())
  const { tools } = await client.listTools()
  t.deepEqual(tools.map((tool) => tool.outputSchema), [undefined, undefined, undefined, undefined])
  const view = /** @type {any} */ (await client.callTool({ name: "read", arguments: { filePath: "a.txt" } }))
  t.is(view.structuredContent, undefined)
  t.regex(view.content[0].text, /^a\.txt REV:[0-9A-F]{8} lines 1-1 of 1\n/)
})

test("the record names each call's host by the client that made it, and the model where the host sends it, as Codex does; a read by a model the user set to the full view shows it", async (t) => {
  const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js")
  const root = scratch(t)
  const dir = path.join(scratch(t), "telemetry")
  fs.writeFileSync(path.join(root, "a.txt"), "one\n")
  /**
   * Reads a.txt as the client `name`, with `_meta` on the call.
   * @param {string} name
   * @param {Record<string, unknown>} [meta]
   */
  const readAs = async (name, meta) => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const server = createServer({ root, telemetryDir: dir, view: "lean", models: { "gpt-5.5": { view: "full" } } })
    await server.connect(serverSide)
    const client = new Client({ name, version: "1.0.0" })
    await client.connect(clientSide)
    const result = await client.callTool({ name: "read", arguments: { filePath: "a.txt" }, ...(meta ? { _meta: meta } : {}) })
    t.falsy(result.isError)
    await client.close()
    return /** @type {Array<{ text: string }>} */ (result.content).map((c) => c.text).join("")
  }
  // The user's setting for the model Codex names: the full view.
  t.regex(await readAs("codex-mcp-client", { callId: "call_6", "x-codex-turn-metadata": { model: "gpt-5.5-codex" } }), /^1#[0-9A-F]{3}#[0-9A-F]{3}\|one$/m)
  await readAs("codex-mcp-client", { callId: "call_7", "x-codex-turn-metadata": { session_id: "s", turn_id: "u", model: "gpt-5.5-codex" } })
  t.regex(await readAs("claude-code", { "claudecode/toolUseId": "toolu_01" }), /^1[a-z]{2} one$/m)
  await readAs("qwen-cli-mcp-client-hashline")
  await readAs("an-editor", { "x-codex-turn-metadata": { model: 42 } })
  const records = helpers.recorded(dir).map((r) => [r.host, r.model, r.callId])
  t.deepEqual(records, [
    ["codex", "gpt-5.5-codex", "call_6"],
    ["codex", "gpt-5.5-codex", "call_7"],
    ["claude-code", undefined, "toolu_01"],
    ["qwen-code", undefined, undefined],
    ["mcp:an-editor", undefined, undefined],
  ])
})

test("hashline mcp has a call's record on disk when its answer arrives, under the host of the client that made it", async (t) => {
  const root = scratch(t)
  const dir = path.join(scratch(t), "telemetry")
  fs.writeFileSync(path.join(root, "a.txt"), "one\n")
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--root", root], env: { PATH: String(process.env.PATH), HASHLINE_TELEMETRY_DIR: dir }, stderr: "pipe" })
  const client = new Client({ name: "codex-mcp-client", version: "0.171.0" })
  await client.connect(transport)
  t.teardown(() => client.close())
  for (let i = 1; i <= 3; i++) {
    await client.callTool({ name: "read", arguments: { filePath: "a.txt" }, _meta: { callId: `call_${i}`, "x-codex-turn-metadata": { model: "gpt-5.5" } } })
    // Read without flushing: the server wrote it before it answered.
    const lines = fs.readFileSync(path.join(dir, "telemetry.jsonl"), "utf8").split("\n").filter(Boolean)
    t.is(lines.length, i)
    t.like(JSON.parse(lines[i - 1]), { host: "codex", model: "gpt-5.5", callId: `call_${i}`, tool: "read" })
  }
})
