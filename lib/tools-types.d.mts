// Types of `hashline/tools`.
import type { ZodRawShape } from "zod"
import type { BatchResult, EditResult, Hashline, HashlineOptions, ReadView, SearchResult } from "../index.js"

/** A JSON Schema for a tool's arguments: an object with named properties. */
export interface ObjectSchema {
  type: "object"
  properties: Record<string, any>
  required: string[]
}

export type HashlineToolName = "read" | "edit" | "grep" | "apply"

/** What each tool's `call` resolves to besides the text: the engine's result. */
export interface HashlineToolResults {
  read: ReadView
  edit: EditResult
  grep: SearchResult
  apply: BatchResult
}

/** The hints MCP defines for a tool, all stated. */
export interface HashlineToolAnnotations {
  readOnlyHint: boolean
  destructiveHint: boolean
  idempotentHint: boolean
  openWorldHint: boolean
}

/** What a user sets for the models whose id holds the key, in any case. */
export interface HashlineModelSetting {
  /** The view a read by this model shows: `"full"` for a model that mistypes lean refs. */
  view?: "lean" | "full"
}

/** The options of the tools: the engine's, and settings per model. */
export interface HashlineToolsOptions extends HashlineOptions {
  /**
   * Settings by a part of a model's id (the longest part that matches wins),
   * for the model of each call, else the session's `model`; default:
   * HASHLINE_MODELS as JSON. `{ "kimi": { "view": "full" } }`.
   */
  models?: Record<string, HashlineModelSetting>
}

/** What a host passes with a call. */
export interface HashlineCallOptions {
  /** Stops the call before it writes anything (`CANCELLED`). */
  signal?: AbortSignal
  /** The model that made the call, for the local telemetry record. */
  model?: string
  /** The host's id of the tool call, for the local telemetry record. */
  callId?: string
  /** The host that made the call, where it is not the engine's `host` (an MCP server's client). */
  host?: string
}

/** A tool in the form any agent framework can wrap. */
export interface HashlineTool<Name extends HashlineToolName = HashlineToolName> {
  name: Name
  /** A short title for people. */
  title: string
  /** What the model is told about the tool. */
  description: string
  /** The arguments, as JSON Schema. */
  inputSchema: ObjectSchema
  /** The same arguments as a zod shape, built with the host's `z`. */
  zodSchema(z: typeof import("zod").z): ZodRawShape
  annotations: HashlineToolAnnotations
  /**
   * Runs the tool, off the event loop. Resolves to the text for the model
   * and the engine's result; rejects with an Error whose `code` is the error
   * code and whose `message` is the repair text for the model (nothing was
   * written). An aborted `signal` stops the call before it writes: it
   * rejects with `CANCELLED` (`name` `AbortError`).
   */
  call(args: unknown, options?: HashlineCallOptions): Promise<{ text: string; result: HashlineToolResults[Name] }>
  /** `call`, resolving to the text for the model only. */
  execute(args: unknown, options?: HashlineCallOptions): Promise<string>
}

export type HashlineTools = {
  read: HashlineTool<"read">
  edit: HashlineTool<"edit">
  grep: HashlineTool<"grep">
  apply: HashlineTool<"apply">
}

/**
 * read, edit, grep and apply over one engine, in that order. Relative paths
 * resolve against `options.root` (default: the working directory); paths
 * outside it are refused.
 */
export declare function createToolList(options?: HashlineToolsOptions): HashlineTool[]

/** The tools of `createToolList`, by name. */
export declare function createTools(options?: HashlineToolsOptions): HashlineTools

/**
 * The tools over an engine the host opened itself, asked for at each call
 * (so a host can list the tools before it has one).
 */
export declare function toolsOver(engine: () => Hashline, settingOf?: (model: string | undefined) => HashlineModelSetting): HashlineTool[]

/**
 * A tool's description and JSON schema with the file argument named `name`
 * (`path` for a host whose own tools take `path`).
 */
export declare function withFileArgument(tool: { description: string; inputSchema: ObjectSchema }, name: string): { description: string; inputSchema: ObjectSchema }

/**
 * The tools a host offers, in its order (`host.tools`, keyed by hashline's
 * tool names), with its file argument (`host.fileArgument`), which their
 * calls take back to `filePath`.
 */
export declare function hostTools(host: { tools: Partial<Record<string, string>>; fileArgument: string }, tools: Partial<Record<string, HashlineTool>>): HashlineTool[]
