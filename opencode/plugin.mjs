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
import { configureEngines, engineFor, errorCode, nativeModule } from "./engine.mjs"
import { configFrom, formatterTimeoutOption } from "./format.mjs"
import { instructionFor, MARKER } from "../lib/texts.cjs"
import { editKindOf, modelIdOf, tagsReads } from "./model.mjs"
import { createEditTool } from "./edit.mjs"
import { createPatchTool } from "./patch.mjs"
import { setup } from "./v2.mjs"
import { tagGrepOutput, tagReadOutput } from "./view.mjs"

/**
 * @typedef {import("@opencode-ai/plugin").Plugin} Plugin
 * @typedef {import("@opencode-ai/plugin").Hooks} Hooks
 * @typedef {import("./types.mjs").ShownLine} ShownLine
 */

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
  /** @type {number | undefined} */
  let timeoutMs
  try {
    // `["hashline", { "view": "full", "syntax": "reject", "formatterTimeout": 20000 }]`
    // in opencode.json, else HASHLINE_VIEW, HASHLINE_SYNTAX and
    // HASHLINE_FORMATTER_TIMEOUT_MS.
    configureEngines({ view: options?.view, syntax: options?.syntax })
    timeoutMs = formatterTimeoutOption(options?.formatterTimeout)
    nativeModule()
    // Made now, so that an option the binding refuses turns hashline off
    // with the reason before any tool is offered.
    engineFor({ directory: input.directory, worktree: input.worktree })
  } catch (err) {
    // Tools that could only fail would replace OpenCode's working edit.
    logUnavailable(input, err)
    return {}
  }
  const place = { directory: input.directory, worktree: input.worktree }
  /** What the clean-up of each write did, to tell with its result. @type {Map<string, string>} */
  const cleanedWrites = new Map()
  const formatting = { config: configFrom(input.client), directory: input.directory, worktree: input.worktree, timeoutMs }
  /**
   * The edit tool of each session's model, as the requests show it.
   * @type {Map<string, import("./model.mjs").EditKind>}
   */
  const kinds = new Map()

  /**
   * Refs for lines another tool displayed, from the engine that edits will use.
   * @param {string} file
   * @param {ShownLine[]} lines
   */
  const tag = (file, lines) => {
    const absolute = path.resolve(input.directory, file)
    // OpenCode only shows files outside the project once access was granted.
    return engineFor(place).tagAsync(absolute, lines, { allowOutsideRoot: true })
  }

  /** @type {Hooks} */
  const hooks = {
    // OpenCode hides `edit` from the models it gives `apply_patch` and the
    // other way round, custom tools included, by the same rule as model.mjs.
    tool: { edit: createEditTool(formatting), apply_patch: createPatchTool(formatting) },

    "tool.execute.before": async (info, output) => {
      if (info.tool !== "write") return
      const args = output.args
      if (!args || typeof args.content !== "string") return
      // `write` is OpenCode's own tool: a `literal` the model adds to say
      // "write exactly this" is taken here and removed before OpenCode
      // checks the arguments.
      const literal = args.literal === true || args.literal === "true"
      if ("literal" in args) delete args.literal
      if (literal || typeof args.filePath !== "string") return
      let cleaned
      try {
        const file = path.resolve(input.directory, args.filePath)
        cleaned = engineFor(place).stripViewPrefixes(file, args.content, { allowOutsideRoot: true })
      } catch (err) {
        // Lines that may or may not be copied view prefixes: the write is
        // refused, with how to say which. Any other failure leaves the
        // content to OpenCode's own write as it is.
        if (errorCode(err) === "AMBIGUOUS_ECHO") throw new Error(err instanceof Error ? err.message : String(err))
        return
      }
      if (cleaned.stripped > 0) {
        args.content = cleaned.text
        cleanedWrites.set(info.callID, cleaned.note ?? "")
      }
    },

    "tool.execute.after": async (info, output) => {
      if (!output || typeof output.output !== "string") return
      if (info.tool === "write") {
        const note = cleanedWrites.get(info.callID)
        if (note === undefined) return
        cleanedWrites.delete(info.callID)
        output.output += `\n\n${note}`
        return
      }
      if (!tagsReads(kinds.get(info.sessionID) ?? "edit")) return
      try {
        if (info.tool === "read") output.output = await tagReadOutput(output.output, tag)
        else if (info.tool === "grep") output.output = await tagGrepOutput(output.output, tag)
      } catch {
        // Refs are an addition: if they cannot be computed (binary file, file
        // gone, native module missing), the model still gets the plain view.
      }
    },

    "experimental.chat.system.transform": async (info, output) => {
      const id = modelIdOf(info.model)
      const kind = id ? editKindOf(id) : "edit"
      // The id the provider knows the model by decides, as in OpenCode.
      if (info.sessionID) kinds.set(info.sessionID, kind)
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
