// @ts-check
// The tools for the Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`): an
// in-process MCP server with read, edit and grep, built with the SDK's
// `createSdkMcpServer` and `tool()` from the same descriptions and schemas as
// everywhere else. Its tools are always loaded, so Claude Code's tool search
// does not hide them behind a search. A failed call is an MCP error result
// whose text is the engine's (the repair text for the model); the call's
// abort signal reaches the engine, which stops before it writes. A call
// carries its tool use's id but not the model: `hashlineOptions({ model })`
// names it for the telemetry record.
import { createSdkMcpServer, tool } from "@anthropic-ai/claude-agent-sdk"
import { z } from "zod"
import { errorText } from "./errors.mjs"
import { HOSTS } from "./hosts.mjs"
import { createTools as createPlainTools, hostTools } from "./tools.mjs"

/**
 * @typedef {import("./tools-types.d.mts").HashlineToolsOptions} HashlineToolsOptions
 * @typedef {import("./tools-types.d.mts").HashlineTool} HashlineTool
 */

/** The MCP server's name: the model sees the tools as `mcp__hashline__read` and so on. */
export const SERVER_NAME = "hashline"

const HOST = HOSTS["claude-agent-sdk"]

/** The names the model knows hashline's tools by, to put in `allowedTools`. */
export const TOOL_NAMES = Object.values(HOST.tools)

/**
 * Claude Code's own file-editing tools, to put in `disallowedTools` so that
 * the model edits with hashline's edit.
 */
export const DISALLOWED_TOOLS = [...HOST.turnsOff]

/** @param {HashlineTool} plain */
function wrap(plain) {
  return tool(plain.name, plain.description, plain.zodSchema(z), async (args, extra) => {
    const { signal, _meta } = /** @type {{ signal?: AbortSignal, _meta?: Record<string, unknown> } | undefined} */ (extra) ?? {}
    const id = _meta?.["claudecode/toolUseId"]
    const callId = typeof id === "string" && id !== "" ? id : undefined
    try {
      return { content: [{ type: "text", text: await plain.execute(args, { signal, callId }) }] }
    } catch (err) {
      return { content: [{ type: "text", text: errorText(err) }], isError: true }
    }
  })
}

/**
 * The in-process MCP server for `options.mcpServers`, its tools over one
 * engine rooted at `options.root` (default: the working directory).
 * @param {HashlineToolsOptions} [options] as for `createTools` of hashline/tools
 */
export function createServer(options = {}) {
  return createSdkMcpServer({
    name: SERVER_NAME,
    version: "1.0.0",
    alwaysLoad: true,
    tools: hostTools(HOST, createPlainTools({ host: "claude-agent-sdk", ...options })).map(wrap),
  })
}

/**
 * The part of `query()`'s options that gives the model hashline's tools in
 * place of Claude Code's edit tools: `query({ prompt, options: {
 * ...hashlineOptions({ root }), ...yours } })`.
 * @param {HashlineToolsOptions} [options] as for `createTools` of hashline/tools
 */
export function hashlineOptions(options = {}) {
  return { mcpServers: { [SERVER_NAME]: createServer(options) }, allowedTools: [...TOOL_NAMES], disallowedTools: [...DISALLOWED_TOOLS] }
}
