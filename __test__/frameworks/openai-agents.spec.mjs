// @ts-check
// `hashline/openai-agents` in the OpenAI Agents SDK's own runner (`run`),
// with a scripted model implementing the SDK's `Model` interface: each answer
// is computed from the tool results in the request's input.
import test from "ava"
import { getEventListeners } from "node:events"
import fs from "node:fs"
import path from "node:path"
import { Agent, run, setTracingDisabled, Usage } from "@openai/agents"
import { EDIT_DESCRIPTION, EDIT_SCHEMA } from "../../lib/definitions.mjs"
import { createTools } from "../../lib/openai-agents.mjs"
import { holdFolderLock, recorded, scratch, statsTable } from "../helpers.mjs"
import { AFTER, BEFORE, FILE, checkResults, logLine, nextCall, until } from "./scenario.mjs"

// Nothing may try to reach a tracing endpoint.
setTracingDisabled(true)

/**
 * @typedef {import("@openai/agents").ModelRequest} ModelRequest
 * @typedef {import("@openai/agents").ModelResponse} ModelResponse
 * @typedef {import("@openai/agents").Model} Model
 */

/**
 * The text of each tool result in a request's input, oldest first.
 * @param {ModelRequest} request
 */
function toolResults(request) {
  if (typeof request.input === "string") return []
  return request.input.flatMap((item) => {
    if (item.type !== "function_call_result") return []
    const output = /** @type {any} */ (item.output)
    return [typeof output === "string" ? output : output?.type === "text" ? output.text : JSON.stringify(output)]
  })
}

/**
 * A model that plays `answer` on each request and records what it was sent.
 * @param {(request: ModelRequest, turn: number) => ModelResponse["output"]} answer
 */
function scriptedModel(answer) {
  /** @type {ModelRequest[]} */
  const requests = []
  /** @type {Model} */
  const model = {
    async getResponse(request) {
      requests.push(request)
      return { usage: new Usage(), output: answer(request, requests.length) }
    },
    // eslint-disable-next-line require-yield
    async *getStreamedResponse() {
      throw new Error("this test runs the agent without streaming")
    },
  }
  return { model, requests }
}

/**
 * @param {string} name
 * @param {unknown} args
 * @param {number} turn
 * @returns {ModelResponse["output"]}
 */
const functionCall = (name, args, turn) => [{ type: "function_call", callId: `call-${turn}`, name, arguments: JSON.stringify(args), status: "completed" }]

/** @param {string} text @returns {ModelResponse["output"]} */
const message = (text) => [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] }]

test("an OpenAI Agents SDK run reads, edits by a ref from the result, recovers from a stale ref, and the file has exactly the bytes it meant", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, FILE), BEFORE)
  const { model, requests } = scriptedModel((request, turn) => {
    const call = nextCall(toolResults(request))
    return call ? functionCall(call.name, call.args, turn) : message("Done.")
  })
  const telemetry = path.join(scratch(t), "telemetry")
  const agent = new Agent({ name: "editor", instructions: "Edit files with hashline's tools.", model, tools: createTools({ root, telemetryDir: telemetry, model: "scripted-agents-1" }) })

  const result = await run(agent, "Use a template literal in greet.js", { maxTurns: 8 })
  requests.forEach((request, i) => t.log(logLine(i + 1, request.tools.map((tool) => tool.name), toolResults(request).at(-1))))

  t.is(result.finalOutput, "Done.")
  checkResults(t, toolResults(requests[requests.length - 1]))
  // The refusal reaches the model as the engine's text, not the SDK's generic one.
  t.regex(toolResults(requests[3]).at(-1) ?? "", /^Edit rejected, nothing written/)
  t.deepEqual(fs.readFileSync(path.join(root, FILE)), Buffer.from(AFTER))

  const offered = requests[0].tools
  t.deepEqual(
    offered.map((tool) => tool.name),
    ["read", "edit", "grep"],
  )
  const edit = /** @type {any} */ (offered[1])
  t.is(edit.description, EDIT_DESCRIPTION)
  t.false(edit.strict)
  t.deepEqual(edit.parameters.properties, EDIT_SCHEMA.properties)
  t.deepEqual(edit.parameters.required, EDIT_SCHEMA.required)

  // The record has the model the app named and each call's id.
  const records = recorded(telemetry)
  t.deepEqual(
    records.map((r) => [r.host, r.model, r.callId]),
    records.map((_, i) => ["openai-agents", "scripted-agents-1", `call-${i + 1}`]),
  )
  t.is(records.length, 4)
  t.log(`hashline stats of this session:\n${statsTable(telemetry)}`)
})

test("the run's signal reaches the engine: a run aborted while an edit waits for its folder's lock writes nothing", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, FILE), BEFORE)
  const { model } = scriptedModel((_request, turn) => (turn === 1 ? functionCall("edit", { filePath: FILE, oldString: "Hello", newString: "Hi" }, turn) : message("Done.")))
  const tools = createTools({ root })
  // The signal the SDK hands the edit tool (derived from the run's), seen on its way in.
  /** @type {AbortSignal | undefined} */
  let handed
  const invoke = tools[1].invoke
  tools[1].invoke = (context, input, details) => {
    handed = details?.signal
    return invoke(context, input, details)
  }
  const agent = new Agent({ name: "editor", instructions: "x", model, tools })
  const lock = await holdFolderLock(t, root)
  const controller = new AbortController()
  const running = run(agent, "x", { signal: controller.signal, maxTurns: 3 })
  // The engine listens on the signal while its call waits for the lock.
  await until(() => handed !== undefined && getEventListeners(handed, "abort").length > 0)
  controller.abort()
  await lock.release()
  await t.throwsAsync(running, { any: true })
  // The engine removes its listener once its call has settled.
  await until(() => getEventListeners(/** @type {AbortSignal} */ (handed), "abort").length === 0)
  t.deepEqual(fs.readFileSync(path.join(root, FILE)), Buffer.from(BEFORE))
})
