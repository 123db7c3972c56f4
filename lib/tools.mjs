// @ts-check
// The one list of hashline's tools that every JS host maps: the MCP server,
// the AI SDK tools, and any agent framework or coding agent. Each tool is
//
//   {
//     name,          "read" | "edit" | "grep" | "apply"
//     title,         a short human title
//     description,   what the model is told (texts.cjs)
//     inputSchema,   the arguments as JSON Schema (a fresh copy per list)
//     zodSchema(z),  the same arguments as a zod shape, for hosts that take zod
//     annotations,   { readOnlyHint, destructiveHint, idempotentHint, openWorldHint }
//     call(args, { signal, model, callId }),    resolves to { text, result }:
//                                the text for the model and the engine's result
//     execute(args, { signal, model, callId }), resolves to the text for the model
//   }
//
// `model` and `callId`, where the host knows them, name the model that made
// the call and the host's id of it in the local telemetry record
// (docs/telemetry.md); a host names itself by the engine's `host` option,
// or per call by `host` where one engine serves several (the MCP server).
//
// `call` and `execute` check the host's part of the arguments, then run the
// engine off the event loop (its async forms); an aborted `signal` stops a
// call before it writes anything (CANCELLED). A failure rejects with an Error
// whose `code` is the engine's code and whose `message` is the repair text
// for the model: a host hands that message to the model as the tool's
// result, and decides nothing about the edit itself.
//
// `apply` edits several files as one change (`applyBatchAsync`): all of them
// or none. Hosts that offer the classic three tools leave it out.
import { parseApplyArguments, parseEditArguments, parseGrepArguments, parseReadArguments, toFilePath } from "./arguments.cjs"
import { APPLY_SCHEMA, EDIT_DESCRIPTION, EDIT_SCHEMA, GREP_SCHEMA, READ_SCHEMA, zodShape } from "./definitions.mjs"
import { openEngine } from "./engine.cjs"
import { modelSettings } from "./hosts.mjs"
import { APPLY_DESCRIPTION, GREP_DESCRIPTION, READ_DESCRIPTION } from "./texts.cjs"

/**
 * @typedef {import("../index.js").HashlineOptions} HashlineOptions
 * @typedef {import("../index.js").Hashline} Hashline
 * @typedef {import("./tools-types.d.mts").HashlineTool} HashlineTool
 * @typedef {import("./tools-types.d.mts").HashlineToolName} HashlineToolName
 * @typedef {import("./tools-types.d.mts").HashlineTools} HashlineTools
 * @typedef {import("./tools-types.d.mts").ObjectSchema} ObjectSchema
 * @typedef {import("./hosts.mjs").Host} Host
 * @typedef {import("./tools-types.d.mts").HashlineToolsOptions} HashlineToolsOptions
 * @typedef {(model: string | undefined) => import("./hosts.mjs").ModelSetting} SettingOf
 */

// Every hint stated, since a client assumes the riskiest value of one left
// out. Nothing leaves the root, so no tool reaches an open world; an edit
// replaces lines, and the same edit sent twice is refused the second time.
/**
 * The engine's options for one call: its signal, and who made it.
 * @param {import("./tools-types.d.mts").HashlineCallOptions} [options]
 */
const callOptions = (options) => ({ signal: options?.signal, model: options?.model, callId: options?.callId, host: options?.host })

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
const WRITES = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false }

/**
 * @param {Omit<HashlineTool, "execute" | "zodSchema">} tool
 * @returns {HashlineTool}
 */
function tool(tool) {
  return {
    ...tool,
    zodSchema: (z) => zodShape(z, tool.inputSchema),
    execute: async (args, options) => (await tool.call(args, options)).text,
  }
}

/**
 * The per-model settings of a host's options (`models`), else of the
 * environment's HASHLINE_MODELS, and the session's model, as the function
 * the tools ask at each call; and the options left for the engine.
 * Throws INVALID_REQUEST for a setting that is not one.
 * @template {{ models?: unknown, model?: string }} T
 * @param {T} options
 * @param {Record<string, string | undefined>} [env]
 * @returns {{ settingOf: SettingOf, engineOptions: Omit<T, "models"> }}
 */
export function settingsOf(options, env = process.env) {
  const { models, ...engineOptions } = options
  const given = models ?? env.HASHLINE_MODELS
  const settings = modelSettings(given, models !== undefined ? "options.models" : "HASHLINE_MODELS")
  return { settingOf: (model) => settings(model ?? options.model), engineOptions }
}

/**
 * The tools over an engine the host opened itself: `engine` is called at
 * each call, so a host can list the tools before the engine can be had (the
 * MCP server without its binary) and let each call fail with the reason.
 * `settingOf` gives the user's setting for the model of a call: a read by
 * a model set to a view shows that view.
 * @param {() => Hashline} engine
 * @param {SettingOf} [settingOf]
 * @returns {HashlineTool[]}
 */
export function toolsOver(engine, settingOf = () => ({})) {
  return [
    tool({
      name: "read",
      title: "Read a file with refs",
      description: READ_DESCRIPTION,
      inputSchema: structuredClone(READ_SCHEMA),
      annotations: READ_ONLY,
      async call(args, options) {
        const { filePath, ...range } = parseReadArguments(args)
        const { view } = settingOf(options?.model)
        const result = await engine().readAsync(filePath, { ...range, ...callOptions(options), ...(view ? { view } : {}) })
        return { text: result.text, result }
      },
    }),
    tool({
      name: "edit",
      title: "Edit a file by citing refs",
      description: EDIT_DESCRIPTION,
      inputSchema: structuredClone(EDIT_SCHEMA),
      annotations: WRITES,
      async call(args, options) {
        const { filePath, request } = parseEditArguments(args)
        const result = await engine().editAsync(filePath, request, callOptions(options))
        return { text: result.output, result }
      },
    }),
    tool({
      name: "grep",
      title: "Search files, hits with refs",
      description: GREP_DESCRIPTION,
      inputSchema: structuredClone(GREP_SCHEMA),
      annotations: READ_ONLY,
      async call(args, options) {
        const { pattern, options: search } = parseGrepArguments(args)
        const result = await engine().searchAsync(pattern, { ...search, ...callOptions(options) })
        return { text: result.text, result }
      },
    }),
    tool({
      name: "apply",
      title: "Edit several files as one change",
      description: APPLY_DESCRIPTION,
      inputSchema: structuredClone(APPLY_SCHEMA),
      annotations: WRITES,
      async call(args, options) {
        const batch = parseApplyArguments(args)
        const result = await engine().applyBatchAsync(batch, callOptions(options))
        return { text: result.output, result }
      },
    }),
  ]
}

/**
 * read, edit, grep and apply over one engine, so that what read and grep
 * show is known to edit. Relative paths resolve against `root` (default:
 * the working directory), and paths that lead outside it are refused.
 * `view` ("lean", the default, or "full"; else HASHLINE_VIEW) is how refs
 * are shown; refs of both styles are accepted. `models` (else
 * HASHLINE_MODELS) sets a view per model: `{ "kimi": { "view": "full" } }`.
 * @param {HashlineToolsOptions} [options] as for `new Hashline(options)`, and `models`
 * @returns {HashlineTool[]}
 */
export function createToolList(options = {}) {
  const { settingOf, engineOptions } = settingsOf(options)
  const engine = openEngine(engineOptions)
  return toolsOver(() => engine, settingOf)
}

/**
 * The same tools as `createToolList`, by name.
 * @param {HashlineToolsOptions} [options] as for `createToolList`
 * @returns {HashlineTools}
 */
export function createTools(options = {}) {
  return /** @type {HashlineTools} */ (Object.fromEntries(createToolList(options).map((t) => [t.name, t])))
}

/**
 * A tool's description and JSON schema with the file argument as a host
 * names it (its row's `fileArgument`: `path` where its own tools take
 * `path`).
 * @param {{ description: string, inputSchema: ObjectSchema }} tool
 * @param {string} name
 * @returns {{ description: string, inputSchema: ObjectSchema }}
 */
export function withFileArgument(tool, name) {
  const inputSchema = structuredClone(tool.inputSchema)
  if (name === "filePath" || !Object.hasOwn(inputSchema.properties, "filePath")) return { description: tool.description, inputSchema }
  const { filePath, ...others } = inputSchema.properties
  inputSchema.properties = { [name]: filePath, ...others }
  inputSchema.required = inputSchema.required.map((field) => (field === "filePath" ? name : field))
  return { description: tool.description.replaceAll("filePath", name), inputSchema }
}

/**
 * The tools a host offers (its row of lib/hosts.mjs), in its order, with
 * the file argument as it names it; each keeps hashline's name, which the
 * host registers it under (an MCP host adds its prefix itself).
 * @param {Host} host
 * @param {Record<string, HashlineTool>} tools by hashline's name
 * @returns {HashlineTool[]}
 */
export function hostTools(host, tools) {
  return Object.keys(host.tools).flatMap((kind) => {
    const tool = tools[kind]
    if (!tool) return []
    const named = withFileArgument(tool, host.fileArgument)
    return [
      {
        ...tool,
        ...named,
        zodSchema: (z) => zodShape(z, named.inputSchema),
        call: (args, options) => tool.call(toFilePath(args, host.fileArgument), options),
        execute: (args, options) => tool.execute(toFilePath(args, host.fileArgument), options),
      },
    ]
  })
}
