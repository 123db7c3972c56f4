// @ts-check
// Run by mastra.spec.mjs on Node 22 (Mastra 1.x needs it): a Mastra agent
// with hashline's tools and the AI SDK's mock language model playing the
// scripted model. `node mastra-agent.mjs scenario ROOT` plays the shared
// conversation with the agent registered in a Mastra instance (where a
// tool can learn its agent's model) and prints what happened as JSON; `abort ROOT` starts an edit
// while the test holds the folder's lock, aborts the agent's call once the
// edit is under way, prints "aborted", and once told "released" on stdin
// waits for the engine's call to settle and prints its outcome as JSON.
import { createInterface } from "node:readline"
import { Agent } from "@mastra/core/agent"
import { Mastra } from "@mastra/core/mastra"
import { MockLanguageModelV3 } from "ai/test"
import { createTools } from "../../lib/mastra.mjs"
import { FILE, logLine, nextCall, until } from "./scenario.mjs"

const [mode, root] = process.argv.slice(2)
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }

/**
 * @typedef {Parameters<MockLanguageModelV3["doGenerate"]>[0]} CallOptions
 * @typedef {Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>} Answer
 */

/**
 * The text of each tool result (or tool error) in a prompt, oldest first.
 * @param {CallOptions["prompt"]} prompt
 */
function toolResults(prompt) {
  return prompt.flatMap((message) =>
    message.role !== "tool"
      ? []
      : message.content.flatMap((part) => (part.type !== "tool-result" ? [] : [part.output.type === "text" || part.output.type === "error-text" ? part.output.value : JSON.stringify(part.output)])),
  )
}

/**
 * @param {string} toolName
 * @param {unknown} input
 * @param {number} turn
 * @returns {Answer}
 */
const toolCall = (toolName, input, turn) => ({ content: [{ type: "tool-call", toolCallId: `call-${turn}`, toolName, input: JSON.stringify(input) }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] })
/** @type {Answer} */
const done = { content: [{ type: "text", text: "Done." }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }

/**
 * The mock as Mastra's model type: Mastra declares the provider types of the
 * `ai` it bundles, which TypeScript tells apart from those of the `ai` here,
 * though they are the same specification (v3).
 * @param {MockLanguageModelV3} model
 * @returns {any}
 */
const asMastraModel = (model) => model

if (mode === "scenario") {
  /** @type {string[]} */
  const log = []
  /** @type {string[][]} */
  const kinds = []
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      const results = toolResults(options.prompt)
      log.push(logLine(log.length + 1, (options.tools ?? []).map((tool) => tool.name), results.at(-1)))
      kinds.push(options.prompt.flatMap((m) => (m.role === "tool" ? m.content.map((part) => (part.type === "tool-result" ? part.output.type : part.type)) : [])))
      const call = nextCall(results)
      return call ? toolCall(call.name, call.args, log.length) : done
    },
  })
  const mastra = new Mastra({ agents: { editor: new Agent({ id: "editor", name: "editor", instructions: "Edit files with hashline's tools.", model: asMastraModel(model), tools: createTools({ root }) }) } })
  const agent = mastra.getAgent("editor")
  const result = await agent.generate("Use a template literal in greet.js", { maxSteps: 8 })
  const last = model.doGenerateCalls.at(-1)
  const offered = /** @type {any[]} */ (model.doGenerateCalls[0].tools ?? [])
  console.log(JSON.stringify({ text: result.text, log, kinds, results: last ? toolResults(last.prompt) : [], offered: offered.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })) }))
} else if (mode === "abort") {
  const tools = createTools({ root })
  // The engine's call, seen on its way out, so that its own outcome is known.
  /** @type {Promise<unknown> | undefined} */
  let call
  const execute = /** @type {NonNullable<typeof tools.edit.execute>} */ (tools.edit.execute)
  tools.edit.execute = (input, context) => {
    call = execute(input, context)
    return /** @type {any} */ (call)
  }
  const model = new MockLanguageModelV3({ doGenerate: async () => toolCall("edit", { filePath: FILE, oldString: "Hello", newString: "Hi" }, 1) })
  const agent = new Agent({ id: "editor", name: "editor", instructions: "x", model: asMastraModel(model), tools })
  const controller = new AbortController()
  const running = agent.generate("x", { maxSteps: 3, abortSignal: controller.signal }).then(
    () => "finished",
    (err) => `rejected: ${err?.name}`,
  )
  await until(() => call !== undefined)
  controller.abort()
  // The agent's call may wait for the tool's, which waits for the lock.
  console.log("aborted")
  for await (const line of createInterface({ input: process.stdin })) if (line === "released") break
  const agentOutcome = await running
  const engineOutcome = await /** @type {Promise<unknown>} */ (call).then(
    () => "written",
    (err) => err?.code,
  )
  console.log(JSON.stringify({ agentOutcome, engineOutcome }))
} else {
  throw new Error(`unknown mode ${mode}`)
}
