// The corpus of real notebooks (__test__/fixtures/notebooks, each file's
// source in its README), judged by nbformat itself: the engine reads as
// cells exactly the notebooks nbformat accepts; on each of those a read
// changes no byte, edits of every kind on a spread of cells come back to
// the same bytes when reversed, and every file written validates. The view
// is measured against the file's JSON in o200k tokens.
import test from 'ava'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { getEncoding } from 'js-tiktoken'
import { binding, scratch } from '../helpers.mjs'
import { nbformatProblems } from '../support/nbformat.mjs'
import { exercise } from '../support/notebooks.mjs'

const { Hashline } = binding
const FIXTURES = new URL('../fixtures/notebooks/', import.meta.url).pathname

/** Every notebook of the corpus, as paths from its folder. */
function corpus(dir = FIXTURES) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ipynb'))
    .map((e) => relative(FIXTURES, join(e.parentPath, e.name)))
    .sort()
}

const NOTEBOOKS = corpus()
const REFUSED = new Set(nbformatProblems(NOTEBOOKS.map((n) => join(FIXTURES, n))).map((line) => relative(FIXTURES, line.split(': ')[0])))
const VALID = NOTEBOOKS.filter((n) => !REFUSED.has(n))

test('the corpus holds real notebooks of every kind the tests need', (t) => {
  const nbs = VALID.map((n) => JSON.parse(readFileSync(join(FIXTURES, n), 'utf8')))
  const cells = nbs.flatMap((nb) => nb.cells)
  const outputs = cells.flatMap((c) => c.outputs ?? [])
  const mimes = new Set(outputs.flatMap((o) => Object.keys(o.data ?? {})))
  t.true(cells.some((c) => c.cell_type === 'markdown') && cells.some((c) => c.cell_type === 'code') && cells.some((c) => c.cell_type === 'raw'))
  t.true(mimes.has('image/png') && mimes.has('image/jpeg'), 'image outputs')
  t.true(mimes.has('application/vnd.jupyter.widget-view+json'), 'widget outputs')
  t.true(outputs.some((o) => o.output_type === 'error') && outputs.some((o) => o.output_type === 'stream'))
  t.true(cells.some((c) => c.attachments), 'attachments')
  t.true(nbs.some((nb) => nb.nbformat_minor === 4 && nb.cells.every((c) => !('id' in c))), 'nbformat 4.4 without ids')
  t.true(nbs.some((nb) => nb.nbformat_minor === 5 && nb.cells.every((c) => 'id' in c)), 'nbformat 4.5 with ids')
  t.true(VALID.some((n) => /[^\x00-\x7f]/.test(readFileSync(join(FIXTURES, n), 'utf8'))), 'non-ASCII text')
  t.true(REFUSED.size >= 2, 'notebooks nbformat refuses')
})

test('the engine reads as cells exactly the notebooks nbformat accepts, and refuses the others with INVALID_NOTEBOOK', (t) => {
  const hl = new Hashline({ root: FIXTURES })
  for (const name of NOTEBOOKS) {
    let code = 'read'
    try {
      hl.read(name)
    } catch (err) {
      code = err.code
    }
    t.is(code, REFUSED.has(name) ? 'INVALID_NOTEBOOK' : 'read', name)
  }
})

/**
 * Notebooks whose sources are not in nbformat's layout: one as a string,
 * lists written on one line. A changed source is written as nbformat writes
 * it, so its reverse gives back the same notebook in other bytes.
 */
const OTHER_LAYOUT = new Set(['nbstripout/test_output_types.ipynb', 'papermill/test_notebooknode_io.ipynb'])

for (const name of VALID) {
  const promise = OTHER_LAYOUT.has(name) ? 'the same notebook' : 'the bytes'
  test(`${name}: a read changes no byte, each edit reversed gives ${promise} back, and nbformat accepts every file written`, (t) => {
    const { failures, written, edits } = exercise(join(FIXTURES, name), scratch(t), OTHER_LAYOUT.has(name))
    t.deepEqual(failures, [])
    t.true(edits > 0)
    const refused = nbformatProblems(written.map((w) => w.copy))
    t.deepEqual(
      refused.map((line) => `${written.find((w) => line.startsWith(w.copy))?.what}: ${line}`),
      [],
    )
  })
}

test('the notebook view costs fewer tokens than the JSON it shows', (t) => {
  const encoding = getEncoding('o200k_base')
  const hl = new Hashline({ root: FIXTURES })
  let view = 0
  let json = 0
  for (const name of VALID) {
    const tokens = { view: encoding.encode(hl.read(name).text).length, json: encoding.encode(readFileSync(join(FIXTURES, name), 'utf8')).length }
    t.log(`${name}: view ${tokens.view}, JSON ${tokens.json} (${(tokens.json / tokens.view).toFixed(1)}x)`)
    view += tokens.view
    json += tokens.json
  }
  t.log(`${VALID.length} notebooks: view ${view} tokens, JSON ${json} (view/JSON ${(view / json).toFixed(3)}, JSON/view ${(json / view).toFixed(1)}x)`)
  t.true(view < json)
})
