// @ts-check
// The formatters OpenCode 1.18 runs after its own tools write a file
// (`format/formatter.ts`, `format/index.ts`): none unless the config's
// `formatter` is `true` or an object; then every built-in whose rule holds
// for the project, with the config's entries overriding, adding or
// disabling them; each one whose extensions include the file's runs on it,
// in order. Each runs as a process of its own (no shell: the file's name is
// one argument, as it is), is stopped with everything it started when it
// runs past its time or the tool call is aborted, and the engine takes in
// what it made of the file, so refs stay exact.
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import fs from "node:fs"
import path from "node:path"
import { AFTER_WRITE } from "../lib/texts.cjs"

/**
 * @typedef {import("./types.mjs").HashlineInstance} HashlineInstance
 * @typedef {import("./types.mjs").EditResult} EditResult
 * @typedef {{ directory: string, worktree: string, timeoutMs: number, signal?: AbortSignal }} Context
 * @typedef {string[] | false | { missing: string, why: string }} Enabled a command with `$FILE`, not enabled, or enabled but not installed
 * @typedef {{ name: string, extensions: string[], environment?: Record<string, string>, command?: string[], enabled: (ctx: Context) => Promise<Enabled> }} Formatter
 * @typedef {{ formatter?: unknown }} Config
 * @typedef {{ name: string, status: "formatted" | "failed" | "missing" | "stopped", detail?: string }} Run
 * @typedef {{ config: () => Promise<Config>, directory: string, worktree: string, timeoutMs?: number }} FormatDeps
 * @typedef {{ exitCode: number | null, stdout: string, stderr: string, stopped?: "timeout" | "aborted", error?: Error }} Ran
 */

/**
 * How long a formatter may run before it is stopped, when the plugin's
 * `formatterTimeout` option (milliseconds) or HASHLINE_FORMATTER_TIMEOUT_MS
 * does not say: formatters take well under a second on one file, and a
 * tool call must not wait on one that hangs.
 */
export const DEFAULT_TIMEOUT_MS = 10_000

/**
 * The formatter time limit named by `value` (the plugin option), else by
 * HASHLINE_FORMATTER_TIMEOUT_MS; undefined when neither names one.
 * @param {unknown} [value]
 * @returns {number | undefined}
 */
export function formatterTimeoutOption(value) {
  const chosen = value ?? (process.env.HASHLINE_FORMATTER_TIMEOUT_MS || undefined)
  if (chosen === undefined) return undefined
  const ms = typeof chosen === "string" ? Number(chosen.trim()) : chosen
  if (typeof ms === "number" && Number.isInteger(ms) && ms > 0) return ms
  const err = new Error(`The formatter time limit must be a whole number of milliseconds above 0, not ${JSON.stringify(chosen)} (from ${value === undefined ? "HASHLINE_FORMATTER_TIMEOUT_MS" : "the formatterTimeout option"}).`)
  Object.assign(err, { code: "INVALID_REQUEST" })
  throw err
}

/**
 * An executable on the PATH.
 * @param {string} name
 */
export function which(name) {
  const exts = process.platform === "win32" ? (process.env.PATHEXT ?? ".EXE;.CMD").split(";") : [""]
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue
    for (const ext of exts) {
      const file = path.join(dir, name + ext)
      try {
        fs.accessSync(file, fs.constants.X_OK)
        if (fs.statSync(file).isFile()) return file
      } catch {
        // not here
      }
    }
  }
  return undefined
}

/**
 * `name` in `start` and each folder above it, up to `stop` (inclusive).
 * @param {string} name
 * @param {string} start
 * @param {string} stop
 */
function findUp(name, start, stop) {
  const found = []
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    const file = path.join(dir, name)
    if (fs.existsSync(file)) found.push(file)
    if (dir === path.resolve(stop) || path.dirname(dir) === dir) break
  }
  return found
}

/** @param {string} file */
function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"))
  } catch {
    return undefined
  }
}

/** @param {string} file */
function readText(file) {
  try {
    return fs.readFileSync(file, "utf8")
  } catch {
    return ""
  }
}

/**
 * The project's own copy of a package's command (node_modules/.bin from the
 * session folder up to the worktree), else one on the PATH. OpenCode
 * installs its own copy instead; a plugin uses the one the project pinned.
 * @param {string} bin
 * @param {Context} ctx
 */
function packageBin(bin, ctx) {
  const name = process.platform === "win32" ? `${bin}.cmd` : bin
  for (const dir of findUp(path.join("node_modules", ".bin"), ctx.directory, ctx.worktree)) {
    const file = path.join(dir, name)
    if (fs.existsSync(file)) return file
  }
  return which(bin)
}

/**
 * A formatter enabled whenever its command is on the PATH.
 * @param {string} name
 * @param {string[]} extensions
 * @param {string[]} args with `$FILE`
 * @param {string} [bin]
 * @returns {Formatter}
 */
function onPath(name, extensions, args, bin = name) {
  return {
    name,
    extensions,
    async enabled() {
      const found = which(bin)
      return found ? [found, ...args] : false
    },
  }
}

const WEB = [".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".html", ".htm", ".css", ".scss", ".sass", ".less", ".vue", ".svelte", ".json", ".jsonc", ".yaml", ".yml", ".toml", ".xml", ".md", ".mdx", ".graphql", ".gql"]
const RUBY = [".rb", ".rake", ".gemspec", ".ru"]

/**
 * Whether a package.json from the session folder up lists `dep`.
 * @param {string} dep
 * @param {Context} ctx
 */
function projectDepends(dep, ctx) {
  return findUp("package.json", ctx.directory, ctx.worktree).some((file) => {
    const manifest = readJson(file)
    return Boolean(manifest?.dependencies?.[dep] || manifest?.devDependencies?.[dep])
  })
}

/** @type {Formatter} */
const ruff = {
  name: "ruff",
  extensions: [".py", ".pyi"],
  async enabled(ctx) {
    const bin = which("ruff")
    if (!bin) return false
    const command = [bin, "format", "$FILE"]
    for (const name of ["pyproject.toml", "ruff.toml", ".ruff.toml"]) {
      const found = findUp(name, ctx.directory, ctx.worktree)
      if (found.length === 0) continue
      if (name !== "pyproject.toml" || readText(found[0]).includes("[tool.ruff]")) return command
    }
    for (const name of ["requirements.txt", "pyproject.toml", "Pipfile"]) {
      const found = findUp(name, ctx.directory, ctx.worktree)
      if (found.length > 0 && readText(found[0]).includes("ruff")) return command
    }
    return false
  },
}

/**
 * The built-ins, in the order OpenCode runs them.
 * @type {Formatter[]}
 */
export const BUILTIN = [
  onPath("zig", [".zig", ".zon"], ["fmt", "$FILE"]),
  {
    name: "uv",
    extensions: [".py", ".pyi"],
    async enabled(ctx) {
      if ((await ruff.enabled(ctx)) !== false) return false
      const bin = which("uv")
      if (!bin) return false
      const help = await run([bin, "format", "--help"], ctx)
      return help.exitCode === 0 ? [bin, "format", "--", "$FILE"] : false
    },
  },
  onPath("terraform", [".tf", ".tfvars"], ["fmt", "$FILE"]),
  onPath("standardrb", RUBY, ["--fix", "$FILE"]),
  onPath("shfmt", [".sh", ".bash"], ["-w", "$FILE"]),
  onPath("rustfmt", [".rs"], ["$FILE"]),
  ruff,
  onPath("rubocop", RUBY, ["--autocorrect", "$FILE"]),
  {
    name: "air",
    extensions: [".R"],
    async enabled(ctx) {
      const bin = which("air")
      if (!bin) return false
      const help = await run([bin, "--help"], ctx)
      const first = help.stdout.split("\n")[0]
      return help.exitCode === 0 && first.includes("R language") && first.includes("formatter") ? [bin, "format", "$FILE"] : false
    },
  },
  {
    name: "prettier",
    environment: { BUN_BE_BUN: "1" },
    extensions: WEB,
    async enabled(ctx) {
      if (!projectDepends("prettier", ctx)) return false
      const bin = packageBin("prettier", ctx)
      return bin ? [bin, "--write", "$FILE"] : { missing: "prettier", why: "the project's package.json lists prettier" }
    },
  },
  {
    name: "pint",
    extensions: [".php"],
    async enabled(ctx) {
      const uses = findUp("composer.json", ctx.directory, ctx.worktree).some((file) => {
        const manifest = readJson(file)
        return Boolean(manifest?.require?.["laravel/pint"] || manifest?.["require-dev"]?.["laravel/pint"])
      })
      return uses ? ["./vendor/bin/pint", "$FILE"] : false
    },
  },
  onPath("ormolu", [".hs"], ["-i", "$FILE"]),
  {
    name: "ocamlformat",
    extensions: [".ml", ".mli"],
    async enabled(ctx) {
      const bin = which("ocamlformat")
      return bin && findUp(".ocamlformat", ctx.directory, ctx.worktree).length > 0 ? [bin, "-i", "$FILE"] : false
    },
  },
  onPath("nixfmt", [".nix"], ["$FILE"]),
  onPath("mix", [".ex", ".exs", ".eex", ".heex", ".leex", ".neex", ".sface"], ["format", "$FILE"]),
  onPath("latexindent", [".tex"], ["-w", "-s", "$FILE"]),
  onPath("ktlint", [".kt", ".kts"], ["-F", "$FILE"]),
  onPath("htmlbeautifier", [".erb", ".html.erb"], ["$FILE"]),
  onPath("gofmt", [".go"], ["-w", "$FILE"]),
  onPath("gleam", [".gleam"], ["format", "$FILE"]),
  onPath("dfmt", [".d"], ["-i", "$FILE"]),
  onPath("dart", [".dart"], ["format", "$FILE"]),
  onPath("cljfmt", [".clj", ".cljs", ".cljc", ".edn"], ["fix", "--quiet", "$FILE"]),
  {
    name: "clang-format",
    extensions: [".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".h++", ".ino", ".C", ".H"],
    async enabled(ctx) {
      const bin = which("clang-format")
      return bin && findUp(".clang-format", ctx.directory, ctx.worktree).length > 0 ? [bin, "-i", "$FILE"] : false
    },
  },
  {
    name: "biome",
    environment: { BUN_BE_BUN: "1" },
    extensions: WEB,
    async enabled(ctx) {
      if (!["biome.json", "biome.jsonc"].some((name) => findUp(name, ctx.directory, ctx.worktree).length > 0)) return false
      const bin = packageBin("biome", ctx)
      return bin ? [bin, "format", "--write", "$FILE"] : { missing: "biome", why: "the project has a biome.json" }
    },
  },
]

/** @param {unknown} v @returns {v is Record<string, any>} */
const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * Objects merged key by key, anything else (arrays too) replaced.
 * @param {any} base
 * @param {any} over
 * @returns {any}
 */
function merge(base, over) {
  if (!isObject(base) || !isObject(over)) return over === undefined ? base : over
  const out = { ...base }
  for (const [key, value] of Object.entries(over)) out[key] = merge(base[key], value)
  return out
}

/**
 * The formatters a config turns on, in the order they run.
 * @param {Config | undefined} config
 * @returns {Formatter[]}
 */
export function configured(config) {
  const setting = config?.formatter
  if (!setting) return []
  /** @type {Map<string, Formatter>} */
  const all = new Map(BUILTIN.map((f) => [f.name, f]))
  if (!isObject(setting)) return [...all.values()]
  for (const [name, entry] of Object.entries(setting)) {
    if (!isObject(entry)) continue
    // OpenCode treats ruff and uv as one: disabling either disables both.
    if ((name === "ruff" || name === "uv") && (setting.ruff?.disabled || setting.uv?.disabled)) {
      all.delete("ruff")
      all.delete("uv")
      continue
    }
    if (entry.disabled) {
      all.delete(name)
      continue
    }
    const base = all.get(name) ?? BUILTIN.find((f) => f.name === name)
    const merged = merge(base ?? { extensions: [] }, entry)
    const command = Array.isArray(merged.command) ? merged.command.map(String) : undefined
    all.set(name, {
      ...merged,
      name,
      extensions: Array.isArray(merged.extensions) ? merged.extensions : [],
      enabled: base && !command ? base.enabled : async () => command ?? false,
    })
  }
  return [...all.values()]
}

/**
 * A command's arguments with `$FILE` filled in by the file's name as it is:
 * a function replacement, since a replacement string would read `$&`,
 * `` $` ``, `$'` and `$$` in the name as patterns.
 * @param {string[]} command
 * @param {string} file
 */
export function withFile(command, file) {
  return command.map((arg) => arg.replaceAll("$FILE", () => file))
}

/**
 * The environment variable that marks every process of one formatter run:
 * whatever it starts inherits it, wherever it goes (a process group or a
 * session of its own), so that stopping the run can find them all. A
 * build server's way of ending what a build left behind.
 */
const RUN_MARK = "HASHLINE_FORMATTER_RUN"

/**
 * The processes, other than this one, whose environment carries `mark`.
 * Linux only (from /proc); elsewhere the process group is what is found.
 * @param {string} mark
 * @returns {number[]}
 */
function marked(mark) {
  if (process.platform !== "linux") return []
  const needle = Buffer.from(`${RUN_MARK}=${mark}\0`)
  let entries
  try {
    entries = fs.readdirSync("/proc")
  } catch {
    return []
  }
  return entries
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .filter((entry) => {
      try {
        return fs.readFileSync(`/proc/${entry}/environ`).includes(needle)
      } catch {
        // Ended meanwhile, or another user's.
        return false
      }
    })
    .map(Number)
}

/** @param {number} pid */
function kill(pid) {
  try {
    process.kill(pid, "SIGKILL")
  } catch {
    // Ended already.
  }
}

/**
 * Ends a formatter run: its process, its process group (a formatter started
 * by a wrapper script goes with it), and every process carrying the run's
 * mark, found again until none is left (one could start another before it
 * was ended).
 * @param {import("node:child_process").ChildProcess} child
 * @param {string} mark
 */
function endRun(child, mark) {
  if (process.platform !== "win32" && child.pid) kill(-child.pid)
  child.kill("SIGKILL")
  for (let round = 0; round < 10; round++) {
    const left = marked(mark)
    if (left.length === 0) break
    left.forEach(kill)
  }
}

let runs = 0

/**
 * Runs a command (no shell: each argument is passed as it is) in the
 * session folder, its output collected, and waits until it has ended and
 * nothing it started holds its output open: a formatter still running
 * could write the file after the engine took it in. When it runs past
 * `ctx.timeoutMs` or `ctx.signal` aborts, it is stopped with everything it
 * started (`endRun`) and the call answers once its own process has ended,
 * without waiting on output a process it left behind may hold.
 * @param {string[]} command
 * @param {Context} ctx
 * @param {Record<string, string>} [extra] environment additions
 * @returns {Promise<Ran>}
 */
export function run(command, ctx, extra) {
  return new Promise((resolve) => {
    if (ctx.signal?.aborted) return resolve({ exitCode: null, stdout: "", stderr: "", stopped: "aborted" })
    const [bin, ...args] = command
    const mark = `${process.pid}-${++runs}-${randomUUID()}`
    /** @type {import("node:child_process").ChildProcess} */
    let child
    try {
      // Its own session and process group, away from the host's.
      child = spawn(bin, args, { cwd: ctx.directory, env: environment({ ...extra, [RUN_MARK]: mark }), stdio: ["ignore", "pipe", "pipe"], detached: process.platform !== "win32", windowsHide: true })
    } catch (err) {
      return resolve({ exitCode: null, stdout: "", stderr: "", error: /** @type {Error} */ (err) })
    }
    const out = { stdout: "", stderr: "" }
    const keep = (/** @type {"stdout" | "stderr"} */ which) => (/** @type {Buffer} */ chunk) => {
      if (out[which].length < 64 * 1024) out[which] += chunk.toString()
    }
    child.stdout?.on("data", keep("stdout"))
    child.stderr?.on("data", keep("stderr"))
    /** @type {"timeout" | "aborted" | undefined} */
    let stopped
    /** @type {number | null | undefined} the exit code, once its own process has ended */
    let exited
    /** @type {Error | undefined} */
    let error
    let done = false
    const finish = (/** @type {number | null} */ exitCode) => {
      if (done) return
      done = true
      clearTimeout(timer)
      ctx.signal?.removeEventListener("abort", onAbort)
      child.stdout?.destroy()
      child.stderr?.destroy()
      resolve({ exitCode, ...out, stopped, error })
    }
    const stop = (/** @type {"timeout" | "aborted"} */ why) => {
      if (stopped || done) return
      stopped = why
      endRun(child, mark)
      if (exited !== undefined) finish(exited)
    }
    const timer = setTimeout(() => stop("timeout"), ctx.timeoutMs)
    const onAbort = () => stop("aborted")
    ctx.signal?.addEventListener("abort", onAbort, { once: true })
    child.once("error", (err) => {
      error = err
    })
    child.once("exit", (code) => {
      exited = code
      if (stopped) finish(code)
    })
    child.once("close", (code) => finish(code))
  })
}

/**
 * Runs every formatter the config enables for `file`, one after the other.
 * A formatter that fails or is missing is reported; one that runs past its
 * time is stopped and reported. The file is left as they made it.
 * @param {string} file absolute
 * @param {Config | undefined} config
 * @param {Context} ctx
 * @returns {Promise<Run[]>}
 */
export async function runFormatters(file, config, ctx) {
  const ext = path.extname(file)
  /** @type {Run[]} */
  const runs = []
  for (const formatter of configured(config)) {
    if (!formatter.extensions.includes(ext)) continue
    if (ctx.signal?.aborted) break
    const enabled = await formatter.enabled(ctx)
    if (enabled === false) continue
    if (!Array.isArray(enabled)) {
      runs.push({ name: formatter.name, status: "missing", detail: `${enabled.why}, but no ${enabled.missing} command was found in node_modules/.bin or on the PATH` })
      continue
    }
    const out = await run(withFile(enabled, file), ctx, formatter.environment)
    if (out.stopped) runs.push({ name: formatter.name, status: "stopped", detail: out.stopped === "timeout" ? `it did not finish within ${seconds(ctx.timeoutMs)}` : "the tool call was aborted" })
    else if (out.error) runs.push({ name: formatter.name, status: "failed", detail: out.error.message.split("\n")[0] })
    else if (out.exitCode === 0) runs.push({ name: formatter.name, status: "formatted" })
    else runs.push({ name: formatter.name, status: "failed", detail: `exit code ${out.exitCode}${firstLines(out.stderr)}` })
  }
  return runs
}

/** @param {number} ms */
function seconds(ms) {
  const s = ms / 1000
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`
}

/**
 * The process's environment with a formatter's additions.
 * @param {Record<string, string> | undefined} extra
 * @returns {Record<string, string>}
 */
function environment(extra) {
  /** @type {Record<string, string>} */
  const env = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value
  return { ...env, ...extra }
}

/** @param {string} text */
function firstLines(text) {
  const lines = text.trim().split("\n").slice(0, 3).join(" / ")
  return lines ? `: ${lines.length > 300 ? `${lines.slice(0, 300)}…` : lines}` : ""
}

/**
 * What the model is told about the formatters that ran. `changed` says
 * whether the file differs from what the edit wrote.
 * @param {Run[]} runs
 * @param {string} shown the file as the model names it
 * @param {boolean} [changed]
 */
export function describeRuns(runs, shown, changed = false) {
  return runs
    .filter((r) => r.status !== "formatted")
    .map((r) => {
      const detail = r.detail ?? ""
      if (r.status === "missing") return AFTER_WRITE.missing(shown, r.name, detail)
      if (r.status === "stopped") return AFTER_WRITE.stopped(shown, r.name, detail, changed)
      return AFTER_WRITE.failed(shown, r.name, detail)
    })
}

/**
 * After a write: runs the formatters OpenCode would run on the file and,
 * when they changed it, has the engine take in the new text as a child of
 * the version written. Returns the result to show instead (with the refs of
 * the formatted file) and notes on formatters that failed, are missing or
 * were stopped. `signal` (the tool call's) stops a formatter at once.
 * @param {HashlineInstance} engine
 * @param {{ file: string, shown: string, rev: string, previousRev?: string, headline: string, allowOutsideRoot: boolean }} written
 * @param {FormatDeps | undefined} deps
 * @param {AbortSignal} [signal]
 * @returns {Promise<{ result?: EditResult, runs: Run[], notes: string[] }>}
 */
export async function formatWritten(engine, written, deps, signal) {
  if (!deps) return { runs: [], notes: [] }
  const ctx = { directory: deps.directory, worktree: deps.worktree, timeoutMs: deps.timeoutMs ?? DEFAULT_TIMEOUT_MS, signal }
  const runs = await runFormatters(written.file, await deps.config(), ctx)
  if (!runs.some((r) => r.status !== "missing")) return { runs, notes: describeRuns(runs, written.shown) }
  const headline = AFTER_WRITE.formatted(written.headline, runs.filter((r) => r.status === "formatted").map((r) => r.name))
  try {
    const result = await engine.reformattedAsync(written.file, written.rev, {
      since: written.previousRev,
      headline,
      allowOutsideRoot: written.allowOutsideRoot,
    })
    return { result: result ?? undefined, runs, notes: describeRuns(runs, written.shown, Boolean(result)) }
  } catch (err) {
    const why = err instanceof Error ? err.message.split("\n")[0] : String(err)
    const notes = describeRuns(runs, written.shown, true)
    notes.push(AFTER_WRITE.unreadable(written.shown, why))
    return { runs, notes }
  }
}

/**
 * Reads the OpenCode config through the plugin's client once, on first use.
 * @param {any} client
 * @returns {() => Promise<Config>}
 */
export function configFrom(client) {
  /** @type {Promise<Config> | undefined} */
  let loaded
  return () =>
    (loaded ??= (async () => {
      try {
        const response = await client?.config?.get?.()
        return isObject(response?.data) ? response.data : {}
      } catch {
        return {}
      }
    })())
}
