// @ts-check
// The MCP server: the read, edit and grep tools over one engine, sandboxed to
// a root. It is built on the SDK's low-level Server so that the tool list
// carries the shared JSON schemas verbatim and the arguments reach the shared
// checks, whose errors tell the model how to call the tool. Each result is
// the text for the model and the same result as structured content; with
// `textOnly`, the text alone (a host such as Claude Code gives the model the
// structured content instead of the text when there is some).
import { createRequire } from "node:module"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js"
import { INSTRUCTION, MARKER } from "../lib/instruction.mjs"
import { errorInfo } from "../lib/errors.mjs"
import {
  EDIT_DESCRIPTION,
  EDIT_SCHEMA,
  GREP_DESCRIPTION,
  GREP_SCHEMA,
  READ_DESCRIPTION,
  READ_SCHEMA,
  parseEditArguments,
  parseGrepArguments,
  parseReadArguments,
} from "../lib/definitions.mjs"
import { OUTPUT_SCHEMAS, editContent, errorContent, grepContent, readContent } from "./results.mjs"
import { syntaxOption } from "../lib/syntax.cjs"
import { viewOption } from "../lib/view.cjs"
import { LineTransport } from "./transport.mjs"

/**
 * @typedef {import("./server-types.d.mts").ServerOptions} ServerOptions
 */

const require = createRequire(import.meta.url)
const { version } = /** @type {{ version: string }} */ (require("../package.json"))

// The same explanation the OpenCode plugin gives, without its marker tags.
const INSTRUCTIONS = INSTRUCTION.split("\n")
  .filter((line) => line !== MARKER && line !== MARKER.replace("<", "</"))
  .join("\n")

/** The engine's file size limit when none is given. */
const DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024

// Every hint stated, since a client assumes the riskiest value of one left
// out. Nothing leaves the root, so no tool reaches an open world; an edit
// replaces lines, and the same edit sent twice is refused the second time.
const ANNOTATIONS = {
  read: { title: "Read a file with refs", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  edit: { title: "Edit a file by citing refs", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  grep: { title: "Search files, hits with refs", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
}

// Claude Code defers MCP tools behind a tool search unless they carry this:
// an edit tool found only on request would leave the model with its own.
const ALWAYS_LOAD = { "anthropic/alwaysLoad": true }

/**
 * @typedef {{ text: string, structured: Record<string, unknown> }} ToolOutput
 * @typedef {{ name: "read" | "edit" | "grep", description: string, inputSchema: object, run(args: unknown, signal: AbortSignal): Promise<ToolOutput> }} Tool
 */

/**
 * The three tools over one engine, so that what read and grep show is known
 * to edit. The engine runs off the event loop, so the server keeps
 * answering (pings, cancellations) meanwhile, and a request the client
 * cancels stops before it writes anything.
 * @param {ServerOptions} options
 * @returns {Tool[]}
 */
function tools(options) {
  const view = viewOption(options.view)
  const syntax = syntaxOption(options.syntax)
  /** @type {InstanceType<typeof import("../index.js").Hashline> | undefined} */
  let loaded
  /** @type {unknown} */
  let unavailable
  try {
    const native = /** @type {typeof import("../index.js")} */ (require("../lib/native.cjs"))
    loaded = new native.Hashline({ ...options, ...(view ? { view } : {}), ...(syntax ? { syntax } : {}), allowOutsideRoot: false })
  } catch (err) {
    // Without its binary the server still answers initialize and lists its
    // tools, and every call says why it failed: a host that saw the server
    // exit would only show "disconnected".
    if (/** @type {{ code?: unknown }} */ (err)?.code !== "NATIVE_MODULE_MISSING") throw err
    unavailable = err
  }
  const engine = () => {
    if (!loaded) throw unavailable
    return loaded
  }
  return [
    {
      name: "read",
      description: READ_DESCRIPTION,
      inputSchema: READ_SCHEMA,
      async run(args, signal) {
        const { filePath, ...range } = parseReadArguments(args)
        const view = await engine().readAsync(filePath, { ...range, signal })
        return { text: view.text, structured: readContent(view) }
      },
    },
    {
      name: "edit",
      description: EDIT_DESCRIPTION,
      inputSchema: EDIT_SCHEMA,
      async run(args, signal) {
        const { filePath, request } = parseEditArguments(args)
        const result = await engine().editAsync(filePath, request, { signal })
        return { text: result.output, structured: editContent(result) }
      },
    },
    {
      name: "grep",
      description: GREP_DESCRIPTION,
      inputSchema: GREP_SCHEMA,
      async run(args, signal) {
        const { pattern, options: search } = parseGrepArguments(args)
        const result = await engine().searchAsync(pattern, { ...search, signal })
        return { text: result.text, structured: grepContent(result) }
      },
    },
  ]
}

/**
 * A server whose tools work inside `root` (default: the working directory)
 * and refuse any path that leads out of it.
 * @param {ServerOptions} [options]
 */
export function createServer(options = {}) {
  const list = tools(options)
  const textOnly = options.textOnly === true
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
      tools: list.map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: structuredClone(t.inputSchema),
        ...(textOnly ? {} : { outputSchema: structuredClone(OUTPUT_SCHEMAS[t.name]) }),
        annotations: ANNOTATIONS[t.name],
        _meta: ALWAYS_LOAD,
      })),
    }
  })

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    initialized()
    const found = list.find((t) => t.name === request.params.name)
    if (!found) {
      return { content: [{ type: "text", text: `Unknown tool ${request.params.name}. The tools are ${list.map((t) => t.name).join(", ")}.` }], isError: true }
    }
    try {
      const { text, structured } = await found.run(request.params.arguments ?? {}, extra.signal)
      return { content: [{ type: "text", text }], ...(textOnly ? {} : { structuredContent: structured }) }
    } catch (err) {
      // The engine's message is the repair text written for the model.
      const error = errorInfo(err)
      return { content: [{ type: "text", text: error.message }], ...(textOnly ? {} : { structuredContent: errorContent(error) }), isError: true }
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
