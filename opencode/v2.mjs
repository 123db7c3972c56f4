// @ts-check
// The OpenCode 2 half of the plugin: `setup(ctx)`, the entry OpenCode 2 calls
// (OpenCode 1 calls `server`, in plugin.mjs). It registers `edit` and `patch`
// under the built-ins' names, so that they replace them, tags what `read` and
// `grep` return with refs, and removes refs a model copied into `write`
// content, as the OpenCode 1 half does.
//
// UNTESTED AGAINST A REAL OPENCODE 2: no OpenCode 2 build is on a registry
// this project reaches. The contract below is taken from OpenCode's public
// source (github.com/anomalyco/opencode), file by file at these revisions:
// - packages/core/src/plugin/module.ts @ 07db2b925a41: a plugin module's
//   default export is `{ id, setup }` (or `{ id, effect }`); other keys are
//   not looked at, so `{ id, server, setup }` serves both generations; an npm
//   plugin is loaded from its `server` subpath first.
// - packages/plugin/src/promise/plugin.ts @ 0ef9ef4be011: `setup(context)`,
//   `context.options` (the plugin's options) and `context.tool`.
// - packages/plugin/src/effect/plugin.ts @ 07bc181c5a59: `context.location`
//   (its `directory` is where relative paths resolve).
// - packages/plugin/src/promise/tool.ts @ 196e46122874 and
//   promise/registration.ts @ baf3a6591a15: `tool.transform(editor =>
//   editor.add(info))`, `tool.hook("execute.before" | "execute.after", fn)`
//   with a mutable `input` before and a mutable `result` after; the tool
//   context carries `signal`; a hook or tool fails by throwing.
// - packages/schema/src/tool.ts @ 0f131b3e39f2: a tool is `{ name,
//   description, input (a JSON schema will do), execute, options: { codemode,
//   permission } }` and returns `{ content, metadata }`; `codemode` defaults
//   to true, which hides a tool behind the code-mode tool.
// - packages/core/src/tool/plugin/edit.ts @ 179525d57648, write.ts @
//   1bc8473e2697, patch.ts @ 00940b1c333a, read.ts @ 13d5020552c0, grep.ts @
//   108862af98a1: the built-ins are plugins adding `edit`, `write`, `patch`
//   (offered as `apply_patch`), `read`, `grep` with `codemode: false`; they
//   take `path`; `read` shows `Read file PATH, lines A-B` then `N: text`;
//   `grep` shows OpenCode 1's `Found N matches` form; a session `context`
//   hook drops `edit` and `write` or `patch` by name depending on the model.
// - packages/core/src/plugin/promise.ts @ 0a80062dfbf0: how a promise
//   plugin's transforms and hooks reach the host.
// What OpenCode 2 gives a plugin tool has no permission prompt with a diff
// and no project formatter: these tools rely on the tool-level `edit`
// permission, refuse paths outside the project, and do not format.
import path from "node:path"
import { EDIT_SCHEMA } from "../lib/definitions.mjs"
import { configureEngines, engineFor, errorCode, nativeModule } from "./engine.mjs"
import { editKindOf, tagsReads } from "./model.mjs"
import { PATCH_DESCRIPTION, execute as executePatch } from "./patch.mjs"
import { DESCRIPTION, execute as executeEdit } from "./edit.mjs"
import { tagGrepOutput, tagReadPageOutput } from "./view.mjs"

/**
 * @typedef {import("./v2-types.d.mts").V2Context} V2Context
 * @typedef {import("./v2-types.d.mts").V2ToolContext} V2ToolContext
 * @typedef {import("./v2-types.d.mts").V2ToolInfo} V2ToolInfo
 * @typedef {import("./model.mjs").EditKind} EditKind
 */

const { filePath: FILE_PATH, ...EDIT_FIELDS } = EDIT_SCHEMA.properties

/** The edit arguments as OpenCode 2 names them: `path`, like its own tools. */
const EDIT_INPUT = { ...EDIT_SCHEMA, properties: { path: FILE_PATH, ...EDIT_FIELDS }, required: ["path"] }

const PATCH_INPUT = {
  type: "object",
  properties: {
    patchText: { description: "The patch, from *** Begin Patch to *** End Patch", type: "string" },
    literal: { description: "true: write every line exactly as sent, with no ref removed as a copy", type: "boolean" },
  },
  required: ["patchText"],
}

/**
 * The arguments with OpenCode 2's `path` given the name the edit flow reads,
 * `filePath`; with both, both stay and the argument check refuses the call.
 * @param {unknown} input
 */
function withFilePath(input) {
  if (!input || typeof input !== "object" || Array.isArray(input)) return input
  const { path: given, ...rest } = /** @type {Record<string, unknown>} */ (input)
  return given !== undefined && rest.filePath === undefined ? { ...rest, filePath: given } : input
}

/**
 * What the OpenCode 1 edit flow needs of its call context, from OpenCode 2's.
 * OpenCode 2 asks the tool-level `edit` permission before a call; it gives a
 * plugin no prompt for paths outside the project, so those are refused.
 * @param {string} directory
 * @param {V2ToolContext} context
 */
function callContext(directory, context) {
  return /** @type {any} */ ({
    directory,
    worktree: directory,
    sessionID: context.sessionID,
    messageID: context.messageID,
    callID: context.id,
    abort: context.signal ?? new AbortController().signal,
    /** @param {{ permission: string, metadata?: { filepath?: string } }} request */
    ask: async (request) => {
      if (request.permission === "edit") return
      throw Object.assign(new Error(`${request.metadata?.filepath ?? "That path"} is outside the project (${directory}); this OpenCode 2 tool has no way to ask for access there. Nothing was written.`), { code: "OUTSIDE_ROOT" })
    },
  })
}

/**
 * A V1-shaped result as OpenCode 2 takes it.
 * @param {{ title?: string, output: string, metadata?: Record<string, unknown> }} result
 */
function toResult(result) {
  return { content: result.output, metadata: { ...result.metadata, title: result.title } }
}

/**
 * The OpenCode 2 entry: registers the tools and hooks on `ctx`. Without a
 * loadable engine it registers nothing, so OpenCode's own tools stay.
 * OpenCode 1.18.30 and later run it too, beside `server`, with a context
 * that has no `tool` to register with: it then does nothing at all, so
 * that it leaves the engines `server` configured as they are.
 * @param {V2Context} ctx
 */
export async function setup(ctx) {
  if (typeof ctx?.tool?.transform !== "function") return
  const options = /** @type {Record<string, unknown>} */ (ctx.options ?? {})
  const directory = path.resolve(ctx.location?.directory ?? process.cwd())
  const place = { directory, worktree: directory }
  try {
    configureEngines({ view: options.view, syntax: options.syntax })
    nativeModule()
    // Made now, so that an option the binding refuses turns hashline off
    // with the reason before any tool is offered.
    engineFor(place)
  } catch (err) {
    console.warn(`hashline is off, OpenCode's own tools stay: ${err instanceof Error ? err.message : String(err)}`)
    return
  }
  /** What the clean-up of each write did, to tell with its result. @type {Map<string, string>} */
  const cleanedWrites = new Map()
  /** @type {Map<string, EditKind>} */
  const kinds = new Map()

  /** @type {V2ToolInfo[]} */
  const tools = [
    {
      name: "edit",
      description: DESCRIPTION,
      input: EDIT_INPUT,
      options: { codemode: false, permission: "edit" },
      execute: async (input, context) => toResult(await executeEdit(withFilePath(input), callContext(directory, context))),
    },
    {
      name: "patch",
      description: PATCH_DESCRIPTION,
      input: PATCH_INPUT,
      options: { codemode: false, permission: "edit" },
      freeform: { input: "patchText", name: "apply_patch" },
      execute: async (input, context) => toResult(await executePatch(input, callContext(directory, context))),
    },
  ]
  await ctx.tool.transform((editor) => {
    for (const tool of tools) editor.add(tool)
  })

  /**
   * Refs for lines another tool displayed, from the engine edits use.
   * @param {string} file
   * @param {import("./types.mjs").ShownLine[]} lines
   */
  const tag = (file, lines) => engineFor(place).tagAsync(path.resolve(directory, file), lines, { allowOutsideRoot: true })

  await ctx.tool.hook("execute.before", (event) => {
    if (event.tool !== "write") return
    const input = /** @type {Record<string, unknown> | null} */ (event.input)
    if (!input || typeof input !== "object" || typeof input.content !== "string") return
    // A `literal` the model adds to say "write exactly this" is taken here
    // and removed before OpenCode checks the arguments.
    const literal = input.literal === true || input.literal === "true"
    if ("literal" in input) delete input.literal
    const target = typeof input.path === "string" ? input.path : input.filePath
    if (literal || typeof target !== "string") return
    let cleaned
    try {
      cleaned = engineFor(place).stripViewPrefixes(path.resolve(directory, target), input.content, { allowOutsideRoot: true })
    } catch (err) {
      // Lines that may or may not be copied prefixes: the write is refused,
      // with how to say which. Any other failure leaves the write as it is.
      if (errorCode(err) === "AMBIGUOUS_ECHO") throw new Error(err instanceof Error ? err.message : String(err))
      return
    }
    if (cleaned.stripped > 0) {
      input.content = cleaned.text
      cleanedWrites.set(event.id, cleaned.note ?? "")
    }
  })

  await ctx.tool.hook("execute.after", async (event) => {
    if (event.status !== "completed" || typeof event.result?.content !== "string") return
    const content = event.result.content
    if (event.tool === "write") {
      const note = cleanedWrites.get(event.id)
      if (note === undefined) return
      cleanedWrites.delete(event.id)
      event.result = { ...event.result, content: `${content}\n\n${note}` }
      return
    }
    if (!tagsReads(kinds.get(event.sessionID) ?? "edit")) return
    try {
      if (event.tool === "read") event.result = { ...event.result, content: await tagReadPageOutput(content, tag) }
      else if (event.tool === "grep") event.result = { ...event.result, content: await tagGrepOutput(content, tag) }
    } catch {
      // Refs are an addition: without them the model still gets the plain view.
    }
  })

  // OpenCode 2 decides per request which edit tool a model gets, by the
  // model's id, as OpenCode 1 does: reads are tagged for the models with edit.
  if (typeof ctx.session?.hook === "function") {
    await ctx.session.hook("context", (event) => {
      const id = event?.model?.id
      if (typeof id === "string" && event.sessionID) kinds.set(event.sessionID, editKindOf(id))
    })
  }
}
