// @ts-check
// The tools for the OpenAI Agents SDK (`@openai/agents`): the same
// descriptions, JSON schemas and behaviour as everywhere else, wrapped with
// the SDK's `tool()`. The schemas are not strict (their optional fields
// would have to become nullable). The SDK's default answer to a tool error is
// a fixed "An error occurred" text; here the model gets the error's message,
// the engine's repair text. The run's `signal` reaches the engine, which stops
// a call before it writes anything, and the SDK ends the run on it. The SDK
// gives a tool the call's id but not the model: `createTools({ model })`
// names it for the telemetry record.
import { tool } from "@openai/agents"
import { errorText } from "./errors.mjs"
import { HOSTS } from "./hosts.mjs"
import { createTools as createPlainTools, hostTools } from "./tools.mjs"

/**
 * @typedef {import("./tools-types.d.mts").HashlineToolsOptions} HashlineToolsOptions
 * @typedef {import("./tools-types.d.mts").HashlineTool} HashlineTool
 */

/** @param {HashlineTool} plain */
function wrap(plain) {
  return tool({
    name: plain.name,
    description: plain.description,
    parameters: /** @type {any} */ ({ ...plain.inputSchema, additionalProperties: true }),
    strict: false,
    execute: (input, _context, details) => plain.execute(input, { signal: details?.signal, callId: details?.toolCall?.callId }),
    errorFunction: (_context, error) => errorText(error),
  })
}

/**
 * `[read, edit, grep]` for `new Agent({ tools })`, over one engine rooted at
 * `options.root` (default: the working directory).
 * @param {HashlineToolsOptions} [options] as for `createTools` of hashline/tools
 * @returns {import("./openai-agents-types.d.mts").HashlineOpenAIAgentsTools}
 */
export function createTools(options = {}) {
  return /** @type {import("./openai-agents-types.d.mts").HashlineOpenAIAgentsTools} */ (hostTools(HOSTS["openai-agents"], createPlainTools({ host: "openai-agents", ...options })).map(wrap))
}
