// @ts-check
// What a clone needs besides its npm packages, and where it keeps it: the
// command-line tools of scripts/tools.txt, installed from PyPI into a virtual
// environment under target/tools, with nothing installed outside the clone
// and no root needed. `npm install` (scripts/install.mjs) provisions them;
// `npm test` (scripts/test.mjs) and the suites put them first on the PATH.
import { spawn, spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { RUST_TARGETS } from "./release.mjs"

export const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..")
const WINDOWS = process.platform === "win32"
export const TOOLS = path.join(ROOT, "target", "tools")
export const VENV = path.join(TOOLS, "venv")
/** The folder of the tools' commands, which goes first on the PATH. */
export const TOOLS_BIN = path.join(VENV, WINDOWS ? "Scripts" : "bin")
export const VENV_PYTHON = path.join(TOOLS_BIN, WINDOWS ? "python.exe" : "python")
const REQUIREMENTS = path.join(ROOT, "scripts", "tools.txt")
/** What the venv was last provisioned with: when it equals tools.txt, nothing is installed. */
const STAMP = path.join(VENV, "hashline-tools.txt")
/** Debian and Ubuntu ship `ensurepip` apart from Python (python3-venv, a root install); virtualenv brings its own pip. */
const VIRTUALENV = "virtualenv==21.15.11"
/** The oldest Python that the pinned tools support (mcp needs 3.10). */
const PYTHON_FLOOR = [3, 10]

/**
 * An environment with the tools first on the PATH.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {NodeJS.ProcessEnv}
 */
export function toolsEnv(env = process.env) {
  const key = Object.keys(env).find((k) => k.toUpperCase() === "PATH") ?? "PATH"
  return { ...env, [key]: [TOOLS_BIN, env[key]].filter(Boolean).join(path.delimiter) }
}

/**
 * @param {string} command
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} [env]
 */
function probe(command, args, env = process.env) {
  const result = spawnSync(command, args, { encoding: "utf8", env, timeout: 60_000 })
  return { ok: result.status === 0, out: `${result.stdout ?? ""}${result.stderr ?? ""}`.trim() }
}

/** The Python to build the venv with: `python3`, else `python` if it is Python 3. */
function findPython() {
  for (const name of WINDOWS ? ["python", "python3"] : ["python3", "python"]) {
    const version = probe(name, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"])
    if (version.ok && /^3\./.test(version.out)) return { name, version: version.out }
  }
  return undefined
}

/**
 * What is missing for `npm install` in a clone, each with how to get it,
 * found before anything long starts. Empty when all is there.
 * @param {{ python?: boolean }} [need] whether the tools' Python is needed (it is not when they are already provisioned)
 */
export function missingPrerequisites(need = { python: true }) {
  const missing = []
  if (!probe("cargo", ["--version"]).ok) {
    missing.push("cargo (Rust), which builds the native addon: install Rust with rustup (https://rustup.rs), then open a new shell")
  }
  if (!WINDOWS && !probe("cc", ["--version"]).ok) {
    missing.push("a C compiler and linker as cc (Rust links with it; the grammars are C): on Debian or Ubuntu apt install gcc, on macOS xcode-select --install")
  }
  if (need.python) {
    const python = findPython()
    if (!python) {
      missing.push(`Python ${PYTHON_FLOOR.join(".")} or later as python3, for the test tools from PyPI: your system's python3 package, or https://www.python.org/downloads/`)
    } else {
      const [major, minor] = python.version.split(".").map(Number)
      if (major === PYTHON_FLOOR[0] && minor < PYTHON_FLOOR[1]) {
        missing.push(`Python ${PYTHON_FLOOR.join(".")} or later (${python.name} is ${python.version}), for the test tools from PyPI: a newer python3 from your system or https://www.python.org/downloads/`)
      } else if (!probe(python.name, ["-c", "import venv, ensurepip"]).ok && !probe(python.name, ["-m", "pip", "--version"]).ok) {
        missing.push(`pip for ${python.name} (it has neither pip nor ensurepip, so no virtual environment can be made): on Debian or Ubuntu apt install python3-pip, elsewhere ${python.name} -m ensurepip --user`)
      }
    }
  }
  return missing
}

/** Whether the venv holds exactly what tools.txt pins. */
export function toolsReady() {
  try {
    return fs.readFileSync(STAMP, "utf8") === fs.readFileSync(REQUIREMENTS, "utf8") && probe(VENV_PYTHON, ["--version"]).ok
  } catch {
    return false
  }
}

/**
 * @param {string} command
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} [env]
 */
function run(command, args, env = process.env) {
  // pip warns at length when root installs into a folder of its own.
  const result = spawnSync(command, args, { stdio: ["ignore", "inherit", "inherit"], env: { PIP_ROOT_USER_ACTION: "ignore", ...env } })
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${result.error?.message ?? result.status ?? result.signal})`)
}

/**
 * Makes the venv and installs tools.txt into it, unless it already holds
 * exactly that. Returns whether anything was installed.
 */
export function provisionTools() {
  if (toolsReady()) return false
  const python = findPython()
  if (!python) throw new Error("no Python 3 found")
  fs.rmSync(VENV, { recursive: true, force: true })
  fs.mkdirSync(TOOLS, { recursive: true })
  const quiet = ["--disable-pip-version-check", "--no-input", "--quiet"]
  if (probe(python.name, ["-c", "import venv, ensurepip"]).ok) {
    run(python.name, ["-m", "venv", VENV])
  } else {
    const helper = path.join(TOOLS, "virtualenv")
    run(python.name, ["-m", "pip", "install", ...quiet, "--upgrade", "--target", helper, VIRTUALENV])
    run(python.name, ["-m", "virtualenv", "--quiet", VENV], { ...process.env, PYTHONPATH: helper })
    fs.rmSync(helper, { recursive: true, force: true })
  }
  run(VENV_PYTHON, ["-m", "pip", "install", ...quiet, "--require-virtualenv", "--only-binary", ":all:", "-r", REQUIREMENTS])
  fs.copyFileSync(REQUIREMENTS, STAMP)
  return true
}

/**
 * Hosts the tests drive that cannot be in package-lock.json: Qwen Code lists
 * optional platform packages (`@teddyzhu/clipboard-*` for macOS, Windows and
 * arm64) that the registry does not have, so no lock of it is complete and
 * `npm ci` refuses one that leaves them out. They are installed as a user
 * installs them, `npm install` of the pinned version, which skips an
 * optional package the registry lacks, into target/hosts/<folder>.
 */
export const UNLOCKED_HOSTS = [{ name: "@qwen-code/qwen-code", version: "0.24.4", folder: "qwen-code" }]
export const HOSTS_DIR = path.join(ROOT, "target", "hosts")

/**
 * Where an unlocked host's package is installed.
 * @param {string} name
 */
export function unlockedHost(name) {
  const host = UNLOCKED_HOSTS.find((h) => h.name === name)
  if (!host) throw new Error(`${name} is not one of the unlocked hosts`)
  return { ...host, dir: path.join(HOSTS_DIR, host.folder, "node_modules", ...name.split("/")) }
}

/**
 * Installs every unlocked host whose folder does not hold its pinned
 * version. Returns the hosts installed.
 */
export function provisionHosts() {
  const installed = []
  for (const { name, version, folder } of UNLOCKED_HOSTS) {
    const manifest = path.join(unlockedHost(name).dir, "package.json")
    if (fs.existsSync(manifest) && JSON.parse(fs.readFileSync(manifest, "utf8")).version === version) continue
    const prefix = path.join(HOSTS_DIR, folder)
    fs.rmSync(prefix, { recursive: true, force: true })
    fs.mkdirSync(prefix, { recursive: true })
    // npm's lifecycle hands its own settings down as npm_config_*; this install is one of its own.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith("npm_config_")))
    const npm = WINDOWS ? "npm.cmd" : "npm"
    run(npm, ["install", "--prefix", prefix, "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", `${name}@${version}`], env)
    installed.push(`${name}@${version}`)
  }
  return installed
}

/** napi's name for this machine, as in the package `hashline-<name>`. */
export function platformName() {
  const report = /** @type {any} */ (process.report?.getReport())
  if (process.platform === "linux") return `linux-${process.arch}-${report?.header?.glibcVersionRuntime ? "gnu" : "musl"}`
  if (process.platform === "win32") return `win32-${process.arch}-msvc`
  return `${process.platform}-${process.arch}`
}

/**
 * The newest change to what the addon is built from: the Rust sources and
 * manifests of the binding and the engine.
 */
function sourcesChanged() {
  let newest = 0
  /** @param {string} file */
  const see = (file) => {
    const stat = fs.statSync(file)
    if (stat.isDirectory()) for (const name of fs.readdirSync(file)) see(path.join(file, name))
    else newest = Math.max(newest, stat.mtimeMs)
  }
  for (const entry of ["Cargo.toml", "Cargo.lock", "build.rs", "src", "crates"]) see(path.join(ROOT, entry))
  return newest
}

/**
 * Builds this machine's release binary the way the release workflow does
 * (scripts/release.mjs build: on Linux through zig, against glibc 2.17) and
 * puts a copy where the loader looks first, so that the clone, its tests and
 * the package suite all use the one binary users get. A machine with no
 * prebuilt platform gets a plain release build.
 * @returns {number} the exit status
 */
export function buildRelease() {
  const platform = platformName()
  const env = toolsEnv()
  if (!(platform in RUST_TARGETS)) {
    const napi = path.join(ROOT, "node_modules", "@napi-rs", "cli", "dist", "cli.js")
    return spawnSync(process.execPath, [napi, "build", "--platform", "--release"], { cwd: ROOT, env, stdio: "inherit" }).status ?? 1
  }
  const binary = `hashline.${platform}.node`
  const packaged = path.join(ROOT, "npm", platform, binary)
  // napi hands cargo a changed environment on a second build, which makes
  // cargo link the whole program again (minutes, with LTO) although nothing
  // changed: so a binary newer than every source is kept as it is.
  const current = fs.existsSync(packaged) && fs.statSync(packaged).mtimeMs > sourcesChanged()
  if (current) console.log(`release: npm/${platform}/${binary} is newer than every Rust source, kept as it is`)
  else {
    const built = spawnSync(process.execPath, [path.join(ROOT, "scripts", "release.mjs"), "build", platform], { cwd: ROOT, env, stdio: "inherit" })
    if (built.status !== 0) return built.status ?? 1
  }
  fs.copyFileSync(packaged, path.join(ROOT, binary))
  return 0
}

/**
 * Builds the engine's and the binding's test programs (`cargo test
 * --no-run`, the debug profile) in the background, with cargo's output kept
 * in target/test-build.log, so that `npm test` only runs them. `npm install`
 * starts it beside the release build, which leaves one of two cores idle for
 * most of its time: the grammars, the engine and then the link with LTO are
 * one job each.
 * @returns {{ done: Promise<{ status: number, log: string }>, stop: () => void }}
 */
export function startTestBuild() {
  const log = path.join(ROOT, "target", "test-build.log")
  fs.mkdirSync(path.dirname(log), { recursive: true })
  const out = fs.openSync(log, "w")
  const child = spawn("cargo", ["test", "--workspace", "--no-run", "--color", "never"], { cwd: ROOT, env: toolsEnv(), stdio: ["ignore", out, out] })
  fs.closeSync(out)
  const done = new Promise((resolve) => {
    child.once("error", (err) => {
      fs.appendFileSync(log, `${err.message}\n`)
      resolve({ status: 1, log })
    })
    child.once("close", (code) => resolve({ status: code ?? 1, log }))
  })
  return { done, stop: () => child.kill() }
}
