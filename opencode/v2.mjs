// @ts-check
// The OpenCode 2 half of the plugin: `setup(ctx)`, the entry OpenCode 2 calls
// (OpenCode 1 calls `server`, in plugin.mjs). It registers `edit` and `patch`
// under the built-ins' names, so that they replace them, and maps OpenCode
// 2's hook events onto the hooks both halves share (hooks.mjs): refs in what
// `read` and `grep` return, refs a model copied into `write` content
// removed. What differs from OpenCode 1 is its row of lib/hosts.mjs (tool
// names, `path`) and the form of its read output.
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
import { toFilePath } from "../lib/arguments.cjs"
import { EDIT_SCHEMA } from "../lib/definitions.mjs"
import { HOSTS } from "../lib/hosts.mjs"
import { PATCH_FIELDS, outsideProject } from "../lib/texts.cjs"
import { withFileArgument } from "../lib/tools.mjs"
import { startEngines } from "./engine.mjs"
import { sharedHooks } from "./hooks.mjs"
import { editKindOf } from "./model.mjs"
import { PATCH_DESCRIPTION, execute as executePatch } from "./patch.mjs"
import { DESCRIPTION, execute as executeEdit } from "./edit.mjs"
import { tagReadPageOutput } from "./view.mjs"

/**
 * @typedef {import("./v2-types.d.mts").V2Context} V2Context
 * @typedef {import("./v2-types.d.mts").V2ToolContext} V2ToolContext
 * @typedef {import("./v2-types.d.mts").V2ToolInfo} V2ToolInfo
 */

const HOST = HOSTS["opencode-2"]

/** The edit tool as OpenCode 2 names its file argument: `path`, like its own tools. */
const EDIT = withFileArgument({ description: DESCRIPTION, inputSchema: EDIT_SCHEMA }, HOST.fileArgument)

const PATCH_INPUT = {
  type: "object",
  properties: {
    patchText: { description: PATCH_FIELDS.patchText, type: "string" },
    literal: { description: PATCH_FIELDS.literal, type: "boolean" },
  },
  required: ["patchText"],
}

/**
 * What the OpenCode 1 edit flow needs of its call context, from OpenCode 2's.
 * OpenCode 2 asks the tool-level `edit` permission before a call; it gives a
 * plugin no prompt for paths outside the project, so those are refused. The
 * model is its session's, as the `context` hook showed it, where OpenCode 1
 * gives the call's own (`extra.model`).
 * @param {string} directory
 * @param {V2ToolContext} context
 * @param {string | undefined} model
 */
function callContext(directory, context, model) {
  return /** @type {any} */ ({
    directory,
    worktree: directory,
    sessionID: context.sessionID,
    messageID: context.messageID,
    callID: context.id,
    extra: model ? { model: { id: model } } : undefined,
    abort: context.signal ?? new AbortController().signal,
    /** @param {{ permission: string, metadata?: { filepath?: string } }} request */
    ask: async (request) => {
      if (request.permission === "edit") return
      throw Object.assign(new Error(outsideProject(request.metadata?.filepath ?? "That path", directory)), { code: "OUTSIDE_ROOT" })
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
    startEngines({ host: "opencode-2", view: options.view, syntax: options.syntax, telemetry: options.telemetry }, place)
  } catch (err) {
    console.warn(`hashline is off, OpenCode's own tools stay: ${err instanceof Error ? err.message : String(err)}`)
    return
  }
  const shared = sharedHooks(place, { fileArgument: HOST.fileArgument, tagRead: tagReadPageOutput })

  /** @type {V2ToolInfo[]} */
  const tools = [
    {
      name: HOST.tools.edit,
      description: EDIT.description,
      input: EDIT.inputSchema,
      options: { codemode: false, permission: "edit" },
      execute: async (input, context) => toResult(await executeEdit(toFilePath(input, HOST.fileArgument), callContext(directory, context, shared.modelOf(context.sessionID)))),
    },
    {
      name: HOST.tools.patch,
      description: PATCH_DESCRIPTION,
      input: PATCH_INPUT,
      options: { codemode: false, permission: "edit" },
      freeform: { input: "patchText", name: "apply_patch" },
      execute: async (input, context) => toResult(await executePatch(input, callContext(directory, context, shared.modelOf(context.sessionID)))),
    },
  ]
  await ctx.tool.transform((editor) => {
    for (const tool of tools) editor.add(tool)
  })

  await ctx.tool.hook("execute.before", (event) => {
    if (event.tool === "write") shared.beforeWrite(event.id, event.input, event.sessionID)
  })

  await ctx.tool.hook("execute.after", async (event) => {
    if (event.status !== "completed" || typeof event.result?.content !== "string") return
    const content = event.result.content
    const changed = event.tool === "write" ? shared.afterWrite(event.id, content) : await shared.tagged(event.tool, event.sessionID, content, event.id, event.input)
    if (changed !== undefined) event.result = { ...event.result, content: changed }
  })

  // OpenCode 2 decides per request which edit tool a model gets, by the
  // model's id, as OpenCode 1 does: reads are tagged for the models with edit.
  if (typeof ctx.session?.hook === "function") {
    await ctx.session.hook("context", (event) => {
      const id = event?.model?.id
      if (typeof id === "string" && event.sessionID) shared.chose(event.sessionID, editKindOf(id), id)
    })
  }
}
