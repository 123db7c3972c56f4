// @ts-check
// Every word a model reads about hashline's tools, in one place: the tools'
// descriptions, their fields' descriptions, the instruction each host adds
// to the system prompt, and what an integration tells a host's model (its
// guide, built from its row of hosts.mjs, and why its own edit tools are
// turned away). The MCP server, the framework tools, the OpenCode tools, pi,
// the command line and the integrations' files (scripts/generate.mjs) all
// take their texts from here, so a model meets the same tools wherever it
// runs. What the engine accepts (ops, fields,
// aliases) is the engine's: `definitions.mjs` builds the schemas from its
// `requestFormat()` and these texts. CommonJS, so that the command line
// loads it without the ES module loader.
"use strict"

/**
 * @typedef {"edit" | "patch"} EditKind
 */

const READ_DESCRIPTION = `Read a text file. Each line comes with its ref: \`LINEab content\`, e.g. \`12ab   return total;\` (ref \`12ab\`), or in the full view \`LINE#HASH#ANCHOR|content\`, e.g. \`12#A3F#9BC|  return total;\`; the first line names the file, its REV (e.g. \`REV:72C4946C\`) and the lines shown. The ref and the one space (or \`|\`) after it are not part of the file.
Cite the refs in edit operations instead of retyping old lines.
Shows up to 2000 lines from offset (1-based, default 1); for a long file the last line says how to read on.
A Jupyter notebook (.ipynb) shows its cells: each a header line \`# %% [code] id=a1b2c3d4\` (its type, and its id or number) with a ref, then the cell's source lines with refs; its outputs and metadata follow in read-only lines that start with \`»\`. raw: true shows the notebook's JSON instead.`

const GREP_DESCRIPTION = `Search the text files under the project folder for lines matching a regular expression (Rust regex syntax, as in ripgrep: no look-around or backreferences). Each matching line comes with its ref, \`LINEab content\` (or \`LINE#HASH#ANCHOR|content\` in the full view), under a header with the file's path and REV, so a hit can be edited without reading the file first.
path narrows the search to a file or folder; include keeps the files matching a glob such as *.ts, *.{js,mjs} or src/**/*.rs, and exclude leaves files or folders out. Files .gitignore lists, hidden files and binary files are skipped unless path names them; hidden: true searches hidden files too. ignoreCase, fixedStrings (the pattern as plain text) and word (whole words only) refine the match; context shows lines around each hit, with refs. Shows up to maxResults matching lines (default 100), and says how many more it found.`

const EDIT_INTRO = `Edit a file by citing the refs that read and grep show before each line, e.g. \`12ab   return total;\` has the ref \`12ab\` (line 12, tag ab). Full refs (\`12#A3F#9BC\` from \`12#A3F#9BC|  return total;\`) work too.
Give filePath and operations; the whole batch is checked against the version you read and applied at once, or nothing is written:`

const EDIT_RULES = `content is the new text only, lines separated by \\n, never with the ref prefixes; it is written exactly as sent. Lines that look copied from a view (a ref at their start, or a repeat of the line next to where the content goes) are removed only where the engine proves them copies; where it cannot tell, the edit is refused with AMBIGUOUS_ECHO: send it again without those lines, or with "literal": true (on an operation, or on the whole request) to write the content exactly as sent. All refs name lines of the version you read: do not adjust line numbers for earlier operations of the same batch. rev (the REV the read showed) is optional.
In a notebook a request may mix line ops and cell ops across cells; a code cell whose source changes loses its outputs and execution count unless "keepOutputs": true. To edit a notebook's JSON itself, read it with raw: true and send "raw": true.
The result shows fresh refs for the changed lines and how the others moved: keep editing from it without reading again. A rejected edit says why and shows the current lines with fresh refs.
Without refs, oldString/newString (and replaceAll) replace one unique occurrence of oldString instead, as the classic edit tool does.`

/**
 * An op as the engine's `requestFormat()` declares it: its name, the fields
 * it takes and its doc.
 * @typedef {{ name: string, doc: string, ref: boolean, through: boolean, content: boolean, place: boolean, cellType?: boolean, metadata?: boolean }} OpFormat
 */

/**
 * The lines of the edit description: the ops each line covers, and the
 * words after the line's template (which is built from the ops' fields).
 * @type {Array<[readonly string[], string]>}
 */
const OP_LINES = [
  [["replace"], "lines R..R2 (inclusive; omit through for one line) become C"],
  [["delete"], ""],
  [["insert_before", "insert_after"], ""],
  [["prepend", "append"], "at the start or end of the file (append creates a missing file)"],
  [["move", "copy"], "lines R..R2 as they are, put after (before) line R3, with no retyping"],
  [
    ["replace_block", "delete_block", "insert_before_block", "insert_after_block"],
    "R is the first line of a function, class, if/for/while/try, element, object or Markdown section (the outermost one starting there); the engine finds its last line",
  ],
  [["replace_cell"], "in a notebook (read shows each cell as a header line such as # %% [code] id=a1b2c3d4, then its source lines), R is a cell's header line: the cell's whole source becomes C; line ops edit inside a cell's source lines"],
  [["delete_cell"], ""],
  [["insert_cell_before", "insert_cell_after"], "a new cell of type T (code, markdown or raw) holding C goes before (after) the cell whose header line is R"],
  [["move_cell"], "the cell whose header line is R goes after (before) the cell whose header line is R3"],
  [["set_cell_type"], "T is code, markdown or raw"],
  [["set_cell_metadata"], "the keys of M (an object) are set in the cell's metadata, null removes a key"],
]

/**
 * One line of the edit description: the template of an operation of
 * `ops`, naming every field any of them takes, then `words`.
 * @param {readonly OpFormat[]} ops
 * @param {string} words
 */
function opLine(ops, words) {
  const takes = (/** @type {"ref" | "through" | "content" | "place" | "cellType" | "metadata"} */ field) => ops.some((op) => op[field])
  const fields = [
    `"op":${ops.map((op) => JSON.stringify(op.name)).join("|")}`,
    ...(takes("ref") ? ['"ref":R'] : []),
    ...(takes("through") ? ['"through":R2'] : []),
    ...(takes("cellType") ? ['"cellType":T'] : []),
    ...(takes("content") ? ['"content":C'] : []),
    ...(takes("place") ? ['"after":R3'] : []),
    ...(takes("metadata") ? ['"metadata":M'] : []),
  ]
  const template = `{${fields.join(",")}}${takes("place") ? ' (or "before":R3)' : ""}`
  return words === "" ? `- ${template}` : `- ${template}: ${words}`
}

/**
 * The edit tool's description for the ops the engine has, in the engine's
 * order: each op on the line that explains it, and an op this file has no
 * words for yet on a line of its own with the engine's doc, so that none is
 * ever hidden from the model.
 * @param {readonly OpFormat[]} ops
 */
function editDescription(ops) {
  const lines = []
  for (const [covers, words] of OP_LINES) {
    const present = ops.filter((op) => covers.includes(op.name))
    if (present.length > 0) lines.push(opLine(present, words))
  }
  for (const op of ops.filter((op) => !OP_LINES.some(([covers]) => covers.includes(op.name)))) {
    lines.push(opLine([op], op.doc))
  }
  return [EDIT_INTRO, ...lines, EDIT_RULES].join("\n")
}

/**
 * The descriptions of the edit arguments, by the engine's field names.
 * @type {Record<string, string>}
 */
const EDIT_FIELDS = {
  filePath: "Path of the file to edit, absolute or relative to the session folder",
  rev: "The REV the read showed, e.g. 72C4946C (optional)",
  operations: "Edits citing refs, all against the version you read",
  op: "What to do",
  ref: "Ref of the first line, as shown, e.g. 12ab or 12#A3F#9BC (not for prepend/append)",
  through: "Ref of the last line of a replace, delete, move or copy range (inclusive)",
  after: "move/copy: ref of the line to put the lines after",
  before: "move/copy: ref of the line to put the lines before",
  content: "New lines, separated by \\n, without ref prefixes (replace*, insert_*, prepend, append)",
  literal: "true: write the content exactly as sent, with no line removed as a copy from a view (on an operation, or on the request for all of them)",
  raw: "true: the refs are of a notebook's JSON as read with raw: true, not of its cells",
  keepOutputs: "true: a notebook code cell whose source changes keeps its outputs (they are cleared otherwise)",
  cellType: "insert_cell_*, set_cell_type: the notebook cell's type, code, markdown or raw",
  metadata: "set_cell_metadata: keys to set in the cell's metadata, e.g. {\"tags\":[\"parameters\"]} (null removes a key)",
  oldString: "Fallback without refs: exact text to replace",
  newString: "Fallback without refs: the replacement text",
  replaceAll: "Fallback without refs: replace every occurrence of oldString",
}

const READ_FIELDS = {
  filePath: "Path of the file to read, absolute or relative to the session folder",
  offset: "First line to show, 1-based (default 1)",
  limit: "How many lines to show (default 2000)",
  view: "lean (12ab content) or full (12#A3F#9BC|content); default: the server's",
  raw: "true: a notebook's JSON as text instead of its cells (default false)",
}

const GREP_FIELDS = {
  pattern: "Regular expression to search for (Rust regex syntax), e.g. fn\\s+total",
  path: "File or folder to search, relative to the session folder (default: all of it)",
  include: "Glob that files must match, e.g. *.ts, *.{js,mjs} or src/**/*.rs",
  exclude: "Glob of files or folders to leave out, e.g. *.test.ts or vendor/",
  ignoreCase: "Ignore case (default false)",
  fixedStrings: "Take the pattern as plain text, not a regular expression (default false)",
  word: "Match whole words only (default false)",
  hidden: "Also search hidden files and folders (default false)",
  context: "Lines to show before and after each hit, with refs (default 0)",
  maxResults: "Matching lines to show at most (default 100)",
}

const APPLY_DESCRIPTION = `Edit several files at once: files is a list of {"filePath":P,"operations":[...]} (or the oldString/newString fallback), each as the edit tool takes it, citing refs that read and grep showed. Every entry is checked before any file is written, and the files are written as one change: all of them, or none. A rejection lists each failing entry with why and the current lines with fresh refs.`

const APPLY_FIELDS = {
  files: "One entry per file: its filePath and operations (or oldString/newString), as the edit tool takes them",
}

const PATCH_DESCRIPTION = `Edit files with a patch: add, delete, move and change files in one call. patchText is:
*** Begin Patch
*** Update File: src/app.ts
@@ function total(items) {
   let sum = 0
-  for (const x of items) sum += x
+  for (const x of items) sum += x.price
*** End Patch
Per file, one of:
- *** Add File: PATH, then the new file's lines, each starting with +
- *** Delete File: PATH
- *** Update File: PATH, optionally *** Move to: NEWPATH, then hunks. A hunk starts with @@, optionally followed by a line of the file at or above the hunk, then its lines: ' ' context (unchanged), '-' removed, '+' added. Copy context and removed lines exactly as in the file, with about three lines of context. *** End of File after a hunk says it ends the file.
Paths are relative to the session folder, or absolute. Every hunk must fit exactly one place, in file order, after the hunk before it: a hunk whose lines are missing or fit several places rejects the whole patch, and nothing is written. Files keep their line endings.
Lines are written as sent. Refs copied from a result into hunk lines are removed only where the engine proves them copies; where it cannot tell, the patch is refused with AMBIGUOUS_ECHO: send it again without them, or with literal: true to write every line exactly as sent.
Results and rejections show lines with their ref, LINEab content (e.g. 12ab   return total;, ref 12ab), or in the full view LINE#HASH#ANCHOR|content (e.g. 12#A3F#9BC|  return total;); the ref and the one space (or |) after it are not part of the file. The result shows the lines changed as they are now: keep editing from it without reading again. A rejection shows the current lines: copy them, or put the ref of a hunk's first line after its @@ (@@ 12ab, or @@ 12#A3F#9BC) to anchor it at exactly that line.`

const PATCH_FIELDS = {
  patchText: "The full patch text, from *** Begin Patch to *** End Patch",
  literal: "true: write every line exactly as sent, with no ref removed as a copy from a result",
}

/** What opens and closes the instruction, so that a host adds it once. */
const MARKER = "<hashline>"

const REFS = `The read and grep tools show each line with a ref: \`LINEab content\`, e.g. \`12ab   return total;\` (ref \`12ab\`), or in the full view \`LINE#HASH#ANCHOR|content\` (ref \`12#A3F#9BC\`); both kinds of refs work. A read shows the file's REV (\`REV:72C4946C\`). The ref and the one space (or \`|\`) after it are not part of the file.`

/** What a model with the edit tool is told about refs. */
const INSTRUCTION = `${MARKER}
${REFS}
To change a file, call edit with operations that cite these refs (replace, delete, insert_before, insert_after, prepend, append) instead of retyping old text. Put only the new text in content, never refs: content is written as sent, and if it holds lines that look copied from a view the edit is refused (AMBIGUOUS_ECHO) unless you add "literal": true to say the text is meant. To move or copy lines, cite them: {"op":"move","ref":"12ab","through":"20cd","after":"40ef"}.
A Jupyter notebook (.ipynb) reads as its cells: a header line per cell (\`# %% [code] id=a1b2c3d4\`), then the cell's source lines; outputs show after \`»\`, read-only. Edit inside a cell with the line ops, and cite a cell's header line to insert (insert_cell_after with cellType and content), delete, move, retype or annotate cells; a changed code cell's outputs are cleared.
An edit result shows fresh refs for the lines it changed and how the other lines moved: continue from it without reading the file again. If an edit is rejected nothing was written; use the refs the rejection shows, or read the file again.
</hashline>`

/** What a model with the apply_patch tool is told. */
const PATCH_INSTRUCTION = `${MARKER}
To change files, call apply_patch. Copy each hunk's context and removed lines exactly as the file has them, with about three lines of context: a hunk must fit exactly one place after the hunk before it, or the whole patch is rejected and nothing is written.
Results and rejections show lines with a ref, \`LINEab content\`, e.g. \`12ab   return total;\` (ref \`12ab\`), or \`LINE#HASH#ANCHOR|content\`, e.g. \`12#A3F#9BC|  return total;\`; the ref and the one space (or \`|\`) after it are not part of the file. A result shows the lines it changed as they are now (formatted, if the project formats files): continue from it without reading the files again. To retry a rejected hunk, copy the current lines it shows, or put the ref of the hunk's first line after its \`@@\` (\`@@ 12ab\` or \`@@ 12#A3F#9BC\`) to anchor it at exactly that line.
</hashline>`

/**
 * The instruction for a model with this edit tool.
 * @param {EditKind} kind
 */
function instructionFor(kind) {
  return kind === "patch" ? PATCH_INSTRUCTION : INSTRUCTION
}

/** The instruction without its marker lines, for hosts that place it themselves (MCP's `instructions`). */
const PLAIN_INSTRUCTION = INSTRUCTION.split("\n")
  .filter((line) => line !== MARKER && line !== MARKER.replace("<", "</"))
  .join("\n")

/**
 * One-line summaries of the tools, for hosts that list each tool in a line
 * of their own prompt (pi's prompt snippets).
 * @type {Record<string, string>}
 */
const SNIPPETS = {
  read: "Read a file; each line shows its ref (12ab) for edit to cite",
  edit: "Edit a file by citing the refs read and grep show (replace, delete, insert, move lines), or oldString/newString",
  grep: "Search file contents for a regular expression; each hit shows its ref (respects .gitignore)",
}

/**
 * What the OpenCode tools add to a result after a write, about a file as
 * the model names it (`shown`): the formatters that ran on it, and the
 * block of errors OpenCode's own tools append, in OpenCode's words.
 */
const AFTER_WRITE = {
  /**
   * The result's headline, extended: the formatters `names` changed the
   * file, or one ran and it is not known which.
   * @param {string} headline
   * @param {string[]} names
   */
  formatted: (headline, names) => (names.length > 0 ? `${headline}, then formatted it with ${names.join(" and ")}` : `${headline}; a formatter then ran on it`),
  /** @param {string} shown @param {string} name @param {string} detail */
  missing: (shown, name, detail) => `Note: ${shown} was not formatted with ${name}: ${detail}. The edit is in place as written.`,
  /**
   * @param {string} shown @param {string} name @param {string} detail
   * @param {boolean} changed whether the file differs from what the edit wrote
   */
  stopped: (shown, name, detail, changed) =>
    changed
      ? `Note: ${name} was stopped on ${shown} (${detail}) after it had changed the file; the lines shown above are the file as it is now.`
      : `Note: ${name} was stopped on ${shown} (${detail}); the file was left as the edit wrote it.`,
  /** @param {string} shown @param {string} name @param {string} detail */
  failed: (shown, name, detail) => `Note: ${name} failed on ${shown} (${detail}). The edit is in place; the lines shown above are the file as it is now.`,
  /** @param {string} shown @param {string} why */
  unreadable: (shown, why) => `Note: ${shown} could not be read after formatting (${why}); read it again before editing it.`,
  /** @param {string} where `this file`, or a file's path */
  lspErrors: (where) => `LSP errors detected in ${where}, please fix:`,
}

/**
 * Why a tool that cannot ask for access outside the project refuses a path
 * there (OpenCode 2 gives a plugin tool no way to ask).
 * @param {string} file
 * @param {string} directory the project
 */
const outsideProject = (file, directory) => `${file} is outside the project (${directory}); this OpenCode 2 tool has no way to ask for access there. Nothing was written.`

/**
 * @typedef {import("./hosts.mjs").Host} Host
 */

/**
 * Words joined as a sentence lists them: `a, b and c`.
 * @param {readonly string[]} words
 * @param {string} last the word before the last one
 */
const listed = (words, last) => (words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} ${last} ${words[words.length - 1]}`)

/**
 * The tools of a host's row that an integration's texts name; every
 * integration offers read, edit and grep.
 * @param {Host} host
 */
function named(host) {
  const { read, edit, grep, apply } = host.tools
  if (!read || !edit || !grep) throw new Error(`${host.title} does not offer read, edit and grep`)
  return { read, edit, grep, apply }
}

/**
 * When and how a model on a host configured by files uses hashline's
 * tools, in the names the host gives them (`lib/hosts.mjs`). Where the
 * host's own read stays on (Claude Code), the guide says to read with
 * hashline's before an edit.
 * @param {Host} host
 */
function hostGuide(host) {
  const t = named(host)
  const off = host.turnsOff ?? []
  if (host.ownRead) {
    const notebooks = host.notebookTool ? ` Jupyter notebooks (.ipynb) too: ${t.read} shows their cells, ${t.edit} edits them.` : ""
    return `Files are read and changed through the hashline tools here: read a text file with ${t.read} (each line shows a ref such as 12ab), change it with ${t.edit} citing those refs, and search with ${t.grep}.${notebooks} ${host.title}'s ${listed(off, "and")} are turned off; ${host.title}'s ${host.ownRead} shows no refs, so read a file with ${t.read} before editing it.${host.keepsWrite ? ` ${host.keepsWrite} stays for new files.` : ""}`
  }
  const apply = t.apply ? `, ${t.apply} changes several files as one,` : ""
  const guide = `Read and change text files with hashline's tools: ${t.read} shows each line with a ref (such as 12ab), ${t.edit} changes lines by citing those refs (its append creates a new file)${apply} and ${t.grep} searches, hits with refs. Use them, not ${off.join(" or ")}, to change files.`
  const later = host.deferred
  return later ? `${guide} They are the ${later.namespace} tools: when they are not in your tool list, call ${later.search} (for example "hashline read edit") to load them.` : guide
}

/**
 * What a model on a host configured by files is told at the start: the
 * guide, then the instruction.
 * @param {Host} host
 */
const hostContext = (host) => `${hostGuide(host)}\n${PLAIN_INSTRUCTION}`

/**
 * A skill file for a host that lists its skills' descriptions to the model
 * (Codex): the guide as the description, so that the model reads it in every
 * session, and the instruction as the body.
 * @param {Host} host
 */
const hostSkill = (host) => `---\nname: hashline\ndescription: ${JSON.stringify(hostGuide(host))}\n---\n\n${PLAIN_INSTRUCTION}\n`

/**
 * Why a call of the host's own edit tool was turned away, as the model reads it.
 * @param {Host} host
 * @param {string} tool
 */
function turnedAway(host, tool) {
  const t = named(host)
  if (tool === host.notebookTool) {
    return `${tool} is turned off by the hashline plugin, which edits notebooks itself. Read the notebook with ${t.read}: each cell shows as a header line with a ref (12ab # %% [code] id=a1b2c3d4), then its source lines with refs. Then call ${t.edit} with operations: line ops (replace, insert_after, delete) inside a cell citing its lines, or cell ops citing a cell's header line: replace_cell (the whole source), insert_cell_after or insert_cell_before with cellType (code, markdown or raw) and content, delete_cell, move_cell, set_cell_type, set_cell_metadata. A changed code cell's outputs are cleared.`
  }
  const apply = t.apply ? `; ${t.apply} changes several files as one` : ""
  return `${tool} is turned off by the hashline plugin. Read the file with ${t.read}, then change it with ${t.edit} citing the refs the read shows (append creates a new file)${apply}.`
}

module.exports = { OP_LINES, SNIPPETS, AFTER_WRITE, outsideProject, hostGuide, hostContext, hostSkill, turnedAway, READ_DESCRIPTION, GREP_DESCRIPTION, editDescription, EDIT_FIELDS, READ_FIELDS, GREP_FIELDS, APPLY_DESCRIPTION, APPLY_FIELDS, PATCH_DESCRIPTION, PATCH_FIELDS, MARKER, INSTRUCTION, PATCH_INSTRUCTION, instructionFor, PLAIN_INSTRUCTION }
