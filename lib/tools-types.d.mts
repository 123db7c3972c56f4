// Types of `hashline/tools`.
import type { HashlineOptions } from "../index.js"

/** A JSON Schema for a tool's arguments: an object with named properties. */
export interface ObjectSchema {
  type: "object"
  properties: Record<string, any>
  required: string[]
}

/** A tool in the form any agent framework can wrap. */
export interface HashlineTool {
  name: "read" | "edit" | "grep"
  /** What the model is told about the tool. */
  description: string
  /** The arguments, as JSON Schema. */
  inputSchema: ObjectSchema
  /**
   * Runs the tool, off the event loop. Resolves to the text for the model;
   * rejects with an Error whose `code` is the error code and whose `message`
   * is the repair text for the model (nothing was written). An aborted
   * `signal` stops the call before it writes: it rejects with `CANCELLED`
   * (`name` `AbortError`).
   */
  execute(args: unknown, options?: { signal?: AbortSignal }): Promise<string>
}

export type HashlineTools = {
  read: HashlineTool
  edit: HashlineTool
  grep: HashlineTool
}

/**
 * read, edit and grep over one engine. Relative paths resolve against
 * `options.root` (default: the working directory); paths outside it are refused.
 */
export declare function createTools(options?: HashlineOptions): HashlineTools
