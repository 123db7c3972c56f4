#!/usr/bin/env node
// @ts-check
// `npx -y hashline-mcp [--root DIR] [--store DIR]`: the hashline MCP server on
// stdio, for hosts that start MCP servers by command. This package exists to
// bring the MCP SDK; the server itself is `hashline/mcp`.
import path from "node:path"
import { createRequire } from "node:module"
import { parseArgs } from "node:util"

const USAGE = `Usage: hashline-mcp [--root DIR] [--store DIR]

Serves read, edit and grep over MCP on stdio.
  --root DIR    the folder the tools work in and never leave (default: the working directory)
  --store DIR   keep versions on disk in DIR (default: $HASHLINE_STORE, else in memory)
`

/** @param {string} message @param {number} code */
function fail(message, code) {
  process.stderr.write(`${message}\n`)
  process.exit(code)
}

let values
try {
  ;({ values } = parseArgs({
    options: { root: { type: "string" }, store: { type: "string" }, help: { type: "boolean", short: "h" }, version: { type: "boolean", short: "v" } },
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
  try {
    const { serveStdio } = await import("hashline/mcp")
    await serveStdio({ root: path.resolve(values.root ?? "."), storeDir: store === undefined ? undefined : path.resolve(store) })
  } catch (err) {
    // The native module's own error is one line that says what to install.
    fail(err instanceof Error ? err.message : String(err), 5)
  }
}
