// @ts-check
// The npm package as users get it: packed with `npm pack`, installed into an
// empty project with no Rust toolchain on the PATH, and used from Node
// (CommonJS, ESM, TypeScript through tsc), from Bun, and through its `bin`.
import test from "ava"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const PKG = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8"))
const EXE = process.platform === "win32" ? ".exe" : ""

/**
 * npm's own script, run by this Node, so that it stays callable once the PATH
 * has lost the folders holding a Rust toolchain (npm may share one with it).
 */
function npmCli() {
  const candidates = [process.env.npm_execpath ?? ""]
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) candidates.push(path.join(dir, "npm"))
  for (const candidate of candidates) {
    if (!candidate || !fs.existsSync(candidate)) continue
    const real = fs.realpathSync(candidate)
    if (/npm-cli\.js$/.test(real)) return real
    const sibling = path.join(path.dirname(real), "..", "lib", "node_modules", "npm", "bin", "npm-cli.js")
    if (fs.existsSync(sibling)) return sibling
  }
  throw new Error("npm-cli.js not found next to any npm on the PATH")
}

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

/**
 * The environment of a machine without Rust: PATH without any folder that
 * holds cargo or rustc, plus a folder with this Node in it.
 * @param {string} nodeDir
 */
function rustlessEnv(nodeDir) {
  const hasRust = (/** @type {string} */ dir) => ["cargo", "rustc"].some((tool) => fs.existsSync(path.join(dir, `${tool}${EXE}`)))
  const kept = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => dir && !hasRust(dir))
  /** @type {Record<string, string | undefined>} */
  const env = { ...process.env, PATH: [nodeDir, ...kept].join(path.delimiter) }
  for (const key of Object.keys(env)) if (/^(npm_|CARGO|RUSTUP)/i.test(key)) delete env[key]
  return env
}

/**
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string, env: Record<string, string | undefined>, input?: string }} options
 */
function run(command, args, options) {
  const result = spawnSync(command, args, { cwd: options.cwd, env: /** @type {NodeJS.ProcessEnv} */ (options.env), input: options.input, encoding: "utf8", timeout: 180_000, maxBuffer: 64 << 20 })
  const out = `${result.stdout ?? ""}${result.stderr ?? ""}${result.error ? String(result.error) : ""}`
  if (result.status !== 0) throw new Error(`${path.basename(command)} ${args.join(" ")} failed (${result.status}):\n${out}`)
  return result.stdout
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "hashline-package-"))
const app = path.join(work, "app")
const nodeDir = path.join(work, "node-bin")
const env = rustlessEnv(nodeDir)
const npm = npmCli()
/** @type {Array<{ path: string, size: number }>} */
let packed = []

test.before("pack the package as published and install it into an empty project without Rust", (t) => {
  t.timeout(300_000)
  fs.mkdirSync(nodeDir)
  fs.symlinkSync(process.execPath, path.join(nodeDir, `node${EXE}`))

  const listing = JSON.parse(run(process.execPath, [npm, "pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: REPO, env: process.env }))
  packed = listing[0].files

  // The manifest as `napi pre-publish` writes it for the registry: each
  // per-platform package an optional dependency at the same version. None
  // is published, so the install must get by without them.
  const stage = path.join(work, "stage")
  for (const file of packed) {
    fs.mkdirSync(path.dirname(path.join(stage, file.path)), { recursive: true })
    fs.copyFileSync(path.join(REPO, file.path), path.join(stage, file.path))
  }
  const manifest = { ...PKG, optionalDependencies: Object.fromEntries(platformPackages().map((p) => [p.name, PKG.version])) }
  fs.writeFileSync(path.join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`)
  const tarballs = path.join(work, "tarballs")
  fs.mkdirSync(tarballs)
  const [{ filename }] = JSON.parse(run(process.execPath, [npm, "pack", "--json", "--ignore-scripts", "--pack-destination", tarballs], { cwd: stage, env: process.env }))

  fs.mkdirSync(app)
  fs.writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true }))
  const cargo = spawnSync(`cargo${EXE}`, ["--version"], { env: /** @type {NodeJS.ProcessEnv} */ (env) })
  t.is(/** @type {NodeJS.ErrnoException | undefined} */ (cargo.error)?.code, "ENOENT")
  // The AI SDK is an optional peer: installed beside it, as its users have it.
  const ai = `ai@${PKG.devDependencies.ai}`
  run(process.execPath, [npm, "install", path.join(tarballs, filename), ai, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: app, env })
})

test.after.always(() => fs.rmSync(work, { recursive: true, force: true }))

/** The per-platform packages as `napi create-npm-dirs` made them. */
function platformPackages() {
  const dir = path.join(REPO, "npm")
  return fs.readdirSync(dir).map((name) => ({ dir: name, ...JSON.parse(fs.readFileSync(path.join(dir, name, "package.json"), "utf8")) }))
}

test("the tarball holds the loader, the JS layer, the install script and this platform's binary, and nothing else", (t) => {
  const paths = packed.map((f) => f.path).sort()
  const allowed = /^(README\.md|LICENSE|package\.json|index\.js|index\.d\.ts|scripts\/install\.mjs|hashline\.[a-z0-9-]+\.node|(opencode|lib|mcp|cli)\/[a-z-]+\.(mjs|d\.mts))$/
  t.deepEqual(paths.filter((p) => !allowed.test(p)), [])
  for (const needed of ["index.js", "index.d.ts", "scripts/install.mjs", "cli/hashline.mjs", "lib/tools.mjs", "lib/ai.mjs", "mcp/server.mjs", "opencode/plugin.mjs", "opencode/tool.mjs"]) {
    t.true(paths.includes(needed), needed)
  }
  for (const target of [PKG.exports["./tools"], PKG.exports["./ai"], PKG.exports["./mcp"]]) {
    t.true(paths.includes(target.types.slice(2)), target.types)
  }
  const local = fs.readdirSync(REPO).filter((f) => /^hashline\..+\.node$/.test(f))
  t.deepEqual(paths.filter((p) => p.endsWith(".node")), local.sort())
})

test("there is one per-platform package for each napi target, at the package's version", (t) => {
  const packages = platformPackages()
  t.deepEqual(packages.map((p) => p.dir).sort(), ["darwin-arm64", "darwin-x64", "linux-arm64-gnu", "linux-x64-gnu", "linux-x64-musl", "win32-x64-msvc"])
  t.is(PKG.napi.targets.length, packages.length)
  for (const p of packages) {
    t.is(p.name, `hashline-${p.dir}`)
    t.is(p.version, PKG.version)
    t.deepEqual(p.files, [`hashline.${p.dir}.node`])
    t.is(p.main, `hashline.${p.dir}.node`)
  }
})

test("CommonJS: require('hashline') reads and edits a file", (t) => {
  fs.writeFileSync(path.join(app, "cjs.txt"), "a\nb\n")
  const script = `
const { Hashline } = require("hashline")
const hl = new Hashline({ root: __dirname })
const view = hl.read("cjs.txt")
const ref = view.text.split("\\n").find((l) => l.endsWith("|b")).split("|")[0]
const result = hl.edit("cjs.txt", { operations: [{ op: "replace", ref, content: "B" }] })
console.log(JSON.stringify({ rev: view.rev, next: result.rev }))
`
  fs.writeFileSync(path.join(app, "use.cjs"), script)
  const out = JSON.parse(run(process.execPath, ["use.cjs"], { cwd: app, env }))
  t.regex(out.next, /^[0-9A-F]{8}$/)
  t.is(fs.readFileSync(path.join(app, "cjs.txt"), "utf8"), "a\nB\n")
})

const ESM_SCRIPT = `
import { Hashline, formatView } from "hashline"
import plugin from "hashline/server"
import { createTools } from "hashline/tools"
import { createServer } from "hashline/mcp"
import { createTools as createAiTools } from "hashline/ai"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.dirname(fileURLToPath(import.meta.url))
const file = process.argv[2]
const hooks = await plugin.server({ directory: root, worktree: root })
const tools = createTools({ root })
const view = await tools.read.execute({ filePath: file })
const ref = view.split("\\n").find((l) => l.endsWith("|two")).split("|")[0]
const edited = await tools.edit.execute({ filePath: file, operations: [{ op: "insert_after", ref, content: "three" }] })
console.log(JSON.stringify({
  id: plugin.id,
  editTool: typeof hooks.tool.edit.execute,
  view: formatView("x\\n").split("\\n")[1],
  engine: typeof new Hashline({ root }).read,
  mcp: typeof createServer({ root }).connect,
  ai: Object.keys(createAiTools({ root })).join(","),
  edited: edited.split("\\n")[0],
}))
`

test("ESM: named imports, the OpenCode plugin entry, the framework tools, the AI SDK tools and the MCP entry work from Node", (t) => {
  fs.writeFileSync(path.join(app, "esm.txt"), "one\ntwo\n")
  fs.writeFileSync(path.join(app, "use.mjs"), ESM_SCRIPT)
  const out = JSON.parse(run(process.execPath, ["use.mjs", "esm.txt"], { cwd: app, env }))
  t.like(out, { id: "hashline", editTool: "function", engine: "function", mcp: "function", ai: "read,edit,grep" })
  t.regex(out.view, /^1#[0-9A-F]{3}#[0-9A-F]{3}\|x$/)
  t.regex(out.edited, /^Applied 1 operation to esm\.txt/)
  t.is(fs.readFileSync(path.join(app, "esm.txt"), "utf8"), "one\ntwo\nthree\n")
})

test("Bun: the same ESM script runs, with the plugin entry and the native engine", (t) => {
  fs.writeFileSync(path.join(app, "bun.txt"), "one\ntwo\n")
  fs.writeFileSync(path.join(app, "use-bun.mjs"), ESM_SCRIPT)
  const out = JSON.parse(run(bunBinary(), ["use-bun.mjs", "bun.txt"], { cwd: app, env }))
  t.like(out, { id: "hashline", editTool: "function", engine: "function", mcp: "function" })
  t.is(fs.readFileSync(path.join(app, "bun.txt"), "utf8"), "one\ntwo\nthree\n")
})

test("TypeScript: code using the installed types type-checks with tsc, and misuse does not", (t) => {
  const good = `
import { Hashline, applyEdits, type EditResult, type ReadView } from "hashline"
import { createTools, type HashlineTool } from "hashline/tools"

const hl = new Hashline({ root: ".", storeDir: ".cache" })
const view: ReadView = hl.read("a.txt", { offset: 1, limit: 10 })
const lines: number = view.totalLines
const result: EditResult = hl.edit("a.txt", { rev: view.rev, operations: [{ op: "append", content: ["x", "y"] }] })
const text: string = applyEdits("a\\n", { operations: [{ op: "append", content: "b" }] }).text
const tool: HashlineTool = createTools({ root: "." }).edit
const output: Promise<string> = tool.execute({ filePath: "a.txt" })
export { lines, result, text, output }
`
  const commonjs = `
import hashline = require("hashline")
const rev: string = hashline.rev("a\\n")
export = rev
`
  const aiSdk = `
import { generateText, type LanguageModel } from "ai"
import { createTools } from "hashline/ai"

export const run = (model: LanguageModel) => generateText({ model, tools: createTools({ root: "." }), prompt: "x" })
`
  const bad = `
import { Hashline } from "hashline"
new Hashline({ root: 1 })
`
  const tsc = path.join(REPO, "node_modules", "typescript", "bin", "tsc")
  /**
   * @param {string} name
   * @param {Record<string, string>} files
   * @param {Record<string, unknown>} [extra] compiler options
   */
  const check = (name, files, extra = {}) => {
    const dir = path.join(app, name)
    fs.mkdirSync(dir, { recursive: true })
    for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text)
    const compilerOptions = { noEmit: true, strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", types: [], ...extra }
    fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: Object.keys(files) }))
    return spawnSync(process.execPath, [tsc, "-p", dir], { cwd: app, env: /** @type {NodeJS.ProcessEnv} */ (env), encoding: "utf8", timeout: 120_000 })
  }
  // The package's own declarations are checked too (no skipLibCheck).
  const passed = check("ts-good", { "good.mts": good, "commonjs.cts": commonjs })
  t.is(passed.status, 0, passed.stdout)
  // The AI SDK's declarations need Node's types, which this project lacks.
  const withAi = check("ts-ai", { "ai.mts": aiSdk }, { skipLibCheck: true })
  t.is(withAi.status, 0, withAi.stdout)
  const failed = check("ts-bad", { "bad.mts": bad })
  t.not(failed.status, 0)
  t.regex(failed.stdout, /bad\.mts\(3,/)
})

test("the installed bin runs: hashline read and edit from the shell", (t) => {
  fs.writeFileSync(path.join(app, "bin.txt"), "left\nright\n")
  const bin = path.join(app, "node_modules", ".bin", process.platform === "win32" ? "hashline.cmd" : "hashline")
  const binEnv = { ...env, HASHLINE_STORE: path.join(work, "store") }
  const view = run(bin, ["read", "bin.txt"], { cwd: app, env: binEnv })
  const ref = view.split("\n").find((l) => l.endsWith("|right"))?.split("|")[0]
  run(bin, ["edit", "bin.txt"], { cwd: app, env: binEnv, input: JSON.stringify([{ op: "replace", ref, content: "RIGHT" }]) })
  t.is(fs.readFileSync(path.join(app, "bin.txt"), "utf8"), "left\nRIGHT\n")
})
