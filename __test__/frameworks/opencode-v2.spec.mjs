// @ts-check
// The OpenCode 2 half of the plugin (`setup`), against OpenCode 2's plugin
// contract as its public source defines it. No OpenCode 2 build is on a
// registry this project reaches, so a small host here plays OpenCode 2's
// part, following these files of github.com/anomalyco/opencode:
// - packages/core/src/plugin/module.ts @ 07db2b925a41 (the default export)
// - packages/plugin/src/promise/plugin.ts @ 0ef9ef4be011, promise/tool.ts @
//   196e46122874, promise/registration.ts @ baf3a6591a15, effect/plugin.ts @
//   07bc181c5a59 (setup's context, tool.transform and tool.hook)
// - packages/schema/src/tool.ts @ 0f131b3e39f2 (a tool and its result)
// - packages/core/src/tool/plugin/read.ts @ 13d5020552c0, grep.ts @
//   108862af98a1, write.ts @ 1bc8473e2697, edit.ts @ 179525d57648, patch.ts @
//   00940b1c333a (the built-ins: names, options, `path`, output formats)
// - packages/core/src/plugin/promise.ts @ 0a80062dfbf0 (how a promise
//   plugin's registrations reach the host)
// The real OpenCode 1.18 runs the same default export in opencode-e2e.spec.mjs.
import test from "ava"
import fs from "node:fs"
import path from "node:path"
import plugin from "../../opencode/plugin.mjs"
import { configureEngines, engineFor } from "../../opencode/engine.mjs"
import { EDIT_DESCRIPTION } from "../../lib/definitions.mjs"
import { holdFolderLock, recorded, scratch } from "../helpers.mjs"
import { AFTER, BEFORE, FILE, checkResults, logLine, nextCall } from "./scenario.mjs"

process.env.HASHLINE_VIEW = "lean"

/**
 * @typedef {import("../../opencode/v2-types.d.mts").V2ToolInfo} Tool
 * @typedef {(event: any) => Promise<void> | void} Hook
 */

/**
 * OpenCode 2's side of the contract: a registry keyed by tool name where the
 * last registration wins, the built-ins registered first (as plugins, like
 * OpenCode's own), hooks run around each call, a thrown error reported to the
 * model as the call's error.
 * @param {string} directory
 */
function host(directory) {
  /** @type {Map<string, Tool>} */
  const tools = new Map()
  /** @type {Record<string, Hook[]>} */
  const hooks = { "execute.before": [], "execute.after": [], context: [] }
  const registration = { dispose: async () => {} }
  /** @param {string} p */
  const resolve = (p) => path.resolve(directory, p)
  /** @type {Tool[]} */
  const builtins = [
    {
      name: "read",
      description: "built-in read",
      input: {},
      options: { codemode: false },
      // read.ts's toModelContent for a whole text file.
      execute: async (/** @type {any} */ input) => {
        const lines = fs.readFileSync(resolve(input.path), "utf8").replace(/\n$/, "").split("\n")
        return { content: [`Read file ${input.path}, lines 1-${lines.length}`, ...lines.map((line, i) => `${i + 1}: ${line}`)].join("\n") }
      },
    },
    {
      name: "write",
      description: "built-in write",
      input: {},
      options: { codemode: false, permission: "edit" },
      execute: async (/** @type {any} */ input) => {
        fs.writeFileSync(resolve(input.path), input.content)
        return { content: `Wrote file successfully: ${input.path}` }
      },
    },
    { name: "edit", description: "built-in edit", input: {}, options: { codemode: false, permission: "edit" }, execute: async () => ({ content: "built-in edit" }) },
    { name: "patch", description: "built-in patch", input: {}, options: { codemode: false, permission: "edit" }, execute: async () => ({ content: "built-in patch" }) },
  ]
  for (const tool of builtins) tools.set(tool.name, tool)
  /** @type {import("../../opencode/v2-types.d.mts").V2Context} */
  const ctx = {
    options: {},
    location: { directory },
    tool: {
      transform: async (callback) => {
        callback({ add: (tool) => tools.set(tool.name, tool) })
        return registration
      },
      hook: async (name, callback) => {
        hooks[name].push(callback)
        return registration
      },
    },
    session: {
      hook: async (name, callback) => {
        hooks[name].push(callback)
        return registration
      },
    },
  }
  let calls = 0
  /**
   * One tool call as OpenCode 2 runs it: the result's text, or the error's.
   * @param {string} name
   * @param {unknown} input
   * @param {AbortSignal} [signal]
   */
  async function call(name, input, signal) {
    const tool = tools.get(name)
    if (!tool) throw new Error(`no tool ${name}`)
    const id = `call-${++calls}`
    const base = { tool: name, sessionID: "session-1", agent: "build", messageID: "message-1", id }
    const before = { ...base, input: structuredClone(input) }
    try {
      for (const hook of hooks["execute.before"]) await hook(before)
      const result = await tool.execute(before.input, { sessionID: base.sessionID, agent: base.agent, messageID: base.messageID, id, signal })
      const after = { ...base, input: before.input, status: "completed", result }
      for (const hook of hooks["execute.after"]) await hook(after)
      return { ok: true, text: String(after.result.content) }
    } catch (err) {
      return { ok: false, text: err instanceof Error ? err.message : String(err), code: /** @type {any} */ (err)?.code }
    }
  }
  return { ctx, tools, hooks, call }
}

test("the default export serves both generations: OpenCode 1's server and OpenCode 2's setup, under one id", (t) => {
  t.is(plugin.id, "hashline")
  t.is(typeof plugin.server, "function")
  t.is(typeof plugin.setup, "function")
})

// OpenCode 1.18.30 and later run `setup` of a `{ id, server, setup }` export
// too, beside `server`, with OpenCode 1's plugin input: no `tool` to
// register with. Serial: the engines' options are the module's.
test.serial("setup given a context without tool, as OpenCode 1 gives it, does nothing: no error, no warning, the options server set kept", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "f.txt"), "one\n")
  t.teardown(() => configureEngines({}))
  configureEngines({ view: "full" })
  /** @type {unknown[][]} */
  const warnings = []
  const warn = console.warn
  console.warn = (/** @type {unknown[]} */ ...args) => warnings.push(args)
  t.teardown(() => {
    console.warn = warn
  })
  const opencode1 = /** @type {any} */ ({ client: {}, project: {}, directory: root, worktree: root, serverUrl: new URL("http://localhost:4096") })
  for (const ctx of [opencode1, { ...opencode1, options: { view: "nonsense" } }, { location: { directory: root } }]) t.is(await plugin.setup(ctx), undefined)
  t.deepEqual(warnings, [])
  t.regex(engineFor({ directory: root, worktree: root }).read("f.txt").text, /^1#[0-9A-F]{3}#[0-9A-F]{3}\|one$/m)
})

test("setup replaces the built-in edit and patch under their names, out of code mode, under the edit permission, with path as the argument", async (t) => {
  const root = scratch(t)
  const h = host(root)
  await plugin.setup(h.ctx)
  const edit = h.tools.get("edit")
  const patch = h.tools.get("patch")
  // The description names the argument as the schema does, as pi's does.
  t.is(edit?.description, EDIT_DESCRIPTION.replaceAll("filePath", "path"))
  t.deepEqual(edit?.options, { codemode: false, permission: "edit" })
  t.deepEqual(patch?.options, { codemode: false, permission: "edit" })
  t.deepEqual(patch?.freeform, { input: "patchText", name: "apply_patch" })
  t.deepEqual(/** @type {any} */ (edit?.input).required, ["path"])
  t.false("filePath" in /** @type {any} */ (edit?.input).properties)
  t.is(h.hooks["execute.before"].length, 1)
  t.is(h.hooks["execute.after"].length, 1)
})

test("under OpenCode 2's contract a model reads through the built-in read, edits by the refs the hook added, recovers from a stale ref, and the file has exactly the bytes it meant", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, FILE), BEFORE)
  const h = host(root)
  await plugin.setup(h.ctx)
  // The request that offers the tools names the session's model.
  for (const hook of h.hooks.context) await hook({ sessionID: "session-1", model: { id: "v2-scripted-model" } })
  /** @type {string[]} */
  const results = []
  /** @type {string[]} */
  const called = []
  for (let step = 1; ; step++) {
    const next = nextCall(results)
    t.log(logLine(step, [...h.tools.keys()], results.at(-1)))
    if (!next) break
    // OpenCode 2's tools take `path`.
    const { filePath, ...rest } = /** @type {Record<string, unknown>} */ (next.args)
    const outcome = await h.call(next.name, { path: filePath, ...rest })
    results.push(outcome.text)
    called.push(next.name)
  }
  t.regex(results[0], /^Read file greet\.js, lines 1-3\nREV:[0-9A-F]{8}\n1[a-z]{2} function greet/)
  // Each call, the built-in read the hook tagged included, is in the record with the session's model.
  const records = recorded(String(process.env.HASHLINE_TELEMETRY_DIR)).filter((r) => r.model === "v2-scripted-model")
  t.deepEqual(
    records.map((r) => [r.host, r.tool, r.callId]),
    called.map((name, i) => ["opencode-2", name, `call-${i + 1}`]),
  )
  checkResults(t, results.map((text, i) => (i === 0 ? text.replace(/^Read file greet\.js, lines 1-3\nREV:([0-9A-F]{8})\n/, "greet.js REV:$1 lines 1-3 of 3\n") : text)))
  t.deepEqual(fs.readFileSync(path.join(root, FILE)), Buffer.from(AFTER))
})

test("under OpenCode 2 the edit also takes filePath, and a write of lines copied with their refs is written without the refs", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "a.txt"), "alpha\nbeta\n")
  const h = host(root)
  await plugin.setup(h.ctx)
  const read = await h.call("read", { path: "a.txt" })
  const copied = read.text.split("\n").slice(2).join("\n")
  t.regex(copied, /^1[a-z]{2} alpha\n2[a-z]{2} beta$/)
  const write = await h.call("write", { path: "a.txt", content: `${copied}\n` })
  t.true(write.ok, write.text)
  t.regex(write.text, /Removed the view prefixes .* from 2 lines/)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "alpha\nbeta\n")
  const edit = await h.call("edit", { filePath: "a.txt", oldString: "beta", newString: "BETA" })
  t.true(edit.ok, edit.text)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "alpha\nBETA\n")
})

test("under OpenCode 2 a path outside the project is refused, nothing written", async (t) => {
  const root = scratch(t)
  const outside = scratch(t)
  fs.writeFileSync(path.join(outside, "o.txt"), "x\n")
  const h = host(root)
  await plugin.setup(h.ctx)
  const edit = await h.call("edit", { path: path.join(outside, "o.txt"), oldString: "x", newString: "y" })
  t.false(edit.ok)
  t.regex(edit.text, /outside the project/)
  t.is(fs.readFileSync(path.join(outside, "o.txt"), "utf8"), "x\n")
})

test("under OpenCode 2 the call's signal reaches the engine: an edit aborted while it waits for its folder's lock writes nothing", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, FILE), BEFORE)
  const h = host(root)
  await plugin.setup(h.ctx)
  const lock = await holdFolderLock(t, root)
  const controller = new AbortController()
  const call = h.call("edit", { path: FILE, oldString: "Hello", newString: "Hi" }, controller.signal)
  await new Promise((resolve) => setTimeout(resolve, 100))
  controller.abort()
  await lock.release()
  const outcome = await call
  t.false(outcome.ok)
  t.is(outcome.code, undefined, "the engine's error reaches the model as its text")
  t.regex(outcome.text, /cancel/i)
  t.deepEqual(fs.readFileSync(path.join(root, FILE)), Buffer.from(BEFORE))
})
