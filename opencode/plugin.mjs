// @ts-check
// The OpenCode plugin: registers the `edit` tool, shows refs in what `read` and
// `grep` return, removes refs a model copied into `write` content, and
// tells the model how the two fit together.
//
// OpenCode calls every export of a plugin module as a plugin, so this module
// exports only the plugin itself.
import path from "node:path"
import { engineFor, nativeModule } from "./engine.mjs"
import editTool from "./tool.mjs"
import { INSTRUCTION, MARKER } from "./instruction.mjs"
import { tagGrepOutput, tagReadOutput } from "./view.mjs"

/**
 * @typedef {import("@opencode-ai/plugin").Plugin} Plugin
 * @typedef {import("@opencode-ai/plugin").Hooks} Hooks
 * @typedef {import("./types.mjs").ShownLine} ShownLine
 */

let unavailableLogged = false

/**
 * Says once, in OpenCode's log, why hashline is off. Not awaited: the log goes
 * through OpenCode's own server, which may still be starting this plugin.
 * @param {Parameters<Plugin>[0]} input
 * @param {unknown} err
 */
function logUnavailable(input, err) {
  if (unavailableLogged) return
  unavailableLogged = true
  const message = `hashline is off, OpenCode's own tools stay: ${err instanceof Error ? err.message : String(err)}`
  try {
    input.client.app.log({ body: { service: "hashline", level: "warn", message } }).catch(() => console.warn(message))
  } catch {
    console.warn(message)
  }
}

/** @type {Plugin} */
async function server(input) {
  try {
    nativeModule()
  } catch (err) {
    // Tools that could only fail would replace OpenCode's working edit.
    logUnavailable(input, err)
    return {}
  }
  const place = { directory: input.directory, worktree: input.worktree }
  /** @type {Map<string, number>} */
  const cleanedWrites = new Map()

  /**
   * Refs for lines another tool displayed, from the engine that edits will use.
   * @param {string} file
   * @param {ShownLine[]} lines
   */
  const tag = (file, lines) => {
    const absolute = path.resolve(input.directory, file)
    // OpenCode only shows files outside the project once access was granted.
    return engineFor(place).tag(absolute, lines, { allowOutsideRoot: true })
  }

  /** @type {Hooks} */
  const hooks = {
    tool: { edit: editTool },

    "tool.execute.before": async (info, output) => {
      if (info.tool !== "write") return
      const args = output.args
      if (!args || typeof args.content !== "string") return
      let cleaned
      try {
        cleaned = nativeModule().stripViewPrefixes(args.content)
      } catch {
        return
      }
      if (cleaned.stripped > 0) {
        args.content = cleaned.text
        cleanedWrites.set(info.callID, cleaned.stripped)
      }
    },

    "tool.execute.after": async (info, output) => {
      if (!output || typeof output.output !== "string") return
      if (info.tool === "write") {
        const stripped = cleanedWrites.get(info.callID)
        if (stripped === undefined) return
        cleanedWrites.delete(info.callID)
        output.output += `\n\nRemoved the view prefixes (LINE#HASH#ANCHOR|) from ${stripped} line${stripped === 1 ? "" : "s"} of content before writing.`
        return
      }
      try {
        if (info.tool === "read") output.output = tagReadOutput(output.output, tag)
        else if (info.tool === "grep") output.output = tagGrepOutput(output.output, tag)
      } catch {
        // Refs are an addition: if they cannot be computed (binary file, file
        // gone, native module missing), the model still gets the plain view.
      }
    },

    "experimental.chat.system.transform": async (_info, output) => {
      if (!Array.isArray(output.system)) return
      if (output.system.some((part) => typeof part === "string" && part.includes(MARKER))) return
      try {
        nativeModule()
      } catch {
        // Without the engine there are no refs to explain.
        return
      }
      output.system.push(INSTRUCTION)
    },
  }
  return hooks
}

export default { id: "hashline", server }
