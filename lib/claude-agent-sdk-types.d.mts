// Types of `hashline/claude-agent-sdk`.
import type { McpSdkServerConfigWithInstance } from "@anthropic-ai/claude-agent-sdk"
import type { HashlineToolsOptions } from "./tools-types.d.mts"

/** The MCP server's name: the model sees `mcp__hashline__read`, `…__edit`, `…__grep`. */
export declare const SERVER_NAME: "hashline"
/** `mcp__hashline__read`, `mcp__hashline__edit`, `mcp__hashline__grep`: for `allowedTools`. */
export declare const TOOL_NAMES: string[]
/** Claude Code's own edit tools (`Edit`, `MultiEdit`, `NotebookEdit`): for `disallowedTools`. */
export declare const DISALLOWED_TOOLS: string[]

/**
 * The in-process MCP server with read, edit and grep (always loaded), over one
 * engine rooted at `options.root` (default: the working directory).
 */
export declare function createServer(options?: HashlineToolsOptions): McpSdkServerConfigWithInstance

/** `{ mcpServers, allowedTools, disallowedTools }` for `query()`'s options. */
export declare function hashlineOptions(options?: HashlineToolsOptions): {
  mcpServers: { hashline: McpSdkServerConfigWithInstance }
  allowedTools: string[]
  disallowedTools: string[]
}
