// @ts-check
// The OpenCode edit tool and plugin, driven the way OpenCode drives them, on
// real files through the native module.
import test from "ava"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { z } from "zod"
import editTool, { parseArguments } from "../../opencode/edit.mjs"
import pluginModule from "../../opencode/plugin.mjs"
import * as pluginExports from "../../opencode/plugin.mjs"
import { INSTRUCTION } from "../../lib/texts.cjs"
import { applyEdits } from "../../index.js"

// These tests pin the full view's text; the lean view, the default, has its own in lean.spec.mjs.
process.env.HASHLINE_VIEW = "full"

/**
 * @typedef {{ permission: string, patterns: string[], always: string[], metadata: Record<string, any> }} Ask
 */

/**
 * A project folder (a git worktree as far as OpenCode is concerned) with files.
 * @param {import("ava").ExecutionContext} t
 * @param {Record<string, string | Buffer>} files
 */
function project(t, files) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "hashline-oc-")))
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }))
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
    fs.writeFileSync(path.join(root, name), content)
  }
  return root
}

/**
 * What OpenCode hands a tool: here `ask` records and can refuse.
 * @param {string} worktree
 * @param {{ directory?: string, refuse?: string[] }} [options]
 */
function context(worktree, options = {}) {
  /** @type {Ask[]} */
  const asks = []
  const ctx = {
    sessionID: "ses_test",
    messageID: "msg_test",
    agent: "build",
    directory: options.directory ?? worktree,
    worktree,
    abort: new AbortController().signal,
    metadata() {},
    /** @param {Ask} input */
    async ask(input) {
      asks.push(input)
      if (options.refuse?.includes(input.permission)) throw new Error(`The user rejected permission to use this specific tool call (${input.permission}).`)
    },
  }
  return { ctx, asks }
}

/**
 * The plugin's hooks for a project.
 * @param {string} worktree
 */
async function hooksFor(worktree) {
  return pluginModule.server(/** @type {any} */ ({ directory: worktree, worktree }))
}

/**
 * OpenCode's read output for a whole file, as 1.18 formats it.
 * @param {string} file
 */
function openCodeRead(file) {
  const lines = fs.readFileSync(file, "utf8").replace(/^\uFEFF/, "").split(/\r?\n|\r/)
  if (lines[lines.length - 1] === "") lines.pop()
  return [
    `<path>${file}</path>`,
    "<type>file</type>",
    "<content>",
    ...lines.map((l, i) => `${i + 1}: ${l}`),
    "",
    `(End of file - total ${lines.length} lines)`,
    "</content>",
  ].join("\n")
}

/**
 * Reads a file through the plugin's hook, as the model would see it.
 * @param {any} hooks
 * @param {string} file
 */
async function tagRead(hooks, file) {
  const output = { title: path.basename(file), output: openCodeRead(file), metadata: {} }
  await hooks["tool.execute.after"]({ tool: "read", sessionID: "s", callID: "c", args: { filePath: file } }, output)
  return output.output
}

/**
 * @param {string} view
 * @param {string} text
 */
function refFor(view, text) {
  for (const line of view.split("\n")) {
    const m = /^(\d+#[0-9A-F]{3}#[0-9A-F]{3})\|(.*)$/.exec(line)
    if (m && m[2] === text) return m[1]
  }
  throw new Error(`no ref for ${text} in ${view}`)
}

test("the tool checks only what is the host's, and the engine's wording of a bad request reaches the model", (t) => {
  /** @param {unknown} args */
  const message = (args) => t.throws(() => parseArguments(args))?.message ?? ""
  t.regex(message(undefined), /expected an object with filePath and operations/)
  t.regex(message({ operations: [] }), /filePath must be the path/)
  t.regex(message({ filePath: null, operations: [] }), /filePath must be the path of the file to edit, got null/)

  /**
   * What the engine says of the request the tool passes on.
   * @param {unknown} args
   */
  const engine = (args) => {
    const { request } = parseArguments(args)
    const err = /** @type {any} */ (t.throws(() => applyEdits("a\nb\n", request)))
    return `${err?.code}: ${err?.message}`
  }
  t.regex(engine({ filePath: "a", path: "b", operations: [{ op: "append", content: "x" }] }), /^INVALID_REQUEST: .*unknown field `path`/)
  t.regex(engine({ filePath: "a" }), /^INVALID_REQUEST: The request needs `operations`/)
  t.regex(engine({ filePath: "a", operations: [], oldString: "x", newString: "y" }), /either `operations` or `oldString`\/`newString`, not both/)
  t.regex(engine({ filePath: "a", operations: {} }), /`operations` must be an array of operations, not an object/)
  t.regex(engine({ filePath: "a", operations: [] }), /`operations` is empty/)
  t.regex(engine({ filePath: "a", operations: ["replace"] }), /operation 1 must be an object/)
  t.regex(engine({ filePath: "a", operations: [{ op: "append" }], replaceAll: true }), /`replaceAll` goes with `oldString`/)
  t.regex(engine({ filePath: "a", oldString: "x" }), /`oldString` needs `newString`/)
  t.regex(engine({ filePath: "a", oldString: "a", newString: "a" }), /^NO_CHANGE: No changes to apply: oldString and newString are identical\.$/)
  t.regex(engine({ filePath: "a", rev: 5, operations: [{ op: "append", content: "x" }] }), /`rev` must be a string, not a number/)
  // Operations sent as JSON text are the engine's to decode, in every host.
  t.regex(engine({ filePath: "a", operations: "[oops" }), /^INVALID_REQUEST: .*not valid JSON/)

  // The aliases the engine accepts reach it from the tool too.
  t.is(applyEdits("a\n", parseArguments({ filePath: "a", ops: JSON.stringify([{ op: "append", content: "b" }]) }).request).text, "a\nb\n")
  t.is(applyEdits("a\n", parseArguments({ filePath: "a", old_string: "a", new_string: "c" }).request).text, "c\n")

  const ops = [{ op: "append", content: "x" }]
  t.deepEqual(parseArguments({ filePath: "a", operations: JSON.stringify(ops), rev: " 72C4946C " }), {
    filePath: "a",
    request: { operations: JSON.stringify(ops), rev: " 72C4946C " },
  })
  t.is(applyEdits("a\n", parseArguments({ filePath: "a", operations: JSON.stringify(ops) }).request).text, "a\nx\n")
  t.deepEqual(parseArguments({ filePath: "a", operations: ops, rev: null, oldString: null, newString: null, replaceAll: null }), {
    filePath: "a",
    request: { operations: ops },
  })
  t.deepEqual(parseArguments({ filePath: "a", oldString: "x", newString: "y", replaceAll: true }), {
    filePath: "a",
    request: { oldString: "x", newString: "y", replaceAll: true },
  })
})

test("the schema is flat: no unions, content a string, only filePath required", (t) => {
  const schema = z.toJSONSchema(z.object(/** @type {any} */ (editTool.args)), { io: "input" })
  const text = JSON.stringify(schema)
  t.false(/anyOf|oneOf|allOf/.test(text))
  t.deepEqual(schema.required, ["filePath"])
  const op = /** @type {any} */ (schema.properties?.operations).items
  t.is(op.properties.content.type, "string")
  t.deepEqual(op.required, ["op"])
})

test("an edit from a tagged read asks with the diff, writes, and returns what OpenCode shows", async (t) => {
  const root = project(t, { "src/a.ts": "const a = 1\nconst b = 2\n" })
  const hooks = await hooksFor(root)
  const view = await tagRead(hooks, path.join(root, "src/a.ts"))
  t.regex(view, /^REV:[0-9A-F]{8}$/m)

  const { ctx, asks } = context(root, { directory: path.join(root, "src") })
  const result = /** @type {any} */ (
    await editTool.execute(/** @type {any} */ ({ filePath: "a.ts", operations: [{ op: "replace", ref: refFor(view, "const b = 2"), content: "const b = 3" }] }), /** @type {any} */ (ctx))
  )
  t.is(fs.readFileSync(path.join(root, "src/a.ts"), "utf8"), "const a = 1\nconst b = 3\n")
  t.deepEqual(
    asks.map((a) => [a.permission, a.patterns, a.always]),
    [["edit", ["src/a.ts"], ["*"]]],
  )
  t.is(asks[0].metadata.filepath, path.join(root, "src/a.ts"))
  t.regex(asks[0].metadata.diff, /^-const b = 2$/m)
  t.is(result.title, "src/a.ts")
  t.regex(result.output, /REV [0-9A-F]{8} -> [0-9A-F]{8}/)
  t.deepEqual(result.metadata.filediff, { file: path.join(root, "src/a.ts"), patch: result.metadata.diff, additions: 1, deletions: 1 })
  t.deepEqual(result.metadata.diagnostics, {})
})

test("a refused edit writes nothing", async (t) => {
  const root = project(t, { "a.txt": "x\ny\n" })
  const hooks = await hooksFor(root)
  const view = await tagRead(hooks, path.join(root, "a.txt"))
  const { ctx } = context(root, { refuse: ["edit"] })
  await t.throwsAsync(() => editTool.execute(/** @type {any} */ ({ filePath: "a.txt", operations: [{ op: "delete", ref: refFor(view, "y") }] }), /** @type {any} */ (ctx)), {
    message: /rejected permission/,
  })
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "x\ny\n")
})

test("a file outside the project needs external_directory first", async (t) => {
  const root = project(t, { "in.txt": "in\n" })
  const elsewhere = project(t, { "out.txt": "out\n" })
  const target = path.join(elsewhere, "out.txt")

  const refused = context(root, { refuse: ["external_directory"] })
  await t.throwsAsync(() => editTool.execute(/** @type {any} */ ({ filePath: target, oldString: "out", newString: "OUT" }), /** @type {any} */ (refused.ctx)))
  t.deepEqual(
    refused.asks.map((a) => a.permission),
    ["external_directory"],
  )
  t.deepEqual(refused.asks[0].patterns, [path.join(elsewhere, "*")])
  t.is(fs.readFileSync(target, "utf8"), "out\n")

  const allowed = context(root)
  const result = /** @type {any} */ (await editTool.execute(/** @type {any} */ ({ filePath: target, oldString: "out", newString: "OUT" }), /** @type {any} */ (allowed.ctx)))
  t.deepEqual(
    allowed.asks.map((a) => a.permission),
    ["external_directory", "edit"],
  )
  t.is(fs.readFileSync(target, "utf8"), "OUT\n")
  t.is(result.title, path.relative(root, target))
})

test("a link out of the project is treated as outside", async (t) => {
  const root = project(t, {})
  const elsewhere = project(t, { "real.txt": "real\n" })
  fs.symlinkSync(path.join(elsewhere, "real.txt"), path.join(root, "link.txt"))
  const { ctx, asks } = context(root)
  await editTool.execute(/** @type {any} */ ({ filePath: "link.txt", oldString: "real", newString: "REAL" }), /** @type {any} */ (ctx))
  t.deepEqual(
    asks.map((a) => [a.permission, a.metadata.filepath]),
    [
      ["external_directory", path.join(elsewhere, "real.txt")],
      ["edit", path.join(root, "link.txt")],
    ],
  )
  t.is(fs.readFileSync(path.join(elsewhere, "real.txt"), "utf8"), "REAL\n")
})

test("engine rejections reach the model as plain errors and write nothing", async (t) => {
  const root = project(t, { "a.txt": "one\ntwo\n" })
  const hooks = await hooksFor(root)
  const view = await tagRead(hooks, path.join(root, "a.txt"))
  const stale = refFor(view, "two")
  fs.writeFileSync(path.join(root, "a.txt"), "one\nTWO\n")
  const { ctx, asks } = context(root)
  const err = await t.throwsAsync(() => editTool.execute(/** @type {any} */ ({ filePath: "a.txt", operations: [{ op: "delete", ref: stale }] }), /** @type {any} */ (ctx)))
  t.regex(err?.message ?? "", /nothing written/)
  t.is(/** @type {any} */ (err).code, undefined)
  t.deepEqual(asks, [])
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "one\nTWO\n")

  const missing = await t.throwsAsync(() => editTool.execute(/** @type {any} */ ({ filePath: "none.txt", oldString: "a", newString: "b" }), /** @type {any} */ (ctx)))
  t.truthy(missing?.message)
})

test("tool and plugin share one engine, so refs survive another writer", async (t) => {
  const root = project(t, { "a.txt": "a\nb\nc\nd\n" })
  const hooks = await hooksFor(root)
  const view = await tagRead(hooks, path.join(root, "a.txt"))
  // Someone else adds two lines at the top after the read.
  fs.writeFileSync(path.join(root, "a.txt"), "x\ny\na\nb\nc\nd\n")
  const { ctx } = context(root)
  await editTool.execute(/** @type {any} */ ({ filePath: "a.txt", operations: [{ op: "replace", ref: refFor(view, "c"), content: "C" }] }), /** @type {any} */ (ctx))
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "x\ny\na\nb\nC\nd\n")
})

test("the plugin module exports only the plugin, which registers this edit tool and apply_patch", async (t) => {
  t.deepEqual(Object.keys(pluginExports), ["default"])
  t.is(pluginModule.id, "hashline")
  const hooks = await hooksFor(project(t, {}))
  t.deepEqual(Object.keys(hooks.tool ?? {}), ["edit", "apply_patch"])
  t.is(hooks.tool?.edit.description, editTool.description)
  t.is(hooks.tool?.edit.args, editTool.args)
})

test("the system instruction is added once per request", async (t) => {
  const hooks = await hooksFor(project(t, {}))
  const output = { system: ["You are a coding agent."] }
  const transform = /** @type {any} */ (hooks["experimental.chat.system.transform"])
  await transform({ model: {} }, output)
  await transform({ model: {} }, output)
  t.deepEqual(output.system, ["You are a coding agent.", INSTRUCTION])
})

test("write content that echoes the prefixes of lines a read showed is cleaned and the cleaning reported", async (t) => {
  const root = project(t, { "x.py": "import os\n\nprint(1)\n" })
  const hooks = await hooksFor(root)
  const before = /** @type {any} */ (hooks["tool.execute.before"])
  const after = /** @type {any} */ (hooks["tool.execute.after"])
  const view = await tagRead(hooks, path.join(root, "x.py"))

  const echoed = { args: { filePath: "x.py", content: `${refFor(view, "import os")}|import os\n\n${refFor(view, "print(1)")}|print(2)\n` } }
  await before({ tool: "write", sessionID: "s", callID: "c1" }, echoed)
  t.is(echoed.args.content, "import os\n\nprint(2)\n")
  const result = { title: "x.py", output: "Wrote file successfully.", metadata: {} }
  await after({ tool: "write", sessionID: "s", callID: "c1", args: echoed.args }, result)
  t.is(result.output, "Wrote file successfully.\n\nRemoved the view prefixes (LINEab or LINE#HASH#ANCHOR|) from 2 lines of content before writing: they name lines this file's views showed.")
})

test("write content that only looks like view prefixes is written as sent", async (t) => {
  const hooks = await hooksFor(project(t, {}))
  const before = /** @type {any} */ (hooks["tool.execute.before"])
  for (const content of ["3rd party notices\n", "5th avenue\n7th floor\n", "intro\n8am standup\n"]) {
    const write = { args: { filePath: "notes.md", content } }
    await before({ tool: "write", sessionID: "s", callID: "c" }, write)
    t.is(write.args.content, content)
  }
})

test("write content in a full ref's form that no view showed is refused, and written as sent when sent again", async (t) => {
  const hooks = await hooksFor(project(t, {}))
  const before = /** @type {any} */ (hooks["tool.execute.before"])
  const content = "1#AAA#BBB|import os\nprint(1)\n"
  const err = await t.throwsAsync(() => before({ tool: "write", sessionID: "s", callID: "c1" }, { args: { filePath: "x.py", content } }))
  t.regex(String(err?.message), /has the shape of a view's ref where it stands/)
  const again = { args: { filePath: "x.py", content } }
  await before({ tool: "write", sessionID: "s", callID: "c2" }, again)
  t.is(again.args.content, content)
})

test("write content copied with prefixes from another file's view is refused, and written as sent when sent again or with literal", async (t) => {
  const root = project(t, { "x.py": "import os\nprint(1)\n" })
  const hooks = await hooksFor(root)
  const before = /** @type {any} */ (hooks["tool.execute.before"])
  const view = await tagRead(hooks, path.join(root, "x.py"))
  const content = `${refFor(view, "import os")}|import os\n${refFor(view, "print(1)")}|print(1)\n`
  const first = { args: { filePath: "y.py", content } }
  const err = await t.throwsAsync(() => before({ tool: "write", sessionID: "s", callID: "c1" }, first))
  t.regex(String(err?.message), /^Edit rejected, nothing written: lines start like the refs of a view/)
  t.regex(String(err?.message), /looks copied from a view, but not from one of this file/)
  t.regex(String(err?.message), /send the same content again/)
  const again = { args: { filePath: "y.py", content } }
  await before({ tool: "write", sessionID: "s", callID: "c2" }, again)
  t.is(again.args.content, content)
  const literal = { args: { filePath: "z.py", content, literal: true } }
  await before({ tool: "write", sessionID: "s", callID: "c3" }, literal)
  t.deepEqual(literal.args, { filePath: "z.py", content })
})

test("read and grep output of real files get refs; other output is left alone", async (t) => {
  const root = project(t, { "a.txt": "\uFEFFalpha\r\nbeta alpha\r\n", "bin.dat": Buffer.from([0, 1, 2, 3]) })
  const hooks = await hooksFor(root)
  const after = /** @type {any} */ (hooks["tool.execute.after"])

  const view = await tagRead(hooks, path.join(root, "a.txt"))
  t.regex(view, /\n1#[0-9A-F]{3}#[0-9A-F]{3}\|alpha\n2#[0-9A-F]{3}#[0-9A-F]{3}\|beta alpha\n/)

  const grep = { title: "alpha", output: ["Found 2 matches", `${path.join(root, "a.txt")}:`, "  Line 1: alpha\r", "", "  Line 2: beta alpha\r", ""].join("\n"), metadata: {} }
  await after({ tool: "grep", sessionID: "s", callID: "g", args: { pattern: "alpha" } }, grep)
  t.is(grep.output.split("\n")[2], `  ${refFor(view, "alpha")}|alpha`)
  t.is(grep.output.split("\n")[4], `  ${refFor(view, "beta alpha")}|beta alpha`)

  const binary = { title: "bin.dat", output: [`<path>${path.join(root, "bin.dat")}</path>`, "<type>file</type>", "<content>", "1: \u0000\u0001", "", "(End of file - total 1 lines)", "</content>"].join("\n"), metadata: {} }
  const before = binary.output
  await after({ tool: "read", sessionID: "s", callID: "b", args: {} }, binary)
  t.is(binary.output, before)

  const other = { title: "", output: "Image read successfully", metadata: {} }
  await after({ tool: "read", sessionID: "s", callID: "i", args: {} }, other)
  t.is(other.output, "Image read successfully")
})

test("a view prefix left in written content comes back as OpenCode's LSP error, with the line's ref", async (t) => {
  const root = project(t, { "c.txt": "one\ntwo\n" })
  const hooks = await hooksFor(root)
  const view = await tagRead(hooks, path.join(root, "c.txt"))
  const { ctx } = context(root)
  // A made-up prefix is refused; sent again literal, the edit lands, and says what is wrong.
  const operations = [{ op: "replace", ref: refFor(view, "two"), content: "1#AAA#BBB|three\nfour" }]
  const refused = await t.throwsAsync(() => /** @type {any} */ (hooks.tool).edit.execute({ filePath: "c.txt", operations }, ctx))
  t.regex(String(refused?.message), /has the shape of a view's ref where it stands/)
  const result = /** @type {any} */ (await /** @type {any} */ (hooks.tool).edit.execute({ filePath: "c.txt", operations, literal: true }, ctx))
  const file = path.join(root, "c.txt")
  t.is(fs.readFileSync(file, "utf8"), "one\n1#AAA#BBB|three\nfour\n")
  const ref = /^\+(2#[0-9A-F]{3}#[0-9A-F]{3})\|1#AAA#BBB\|three$/m.exec(result.output)?.[1]
  t.truthy(ref, result.output)
  const message = `the line starts with a view prefix (LINE#HASH#ANCHOR|) copied from a read; it is not part of the file (${ref})`
  t.true(result.output.endsWith(`\n\nLSP errors detected in this file, please fix:\n<diagnostics file="${file}">\nERROR [2:1] ${message}\n</diagnostics>`), result.output)
  t.deepEqual(result.metadata.diagnostics, { [file]: [{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 10 } }, severity: 1, message, source: "hashline" }] })
})

test("an edit whose tool call was aborted writes nothing and fails as an AbortError", async (t) => {
  const root = project(t, { "a.txt": "one\ntwo\n" })
  const hooks = /** @type {any} */ (await hooksFor(root))
  const view = await tagRead(hooks, path.join(root, "a.txt"))
  const ref = /^(2#[0-9A-F]{3}#[0-9A-F]{3})\|/m.exec(view)?.[1]
  const { ctx, asks } = context(root)
  const aborted = { ...ctx, abort: AbortSignal.abort() }
  const err = await t.throwsAsync(editTool.execute({ filePath: "a.txt", operations: [{ op: "replace", ref, content: "TWO" }] }, /** @type {any} */ (aborted)))
  t.is(err?.name, "AbortError")
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "one\ntwo\n")
  t.is(asks.length, 0, "nothing was planned to ask about")
})

test("an edit whose tool call is aborted while the user looks at the diff writes nothing", async (t) => {
  const root = project(t, { "a.txt": "one\ntwo\n" })
  const hooks = /** @type {any} */ (await hooksFor(root))
  const view = await tagRead(hooks, path.join(root, "a.txt"))
  const ref = /^(2#[0-9A-F]{3}#[0-9A-F]{3})\|/m.exec(view)?.[1]
  const controller = new AbortController()
  const { ctx } = context(root)
  // The user stops the session while the permission prompt is open.
  const asking = { ...ctx, abort: controller.signal, ask: async () => controller.abort() }
  const err = await t.throwsAsync(editTool.execute({ filePath: "a.txt", operations: [{ op: "replace", ref, content: "TWO" }] }, /** @type {any} */ (asking)))
  t.is(err?.name, "AbortError")
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "one\ntwo\n")
})

test("the plugin's read of a notebook shows the cells its offset and limit ask for, also given as text", async (t) => {
  const root = project(t, { "n.ipynb": fs.readFileSync(new URL("../fixtures/notebooks/nbformat/test4.5.ipynb", import.meta.url)) })
  const file = path.join(root, "n.ipynb")
  const hooks = await hooksFor(root)
  const output = { title: "n.ipynb", output: openCodeRead(file), metadata: {} }
  await /** @type {any} */ (hooks["tool.execute.after"])({ tool: "read", sessionID: "s", callID: "c", args: { filePath: file, offset: "3", limit: 2 } }, output)
  t.regex(output.output, /^<path>.*n\.ipynb<\/path>\n<type>file<\/type>\n<content>\nn\.ipynb REV:[0-9A-F]{8} lines 3-4 of \d+\n/)
  t.regex(output.output, /\n3#[0-9A-F]{3}#[0-9A-F]{3}\|.*\n(  » .*\n)*4#[0-9A-F]{3}#[0-9A-F]{3}\|/)
  t.false(output.output.includes('"cell_type"'))
})
