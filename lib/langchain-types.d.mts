// Types of `hashline/langchain`.
import type { DynamicStructuredTool } from "@langchain/core/tools"
import type { HashlineToolsOptions } from "./tools-types.d.mts"

/** read, edit and grep, in that order, as LangChain structured tools. */
export type HashlineLangchainTools = [read: DynamicStructuredTool, edit: DynamicStructuredTool, grep: DynamicStructuredTool]

/**
 * read, edit and grep for LangChain's `createAgent({ model, tools })` or a
 * chat model's `bindTools`, over one engine rooted at `options.root`
 * (default: the working directory).
 */
export declare function createTools(options?: HashlineToolsOptions): HashlineLangchainTools
