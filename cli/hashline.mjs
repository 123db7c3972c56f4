#!/usr/bin/env node
// @ts-check
// The command line: read, edit, apply and grep for agents that only have a
// shell, and `mcp` to serve the same tools over MCP. Versions are kept in a
// cache folder between invocations, so refs from one read stay usable for a
// chain of edits made by separate processes.
import { createRequire } from "node:module"
import os from "node:os"
import path from "node:path"
import { parseArgs } from "node:util"
import { describeType, parseEditArguments, parseReadArguments } from "../lib/definitions.mjs"
import { applyBatch, errorInfo } from "../lib/batch.mjs"
import { viewOption } from "../lib/view.mjs"

/**
 * @typedef {import("../index.js").Hashline} Hashline
 * @typedef {import("../index.js").EditResult} EditResult
 */

const require = createRequire(import.meta.url)

const USAGE = `Usage: hashline <command> [options]

Commands:
  read FILE [--offset N] [--limit N]    show FILE with a ref before each line
  edit FILE [--ops JSON] [--rev REV]    edit FILE; the request ({"operations":[...]} or just the
                                        array, or {"oldString","newString"}) from --ops or stdin
  apply [--ops JSON]                    edit several files: [{"path":P,"operations":[...]}, ...]
                                        from --ops or stdin; all are checked before any is written
  grep PATTERN [PATH...] [flags]        search the files under each PATH (default: the root) for
                                        lines matching PATTERN (Rust regex syntax), hits with refs;
                                        files .gitignore lists, hidden and binary files are skipped
  mcp                                   serve read, edit and grep over MCP on stdio

grep flags:
  -i, --ignore-case     ignore case              -F, --fixed-strings   PATTERN is plain text
  -w, --word-regexp     whole words only         -v, --invert-match    lines not matching
  -g, --glob GLOB       search only files matching GLOB; !GLOB leaves files out (repeatable;
                        --include GLOB is the same)
  -m, --max-count N     show at most N matching lines in all (default 100)
  -C, --context N       show N lines before and after each hit, with refs
  --hidden              search hidden files and folders too

Options:
  --root DIR    relative paths resolve against DIR and nothing outside it is touched
                (default: the working directory)
  --store DIR   where versions are kept between invocations (default: $HASHLINE_STORE,
                else $XDG_CACHE_HOME/hashline or ~/.cache/hashline; mcp keeps them in
                memory unless --store or $HASHLINE_STORE is given)
  --view STYLE  how refs are shown: lean (12ab content, the default) or full
                (12#A3F#9BC|content); both are accepted in edits (default: $HASHLINE_VIEW)
  --json        print results and errors as one JSON object on stdout
  -h, --help    show this help
  -V, --version show the version

Exit codes: 0 done; 1 refs stale or lines unseen (HASH_MISMATCH, UNSEEN_LINES,
BASE_CHANGED); 2 invalid request (INVALID_REQUEST, INVALID_REF, OUT_OF_RANGE,
CONFLICT, NO_CHANGE, OLD_STRING_NOT_FOUND, OLD_STRING_AMBIGUOUS,
CONTEXT_NOT_FOUND, CONTEXT_AMBIGUOUS); 3 file not
editable (NOT_FOUND, NOT_A_FILE, NOT_UTF8, BINARY, TOO_LARGE); 4 refused
(OUTSIDE_ROOT, PERMISSION); 5 other failure (IO, LOCKED, INTERNAL, native
module missing); 64 wrong command line (USAGE).
`

/** The exit status for each error code; anything else is 5. */
const EXIT_CODES = /** @type {Record<string, number>} */ ({
  HASH_MISMATCH: 1,
  UNSEEN_LINES: 1,
  BASE_CHANGED: 1,
  INVALID_REQUEST: 2,
  INVALID_REF: 2,
  OUT_OF_RANGE: 2,
  CONFLICT: 2,
  NO_CHANGE: 2,
  OLD_STRING_NOT_FOUND: 2,
  OLD_STRING_AMBIGUOUS: 2,
  CONTEXT_NOT_FOUND: 2,
  CONTEXT_AMBIGUOUS: 2,
  NOT_FOUND: 3,
  NOT_A_FILE: 3,
  NOT_UTF8: 3,
  BINARY: 3,
  TOO_LARGE: 3,
  OUTSIDE_ROOT: 4,
  PERMISSION: 4,
  IO: 5,
  LOCKED: 5,
  INTERNAL: 5,
  NATIVE_MODULE_MISSING: 5,
  USAGE: 64,
})

/** Options each command accepts, besides --root, --store, --json and --help. */
const COMMAND_OPTIONS = /** @type {Record<string, string[]>} */ ({
  read: ["offset", "limit"],
  edit: ["ops", "rev"],
  apply: ["ops"],
  grep: ["ignore-case", "fixed-strings", "word-regexp", "invert-match", "glob", "include", "max-count", "context", "hidden"],
  mcp: [],
})
const POSITIONALS = /** @type {Record<string, [number, number]>} */ ({ read: [1, 1], edit: [1, 1], apply: [0, 0], grep: [1, Infinity], mcp: [0, 0] })

class Failure extends Error {
  /**
   * @param {string} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message)
    this.code = code
  }
}

/** @param {string} message */
const usage = (message) => new Failure("USAGE", `${message}\nRun hashline --help for the commands and options.`)

/** @param {string} code */
const exitCode = (code) => (Object.hasOwn(EXIT_CODES, code) ? EXIT_CODES[code] : 5)

/** Where versions are kept when neither --store nor HASHLINE_STORE says. */
function defaultStoreDir() {
  if (process.env.XDG_CACHE_HOME) return path.join(process.env.XDG_CACHE_HOME, "hashline")
  if (process.platform === "win32" && process.env.LOCALAPPDATA) return path.join(process.env.LOCALAPPDATA, "hashline")
  return path.join(os.homedir(), ".cache", "hashline")
}

/** @returns {typeof import("../index.js")} */
function nativeModule() {
  // Throws the loader's one-line NATIVE_MODULE_MISSING error when no binary fits.
  return require("../lib/native.cjs")
}

/** @returns {Promise<string>} */
async function readStdin() {
  /** @type {Buffer[]} */
  const chunks = []
  for await (const chunk of process.stdin) chunks.push(/** @type {Buffer} */ (chunk))
  try {
    // Strictly: a lenient decoding would put U+FFFD in place of bad bytes.
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks))
  } catch {
    throw new Failure("INVALID_REQUEST", "The input on stdin is not valid UTF-8; send the JSON as UTF-8 text.")
  }
}

/**
 * The JSON a command takes, from --ops or else stdin.
 * @param {string | undefined} ops
 * @param {string} what
 * @returns {Promise<unknown>}
 */
async function requestJson(ops, what) {
  let text = ops
  if (text === undefined) {
    if (process.stdin.isTTY) throw usage(`give the ${what} as JSON on stdin or with --ops.`)
    text = await readStdin()
  }
  if (text.trim() === "") throw new Failure("INVALID_REQUEST", `The ${what} is empty; expected JSON.`)
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new Failure("INVALID_REQUEST", `The ${what} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`)
  }
}

/**
 * An edit request as the command line takes it: a request object, or just
 * the operations array.
 * @param {unknown} json
 * @param {string} filePath
 * @param {string | undefined} rev
 */
function editArguments(json, filePath, rev) {
  const body = Array.isArray(json) ? { operations: json } : json
  if (!body || typeof body !== "object") {
    throw new Failure("INVALID_REQUEST", `The request must be an object like {"operations":[...]} or an array of operations, got ${describeType(body)}.`)
  }
  const args = /** @type {Record<string, unknown>} */ ({ ...body, filePath })
  if (rev !== undefined && (!Object.hasOwn(args, "rev") || args.rev === undefined)) args.rev = rev
  return parseEditArguments(args)
}

/** @param {EditResult} r */
const editJson = (r) => ({ path: r.path, rev: r.rev, previousRev: r.previousRev, additions: r.additions, deletions: r.deletions, output: r.output, diff: r.diff })

/**
 * @typedef {{ stdout: string, stderr?: string, json: Record<string, unknown>, code?: number }} Outcome
 */

/**
 * @param {Hashline} engine
 * @param {unknown} batch
 * @returns {Outcome}
 */
function apply(engine, batch) {
  const result = applyBatch(engine, batch)
  const stdout = result.written.map((r) => `${r.output}\n`).join("\n")
  if (result.ok) return { stdout, json: { ok: true, results: result.written.map(editJson) } }
  const { errors } = result
  const json = { ok: false, error: errors[0], errors, written: result.written.map(editJson) }
  const code = exitCode(errors[0].code)
  if (result.stage === "check") {
    const text = errors.map((e) => `[${e.index}] ${e.path ?? "(no path)"}: ${e.message}`).join("\n\n")
    const entries = Array.isArray(batch) ? batch.length : 0
    return { stdout, stderr: `Batch rejected, nothing written: ${errors.length} of ${entries} entries failed.\n\n${text}\n`, json, code }
  }
  const done = result.written.map((r) => r.path)
  const rest = result.notWritten
  const stderr =
    `${done.length > 0 ? `Wrote ${done.join(", ")}; then ` : ""}${errors[0].path} could not be written` +
    `${rest.length > 0 ? `, and ${rest.join(", ")} after it ${rest.length === 1 ? "was" : "were"} not written either` : ""}:\n${errors[0].message}\n`
  return { stdout, stderr, json: { ...json, notWritten: rest }, code }
}

/**
 * @param {string[]} argv
 * @returns {Promise<Outcome | "serving">}
 */
async function run(argv) {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        root: { type: "string" },
        store: { type: "string" },
        view: { type: "string" },
        json: { type: "boolean" },
        offset: { type: "string" },
        limit: { type: "string" },
        ops: { type: "string" },
        rev: { type: "string" },
        "ignore-case": { type: "boolean", short: "i" },
        "fixed-strings": { type: "boolean", short: "F" },
        "word-regexp": { type: "boolean", short: "w" },
        "invert-match": { type: "boolean", short: "v" },
        glob: { type: "string", short: "g", multiple: true },
        include: { type: "string", multiple: true },
        "max-count": { type: "string", short: "m" },
        context: { type: "string", short: "C" },
        hidden: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "V" },
      },
    })
  } catch (err) {
    throw usage(err instanceof Error ? err.message : String(err))
  }
  const { values, positionals } = parsed
  if (values.help) return { stdout: USAGE, json: { ok: true, usage: USAGE } }
  if (values.version) {
    const { version } = require("../package.json")
    return { stdout: `${version}\n`, json: { ok: true, version } }
  }
  const [command, ...rest] = positionals
  if (!command) throw usage("give a command: read, edit, apply, grep or mcp.")
  const allowed = Object.hasOwn(COMMAND_OPTIONS, command) ? COMMAND_OPTIONS[command] : undefined
  if (!allowed) throw usage(`unknown command ${command}; the commands are read, edit, apply, grep and mcp.`)
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && !["root", "store", "view", "json"].includes(name) && !allowed.includes(name)) {
      throw usage(`${command} takes no --${name}.`)
    }
  }
  const [min, max] = POSITIONALS[command]
  if (rest.length < min || rest.length > max) {
    throw usage(`${command} takes ${min === max ? `${min === 0 ? "no" : min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`} argument${(max === Infinity ? min : max) === 1 ? "" : "s"}, got ${rest.length}: ${USAGE.split("\n").find((l) => l.trimStart().startsWith(command))?.trim()}`)
  }

  const root = path.resolve(values.root ?? ".")
  const store = values.store ?? (process.env.HASHLINE_STORE || undefined)
  let view
  try {
    view = viewOption(values.view)
  } catch (err) {
    throw usage(err instanceof Error ? err.message : String(err))
  }
  const { Hashline } = nativeModule()
  if (command === "mcp") {
    const { serveMcp } = await import("./mcp.mjs")
    await serveMcp({ root, storeDir: store === undefined ? undefined : path.resolve(store), ...(view ? { view } : {}) })
    return "serving"
  }

  const engine = new Hashline({ root, storeDir: path.resolve(store ?? defaultStoreDir()), ...(view ? { view } : {}) })

  if (command === "read") {
    const { filePath, ...range } = parseReadArguments({ filePath: rest[0], offset: values.offset, limit: values.limit })
    const view = engine.read(filePath, range)
    return { stdout: view.text, json: { ok: true, ...view } }
  }
  if (command === "edit") {
    const { filePath, request } = editArguments(await requestJson(values.ops, "request"), rest[0], values.rev)
    const result = engine.edit(filePath, request)
    return { stdout: `${result.output}\n`, json: { ok: true, ...editJson(result) } }
  }
  if (command === "apply") {
    return apply(engine, await requestJson(values.ops, "batch"))
  }
  const [pattern, ...paths] = rest
  const globs = [...(values.glob ?? []), ...(values.include ?? [])]
  const found = engine.search(pattern, {
    path: paths,
    include: globs.filter((g) => !g.startsWith("!")),
    exclude: globs.filter((g) => g.startsWith("!")).map((g) => g.slice(1)),
    ignoreCase: values["ignore-case"],
    fixedStrings: values["fixed-strings"],
    word: values["word-regexp"],
    invert: values["invert-match"],
    hidden: values.hidden,
    maxResults: number(values["max-count"], "-m/--max-count", 1),
    context: number(values.context, "-C/--context", 0),
  })
  const { text, ...structured } = found
  return { stdout: text, json: { ok: true, ...structured } }
}

/**
 * A flag's count.
 * @param {string | undefined} value
 * @param {string} flag
 * @param {number} min
 */
function number(value, flag, min) {
  if (value === undefined) return undefined
  if (!/^\s*\d+\s*$/.test(value) || Number(value) < min) {
    throw new Failure("INVALID_REQUEST", `${flag} takes a whole number of at least ${min}, got ${JSON.stringify(value)}.`)
  }
  return Number(value)
}

const argv = process.argv.slice(2)
const json = argv.includes("--json")
try {
  const outcome = await run(argv)
  if (outcome !== "serving") {
    process.stdout.write(json ? `${JSON.stringify(outcome.json)}\n` : outcome.stdout)
    if (!json && outcome.stderr) process.stderr.write(outcome.stderr)
    process.exitCode = outcome.code ?? 0
  }
} catch (err) {
  const info = errorInfo(err)
  if (json) process.stdout.write(`${JSON.stringify({ ok: false, error: info })}\n`)
  else process.stderr.write(`${info.message}\n`)
  process.exitCode = exitCode(info.code)
}
