// @ts-check
// The `apply_patch` tool OpenCode offers GPT models, backed by the engine:
// the same `patchText` in the `*** Begin Patch` format, but every hunk must
// fit exactly one place (or the ref after its `@@`), every file is checked
// before any is written, files keep their BOM, line endings and final
// newline, and the result shows fresh refs. The permission prompt and the
// metadata are those of OpenCode's own `apply_patch`.
import path from "node:path"
import { report, toDiagnostics } from "./diagnostics.mjs"
import { engineFor, errorCode, insideProject, nativeModule, projectRoot, toPosix } from "./engine.mjs"
import { formatWritten, headlineOf } from "./format.mjs"
import { askOutside, engineCall, engineCallAsync, realLocation, toolError } from "./access.mjs"

/**
 * @typedef {import("@opencode-ai/plugin").ToolContext} ToolContext
 * @typedef {import("@opencode-ai/plugin").ToolDefinition} ToolDefinition
 * @typedef {import("./format.mjs").FormatDeps} FormatDeps
 * @typedef {import("../index.js").PatchFile} PatchFile
 * @typedef {import("../index.js").Problem} Problem
 */

export const PATCH_DESCRIPTION = `Edit files with a patch: add, delete, move and change files in one call. patchText is:
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
Results and rejections show lines as LINE#HASH#ANCHOR|content (e.g. 12#A3F#9BC|  return total;); the ref and | are not part of the file. The result shows the lines changed as they are now: keep editing from it without reading again. A rejection shows the current lines: copy them, or put the ref of a hunk's first line after its @@ (@@ 12#A3F#9BC) to anchor it at exactly that line.`

/** @type {typeof import("zod").z | undefined} */
let zod
try {
  zod = (await import("zod")).z
} catch {
  zod = undefined
}

/**
 * An argument error, coded as the engine codes malformed requests.
 * @param {string} message
 */
function invalid(message) {
  return Object.assign(new Error(`Invalid apply_patch arguments: ${message}`), { code: "INVALID_REQUEST" })
}

/**
 * OpenCode does not check a custom tool's arguments against its schema.
 * @param {unknown} args
 * @returns {{ patchText: string, literal: boolean }}
 */
export function parsePatchArguments(args) {
  if (!args || typeof args !== "object" || Array.isArray(args)) throw invalid("expected an object with patchText.")
  const { patchText, literal, ...rest } = /** @type {Record<string, unknown>} */ (args)
  const unknown = Object.keys(rest).filter((key) => rest[key] !== null && rest[key] !== undefined)
  if (unknown.length > 0) throw invalid(`unknown argument${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}. The arguments are patchText and literal.`)
  if (typeof patchText !== "string" || patchText.trim() === "") {
    throw invalid("patchText is required: the patch, from *** Begin Patch to *** End Patch.")
  }
  if (literal !== undefined && literal !== null && typeof literal !== "boolean" && literal !== "true" && literal !== "false") {
    throw invalid(`literal must be true or false, got ${JSON.stringify(literal)}.`)
  }
  return { patchText, literal: literal === true || literal === "true" }
}

/**
 * @param {PatchFile} f
 */
const shownPath = (f) => f.movePath ?? f.path

/**
 * @param {unknown} args
 * @param {ToolContext} ctx
 * @param {FormatDeps} [formatting] how to run the project's formatters after the write
 */
export async function execute(args, ctx, formatting) {
  const { patchText, literal } = parsePatchArguments(args)
  const place = { directory: ctx.directory, worktree: ctx.worktree }
  const root = projectRoot(place)
  const directory = path.resolve(ctx.directory)

  // Paths outside the project need the same permission as with OpenCode's
  // own tools, asked before anything is read.
  const named = engineCall(() => nativeModule().patchPaths(patchText)).map((p) => path.resolve(directory, p))
  let outside = false
  for (const file of named) {
    if (insideProject(file, place)) continue
    await askOutside(ctx, file)
    outside = true
  }

  const engine = engineFor(place)
  // The engine works off OpenCode's thread, and the call's abort stops it
  // before anything is written.
  const signal = ctx.abort
  const plan = () => engine.planPatchAsync(patchText, { directory, allowOutsideRoot: outside, literal, signal })
  let planned
  try {
    planned = await plan()
  } catch (err) {
    // A path inside the project can still lead out of it through a link.
    if (outside || errorCode(err) !== "OUTSIDE_ROOT") throw toolError(err)
    for (const file of named) await askOutside(ctx, realLocation(file))
    outside = true
    planned = await engineCallAsync(plan)
  }

  for (let attempt = 0; ; attempt++) {
    const files = planned.files
    const relative = files.map((f) => toPosix(path.relative(root, f.absolutePath)))
    await ctx.ask({
      permission: "edit",
      patterns: relative,
      always: ["*"],
      metadata: { filepath: relative.join(", "), diff: totalDiff(files), files: filesMetadata(files, root) },
    })
    let done
    try {
      done = await engine.commitPatchAsync(planned, { signal })
    } catch (err) {
      // A file changed while the user looked at the diff: plan again and
      // show what would be written now.
      if (errorCode(err) !== "BASE_CHANGED" || attempt > 0) throw toolError(err)
      planned = await engineCallAsync(plan)
      continue
    }
    return await finish(engine, done, root, outside, formatting, signal)
  }
}

/**
 * Formats what was written and puts together what the model and the UI get.
 * @param {import("./types.mjs").HashlineInstance} engine
 * @param {import("../index.js").PatchResult} done
 * @param {string} root
 * @param {boolean} outside
 * @param {FormatDeps | undefined} formatting
 * @param {AbortSignal} signal the tool call's, which stops a formatter
 */
async function finish(engine, done, root, outside, formatting, signal) {
  /** @type {PatchFile[]} */
  const files = []
  const sections = []
  const notes = []
  /** @type {Record<string, ReturnType<typeof toDiagnostics>>} */
  const diagnostics = {}
  let errors = ""
  for (const f of done.files) {
    if (f.kind === "delete" || !f.rev) {
      files.push(f)
      sections.push(f.output)
      continue
    }
    const file = f.moveAbsolutePath ?? f.absolutePath
    const formatted = await formatWritten(
      engine,
      { file, shown: shownPath(f), rev: f.rev, previousRev: f.previousRev, headline: headlineOf(f.output), allowOutsideRoot: outside },
      formatting,
      signal,
    )
    notes.push(...formatted.notes)
    const r = formatted.result
    /** @type {PatchFile} */
    const now = r ? { ...f, rev: r.rev, diff: r.diff, additions: r.additions, deletions: r.deletions, output: r.output, problems: r.problems } : f
    files.push(now)
    sections.push(now.output)
    if (now.problems.length > 0) {
      diagnostics[file] = toDiagnostics(now.problems)
      const block = report(file, now.problems)
      if (block) errors += `\n\nLSP errors detected in ${toPosix(path.relative(root, file))}, please fix:\n${block}`
    }
  }
  const output = [done.summary, ...sections].join("\n").trimEnd() + (notes.length > 0 ? `\n${notes.join("\n")}` : "") + errors
  return {
    title: done.summary.trimEnd(),
    output,
    metadata: { diff: totalDiff(files), files: filesMetadata(files, root), diagnostics },
  }
}

/** @param {PatchFile[]} files */
function totalDiff(files) {
  return files.map((f) => f.diff).join("\n")
}

/**
 * The per-file metadata OpenCode's own apply_patch gives its UI.
 * @param {PatchFile[]} files
 * @param {string} root
 */
function filesMetadata(files, root) {
  return files.map((f) => ({
    filePath: f.absolutePath,
    relativePath: toPosix(path.relative(root, f.moveAbsolutePath ?? f.absolutePath)),
    type: f.kind,
    patch: f.diff,
    additions: f.additions,
    deletions: f.deletions,
    ...(f.moveAbsolutePath ? { movePath: f.moveAbsolutePath } : {}),
  }))
}

const PATCH_TEXT = "The full patch text, from *** Begin Patch to *** End Patch"
const LITERAL = "true: write every line exactly as sent, with no ref removed as a copy from a result"
const ARGS = zod
  ? { patchText: zod.string().describe(PATCH_TEXT), literal: zod.boolean().optional().describe(LITERAL) }
  : { patchText: { type: "string", description: PATCH_TEXT }, literal: { type: "boolean", description: LITERAL } }

/**
 * The apply_patch tool; with `formatting`, the project's formatters run on
 * every file written, as after OpenCode's own apply_patch.
 * @param {FormatDeps} [formatting]
 * @returns {ToolDefinition}
 */
export function createPatchTool(formatting) {
  return /** @type {any} */ ({
    description: PATCH_DESCRIPTION,
    args: ARGS,
    /** @param {unknown} args @param {ToolContext} ctx */
    execute: (args, ctx) => execute(args, ctx, formatting),
  })
}

export default createPatchTool()
