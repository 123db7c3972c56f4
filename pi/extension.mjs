// @ts-check
// The pi extension: hashline's read, edit and grep registered under pi's own
// tool names, so they replace pi's built-ins (pi documents that a tool
// registered under a built-in's name takes its place). The model gets the
// tagged view, the edit that cites refs, and the instruction as pi's prompt
// snippets and guidelines. pi's tools take `path`; so do these (pi's row of
// lib/hosts.mjs).
import path from "node:path"
import { withFileMutationQueue } from "@mariozechner/pi-coding-agent"
import { HOSTS } from "../lib/hosts.mjs"
import { PLAIN_INSTRUCTION, SNIPPETS } from "../lib/texts.cjs"
import { createTools, hostTools } from "../lib/tools.mjs"

/**
 * @typedef {import("../lib/tools-types.d.mts").HashlineTool} HashlineTool
 * @typedef {{ cwd: string, model?: { id?: unknown } }} Context
 * @typedef {{ registerTool(tool: Record<string, unknown>): void }} ExtensionApi
 */

const HOST = HOSTS.pi

// pi appends each guideline to its Guidelines list as it is, so each line of
// the instruction that names its tool becomes one bullet.
const GUIDELINES = PLAIN_INSTRUCTION.split("\n")

const LABELS = /** @type {Record<string, string>} */ ({ read: "Read", edit: "Edit", grep: "Grep" })

/**
 * pi's tools name the file `path`, and so do these; a model that sends
 * `filePath` (the name elsewhere) is understood too, and the stray `@` some
 * models put in front is dropped, as pi's own tools drop it. Runs before pi
 * checks the arguments against the schema.
 * @param {unknown} args
 */
function preparePath(args) {
  if (!args || typeof args !== "object" || Array.isArray(args)) return args
  const { filePath, ...rest } = /** @type {Record<string, unknown>} */ (args)
  const given = rest.path ?? filePath
  return { ...rest, path: typeof given === "string" && given.startsWith("@") ? given.slice(1) : given }
}

/**
 * The id of the model pi runs the session with (`ctx.model`, read at the
 * call), for the telemetry record.
 * @param {Context} ctx
 */
const modelOf = (ctx) => (typeof ctx.model?.id === "string" && ctx.model.id !== "" ? ctx.model.id : undefined)

/** @param {string} text */
const result = (text) => ({ content: [{ type: "text", text }], details: {} })

/** @param {ExtensionApi} pi */
export default function hashline(pi) {
  /** @type {Map<string, Record<string, HashlineTool>>} */
  const engines = new Map()
  /**
   * The tools over the engine of a working folder: one engine per folder,
   * so that what read showed is known to edit.
   * @param {string} cwd
   */
  const toolsIn = (cwd) => {
    let found = engines.get(cwd)
    if (!found) engines.set(cwd, (found = Object.fromEntries(hostTools(HOST, createTools({ root: cwd, host: "pi" })).map((t) => [t.name, t]))))
    return found
  }

  // The folder pi starts in also gives the descriptions and schemas.
  for (const { name, description, inputSchema } of Object.values(toolsIn(process.cwd()))) {
    pi.registerTool({
      name,
      label: LABELS[name],
      promptSnippet: SNIPPETS[name],
      ...(name === "edit" ? { promptGuidelines: GUIDELINES } : {}),
      description,
      parameters: inputSchema,
      // read and edit name a file; grep's path is the folder it searches.
      ...(name === "grep" ? {} : { prepareArguments: preparePath }),
      /**
       * @param {string} id
       * @param {Record<string, unknown>} params
       * @param {AbortSignal | undefined} signal
       * @param {unknown} _update
       * @param {Context} ctx
       */
      async execute(id, params, signal, _update, ctx) {
        const tool = toolsIn(ctx.cwd)[name]
        const options = { signal, model: modelOf(ctx), callId: id }
        if (name !== "edit") return result(await tool.execute(params, options))
        // Queued with pi's own edits and writes of the same file, which run
        // in parallel otherwise.
        const file = path.resolve(ctx.cwd, String(params[HOST.fileArgument]))
        return withFileMutationQueue(file, async () => result(await tool.execute(params, options)))
      },
    })
  }
}
