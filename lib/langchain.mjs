// @ts-check
// The tools for LangChain.js (`@langchain/core`): the same descriptions, JSON
// schemas and behaviour as everywhere else, wrapped with LangChain's `tool()`.
// A rejected edit throws; an agent's tool node hands the error's message, the
// repair text, back to the model as an error tool message. The run's
// `signal` (from `invoke`'s config) reaches the engine, which stops a call
// before it writes anything. The model of a call is the one the provider
// said answered, where the agent's state holds it.
import { tool } from "@langchain/core/tools"
import { HOSTS } from "./hosts.mjs"
import { createTools as createPlainTools, hostTools } from "./tools.mjs"

/**
 * @typedef {import("./tools-types.d.mts").HashlineToolsOptions} HashlineToolsOptions
 * @typedef {import("./tools-types.d.mts").HashlineTool} HashlineTool
 */

/**
 * Who made a call, for the telemetry record: the tool call's id, and the
 * model the provider said answered (`response_metadata.model_name`) on the
 * message of the agent's state that asked for the call, looked for among
 * the last messages only.
 * @param {any} config the tool's run config
 * @returns {{ model?: string, callId?: string }}
 */
export function callerOf(config) {
  const id = config?.toolCall?.id
  if (typeof id !== "string" || id === "") return {}
  const messages = config?.state?.messages
  if (!Array.isArray(messages)) return { callId: id }
  for (let i = messages.length - 1; i >= Math.max(0, messages.length - 64); i--) {
    const calls = messages[i]?.tool_calls
    if (!Array.isArray(calls) || !calls.some((c) => c?.id === id)) continue
    const model = messages[i].response_metadata?.model_name
    return typeof model === "string" && model !== "" ? { model, callId: id } : { callId: id }
  }
  return { callId: id }
}

/** @param {HashlineTool} plain */
function wrap(plain) {
  return tool((input, config) => plain.execute(input, { signal: config?.signal, ...callerOf(config) }), {
    name: plain.name,
    description: plain.description,
    schema: /** @type {any} */ (plain.inputSchema),
  })
}

/**
 * `[read, edit, grep]` for `createAgent`'s `tools` (or a model's
 * `bindTools`), over one engine rooted at `options.root` (default: the
 * working directory).
 * @param {HashlineToolsOptions} [options] as for `createTools` of hashline/tools
 * @returns {import("./langchain-types.d.mts").HashlineLangchainTools}
 */
export function createTools(options = {}) {
  return /** @type {any} */ (hostTools(HOSTS.langchain, createPlainTools({ host: "langchain", ...options })).map(wrap))
}
