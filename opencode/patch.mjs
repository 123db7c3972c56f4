// @ts-check
// The `apply_patch` tool OpenCode offers GPT models, backed by the engine:
// the same `patchText` in the `*** Begin Patch` format, but every hunk must
// fit exactly one place (or the ref after its `@@`), every file is checked
// before any is written, files keep their BOM, line endings and final
// newline, and the result shows fresh refs. The permission prompt and the
// metadata are those of OpenCode's own `apply_patch`.
import path from "node:path"
import { AFTER_WRITE, PATCH_DESCRIPTION, PATCH_FIELDS } from "../lib/texts.cjs"
import { toDiagnostics } from "./diagnostics.mjs"
import { engineFor, insideProject, nativeModule, projectRoot, toPosix } from "./engine.mjs"
import { editFlow, settleFile } from "./flow.mjs"
import { callerOf } from "./model.mjs"
import { askOutside, engineCall, realLocation } from "./access.mjs"

/**
 * @typedef {import("@opencode-ai/plugin").ToolContext} ToolContext
 * @typedef {import("@opencode-ai/plugin").ToolDefinition} ToolDefinition
 * @typedef {import("./format.mjs").FormatDeps} FormatDeps
 * @typedef {import("../index.js").PatchFile} PatchFile
 * @typedef {import("../index.js").Problem} Problem
 */

export { PATCH_DESCRIPTION } from "../lib/texts.cjs"

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
  const caller = callerOf(ctx)
  return editFlow(ctx, {
    outside,
    leadsOutside: async () => {
      for (const file of named) await askOutside(ctx, realLocation(file))
    },
    plan: (outside) => engine.planPatchAsync(patchText, { directory, allowOutsideRoot: outside, literal, signal, ...caller }),
    permission: (planned) => {
      const relative = planned.files.map((f) => toPosix(path.relative(root, f.absolutePath)))
      return {
        permission: "edit",
        patterns: relative,
        always: ["*"],
        metadata: { filepath: relative.join(", "), diff: totalDiff(planned.files), files: filesMetadata(planned.files, root) },
      }
    },
    commit: (planned) => engine.commitPatchAsync(planned, { signal }),
    finish: (done, outside) => finish(engine, done, root, outside, formatting, signal),
  })
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
    const { rev, headline } = f
    // A file deleted has neither; a file written has both.
    if (!rev || headline === undefined) {
      files.push(f)
      sections.push(f.output)
      continue
    }
    const file = f.moveAbsolutePath ?? f.absolutePath
    const settled = await settleFile(engine, { file, shown: shownPath(f), written: { ...f, rev, headline }, outside }, formatting, signal)
    notes.push(...settled.notes)
    const now = settled.result
    files.push(now)
    sections.push(now.output)
    if (now.problems.length > 0) {
      diagnostics[file] = toDiagnostics(now.problems)
      if (settled.errors) errors += `\n\n${AFTER_WRITE.lspErrors(toPosix(path.relative(root, file)))}\n${settled.errors}`
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

const ARGS = zod
  ? { patchText: zod.string().describe(PATCH_FIELDS.patchText), literal: zod.boolean().optional().describe(PATCH_FIELDS.literal) }
  : { patchText: { type: "string", description: PATCH_FIELDS.patchText }, literal: { type: "boolean", description: PATCH_FIELDS.literal } }

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
