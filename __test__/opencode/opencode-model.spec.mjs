// @ts-check
// Each model is told only about the edit tool OpenCode gives it: `apply_patch`
// for the models OpenCode's rule picks, `edit` for every other; reads show
// refs to the models that cite them.
import test from "ava"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import pluginModule from "../../opencode/plugin.mjs"
import { INSTRUCTION, PATCH_INSTRUCTION } from "../../lib/texts.cjs"
import { editKindOf } from "../../opencode/model.mjs"

// These tests pin the full view's text; the lean view, the default, has its own in lean.spec.mjs.
process.env.HASHLINE_VIEW = "full"

/** @param {import("ava").ExecutionContext} t @param {Record<string, string>} files */
function project(t, files) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "hashline-model-")))
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }))
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(root, name), content)
  return root
}

/** @param {string} root */
async function hooksFor(root) {
  return /** @type {any} */ (await pluginModule.server(/** @type {any} */ ({ directory: root, worktree: root })))
}

/**
 * The system prompt parts a request gets for a model, as OpenCode passes it.
 * @param {any} hooks
 * @param {any} model
 */
async function systemFor(hooks, model) {
  const output = { system: ["You are a coding agent."] }
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses", model }, output)
  return output.system
}

/** @param {string} id */
const model = (id) => ({ id, providerID: "p", api: { id, npm: "@ai-sdk/openai-compatible" } })

test("OpenCode's rule: gpt- models but oss and gpt-4 get apply_patch, every other model edit", (t) => {
  for (const id of ["gpt-5", "gpt-5.1-codex", "gpt-5.2", "openai/gpt-5-mini", "azure-gpt-5"]) t.is(editKindOf(id), "patch", id)
  for (const id of ["gpt-4o", "gpt-4.1", "gpt-oss-120b", "openai/gpt-oss-20b", "claude-sonnet-4-5", "gemini-2.5-pro", "gpt5", "m"]) t.is(editKindOf(id), "edit", id)
})

test("a model given apply_patch is told about apply_patch and the refs its results show, and never to call edit", async (t) => {
  const hooks = await hooksFor(project(t, {}))
  const system = await systemFor(hooks, model("gpt-5.1"))
  t.deepEqual(system, ["You are a coding agent.", PATCH_INSTRUCTION])
  t.regex(PATCH_INSTRUCTION, /call apply_patch/)
  t.regex(PATCH_INSTRUCTION, /Results and rejections show lines with a ref/)
  t.regex(PATCH_INSTRUCTION, /@@ 12#A3F#9BC/)
  t.notRegex(PATCH_INSTRUCTION, /\bedit\b|\bread\b|\bgrep\b/)
  t.notRegex(PATCH_INSTRUCTION, /operations|insert_before|\bwrite\b/)
})

test("every other model is told about edit and never about apply_patch", async (t) => {
  const hooks = await hooksFor(project(t, {}))
  for (const id of ["claude-sonnet-4-5", "gpt-4o", "gpt-oss-120b"]) {
    t.deepEqual(await systemFor(hooks, model(id)), ["You are a coding agent.", INSTRUCTION], id)
  }
  t.regex(INSTRUCTION, /call edit/)
  t.notRegex(INSTRUCTION, /apply_patch|@@/)
})

test("the rule reads the id the provider's API knows, as OpenCode's does", async (t) => {
  const hooks = await hooksFor(project(t, {}))
  t.deepEqual(await systemFor(hooks, { id: "my-fast-model", providerID: "p", api: { id: "gpt-5-mini" } }), ["You are a coding agent.", PATCH_INSTRUCTION])
  t.deepEqual(await systemFor(hooks, { id: "gpt-5", providerID: "p", api: { id: "local-llama" } }), ["You are a coding agent.", INSTRUCTION])
})

/**
 * OpenCode's read output for a whole file, through the plugin's hook, in a session.
 * @param {any} hooks
 * @param {string} file
 * @param {string} sessionID
 */
async function read(hooks, file, sessionID) {
  const lines = fs.readFileSync(file, "utf8").split("\n").slice(0, -1)
  const view = {
    title: path.basename(file),
    output: [`<path>${file}</path>`, "<type>file</type>", "<content>", ...lines.map((l, i) => `${i + 1}: ${l}`), "", `(End of file - total ${lines.length} lines)`, "</content>"].join("\n"),
    metadata: {},
  }
  await hooks["tool.execute.after"]({ tool: "read", sessionID, callID: "r", args: { filePath: file } }, view)
  return view.output
}

test("reads show refs to a model given edit and OpenCode's plain view to a model given apply_patch", async (t) => {
  const root = project(t, { "a.py": "def f():\n    return 1\n" })
  const hooks = await hooksFor(root)
  const file = path.join(root, "a.py")
  await hooks["experimental.chat.system.transform"]({ sessionID: "patching", model: model("gpt-5") }, { system: [] })
  await hooks["experimental.chat.system.transform"]({ sessionID: "editing", model: model("claude-sonnet-4-5") }, { system: [] })
  t.regex(await read(hooks, file, "editing"), /^2#[0-9A-F]{3}#[0-9A-F]{3}\|    return 1$/m)
  t.regex(await read(hooks, file, "patching"), /^2: {5}return 1$/m)
})

test("for a model given apply_patch, the ref a rejection shows anchors the retry", async (t) => {
  const root = project(t, { "a.py": "def f():\n    return 1\n\ndef g():\n    return 1\n" })
  const hooks = await hooksFor(root)
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses", model: model("gpt-5") }, { system: [] })
  const file = path.join(root, "a.py")
  t.notRegex(await read(hooks, file, "ses"), /#[0-9A-F]{3}#/)
  const ctx = { sessionID: "ses", messageID: "m", agent: "build", directory: root, worktree: root, abort: new AbortController().signal, metadata() {}, async ask() {} }
  const patch = (/** @type {string} */ header) => `*** Begin Patch\n*** Update File: a.py\n@@${header}\n-    return 1\n+    return 2\n*** End Patch`
  const err = await t.throwsAsync(() => hooks.tool.apply_patch.execute({ patchText: patch("") }, ctx))
  const ref = /^>>> (5#[0-9A-F]{3}#[0-9A-F]{3})\|    return 1$/m.exec(err?.message ?? "")?.[1]
  t.truthy(ref, err?.message)
  await hooks.tool.apply_patch.execute({ patchText: patch(` ${ref}`) }, ctx)
  t.is(fs.readFileSync(file, "utf8"), "def f():\n    return 1\n\ndef g():\n    return 2\n")
})
