// @ts-check
// Problems an edit introduced, in the shape OpenCode's own edit tools give
// LSP errors: `metadata.diagnostics` keyed by file, and the text block
// "LSP errors detected in …, please fix:" (`lsp/diagnostic.ts`), with the
// ref of each line so the fix can cite it.

/**
 * @typedef {import("../index.js").Problem} Problem
 * @typedef {{ range: { start: { line: number, character: number }, end: { line: number, character: number } }, severity: number, message: string, source: string }} Diagnostic
 */

/** OpenCode shows at most this many errors per file. */
const MAX_SHOWN = 20

const SEVERITY = /** @type {Record<string, number>} */ ({ error: 1, warning: 2 })

/**
 * LSP diagnostics (0-based positions) for the problems of one file.
 * @param {Problem[]} problems
 * @returns {Diagnostic[]}
 */
export function toDiagnostics(problems) {
  return problems.map((p) => ({
    range: { start: { line: p.line - 1, character: p.column - 1 }, end: { line: p.line - 1, character: p.endColumn - 1 } },
    severity: SEVERITY[p.severity] ?? 1,
    message: `${p.message} (${p.ref})`,
    source: "hashline",
  }))
}

/**
 * The block OpenCode appends for a file's errors, or "" when it has none.
 * @param {string} file
 * @param {Problem[]} problems
 */
export function report(file, problems) {
  const errors = problems.filter((p) => p.severity === "error")
  if (errors.length === 0) return ""
  const shown = errors.slice(0, MAX_SHOWN).map((p) => `ERROR [${p.line}:${p.column}] ${p.message} (${p.ref})`)
  const more = errors.length > MAX_SHOWN ? `\n... and ${errors.length - MAX_SHOWN} more` : ""
  return `<diagnostics file="${file}">\n${shown.join("\n")}${more}\n</diagnostics>`
}
