// @ts-check
// `hashline/mastra` in a Mastra agent (`@mastra/core`), with the AI SDK's
// MockLanguageModelV3 (`ai/test`) playing the model. Mastra 1.x needs Node
// 22.13 or later: the agent runs in mastra-agent.mjs on a Node 22 from the
// npm registry, and this file checks what it reports and the file on disk.
import test from "ava"
import { spawn, spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { EDIT_DESCRIPTION, EDIT_SCHEMA } from "../../lib/definitions.mjs"
import { holdFolderLock, recorded, scratch, statsTable } from "../helpers.mjs"
import { node22 } from "../support/node22.mjs"
import { AFTER, BEFORE, FILE, checkResults } from "./scenario.mjs"

const AGENT = path.join(path.dirname(fileURLToPath(import.meta.url)), "mastra-agent.mjs")
const found = node22()
const node = "node" in found ? found.node : undefined
/**
 * A JSON schema without the `additionalProperties: false` Mastra adds.
 * @param {any} schema
 * @returns {any}
 */
function withoutClosing(schema) {
  if (Array.isArray(schema)) return schema.map(withoutClosing)
  if (!schema || typeof schema !== "object") return schema
  return Object.fromEntries(Object.entries(schema).filter(([key, value]) => !(key === "additionalProperties" && value === false)).map(([key, value]) => [key, withoutClosing(value)]))
}

const withNode22 = node ? test : test.skip

withNode22(`a Mastra agent reads, edits by a ref from the result, recovers from a stale ref, and the file has exactly the bytes it meant${node ? "" : ` (skipped: ${"missing" in found ? found.missing : ""})`}`, (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, FILE), BEFORE)
  const telemetry = path.join(scratch(t), "telemetry")
  const out = spawnSync(/** @type {string} */ (node), [AGENT, "scenario", root], { encoding: "utf8", timeout: 120_000, env: { ...process.env, HASHLINE_TELEMETRY_DIR: telemetry } })
  t.is(out.status, 0, out.stderr)
  const report = JSON.parse(out.stdout.trim().split("\n").at(-1) ?? "")
  t.log(`Node ${spawnSync(/** @type {string} */ (node), ["-v"], { encoding: "utf8" }).stdout.trim()}, @mastra/core ${JSON.parse(fs.readFileSync(path.join(path.dirname(AGENT), "..", "..", "node_modules", "@mastra", "core", "package.json"), "utf8")).version}`)
  for (const line of report.log) t.log(line)

  t.is(report.text, "Done.")
  checkResults(t, report.results)
  // The refusal reaches the model as a tool error with the engine's text.
  t.deepEqual(report.kinds.at(-1), ["text", "text", "error-text", "text"])
  t.regex(report.results[2], /^Edit rejected, nothing written/)
  t.deepEqual(fs.readFileSync(path.join(root, FILE)), Buffer.from(AFTER))

  t.deepEqual(
    report.offered.map((/** @type {{ name: string }} */ tool) => tool.name),
    ["read", "edit", "grep"],
  )
  t.is(report.offered[1].description, EDIT_DESCRIPTION)
  // Mastra closes every object of a schema (additionalProperties: false); the rest is ours.
  t.deepEqual(withoutClosing(report.offered[1].inputSchema).properties, EDIT_SCHEMA.properties)

  // The record has the registered agent's model and each call's id.
  const records = recorded(telemetry)
  t.is(records.length, report.results.length)
  t.deepEqual([...new Set(records.map((r) => `${r.host} ${r.model}`))], ["mastra mock-model-id"])
  t.deepEqual(
    records.map((r) => r.callId),
    records.map((_, i) => `call-${i + 1}`),
  )
  t.log(`hashline stats of this session:\n${statsTable(telemetry)}`)
})

withNode22("Mastra's abortSignal reaches the engine: an edit aborted while it waits for its folder's lock writes nothing", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, FILE), BEFORE)
  const lock = await holdFolderLock(t, root)
  const child = spawn(/** @type {string} */ (node), [AGENT, "abort", root], { stdio: ["pipe", "pipe", "inherit"] })
  t.teardown(() => child.kill())
  const lines = createInterface({ input: /** @type {import("node:stream").Readable} */ (child.stdout) })[Symbol.asyncIterator]()
  t.is((await lines.next()).value, "aborted")
  await lock.release()
  child.stdin?.write("released\n")
  const report = JSON.parse((await lines.next()).value)
  t.log(`the agent's call: ${report.agentOutcome}`)
  t.is(report.engineOutcome, "CANCELLED")
  t.deepEqual(fs.readFileSync(path.join(root, FILE)), Buffer.from(BEFORE))
})
