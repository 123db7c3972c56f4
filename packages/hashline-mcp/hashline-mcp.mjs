#!/usr/bin/env node
// @ts-check
// `npx -y hashline-mcp [--root DIR] [--store DIR] [--store-max-bytes N] [--text-only]`: the hashline MCP server on
// stdio, for hosts that start MCP servers by command. This package exists to
// bring the MCP SDK; the server itself is `hashline/mcp`.
import path from "node:path"
import { createRequire } from "node:module"
import { parseArgs } from "node:util"

const USAGE = `Usage: hashline-mcp [--root DIR] [--store DIR] [--store-max-bytes N] [--text-only]

Serves read, edit, grep and apply over MCP on stdio.
  --root DIR    the folder the tools work in and never leave (default: the working directory)
  --store DIR   keep versions on disk in DIR (default: $HASHLINE_STORE, else in memory)
  --store-max-bytes N
                the most the store folder may hold, e.g. 500M (default:
                $HASHLINE_STORE_MAX_BYTES, else 256M); versions used longest ago go first
  --text-only   results carry the text for the model only, no structured content
                (for hosts that show the model the structured content instead, such
                as Claude Code)
  -h, --help    show this help
  -V, --version show the version
`

/** @param {string} message @param {number} code */
function fail(message, code) {
  process.stderr.write(`hashline-mcp: ${message}\n`)
  process.exit(code)
}

/**
 * A size in bytes, with an optional K, M or G (powers of 1024).
 * @param {string | undefined} value
 * @param {string} where
 */
function bytes(value, where) {
  if (value === undefined) return undefined
  const m = /^(\d+)([KMG]?)$/i.exec(value.trim())
  const n = m ? Number(m[1]) * 1024 ** " KMG".indexOf((m[2] || " ").toUpperCase()) : NaN
  if (!Number.isSafeInteger(n)) fail(`${where} takes a number of bytes such as 500M, got ${JSON.stringify(value)}.\n${USAGE}`, 64)
  return n
}

let values
try {
  ;({ values } = parseArgs({
    options: {
      root: { type: "string" },
      store: { type: "string" },
      "store-max-bytes": { type: "string" },
      "text-only": { type: "boolean" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "V" },
    },
    strict: true,
  }))
} catch (err) {
  fail(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`, 64)
}
if (values.help) {
  process.stdout.write(USAGE)
} else if (values.version) {
  process.stdout.write(`${createRequire(import.meta.url)("./package.json").version}\n`)
} else {
  const store = values.store ?? (process.env.HASHLINE_STORE || undefined)
  const storeMaxBytes = bytes(values["store-max-bytes"], "--store-max-bytes") ?? bytes(process.env.HASHLINE_STORE_MAX_BYTES || undefined, "$HASHLINE_STORE_MAX_BYTES")
  try {
    const { serveStdio } = await import("hashline/mcp")
    await serveStdio({ root: path.resolve(values.root ?? "."), storeDir: store === undefined ? undefined : path.resolve(store), storeMaxBytes, textOnly: values["text-only"] === true })
  } catch (err) {
    // The native module's own error is one line that says what to install.
    fail(err instanceof Error ? err.message : String(err), 5)
  }
}
