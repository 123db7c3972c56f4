// @ts-check
// The `edit` tool for OpenCode: operations that cite the refs a read showed,
// checked and applied by the engine in one batch, with OpenCode's permission
// prompt and diff view in between.
import fs from "node:fs"
import path from "node:path"
import { EDIT_DESCRIPTION, EDIT_SCHEMA, parseEditArguments, zodEditArgs } from "../lib/definitions.mjs"
import { engineFor, errorCode, insideProject, projectRoot, toPosix } from "./engine.mjs"

/**
 * @typedef {import("@opencode-ai/plugin").ToolContext} ToolContext
 * @typedef {import("@opencode-ai/plugin").ToolDefinition} ToolDefinition
 * @typedef {import("./types.mjs").EditPlan} EditPlan
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

/**
 * The real location of a path, through symbolic links, as far as it exists.
 * @param {string} file
 */
function realLocation(file) {
  let dir = file
  const rest = []
  for (;;) {
    try {
      return path.join(fs.realpathSync(dir), ...rest)
    } catch {
      const parent = path.dirname(dir)
      if (parent === dir) return file
      rest.unshift(path.basename(dir))
      dir = parent
    }
  }
}

/**
 * Asks for access to a file outside the project, as OpenCode's own file tools
 * do, so the same rules and remembered answers apply.
 * @param {ToolContext} ctx
 * @param {string} file
 */
async function askOutside(ctx, file) {
  const dir = path.dirname(file)
  const glob = toPosix(path.join(dir, "*"))
  await ctx.ask({ permission: "external_directory", patterns: [glob], always: [glob], metadata: { filepath: file, parentDir: dir } })
}

/** @param {unknown} err */
function toolError(err) {
  if (err instanceof Error) {
    // The engine's message is written for the model already; a fresh Error
    // keeps OpenCode from adding a native stack to it.
    return errorCode(err) ? new Error(err.message) : err
  }
  return new Error(String(err))
}

/**
 * @template T
 * @param {() => T} fn
 * @returns {T}
 */
function engineCall(fn) {
  try {
    return fn()
  } catch (err) {
    throw toolError(err)
  }
}

/**
 * @param {unknown} args
 * @param {ToolContext} ctx
 */
export async function execute(args, ctx) {
  const { filePath, request } = parseEditArguments(args)
  const place = { directory: ctx.directory, worktree: ctx.worktree }
  const file = path.resolve(ctx.directory, filePath)
  const root = projectRoot(place)

  let outside = !insideProject(file, place)
  if (outside) await askOutside(ctx, file)

  const engine = engineFor(place)
  const plan = () => engine.plan(file, request, { allowOutsideRoot: outside })

  /** @type {EditPlan} */
  let planned
  try {
    planned = plan()
  } catch (err) {
    // A path inside the project can still lead out of it through a link:
    // that needs the same permission as naming the outside path directly.
    if (outside || errorCode(err) !== "OUTSIDE_ROOT") throw toolError(err)
    await askOutside(ctx, realLocation(file))
    outside = true
    planned = engineCall(plan)
  }

  const title = toPosix(path.relative(root, file))
  for (let attempt = 0; ; attempt++) {
    await ctx.ask({
      permission: "edit",
      patterns: [title],
      always: ["*"],
      metadata: { filepath: file, diff: planned.diff },
    })
    try {
      const result = engine.commit(planned)
      return {
        title,
        output: result.output,
        metadata: {
          diff: result.diff,
          filediff: { file, patch: result.diff, additions: result.additions, deletions: result.deletions },
          diagnostics: {},
        },
      }
    } catch (err) {
      // The file changed while the user looked at the diff: what was approved
      // is not what would be written, so plan again and show the new diff.
      if (errorCode(err) !== "BASE_CHANGED" || attempt > 0) throw toolError(err)
      planned = engineCall(plan)
    }
  }
}

/** @type {ToolDefinition} */
const editTool = /** @type {any} */ ({
  description: DESCRIPTION,
  args: zod ? zodEditArgs(zod) : jsonArgs(),
  execute,
})

export default editTool
