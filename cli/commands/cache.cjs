// @ts-check
// `hashline cache clear`: empties the store of the versions hashline kept.
"use strict"

/** @param {number} n */
const size = (n) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} bytes`)

/** @param {import("../args.cjs").Context} cx */
async function cache(cx) {
  const store = cx.storeDir()
  const cleared = cx.native().clearStore(store)
  const skipped = cleared.skipped > 0 ? `; left ${cleared.skipped} file${cleared.skipped === 1 ? "" : "s"} that hashline did not write` : ""
  return {
    stdout: `Removed ${cleared.files} file${cleared.files === 1 ? "" : "s"} (${size(cleared.bytes)}) from the store ${store}${skipped}.\n`,
    json: { ok: true, store, ...cleared },
  }
}

module.exports = { run: cache }
