// @ts-check
// The `edit` tool for OpenCode: operations that cite the refs a read showed,
// checked and applied by the engine in one batch, with OpenCode's permission
// prompt and diff view in between, then the project's formatters and the
// problems the edit introduced, as OpenCode's own edit has them.
import path from "node:path"
import { EDIT_DESCRIPTION, EDIT_SCHEMA, parseEditArguments, zodEditArgs } from "../lib/definitions.mjs"
import { report, toDiagnostics } from "./diagnostics.mjs"
import { askOutside, engineCallAsync, realLocation, toolError } from "./access.mjs"
import { engineFor, errorCode, insideProject, projectRoot, toPosix } from "./engine.mjs"
import { formatWritten, headlineOf } from "./format.mjs"

/**
 * @typedef {import("@opencode-ai/plugin").ToolContext} ToolContext
 * @typedef {import("@opencode-ai/plugin").ToolDefinition} ToolDefinition
 * @typedef {import("./types.mjs").EditPlan} EditPlan
 * @typedef {import("./format.mjs").FormatDeps} FormatDeps
 */

export { OPS, parseEditArguments as parseArguments } from "../lib/definitions.mjs"
export const DESCRIPTION = EDIT_DESCRIPTION

/**
 * Without zod the tool can still be offered, with fewer fields: OpenCode turns
 * plain JSON Schema arguments into a schema where every field is required.
 */
function jsonArgs() {
  return { filePath: EDIT_SCHEMA.properties.filePath, operations: EDIT_SCHEMA.properties.operations }
}

/** @type {typeof import("zod").z | undefined} */
let zod
try {
  zod = (await import("zod")).z
} catch {
  zod = undefined
}
const ARGS = zod ? zodEditArgs(zod) : jsonArgs()

/**
 * @param {unknown} args
 * @param {ToolContext} ctx
 * @param {FormatDeps} [formatting] how to run the project's formatters after the write
 */
export async function execute(args, ctx, formatting) {
  const { filePath, request } = parseEditArguments(args)
  const place = { directory: ctx.directory, worktree: ctx.worktree }
  const file = path.resolve(ctx.directory, filePath)
  const root = projectRoot(place)

  let outside = !insideProject(file, place)
  if (outside) await askOutside(ctx, file)

  const engine = engineFor(place)
  // The engine works off OpenCode's thread, and the call's abort stops it
  // before anything is written.
  const signal = ctx.abort
  const plan = () => engine.planAsync(file, request, { allowOutsideRoot: outside, signal })

  /** @type {EditPlan} */
  let planned
  try {
    planned = await plan()
  } catch (err) {
    // A path inside the project can still lead out of it through a link:
    // that needs the same permission as naming the outside path directly.
    if (outside || errorCode(err) !== "OUTSIDE_ROOT") throw toolError(err)
    await askOutside(ctx, realLocation(file))
    outside = true
    planned = await engineCallAsync(plan)
  }

  const title = toPosix(path.relative(root, file))
  for (let attempt = 0; ; attempt++) {
    await ctx.ask({
      permission: "edit",
      patterns: [title],
      always: ["*"],
      metadata: { filepath: file, diff: planned.diff },
    })
    let written
    try {
      written = await engine.commitAsync(planned, { signal })
    } catch (err) {
      // The file changed while the user looked at the diff: what was approved
      // is not what would be written, so plan again and show the new diff.
      if (errorCode(err) !== "BASE_CHANGED" || attempt > 0) throw toolError(err)
      planned = await engineCallAsync(plan)
      continue
    }
    const formatted = await formatWritten(
      engine,
      { file, shown: title, rev: written.rev, previousRev: written.previousRev, headline: headlineOf(written.output), allowOutsideRoot: outside },
      formatting,
      signal,
    )
    const result = formatted.result ?? written
    let output = [result.output.trimEnd(), ...formatted.notes].join("\n")
    const errors = report(file, result.problems)
    if (errors) output += `\n\nLSP errors detected in this file, please fix:\n${errors}`
    return {
      title,
      output,
      metadata: {
        diff: result.diff,
        filediff: { file, patch: result.diff, additions: result.additions, deletions: result.deletions },
        diagnostics: result.problems.length > 0 ? { [file]: toDiagnostics(result.problems) } : {},
      },
    }
  }
}

/**
 * The edit tool; with `formatting`, the project's formatters run after
 * each write, as after OpenCode's own edit.
 * @param {FormatDeps} [formatting]
 * @returns {ToolDefinition}
 */
export function createEditTool(formatting) {
  return /** @type {any} */ ({
    description: DESCRIPTION,
    args: ARGS,
    /** @param {unknown} args @param {ToolContext} ctx */
    execute: (args, ctx) => execute(args, ctx, formatting),
  })
}

export default createEditTool()
