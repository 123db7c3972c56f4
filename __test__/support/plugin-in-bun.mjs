// @ts-check
// Runs the plugin's tools under Bun with Bun's own `$`, as OpenCode runs a
// plugin, for the actions given as JSON in argv[2]:
//   { root, config, actions: [{ read: file } | { edit: args } | { patch: patchText }] }
// and prints what each returned ({ output, metadata } or { error }) as JSON.
// An action with `abortWhen: FILE` has its call aborted once FILE exists
// (a formatter that says it started).
import fs from "node:fs"
import path from "node:path"
import pluginModule from "../../opencode/plugin.mjs"

const spec = JSON.parse(process.argv[2])
const root = spec.root
// OpenCode's SDK client answers config.get() with the merged config.
const client = { config: { get: async () => ({ data: spec.config }) } }
const $ = /** @type {any} */ (globalThis).Bun.$
const hooks = /** @type {any} */ (await pluginModule.server(/** @type {any} */ ({ directory: root, worktree: root, $, client })))
/** @param {AbortSignal} abort */
const contextWith = (abort) => ({ sessionID: "ses", messageID: "msg", agent: "build", directory: root, worktree: root, abort, metadata() {}, async ask() {} })

/** @param {string} name OpenCode's read output for a whole file, tagged by the plugin */
async function read(name) {
  const file = path.join(root, name)
  const lines = fs.readFileSync(file, "utf8").split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  const output = {
    title: name,
    output: [`<path>${file}</path>`, "<type>file</type>", "<content>", ...lines.map((l, i) => `${i + 1}: ${l}`), "", `(End of file - total ${lines.length} lines)`, "</content>"].join("\n"),
    metadata: {},
  }
  await hooks["tool.execute.after"]({ tool: "read", sessionID: "ses", callID: "r", args: { filePath: file } }, output)
  return { output: output.output }
}

/**
 * Aborts `controller` once `file` exists.
 * @param {AbortController} controller @param {string} file
 */
async function abortWhen(controller, file) {
  while (!fs.existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 10))
  controller.abort()
}

const results = []
for (const action of spec.actions) {
  const controller = new AbortController()
  const ctx = contextWith(controller.signal)
  if (action.abortWhen) void abortWhen(controller, path.join(root, action.abortWhen))
  try {
    if (action.read) results.push(await read(action.read))
    else if (action.edit) results.push(await hooks.tool.edit.execute(action.edit, ctx))
    else results.push(await hooks.tool.apply_patch.execute({ patchText: action.patch }, ctx))
  } catch (err) {
    results.push({ error: err instanceof Error ? err.message : String(err) })
  }
}
process.stdout.write(JSON.stringify(results))
