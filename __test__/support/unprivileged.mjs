// @ts-check
// Permission checks from a process the operating system restricts. Root
// reads and writes anything, so as root the check runs in a child that drops
// to nobody (uid/gid 65534). That user must reach the addon, which it cannot
// where the clone lives in a folder only its owner may enter (a 0700 home):
// so the child loads a copy of the very binary this process loaded, put in a
// temporary folder anyone may enter and removed when this process exits.
// Another user runs the check as itself, on the binary where it is.
import { spawnSync } from "node:child_process"
import { chmodSync, copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { binding } from "../helpers.mjs"

const CHILD = fileURLToPath(new URL("./unprivileged-child.cjs", import.meta.url))
const AS_ROOT = process.getuid?.() === 0

/**
 * Why permission checks cannot run on this machine (root that may not
 * become another user, as in some containers), or undefined when they can.
 */
export const cannotRestrict = (() => {
  if (!AS_ROOT) return undefined
  const probe = spawnSync(process.execPath, ["-e", "process.setgid(65534); process.setuid(65534)"], { encoding: "utf8" })
  if (probe.status === 0) return undefined
  return `root cannot become uid 65534 here (${probe.stderr.trim().split("\n").pop() ?? probe.signal})`
})()

/** The addon file the generated loader chose for this process. */
function loadedBinary() {
  if (typeof binding.Hashline !== "function") throw new Error("the binding did not load")
  const report = /** @type {{ sharedObjects?: string[] }} */ (process.report.getReport())
  const addons = (report.sharedObjects ?? []).filter((file) => file.endsWith(".node"))
  if (addons.length !== 1) throw new Error(`cannot tell which addon this process loaded: ${addons.join(", ") || "none"}`)
  return addons[0]
}

/** @type {string | undefined} */
let copy

/** A copy of the loaded addon in a folder that uid 65534 can reach. */
function readableCopy() {
  if (copy) return copy
  const source = loadedBinary()
  const dir = mkdtempSync(join(tmpdir(), "hashline-unprivileged-"))
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }))
  chmodSync(dir, 0o755)
  for (let up = dirname(dir); ; up = dirname(up)) {
    const mode = statSync(up).mode
    if ((mode & 0o001) === 0) {
      throw new Error(`${up} is closed to other users (mode ${(mode & 0o777).toString(8)}), so uid 65534 cannot reach the copy of the addon in ${dir}: set TMPDIR to a folder anyone may enter`)
    }
    if (dirname(up) === up) break
  }
  const file = join(dir, basename(source))
  copyFileSync(source, file)
  chmodSync(file, 0o755)
  copy = file
  return file
}

/**
 * Runs a read (or a read and an edit of its first line) of `path` under
 * `root` as a user the system restricts, and returns what the engine
 * answered. Throws, naming the cause, when the check itself cannot run.
 * @param {string} root
 * @param {string} path
 * @param {"read" | "edit"} action
 * @returns {{ ok?: boolean, code?: string, message?: string }}
 */
export function unprivileged(root, path, action) {
  const binary = AS_ROOT ? readableCopy() : loadedBinary()
  const out = spawnSync(process.execPath, [CHILD, JSON.stringify({ binary, root, path, action })], { encoding: "utf8", cwd: dirname(binary) })
  const answer = out.stdout.trim()
  if (out.status !== 0 || !answer) throw new Error(`the unprivileged process failed (${out.status ?? out.signal}) without an answer: ${out.stderr}`)
  const result = JSON.parse(answer)
  if (result.setup) throw new Error(`the unprivileged process could not run the check: ${result.setup}`)
  return result
}
