// @ts-check
// The `edit` tool for OpenCode: operations that cite the refs a read showed,
// checked and applied by the engine in one batch, with OpenCode's permission
// prompt and diff view in between.
import fs from "node:fs"
import path from "node:path"
import { engineFor, errorCode, insideProject, projectRoot, toPosix } from "./engine.mjs"

/**
 * @typedef {import("@opencode-ai/plugin").ToolContext} ToolContext
 * @typedef {import("@opencode-ai/plugin").ToolDefinition} ToolDefinition
 * @typedef {import("./types.mjs").EditRequest} EditRequest
 * @typedef {import("./types.mjs").EditPlan} EditPlan
 */

export const OPS = /** @type {const} */ (["replace", "delete", "insert_before", "insert_after", "prepend", "append"])

export const DESCRIPTION = `Edit a file by citing the refs that read and grep show before each line, e.g. \`12#A3F#9BC|  return total;\` has the ref \`12#A3F#9BC\`.
Give filePath and operations; the whole batch is checked against the version you read and applied at once, or nothing is written:
- {"op":"replace","ref":R,"through":R2,"content":C}: lines R..R2 (inclusive; omit through for one line) become C
- {"op":"delete","ref":R,"through":R2}
- {"op":"insert_before"|"insert_after","ref":R,"content":C}
- {"op":"prepend"|"append","content":C}: at the start or end of the file (append creates a missing file)
content is the new text only, lines separated by \\n, never with the ref prefixes. All refs name lines of the version you read: do not adjust line numbers for earlier operations of the same batch. rev (the REV the read showed) is optional.
The result shows fresh refs for the changed lines and how the others moved: keep editing from it without reading again. A rejected edit says why and shows the current lines with fresh refs.
Without refs, oldString/newString (and replaceAll) replace one unique occurrence of oldString instead, as the classic edit tool does.`

const ARGUMENTS = ["filePath", "rev", "operations", "oldString", "newString", "replaceAll"]

/** @param {typeof import("zod").z} z */
function zodArgs(z) {
  return {
    filePath: z.string().describe("Path of the file to edit, absolute or relative to the session folder"),
    rev: z.string().optional().describe("The REV the read showed, e.g. 72C4946C (optional)"),
    operations: z
      .array(
        z.object({
          op: z.enum(OPS).describe("What to do"),
          ref: z.string().optional().describe("Ref of the first line, as shown, e.g. 12#A3F#9BC (not for prepend/append)"),
          through: z.string().optional().describe("Ref of the last line of a replace or delete range (inclusive)"),
          content: z
            .string()
            .optional()
            .describe("New lines, separated by \\n, without ref prefixes (replace, insert_*, prepend, append)"),
        }),
      )
      .optional()
      .describe("Edits citing refs, all against the version you read"),
    oldString: z.string().optional().describe("Fallback without refs: exact text to replace"),
    newString: z.string().optional().describe("Fallback without refs: the replacement text"),
    replaceAll: z.boolean().optional().describe("Fallback without refs: replace every occurrence of oldString"),
  }
}

/**
 * Without zod the tool can still be offered, with fewer fields: OpenCode turns
 * plain JSON Schema arguments into a schema where every field is required.
 */
function jsonArgs() {
  return {
    filePath: { type: "string", description: "Path of the file to edit, absolute or relative to the session folder" },
    operations: {
      type: "array",
      description: "Edits citing refs, all against the version you read",
      items: {
        type: "object",
        properties: {
          op: { type: "string", enum: [...OPS] },
          ref: { type: "string" },
          through: { type: "string" },
          content: { type: "string" },
        },
        required: ["op"],
      },
    },
  }
}

/** @type {typeof import("zod").z | undefined} */
let zod
try {
  zod = (await import("zod")).z
} catch {
  zod = undefined
}

/** @param {string} message */
function invalid(message) {
  return new Error(`Invalid edit arguments: ${message}`)
}

/** @param {unknown} value */
function describeType(value) {
  if (value === null) return "null"
  if (Array.isArray(value)) return "an array"
  return typeof value === "object" || typeof value === "undefined" ? `an ${typeof value}` : `a ${typeof value}`
}

/**
 * OpenCode does not check a custom tool's arguments against its schema, so
 * they are checked here, with errors that say how to call the tool instead.
 * @param {unknown} args
 * @returns {{ filePath: string, request: EditRequest }}
 */
export function parseArguments(args) {
  if (!args || typeof args !== "object" || Array.isArray(args)) {
    throw invalid(`expected an object with filePath and operations, got ${describeType(args)}.`)
  }
  // Some providers send every optional field, as null when unused.
  const input = /** @type {Record<string, unknown>} */ (
    Object.fromEntries(Object.entries(args).filter(([key, value]) => value !== null || key === "filePath"))
  )
  const unknown = Object.keys(input).filter((key) => !ARGUMENTS.includes(key))
  if (unknown.length > 0) {
    throw invalid(`unknown argument${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}. The arguments are ${ARGUMENTS.join(", ")}.`)
  }

  const { filePath, rev, oldString, newString, replaceAll } = input
  if (typeof filePath !== "string" || filePath.trim() === "") {
    throw invalid(`filePath must be the path of the file to edit, got ${describeType(filePath)}.`)
  }
  if (rev !== undefined && typeof rev !== "string") {
    throw invalid(`rev must be the REV string the read showed (e.g. "72C4946C"), got ${describeType(rev)}.`)
  }

  let operations = input.operations
  // Some models send the array as JSON text; it is unambiguous, so take it.
  if (typeof operations === "string" && operations.trim().startsWith("[")) {
    try {
      operations = JSON.parse(operations)
    } catch {
      throw invalid("operations must be an array of objects; the text given is not valid JSON.")
    }
  }
  const hasOperations = operations !== undefined
  const hasFallback = oldString !== undefined || newString !== undefined

  if (hasOperations && hasFallback) {
    throw invalid("give either operations (edits citing refs) or oldString/newString, not both.")
  }
  if (!hasOperations && !hasFallback) {
    throw invalid(
      'give operations, e.g. [{"op":"replace","ref":"12#A3F#9BC","content":"new line"}], citing the refs the read showed; or oldString and newString.',
    )
  }

  /** @type {EditRequest} */
  const request = {}
  if (typeof rev === "string" && rev.trim() !== "") request.rev = rev.trim()

  if (hasOperations) {
    if (!Array.isArray(operations)) {
      throw invalid(`operations must be an array of objects, got ${describeType(operations)}.`)
    }
    if (operations.length === 0) {
      throw invalid("operations is empty: nothing to do.")
    }
    operations.forEach((op, i) => {
      if (!op || typeof op !== "object" || Array.isArray(op)) {
        throw invalid(`operations[${i}] must be an object like {"op":"replace","ref":"12#A3F#9BC","content":"..."}, got ${describeType(op)}.`)
      }
    })
    if (replaceAll !== undefined) throw invalid("replaceAll goes with oldString/newString, not with operations.")
    request.operations = operations
    return { filePath, request }
  }

  if (typeof oldString !== "string") throw invalid(`oldString must be a string, got ${describeType(oldString)}.`)
  if (typeof newString !== "string") throw invalid(`newString must be a string, got ${describeType(newString)}.`)
  if (replaceAll !== undefined && typeof replaceAll !== "boolean") {
    throw invalid(`replaceAll must be true or false, got ${describeType(replaceAll)}.`)
  }
  if (oldString === newString) throw new Error("No changes to apply: oldString and newString are identical.")
  request.oldString = oldString
  request.newString = newString
  if (replaceAll !== undefined) request.replaceAll = replaceAll
  return { filePath, request }
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
  const { filePath, request } = parseArguments(args)
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
  args: zod ? zodArgs(zod) : jsonArgs(),
  execute,
})

export default editTool
