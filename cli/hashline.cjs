#!/usr/bin/env node
// @ts-check
// The command line: read, edit, apply and grep for agents that only have a
// shell, and `mcp` to serve the same tools over MCP. Versions are kept in a
// cache folder between invocations, so refs from one read stay usable for a
// chain of edits made by separate processes. Each command loads only what it
// uses (the request checks, the error helpers and the MCP server are
// imported when needed), since every call pays for what is loaded; and it is CommonJS,
// which Node loads in a fraction of the time its ES module loader takes.
const fs = require("node:fs")
const path = require("node:path")

/**
 * @typedef {import("../index.js").Hashline} Hashline
 * @typedef {import("../index.js").EditResult} EditResult
 */

const COMMON = `Options of every command:
  --root DIR    nothing outside DIR is read or written, and relative paths resolve against
                it (default: the enclosing git work tree, else the working directory; paths
                then resolve against the working directory)
  --store DIR   where versions are kept between invocations (default: $HASHLINE_STORE,
                else $XDG_CACHE_HOME/hashline or ~/.cache/hashline)
  --store-max-bytes N
                the most the store may hold, e.g. 500M (default: $HASHLINE_STORE_MAX_BYTES,
                else 256M); the versions used longest ago are removed first
  --view STYLE  how refs are shown: lean (12ab content, the default) or full
                (12#A3F#9BC|content); both are accepted in edits (default: $HASHLINE_VIEW)
  --syntax MODE what an edit that breaks the parse of a file in a known language gets:
                warn (written, broken lines reported), reject (nothing written) or off
                (default: $HASHLINE_SYNTAX, else warn)
  --json        print results and errors as one JSON object on stdout
  -h, --help    show help
`

const EXIT_CODES_TEXT = `Exit codes: 0 done; 1 refs stale or lines unseen (HASH_MISMATCH, UNSEEN_LINES,
BASE_CHANGED); 2 invalid request (INVALID_REQUEST, INVALID_REF, OUT_OF_RANGE,
CONFLICT, NO_CHANGE, OLD_STRING_NOT_FOUND, OLD_STRING_AMBIGUOUS,
CONTEXT_NOT_FOUND, CONTEXT_AMBIGUOUS, SYNTAX_ERROR, AMBIGUOUS_ECHO); 3 file not
editable (NOT_FOUND, NOT_A_FILE, NOT_UTF8, BINARY, TOO_LARGE); 4 refused
(OUTSIDE_ROOT, PERMISSION); 5 other failure (IO, LOCKED, INTERNAL, native
module missing); 64 wrong command line (USAGE). Errors are printed on stderr
after "hashline: ". A closed output pipe (hashline read f | head) ends with 0.
`

const USAGE = `Usage: hashline <command> [options]

Commands:
  read FILE [--offset N] [--limit N]    show FILE with a ref before each line
  edit FILE [--ops JSON] [--rev REV]    edit FILE; the request ({"operations":[...]} or just the
                                        array, or {"oldString","newString"}) from --ops or stdin
  apply [--ops JSON]                    edit several files: [{"path":P,"operations":[...]}, ...]
                                        from --ops or stdin, all of them or none
  grep PATTERN [PATH...] [flags]        search the files under each PATH for lines matching
                                        PATTERN, hits with refs (as rg: -i -F -w -v -g -m -C)
  mcp                                   serve read, edit and grep over MCP on stdio
  cache clear                           remove every version kept in the store

Run hashline COMMAND --help for a command's options.

${COMMON}  -V, --version show the version

${EXIT_CODES_TEXT}`

/** Each command's help. */
const HELP = /** @type {Record<string, string>} */ ({
  read: `Usage: hashline read FILE [--offset N] [--limit N]

Shows FILE with a ref (LINE#HASH#ANCHOR) before each line, under a header with
its REV. An edit cites those refs; later edits from other processes can still
cite them, since the version shown is kept in the store.

  --offset N    first line to show, 1-based (default 1)
  --limit N     lines to show (default 2000)

${COMMON}`,
  edit: `Usage: hashline edit FILE [--ops JSON] [--rev REV]

Edits FILE by citing refs. The request comes from --ops or stdin: an object
{"operations":[{"op":"replace","ref":"12#A3F#9BC","content":"..."}, ...]},
just the array of operations, or {"oldString":"...","newString":"..."}.
Operations: replace, delete, insert_before, insert_after, prepend, append,
move, copy ({"op":"move","ref":R,"through":R2,"after":R3} or "before":R3), and
replace_block, delete_block, insert_before_block, insert_after_block, which cite
only the first line of a function, class, statement, element, object or section.

  --ops JSON    the request (default: read from stdin)
  --rev REV     the REV the refs were read from, so that refs of an older view
                are remapped or refused rather than guessed

${COMMON}`,
  apply: `Usage: hashline apply [--ops JSON]

Edits several files: [{"path":P,"operations":[...]}, ...] from --ops or stdin.
Every entry is checked before any file is written; one bad entry writes nothing.
The files are then written as one change: all of them, or none if one cannot be.

  --ops JSON    the batch (default: read from stdin)

${COMMON}`,
  grep: `Usage: hashline grep PATTERN [PATH...] [flags]

Searches the files under each PATH (default: the working directory) for lines
matching PATTERN (Rust regex syntax, as rg), each hit with its ref. Files that
.gitignore lists, hidden files and binary files are skipped, as rg does.

  -i, --ignore-case     ignore case              -F, --fixed-strings   PATTERN is plain text
  -w, --word-regexp     whole words only         -v, --invert-match    lines not matching
  -g, --glob GLOB       search only files matching GLOB; !GLOB leaves files out (repeatable;
                        --include GLOB is the same)
  -m, --max-count N     show at most N matching lines in all (default 100)
  -C, --context N       show N lines before and after each hit, with refs
  --hidden              search hidden files and folders too

${COMMON}`,
  mcp: `Usage: hashline mcp [--root DIR] [--store DIR] [--store-max-bytes N] [--text-only]

Serves the read, edit and grep tools over MCP on stdio, inside the root
(default: the working directory), against which the tools' relative paths
resolve. Versions are kept in memory unless --store or $HASHLINE_STORE is given.
  --text-only           results carry the text for the model only, no structured
                        content (for hosts that show the model the structured
                        content instead, such as Claude Code)

${COMMON}`,
  cache: `Usage: hashline cache clear [--store DIR]

Removes every version kept in the store folder and says how many files and
bytes that was. A file there named like a version is removed only if its
content proves hashline wrote it; others are left and counted. Refs shown
before can then no longer be remapped after the file changes; refs to an
unchanged file keep working.

${COMMON}`,
})

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
  SYNTAX_ERROR: 2,
  AMBIGUOUS_ECHO: 2,
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

/** Options each command accepts, besides the common ones. */
const COMMAND_OPTIONS = /** @type {Record<string, string[]>} */ ({
  read: ["offset", "limit"],
  edit: ["ops", "rev"],
  apply: ["ops"],
  grep: ["ignore-case", "fixed-strings", "word-regexp", "invert-match", "glob", "include", "max-count", "context", "hidden"],
  mcp: ["text-only"],
  cache: [],
})
const COMMON_OPTIONS = ["root", "store", "store-max-bytes", "view", "syntax", "json", "help"]
const POSITIONALS = /** @type {Record<string, [number, number]>} */ ({ read: [1, 1], edit: [1, 1], apply: [0, 0], grep: [1, Infinity], mcp: [0, 0], cache: [1, 1] })

/**
 * Every option: whether it takes a value, its one-letter form, and whether
 * it may be given more than once.
 * @type {Record<string, { value: boolean, short?: string, multiple?: boolean }>}
 */
const OPTIONS = {
  root: { value: true },
  store: { value: true },
  "store-max-bytes": { value: true },
  view: { value: true },
  syntax: { value: true },
  json: { value: false },
  offset: { value: true },
  limit: { value: true },
  ops: { value: true },
  rev: { value: true },
  "ignore-case": { value: false, short: "i" },
  "fixed-strings": { value: false, short: "F" },
  "word-regexp": { value: false, short: "w" },
  "invert-match": { value: false, short: "v" },
  glob: { value: true, short: "g", multiple: true },
  include: { value: true, multiple: true },
  "max-count": { value: true, short: "m" },
  context: { value: true, short: "C" },
  hidden: { value: false },
  "text-only": { value: false },
  help: { value: false, short: "h" },
  version: { value: false, short: "V" },
}
/**
 * @typedef {{ root?: string, store?: string, "store-max-bytes"?: string, view?: string, syntax?: string, json?: boolean,
 *   offset?: string, limit?: string, ops?: string, rev?: string, "ignore-case"?: boolean, "fixed-strings"?: boolean,
 *   "word-regexp"?: boolean, "invert-match"?: boolean, glob?: string[], include?: string[], "max-count"?: string,
 *   context?: string, hidden?: boolean, "text-only"?: boolean, help?: boolean, version?: boolean }} Values
 */

/**
 * Splits the arguments into options and positionals as Node's
 * `util.parseArgs` does: `--name value`, `--name=value`, `-m5`, `-m 5`,
 * grouped one-letter flags (`-iw`, `-im5`), and `--` before positionals that
 * begin with a dash; `-m=5` too, as in rg. A value that begins with a dash is
 * not taken from the next argument, so that a forgotten value is not filled
 * with the next option; it can be joined to its option (`--max-count=-1`).
 * This is not `util.parseArgs` because its first call alone costs about
 * 1 ms, a fifth of what a whole `read` may take.
 * @param {string[]} argv
 */
function parseCommandLine(argv) {
  /** @type {Record<string, string | string[] | boolean | undefined>} */
  const values = {}
  /** @type {string[]} */
  const positionals = []
  /**
   * @param {string} name
   * @param {string} shown how the user wrote it
   * @param {string | undefined} inline the value after `=` or the letter
   * @param {number} at the argument's index
   * @returns {number} how many arguments after `at` were taken
   */
  const take = (name, shown, inline, at) => {
    const o = OPTIONS[name]
    if (!o.value) {
      if (inline !== undefined) throw new Error(`${shown} takes no value.`)
      values[name] = true
      return 0
    }
    let value = inline
    const next = argv[at + 1]
    if (value === undefined) {
      if (next === undefined || (next.startsWith("-") && next !== "-")) {
        throw new Error(`${shown} needs a value${next === undefined ? "" : `; one that begins with a dash is joined to it, as in ${shown}=VALUE`}.`)
      }
      value = next
    }
    if (o.multiple) values[name] = [...(/** @type {string[] | undefined} */ (values[name]) ?? []), value]
    else values[name] = value
    return inline === undefined ? 1 : 0
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1))
      break
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=")
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq)
      if (!Object.hasOwn(OPTIONS, name)) throw new Error(`unknown option --${name}; a positional argument that begins with a dash goes after --.`)
      i += take(name, `--${name}`, eq === -1 ? undefined : arg.slice(eq + 1), i)
    } else if (arg.startsWith("-") && arg.length > 1) {
      for (let k = 1; k < arg.length; k++) {
        const letter = arg[k]
        const name = Object.keys(OPTIONS).find((n) => OPTIONS[n].short === letter)
        if (name === undefined) throw new Error(`unknown option -${letter}; a positional argument that begins with a dash goes after --.`)
        if (OPTIONS[name].value) {
          // `-m5` and, as in rg, `-m=5`.
          i += take(name, `-${letter}`, k + 1 < arg.length ? arg.slice(arg[k + 1] === "=" ? k + 2 : k + 1) : undefined, i)
          break
        }
        take(name, `-${letter}`, undefined, i)
      }
    } else {
      positionals.push(arg)
    }
  }
  return { values: /** @type {Values} */ (values), positionals }
}

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

/**
 * @param {string} message
 * @param {string} [command]
 */
const usage = (message, command) => new Failure("USAGE", `${message}\nRun hashline ${command ? `${command} ` : ""}--help for the ${command ? "command's options" : "commands and options"}.`)

/** @param {string} code */
const exitCode = (code) => (Object.hasOwn(EXIT_CODES, code) ? EXIT_CODES[code] : 5)

/** Where versions are kept when neither --store nor HASHLINE_STORE says. */
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
 * @param {string} command
 * @returns {Promise<unknown>}
 */
async function requestJson(ops, what, command) {
  let text = ops
  if (text === undefined) {
    if (process.stdin.isTTY) throw usage(`give the ${what} as JSON on stdin or with --ops.`, command)
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
async function editArguments(json, filePath, rev) {
  const { describeType, parseEditArguments } = await import("../lib/definitions.mjs")
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
 * A batch over several files, written by the engine as one transaction:
 * every file takes its new version or none does, and a rejection lists
 * every failing entry.
 * @param {Hashline} engine
 * @param {unknown} batch
 * @returns {Promise<Outcome>}
 */
async function apply(engine, batch) {
  try {
    const result = engine.applyBatch(/** @type {any} */ (batch))
    return { stdout: `${result.output}\n`, json: { ok: true, output: result.output, results: result.files.map(editJson) } }
  } catch (err) {
    const { errorInfo } = await import("../lib/errors.mjs")
    const { errors, ...info } = errorInfo(err)
    const first = errors?.[0] ?? info
    const json = { ok: false, error: first, errors: errors ?? [info], written: [] }
    return { stdout: "", stderr: `${info.message}\n`, json, code: exitCode(first.code) }
  }
}

/**
 * A count given on the command line: a wrong one is a usage error.
 * @param {string | undefined} value
 * @param {string} flag
 * @param {number} min
 * @param {string} command
 */
function number(value, flag, min, command) {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw usage(`${flag} takes a whole number of at least ${min}, got ${JSON.stringify(value)}.`, command)
  }
  return Number(value)
}

/**
 * A size in bytes, with an optional K, M or G (powers of 1024).
 * @param {string | undefined} value
 * @param {string} where
 * @param {string} command
 */
function bytes(value, where, command) {
  if (value === undefined) return undefined
  const m = /^(\d+)([KMG]?)$/i.exec(value.trim())
  const n = m ? Number(m[1]) * 1024 ** " KMG".indexOf((m[2] || " ").toUpperCase()) : NaN
  if (!Number.isSafeInteger(n)) throw usage(`${where} takes a number of bytes such as 500M, got ${JSON.stringify(value)}.`, command)
  return n
}

/** @param {number} n */
const size = (n) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} bytes`)

/**
 * @param {string[]} argv
 * @returns {Promise<Outcome | "serving">}
 */
async function run(argv) {
  let parsed
  try {
    parsed = parseCommandLine(argv)
  } catch (err) {
    const command = argv.find((a) => Object.hasOwn(HELP, a))
    throw usage(err instanceof Error ? err.message : String(err), command)
  }
  const { values, positionals } = parsed
  const [command, ...rest] = positionals
  const known = command !== undefined && Object.hasOwn(COMMAND_OPTIONS, command)
  if (values.help || command === "help") {
    const topic = command === "help" ? rest[0] : command
    const text = topic !== undefined && Object.hasOwn(HELP, topic) ? HELP[topic] : USAGE
    return { stdout: text, json: { ok: true, usage: text } }
  }
  if (values.version) {
    const { version } = require("../package.json")
    return { stdout: `${version}\n`, json: { ok: true, version } }
  }
  if (!command) throw usage("give a command: read, edit, apply, grep, mcp or cache.")
  if (!known) throw usage(`unknown command ${command}; the commands are read, edit, apply, grep, mcp and cache.`)
  const allowed = COMMAND_OPTIONS[command]
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && !COMMON_OPTIONS.includes(name) && !allowed.includes(name)) {
      throw usage(`${command} takes no --${name}.`, command)
    }
  }
  const [min, max] = POSITIONALS[command]
  if (rest.length < min || rest.length > max) {
    const count = min === max ? `${min === 0 ? "no" : min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`
    throw usage(`${command} takes ${count} argument${(max === Infinity ? min : max) === 1 ? "" : "s"}, got ${rest.length}: ${HELP[command].split("\n")[0].replace("Usage: ", "")}`, command)
  }
  if (command === "cache" && rest[0] !== "clear") throw usage(`cache takes clear, got ${JSON.stringify(rest[0])}.`, command)

  const cwd = process.cwd()
  // The MCP server keeps the folder it was started in, as hashline-mcp does:
  // a model's relative paths resolve against its root.
  const root = values.root !== undefined ? path.resolve(values.root) : command === "mcp" ? cwd : defaultRoot(cwd)
  // Without --root, paths are the user's, relative to where they stand (the
  // engine takes them relative to the root); with it, relative to that root.
  const here = values.root === undefined ? path.relative(root, cwd) : ""
  /** @param {string} p */
  const given = (p) => (path.isAbsolute(p) || here === "" ? p : path.join(here, p))
  const storeGiven = values.store ?? (process.env.HASHLINE_STORE || undefined)
  const storeMaxBytes =
    bytes(values["store-max-bytes"], "--store-max-bytes", command) ?? bytes(process.env.HASHLINE_STORE_MAX_BYTES || undefined, "$HASHLINE_STORE_MAX_BYTES", command)
  const storeDir = path.resolve(storeGiven ?? defaultStoreDir())
  const offset = number(values.offset, "--offset", 1, command)
  const limit = number(values.limit, "--limit", 1, command)
  const maxResults = number(values["max-count"], "-m/--max-count", 1, command)
  const context = number(values.context, "-C/--context", 0, command)

  let view, syntax
  try {
    // Most calls set neither, and each is a module to load.
    if (values.view !== undefined || process.env.HASHLINE_VIEW) view = require("../lib/view.cjs").viewOption(values.view)
    if (values.syntax !== undefined || process.env.HASHLINE_SYNTAX) syntax = require("../lib/syntax.cjs").syntaxOption(values.syntax)
  } catch (err) {
    throw usage(err instanceof Error ? err.message : String(err), command)
  }
  // The MCP server loads the engine itself: without it, it still answers
  // initialize and fails each tool call with the reason.
  if (command === "mcp") {
    const { serveMcp } = await import("./mcp.mjs")
    await serveMcp({ root, storeDir: storeGiven === undefined ? undefined : path.resolve(storeGiven), storeMaxBytes, textOnly: values["text-only"] === true, ...(view ? { view } : {}), ...(syntax ? { syntax } : {}) })
    return "serving"
  }
  const native = nativeModule()
  if (command === "cache") {
    const cleared = native.clearStore(storeDir)
    const skipped = cleared.skipped > 0 ? `; left ${cleared.skipped} file${cleared.skipped === 1 ? "" : "s"} that hashline did not write` : ""
    return {
      stdout: `Removed ${cleared.files} file${cleared.files === 1 ? "" : "s"} (${size(cleared.bytes)}) from the store ${storeDir}${skipped}.\n`,
      json: { ok: true, store: storeDir, ...cleared },
    }
  }

  const engine = new native.Hashline({ root, storeDir, storeMaxBytes, ...(view ? { view } : {}), ...(syntax ? { syntax } : {}) })

  if (command === "read") {
    const view = engine.read(given(rest[0]), { offset, limit })
    return { stdout: view.text, json: { ok: true, ...view } }
  }
  if (command === "edit") {
    const { filePath, request } = await editArguments(await requestJson(values.ops, "request", command), given(rest[0]), values.rev)
    const result = engine.edit(filePath, request)
    // One newline ends the output, whether or not the engine's text has one.
    return { stdout: result.output.endsWith("\n") ? result.output : `${result.output}\n`, json: { ok: true, ...editJson(result) } }
  }
  if (command === "apply") {
    return apply(engine, await requestJson(values.ops, "batch", command))
  }
  const [pattern, ...paths] = rest
  const globs = [...(values.glob ?? []), ...(values.include ?? [])]
  const found = engine.search(pattern, {
    path: paths.length > 0 ? paths.map(given) : here === "" ? [] : [here],
    include: globs.filter((g) => !g.startsWith("!")),
    exclude: globs.filter((g) => g.startsWith("!")).map((g) => g.slice(1)),
    ignoreCase: values["ignore-case"],
    fixedStrings: values["fixed-strings"],
    word: values["word-regexp"],
    invert: values["invert-match"],
    hidden: values.hidden,
    maxResults,
    context,
  })
  const { text, ...structured } = found
  return { stdout: text, json: { ok: true, ...structured } }
}

/**
 * An error as the command line prints it: after `hashline: `, as other tools
 * do; the lines after the first are left as they are, since they may hold
 * refs to copy.
 * @param {string} message
 */
const errorText = (message) => `hashline: ${message.replace(/\n+$/, "")}\n`

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

/** @param {string} message */
function printError(message) {
  try {
    writeAll(2, errorText(message))
  } catch {
    // Nowhere is left to say it.
  }
}

async function main() {
  const argv = process.argv.slice(2)
  // Known before the arguments are checked, so that their errors come as JSON
  // too; after `--`, `--json` is an argument like any other.
  const end = argv.indexOf("--")
  const json = (end === -1 ? argv : argv.slice(0, end)).includes("--json")
  try {
    const outcome = await run(argv)
    if (outcome !== "serving") {
      if (!print(json ? `${JSON.stringify(outcome.json)}\n` : outcome.stdout)) return
      if (!json && outcome.stderr) printError(outcome.stderr)
      process.exitCode = outcome.code ?? 0
    }
  } catch (err) {
    const { errorInfo } = await import("../lib/errors.mjs")
    const info = errorInfo(err)
    if (json) print(`${JSON.stringify({ ok: false, error: info })}\n`)
    else printError(info.message)
    process.exitCode = exitCode(info.code)
  }
}

main()
