// @ts-check
// The MCP server: the read, edit and grep tools over one engine, sandboxed to
// a root. It is built on the SDK's low-level Server so that the tool list
// carries the shared JSON schemas verbatim and the arguments reach the shared
// checks, whose errors tell the model how to call the tool.
import { createRequire } from "node:module"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { INSTRUCTION, MARKER } from "../opencode/instruction.mjs"
import { createTools } from "../lib/tools.mjs"

/**
 * @typedef {import("./server-types.d.mts").ServerOptions} ServerOptions
 */

const { version } = /** @type {{ version: string }} */ (createRequire(import.meta.url)("../package.json"))

// The same explanation the OpenCode plugin gives, without its marker tags.
const INSTRUCTIONS = INSTRUCTION.split("\n")
  .filter((line) => line !== MARKER && line !== MARKER.replace("<", "</"))
  .join("\n")

const ANNOTATIONS = {
  read: { title: "Read a file with refs", readOnlyHint: true, openWorldHint: false },
  edit: { title: "Edit a file by citing refs", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  grep: { title: "Search files, hits with refs", readOnlyHint: true, openWorldHint: false },
}

/**
 * A server whose tools work inside `root` (default: the working directory)
 * and refuse any path that leads out of it.
 * @param {ServerOptions} [options]
 */
export function createServer(options = {}) {
  const tools = createTools({ ...options, allowOutsideRoot: false })
  const list = [tools.read, tools.edit, tools.grep]
  const server = new Server({ name: "hashline", version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS })

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: list.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, annotations: ANNOTATIONS[/** @type {keyof typeof ANNOTATIONS} */ (t.name)] })),
  }))

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const found = list.find((t) => t.name === request.params.name)
    if (!found) {
      return { content: [{ type: "text", text: `Unknown tool ${request.params.name}. The tools are ${list.map((t) => t.name).join(", ")}.` }], isError: true }
    }
    try {
      return { content: [{ type: "text", text: await found.execute(request.params.arguments ?? {}) }] }
    } catch (err) {
      // The engine's message is the repair text written for the model.
      return { content: [{ type: "text", text: err instanceof Error ? err.message : String(err) }], isError: true }
    }
  })
  return server
}

/**
 * Serves on stdin/stdout until the client closes them.
 * @param {ServerOptions} [options]
 */
export async function serveStdio(options = {}) {
  const server = createServer(options)
  await server.connect(new StdioServerTransport())
  return server
}
