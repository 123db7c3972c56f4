// @ts-check
// The read, edit and grep tools in a form any agent framework can wrap: a
// name, the description for the model, a JSON schema for the arguments, and
// `execute`, which resolves to the text for the model. The engine runs off
// the event loop; the framework's AbortSignal, when it passes one, stops a
// call before it writes anything.
import { createRequire } from "node:module"
import {
  EDIT_DESCRIPTION,
  EDIT_SCHEMA,
  GREP_DESCRIPTION,
  GREP_SCHEMA,
  READ_DESCRIPTION,
  READ_SCHEMA,
  parseEditArguments,
  parseGrepArguments,
  parseReadArguments,
} from "./definitions.mjs"
import { syntaxOption } from "./syntax.cjs"
import { viewOption } from "./view.cjs"

/**
 * @typedef {import("../index.js").HashlineOptions} HashlineOptions
 * @typedef {import("./tools-types.d.mts").HashlineTool} HashlineTool
 * @typedef {import("./tools-types.d.mts").HashlineTools} HashlineTools
 */

const require = createRequire(import.meta.url)

/**
 * The three tools over one engine, so that what read and grep show is known to
 * edit. Relative paths resolve against `root` (default: the working
 * directory), and paths that lead outside it are refused. `view` ("lean",
 * the default, or "full"; else HASHLINE_VIEW) is how refs are shown; refs of
 * both styles are accepted.
 * @param {HashlineOptions} [options] as for `new Hashline(options)`
 * @returns {HashlineTools}
 */
export function createTools(options = {}) {
  const native = /** @type {typeof import("../index.js")} */ (require("./native.cjs"))
  const view = viewOption(options.view)
  const syntax = syntaxOption(options.syntax)
  const engine = new native.Hashline({ ...options, ...(view ? { view } : {}), ...(syntax ? { syntax } : {}) })
  return {
    read: {
      name: "read",
      description: READ_DESCRIPTION,
      inputSchema: structuredClone(READ_SCHEMA),
      async execute(args, options) {
        const { filePath, ...range } = parseReadArguments(args)
        return (await engine.readAsync(filePath, { ...range, signal: options?.signal })).text
      },
    },
    edit: {
      name: "edit",
      description: EDIT_DESCRIPTION,
      inputSchema: structuredClone(EDIT_SCHEMA),
      async execute(args, options) {
        const { filePath, request } = parseEditArguments(args)
        return (await engine.editAsync(filePath, request, { signal: options?.signal })).output
      },
    },
    grep: {
      name: "grep",
      description: GREP_DESCRIPTION,
      inputSchema: structuredClone(GREP_SCHEMA),
      async execute(args, options) {
        const { pattern, options: search } = parseGrepArguments(args)
        return (await engine.searchAsync(pattern, { ...search, signal: options?.signal })).text
      },
    },
  }
}
