// @ts-check
// The test command: builds the addon (debug), runs the engine's cargo tests
// and the ava suite, and ends with one line counting both.
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
/** @param {string} name */
const bin = (name) => join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name)

/**
 * @param {string} label
 * @param {string} command
 * @param {string[]} args
 */
function run(label, command, args) {
  console.log(`\n== ${label}: ${command} ${args.join(' ')}`)
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] })
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
