// @ts-check
// The `install` step of a clone (the published package has none: see
// scripts/release.mjs): when no binary for this platform loads, build the
// addon from source with cargo.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)

try {
  require(join(root, 'index.js'))
  process.exit(0)
} catch {
  // No loadable binary: fall through to building one.
}

const napi = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'napi.cmd' : 'napi')
if (!existsSync(napi)) {
  console.error('hashline: @napi-rs/cli is not installed, so the addon cannot be built; run npm install without --omit=dev.')
  process.exit(1)
}
console.error('hashline: no prebuilt binary for this platform; building from source with cargo (a minute or two)...')
const result = spawnSync(napi, ['build', '--platform', '--release'], { cwd: root, stdio: 'inherit' })
process.exit(result.status ?? 1)
