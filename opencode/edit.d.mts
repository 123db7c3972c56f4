// Types of `hashline/opencode/tool` (opencode/edit.mjs): the `edit` tool for OpenCode. Declared
// without OpenCode's packages; the tool fits `ToolDefinition` of
// `@opencode-ai/plugin`.
import type { ZodRawShape } from "zod"
import type { EditRequest } from "../index.js"

/** The parts of OpenCode's tool context the tool uses. */
export interface ToolContext {
  /** The session's folder: relative paths resolve against it. */
  directory: string
  /** The project's worktree ("/" outside a repository). */
  worktree: string
  /** OpenCode's permission prompt; rejects when refused. */
  ask(input: { permission: string; patterns: string[]; always: string[]; metadata: { [key: string]: any } }): Promise<void>
}

export interface EditToolResult {
  /** The file's path relative to the project. */
  title: string
  /** The engine's report for the model: fresh refs around each change. */
  output: string
  metadata: {
    diff: string
    filediff: { file: string; patch: string; additions: number; deletions: number }
    diagnostics: { [file: string]: unknown }
  }
}

/** A tool as OpenCode takes it from a plugin's `tool` hook or a tool file. */
export interface HashlineOpencodeTool {
  description: string
  /** A zod shape; a plain JSON Schema shape when zod cannot be loaded. */
  args: ZodRawShape
  execute(args: unknown, context: ToolContext): Promise<EditToolResult>
}

declare const editTool: HashlineOpencodeTool
export default editTool

/** Checks the arguments, asks for permission with the diff, then writes. */
export declare function execute(args: unknown, context: ToolContext): Promise<EditToolResult>
/** The description the model is given. */
export declare const DESCRIPTION: string
/** The ops an edit can use: the engine's, in its order (empty when the native module cannot load). */
export declare const OPS: readonly string[]
/** Checks edit arguments as the tool does, with errors that say how to call it. */
export declare function parseArguments(args: unknown): { filePath: string; request: EditRequest }
