// @ts-check
// The versions the crash test's writer commits: version k names itself on
// its first line and repeats k on every other line, so any mix of two
// versions, or a cut-off one, equals no version.

const ROWS = 100

/** The text of version `step`. @param {number} step */
export function render(step) {
  let text = `step ${step}\n`
  for (let row = 0; row < ROWS; row++) text += `${step}:${row} ${'abcdefghij'.repeat(4)}\n`
  return text
}

/** The step a first line names, or NaN. @param {string} firstLine */
export function stepOf(firstLine) {
  const m = /^step (\d+)$/.exec(firstLine)
  return m ? Number(m[1]) : Number.NaN
}
