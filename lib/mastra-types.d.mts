// Types of `hashline/mastra`.
import type { Tool } from "@mastra/core/tools"
import type { HashlineToolsOptions } from "./tools-types.d.mts"

export type HashlineMastraTools = {
  read: Tool<unknown, string>
  edit: Tool<unknown, string>
  grep: Tool<unknown, string>
}

/**
 * read, edit and grep for a Mastra `new Agent({ tools })`, over one engine
 * rooted at `options.root` (default: the working directory).
 */
export declare function createTools(options?: HashlineToolsOptions): HashlineMastraTools
