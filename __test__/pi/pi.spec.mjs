// @ts-check
// End to end: the real pi CLI, with this package installed as a user would
// (`pi install -l npm:hashline`, from a registry on 127.0.0.1 holding the
// packages as the release publishes them), headless against the scripted
// model. The extension's read, edit and grep take the place of pi's own.
import test from "ava"
import { spawn } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { getEncoding } from "js-tiktoken"
import { startScriptedServer } from "../e2e/server.mjs"
import { recorded, statsTable } from "../helpers.mjs"
import { publishPackages, REPO } from "../support/published.mjs"

/**
 * @typedef {import("../e2e/server.mjs").Step} Step
 */

const PI = path.join(REPO, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js")
const PI_VERSION = JSON.parse(fs.readFileSync(path.join(REPO, "node_modules", "@mariozechner", "pi-coding-agent", "package.json"), "utf8")).version

const work = fs.mkdtempSync(path.join(os.tmpdir(), "hashline-pi-"))
/** @type {Awaited<ReturnType<typeof publishPackages>> | undefined} */
let published

/**
 * Runs pi to its end.
 * @param {string[]} args
 * @param {{ cwd: string, env: Record<string, string>, timeoutMs?: number }} options
 */
function runPi(args, options) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [PI, ...args], { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d))
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 180_000)
    child.on("exit", (code, signal) => {
      clearTimeout(timer)
      resolve(/** @type {{ code: number | null, signal: string | null, stdout: string, stderr: string }} */ ({ code, signal, stdout, stderr }))
    })
  }).then((/** @type {any} */ run) => /** @type {{ code: number | null, signal: string | null, stdout: string, stderr: string }} */ (run))
}

/**
 * A project with hashline installed into it the way pi's documentation says,
 * and pi's own folder holding a provider that points at `baseUrl`.
 * @param {string} name
 * @param {Record<string, string>} files
 */
async function project(name, files) {
  if (!published) throw new Error("the packages were not published")
  const root = path.join(work, name)
  const agent = path.join(work, `${name}-agent`)
  fs.mkdirSync(root)
  fs.mkdirSync(agent)
  for (const [file, content] of Object.entries(files)) fs.writeFileSync(path.join(root, file), content)
  const env = { ...published.env, HOME: path.join(work, `${name}-home`), PI_CODING_AGENT_DIR: agent }
  fs.mkdirSync(env.HOME)
  const install = await runPi(["install", "-l", "npm:hashline"], { cwd: root, env })
  if (install.code !== 0) throw new Error(`pi install failed (${install.code}):\n${install.stdout}${install.stderr}`)
  return { root, agent, env, install }
}

/**
 * Plays a script through pi in JSON mode.
 * @param {import("ava").ExecutionContext} t
 * @param {Awaited<ReturnType<typeof project>>} where
 * @param {Step[]} steps
 * @param {Record<string, string>} [env] more of pi's environment
 */
async function play(t, where, steps, env = {}) {
  const server = await startScriptedServer(steps)
  t.teardown(() => server.close())
  const provider = {
    baseUrl: server.url,
    api: "openai-completions",
    apiKey: "scripted",
    compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
    models: [{ id: "scripted", contextWindow: 200000, maxTokens: 8192 }],
  }
  fs.writeFileSync(path.join(where.agent, "models.json"), JSON.stringify({ providers: { fake: provider } }, null, 2))
  const run = await runPi(["--no-session", "--provider", "fake", "--model", "scripted", "--mode", "json", "-p", "Make the change."], {
    cwd: where.root,
    env: { ...where.env, PI_OFFLINE: "1", ...env },
  })
  t.is(run.code, 0, run.stderr)
  t.deepEqual(server.errors, [])
  const events = run.stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line))
  const results = events
    .filter((e) => e.type === "tool_execution_end")
    .map((e) => ({ tool: e.toolName, isError: e.isError === true, text: e.result.content.map((/** @type {{ text: string }} */ c) => c.text).join("") }))
  return { server, run, results }
}

test.before("publish the packages as the release does, to a registry on 127.0.0.1", async (t) => {
  t.timeout(600_000)
  published = await publishPackages(work, ["node_modules/zod"])
})

test.after.always("stop the registry and remove the folders", () => {
  published?.registry.stop()
  fs.rmSync(work, { recursive: true, force: true })
})

test.serial(`pi ${PI_VERSION}: pi install -l npm:hashline records the package and installs it from the registry with its binary`, async (t) => {
  t.timeout(300_000)
  const { root } = await project("install", {})
  const settings = JSON.parse(fs.readFileSync(path.join(root, ".pi", "settings.json"), "utf8"))
  t.deepEqual(settings.packages, ["npm:hashline"])
  const installed = path.join(root, ".pi", "npm", "node_modules")
  t.true(fs.existsSync(path.join(installed, "hashline", "pi", "extension.mjs")))
  t.true(fs.readdirSync(installed).some((name) => name.startsWith("hashline-linux") || name.startsWith("hashline-darwin") || name.startsWith("hashline-win32")))
})

test.serial(`pi ${PI_VERSION}: read, an edit citing a ref, a stale ref refused then recovered, parallel edits of one file and grep, with the bytes on disk exact`, async (t) => {
  t.timeout(300_000)
  const original = "function total(items) {\n  let sum = 0\n  for (const x of items) sum += x\n  return sum\n}\n"
  const where = await project("scenario", { "total.js": original })
  const telemetry = path.join(work, "scenario-telemetry")
  const { server, results } = await play(t, where, [
    () => ({ calls: [{ name: "read", args: { path: "total.js" } }] }),
    () => ({ calls: [{ name: "edit", args: { path: "total.js", operations: [{ op: "replace", ref: "{{ref:2}}", content: "  let sum = 0 // running total" }] } }] }),
    // The first read's ref of line 2, whose text the edit changed.
    () => ({ calls: [{ name: "edit", args: { path: "total.js", operations: [{ op: "replace", ref: "{{firstref:2}}", content: "  let sum = 1" }] } }] }),
    () => ({ calls: [{ name: "edit", args: { path: "total.js", operations: [{ op: "replace", ref: "{{ref:2}}", content: "  let sum = 0 // total so far" }] } }] }),
    // Two edits of one file in one turn: pi runs them in parallel, the
    // extension queues them per file as pi queues its own.
    () => ({
      calls: [
        { name: "edit", args: { path: "@total.js", operations: [{ op: "insert_before", ref: "{{ref:4}}", content: "  if (sum < 0) throw new Error(\"negative\")" }] } },
        { name: "edit", args: { path: "total.js", operations: [{ op: "replace", ref: "{{ref:1}}", content: "function total(items = []) {" }] } },
      ],
    }),
    () => ({ calls: [{ name: "grep", args: { pattern: "sum \\+=" } }] }),
    () => ({ text: "Done." }),
  ], { HASHLINE_TELEMETRY_DIR: telemetry })

  t.deepEqual(
    results.map((r) => [r.tool, r.isError]),
    [
      ["read", false],
      ["edit", false],
      ["edit", true],
      ["edit", false],
      ["edit", false],
      ["edit", false],
      ["grep", false],
    ],
  )
  t.regex(results[0].text, /^total\.js REV:[0-9A-F]{8} lines 1-5 of 5\n1[a-z]{2} function total\(items\) \{$/m)
  t.regex(results[2].text, /^Edit rejected, nothing written/)
  t.regex(results[6].text, /^ *\d+[a-z]{2} {3}for \(const x of items\) sum \+= x$/m)
  t.is(
    fs.readFileSync(path.join(where.root, "total.js"), "utf8"),
    'function total(items = []) {\n  let sum = 0 // total so far\n  for (const x of items) sum += x\n  if (sum < 0) throw new Error("negative")\n  return sum\n}\n',
  )

  // What the model was offered: pi's names, with hashline's tools behind them.
  const first = server.agentRequests[0]
  const offered = Object.fromEntries((first.tools ?? []).map((tool) => [tool.function.name, tool.function]))
  t.log(`tools offered: ${Object.keys(offered).join(", ")}`)
  t.true(["read", "edit", "grep"].every((name) => name in offered))
  t.deepEqual(offered.edit.parameters.required, ["path"])
  t.truthy(offered.edit.parameters.properties.operations)
  t.is(offered.edit.parameters.properties.edits, undefined)
  const system = String(first.messages.find((m) => m.role === "system")?.content)
  t.regex(system, /- read: Read a file; each line shows its ref/)
  t.regex(system, /- To change a file, call edit with operations that cite these refs/)
  for (const entry of server.log) t.log(JSON.stringify({ url: entry.url, turn: entry.turn, tools: entry.tools, answered: entry.answered }))

  // Each call is in the local record with pi's model (ctx.model) and call
  // id; the refused edit with its code, the stale ref it recovered after.
  const records = recorded(telemetry)
  t.deepEqual(
    records.map((r) => [r.host, r.model, r.tool, r.outcome]),
    [
      ["pi", "scripted", "read", "ok"],
      ["pi", "scripted", "edit", "applied"],
      ["pi", "scripted", "edit", "refused"],
      ["pi", "scripted", "edit", "applied"],
      ["pi", "scripted", "edit", "applied"],
      ["pi", "scripted", "edit", "applied"],
      ["pi", "scripted", "grep", "ok"],
    ],
  )
  t.true(records.every((r) => typeof r.callId === "string" && r.callId !== ""))
  t.is(new Set(records.map((r) => r.callId)).size, records.length)
  t.is(records[2].code, "HASH_MISMATCH")
  const table = statsTable(telemetry)
  t.regex(table, /^scripted +pi +7 +5 /m)
  t.log(`hashline stats of this session:\n${table}`)
})

test.serial(`pi ${PI_VERSION}: a 200-line read reaches the model as the lean text, within 5% of its tokens`, async (t) => {
  t.timeout(300_000)
  const lines = Array.from({ length: 200 }, (_, i) => `  const value${i} = compute(${i}, "item ${i}") // step ${i}`)
  const where = await project("tokens", { "long.js": lines.join("\n") + "\n" })
  const { server } = await play(t, where, [() => ({ calls: [{ name: "read", args: { path: "long.js" } }] }), () => ({ text: "Done." })])
  const { createTools } = await import("../../lib/tools.mjs")
  const lean = await createTools({ root: where.root }).read.execute({ filePath: "long.js" })
  // What the model receives: the tool message's content, as sent.
  const request = server.agentRequests[server.agentRequests.length - 1]
  const message = request.messages.find((m) => m.role === "tool")
  const delivered = typeof message?.content === "string" ? message.content : (message?.content ?? []).map((/** @type {{ text?: string }} */ c) => c.text ?? "").join("")
  const encoding = getEncoding("o200k_base")
  const leanTokens = encoding.encode(lean).length
  const deliveredTokens = encoding.encode(delivered).length
  t.log(`200-line read: lean text ${leanTokens} tokens; as pi delivers it ${deliveredTokens} tokens`)
  t.is(delivered, lean)
  t.true(deliveredTokens <= leanTokens * 1.05)
})
