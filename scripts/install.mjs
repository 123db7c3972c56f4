// @ts-check
// The `install` step of a clone (the published package has none: see
// scripts/release.mjs). It checks what the build and the tests need from the
// machine, saying at once everything that is missing and how to get it; then
// installs the test tools from PyPI inside the clone, and the hosts the
// tests drive that no lock can hold (scripts/tools.mjs);
// then builds this machine's release binary, as the release workflow does,
// while the test programs that `npm test` runs are built beside it.
// Nothing goes outside the clone, and nothing needs root.
import fs from "node:fs"
import path from "node:path"
import { ROOT, buildRelease, missingPrerequisites, provisionHosts, provisionTools, startTestBuild, toolsReady } from "./tools.mjs"

const started = Date.now()
const seconds = (/** @type {number} */ since) => `${((Date.now() - since) / 1000).toFixed(0)} s`

if (!fs.existsSync(path.join(ROOT, "node_modules", "@napi-rs", "cli"))) {
  console.error("hashline: @napi-rs/cli is not installed, so the addon cannot be built; run npm install without --omit=dev.")
  process.exit(1)
}

const missing = missingPrerequisites({ python: !toolsReady() })
if (missing.length > 0) {
  console.error(`hashline: npm install in a clone needs what this machine lacks:\n${missing.map((m) => `  - ${m}`).join("\n")}`)
  process.exit(1)
}

const tests = startTestBuild()

try {
  if (provisionTools()) console.error(`hashline: installed the test tools of scripts/tools.txt into target/tools/venv (${seconds(started)})`)
} catch (err) {
  console.error(`hashline: installing the test tools of scripts/tools.txt failed: ${err instanceof Error ? err.message : err}`)
  tests.stop()
  process.exit(1)
}

try {
  const hosts = provisionHosts()
  if (hosts.length > 0) console.error(`hashline: installed the hosts the tests drive that no lock can hold (${hosts.join(", ")}) into target/hosts (${seconds(started)})`)
} catch (err) {
  console.error(`hashline: installing the hosts of scripts/tools.mjs UNLOCKED_HOSTS failed: ${err instanceof Error ? err.message : err}`)
  tests.stop()
  process.exit(1)
}

const build = Date.now()
console.error("hashline: the release binary: built with cargo (minutes) unless it is newer than every Rust source...")
const status = buildRelease()
if (status === 0) console.error(`hashline: release binary ready (${seconds(build)})`)
console.error("hashline: the test programs npm test runs: waiting for their build (target/test-build.log)...")
const built = await tests.done
if (built.status === 0) console.error(`hashline: test programs built; install done in ${seconds(started)}`)
else {
  const tail = fs.readFileSync(built.log, "utf8").trimEnd().split("\n").slice(-20).join("\n")
  console.error(`hashline: building the test programs failed (npm test will build them again and say why):\n${tail}`)
}
process.exit(status)
