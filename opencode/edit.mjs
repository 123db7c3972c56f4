// @ts-check
// The `edit` tool for OpenCode: operations that cite the refs a read showed,
// checked and applied by the engine in one batch, with OpenCode's permission
// prompt and diff view in between, then the project's formatters and the
// problems the edit introduced, as OpenCode's own edit has them.
import path from "node:path"
import { parseEditArguments } from "../lib/arguments.cjs"
import { EDIT_DESCRIPTION, EDIT_SCHEMA, zodEditArgs } from "../lib/definitions.mjs"
import { AFTER_WRITE } from "../lib/texts.cjs"
import { toDiagnostics } from "./diagnostics.mjs"
import { askOutside, realLocation } from "./access.mjs"
import { engineFor, insideProject, projectRoot, toPosix } from "./engine.mjs"
import { editFlow, settleFile } from "./flow.mjs"
import { callerOf } from "./model.mjs"

/**
 * @typedef {import("@opencode-ai/plugin").ToolContext} ToolContext
 * @typedef {import("@opencode-ai/plugin").ToolDefinition} ToolDefinition
 * @typedef {import("./format.mjs").FormatDeps} FormatDeps
 */

export { OPS } from "../lib/definitions.mjs"
export { parseEditArguments as parseArguments } from "../lib/arguments.cjs"
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
  const title = toPosix(path.relative(root, file))

  const outside = !insideProject(file, place)
  if (outside) await askOutside(ctx, file)

  const engine = engineFor(place)
  // The engine works off OpenCode's thread, and the call's abort stops it
  // before anything is written.
  const signal = ctx.abort
  const caller = callerOf(ctx)
  return editFlow(ctx, {
    outside,
    leadsOutside: () => askOutside(ctx, realLocation(file)),
    plan: (outside) => engine.planAsync(file, request, { allowOutsideRoot: outside, signal, ...caller }),
    permission: (planned) => ({ permission: "edit", patterns: [title], always: ["*"], metadata: { filepath: file, diff: planned.diff } }),
    commit: (planned) => engine.commitAsync(planned, { signal }),
    async finish(written, outside) {
      const { result, notes, errors } = await settleFile(engine, { file, shown: title, written, outside }, formatting, signal)
      let output = [result.output.trimEnd(), ...notes].join("\n")
      if (errors) output += `\n\n${AFTER_WRITE.lspErrors("this file")}\n${errors}`
      return {
        title,
        output,
        metadata: {
          diff: result.diff,
          filediff: { file, patch: result.diff, additions: result.additions, deletions: result.deletions },
          diagnostics: result.problems.length > 0 ? { [file]: toDiagnostics(result.problems) } : {},
        },
      }
    },
  })
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
