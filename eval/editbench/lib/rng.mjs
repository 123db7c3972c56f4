// @ts-check
// Seeded randomness: every draw of the benchmark is reproducible from the seed,
// and each trial gets its own stream so that quick and full runs agree on the
// files they share.

/** @typedef {{ next(): number, int(n: number): number, pick<T>(items: T[]): T, chance(p: number): boolean, shuffle<T>(items: T[]): T[] }} Rng */

/** FNV-1a over the UTF-16 code units of a string, as a 32-bit seed. */
export function seedOf(/** @type {string} */ text) {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h
}

/**
 * mulberry32: small, fast, and good enough for sampling.
 * @param {number | string} seed
 * @returns {Rng}
 */
export function rng(seed) {
  let s = (typeof seed === 'string' ? seedOf(seed) : seed) >>> 0
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (p) => next() < p,
    shuffle: (items) => {
      const out = items.slice()
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1))
        ;[out[i], out[j]] = [out[j], out[i]]
      }
      return out
    },
  }
}
