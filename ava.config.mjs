// @ts-check
// The ava settings (a file rather than package.json, for the order below).
import fs from "node:fs"
import os from "node:os"
import path from "node:path"

// No test records into the user's telemetry folder: every engine of the run
// records into a scratch folder, removed when ava exits. It is set here, in
// ava's own process, because ava runs test files in worker threads, whose
// process.env is their own copy: a variable set there never reaches the
// environment a native module reads.
const telemetry = fs.mkdtempSync(path.join(os.tmpdir(), "hashline-test-telemetry-"))
process.env.HASHLINE_TELEMETRY_DIR = telemetry
process.on("exit", () => fs.rmSync(telemetry, { recursive: true, force: true }))

/**
 * The test files that start real hosts and registries, longest first: ava
 * runs two files at a time on two cores, and when one of these started last
 * it ran on alone for minutes while the other worker had nothing left to do.
 */
const LONGEST_FIRST = [
  "package/package.spec.mjs",
  "opencode/opencode-e2e.spec.mjs",
  "claude-code/claude-code.spec.mjs",
  "clis/clis.spec.mjs",
  "package/provision.spec.mjs",
  "pi/pi.spec.mjs",
  "engine/crash.spec.mjs",
  "cli/cli.spec.mjs",
  "engine/sandbox.spec.mjs",
]

/** @param {string} file */
const rank = (file) => {
  const at = LONGEST_FIRST.findIndex((name) => file.replaceAll("\\", "/").endsWith(`__test__/${name}`))
  return at === -1 ? LONGEST_FIRST.length : at
}

export default {
  files: ["__test__/**/*.spec.mjs"],
  require: ["./__test__/support/tools-path.mjs"],
  timeout: "10m",
  /**
   * @param {string} a
   * @param {string} b
   */
  sortTestFiles: (a, b) => rank(a) - rank(b) || a.localeCompare(b),
}
