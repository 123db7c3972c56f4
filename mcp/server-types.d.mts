// Types of `hashline/mcp`.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"

export interface ServerOptions {
  /** The folder the tools work in and never leave (default: the working directory). */
  root?: string
  /** Keep versions on disk in this folder (default: HASHLINE_STORE, else in memory). */
  storeDir?: string
  /** The most bytes `storeDir` may hold, or a size such as "500M"; the versions used longest ago go first (default: HASHLINE_STORE_MAX_BYTES, else 256 MiB). */
  storeMaxBytes?: number | string
  /** Files larger than this are refused (default 16 MiB). */
  maxFileBytes?: number
  /** How refs are shown: "lean" (default) or "full"; both are accepted (default: HASHLINE_VIEW). */
  view?: "lean" | "full"
  /** An edit that breaks a file's parse: "warn" (default) writes it and reports the lines, "reject" writes nothing, "off" does not parse (default: HASHLINE_SYNTAX). */
  syntax?: "warn" | "reject" | "off"
  /**
   * Results carry the text for the model only: no `outputSchema`, no
   * `structuredContent` (default false). For hosts that show the model the
   * structured content in place of the text, such as Claude Code.
   */
  textOnly?: boolean
  /** The host, as the local telemetry record names it (default: the client's, from its `clientInfo`; see docs/telemetry.md). */
  host?: string
  /** Settings by a part of a model's id, for the calls whose model the host names (default: HASHLINE_MODELS as JSON). `{ "kimi": { "view": "full" } }`. */
  models?: Record<string, { view?: "lean" | "full" }>
  /** Keep the local telemetry record of the calls (default true, unless HASHLINE_TELEMETRY is 0; see docs/telemetry.md). */
  telemetry?: boolean
  /** The record's folder (default: HASHLINE_TELEMETRY_DIR, else the user's local state folder). */
  telemetryDir?: string
}

/** An MCP server with the read, edit, grep and apply tools, not yet connected. */
export declare function createServer(options?: ServerOptions): Server

/** Serves on stdin/stdout until the client closes them. */
export declare function serveStdio(options?: ServerOptions): Promise<Server>
