// @ts-check
// move and copy from every host: the JS API, the command line, the MCP
// server, the framework tools and the OpenCode tool, each through its real
// entry point, writing exactly the bytes meant or nothing at all.
import test from "ava"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { z } from "zod"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { EDIT_SCHEMA } from "../../lib/definitions.mjs"
import { createTools } from "../../lib/tools.mjs"
import editTool from "../../opencode/edit.mjs"
import pluginModule from "../../opencode/plugin.mjs"
import { binding, refsOf, scratch } from "../helpers.mjs"

const { Hashline, applyEdits, formatView } = binding
const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "cli", "hashline.cjs")
const TEN = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join("")

/**
 * A folder holding `files`.
 * @param {import("ava").ExecutionContext} t
 * @param {Record<string, string>} files
 */
function project(t, files) {
  const root = fs.realpathSync(scratch(t))
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(root, name), content)
  return root
}

/**
 * The refs of a view, by line number; fails when a line has none.
 * @param {string} text
 */
function refs(text) {
  const found = /** @type {Record<number, string>} */ (refsOf(text))
  return /** @type {(line: number) => string} */ ((line) => {
    if (!found[line]) throw new Error(`no ref for line ${line} in ${text}`)
    return found[line]
  })
}

test("JS API: move and copy with lean and full refs write exactly the lines meant", (t) => {
  const root = project(t, { "a.txt": TEN, "b.txt": "a\r\nb\r\nc\r\nd" })
  const hl = new Hashline({ root })
  const r = refs(hl.read("a.txt").text)
  const moved = hl.edit("a.txt", { operations: [{ op: "move", ref: r(2), through: r(4), after: r(8) }] })
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "line 1\nline 5\nline 6\nline 7\nline 8\nline 2\nline 3\nline 4\nline 9\nline 10\n")
  t.regex(moved.output, /^Applied 1 operation to a\.txt/)
  t.is(moved.additions, 3)
  t.is(moved.deletions, 3)

  const full = new Hashline({ root, view: "full" })
  const f = refs(full.read("b.txt").text)
  full.edit("b.txt", {
    operations: [
      { op: "copy", ref: f(1), through: f(2), after: f(3) },
      { op: "move", ref: f(4), before: f(1) },
    ],
  })
  // The last line had no newline: moved to the top it gets the file's CRLF,
  // and the file still ends without one.
  t.is(fs.readFileSync(path.join(root, "b.txt"), "utf8"), "d\r\na\r\nb\r\nc\r\na\r\nb")
})

test("JS API: plan shows the moved lines and commit writes them; applyEdits moves text it is given", (t) => {
  const root = project(t, { "a.txt": TEN })
  const hl = new Hashline({ root })
  const r = refs(hl.read("a.txt").text)
  const plan = hl.plan("a.txt", { operations: [{ op: "move", ref: r(10), before: r(1) }] })
  t.regex(plan.diff, /^-line 10$/m)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), TEN)
  hl.commit(plan)
  t.true(fs.readFileSync(path.join(root, "a.txt"), "utf8").startsWith("line 10\nline 1\n"))

  const text = "x\ny\nz\n"
  const v = refs(formatView(text, { view: "full" }))
  const edited = applyEdits(text, { operations: [{ op: "copy", ref: v(1), after: v(3) }] })
  t.is(edited.text, "x\ny\nz\nx\n")
})

test("JS API: a conflict, a place inside the moved lines or a missing place write nothing and say why", (t) => {
  const root = project(t, { "a.txt": TEN })
  const hl = new Hashline({ root })
  const r = refs(hl.read("a.txt").text)
  /** @param {any[]} operations */
  const codeOf = (operations) => {
    const err = /** @type {any} */ (t.throws(() => hl.edit("a.txt", { operations })))
    return [err.code, err.message]
  }
  const [overlap, why] = codeOf([
    { op: "move", ref: r(2), through: r(4), after: r(9) },
    { op: "replace", ref: r(3), content: "x" },
  ])
  t.is(overlap, "CONFLICT")
  t.regex(why, /^Edit rejected, nothing written/)
  t.is(codeOf([{ op: "move", ref: r(2), through: r(5), after: r(3) }])[0], "CONFLICT")
  t.is(codeOf([{ op: "move", ref: r(2), through: r(5), after: r(5) }])[0], "NO_CHANGE")
  const [missing, text] = codeOf([{ op: "copy", ref: r(2) }])
  t.is(missing, "INVALID_REQUEST")
  t.regex(text, /`after` or `before`/)
  t.is(codeOf([{ op: "copy", ref: r(2), after: r(3), before: r(4) }])[0], "INVALID_REQUEST")
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), TEN)
})

/**
 * @param {string[]} args
 * @param {string} cwd
 * @param {string} store
 */
function cli(args, cwd, store) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", env: { ...process.env, HASHLINE_STORE: store }, timeout: 30_000 })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

test("CLI: hashline edit moves lines cited by a read in an earlier call, and a conflict exits 2", (t) => {
  const root = project(t, { "a.txt": TEN })
  const store = path.join(scratch(t), "store")
  const read = cli(["read", "a.txt"], root, store)
  t.is(read.status, 0, read.stderr)
  const r = refs(read.stdout)
  const ops = [{ op: "move", ref: r(1), through: r(2), after: r(10) }]
  const conflict = cli(["edit", "a.txt", "--ops", JSON.stringify([...ops, { op: "delete", ref: r(2) }])], root, store)
  t.is(conflict.status, 2)
  t.regex(conflict.stderr, /overlap/)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), TEN)
  const edit = cli(["edit", "a.txt", "--ops", JSON.stringify(ops)], root, store)
  t.is(edit.status, 0, edit.stderr)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), TEN.split("\n").slice(2, 10).concat("line 1", "line 2", "").join("\n"))
})

test("MCP: the edit tool moves and copies lines the read tool showed", async (t) => {
  const root = project(t, { "a.txt": TEN })
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--root", root], cwd: root, stderr: "pipe" })
  const client = new Client({ name: "hashline-test", version: "1.0.0" })
  await client.connect(transport)
  t.teardown(() => client.close())
  /** @param {string} name @param {Record<string, unknown>} args */
  const call = async (name, args) => {
    const result = /** @type {{ content: Array<{ text: string }>, isError?: boolean }} */ (await client.callTool({ name, arguments: args }))
    return { text: result.content.map((c) => c.text).join(""), isError: result.isError === true }
  }
  const { tools } = await client.listTools()
  const item = /** @type {any} */ (tools.find((tool) => tool.name === "edit")?.inputSchema).properties.operations.items
  t.truthy(item.properties.after && item.properties.before)
  t.true(item.properties.op.enum.includes("move") && item.properties.op.enum.includes("copy"))

  const r = refs((await call("read", { filePath: "a.txt" })).text)
  const moved = await call("edit", { filePath: "a.txt", operations: [{ op: "move", ref: r(9), through: r(10), before: r(1) }, { op: "copy", ref: r(5), after: r(6) }] })
  t.false(moved.isError, moved.text)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "line 9\nline 10\nline 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 5\nline 7\nline 8\n")
  const refused = await call("edit", { filePath: "a.txt", operations: [{ op: "move", ref: r(1), after: r(2), content: "x" }] })
  t.true(refused.isError)
  t.regex(refused.text, /takes no `content`/)
})

test("createTools: the edit tool moves lines and its schema names the place fields", async (t) => {
  const root = project(t, { "a.txt": TEN })
  const tools = createTools({ root })
  t.deepEqual(tools.edit.inputSchema.properties.operations.items.properties.after, EDIT_SCHEMA.properties.operations.items.properties.after)
  const r = refs(await tools.read.execute({ filePath: "a.txt" }))
  const out = await tools.edit.execute({ filePath: "a.txt", operations: [{ op: "move", ref: r(1), after: r(3) }] })
  t.regex(out, /^Applied 1 operation to a\.txt/)
  t.true(fs.readFileSync(path.join(root, "a.txt"), "utf8").startsWith("line 2\nline 3\nline 1\nline 4\n"))
})

test("OpenCode: the tool's schema takes after and before, and a move from a tagged read is written", async (t) => {
  const schema = z.object(/** @type {any} */ (editTool.args))
  const parsed = /** @type {any} */ (schema.parse({ filePath: "a.txt", operations: [{ op: "copy", ref: "2ab", through: "3cd", before: "1ef" }] }))
  t.deepEqual(parsed.operations[0], { op: "copy", ref: "2ab", through: "3cd", before: "1ef" })
  const json = JSON.stringify(z.toJSONSchema(schema, { io: "input" }))
  t.false(/anyOf|oneOf|allOf/.test(json))

  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "hashline-oc-")))
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }))
  const file = path.join(root, "a.txt")
  fs.writeFileSync(file, TEN)
  const hooks = await pluginModule.server(/** @type {any} */ ({ directory: root, worktree: root }))
  const lines = TEN.trimEnd().split("\n")
  const output = {
    title: "a.txt",
    output: [`<path>${file}</path>`, "<type>file</type>", "<content>", ...lines.map((l, i) => `${i + 1}: ${l}`), "", `(End of file - total ${lines.length} lines)`, "</content>"].join("\n"),
    metadata: {},
  }
  await /** @type {any} */ (hooks)["tool.execute.after"]({ tool: "read", sessionID: "s", callID: "c", args: { filePath: file } }, output)
  const r = refs(output.output)
  const ctx = {
    sessionID: "ses_test",
    messageID: "msg_test",
    agent: "build",
    directory: root,
    worktree: root,
    abort: new AbortController().signal,
    metadata() {},
    async ask() {},
  }
  const result = /** @type {any} */ (await editTool.execute(/** @type {any} */ ({ filePath: "a.txt", operations: [{ op: "move", ref: r(4), through: r(6), after: r(10) }] }), /** @type {any} */ (ctx)))
  t.regex(result.output, /REV [0-9A-F]{8} -> [0-9A-F]{8}/)
  t.is(fs.readFileSync(file, "utf8"), "line 1\nline 2\nline 3\nline 7\nline 8\nline 9\nline 10\nline 4\nline 5\nline 6\n")
})
