// @ts-check
// The texts the batch writer gives its files: step k of a file names the
// file and k on every line, so a file cut short, mixed with another step or
// given another file's bytes equals no text of this shape.

const ROWS = 200

/** The text of `file` at `step`. @param {string} file @param {number} step */
export function text(file, step) {
  let out = `${file} at step ${step}\n`
  for (let row = 0; row < ROWS; row++) out += `${step}:${row} ${file}\n`
  return out
}

/** The step `content` is of `file`, or NaN. @param {string} file @param {string} content */
export function stepOf(file, content) {
  const m = /^(.*) at step (\d+)\n/.exec(content)
  if (!m || m[1] !== file) return Number.NaN
  const step = Number(m[2])
  return text(file, step) === content ? step : Number.NaN
}
