// @ts-check
// The tools for Mastra (`@mastra/core`): the same descriptions, JSON schemas
// and behaviour as everywhere else, wrapped with Mastra's `createTool()`. A
// rejected edit throws; Mastra hands the error's message, the engine's repair
// text, back to the model as the tool's error. The agent call's
// `abortSignal` reaches the engine, which stops a call before it writes.
import { createTool } from "@mastra/core/tools"
import { HOSTS } from "./hosts.mjs"
import { createTools as createPlainTools, hostTools } from "./tools.mjs"

/**
 * @typedef {import("../index.js").HashlineOptions} HashlineOptions
 * @typedef {import("./tools-types.d.mts").HashlineTool} HashlineTool
 */

/** @param {HashlineTool} plain */
function wrap(plain) {
  return createTool({
    id: plain.name,
    description: plain.description,
    inputSchema: /** @type {any} */ (plain.inputSchema),
    execute: (input, context) => plain.execute(input, { signal: context?.abortSignal }),
  })
}

/**
 * `{ read, edit, grep }` for `new Agent({ tools })`, over one engine rooted
 * at `options.root` (default: the working directory).
 * @param {HashlineOptions} [options] as for `new Hashline(options)`
 * @returns {import("./mastra-types.d.mts").HashlineMastraTools}
 */
export function createTools(options = {}) {
  const tools = hostTools(HOSTS.mastra, createPlainTools({ host: "mastra", ...options }))
  return /** @type {any} */ (Object.fromEntries(tools.map((t) => [t.name, wrap(t)])))
}
