// @ts-check
// The tools for the AI SDK (`ai`): the same descriptions, JSON schemas and
// behaviour as everywhere else, wrapped with the SDK's `tool()`. A rejected
// edit throws; the SDK hands its message, the repair text, to the model.
// The SDK's `abortSignal` (from `generateText`'s options) reaches the engine,
// which stops a call before it writes anything. The SDK gives a tool the
// call's id but not the model: `createTools({ model })` names it for the
// telemetry record.
import { jsonSchema, tool } from "ai"
import { HOSTS } from "./hosts.mjs"
import { createTools as createPlainTools, hostTools } from "./tools.mjs"

/**
 * @typedef {import("./tools-types.d.mts").HashlineToolsOptions} HashlineToolsOptions
 * @typedef {import("./tools-types.d.mts").HashlineTool} HashlineTool
 */

/** @param {HashlineTool} plain */
function wrap(plain) {
  return tool({
    description: plain.description,
    inputSchema: jsonSchema(/** @type {any} */ (plain.inputSchema)),
    execute: (input, options) => plain.execute(input, { signal: options?.abortSignal, callId: options?.toolCallId }),
  })
}

/**
 * `{ read, edit, grep }` for `generateText` / `streamText`'s `tools`, over one
 * engine rooted at `options.root` (default: the working directory).
 * @param {HashlineToolsOptions} [options] as for `createTools` of hashline/tools
 * @returns {import("./ai-types.d.mts").HashlineAiTools}
 */
export function createTools(options = {}) {
  const tools = hostTools(HOSTS.ai, createPlainTools({ host: "ai", ...options }))
  return /** @type {import("./ai-types.d.mts").HashlineAiTools} */ (Object.fromEntries(tools.map((t) => [t.name, wrap(t)])))
}
