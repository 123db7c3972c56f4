// @ts-check
// End to end: the real Claude Code CLI, headless (`-p --output-format
// stream-json`) against the scripted Anthropic server, with the hashline
// plugin installed from the marketplace folder of the hashline package, which
// npm installed from a registry on 127.0.0.1 holding the packages as the
// release publishes them. The plugin starts hashline-mcp with npx from that
// registry too. Two releases: the newest npm installs on Node 20, and the
// newest of all, which declares Node 22 and runs here with a Node 22 first on
// the PATH (its hooks and npx run on it), as its users have.
import test from "ava"
import { spawn, spawnSync } from "node:child_process"
import fs from "node:fs"
import { createRequire } from "node:module"
import os from "node:os"
import path from "node:path"
import { getEncoding } from "js-tiktoken"
import { offeredTools, startScriptedServer } from "../e2e/server.mjs"
import { recorded, statsTable } from "../helpers.mjs"
import { node22 } from "../support/node22.mjs"
import { notebookChange } from "../support/notebooks.mjs"
import { publishPackages, REPO } from "../support/published.mjs"

/**
 * @typedef {import("../e2e/server.mjs").Step} Step
 */

/**
 * The native binary of the platform package a wrapper depends on, in the
 * node_modules folder the wrapper's dependencies are installed in; the
 * wrapper's install script, which links it, does not run in a scripts-free
 * install.
 * @param {string} modules
 */
function claudeBinary(modules) {
  const base = `claude-code-${process.platform}-${process.arch}`
  for (const name of [base, `${base}-musl`]) {
    const file = path.join(modules, "@anthropic-ai", name, process.platform === "win32" ? "claude.exe" : "claude")
    if (fs.existsSync(file) && spawnSync(file, ["--version"], { timeout: 60_000 }).status === 0) return file
  }
  throw new Error(`no working Claude Code binary in ${modules}/@anthropic-ai/${base}; run npm install`)
}

/**
 * The releases the suite drives: the devDependency `@anthropic-ai/claude-code`
 * (the newest on Node 20), and `claude-code-latest`, an alias of the newest,
 * whose platform package npm nests under it.
 * @type {Array<{ version: string, binary: string, node22: boolean }>}
 */
const CLAUDES = [
  { dir: path.join(REPO, "node_modules", "@anthropic-ai", "claude-code"), modules: path.join(REPO, "node_modules"), node22: false },
  { dir: path.join(REPO, "node_modules", "claude-code-latest"), modules: path.join(REPO, "node_modules", "claude-code-latest", "node_modules"), node22: true },
].map(({ dir, modules, node22 }) => ({ version: JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version, binary: claudeBinary(modules), node22 }))

// Claude Code names a plugin's MCP tools mcp__plugin_<plugin>_<server>__<tool>.
const PREFIX = "mcp__plugin_hashline_hashline__"

const work = fs.mkdtempSync(path.join(os.tmpdir(), "hashline-claude-"))
/** @type {Awaited<ReturnType<typeof publishPackages>> | undefined} */
let published
/**
 * Each release's environment, by version: a HOME of its own with the plugin installed.
 * @type {Map<string, Record<string, string>>}
 */
const envs = new Map()

/**
 * @param {{ binary: string, version: string }} claude
 * @param {string[]} args
 * @param {{ cwd: string, env?: Record<string, string>, timeoutMs?: number }} options
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
function runClaude(claude, args, options) {
  return new Promise((resolve) => {
    const child = spawn(claude.binary, args, { cwd: options.cwd, env: options.env ?? envs.get(claude.version), stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d))
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 180_000)
    child.on("exit", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

test.before("publish the packages, npm install hashline, and install its Claude Code plugin from the package's marketplace folder", async (t) => {
  t.timeout(900_000)
  published = await publishPackages(work, ["node_modules/zod", "node_modules/@modelcontextprotocol/sdk"])
  // Nothing that would reach the network besides the model.
  /** @type {Record<string, string>} */
  const env = {
    ...published.env,
    ANTHROPIC_API_KEY: "sk-scripted",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
  }
  const tools = path.join(work, "tools")
  fs.mkdirSync(tools)
  fs.writeFileSync(path.join(tools, "package.json"), JSON.stringify({ name: "tools", version: "1.0.0", private: true }))
  const npm = spawnSync(process.execPath, [published.npm, "install", "hashline", "--loglevel=error"], { cwd: tools, env, encoding: "utf8", timeout: 300_000 })
  if (npm.status !== 0) throw new Error(`npm install hashline failed:\n${npm.stderr}`)
  // The plugin starts hashline-mcp with npx; its first start fetches it.
  const mcpArgs = JSON.parse(fs.readFileSync(path.join(tools, "node_modules", "hashline", "claude-code", "plugin", ".mcp.json"), "utf8")).mcpServers.hashline.args
  const npx = path.join(path.dirname(published.npm), "npx-cli.js")
  const fetched = spawnSync(process.execPath, [npx, ...mcpArgs.filter((/** @type {string} */ a) => a !== "--text-only"), "--version"], { cwd: tools, env, encoding: "utf8", timeout: 600_000 })
  if (fetched.status !== 0) throw new Error(`npx hashline-mcp failed:\n${fetched.stderr}`)
  const marketplace = path.join(tools, "node_modules", "hashline", "claude-code")
  const found = node22()
  for (const claude of CLAUDES) {
    // A fresh HOME for each release.
    const home = path.join(work, `home-${claude.version}`)
    fs.mkdirSync(home)
    /** @type {Record<string, string>} */
    const own = { ...env, HOME: home }
    if (claude.node22) {
      if (!("node" in found)) throw new Error(`Claude Code ${claude.version} needs Node 22: ${found.missing}`)
      own.PATH = `${path.dirname(found.node)}${path.delimiter}${env.PATH}`
    }
    envs.set(claude.version, own)
    for (const args of [
      ["plugin", "marketplace", "add", marketplace],
      ["plugin", "install", "hashline@hashline"],
    ]) {
      const run = await runClaude(claude, args, { cwd: tools })
      t.log(`claude ${claude.version} ${args.join(" ")}: ${run.stdout.trim()}`)
      if (run.code !== 0) throw new Error(`claude ${claude.version} ${args.join(" ")} failed (${run.code}):\n${run.stdout}${run.stderr}`)
    }
  }
})

test.after.always("stop the registry and remove the folders", () => {
  published?.registry.stop()
  fs.rmSync(work, { recursive: true, force: true })
})

/** The tools Claude Code offers to wait for a server still connecting: 2.1.197 has the first, 2.1.3xx the second. */
const WAITS = ["WaitForMcpServers", "ToolSearch"]

/**
 * The script as a model plays it that finds hashline's tools missing from its
 * list because their server is still starting: it calls the tool Claude Code
 * offers to wait for the server, then goes on with the script.
 * @param {Step[]} steps
 * @returns {Step[]}
 */
function onceConnected(steps) {
  /** @type {Step} */
  const step = (ctx) => {
    if (!ctx.tools.some((name) => name.startsWith(PREFIX))) {
      return ctx.tools.includes(WAITS[0]) ? { calls: [{ name: WAITS[0], args: {} }] } : { calls: [{ name: WAITS[1], args: { query: "hashline read edit" } }] }
    }
    const waits = ctx.request.messages.filter((m) => m.role === "assistant" && Array.isArray(m.content) && m.content.some((/** @type {any} */ b) => b.type === "tool_use" && WAITS.includes(b.name))).length
    return steps[ctx.turn - waits]?.(ctx) ?? { text: "Done." }
  }
  return Array.from({ length: steps.length + 8 }, () => step)
}

/**
 * Plays a script through Claude Code in a fresh project folder.
 * @param {import("ava").ExecutionContext} t
 * @param {{ binary: string, version: string }} claude
 * @param {string} name
 * @param {Record<string, string>} files
 * @param {(root: string) => Step[]} script
 * @param {Record<string, string>} [env] more of Claude Code's environment
 */
async function play(t, claude, name, files, script, env = {}) {
  const root = path.join(work, `${name}-${claude.version}`)
  fs.mkdirSync(root)
  for (const [file, content] of Object.entries(files)) fs.writeFileSync(path.join(root, file), content)
  const server = await startScriptedServer(onceConnected(script(root)))
  t.teardown(() => server.close())
  const allowed = ["read", "edit", "grep"].map((tool) => PREFIX + tool).join(",")
  const run = await runClaude(claude, ["-p", "Make the change.", "--output-format", "stream-json", "--verbose", "--model", "claude-sonnet-4-5", "--allowedTools", allowed], {
    cwd: root,
    env: { ...envs.get(claude.version), ANTHROPIC_BASE_URL: server.origin, ...env },
  })
  t.is(run.code, 0, run.stderr)
  t.deepEqual(server.errors, [])
  const events = run.stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line))
  /** @type {Map<string, string>} */
  const names = new Map()
  /** @type {Array<{ tool: string, isError: boolean, text: string }>} */
  const results = []
  for (const event of events) {
    for (const block of event.message?.content ?? []) {
      if (block.type === "tool_use") names.set(block.id, block.name)
      if (block.type === "tool_result") {
        const text = typeof block.content === "string" ? block.content : block.content.map((/** @type {{ text?: string }} */ c) => c.text ?? "").join("")
        const tool = names.get(block.tool_use_id) ?? "?"
        if (!WAITS.includes(tool)) results.push({ tool, isError: block.is_error === true, text })
      }
    }
  }
  t.log(`waited for the server ${[...names.values()].filter((tool) => WAITS.includes(tool)).length} times`)
  return { root, server, run, results }
}

for (const claude of CLAUDES) {
  test.serial(`Claude Code ${claude.version}: read, an edit citing a ref, a stale ref refused then recovered, an Edit turned away towards hashline's edit, with the bytes on disk exact`, async (t) => {
    t.timeout(300_000)
    const original = "function total(items) {\n  let sum = 0\n  for (const x of items) sum += x\n  return sum\n}\n"
    const telemetry = path.join(work, `telemetry-${claude.version}`)
    const { root, server, results } = await play(t, claude, "scenario", { "total.js": original }, (dir) => [
      () => ({ calls: [{ name: "read", args: { filePath: "total.js" } }] }),
      () => ({ calls: [{ name: "edit", args: { filePath: "total.js", operations: [{ op: "replace", ref: "{{ref:2}}", content: "  let sum = 0 // running total" }] } }] }),
      () => ({ calls: [{ name: "edit", args: { filePath: "total.js", operations: [{ op: "replace", ref: "{{firstref:2}}", content: "  let sum = 1" }] } }] }),
      () => ({ calls: [{ name: "edit", args: { filePath: "total.js", operations: [{ op: "replace", ref: "{{ref:2}}", content: "  let sum = 0 // total so far" }] } }] }),
      // Claude Code refuses an Edit of a file its own Read has not read before
      // any hook runs, so the model reads it first, as it would.
      () => ({ calls: [{ name: "Read", args: { file_path: path.join(dir, "total.js") } }] }),
      () => ({ calls: [{ name: "Edit", args: { file_path: path.join(dir, "total.js"), old_string: "return sum", new_string: "return sum * 2" } }] }),
      () => ({ calls: [{ name: "grep", args: { pattern: "sum \\+=" } }] }),
      () => ({ text: "Done." }),
    ], { HASHLINE_TELEMETRY_DIR: telemetry })

    t.deepEqual(
      results.map((r) => [r.tool, r.isError]),
      [
        [`${PREFIX}read`, false],
        [`${PREFIX}edit`, false],
        [`${PREFIX}edit`, true],
        [`${PREFIX}edit`, false],
        ["Read", false],
        ["Edit", true],
        [`${PREFIX}grep`, false],
      ],
    )
    // The model reads the lean text itself, not a JSON rendering of it.
    t.regex(results[0].text, /^total\.js REV:[0-9A-F]{8} lines 1-5 of 5\n1[a-z]{2} function total\(items\) \{\n/)
    t.regex(results[2].text, /^Edit rejected, nothing written/)
    t.true(results[5].text.includes(`${PREFIX}edit`), results[5].text)
    t.regex(results[6].text, /^ *\d+[a-z]{2} {3}for \(const x of items\) sum \+= x$/m)
    t.is(fs.readFileSync(path.join(root, "total.js"), "utf8"), "function total(items) {\n  let sum = 0 // total so far\n  for (const x of items) sum += x\n  return sum\n}\n")

    // Once the server is up, hashline's tools are in the list itself, not
    // behind a tool search, and the requests carry the instruction.
    const first = server.agentRequests.find((r) => offeredTools(r).some((name) => name.startsWith(PREFIX)))
    if (!first) return t.fail("no request offered hashline's tools")
    const offered = (first.tools ?? []).map((tool) => tool.name)
    t.log(`tools offered: ${offered.join(", ")}`)
    t.true(["read", "edit", "grep"].every((tool) => offered.includes(PREFIX + tool)))
    const request = JSON.stringify(first)
    t.true(request.includes("call edit with operations that cite these refs"))
    t.true(request.includes(`change it with ${PREFIX}edit`))
    for (const entry of server.log) t.log(JSON.stringify({ method: entry.method, url: entry.url, turn: entry.turn, answered: entry.answered }))

    // The record: hashline's five calls under the host its MCP client names,
    // each with Claude Code's tool use id; Claude Code does not say which model made a call.
    const records = recorded(telemetry)
    t.deepEqual(
      records.map((r) => [r.host, r.model, r.tool, r.outcome]),
      [
        ["claude-code", undefined, "read", "ok"],
        ["claude-code", undefined, "edit", "applied"],
        ["claude-code", undefined, "edit", "refused"],
        ["claude-code", undefined, "edit", "applied"],
        ["claude-code", undefined, "grep", "ok"],
      ],
    )
    t.true(records.every((r) => /^toolu_/.test(r.callId ?? "")), JSON.stringify(records.map((r) => r.callId)))
    t.log(`hashline stats of this session:\n${statsTable(telemetry)}`)
  })
}

// One release is enough for the tokens and the notebook: the two hand MCP results over alike.
const NEWEST = CLAUDES[CLAUDES.length - 1]

test.serial(`Claude Code ${NEWEST.version}: NotebookEdit is turned away towards hashline, whose read shows the cells and whose one edit changes a code cell and adds a markdown cell, valid and with the stale outputs cleared`, async (t) => {
  t.timeout(300_000)
  const change = notebookChange("nbformat/test4.5.ipynb", "analysis.ipynb")
  const { root, results } = await play(t, NEWEST, "notebook", { "analysis.ipynb": change.text }, (dir) => [
    // Claude Code refuses a NotebookEdit of a notebook its own Read has not
    // read before any hook runs, so the model reads it first, as it would.
    () => ({ calls: [{ name: "Read", args: { file_path: path.join(dir, "analysis.ipynb") } }] }),
    // Newer releases defer NotebookEdit behind their tool search, as they
    // would for a model that asks for it.
    ({ tools }) =>
      tools.includes("NotebookEdit")
        ? { calls: [{ name: "NotebookEdit", args: { notebook_path: path.join(dir, "analysis.ipynb"), cell_id: change.cell.id, new_source: "x = 1" } }] }
        : { calls: [{ name: "ToolSearch", args: { query: "select:NotebookEdit" } }] },
    () => ({ calls: [{ name: "read", args: { filePath: "analysis.ipynb" } }] }),
    ({ lastToolOutput }) => ({ calls: [{ name: "edit", args: change.edit(lastToolOutput) }] }),
    () => ({ text: "Done." }),
  ])
  t.deepEqual(
    results.map((r) => [r.tool, r.isError]),
    [
      ["Read", false],
      ["NotebookEdit", true],
      [`${PREFIX}read`, false],
      [`${PREFIX}edit`, false],
    ],
  )
  t.regex(results[1].text, /NotebookEdit is turned off by the hashline plugin, which edits notebooks itself/)
  t.regex(results[2].text, /^analysis\.ipynb REV:[0-9A-F]{8} lines 1-\d+ of \d+\n  » notebook: nbformat 4\.5/)
  t.false(results[2].text.includes("iVBOR"), "no base64 in the view")
  change.check(t, path.join(root, "analysis.ipynb"))
})

test.serial(`Claude Code ${NEWEST.version}: a 200-line read reaches the model as the lean text, within 5% of its tokens`, async (t) => {
  t.timeout(300_000)
  const lines = Array.from({ length: 200 }, (_, i) => `  const value${i} = compute(${i}, "item ${i}") // step ${i}`)
  const { server, results } = await play(t, NEWEST, "tokens", { "long.js": lines.join("\n") + "\n" }, () => [
    () => ({ calls: [{ name: "read", args: { filePath: "long.js" } }] }),
    () => ({ text: "Done." }),
  ])
  const { createTools } = await import("../../lib/tools.mjs")
  const lean = await createTools({ root: path.join(work, `tokens-${NEWEST.version}`) }).read.execute({ filePath: "long.js" })
  // What the model receives: the content of the read's tool_result block, as sent.
  const request = server.agentRequests[server.agentRequests.length - 1]
  const blocks = request.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
  const call = blocks.find((/** @type {any} */ b) => b.type === "tool_use" && b.name === `${PREFIX}read`)
  const block = blocks.find((/** @type {any} */ b) => b.type === "tool_result" && b.tool_use_id === call?.id)
  const delivered = typeof block.content === "string" ? block.content : block.content.map((/** @type {{ text?: string }} */ c) => c.text ?? "").join("")
  const encoding = getEncoding("o200k_base")
  const leanTokens = encoding.encode(lean).length
  const deliveredTokens = encoding.encode(delivered).length
  // What the model got before the text-only mode: the structured content as JSON.
  const { readContent } = await import("../../mcp/results.mjs")
  const native = /** @type {typeof import("../../index.js")} */ (createRequire(import.meta.url)("../../lib/native.cjs"))
  const structuredTokens = encoding.encode(JSON.stringify(readContent(new native.Hashline({ root: path.join(work, `tokens-${NEWEST.version}`) }).read("long.js")))).length
  t.log(`200-line read: lean text ${leanTokens} tokens; as Claude Code delivers it ${deliveredTokens} tokens; as structured content JSON it would be ${structuredTokens}`)
  t.is(results[0].text, lean)
  // 2.1.3xx adds a reminder of its own after a tool result.
  t.true(delivered.startsWith(lean), delivered.slice(0, 200))
  t.log(`after the lean text Claude Code adds: ${JSON.stringify(delivered.slice(lean.length))}`)
  t.true(deliveredTokens <= leanTokens * 1.05)
})
