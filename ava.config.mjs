// @ts-check
// The ava settings (a file rather than package.json, for the order below).

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
