// @ts-check
// The help texts: the command list, each command's options, the ops, derived
// from the engine's table of them (`requestFormat()`), and the exit codes,
// derived from the table in exit-codes.cjs.
"use strict"

/**
 * The options every command takes; `mcp` passes its own defaults for the
 * two it sets differently.
 */
const common = ({
  root = `(default: the enclosing git work tree, else the working directory; paths
                then resolve against the working directory)`,
  store = `(default: $HASHLINE_STORE,
                else $XDG_CACHE_HOME/hashline or ~/.cache/hashline)`,
} = {}) => `Options of every command:
  --root DIR    nothing outside DIR is read or written, and relative paths resolve against
                it ${root}
  --store DIR   where versions are kept between invocations ${store}
  --store-max-bytes N
                the most the store may hold, e.g. 500M (default: $HASHLINE_STORE_MAX_BYTES,
                else 256M); the versions used longest ago are removed first
  --view STYLE  how refs are shown: lean (12ab content, the default) or full
                (12#A3F#9BC|content); both are accepted in edits (default: $HASHLINE_VIEW)
  --syntax MODE what an edit that breaks the parse of a file in a known language gets:
                warn (written, broken lines reported), reject (nothing written) or off
                (default: $HASHLINE_SYNTAX, else warn)
  --no-telemetry
                keep no local record of this call (as HASHLINE_TELEMETRY=0 does; the
                record never leaves the machine: hashline stats reads it)
  --json        print results and errors as one JSON object on stdout
  -h, --help    show help
`

/** How the exit codes' help names each class. */
const CLASS_WORDS = /** @type {Record<string, string>} */ ({
  stale: "refs stale or lines unseen",
  request: "invalid request",
  file: "file not editable",
  refused: "refused",
  other: "other failure",
  usage: "wrong command line",
})

/**
 * A paragraph wrapped at `width` columns.
 * @param {string} text
 * @param {number} [width]
 */
function wrap(text, width = 80) {
  const lines = []
  let line = ""
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line === "" ? word : `${line} ${word}`
  }
  return [...lines, line].join("\n")
}

/**
 * The ops of an edit, from the engine's table: each with the fields it takes
 * and what it does. Without a loadable binary there are none to list: the
 * command then ends with NATIVE_MODULE_MISSING anyway.
 */
function opsText() {
  /** @type {import("../index.js").RequestOp[]} */
  let ops
  try {
    ops = require("../lib/native.cjs").requestFormat().ops
  } catch {
    return ""
  }
  const lines = ops.map((op) => {
    const fields = [op.ref ? "ref" : "", op.through ? "through?" : "", op.place ? "after|before" : "", op.cellType ? "cellType" : "", op.content ? "content" : "", op.metadata ? "metadata" : ""].filter(Boolean)
    const doc = wrap(op.doc.replaceAll("`", ""), 74).replaceAll("\n", "\n      ")
    return `  ${op.name} (${fields.join(", ")})\n      ${doc}`
  })
  return `Operations, each with its fields (through? may be left out for one line; a\nblock is a function, class, statement, element, object or section, its end\nfound by parsing; a cell op's ref is a notebook cell's header line):\n${lines.join("\n")}\n`
}

/** The exit codes, by status, each with its class and codes. */
function exitCodesText() {
  const { errorCodes } = /** @type {typeof import("./exit-codes.cjs")} */ (require("./exit-codes.cjs"))
  /** @type {Map<number, { class: string, codes: string[] }>} */
  const byStatus = new Map()
  for (const c of errorCodes()) {
    const entry = byStatus.get(c.exitStatus) ?? { class: c.class, codes: [] }
    entry.codes.push(c.code)
    byStatus.set(c.exitStatus, entry)
  }
  const parts = [...byStatus].sort(([a], [b]) => a - b).map(([status, e]) => `${status} ${CLASS_WORDS[e.class] ?? e.class} (${e.codes.join(", ")})`)
  return `${wrap(`Exit codes: 0 done; ${parts.join("; ")}. Errors are printed on stderr after "hashline: ". A closed output pipe (hashline read f | head) ends with 0.`)}\n`
}

const usage = () => `Usage: hashline <command> [options]

Commands:
  read FILE [--offset N] [--limit N]    show FILE with a ref before each line (a notebook: its
                                        cells; --raw: its JSON)
  edit FILE [--ops JSON] [--rev REV]    edit FILE; the request ({"operations":[...]} or just the
                                        array, or {"oldString","newString"}) from --ops or stdin
  apply [--ops JSON]                    edit several files: [{"path":P,"operations":[...]}, ...]
                                        from --ops or stdin, all of them or none
  grep PATTERN [PATH...] [flags]        search the files under each PATH for lines matching
                                        PATTERN, hits with refs (as rg: -i -F -w -v -g -m -C)
  mcp                                   serve read, edit, grep and apply over MCP on stdio
  cache clear                           remove every version kept in the store
  stats [--since T] [--until T] [...]   how each model fares with its edits, from the local
                                        record of tool calls

Run hashline COMMAND --help for a command's options.

${common()}  -V, --version show the version

${exitCodesText()}`

/** Each command's help. */
const HELP = /** @type {Record<string, string>} */ ({
  read: `Usage: hashline read FILE [--offset N] [--limit N] [--raw]

Shows FILE with a ref before each line (12ab in the lean view, the default;
12#A3F#9BC with --view full), under a header with its REV. An edit cites those
refs; later edits from other processes can still cite them, since the version
shown is kept in the store. A Jupyter notebook (.ipynb) shows its cells: a
header line per cell (# %% [code] id=...), then the cell's source lines;
outputs and metadata follow in read-only lines that start with ». Cell ops
cite a cell by its header line's ref.

  --offset N    first line to show, 1-based (default 1)
  --limit N     lines to show (default 2000)
  --raw         a notebook's JSON as text; an edit of it then sends "raw": true

${common()}`,
  get edit() {
    return `Usage: hashline edit FILE [--ops JSON] [--rev REV]

Edits FILE by citing refs. The request comes from --ops or stdin: an object
{"operations":[{"op":"replace","ref":"12#A3F#9BC","content":"..."}, ...]},
just the array of operations, or {"oldString":"...","newString":"..."}.
${opsText()}
  --ops JSON    the request (default: read from stdin)
  --rev REV     the REV the refs were read from, so that refs of an older view
                are remapped or refused rather than guessed

${common()}`
  },
  apply: `Usage: hashline apply [--ops JSON]

Edits several files: [{"path":P,"operations":[...]}, ...] from --ops or stdin.
Every entry is checked before any file is written; one bad entry writes nothing.
The files are then written as one change: all of them, or none if one cannot be.

  --ops JSON    the batch (default: read from stdin)

${common()}`,
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

${common()}`,
  mcp: `Usage: hashline mcp [--root DIR] [--store DIR] [--store-max-bytes N] [--text-only]

Serves the read, edit, grep and apply tools over MCP on stdio, inside the root
(default: the working directory), against which the tools' relative paths
resolve.
  --text-only           results carry the text for the model only, no structured
                        content (for hosts that show the model the structured
                        content instead, such as Claude Code)

${common({ root: "(default: the working directory)", store: `(default: $HASHLINE_STORE,
                else in memory only)` })}`,
  cache: `Usage: hashline cache clear [--store DIR]

Removes every version kept in the store folder and says how many files and
bytes that was. A file there named like a version is removed only if its
content proves hashline wrote it; others are left and counted. Refs shown
before can then no longer be remapped after the file changes; refs to an
unchanged file keep working.

${common()}`,
  stats: `Usage: hashline stats [--since T] [--until T] [--model M] [--host H] [--tool T] [--csv] [--html FILE]

How each model fares, per model and host, from the local record of tool calls
that every host keeps (nothing is sent anywhere; see docs/telemetry.md): edits,
the share that landed at the first try, the retries a refused edit took to
land, the tokens per edit that landed (refused attempts included), stale refs
recovered, refusals by code; then advice where the figures show that a setting
would help a model, with the figures.

  --since T     calls from T on: a date or time (2026-11-01, 2026-11-01T09:30) or a
                time ago (30m, 12h, 7d, 2w)
  --until T     calls before T
  --model M     models whose name holds M, in any case
  --host H      calls of this host only (opencode, claude-code, mcp, cli...)
  --tool T      calls of this tool only: read, edit, grep, apply, patch or write
  --csv         one line per model and host, as CSV
  --json        everything as one JSON object, per day too
  --html FILE   also write FILE: one self-contained page with plots (success and
                refusal rates per model over time, tokens per successful edit per
                view); it loads nothing and sends nothing
  --telemetry-dir DIR
                the record's folder (default: $HASHLINE_TELEMETRY_DIR, else
                $XDG_STATE_HOME/hashline/telemetry or the platform's place for local state)

${common()}`,
})

/**
 * The help for a command, or the general help.
 * @param {string | undefined} topic
 */
function helpFor(topic) {
  return topic !== undefined && Object.hasOwn(HELP, topic) ? HELP[topic] : usage()
}

/**
 * A command's synopsis, from the first line of its help.
 * @param {string} command
 */
const synopsis = (command) => HELP[command].split("\n")[0].replace("Usage: ", "")

module.exports = { helpFor, synopsis }
