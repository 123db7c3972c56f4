// @ts-check
// Runs the real OpenCode binary headless against the scripted server, in a
// throw-away project with its own XDG folders, so nothing from the machine's
// own OpenCode set-up leaks in and nothing needs the network.
import { spawn, spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

/**
 * Found by walking up the node_modules folders: some packages export no
 * `./package.json`, so `require.resolve` cannot name their folder.
 * @param {string} name
 * @param {string} [from]
 */
function packageDir(name, from = REPO_ROOT) {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name)
    if (fs.existsSync(path.join(candidate, "package.json"))) return candidate
    if (path.dirname(dir) === dir) throw new Error(`${name} is not installed; run npm install`)
  }
}

/** @param {string} file */
function works(file) {
  if (!fs.existsSync(file)) return false
  const probe = spawnSync(file, ["--version"], { encoding: "utf8", timeout: 30_000 })
  return probe.status === 0
}

/** @type {string | undefined} */
let cachedBinary

/**
 * The platform binary that `opencode-ai` ships as an optional dependency. Its
 * own launcher is only put in place by an install script, which a
 * scripts-free install skips, so look for the binary itself.
 */
export function opencodeBinary() {
  if (cachedBinary) return cachedBinary
  if (process.env.OPENCODE_BIN && works(process.env.OPENCODE_BIN)) return (cachedBinary = process.env.OPENCODE_BIN)
  const wrapper = packageDir("opencode-ai")
  const platform = process.platform === "win32" ? "windows" : process.platform
  const exe = process.platform === "win32" ? "opencode.exe" : "opencode"
  const base = `opencode-${platform}-${process.arch}`
  const candidates = [base, `${base}-baseline`, `${base}-musl`, `${base}-baseline-musl`]
  for (const name of candidates) {
    let dir
    try {
      dir = packageDir(name, wrapper)
    } catch {
      continue
    }
    const file = path.join(dir, "bin", exe)
    if (works(file)) return (cachedBinary = file)
  }
  const launcher = path.join(wrapper, "bin", "opencode.exe")
  if (works(launcher)) return (cachedBinary = launcher)
  throw new Error(`no working OpenCode binary found (tried ${candidates.join(", ")} and ${launcher})`)
}

export function pluginVersion() {
  return JSON.parse(fs.readFileSync(path.join(packageDir("@opencode-ai/plugin"), "package.json"), "utf8")).version
}

/**
 * OpenCode adds `@opencode-ai/plugin` to every config folder and installs it
 * unless a `node_modules/` is there and the lock lists every dependency; with
 * no network that install would hang the run, so the folder is made ready.
 * @param {string} dir
 */
function prepareConfigFolder(dir) {
  const version = pluginVersion()
  fs.mkdirSync(path.join(dir, "node_modules", "@opencode-ai"), { recursive: true })
  const link = path.join(dir, "node_modules", "@opencode-ai", "plugin")
  if (!fs.existsSync(link)) fs.symlinkSync(packageDir("@opencode-ai/plugin"), link, "dir")
  const deps = { "@opencode-ai/plugin": version }
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ dependencies: deps }, null, 2) + "\n")
  fs.writeFileSync(
    path.join(dir, "package-lock.json"),
    JSON.stringify(
      {
        lockfileVersion: 3,
        requires: true,
        packages: { "": { dependencies: deps }, "node_modules/@opencode-ai/plugin": { version } },
      },
      null,
      2,
    ) + "\n",
  )
  fs.writeFileSync(path.join(dir, ".gitignore"), "node_modules\npackage.json\npackage-lock.json\n")
}

/**
 * @typedef {{
 *   files?: Record<string, string | Buffer>,
 *   hashline?: boolean,
 *   hashlineDir?: string,
 *   npmPlugin?: boolean,
 *   git?: boolean,
 * }} ProjectOptions
 */

/**
 * A temporary folder holding `project/` (the session's working tree) and
 * `home/` (HOME and the XDG folders).
 * @param {ProjectOptions} [options]
 */
export function makeProject(options = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "hashline-e2e-"))
  const project = path.join(root, "project")
  const home = path.join(root, "home")
  fs.mkdirSync(project, { recursive: true })
  for (const sub of ["config", "data", "cache", "state"]) fs.mkdirSync(path.join(home, sub), { recursive: true })
  prepareConfigFolder(path.join(home, "config", "opencode"))

  for (const [name, content] of Object.entries(options.files ?? {})) {
    const file = path.join(project, name)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, content)
  }

  const dotdir = path.join(project, ".opencode")
  fs.mkdirSync(dotdir, { recursive: true })
  prepareConfigFolder(dotdir)
  if (options.hashline !== false) {
    // The repository's own thin files, exactly as committed, reaching the JS
    // layer through an `opencode/` folder beside them as they do in the repo.
    for (const sub of ["tools", "plugins"]) {
      fs.cpSync(path.join(REPO_ROOT, ".opencode", sub), path.join(dotdir, sub), { recursive: true })
    }
    fs.symlinkSync(options.hashlineDir ?? path.join(REPO_ROOT, "opencode"), path.join(project, "opencode"), "dir")
  }

  if (options.npmPlugin) installAsNpmPlugin(home)

  if (options.git !== false) {
    const git = (/** @type {string[]} */ ...args) => {
      const r = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", ...args], {
        cwd: project,
        encoding: "utf8",
      })
      if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`)
    }
    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "start", "--allow-empty")
  }

  return {
    root,
    project,
    home,
    /** @param {string} name */
    file: (name) => path.join(project, name),
    /** @param {string} name */
    read: (name) => fs.readFileSync(path.join(project, name)),
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  }
}

/**
 * Puts this package where OpenCode keeps the npm plugins it installed, as a
 * published copy would be (plain files, dependencies beside it), so that
 * `"plugin": ["<name>"]` loads it without the network.
 * @param {string} home
 */
function installAsNpmPlugin(home) {
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8"))
  const modules = path.join(home, "cache", "opencode", "packages", `${manifest.name}@latest`, "node_modules")
  const target = path.join(modules, manifest.name)
  fs.mkdirSync(path.join(target, "opencode"), { recursive: true })
  for (const name of fs.readdirSync(REPO_ROOT)) {
    if (name === "package.json" || name === "index.js" || name === "index.d.ts" || name.endsWith(".node")) {
      fs.copyFileSync(path.join(REPO_ROOT, name), path.join(target, name))
    }
  }
  for (const folder of ["opencode", "lib"]) {
    fs.mkdirSync(path.join(target, folder), { recursive: true })
    for (const name of fs.readdirSync(path.join(REPO_ROOT, folder))) {
      if (/\.(mjs|mts|cjs)$/.test(name)) fs.copyFileSync(path.join(REPO_ROOT, folder, name), path.join(target, folder, name))
    }
  }
  for (const dep of Object.keys(manifest.dependencies ?? {})) {
    fs.mkdirSync(path.dirname(path.join(modules, dep)), { recursive: true })
    fs.symlinkSync(packageDir(dep), path.join(modules, dep), "dir")
  }
  return manifest.name
}

/**
 * @param {string} baseURL
 * @param {Record<string, unknown>} [permission]
 * @param {{ model?: string, formatter?: unknown }} [options] the model's id (OpenCode picks its edit tool by it) and the formatter setting
 */
export function opencodeConfig(baseURL, permission = {}, options = {}) {
  const model = options.model ?? "m"
  return {
    model: `p/${model}`,
    small_model: `p/${model}`,
    enabled_providers: ["p"],
    autoupdate: false,
    share: "disabled",
    formatter: options.formatter ?? false,
    lsp: false,
    provider: {
      p: {
        npm: "@ai-sdk/openai-compatible",
        name: "Scripted",
        options: { baseURL, apiKey: "x" },
        models: { [model]: { name: model, tool_call: true, limit: { context: 200000, output: 8192 } } },
      },
    },
    permission: { edit: "allow", bash: "deny", webfetch: "deny", ...permission },
  }
}

/**
 * @typedef {{ code: number | null, signal: string | null, timedOut: boolean, stdout: string, stderr: string, events: any[], ms: number }} RunResult
 */

/**
 * Runs `opencode run` once and collects its JSON events.
 * @param {{ project: string, home: string }} where
 * @param {{ prompt: string, config: Record<string, unknown>, timeoutMs?: number, args?: string[], env?: Record<string, string>, model?: string }} run
 * @returns {Promise<RunResult>}
 */
export function runOpencode(where, run) {
  const home = where.home
  /** @type {NodeJS.ProcessEnv} */
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    USERPROFILE: home,
    TMPDIR: os.tmpdir(),
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    XDG_CONFIG_HOME: path.join(home, "config"),
    XDG_DATA_HOME: path.join(home, "data"),
    XDG_CACHE_HOME: path.join(home, "cache"),
    XDG_STATE_HOME: path.join(home, "state"),
    OPENCODE_CONFIG_CONTENT: JSON.stringify(run.config),
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    OPENCODE_DISABLE_CLAUDE_CODE: "1",
    OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
    npm_config_offline: "true",
    ...run.env,
  }
  const args = ["run", "--format", "json", ...(run.args ?? []), "-m", `p/${run.model ?? "m"}`, run.prompt]
  if (process.env.HASHLINE_E2E_LOGS) args.splice(1, 0, "--print-logs", "--log-level", "DEBUG")
  const started = Date.now()
  return new Promise((resolve) => {
    const child = spawn(opencodeBinary(), args, {
      cwd: where.project,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: process.platform !== "win32",
    })
    let stdout = ""
    let stderr = ""
    let timedOut = false
    child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d))
    const kill = () => {
      try {
        if (child.pid && process.platform !== "win32") process.kill(-child.pid, "SIGKILL")
        else child.kill("SIGKILL")
      } catch {
        // already gone
      }
    }
    const timer = setTimeout(() => {
      timedOut = true
      kill()
    }, run.timeoutMs ?? 90_000)
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      // The binary may leave helpers behind in its process group.
      kill()
      const events = []
      for (const line of stdout.split("\n")) {
        const trimmed = line.trim()
        if (!trimmed.startsWith("{")) continue
        try {
          events.push(JSON.parse(trimmed))
        } catch {
          // not an event line
        }
      }
      resolve({ code, signal, timedOut, stdout, stderr, events, ms: Date.now() - started })
    })
  })
}

/**
 * The finished tool calls among the events, in order.
 * @param {any[]} events
 */
export function toolParts(events) {
  return events.filter((e) => e?.type === "tool_use").map((e) => e.part)
}
