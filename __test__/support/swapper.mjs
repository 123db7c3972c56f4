// @ts-check
// Flips a folder inside the root between the real folder and a symlink to a
// folder outside the root, as fast as it can, until it is killed or its time
// is up. It counts the flips and prints the count when it stops. While the
// folder is away, an edit that creates files may make a new folder in its
// place; that one is removed so the real folder can come back.
//
// Usage: node swapper.mjs '{"folder", "outside", "maxMs"}'
import { renameSync, rmSync, symlinkSync, unlinkSync } from 'node:fs'

const { folder, outside, maxMs } = JSON.parse(process.argv[2] ?? '{}')
const parked = `${folder}.real`
const deadline = Date.now() + maxMs
let flips = 0

/** Removes whatever has the folder's name, retrying while an edit writes into it. */
function clear() {
  for (;;) {
    try {
      return rmSync(folder, { recursive: true, force: true })
    } catch {}
  }
}

/** Runs `step`, first clearing whatever took the folder's name if it fails. @param {() => void} step */
function force(step) {
  for (;;) {
    try {
      return step()
    } catch {
      clear()
    }
  }
}

// Between batches the real folder is in place, so stopping there leaves
// the tree as the test expects it.
process.on('SIGTERM', () => {
  process.stdout.write(`${flips}\n`)
  process.exit(0)
})

process.stdout.write('ready\n')
while (Date.now() < deadline) {
  for (let i = 0; i < 64; i++) {
    renameSync(folder, parked)
    force(() => symlinkSync(outside, folder))
    force(() => unlinkSync(folder))
    force(() => renameSync(parked, folder))
    flips++
    // The real folder stays a random while, so that some reads and plans
    // start inside and the swap comes before they finish.
    const until = process.hrtime.bigint() + BigInt(Math.floor(Math.random() * 1_000_000))
    while (process.hrtime.bigint() < until);
  }
  // Let the SIGTERM handler run.
  await new Promise((resolve) => setImmediate(resolve))
}
process.stdout.write(`${flips}\n`)
