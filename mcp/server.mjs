// @ts-check
// The MCP server: the read, edit and grep tools over one engine, sandboxed to
// a root. It is built on the SDK's low-level Server so that the tool list
// carries the shared JSON schemas verbatim and the arguments reach the shared
// checks, whose errors tell the model how to call the tool.
import { createRequire } from "node:module"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js"
import { INSTRUCTION, MARKER } from "../lib/instruction.mjs"
import { createTools } from "../lib/tools.mjs"
import { LineTransport } from "./transport.mjs"

/**
 * @typedef {import("./server-types.d.mts").ServerOptions} ServerOptions
 */

const { version } = /** @type {{ version: string }} */ (createRequire(import.meta.url)("../package.json"))

// The same explanation the OpenCode plugin gives, without its marker tags.
const INSTRUCTIONS = INSTRUCTION.split("\n")
  .filter((line) => line !== MARKER && line !== MARKER.replace("<", "</"))
  .join("\n")

/** The engine's file size limit when none is given. */
const DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024

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

  // The protocol has the client initialize before anything but a ping.
  const initialized = () => {
    if (server.getClientVersion() === undefined) {
      throw new McpError(ErrorCode.InvalidRequest, "The server is not initialized yet: send initialize first.")
    }
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    initialized()
    return {
      tools: list.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, annotations: ANNOTATIONS[/** @type {keyof typeof ANNOTATIONS} */ (t.name)] })),
    }
  })

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    initialized()
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
 * Serves on stdin/stdout until the client closes them. A message may be as
 * large as an edit of a file at the size limit can be once encoded as JSON:
 * both strings of an oldString/newString pair, escaped.
 * @param {ServerOptions} [options]
 */
export async function serveStdio(options = {}) {
  const server = createServer(options)
  const given = Object.hasOwn(options, "maxFileBytes") ? options.maxFileBytes : undefined
  const maxFileBytes = typeof given === "number" && given > 0 ? given : DEFAULT_MAX_FILE_BYTES
  await server.connect(new LineTransport({ maxMessageBytes: 4 * maxFileBytes + (1 << 20) }))
  return server
}
