// @ts-check
// End to end: Codex CLI, Gemini CLI and Qwen Code, each the real CLI from
// the devDependencies, headless against the scripted model server, with
// hashline installed through the folder the package ships for it, exactly as
// the README says: `codex plugin marketplace add` and `codex plugin add`,
// `gemini extensions install`, `qwen extensions install` (and Qwen Code's
// documented settings). The package comes from `npm install hashline` against
// a registry on 127.0.0.1 holding the packages as released; each integration
// starts hashline-mcp with npx from that registry, which npm's user config
// in the shared HOME names (Codex and Gemini CLI start MCP servers with a
// trimmed environment, so npm's settings must be in files, as a user's are).
// Each scenario reads a 200-line file, edits a line by the ref the read
// showed and finishes; the read shows what the model receives.
import test from "ava"
import { spawn } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { getEncoding } from "js-tiktoken"
import { startScriptedServer } from "../e2e/server.mjs"
import { recorded, statsTable } from "../helpers.mjs"
import { node22 } from "../support/node22.mjs"
import { publishPackages, REPO } from "../support/published.mjs"
import { unlockedHost } from "../../scripts/tools.mjs"

/**
 * @typedef {import("../e2e/server.mjs").Step} Step
 */

/** @param {string} name */
const versionOf = (name) => JSON.parse(fs.readFileSync(path.join(REPO, "node_modules", name, "package.json"), "utf8")).version
/** @param {string} name @param {string} bin */
const binOf = (name, bin) => path.join(REPO, "node_modules", name, bin)

const CODEX = { version: versionOf("@openai/codex"), bin: binOf("@openai/codex", "bin/codex.js") }
const GEMINI = { version: versionOf("@google/gemini-cli"), bin: binOf("@google/gemini-cli", "bundle/gemini.js") }
/** Qwen Code is installed by `npm install` outside the lock (scripts/tools.mjs, UNLOCKED_HOSTS). */
const QWEN_HOST = unlockedHost("@qwen-code/qwen-code")
const QWEN = { version: QWEN_HOST.version, bin: path.join(QWEN_HOST.dir, "cli-entry.js") }
const NODE22 = node22()

const work = fs.mkdtempSync(path.join(os.tmpdir(), "hashline-clis-"))
const HOME = path.join(work, "home")
/** The hashline package as npm installed it. */
const PACKAGE = path.join(work, "tools", "node_modules", "hashline")
/** @type {Awaited<ReturnType<typeof publishPackages>> | undefined} */
let published
/**
 * What every host runs with: the shared HOME, and every proxy pointing at a
 * closed port on loopback, so that a host's own requests besides the model's
 * (Codex's sync of its curated plugins, for one) fail on this machine.
 * @type {Record<string, string>}
 */
let env = {}

const LINES = Array.from({ length: 200 }, (_, i) => `  const value${i} = compute(${i}, "item ${i}") // step ${i}`)
const FILE = "long.js"
const ORIGINAL = `${LINES.join("\n")}\n`
const EDITED = ORIGINAL.replace(LINES[9], "  const value9 = compute(9, \"item nine\") // step 9")

/**
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string, env?: Record<string, string>, input?: string, timeoutMs?: number }} options
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
function run(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? env, stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout?.setEncoding("utf8").on("data", (d) => (stdout += d))
    child.stderr?.setEncoding("utf8").on("data", (d) => (stderr += d))
    if (options.input !== undefined) child.stdin?.end(options.input)
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 180_000)
    child.on("exit", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/**
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string, env?: Record<string, string>, input?: string }} options
 */
async function mustRun(command, args, options) {
  const done = await run(command, args, options)
  if (done.code !== 0) throw new Error(`${path.basename(command)} ${args.join(" ")} failed (${done.code}):\n${done.stdout}${done.stderr}`)
  return done
}

test.before("publish the packages, npm install hashline, and fetch the hashline-mcp its integrations start", async (t) => {
  t.timeout(900_000)
  published = await publishPackages(work, ["node_modules/zod", "node_modules/@modelcontextprotocol/sdk"])
  fs.mkdirSync(HOME)
  // npm's settings in the user's file and cache, where every npx finds them.
  fs.copyFileSync(published.env.npm_config_userconfig, path.join(HOME, ".npmrc"))
  const { npm_config_userconfig: _config, npm_config_cache: _cache, ...rest } = published.env
  const closed = "http://127.0.0.1:9"
  env = { ...rest, HOME, HTTPS_PROXY: closed, HTTP_PROXY: closed, ALL_PROXY: closed, https_proxy: closed, http_proxy: closed, NO_PROXY: "127.0.0.1,localhost", no_proxy: "127.0.0.1,localhost" }
  const tools = path.join(work, "tools")
  fs.mkdirSync(tools)
  fs.writeFileSync(path.join(tools, "package.json"), JSON.stringify({ name: "tools", version: "1.0.0", private: true }))
  await mustRun(process.execPath, [published.npm, "install", "hashline", "--loglevel=error"], { cwd: tools })
  // The first start of hashline-mcp fetches it; the hosts would wait for it.
  const args = JSON.parse(fs.readFileSync(path.join(PACKAGE, "codex", "plugin", ".mcp.json"), "utf8")).mcpServers.hashline.args
  const npx = path.join(path.dirname(published.npm), "npx-cli.js")
  await mustRun(process.execPath, [npx, ...args.filter((/** @type {string} */ a) => a !== "--text-only"), "--version"], { cwd: tools })
})

test.after.always("remove the folders", () => {
  published?.registry.stop()
  fs.rmSync(work, { recursive: true, force: true })
})

/**
 * A fresh project holding the 200-line file.
 * @param {string} name
 */
function project(name) {
  const root = path.join(work, name)
  fs.mkdirSync(root)
  fs.writeFileSync(path.join(root, FILE), ORIGINAL)
  return root
}

/** The lean text of the file's read, as the engine gives it. */
async function leanRead() {
  const { createTools } = await import("../../lib/tools.mjs")
  const root = fs.mkdtempSync(path.join(work, "lean-"))
  fs.writeFileSync(path.join(root, FILE), ORIGINAL)
  return createTools({ root }).read.execute({ filePath: FILE })
}

/**
 * The tokens (o200k) of what the model received for the read, beside the lean text's.
 * @param {import("ava").ExecutionContext} t
 * @param {string} host
 * @param {string} delivered
 */
async function tokens(t, host, delivered) {
  const encoding = getEncoding("o200k_base")
  const lean = await leanRead()
  const counts = { lean: encoding.encode(lean).length, delivered: encoding.encode(delivered).length }
  t.log(`${host}: a 200-line read is ${counts.lean} tokens of lean text; the model receives ${counts.delivered}`)
  t.true(delivered.includes(lean), "the lean text reaches the model whole")
  t.true(counts.delivered <= counts.lean * 1.05, "within 5% of the lean text's tokens")
  return counts
}

/**
 * Read the file, edit line 10 by the ref the read showed, finish.
 * @param {(name: string) => string} tool the host's name of a hashline tool
 * @returns {Step[]}
 */
const script = (tool) => [
  () => ({ calls: [{ name: tool("read"), args: { filePath: FILE } }] }),
  () => ({ calls: [{ name: tool("edit"), args: { filePath: FILE, operations: [{ op: "replace", ref: "{{ref:10}}", content: "  const value9 = compute(9, \"item nine\") // step 9" }] } }] }),
  () => ({ text: "Done." }),
]

/**
 * The script as a model plays it that finds hashline's tools missing from its
 * list: `codex exec` sends its first requests before the MCP servers have
 * started, and to a model it knows offers MCP tools only through a tool
 * search. The model searches (a model Codex does not know, which has no
 * tool search, waits a second with a shell command) until the tools are
 * there, then goes on with the script.
 * @param {Step[]} steps
 * @returns {Step[]}
 */
function onceFound(steps) {
  /** @type {Step} */
  const step = (ctx) => {
    if (!ctx.tools.includes("mcp__hashline__read")) {
      return ctx.tools.includes("tool_search") ? { calls: [{ name: "tool_search", args: { query: "hashline read edit", limit: 8 } }] } : { calls: [{ name: "exec_command", args: { cmd: "sleep 1" } }] }
    }
    const waits = (ctx.request.input ?? []).filter((item) => item.type === "tool_search_call" || (item.type === "function_call" && item.name === "exec_command")).length
    return steps[ctx.turn - waits]?.(ctx) ?? { text: "Done." }
  }
  return Array.from({ length: steps.length + 100 }, () => step)
}

test(`Codex ${CODEX.version}: installed as a plugin from the package's marketplace folder, it reads and edits by ref through hashline, apply_patch turned away, for a model it knows and one it does not`, async (t) => {
  t.timeout(600_000)
  const codexHome = path.join(work, "codex-home")
  fs.mkdirSync(codexHome)
  // The provider at the scripted server (its URL is given per run), and no analytics or update check.
  fs.writeFileSync(
    path.join(codexHome, "config.toml"),
    ['model_provider = "scripted"', "check_for_update_on_startup = false", "", "[analytics]", "enabled = false", "", "[model_providers.scripted]", 'name = "scripted"', 'wire_api = "responses"', 'env_key = "SCRIPTED_KEY"', "request_max_retries = 0", "stream_max_retries = 0", ""].join("\n"),
  )
  const codexEnv = { ...env, CODEX_HOME: codexHome, SCRIPTED_KEY: "scripted" }
  const codex = (/** @type {string[]} */ args, /** @type {string} */ cwd) => mustRun(process.execPath, [CODEX.bin, ...args], { cwd, env: codexEnv })
  await codex(["plugin", "marketplace", "add", path.join(PACKAGE, "codex")], work)
  await codex(["plugin", "add", "hashline@hashline"], work)

  /**
   * @param {string} model
   * @param {Step[]} steps
   * @param {string[]} flags
   */
  const play = async (model, steps, flags) => {
    const root = project(`codex-${model}`)
    const server = await startScriptedServer(steps)
    t.teardown(() => server.close())
    const done = await codex(["exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--ephemeral", ...flags, "-m", model, "-c", `model_providers.scripted.base_url="${server.url}"`, "Make the change."], root)
    t.deepEqual(server.errors, [], done.stderr)
    t.is(fs.readFileSync(path.join(root, FILE), "utf8"), EDITED)
    return server
  }
  /** The items of the function output answering the call named `name` in a later request. */
  const outputOf = (/** @type {any} */ request, /** @type {string} */ name) => {
    const call = request.input.find((/** @type {any} */ item) => (item.type === "function_call" || item.type === "custom_tool_call") && item.name === name)
    const output = request.input.find((/** @type {any} */ item) => item.call_id === call?.call_id && item.type.endsWith("_output"))
    return typeof output?.output === "string" ? [{ text: output.output }] : (output?.output ?? [])
  }

  // A model Codex knows: apply_patch is offered and hashline's tools wait
  // behind tool_search; the plugin's skill tells the model so, and its hook,
  // once trusted (here for this run), turns apply_patch away.
  const known = await play(
    "gpt-5.5",
    onceFound([
      ...script((name) => `mcp__hashline__${name}`).slice(0, 1),
      () => ({ calls: [{ name: "apply_patch", args: { input: `*** Begin Patch\n*** Update File: ${FILE}\n@@\n-${LINES[9]}\n+  const value9 = 9\n*** End Patch\n` } }] }),
      ...script((name) => `mcp__hashline__${name}`).slice(1),
    ]),
    ["--dangerously-bypass-hook-trust"],
  )
  t.log(`searches before hashline's tools were found: ${known.log.filter((entry) => entry.answered?.includes("tool_search")).length}`)
  const first = known.agentRequests[0]
  t.true(first.tools?.some((/** @type {any} */ tool) => tool.name === "apply_patch"))
  t.false(JSON.stringify(first.tools).includes("mcp__hashline"), "hashline's tools wait behind tool_search")
  t.true(JSON.stringify(first.input).includes("Use them, not apply_patch, to change files."), "the skill's guide is in the prompt")
  const last = known.agentRequests[known.agentRequests.length - 1]
  t.regex(outputOf(last, "apply_patch").map((/** @type {{ text: string }} */ c) => c.text).join(""), /apply_patch is turned off by the hashline plugin/)
  const read = outputOf(last, "read").map((/** @type {{ text: string }} */ c) => c.text)
  t.log(`Codex wraps the result: ${JSON.stringify(read[0])}`)
  await tokens(t, `Codex ${CODEX.version}`, read.join(""))

  // A model Codex does not know: no apply_patch, hashline's tools in the list itself.
  const unknown = await play("scripted", onceFound(script((name) => `mcp__hashline__${name}`)), [])
  t.log(`waits before hashline's tools were listed: ${unknown.log.filter((entry) => entry.answered?.includes("exec_command")).length}`)
  const offered = unknown.agentRequests[unknown.agentRequests.length - 1].tools ?? []
  t.false(offered.some((/** @type {any} */ tool) => tool.name === "apply_patch"))
  t.deepEqual(offered.find((/** @type {any} */ tool) => tool.name === "mcp__hashline")?.tools.map((/** @type {any} */ tool) => tool.name).sort(), ["apply", "edit", "grep", "read"])

  // Codex starts the server with HOME alone of the environment, so the record
  // is in HOME's state folder: each call under the host codex, with the model
  // Codex put in the call's _meta and Codex's call id.
  const telemetry = path.join(HOME, ".local", "state", "hashline", "telemetry")
  const records = recorded(telemetry).filter((r) => r.host === "codex")
  t.deepEqual([...new Set(records.map((r) => r.model))], ["gpt-5.5", "scripted"])
  t.true(records.every((r) => typeof r.callId === "string" && r.callId !== ""))
  t.log(`hashline stats of these sessions:\n${statsTable(telemetry)}`)
})

test(`Gemini CLI ${GEMINI.version}: installed as an extension from the package's folder, it reads and edits by ref through hashline, with replace and write_file not offered`, async (t) => {
  t.timeout(600_000)
  fs.mkdirSync(path.join(HOME, ".gemini"))
  // An API key sign-in (a base URL alone selects one headless mode refuses), and no usage statistics.
  fs.writeFileSync(path.join(HOME, ".gemini", "settings.json"), JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } }, privacy: { usageStatisticsEnabled: false }, general: { disableAutoUpdate: true } }))
  const telemetry = path.join(work, "gemini-telemetry")
  const geminiEnv = { ...env, GEMINI_API_KEY: "scripted", HASHLINE_TELEMETRY_DIR: telemetry }
  // Gemini CLI asks whether to trust the folder it installs from: the user says yes.
  await mustRun(process.execPath, [GEMINI.bin, "extensions", "install", path.join(PACKAGE, "gemini-cli"), "--consent"], { cwd: work, env: geminiEnv, input: "y\n" })

  const root = project("gemini")
  const server = await startScriptedServer(script((name) => `mcp_hashline_${name}`))
  t.teardown(() => server.close())
  await mustRun(process.execPath, [GEMINI.bin, "-p", "Make the change.", "--yolo", "--skip-trust", "-m", "gemini-2.5-pro"], { cwd: root, env: { ...geminiEnv, GOOGLE_GEMINI_BASE_URL: server.origin } })
  t.deepEqual(server.errors, [])
  t.is(fs.readFileSync(path.join(root, FILE), "utf8"), EDITED)

  const last = server.agentRequests[server.agentRequests.length - 1]
  const offered = (last.tools ?? []).flatMap((/** @type {any} */ tool) => tool.functionDeclarations.map((/** @type {{ name: string }} */ f) => f.name))
  t.false(offered.includes("replace") || offered.includes("write_file"), offered.join(", "))
  t.true(["read", "edit", "grep", "apply"].every((name) => offered.includes(`mcp_hashline_${name}`)))
  t.true(JSON.stringify(last.contents).includes("Use them, not replace or write_file, to change files."), "the context file is in the prompt")
  const response = (last.contents ?? []).flatMap((c) => c.parts ?? []).find((/** @type {any} */ part) => part.functionResponse?.name === "mcp_hashline_read")?.functionResponse.response
  t.log(`Gemini CLI wraps the result: ${JSON.stringify(Object.keys(response ?? {}))}, ${JSON.stringify(String(response?.output).slice(0, 40))}`)
  await tokens(t, `Gemini CLI ${GEMINI.version}`, String(response?.output))

  // The record names the host by its MCP client; Gemini CLI does not say which model made a call.
  const records = recorded(telemetry)
  t.true(records.length >= 2)
  t.true(records.every((r) => r.host === "gemini-cli" && r.model === undefined), JSON.stringify(records.map((r) => [r.host, r.model])))
  t.log(`hashline stats of this session:\n${statsTable(telemetry)}`)
})

const withNode22 = "node" in NODE22 ? test : test.skip
withNode22(`Qwen Code ${QWEN.version}: installed as an extension from the package's folder with the documented settings, it reads and edits by ref through hashline, with edit and write_file not offered and no tool search before hashline's tools${"missing" in NODE22 ? ` (skipped: ${NODE22.missing})` : ""}`, async (t) => {
  t.timeout(600_000)
  const node = /** @type {{ node: string }} */ (NODE22).node
  fs.mkdirSync(path.join(HOME, ".qwen"))
  // The settings of docs/hosts/qwen-code.md: Qwen Code's own edit tools denied, which takes them off the list.
  fs.writeFileSync(path.join(HOME, ".qwen", "settings.json"), JSON.stringify({ permissions: { deny: ["edit", "write_file"] } }))
  const telemetry = path.join(work, "qwen-telemetry")
  const qwenEnv = { ...env, QWEN_USAGE_STATISTICS_ENABLED: "false", HASHLINE_TELEMETRY_DIR: telemetry }
  await mustRun(node, [QWEN.bin, "extensions", "install", path.join(PACKAGE, "qwen-code")], { cwd: work, env: qwenEnv, input: "y\n" })

  const root = project("qwen")
  const server = await startScriptedServer(script((name) => `mcp__hashline__${name}`))
  t.teardown(() => server.close())
  await mustRun(node, [QWEN.bin, "-p", "Make the change.", "--yolo"], { cwd: root, env: { ...qwenEnv, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "scripted", OPENAI_MODEL: "scripted" } })
  t.deepEqual(server.errors, [])
  t.is(fs.readFileSync(path.join(root, FILE), "utf8"), EDITED)

  const first = server.agentRequests[0]
  const offered = (first.tools ?? []).map((/** @type {any} */ tool) => tool.function.name)
  t.false(offered.includes("edit") || offered.includes("write_file"), offered.join(", "))
  t.true(["read", "edit", "grep", "apply"].every((name) => offered.includes(`mcp__hashline__${name}`)), "in the first request's list, not behind tool_search")
  t.true(JSON.stringify(first.messages).includes("Use them, not edit or write_file, to change files."), "the context file is in the prompt")
  const last = server.agentRequests[server.agentRequests.length - 1]
  const call = last.messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.function.name === "mcp__hashline__read")
  const result = last.messages.find((m) => m.role === "tool" && m.tool_call_id === call?.id)
  const delivered = typeof result?.content === "string" ? result.content : (result?.content ?? []).map((/** @type {{ text?: string }} */ c) => c.text ?? "").join("")
  const counts = await tokens(t, `Qwen Code ${QWEN.version}`, delivered)
  t.is(counts.delivered, counts.lean, "the model receives the lean text and nothing else")

  // The record names the host by its MCP client (qwen-cli-mcp-client-hashline); Qwen Code does not say which model made a call.
  const records = recorded(telemetry)
  t.true(records.length >= 2)
  t.true(records.every((r) => r.host === "qwen-code" && r.model === undefined), JSON.stringify(records.map((r) => [r.host, r.model])))
  t.log(`hashline stats of this session:\n${statsTable(telemetry)}`)
})
