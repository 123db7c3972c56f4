// @ts-check
// A release copy of the addon for benchmarks, built beside the package so
// that its own index.js and debug .node stay as the tests use them.
import { spawnSync } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

/**
 * Builds a release copy into `bench/.cache/<name>` and returns its loader.
 * @param {string} name
 */
export function buildRelease(name) {
  const out = path.join(repo, "bench", ".cache", name)
  const napi = path.join(repo, "node_modules", ".bin", process.platform === "win32" ? "napi.cmd" : "napi")
  process.stderr.write(`  building a release copy of the addon into ${path.relative(repo, out)} ...\n`)
  const args = ["build", "--platform", "--release", "--output-dir", out, "--target-dir", path.join(out, "target")]
  const build = spawnSync(napi, args, { cwd: repo, stdio: ["ignore", "inherit", "inherit"] })
  if (build.error || build.status !== 0) throw new Error(`the release build failed${build.error ? `: ${build.error.message}` : ""}`)
  return path.join(out, "index.js")
}
