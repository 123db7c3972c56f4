// Types of `hashline/ai`.
import type { Tool } from "ai"
import type { HashlineToolsOptions } from "./tools-types.d.mts"

export type HashlineAiTools = {
  read: Tool<unknown, string>
  edit: Tool<unknown, string>
  grep: Tool<unknown, string>
}

/**
 * read, edit and grep for the AI SDK's `generateText` / `streamText`, over one
 * engine rooted at `options.root` (default: the working directory).
 */
export declare function createTools(options?: HashlineToolsOptions): HashlineAiTools
