// @ts-check
// `hashline/claude-agent-sdk` through the SDK's own `query()`, which runs the
// Claude Code that comes with the SDK's platform package, against the
// scripted Anthropic server of e2e/server.mjs (no network, no real model):
// the in-process MCP server's tools are offered from the first request, the
// model edits citing refs from the results it got, and Claude Code's own
// edit tools are not offered.
import test from "ava"
import fs from "node:fs"
import path from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { query } from "@anthropic-ai/claude-agent-sdk"
import { EDIT_DESCRIPTION } from "../../lib/definitions.mjs"
import { DISALLOWED_TOOLS, TOOL_NAMES, hashlineOptions } from "../../lib/claude-agent-sdk.mjs"
import { startScriptedServer } from "../e2e/server.mjs"
import { holdFolderLock, recorded, scratch, statsTable } from "../helpers.mjs"
import { AFTER, BEFORE, FILE, checkResults, nextCall, until } from "./scenario.mjs"

/**
 * Claude Code with nothing of this machine's: a fresh HOME, the scripted
 * server as its API, no traffic besides the model's.
 * @param {import("ava").ExecutionContext} t
 * @param {string} origin
 */
function claudeEnv(t, origin) {
  return {
    ...process.env,
    HOME: scratch(t),
    ANTHROPIC_BASE_URL: origin,
    ANTHROPIC_API_KEY: "scripted",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
  }
}

/** @type {import("../e2e/server.mjs").Step} */
const play = (ctx) => {
  const call = nextCall(ctx.toolOutputs)
  return call ? { calls: [{ name: call.name, args: call.args }] } : { text: "Done." }
}

test.serial("through the Claude Agent SDK a model reads, edits by a ref from the result, recovers from a stale ref, and the file has exactly the bytes it meant", async (t) => {
  t.timeout(300_000)
  const root = scratch(t)
  const telemetry = path.join(scratch(t), "telemetry")
  fs.writeFileSync(path.join(root, FILE), BEFORE)
  const server = await startScriptedServer([play, play, play, play, play])
  t.teardown(() => server.close())

  /** @type {any[]} */
  const messages = []
  for await (const message of query({
    prompt: "Use a template literal in greet.js",
    options: { ...hashlineOptions({ root, telemetryDir: telemetry, model: "scripted" }), cwd: root, env: claudeEnv(t, server.origin), model: "scripted", maxTurns: 8, settingSources: [] },
  })) {
    messages.push(message)
  }
  for (const entry of server.log) t.log(`${entry.method} ${entry.url} turn ${entry.turn}: tools [${(entry.tools ?? []).join(", ")}], last tool result ${JSON.stringify((entry.lastToolResult ?? "-").split("\n").slice(0, 2).join("\\n").slice(0, 100))}, answered [${(entry.answered ?? []).join(", ")}]`)

  t.deepEqual(server.errors, [])
  const result = messages.find((m) => m.type === "result")
  t.like(result, { subtype: "success", result: "Done." })
  const agentLog = server.log.filter((entry) => (entry.tools ?? []).length > 0)
  const last = server.agentRequests.at(-1)
  checkResults(t, /** @type {string[]} */ (last ? toolResults(last) : []))
  t.deepEqual(fs.readFileSync(path.join(root, FILE)), Buffer.from(AFTER))

  // The record has the model the app named and each tool use's id (the scripted model numbers them toolu_N).
  const records = recorded(telemetry)
  t.true(records.length >= 4)
  t.true(records.every((r) => r.host === "claude-agent-sdk" && r.model === "scripted" && /^toolu_\d+$/.test(r.callId ?? "")), JSON.stringify(records.map((r) => [r.host, r.model, r.callId])))
  t.log(`hashline stats of this session:\n${statsTable(telemetry)}`)

  // Always loaded: offered in the first request, not behind the tool search.
  const offered = agentLog[0].tools ?? []
  for (const name of TOOL_NAMES) t.true(offered.includes(name), `${name} offered in the first request`)
  for (const name of DISALLOWED_TOOLS) t.false(offered.includes(name), `${name} not offered`)
  const edit = (server.agentRequests[0].tools ?? []).find((/** @type {any} */ tool) => tool.name === "mcp__hashline__edit")
  t.is(edit?.description, EDIT_DESCRIPTION)
  t.not(edit?.defer_loading, true)
})

/**
 * The tool results of an Anthropic request, oldest first, as text.
 * @param {any} body
 */
function toolResults(body) {
  /** @type {string[]} */
  const out = []
  for (const message of body.messages ?? []) {
    if (!Array.isArray(message.content)) continue
    for (const block of message.content) {
      if (block.type !== "tool_result") continue
      out.push(typeof block.content === "string" ? block.content : (block.content ?? []).map((/** @type {any} */ part) => part.text ?? "").join(""))
    }
  }
  return out
}

test.serial("the query's abortController reaches the engine: an edit aborted while it waits for its folder's lock writes nothing", async (t) => {
  t.timeout(300_000)
  const root = scratch(t)
  fs.writeFileSync(path.join(root, FILE), BEFORE)
  const server = await startScriptedServer([() => ({ calls: [{ name: "edit", args: { filePath: FILE, oldString: "Hello", newString: "Hi" } }] })])
  t.teardown(() => server.close())
  const lock = await holdFolderLock(t, root)
  const abortController = new AbortController()
  const run = (async () => {
    for await (const message of query({
      prompt: "x",
      options: { ...hashlineOptions({ root }), cwd: root, env: claudeEnv(t, server.origin), model: "scripted", maxTurns: 3, settingSources: [], abortController },
    })) {
      if (message.type === "result") return message.subtype
    }
    return "ended"
  })().catch((err) => `threw ${err?.name}`)
  await until(() => server.log.some((entry) => (entry.answered ?? []).includes("mcp__hashline__edit")))
  // Claude Code calls the in-process tool over the SDK's channel, after the answer is streamed.
  await sleep(3000)
  abortController.abort()
  t.log(`the query: ${await run}`)
  await lock.release()
  // Were the edit not cancelled, it would now take the lock and write.
  await sleep(3000)
  t.deepEqual(fs.readFileSync(path.join(root, FILE)), Buffer.from(BEFORE))
})
