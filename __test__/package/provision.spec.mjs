// @ts-check
// A clone's `npm install` on a fresh machine, with no tool of its own yet:
// what it says when the machine lacks Rust or Python, and that its
// provisioning, run in an empty HOME into a clone with no target/tools,
// installs every tool the tests use inside the clone and nothing outside it.
// The copy holds the clone's scripts; pip's download cache is reused, so the
// wheels are not fetched again when they are there.
import test from "ava"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const WINDOWS = process.platform === "win32"

/**
 * A clone with the scripts and no tools, and an empty home.
 * @param {import("ava").ExecutionContext} t
 */
function freshClone(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hashline-fresh-"))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const clone = path.join(dir, "clone")
  fs.cpSync(path.join(REPO, "scripts"), path.join(clone, "scripts"), { recursive: true })
  // The install step checks that the build's CLI is installed before anything else.
  fs.mkdirSync(path.join(clone, "node_modules", "@napi-rs", "cli"), { recursive: true })
  const home = path.join(dir, "home")
  fs.mkdirSync(home)
  return { dir, clone, home }
}

/**
 * The environment of a user with nothing set up: an empty HOME, no
 * virtual environment, no pip or npm settings of this process.
 * @param {string} home
 * @param {string} PATH
 */
function freshEnv(home, PATH) {
  /** @type {NodeJS.ProcessEnv} */
  const env = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|PIP_|VIRTUAL_ENV|PYTHON|CARGO_TARGET_DIR)/i.test(key)) env[key] = value
  }
  return { ...env, HOME: home, USERPROFILE: home, XDG_CACHE_HOME: path.join(home, ".cache"), XDG_CONFIG_HOME: path.join(home, ".config"), PATH }
}

test("a machine without cargo or Python: npm install says so first, naming each with how to get it", (t) => {
  t.timeout(300_000)
  const { dir, clone, home } = freshClone(t)
  // A PATH holding only node.
  const bin = path.join(dir, "bin")
  fs.mkdirSync(bin)
  fs.symlinkSync(process.execPath, path.join(bin, WINDOWS ? "node.exe" : "node"))
  const out = spawnSync(process.execPath, [path.join(clone, "scripts", "install.mjs")], { cwd: clone, env: freshEnv(home, bin), encoding: "utf8", timeout: 120_000 })
  t.is(out.status, 1, out.stderr)
  t.is(out.stdout, "")
  const lines = out.stderr.trimEnd().split("\n")
  t.is(lines[0], "hashline: npm install in a clone needs what this machine lacks:")
  t.regex(out.stderr, /^ {2}- cargo \(Rust\), which builds the native addon: install Rust with rustup \(https:\/\/rustup\.rs\)/m)
  t.regex(out.stderr, /^ {2}- Python 3\.10 or later as python3, for the test tools from PyPI: /m)
  t.false(fs.existsSync(path.join(clone, "target")), "nothing was started")
})

const python = spawnSync(WINDOWS ? "python" : "python3", ["-m", "pip", "cache", "dir"], { encoding: "utf8" })
const pipCache = python.status === 0 ? python.stdout.trim() : undefined

test("npm install's provisioning in an empty HOME with no tools in the clone installs every tool the tests use, inside the clone", (t) => {
  t.timeout(1_200_000)
  const { clone, home } = freshClone(t)
  // Rust is a prerequisite, installed by rustup under the real home.
  const rust = { RUSTUP_HOME: process.env.RUSTUP_HOME ?? path.join(os.homedir(), ".rustup"), CARGO_HOME: process.env.CARGO_HOME ?? path.join(os.homedir(), ".cargo") }
  const env = { ...freshEnv(home, process.env.PATH ?? ""), ...rust, ...(pipCache ? { PIP_CACHE_DIR: pipCache } : {}) }
  const script = `
    import("./scripts/tools.mjs").then((tools) => {
      const missing = tools.missingPrerequisites()
      if (missing.length > 0) throw new Error(missing.join("; "))
      const started = Date.now()
      tools.provisionTools()
      console.log(JSON.stringify({ seconds: (Date.now() - started) / 1000, ready: tools.toolsReady(), bin: tools.TOOLS_BIN }))
    })`
  const out = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: clone, env, encoding: "utf8", timeout: 1_100_000, maxBuffer: 64 << 20 })
  t.is(out.status, 0, `${out.stdout}${out.stderr}`)
  const result = JSON.parse(out.stdout.trim().split("\n").pop() ?? "{}")
  t.log(`provisioned in ${result.seconds} s${pipCache ? ` (pip cache ${pipCache})` : ""}`)
  t.true(result.ready)
  t.is(result.bin, path.join(clone, "target", "tools", "venv", WINDOWS ? "Scripts" : "bin"))

  const exe = (/** @type {string} */ name) => path.join(result.bin, WINDOWS ? `${name}.exe` : name)
  /** @type {Record<string, string>} */
  const versions = {}
  for (const [name, args] of /** @type {Array<[string, string[]]>} */ ([
    ["cargo-zigbuild", ["--version"]],
    ["jactionlint", ["--version"]],
    ["shellcheck", ["--version"]],
    ["ruff", ["--version"]],
    ["rg", ["--version"]],
    ["python", ["-m", "ziglang", "version"]],
    ["python", ["-c", "import mcp.client.stdio; print('mcp')"]],
    ["python", ["-c", "import nbformat; print(nbformat.__version__)"]],
  ])) {
    const run = spawnSync(exe(name), args, { env, encoding: "utf8", timeout: 60_000 })
    t.is(run.status, 0, `${name} ${args.join(" ")}: ${run.stderr}${run.error ?? ""}`)
    versions[`${name} ${args.join(" ")}`] = (run.stdout.split("\n").find((l) => /\d/.test(l)) ?? run.stdout).trim()
  }
  t.log(JSON.stringify(versions, null, 1))
  t.deepEqual(fs.readdirSync(home), [], "nothing was written to the home folder")
})
