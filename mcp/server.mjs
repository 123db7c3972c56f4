// @ts-check
// The MCP server: the read, edit, grep and apply tools over one engine,
// sandboxed to a root. It is built on the SDK's low-level Server so that the tool list
// carries the shared JSON schemas verbatim and the arguments reach the shared
// checks, whose errors tell the model how to call the tool. Each result is
// the text for the model and the same result as structured content; with
// `textOnly`, the text alone (a host such as Claude Code gives the model the
// structured content instead of the text when there is some).
import { createRequire } from "node:module"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js"
import { openEngine } from "../lib/engine.cjs"
import { errorInfo } from "../lib/errors.mjs"
import { HOSTS } from "../lib/hosts.mjs"
import { PLAIN_INSTRUCTION } from "../lib/texts.cjs"
import { hostTools, settingsOf, toolsOver } from "../lib/tools.mjs"
import { OUTPUT_SCHEMAS, applyContent, editContent, errorContent, grepContent, readContent } from "./results.mjs"
import { Gate } from "./gate.mjs"
import { LineTransport, MAX_IN_FLIGHT } from "./transport.mjs"

/**
 * @typedef {import("./server-types.d.mts").ServerOptions} ServerOptions
 * @typedef {import("../lib/tools-types.d.mts").HashlineTool} HashlineTool
 */

const require = createRequire(import.meta.url)
const { version } = /** @type {{ version: string }} */ (require("../package.json"))

/** The engine's file size limit when none is given. */
const DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024

/** The structured content of each tool's result, in the shape of its output schema. */
const STRUCTURED = {
  read: readContent,
  edit: editContent,
  grep: grepContent,
  apply: applyContent,
}

/**
 * The host a client is, as the telemetry record names it: the row of
 * lib/hosts.mjs whose MCP client has this name, else `mcp:` and the name
 * the client gave, else `mcp`.
 * @param {{ name?: unknown } | undefined} client `initialize`'s `clientInfo`
 */
export function hostOfClient(client) {
  const name = typeof client?.name === "string" ? client.name : ""
  if (name === "") return "mcp"
  for (const [host, row] of Object.entries(HOSTS)) {
    const known = "mcp" in row ? row.mcp?.client : undefined
    if (known && (known.endsWith("-") ? name.startsWith(known) : name === known)) return host
  }
  return `mcp:${name}`
}

/**
 * Who made a call, from its `_meta`: the model where the host puts it there
 * (Codex, in `x-codex-turn-metadata`; no other host names it) and the
 * host's id of the call (Codex's `callId`, Claude Code's
 * `claudecode/toolUseId`). What a client sends is only taken as a bounded
 * string.
 * @param {unknown} meta
 * @returns {{ model?: string, callId?: string }}
 */
export function callerOf(meta) {
  if (!meta || typeof meta !== "object") return {}
  const m = /** @type {Record<string, unknown>} */ (meta)
  const label = (/** @type {unknown} */ v) => (typeof v === "string" && v !== "" && v.length <= 200 ? v : undefined)
  let turn = m["x-codex-turn-metadata"]
  if (typeof turn === "string" && turn.length <= 1 << 16) {
    try {
      turn = JSON.parse(turn)
    } catch {
      turn = undefined
    }
  }
  const model = turn && typeof turn === "object" ? label(/** @type {Record<string, unknown>} */ (turn).model) : undefined
  const callId = label(m.callId) ?? label(m["claudecode/toolUseId"])
  return { ...(model ? { model } : {}), ...(callId ? { callId } : {}) }
}

/**
 * Writes the records of the calls made so far, before the server answers:
 * a host may end this process the moment it has its last answer (Codex
 * does, before the record's writer would have appended it), and a record
 * still queued then is lost. The host waits on no write: the server runs
 * in a process of its own.
 */
function flushRecord() {
  try {
    /** @type {typeof import("../index.js")} */ (require("../lib/native.cjs")).flushTelemetry()
  } catch {
    // Without the native module no call was recorded.
  }
}

// Claude Code defers MCP tools behind a tool search unless they carry this:
// an edit tool found only on request would leave the model with its own.
const ALWAYS_LOAD = { "anthropic/alwaysLoad": true }

/**
 * The tools of the shared list that MCP hosts get (their row of
 * lib/hosts.mjs), over one engine, so that what read and grep show is known
 * to edit and apply (which changes several files as one). The engine runs off the
 * event loop, so the server keeps answering (pings, cancellations)
 * meanwhile, and a request the client cancels stops before it writes
 * anything.
 * @param {ServerOptions} options
 * @returns {HashlineTool[]}
 */
function tools(options) {
  /** @type {import("../index.js").Hashline | undefined} */
  let loaded
  /** @type {unknown} */
  let unavailable
  const { settingOf, engineOptions } = settingsOf(options)
  try {
    loaded = openEngine({ host: "mcp", ...engineOptions, allowOutsideRoot: false })
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
  return hostTools(HOSTS.mcp, Object.fromEntries(toolsOver(engine, settingOf).map((t) => [t.name, t])))
}

/**
 * A server whose tools work inside `root` (default: the working directory)
 * and refuse any path that leads out of it.
 * @param {ServerOptions} [options]
 */
export function createServer(options = {}) {
  const list = tools(options)
  const textOnly = options.textOnly === true
  const server = new Server({ name: "hashline", version }, { capabilities: { tools: {} }, instructions: PLAIN_INSTRUCTION })
  // Engine calls at once, cancelled ones counted until they stop.
  const calls = new Gate(MAX_IN_FLIGHT)

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
        ...(textOnly ? {} : { outputSchema: structuredClone(OUTPUT_SCHEMAS[/** @type {keyof typeof STRUCTURED} */ (t.name)]) }),
        annotations: { title: t.title, ...t.annotations },
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
      const who = { ...callerOf(request.params._meta), host: options.host ?? hostOfClient(server.getClientVersion()) }
      const { text, result } = await calls.run(extra.signal, () => found.call(request.params.arguments ?? {}, { signal: extra.signal, ...who })).finally(flushRecord)
      const structured = STRUCTURED[/** @type {keyof typeof STRUCTURED} */ (found.name)](/** @type {any} */ (result))
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
