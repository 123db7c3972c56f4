// @ts-check
// `hashline/langchain` in LangChain's own agent loop (`createAgent` from
// `langchain`), with LangChain's fake chat model (`fakeModel()` from
// `@langchain/core/testing`) playing the model: each of its answers is
// computed from the tool messages it was handed.
import test from "ava"
import fs from "node:fs"
import path from "node:path"
import { getEventListeners } from "node:events"
import { AIMessage, ToolMessage } from "@langchain/core/messages"
import { fakeModel } from "@langchain/core/testing"
import { createAgent } from "langchain"
import { EDIT_DESCRIPTION, EDIT_SCHEMA } from "../../lib/definitions.mjs"
import { createTools } from "../../lib/langchain.mjs"
import { holdFolderLock, recorded, scratch, statsTable } from "../helpers.mjs"
import { AFTER, BEFORE, FILE, checkResults, logLine, nextCall, until } from "./scenario.mjs"

/**
 * The text of each tool message, oldest first.
 * @param {import("@langchain/core/messages").BaseMessage[]} messages
 */
const toolResults = (messages) => messages.filter((m) => ToolMessage.isInstance(m)).map((m) => String(m.content))

test("a LangChain agent reads, edits by a ref from the result, recovers from a stale ref, and the file has exactly the bytes it meant", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, FILE), BEFORE)
  /** @type {string[]} */
  const log = []
  const model = fakeModel()
  /** @param {import("@langchain/core/messages").BaseMessage[]} messages */
  const play = (messages) => {
    const results = toolResults(messages)
    const call = nextCall(results)
    log.push(logLine(log.length + 1, [], results.at(-1)))
    // A provider's message names the model that answered, as the fake's does not.
    const response_metadata = { model_name: "scripted-lc-1", model_provider: "fake" }
    return call ? new AIMessage({ content: "", tool_calls: [{ id: `call-${log.length}`, name: call.name, args: call.args, type: "tool_call" }], response_metadata }) : new AIMessage("Done.")
  }
  for (let i = 0; i < 5; i++) model.respond(play)

  const telemetry = path.join(scratch(t), "telemetry")
  const agent = createAgent({ model, tools: createTools({ root, telemetryDir: telemetry }) })
  const out = await agent.invoke({ messages: [{ role: "user", content: "Use a template literal in greet.js" }] })
  for (const line of log) t.log(line)

  t.is(String(out.messages.at(-1)?.content), "Done.")
  checkResults(t, toolResults(out.messages))
  const refused = out.messages.filter((m) => ToolMessage.isInstance(m))[2]
  t.is(ToolMessage.isInstance(refused) ? refused.status : undefined, "error")
  t.deepEqual(fs.readFileSync(path.join(root, FILE)), Buffer.from(AFTER))

  // The record has the model the agent's message named and each call's id.
  const records = recorded(telemetry)
  t.is(records.length, toolResults(out.messages).length)
  t.deepEqual(
    records.map((r) => [r.host, r.model, r.callId]),
    records.map((_, i) => ["langchain", "scripted-lc-1", `call-${i + 1}`]),
  )
  t.log(`hashline stats of this session:\n${statsTable(telemetry)}`)
})

test("the tools LangChain offers the model are hashline's, with the shared description and JSON schema", async (t) => {
  const tools = createTools({ root: scratch(t) })
  t.deepEqual(
    tools.map((tool) => tool.name),
    ["read", "edit", "grep"],
  )
  t.is(tools[1].description, EDIT_DESCRIPTION)
  t.deepEqual(tools[1].schema, /** @type {any} */ (EDIT_SCHEMA))
})

test("LangChain's signal reaches the engine: an edit aborted while it waits for its folder's lock writes nothing", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, FILE), BEFORE)
  const [read, edit] = createTools({ root })
  const lock = await holdFolderLock(t, root)
  const controller = new AbortController()
  const call = edit.invoke({ filePath: FILE, oldString: "Hello", newString: "Hi" }, { signal: controller.signal })
  // The engine listens on the signal while its call is under way.
  await until(() => getEventListeners(controller.signal, "abort").length > 1)
  controller.abort()
  await lock.release()
  await t.throwsAsync(call, { any: true })
  // The engine removes its listener once its call has settled.
  await until(() => getEventListeners(controller.signal, "abort").length === 0)
  t.regex(String(await read.invoke({ filePath: FILE })), /'Hello ' \+ name/)
  t.deepEqual(fs.readFileSync(path.join(root, FILE)), Buffer.from(BEFORE))
})

test("an agent run aborted while the model asks for an edit ends without writing", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, FILE), BEFORE)
  const controller = new AbortController()
  const model = fakeModel().respond(() => {
    controller.abort()
    return new AIMessage({ content: "", tool_calls: [{ id: "call-1", name: "edit", args: { filePath: FILE, oldString: "Hello", newString: "Hi" }, type: "tool_call" }] })
  })
  const agent = createAgent({ model, tools: createTools({ root }) })
  await t.throwsAsync(agent.invoke({ messages: [{ role: "user", content: "x" }] }, { signal: controller.signal }), { any: true })
  t.deepEqual(fs.readFileSync(path.join(root, FILE)), Buffer.from(BEFORE))
})
