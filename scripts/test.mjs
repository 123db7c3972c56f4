// @ts-check
// The test command: builds this machine's release binary as the release
// workflow does (kept as it is when `npm install` built it and no source
// changed since; the suites and the package suite's registry use it), runs
// the engine's cargo tests, lints the release workflow, publishes the
// packages to a registry on 127.0.0.1 that the host suites share, runs the
// ava suite, and ends with the time of each step and one line counting all
// of it. The
// tools come from the clone's own target/tools (see scripts/tools.mjs).
import { spawn, spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { SHARED_REGISTRY, THIRD_PARTY, startPublished } from "../__test__/support/published.mjs"
import { ROOT, buildRelease, toolsEnv, toolsReady } from "./tools.mjs"

// No test records into the user's telemetry folder (docs/telemetry.md): the
// cargo tests, ava and every process they start record into a scratch
// folder, removed at the end (ava's processes each make their own too).
const telemetry = fs.mkdtempSync(path.join(os.tmpdir(), "hashline-test-telemetry-"))
process.on("exit", () => fs.rmSync(telemetry, { recursive: true, force: true }))
const env = { ...toolsEnv(), HASHLINE_TELEMETRY_DIR: telemetry }
/** @param {string} name */
const bin = (name) => path.join(ROOT, "node_modules", ".bin", process.platform === "win32" ? `${name}.cmd` : name)

if (!toolsReady()) console.error("test: the test tools are not installed in target/tools: npm install (or node scripts/install.mjs) installs them; tests that need them will fail")

const started = Date.now()
/** @type {Array<{ label: string, ms: number }>} */
const times = []

/**
 * @template T
 * @param {string} label
 * @param {() => T | Promise<T>} step
 * @returns {Promise<T>}
 */
async function timed(label, step) {
  const started = Date.now()
  try {
    return await step()
  } finally {
    times.push({ label, ms: Date.now() - started })
  }
}

/**
 * Runs a step with its output passed on as it comes (a long step shows its
 * progress) and kept for counting.
 * @param {string} label
 * @param {string} command
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} [stepEnv]
 * @returns {Promise<{ status: number, out: string }>}
 */
function run(label, command, args, stepEnv = env) {
  return timed(label, () => {
    console.log(`\n== ${label}: ${command} ${args.join(" ")}`)
    return new Promise((resolve) => {
      const child = spawn(command, args, { cwd: ROOT, env: stepEnv, stdio: ["ignore", "pipe", "pipe"] })
      let out = ""
      child.stdout.setEncoding("utf8").on("data", (chunk) => {
        out += chunk
        process.stdout.write(chunk)
      })
      child.stderr.setEncoding("utf8").on("data", (chunk) => {
        out += chunk
        process.stderr.write(chunk)
      })
      child.once("error", (err) => {
        console.error(err.message)
        resolve({ status: 1, out })
      })
      child.once("close", (code) => resolve({ status: code ?? 1, out }))
    })
  })
}

let passed = 0
let failed = 0

/**
 * A check that is not a test runner: one pass or one failure.
 * @param {{ status: number }} result
 */
function count(result) {
  if (result.status === 0) passed += 1
  else failed += 1
}

const release = await timed("release build", () => {
  console.log("\n== release build: node scripts/release.mjs build (see scripts/tools.mjs)")
  return { status: buildRelease() }
})
count(release)

/**
 * The registry the package, Claude Code and pi suites install from, started
 * and published to once for the whole run rather than once by each (they
 * start their own when run on their own, or when this one fails to start).
 * @returns {Promise<{ env: NodeJS.ProcessEnv, stop: () => void }>}
 */
async function sharedRegistry() {
  console.log("\n== test registry: the packages staged and published as the release does, to verdaccio on 127.0.0.1")
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hashline-registry-"))
  const remove = () => fs.rmSync(dir, { recursive: true, force: true })
  try {
    const registry = await startPublished(dir, THIRD_PARTY)
    const file = path.join(dir, "registry.json")
    const { url, token, npmrc, stage, lockRoots } = registry
    fs.writeFileSync(file, JSON.stringify({ url, token, npmrc, stage, lockRoots }))
    console.log(`published to ${url} for the suites that install them`)
    return {
      env: { ...env, [SHARED_REGISTRY]: file },
      stop: () => {
        registry.stop()
        remove()
      },
    }
  } catch (err) {
    console.error(`the shared test registry did not start, so each suite starts its own: ${err instanceof Error ? err.message : err}`)
    remove()
    return { env, stop: () => {} }
  }
}

// The registry is published beside the cargo tests (npm, mostly one process,
// leaves a core to them) and waited for before ava. A run of chosen files
// (arguments to ava) leaves each suite its own.
const registryReady = release.status === 0 && process.argv.length <= 2 ? timed("test registry (beside the cargo tests)", sharedRegistry) : undefined

const cargo = await run("cargo test", "cargo", ["test", "--workspace", "--color", "never"])
for (const m of cargo.out.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed/g)) {
  passed += Number(m[1])
  failed += Number(m[2])
}
if (cargo.status !== 0 && !/test result: FAILED/.test(cargo.out)) failed += 1

// actionlint where it is installed; jactionlint, the maintained fork that
// PyPI ships as a wheel (tools.txt), where it is not. Either runs shellcheck
// on the workflow's shell steps when it is on the PATH, as tools.txt has it.
const linter = ["actionlint", "jactionlint"].find((name) => spawnSync(name, ["--version"], { env }).status === 0)
if (linter) count(await run("workflow lint", linter, []))
else {
  console.error("\n== workflow lint: neither actionlint nor jactionlint is installed (npm install puts jactionlint in target/tools)")
  failed += 1
}

if (release.status === 0) {
  const registry = (await registryReady) ?? { env, stop: () => {} }
  const ava = await run("ava", bin("ava"), ["--tap", ...process.argv.slice(2)], registry.env).finally(registry.stop)
  const pass = ava.out.match(/^# pass (\d+)/m)
  const fail = ava.out.match(/^# fail (\d+)/m)
  passed += pass ? Number(pass[1]) : 0
  failed += fail ? Number(fail[1]) : 0
  if (ava.status !== 0 && !(fail && Number(fail[1]) > 0)) failed += 1
}

const total = Date.now() - started
const width = Math.max(...times.map((t) => t.label.length), "total".length)
console.log("\n== time of each step")
for (const { label, ms } of [...times, { label: "total", ms: total }]) console.log(`${label.padEnd(width)} ${(ms / 1000).toFixed(1).padStart(7)} s`)
console.log(`\n${passed} passed, ${failed} failed`)
process.exit(failed === 0 ? 0 : 1)
