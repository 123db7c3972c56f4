// @ts-check
// The command line's options and the parser that splits the arguments (the
// one parser of `hashline mcp` and hashline-mcp too), the checks of counts,
// and the usage error they raise.
"use strict"

/** Options each command accepts, besides the common ones. */
const COMMAND_OPTIONS = /** @type {Record<string, string[]>} */ ({
  read: ["offset", "limit", "raw"],
  edit: ["ops", "rev"],
  apply: ["ops"],
  grep: ["ignore-case", "fixed-strings", "word-regexp", "invert-match", "glob", "include", "max-count", "context", "hidden"],
  mcp: ["text-only"],
  cache: [],
  stats: ["since", "until", "model", "host", "tool", "csv", "html", "telemetry-dir"],
})
const COMMON_OPTIONS = ["root", "store", "store-max-bytes", "view", "syntax", "no-telemetry", "json", "help"]
/** How many positional arguments each command takes, at least and at most. */
const POSITIONALS = /** @type {Record<string, [number, number]>} */ ({ read: [1, 1], edit: [1, 1], apply: [0, 0], grep: [1, Infinity], mcp: [0, 0], cache: [1, 1], stats: [0, 0] })

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
  "no-telemetry": { value: false },
  json: { value: false },
  offset: { value: true },
  limit: { value: true },
  ops: { value: true },
  rev: { value: true },
  raw: { value: false },
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
  since: { value: true },
  until: { value: true },
  model: { value: true },
  host: { value: true },
  tool: { value: true },
  csv: { value: false },
  html: { value: true },
  "telemetry-dir": { value: true },
  help: { value: false, short: "h" },
  version: { value: false, short: "V" },
}
/**
 * @typedef {{ root?: string, store?: string, "store-max-bytes"?: string, view?: string, syntax?: string, raw?: boolean,
 *   "no-telemetry"?: boolean, json?: boolean, offset?: string, limit?: string, ops?: string, rev?: string,
 *   "ignore-case"?: boolean, "fixed-strings"?: boolean, "word-regexp"?: boolean, "invert-match"?: boolean,
 *   glob?: string[], include?: string[], "max-count"?: string, context?: string, hidden?: boolean,
 *   "text-only"?: boolean, since?: string, until?: string, model?: string, host?: string, tool?: string,
 *   csv?: boolean, html?: string, "telemetry-dir"?: string, help?: boolean, version?: boolean }} Values
 */

/**
 * @typedef {{ stdout: string, stderr?: string, json: Record<string, unknown>, code?: number }} Outcome what a command prints and ends with
 * @typedef {object} Context what a command is run with
 * @property {string} command
 * @property {Values} values the options given
 * @property {string[]} rest the positional arguments after the command
 * @property {string} here where the user stands, relative to the root ("" at it, or with --root)
 * @property {(p: string) => string} given a path the user gave, as the engine takes it
 * @property {() => string} storeDir the store folder, for a command that opens no engine
 * @property {number | undefined} offset
 * @property {number | undefined} limit
 * @property {number | undefined} maxResults
 * @property {number | undefined} context
 * @property {() => typeof import("../index.js")} native the binding
 * @property {() => import("../index.js").Hashline} engine the engine for the root, store and view
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
 * The options given, as a command line again (`--name=value`, `--flag`),
 * for a process that takes the same options.
 * @param {Values} values
 */
function toArguments(values) {
  return Object.entries(values).flatMap(([name, value]) => {
    if (value === true) return [`--${name}`]
    if (typeof value === "string") return [`--${name}=${value}`]
    return Array.isArray(value) ? value.map((v) => `--${name}=${v}`) : []
  })
}

module.exports = { COMMAND_OPTIONS, COMMON_OPTIONS, POSITIONALS, Failure, number, parseCommandLine, toArguments, usage }
