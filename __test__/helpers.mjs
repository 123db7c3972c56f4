// Shared by the ava suites: the binding through its generated loader, and
// scratch folders.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

export const binding = createRequire(import.meta.url)('../index.js')

/** A fresh folder removed when the test ends. */
export function scratch(t) {
  const dir = mkdtempSync(join(tmpdir(), 'hashline-test-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * The records of a telemetry folder's live file, each line parsed, after
 * this process wrote what it had queued. Other test processes may share the
 * folder: a last line without its line break is one of them still writing.
 * @param {string} dir
 * @returns {Array<Record<string, any>>}
 */
export function recorded(dir) {
  binding.flushTelemetry()
  const file = join(dir, 'telemetry.jsonl')
  if (!existsSync(file)) return []
  const text = readFileSync(file, 'utf8')
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
}

/**
 * What `hashline stats` prints of a telemetry folder: the table a user
 * would see of the calls a test's session made.
 * @param {string} dir
 */
export function statsTable(dir) {
  binding.flushTelemetry()
  const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'hashline.cjs')
  const run = spawnSync(process.execPath, [cli, 'stats', '--telemetry-dir', dir], { encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`hashline stats failed (${run.status}): ${run.stderr}`)
  return run.stdout
}

/**
 * A process holding the advisory lock every write into `dir` takes, until
 * `release` is called: a write there waits meanwhile, which holds a call
 * mid-way without any timing. Unix only.
 * @param {import('ava').ExecutionContext} t @param {string} dir
 */
export async function holdFolderLock(t, dir) {
  const script = 'import fcntl, os, sys\nfd = os.open(sys.argv[1], os.O_RDONLY)\nfcntl.flock(fd, fcntl.LOCK_EX)\nprint("locked", flush=True)\nsys.stdin.read()\n'
  const child = spawn('python3', ['-c', script, dir], { stdio: ['pipe', 'pipe', 'inherit'] })
  t.teardown(() => child.kill())
  const lines = createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) })
  for await (const line of lines) if (line === 'locked') break
  const exited = new Promise((resolve) => child.once('exit', resolve))
  return {
    release: async () => {
      child.stdin?.end()
      await exited
    },
  }
}

/** The refs of a view's lines (full or lean), by 1-based line number. */
export function refsOf(viewText) {
  const refs = {}
  for (const line of viewText.split('\n')) {
    const m = /^(\d+)#([0-9A-F]{3})#([0-9A-F]{3})\|/.exec(line)
    if (m) refs[Number(m[1])] = `${m[1]}#${m[2]}#${m[3]}`
    const lean = /^(\d+)([a-z]{2}) /.exec(line)
    if (lean) refs[Number(lean[1])] = `${lean[1]}${lean[2]}`
  }
  return refs
}

/** Runs `fn` and returns the error it throws (failing the test if none). */
export function thrown(t, fn) {
  try {
    fn()
  } catch (err) {
    return err
  }
  t.fail('expected an error')
  return undefined
}

/**
 * The bun binary of the `bun` npm package; its launcher is only put in place
 * by an install script, which a scripts-free install skips.
 */
export function bunBinary() {
  const exe = process.platform === 'win32' ? '.exe' : ''
  const root = join(dirname(fileURLToPath(import.meta.url)), '..')
  const works = (file) => existsSync(file) && spawnSync(file, ['--version'], { timeout: 30_000 }).status === 0
  const launcher = join(root, 'node_modules', '.bin', `bun${exe}`)
  if (works(launcher)) return launcher
  const arch = process.arch === 'arm64' ? 'aarch64' : process.arch
  const base = `bun-${process.platform === 'win32' ? 'windows' : process.platform}-${arch}`
  for (const name of [base, `${base}-baseline`, `${base}-musl`, `${base}-baseline-musl`]) {
    const file = join(root, 'node_modules', '@oven', name, 'bin', `bun${exe}`)
    if (works(file)) return file
  }
  throw new Error('no working bun binary in node_modules; run npm install')
}
