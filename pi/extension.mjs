// @ts-check
// The pi extension: hashline's read, edit and grep registered under pi's own
// tool names, so they replace pi's built-ins (pi documents that a tool
// registered under a built-in's name takes its place). The model gets the
// tagged view, the edit that cites refs, and the instruction as pi's prompt
// snippets and guidelines. pi's tools take `path`; so do these.
import path from "node:path"
import { withFileMutationQueue } from "@mariozechner/pi-coding-agent"
import { INSTRUCTION, MARKER } from "../lib/texts.cjs"
import { createTools } from "../lib/tools.mjs"

/**
 * @typedef {import("../lib/tools-types.d.mts").HashlineTools} HashlineTools
 * @typedef {{ cwd: string }} Context
 * @typedef {{ registerTool(tool: Record<string, unknown>): void }} ExtensionApi
 */

// pi appends each guideline to its Guidelines list as it is, so each line of
// the instruction that names its tool becomes one bullet.
const GUIDELINES = INSTRUCTION.split("\n").filter((line) => line !== MARKER && line !== MARKER.replace("<", "</"))

const SNIPPETS = {
  read: "Read a file; each line shows its ref (12ab) for edit to cite",
  edit: "Edit a file by citing the refs read and grep show (replace, delete, insert, move lines), or oldString/newString",
  grep: "Search file contents for a regular expression; each hit shows its ref (respects .gitignore)",
}

const LABELS = { read: "Read", edit: "Edit", grep: "Grep" }

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
 * The arguments as the tools take them.
 * @param {Record<string, unknown>} params
 */
function toFilePath(params) {
  const { path: filePath, ...rest } = params
  return { ...rest, filePath }
}

/**
 * A schema and description that say `path` where the tools say `filePath`.
 * @param {{ description: string, inputSchema: any }} tool
 */
function withPath(tool) {
  const schema = structuredClone(tool.inputSchema)
  const { filePath, ...others } = schema.properties
  schema.properties = { path: filePath, ...others }
  schema.required = schema.required.map((/** @type {string} */ name) => (name === "filePath" ? "path" : name))
  return { description: tool.description.replaceAll("filePath", "path"), parameters: schema }
}

/** @param {string} text */
const result = (text) => ({ content: [{ type: "text", text }], details: {} })

/** @param {ExtensionApi} pi */
export default function hashline(pi) {
  // One engine per working folder, so that what read showed is known to
  // edit; the one for the folder pi starts in also gives the descriptions.
  const first = createTools({ root: process.cwd() })
  const engines = new Map([[process.cwd(), first]])
  /** @param {Context} ctx */
  const tools = (ctx) => {
    let found = engines.get(ctx.cwd)
    if (!found) engines.set(ctx.cwd, (found = createTools({ root: ctx.cwd })))
    return found
  }

  for (const name of /** @type {const} */ (["read", "edit"])) {
    pi.registerTool({
      name,
      label: LABELS[name],
      promptSnippet: SNIPPETS[name],
      ...(name === "edit" ? { promptGuidelines: GUIDELINES } : {}),
      ...withPath(first[name]),
      prepareArguments: preparePath,
      /**
       * @param {string} _id
       * @param {Record<string, unknown>} params
       * @param {AbortSignal | undefined} signal
       * @param {unknown} _update
       * @param {Context} ctx
       */
      async execute(_id, params, signal, _update, ctx) {
        const tool = tools(ctx)[name]
        const args = toFilePath(params)
        if (name === "read") return result(await tool.execute(args, { signal }))
        // Queued with pi's own edits and writes of the same file, which run
        // in parallel otherwise.
        const file = path.resolve(ctx.cwd, String(args.filePath))
        return withFileMutationQueue(file, async () => result(await tool.execute(args, { signal })))
      },
    })
  }
  pi.registerTool({
    name: "grep",
    label: LABELS.grep,
    promptSnippet: SNIPPETS.grep,
    description: first.grep.description,
    parameters: first.grep.inputSchema,
    /**
     * @param {string} _id
     * @param {Record<string, unknown>} params
     * @param {AbortSignal | undefined} signal
     * @param {unknown} _update
     * @param {Context} ctx
     */
    async execute(_id, params, signal, _update, ctx) {
      return result(await tools(ctx).grep.execute(params, { signal }))
    },
  })
}
