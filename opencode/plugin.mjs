// @ts-check
// The OpenCode plugin: registers the `edit` and `apply_patch` tools (OpenCode
// offers a model one or the other), shows refs in what `read` and `grep`
// return to the models that cite them, removes refs a model copied into
// `write` content, runs the project's formatters after each write, and tells
// each model about the tool it has.
//
// OpenCode calls every export of a plugin module as a plugin, so this module
// exports only the plugin itself: `{ id, server, setup }`, where OpenCode 1
// calls `server` and OpenCode 2 calls `setup` (v2.mjs); OpenCode 1.18.30 and
// later call `setup` too, without the `tool` it registers with, and it then
// does nothing.
import path from "node:path"
import { fileURLToPath } from "node:url"
import { HOSTS } from "../lib/hosts.mjs"
import { instructionFor, MARKER } from "../lib/texts.cjs"
import { nativeModule, startEngines } from "./engine.mjs"
import { configFrom, formatterTimeoutOption } from "./format.mjs"
import { sharedHooks } from "./hooks.mjs"
import { editKindOf, modelIdOf } from "./model.mjs"
import { createEditTool } from "./edit.mjs"
import { createPatchTool } from "./patch.mjs"
import { setup } from "./v2.mjs"
import { tagReadOutput } from "./view.mjs"

/**
 * @typedef {import("@opencode-ai/plugin").Plugin} Plugin
 * @typedef {import("@opencode-ai/plugin").Hooks} Hooks
 */

const HOST = HOSTS.opencode

let unavailableLogged = false

/**
 * The folder that installed this copy of the plugin (the one holding its
 * `node_modules`), when that is not the project: OpenCode installs plugins
 * named in opencode.json into a folder of its own and keeps what it got
 * there, so only deleting that folder makes it install them again.
 * @param {Parameters<Plugin>[0]} input
 */
function installedApart(input) {
  const pkg = path.join(path.dirname(fileURLToPath(import.meta.url)), "..")
  if (path.basename(path.dirname(pkg)) !== "node_modules") return undefined
  const folder = path.dirname(path.dirname(pkg))
  const inside = [input.directory, input.worktree].some((dir) => {
    const rel = dir && dir !== "/" ? path.relative(dir, folder) : ".."
    return !rel.startsWith("..") && !path.isAbsolute(rel)
  })
  return inside ? undefined : folder
}

/**
 * Says once why hashline is off, in OpenCode's log and as a notice in its
 * window, with the fix that works where the plugin is installed. Not
 * awaited: both go through OpenCode's own server, which may still be
 * starting this plugin.
 * @param {Parameters<Plugin>[0]} input
 * @param {unknown} err
 */
function logUnavailable(input, err) {
  if (unavailableLogged) return
  unavailableLogged = true
  const e = /** @type {{ message?: string, problem?: string }} */ (err)
  const apart = installedApart(input)
  const why = apart && e?.problem
    ? `${e.problem} OpenCode installed this plugin in ${apart}, apart from the project, and keeps that copy as it is: installing a package in the project, fixing the registry or restarting changes nothing. Delete ${apart} and start OpenCode again to have it install the plugin anew (with the registry of ~/.npmrc or npm_config_* variables; a project's .npmrc is not read).`
    : (e?.message ?? String(err))
  const message = `hashline is off, OpenCode's own tools stay: ${why}`
  try {
    input.client.app.log({ body: { service: "hashline", level: "warn", message } }).catch(() => console.warn(message))
  } catch {
    console.warn(message)
  }
  try {
    input.client.tui.showToast({ body: { title: "hashline: OpenCode's own tools stay", message: why, variant: "warning", duration: 60_000 } }).catch(() => {})
  } catch {
    // A client without a window to show it in: the log has it.
  }
}

/** @type {Plugin} */
async function server(input, options) {
  const place = { directory: input.directory, worktree: input.worktree }
  /** @type {number | undefined} */
  let timeoutMs
  try {
    // `["hashline", { "view": "full", "syntax": "reject", "formatterTimeout": 20000 }]`
    // in opencode.json, else HASHLINE_VIEW, HASHLINE_SYNTAX and
    // HASHLINE_FORMATTER_TIMEOUT_MS.
    timeoutMs = formatterTimeoutOption(options?.formatterTimeout)
    startEngines({ host: "opencode", view: options?.view, syntax: options?.syntax, telemetry: options?.telemetry }, place)
  } catch (err) {
    // Tools that could only fail would replace OpenCode's working edit.
    logUnavailable(input, err)
    return {}
  }
  const formatting = { config: configFrom(input.client), directory: input.directory, worktree: input.worktree, timeoutMs }
  const shared = sharedHooks(place, { fileArgument: HOST.fileArgument, tagRead: tagReadOutput })

  /** @type {Hooks} */
  const hooks = {
    // OpenCode hides `edit` from the models it gives `apply_patch` and the
    // other way round, custom tools included, by the same rule as model.mjs.
    tool: { [HOST.tools.edit]: createEditTool(formatting), [HOST.tools.patch]: createPatchTool(formatting) },

    "tool.execute.before": async (info, output) => {
      if (info.tool === "write") shared.beforeWrite(info.callID, output.args, info.sessionID)
    },

    "tool.execute.after": async (info, output) => {
      if (!output || typeof output.output !== "string") return
      const changed = info.tool === "write" ? shared.afterWrite(info.callID, output.output) : await shared.tagged(info.tool, info.sessionID, output.output, info.callID, info.args)
      if (changed !== undefined) output.output = changed
    },

    "experimental.chat.system.transform": async (info, output) => {
      const id = modelIdOf(info.model)
      const kind = id ? editKindOf(id) : "edit"
      // The id the provider knows the model by decides, as in OpenCode.
      if (info.sessionID) shared.chose(info.sessionID, kind, id)
      if (!Array.isArray(output.system)) return
      if (output.system.some((part) => typeof part === "string" && part.includes(MARKER))) return
      try {
        nativeModule()
      } catch {
        // Without the engine there are no refs to explain.
        return
      }
      output.system.push(instructionFor(kind))
    },
  }
  return hooks
}

export default { id: "hashline", server, setup }
