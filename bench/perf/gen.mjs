// @ts-check
// Seeded generator of source-like text, so every run of the benchmark times
// the same bytes: nested indentation, blank lines, lines that repeat (`}`,
// `return null;`), occasional very long lines (some past the view's cut),
// trailing spaces, and non-ASCII in comments and strings (including
// characters outside the BMP, which JS strings hold as surrogate pairs).

export const SEED = 0x5eed1e

/** @param {number} seed */
export function rng(seed) {
  let a = seed >>> 0
  // mulberry32: small, fast, and the same sequence in Node and Bun.
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const NAMES = ['items', 'total', 'result', 'value', 'config', 'options', 'index', 'count', 'buffer', 'node', 'entry', 'state', 'path', 'offset', 'line', 'cache']
const CALLS = ['compute', 'render', 'resolve', 'update', 'parse', 'flush', 'emit', 'load', 'validate', 'format']
const WORDS = ['the', 'file', 'line', 'cache', 'résumé', 'naïve', 'größe', 'café', 'データ', '变量', 'ошибка', 'ñandú', '🚀', 'Ω', 'edit', 'batch', 'view', 'ref']
const REPEATED = ['}', '  }', '    }', '});', '  return null;', '    return result;', '  },', 'break;', '    } else {', ')']

/**
 * Source-like text of exactly `lines` lines, each ending in LF.
 * @param {number} lines
 * @param {number} [seed]
 */
export function generate(lines, seed = SEED) {
  const rand = rng(seed)
  const pick = (/** @type {string[]} */ list) => list[Math.floor(rand() * list.length)]
  const words = (/** @type {number} */ n) => {
    let s = pick(WORDS)
    for (let k = 1; k < n; k++) s += ' ' + pick(WORDS)
    return s
  }
  const spaces = Array.from({ length: 9 }, (_, d) => '  '.repeat(d))
  const tabs = Array.from({ length: 9 }, (_, d) => '\t'.repeat(d))
  const out = new Array(lines)
  let depth = 0
  for (let i = 0; i < lines; i++) {
    const r = rand()
    const indent = depth > 0 && rand() < 0.03 ? tabs[depth] : spaces[depth]
    let line
    if (r < 0.12) {
      line = ''
    } else if (r < 0.24) {
      line = indent + pick(REPEATED).trimStart()
      depth = Math.max(0, depth - 1)
    } else if (r < 0.34) {
      line = `${indent}${pick(['function', 'async function', 'export function'])} ${pick(CALLS)}${pick(NAMES)}(${pick(NAMES)}, ${pick(NAMES)}) {`
      depth = Math.min(depth + 1, 8)
    } else if (r < 0.42) {
      line = `${indent}if (${pick(NAMES)}.${pick(NAMES)} > ${Math.floor(rand() * 1000)}) {`
      depth = Math.min(depth + 1, 8)
    } else if (r < 0.52) {
      line = `${indent}// ${words(3 + Math.floor(rand() * 6))}`
    } else if (r < 0.6) {
      line = `${indent}const msg = "${words(2 + Math.floor(rand() * 4))}";`
    } else if (r < 0.6006) {
      // Long generated lines: minified data, a base64 blob; some pass the
      // 2000-character cut so the view's truncation path runs too.
      const n = 300 + Math.floor(rand() * 2900)
      line = `${indent}const blob = "${'aZ09+/é'.repeat(Math.ceil(n / 7)).slice(0, n)}";`
    } else {
      line = `${indent}${pick(NAMES)} = ${pick(CALLS)}(${pick(NAMES)}, ${Math.floor(rand() * 100)});`
    }
    if (rand() < 0.01) line += ' '.repeat(1 + Math.floor(rand() * 3))
    out[i] = line
  }
  return out.join('\n') + '\n'
}

/**
 * Text of at least `bytes` UTF-8 bytes (whole lines), for the memory runs.
 * @param {number} bytes
 * @param {number} [seed]
 */
export function generateBytes(bytes, seed = SEED) {
  const sample = generate(10_000, seed)
  const perLine = Buffer.byteLength(sample) / 10_000
  let lines = Math.ceil(bytes / perLine)
  let text = generate(lines, seed)
  while (Buffer.byteLength(text) < bytes) {
    lines = Math.ceil(lines * 1.01)
    text = generate(lines, seed)
  }
  return text
}
