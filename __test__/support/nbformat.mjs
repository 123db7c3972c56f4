// Jupyter's own judgement of notebooks: nbformat's validator (a test tool of
// scripts/tools.txt), strict where nbformat itself only warns and repairs (a
// missing or repeated cell id), run on the file's bytes as written.
import { spawnSync } from 'node:child_process'
import { VENV_PYTHON } from '../../scripts/tools.mjs'

const CHECK = `
import json, sys, warnings
from nbformat import validate, ValidationError
from nbformat.warnings import MissingIDFieldWarning, DuplicateCellId
warnings.simplefilter("error", MissingIDFieldWarning)
warnings.simplefilter("error", DuplicateCellId)
for path in sys.argv[1:]:
    try:
        with open(path, encoding="utf-8") as f:
            validate(json.load(f))
    except (ValueError, ValidationError, MissingIDFieldWarning, DuplicateCellId) as e:
        print(f"{path}: {type(e).__name__}: {str(e).splitlines()[0]}")
`

/**
 * What nbformat finds wrong with each of `paths`, one line per notebook it
 * refuses: empty when all are valid.
 * @param {string[]} paths
 * @returns {string[]}
 */
export function nbformatProblems(paths) {
  const run = spawnSync(VENV_PYTHON, ['-c', CHECK, ...paths], { encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`nbformat's validator did not run (${run.error?.message ?? run.status}): ${run.stderr}`)
  return run.stdout.split('\n').filter(Boolean)
}
