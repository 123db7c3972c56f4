// @ts-check
// `hashline mcp` (and hashline-mcp, which runs this command line under its
// own name): the MCP server needs the official MCP SDK, which the hashline
// package does not depend on (a plugin or library user would pull its web
// server stack for nothing). Where the SDK is installed beside hashline, the
// server runs in this process; otherwise the command hands over to the
// `hashline-mcp` package of the same version, which depends on the SDK: the
// installed copy if there is one, else through `npx -y`, with the same
// options.
import { spawn } from "node:child_process"
import fs from "node:fs"
import { createRequire } from "node:module"
import os from "node:os"
import path from "node:path"

const require = createRequire(import.meta.url)

/**
 * Whether an import failed because the MCP SDK is not installed.
 * @param {unknown} err
 */
function sdkMissing(err) {
  const e = /** @type {NodeJS.ErrnoException} */ (err)
  return e?.code === "ERR_MODULE_NOT_FOUND" && /@modelcontextprotocol\/sdk/.test(String(e.message))
}

/**
 * npm's npx script, run by this Node: beside the npm that started this
 * process, or the npm installed with this Node. Spawning the script itself
 * needs no shell, so no quoting of paths on Windows.
 */
function npxScript() {
  const candidates = [
    process.env.npm_execpath ? path.join(path.dirname(process.env.npm_execpath), "npx-cli.js") : "",
    path.join(path.dirname(process.execPath), "node_modules", "npm", "bin", "npx-cli.js"),
    path.join(path.dirname(process.execPath), "..", "lib", "node_modules", "npm", "bin", "npx-cli.js"),
  ]
  return candidates.find((file) => file && fs.existsSync(file))
}

/**
 * The command that runs the `hashline-mcp` bin: the installed one, or npx.
 * @param {string} version
 * @returns {[string, string[]]}
 */
function handOverCommand(version) {
  try {
    const manifest = require.resolve("hashline-mcp/package.json")
    const { bin } = require(manifest)
    return [process.execPath, [path.join(path.dirname(manifest), typeof bin === "string" ? bin : bin["hashline-mcp"])]]
  } catch {
    const npx = npxScript()
    const spec = `hashline-mcp@${version}`
    return npx ? [process.execPath, [npx, "-y", spec]] : ["npx", ["-y", spec]]
  }
}

/**
 * Serves MCP on stdio until the client closes it; resolves once serving (or
 * the process it handed over to) has started, and sets the exit code when a
 * hand-over ends.
 * @param {import("../../lib/engine.cjs").EngineOptions & { textOnly: boolean }} options
 * @param {string[]} [handOver] the options to start hashline-mcp with when
 *   the SDK is not installed; none where this is hashline-mcp already
 */
export async function serveMcp(options, handOver) {
  let server
  try {
    server = await import("../../mcp/server.mjs")
  } catch (err) {
    if (!handOver || !sdkMissing(err)) throw err
  }
  if (server) {
    // The binding judges the view and the syntax check.
    await server.serveStdio(/** @type {import("../../mcp/server-types.d.mts").ServerOptions} */ (options))
    return
  }
  const { version } = require("../../package.json")
  const [command, prefix] = handOverCommand(version)
  const child = spawn(command, [...prefix, ...(handOver ?? [])], { stdio: "inherit" })
  for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) process.on(signal, () => child.kill(signal))
  await new Promise((resolve, reject) => {
    child.once("spawn", resolve)
    child.once("error", reject)
  })
  child.once("exit", (code, signal) => {
    process.exitCode = code ?? 128 + (signal ? os.constants.signals[signal] : 0)
  })
}
