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
 * @typedef {import("./tools-types.d.mts").HashlineToolsOptions} HashlineToolsOptions
 * @typedef {import("./tools-types.d.mts").HashlineTool} HashlineTool
 */

/**
 * Who made a call, for the telemetry record: the tool call's id, and the
 * model of the agent that made it where the agent is registered with a
 * `Mastra` instance (its first model: a fallback that answered instead is
 * not told apart), asked once per agent.
 * @param {any} context the tool's execution context
 * @param {Map<string, Promise<string | undefined>>} models by agent id
 * @returns {Promise<{ model?: string, callId?: string }>}
 */
async function callerOf(context, models) {
  const agent = context?.agent
  const callId = typeof agent?.toolCallId === "string" && agent.toolCallId !== "" ? agent.toolCallId : undefined
  const agentId = agent?.agentId
  if (typeof agentId !== "string" || typeof context?.mastra?.getAgentById !== "function") return callId ? { callId } : {}
  let model = models.get(agentId)
  if (!model) {
    model = (async () => {
      try {
        const id = (await context.mastra.getAgentById(agentId)?.getModel?.())?.modelId
        return typeof id === "string" && id !== "" ? id : undefined
      } catch {
        return undefined
      }
    })()
    models.set(agentId, model)
  }
  const id = await model
  return { ...(id ? { model: id } : {}), ...(callId ? { callId } : {}) }
}

/**
 * @param {HashlineTool} plain
 * @param {Map<string, Promise<string | undefined>>} models
 */
function wrap(plain, models) {
  return createTool({
    id: plain.name,
    description: plain.description,
    inputSchema: /** @type {any} */ (plain.inputSchema),
    execute: async (input, context) => plain.execute(input, { signal: context?.abortSignal, ...(await callerOf(context, models)) }),
  })
}

/**
 * `{ read, edit, grep }` for `new Agent({ tools })`, over one engine rooted
 * at `options.root` (default: the working directory).
 * @param {HashlineToolsOptions} [options] as for `createTools` of hashline/tools
 * @returns {import("./mastra-types.d.mts").HashlineMastraTools}
 */
export function createTools(options = {}) {
  const tools = hostTools(HOSTS.mastra, createPlainTools({ host: "mastra", ...options }))
  const models = new Map()
  return /** @type {any} */ (Object.fromEntries(tools.map((t) => [t.name, wrap(t, models)])))
}
