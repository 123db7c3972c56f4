// Types of `hashline/openai-agents`.
import type { FunctionTool } from "@openai/agents"
import type { HashlineToolsOptions } from "./tools-types.d.mts"

/** read, edit and grep, in that order, as the SDK's function tools. */
export type HashlineOpenAIAgentsTools = [read: FunctionTool<unknown, any, string>, edit: FunctionTool<unknown, any, string>, grep: FunctionTool<unknown, any, string>]

/**
 * read, edit and grep for `new Agent({ tools })` of the OpenAI Agents SDK,
 * over one engine rooted at `options.root` (default: the working directory).
 */
export declare function createTools(options?: HashlineToolsOptions): HashlineOpenAIAgentsTools
