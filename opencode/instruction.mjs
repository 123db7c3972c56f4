// @ts-check
// What the model is told once per request about refs and the edit tool.

export const MARKER = "<hashline>"

export const INSTRUCTION = `${MARKER}
The read and grep tools show each line with a ref: \`LINE#HASH#ANCHOR|content\`, e.g. \`12#A3F#9BC|  return total;\`, and a read shows the file's REV (\`REV:72C4946C\`). The ref and the \`|\` are not part of the file.
To change a file, call edit with operations that cite these refs (replace, delete, insert_before, insert_after, prepend, append) instead of retyping old text. Put only the new text in content, never refs.
An edit result shows fresh refs for the lines it changed and how the other lines moved: continue from it without reading the file again. If an edit is rejected nothing was written; use the refs the rejection shows, or read the file again.
</hashline>`
