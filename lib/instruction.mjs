// @ts-check
// What the model is told about refs and its edit tool, by every host that
// gives it instructions: the tool it actually has, `edit` or `apply_patch`.

/**
 * @typedef {"edit" | "patch"} EditKind
 */

export const MARKER = "<hashline>"

const REFS = `The read and grep tools show each line with a ref: \`LINEab content\`, e.g. \`12ab   return total;\` (ref \`12ab\`), or in the full view \`LINE#HASH#ANCHOR|content\` (ref \`12#A3F#9BC\`); both kinds of refs work. A read shows the file's REV (\`REV:72C4946C\`). The ref and the one space (or \`|\`) after it are not part of the file.`

export const INSTRUCTION = `${MARKER}
${REFS}
To change a file, call edit with operations that cite these refs (replace, delete, insert_before, insert_after, prepend, append) instead of retyping old text. Put only the new text in content, never refs: content is written as sent, and if it holds lines that look copied from a view the edit is refused (AMBIGUOUS_ECHO) unless you add "literal": true to say the text is meant. To move or copy lines, cite them: {"op":"move","ref":"12ab","through":"20cd","after":"40ef"}.
An edit result shows fresh refs for the lines it changed and how the other lines moved: continue from it without reading the file again. If an edit is rejected nothing was written; use the refs the rejection shows, or read the file again.
</hashline>`

export const PATCH_INSTRUCTION = `${MARKER}
To change files, call apply_patch. Copy each hunk's context and removed lines exactly as the file has them, with about three lines of context: a hunk must fit exactly one place after the hunk before it, or the whole patch is rejected and nothing is written.
Results and rejections show lines with a ref, \`LINE#HASH#ANCHOR|content\`, e.g. \`12#A3F#9BC|  return total;\`; the ref and the \`|\` are not part of the file. A result shows the lines it changed as they are now (formatted, if the project formats files): continue from it without reading the files again. To retry a rejected hunk, copy the current lines it shows, or put the ref of the hunk's first line after its \`@@\` (\`@@ 12#A3F#9BC\`) to anchor it at exactly that line.
</hashline>`

/**
 * The instruction for a model with this edit tool.
 * @param {EditKind} kind
 */
export function instructionFor(kind) {
  return kind === "patch" ? PATCH_INSTRUCTION : INSTRUCTION
}
