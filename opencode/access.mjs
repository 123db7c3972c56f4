// @ts-check
// How the tools reach files outside the project and the engine: OpenCode's
// own permission prompt for outside paths, and engine errors turned into
// errors the model reads.
import fs from "node:fs"
import path from "node:path"
import { errorCode, toPosix } from "./engine.mjs"

/**
 * @typedef {import("@opencode-ai/plugin").ToolContext} ToolContext
 */

/**
 * The real location of a path, through symbolic links, as far as it exists.
 * @param {string} file
 */
export function realLocation(file) {
  let dir = file
  const rest = []
  for (;;) {
    try {
      return path.join(fs.realpathSync(dir), ...rest)
    } catch {
      const parent = path.dirname(dir)
      if (parent === dir) return file
      rest.unshift(path.basename(dir))
      dir = parent
    }
  }
}

/**
 * Asks for access to a file outside the project, as OpenCode's own file tools
 * do, so the same rules and remembered answers apply.
 * @param {ToolContext} ctx
 * @param {string} file
 */
export async function askOutside(ctx, file) {
  const dir = path.dirname(file)
  const glob = toPosix(path.join(dir, "*"))
  await ctx.ask({ permission: "external_directory", patterns: [glob], always: [glob], metadata: { filepath: file, parentDir: dir } })
}

/** @param {unknown} err */
export function toolError(err) {
  if (err instanceof Error) {
    if (!errorCode(err)) return err
    // The engine's message is written for the model already; a fresh Error
    // keeps OpenCode from adding a native stack to it. A call stopped by the
    // tool call's abort stays an AbortError.
    const fresh = new Error(err.message)
    if (err.name === "AbortError") fresh.name = "AbortError"
    return fresh
  }
  return new Error(String(err))
}

/**
 * @template T
 * @param {() => T} fn
 * @returns {T}
 */
export function engineCall(fn) {
  try {
    return fn()
  } catch (err) {
    throw toolError(err)
  }
}

/**
 * An asynchronous engine call, its failure turned into the tool's error.
 * @template T
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function engineCallAsync(fn) {
  try {
    return await fn()
  } catch (err) {
    throw toolError(err)
  }
}

