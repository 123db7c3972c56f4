#!/usr/bin/env node
// @ts-check
// The command line: read, edit, apply and grep for agents that only have a
// shell, and `mcp` to serve the same tools over MCP. Versions are kept in a
// cache folder between invocations, so refs from one read stay usable for a
// chain of edits made by separate processes.
//
// This file parses the command line (args.cjs), sets up what every command
// shares (the root, the store, the engine) and prints the outcome; each
// command is a module of commands/, and the help texts and exit codes are
// modules of their own. Each is loaded only when used, since every call
// pays for what is loaded; and it is CommonJS, which Node loads in a
// fraction of the time its ES module loader takes.
const fs = require("node:fs")
const path = require("node:path")
const { COMMAND_OPTIONS, COMMON_OPTIONS, POSITIONALS, number, parseCommandLine, toArguments, usage } = require("./args.cjs")

/**
 * @typedef {import("../index.js").Hashline} Hashline
 * @typedef {import("./args.cjs").Outcome} Outcome
 * @typedef {import("./args.cjs").Context} Context
 */

const COMMANDS = Object.keys(COMMAND_OPTIONS)

/** Where the command line keeps versions when neither --store nor HASHLINE_STORE says. */
function defaultStoreDir() {
  if (process.env.XDG_CACHE_HOME) return path.join(process.env.XDG_CACHE_HOME, "hashline")
  if (process.platform === "win32" && process.env.LOCALAPPDATA) return path.join(process.env.LOCALAPPDATA, "hashline")
  // HOME is what os.homedir() reads first; node:os is loaded only without it.
  const home = process.env.HOME || /** @type {typeof import("node:os")} */ (require("node:os")).homedir()
  return path.join(home, ".cache", "hashline")
}

/**
 * The git work tree `dir` is in (the nearest folder up with a `.git`, a
 * folder or, in a linked work tree or submodule, a file), or `dir` outside one.
 * @param {string} dir
 */
function defaultRoot(dir) {
  for (let at = dir; ; at = path.dirname(at)) {
    if (fs.existsSync(path.join(at, ".git"))) return at
    if (path.dirname(at) === at) return dir
  }
}

/**
 * An option the binding refused when the engine was made is a wrong
 * command line.
 * @param {unknown} err
 * @param {string} command
 */
function optionError(err, command) {
  if (/** @type {{ code?: unknown }} */ (err)?.code !== "INVALID_REQUEST") return err
  return usage(err instanceof Error ? err.message : String(err), command)
}

/**
 * @param {string[]} argv
 * @param {boolean} handOver whether `mcp` may hand over to hashline-mcp
 *   when the MCP SDK is not installed beside hashline
 * @returns {Promise<Outcome | "serving">}
 */
async function run(argv, handOver) {
  let parsed
  try {
    parsed = parseCommandLine(argv)
  } catch (err) {
    const command = argv.find((a) => COMMANDS.includes(a))
    throw usage(err instanceof Error ? err.message : String(err), command)
  }
  const { values, positionals } = parsed
  const [command, ...rest] = positionals
  const known = command !== undefined && Object.hasOwn(COMMAND_OPTIONS, command)
  if (values.help || command === "help") {
    const text = require("./help.cjs").helpFor(command === "help" ? rest[0] : command)
    return { stdout: text, json: { ok: true, usage: text } }
  }
  if (values.version) {
    const { version } = require("../package.json")
    return { stdout: `${version}\n`, json: { ok: true, version } }
  }
  if (!command) throw usage("give a command: read, edit, apply, grep, mcp, cache or stats.")
  if (!known) throw usage(`unknown command ${command}; the commands are read, edit, apply, grep, mcp, cache and stats.`)
  const allowed = COMMAND_OPTIONS[command]
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && !COMMON_OPTIONS.includes(name) && !allowed.includes(name)) {
      throw usage(`${command} takes no --${name}.`, command)
    }
  }
  const [min, max] = POSITIONALS[command]
  if (rest.length < min || rest.length > max) {
    const count = min === max ? `${min === 0 ? "no" : min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`
    throw usage(`${command} takes ${count} argument${(max === Infinity ? min : max) === 1 ? "" : "s"}, got ${rest.length}: ${require("./help.cjs").synopsis(command)}`, command)
  }
  if (command === "cache" && rest[0] !== "clear") throw usage(`cache takes clear, got ${JSON.stringify(rest[0])}.`, command)

  const cwd = process.cwd()
  // The MCP server keeps the folder it was started in, as hashline-mcp does:
  // a model's relative paths resolve against its root.
  const root = values.root !== undefined ? path.resolve(values.root) : command === "mcp" ? cwd : defaultRoot(cwd)
  // Without --root, paths are the user's, relative to where they stand (the
  // engine takes them relative to the root); with it, relative to that root.
  const here = values.root === undefined ? path.relative(root, cwd) : ""
  const { engineOptions, openEngine } = /** @type {typeof import("../lib/engine.cjs")} */ (require("../lib/engine.cjs"))
  // The binding judges --view and --syntax, and engine.cjs the store's size,
  // when the engine is opened. The telemetry record names the command line
  // and the MCP server as hosts of their own.
  /** @type {import("../lib/engine.cjs").EngineOptions} */
  const options = {
    root,
    storeDir: values.store === undefined ? undefined : path.resolve(values.store),
    storeMaxBytes: values["store-max-bytes"],
    view: /** @type {any} */ (values.view),
    syntax: /** @type {any} */ (values.syntax),
    host: command === "mcp" ? undefined : "cli",
    telemetry: values["no-telemetry"] ? false : undefined,
  }
  // The MCP server keeps versions in memory unless told otherwise; every
  // other command keeps them between calls, which refs of one call need in
  // the next.
  const defaults = command === "mcp" ? {} : { storeDir: defaultStoreDir() }
  // The MCP server loads the engine itself: without it, it still answers
  // initialize and fails each tool call with the reason.
  if (command === "mcp") {
    const { serveMcp } = await import("./commands/mcp.mjs")
    try {
      await serveMcp({ ...options, textOnly: values["text-only"] === true }, handOver ? toArguments(values) : undefined)
    } catch (err) {
      throw optionError(err, command)
    }
    return "serving"
  }
  const cx = /** @type {Context} */ ({
    command,
    values,
    rest,
    here,
    given: (p) => (path.isAbsolute(p) || here === "" ? p : path.join(here, p)),
    storeDir: () => {
      try {
        return /** @type {string} */ (engineOptions(options, process.env, defaults).options.storeDir)
      } catch (err) {
        throw optionError(err, command)
      }
    },
    offset: number(values.offset, "--offset", 1, command),
    limit: number(values.limit, "--limit", 1, command),
    maxResults: number(values["max-count"], "-m/--max-count", 1, command),
    context: number(values.context, "-C/--context", 0, command),
    // Throws the loader's one-line NATIVE_MODULE_MISSING error when no binary fits.
    native: () => require("../lib/native.cjs"),
    engine: () => {
      try {
        return openEngine(options, process.env, defaults)
      } catch (err) {
        throw optionError(err, command)
      }
    },
  })
  return require(`./commands/${command}.cjs`).run(cx)
}

/**
 * An error as the command line prints it: after the program's name
 * (`hashline: `), as other tools do; the lines after the first are left as
 * they are, since they may hold refs to copy.
 * @param {string} program
 * @param {string} message
 */
const errorText = (program, message) => `${program}: ${message.replace(/\n+$/, "")}\n`

/**
 * Writes all of `text` to `fd` with plain system calls: setting up
 * `process.stdout` loads Node's stream modules, which cost a small command
 * more than its own work.
 * @param {number} fd
 * @param {string} text
 */
function writeAll(fd, text) {
  const bytes = Buffer.from(text)
  for (let at = 0; at < bytes.length; ) {
    try {
      at += fs.writeSync(fd, bytes, at)
    } catch (err) {
      // A descriptor another process made non-blocking is full: wait a moment.
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== "EAGAIN") throw err
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1)
    }
  }
}

/**
 * @param {string} text
 * @returns {boolean} false when the reader has gone (`| head`), which is no
 *   failure of the command
 */
function print(text) {
  try {
    writeAll(1, text)
    return true
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === "EPIPE") return false
    throw err
  }
}

/**
 * @param {string} program
 * @param {string} message
 */
function printError(program, message) {
  try {
    writeAll(2, errorText(program, message))
  } catch {
    // Nowhere is left to say it.
  }
}

/**
 * Runs a command line and prints its outcome. `program` is the name the
 * user typed: hashline-mcp runs `hashline mcp`'s command line under its own
 * name (`main(["mcp", ...args], "hashline-mcp")`), whose help and errors then
 * name it, and hands over to nothing.
 * @param {string[]} argv
 * @param {string} [program]
 */
async function main(argv, program = "hashline") {
  /** @param {string} text */
  const named = (text) => (program === "hashline" ? text : text.replaceAll("hashline mcp", program))
  // Known before the arguments are checked, so that their errors come as JSON
  // too; after `--`, `--json` is an argument like any other.
  const end = argv.indexOf("--")
  const json = (end === -1 ? argv : argv.slice(0, end)).includes("--json")
  try {
    const outcome = await run(argv, program === "hashline")
    if (outcome !== "serving") {
      if (!print(json ? `${JSON.stringify(outcome.json)}\n` : named(outcome.stdout))) return
      if (!json && outcome.stderr) printError(program, outcome.stderr)
      process.exitCode = outcome.code ?? 0
    }
  } catch (err) {
    const { errorInfo } = await import("../lib/errors.mjs")
    const info = errorInfo(err)
    if (json) print(`${JSON.stringify({ ok: false, error: info })}\n`)
    else printError(program, named(info.message))
    process.exitCode = require("./exit-codes.cjs").exitStatus(info.code)
  }
}

if (require.main === module) main(process.argv.slice(2))

module.exports = { main }
