// Jupyter notebooks through the real loader, on real notebooks of public
// projects (__test__/fixtures/notebooks): read as cells with refs, edited by
// ref inside cells and by cell ops, written so that nbformat accepts them.
import test from 'ava'
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createTools } from '../../lib/tools.mjs'
import { binding, scratch } from '../helpers.mjs'
import { nbformatProblems } from '../support/nbformat.mjs'

const { Hashline } = binding
const FIXTURES = new URL('../fixtures/notebooks/', import.meta.url).pathname

/** A session on a scratch folder holding a copy of the fixture `name`, as `n.ipynb`. */
function setup(t, name) {
  const dir = scratch(t)
  const file = join(dir, 'n.ipynb')
  copyFileSync(join(FIXTURES, name), file)
  const hl = new Hashline({ root: dir })
  return { dir, file, hl, bytes: () => readFileSync(file), json: () => JSON.parse(readFileSync(file, 'utf8')) }
}

/** The lean ref of the view's line whose text is exactly `text`. */
function refOf(view, text) {
  for (const line of view.split('\n')) {
    const m = /^(\d+[a-z]{2}) (.*)$/.exec(line)
    if (m && m[2] === text) return m[1]
  }
  throw new Error(`no line ${JSON.stringify(text)} in:\n${view}`)
}

/** The header line of the cell with id `id` in the view. */
const header = (view, id) => view.split('\n').find((l) => / # %% \[\w+\] id=/.test(l) && l.endsWith(`id=${id}`))?.split(' ')[0]

test('a notebook reads as its cells: a header line with the id, source lines with refs, outputs summarised without base64', (t) => {
  const s = setup(t, 'nbformat/test4.5.ipynb')
  const view = s.hl.read('n.ipynb')
  const nb = s.json()
  const lines = view.text.split('\n')
  t.regex(lines[0], /^n\.ipynb REV:[0-9A-F]{8} lines 1-\d+ of \d+$/)
  t.regex(lines[1], /» notebook: nbformat 4\.5, 9 cells/)
  for (const cell of nb.cells) t.truthy(header(view.text, cell.id), `no header for ${cell.id}`)
  const code = nb.cells.find((c) => c.cell_type === 'code' && c.outputs.length > 0)
  const first = [code.source].flat().join('').split('\n')[0]
  t.truthy(refOf(view.text, first))
  t.true(lines.some((l) => l.startsWith('  » ') && /image\/png \d/.test(l)), 'the png is summarised by its size')
  t.false(view.text.includes('iVBOR'), 'no base64 in the view')
  // The REV is the file's: the raw view of the same bytes shows the same one.
  t.is(s.hl.read('n.ipynb', { raw: true }).rev, view.rev)
})

test('raw: true shows the notebook JSON as text, with refs that a raw edit cites', (t) => {
  const s = setup(t, 'nbformat/test4.5.ipynb')
  const raw = s.hl.read('n.ipynb', { raw: true })
  t.true(raw.text.split('\n')[1].endsWith(' {'))
  t.true(raw.text.includes('"nbformat_minor": 5'))
  s.hl.edit('n.ipynb', { raw: true, operations: [{ op: 'insert_after', ref: refOf(raw.text, ' "metadata": {'), content: '  "title": "Raw",' }] })
  t.is(s.json().metadata.title, 'Raw')
  t.regex(s.hl.read('n.ipynb').text, /# %% \[markdown\] id=/)
  t.deepEqual(nbformatProblems([s.file]), [])
})

test('an edit by ref inside a code cell changes that cell only, as a list of lines, and clears its outputs', (t) => {
  const s = setup(t, 'nbsphinx/pre-executed.ipynb')
  const before = s.json()
  const at = before.cells.findIndex((c) => c.cell_type === 'code' && c.outputs.length > 0 && c.execution_count !== null)
  const lines = [before.cells[at].source].flat().join('').split('\n')
  const view = s.hl.read('n.ipynb').text
  const result = s.hl.edit('n.ipynb', { operations: [{ op: 'replace', ref: refOf(view, lines[0]), content: `${lines[0]}  # changed\nextra = 1` }] })
  t.regex(result.output, /outputs and execution count of cell \d+ \(line \d+\) were cleared/)
  const after = s.json()
  t.deepEqual(after.cells[at].source, [`${lines[0]}  # changed\n`, 'extra = 1\n', ...[before.cells[at].source].flat().slice(1)])
  t.deepEqual(after.cells[at].outputs, [])
  t.is(after.cells[at].execution_count, null)
  t.deepEqual(after.cells.filter((_, i) => i !== at), before.cells.filter((_, i) => i !== at))
  t.deepEqual(nbformatProblems([s.file]), [])
})

test('keepOutputs keeps a changed code cell\'s outputs and execution count', (t) => {
  const s = setup(t, 'nbsphinx/pre-executed.ipynb')
  const before = s.json()
  const at = before.cells.findIndex((c) => c.cell_type === 'code' && c.outputs.length > 0 && c.execution_count !== null)
  const first = [before.cells[at].source].flat().join('').split('\n')[0]
  const view = s.hl.read('n.ipynb').text
  s.hl.edit('n.ipynb', { keepOutputs: true, operations: [{ op: 'insert_after', ref: refOf(view, first), content: 'pass' }] })
  const after = s.json()
  t.deepEqual(after.cells[at].outputs, before.cells[at].outputs)
  t.is(after.cells[at].execution_count, before.cells[at].execution_count)
})

test('cell ops cite cells by their header: insert after and before, move, retype, metadata, delete', (t) => {
  const s = setup(t, 'nbconvert/notebook_inject.ipynb')
  const ids = s.json().cells.map((c) => c.id)
  const view = s.hl.read('n.ipynb').text
  s.hl.edit('n.ipynb', {
    operations: [
      { op: 'insert_cell_after', ref: header(view, ids[0]), cellType: 'markdown', content: '## After the first\n\nText é' },
      { op: 'insert_cell_before', ref: header(view, ids[0]), cellType: 'code', content: 'import os' },
      { op: 'move_cell', ref: header(view, ids[5]), after: header(view, ids[2]) },
      { op: 'set_cell_type', ref: header(view, ids[3]), cellType: 'markdown' },
      { op: 'set_cell_metadata', ref: header(view, ids[4]), metadata: { tags: ['parameters'] } },
      { op: 'delete_cell', ref: header(view, ids[1]) },
    ],
  })
  const cells = s.json().cells
  const inserted = cells.filter((c) => !ids.includes(c.id))
  t.is(inserted.length, 2)
  for (const c of inserted) t.regex(c.id, /^[0-9a-f]{8}$/)
  t.deepEqual(cells[0], { cell_type: 'code', execution_count: null, id: cells[0].id, metadata: {}, outputs: [], source: ['import os'] })
  t.is(cells[1].id, ids[0])
  t.deepEqual(cells[2], { cell_type: 'markdown', id: cells[2].id, metadata: {}, source: ['## After the first\n', '\n', 'Text é'] })
  t.deepEqual(cells.slice(3, 7).map((c) => c.id), [ids[2], ids[5], ids[3], ids[4]])
  t.is(cells[5].cell_type, 'markdown')
  t.false('outputs' in cells[5] || 'execution_count' in cells[5])
  t.deepEqual(cells[6].metadata.tags, ['parameters'])
  t.false(cells.some((c) => c.id === ids[1]))
  t.deepEqual(nbformatProblems([s.file]), [])
})

test('in a notebook without ids a new cell gets none, and the file stays valid 4.4', (t) => {
  const s = setup(t, 'nbconvert/nbconvert_library.ipynb')
  const view = s.hl.read('n.ipynb').text
  const first = view.split('\n').find((l) => l.includes(' # %% [markdown] cell 1'))?.split(' ')[0]
  s.hl.edit('n.ipynb', { operations: [{ op: 'insert_cell_after', ref: first, cellType: 'code', content: 'x = 1' }] })
  const nb = s.json()
  t.false('id' in nb.cells[1])
  t.deepEqual(nb.cells[1].source, ['x = 1'])
  t.deepEqual(nbformatProblems([s.file]), [])
})

test('a batch mixing line and cell ops across cells lands whole, or not at all', (t) => {
  const s = setup(t, 'nbformat/test4.5.ipynb')
  const original = s.bytes()
  const nb = s.json()
  const view = s.hl.read('n.ipynb').text
  const md = nb.cells.find((c) => c.cell_type === 'markdown')
  const mdFirst = [md.source].flat().join('').split('\n')[0]
  const code = nb.cells.find((c) => c.cell_type === 'code')
  const ops = [
    { op: 'replace', ref: refOf(view, mdFirst), content: '# Renamed' },
    { op: 'insert_cell_after', ref: header(view, code.id), cellType: 'markdown', content: 'A note' },
    { op: 'set_cell_metadata', ref: header(view, code.id), metadata: { tags: ['x'] } },
  ]
  const refused = (() => {
    try {
      s.hl.edit('n.ipynb', { operations: [...ops, { op: 'replace', ref: '1zz', content: 'nope' }] })
    } catch (err) {
      return err
    }
  })()
  t.is(refused?.code, 'HASH_MISMATCH')
  t.deepEqual(s.bytes(), original, 'nothing written')
  s.hl.edit('n.ipynb', { operations: ops })
  const after = s.json()
  t.is([after.cells.find((c) => c.id === md.id).source].flat().join('').split('\n')[0], '# Renamed')
  t.deepEqual(after.cells.find((c) => c.id === code.id).metadata.tags, ['x'])
  t.is(after.cells.length, nb.cells.length + 1)
  t.deepEqual(nbformatProblems([s.file]), [])
})

test('a stale ref is refused with the cell its line is in now, and nothing is written', (t) => {
  const s = setup(t, 'nbformat/test4.5.ipynb')
  const nb = s.json()
  const code = nb.cells.find((c) => c.cell_type === 'code')
  const first = [code.source].flat()[0].replace(/\n$/, '')
  const view = s.hl.read('n.ipynb').text
  const ref = refOf(view, first)
  // Another program changes that line meanwhile.
  const changed = readFileSync(s.file, 'utf8').replace(JSON.stringify([code.source].flat()[0]), JSON.stringify(`${first} # meanwhile\n`))
  writeFileSync(s.file, changed)
  const err = (() => {
    try {
      s.hl.edit('n.ipynb', { operations: [{ op: 'replace', ref, content: 'x = 2' }] })
    } catch (e) {
      return e
    }
  })()
  t.is(err?.code, 'HASH_MISMATCH')
  t.regex(err.message, new RegExp(`is in cell ${code.id} \\(line \\d+\\)`))
  t.true(err.message.includes(`${first} # meanwhile`), 'the current line is shown')
  t.is(readFileSync(s.file, 'utf8'), changed)
})

for (const [name, why] of [
  ['nbformat/invalid_unique_cell_id.ipynb', /ids must be unique/],
  ['nbformat/v4_5_no_cell_id.ipynb', /has no `id`/],
]) {
  test(`a notebook nbformat refuses (${name}) is refused with INVALID_NOTEBOOK, nothing written, and stays readable raw`, (t) => {
    const s = setup(t, name)
    const original = s.bytes()
    t.true(nbformatProblems([s.file]).length === 1, 'nbformat refuses it too')
    const read = t.throws(() => s.hl.read('n.ipynb'))
    t.is(read.code, 'INVALID_NOTEBOOK')
    t.regex(read.message, why)
    const edit = t.throws(() => s.hl.edit('n.ipynb', { operations: [{ op: 'delete_cell', ref: '1ab' }] }))
    t.is(edit.code, 'INVALID_NOTEBOOK')
    t.deepEqual(s.bytes(), original)
    t.true(s.hl.read('n.ipynb', { raw: true }).text.includes('"cells": ['))
  })
}

test('the tool list reads a notebook as cells, raw on request, and edits it by cell ops', async (t) => {
  const s = setup(t, 'nbclient/Error.ipynb')
  const tools = createTools({ root: s.dir })
  const view = await tools.read.execute({ filePath: 'n.ipynb' })
  t.regex(view, /# %% \[code\] id=/)
  t.regex(await tools.read.execute({ filePath: 'n.ipynb', raw: 'true' }), /"nbformat": 4/)
  const id = s.json().cells[0].id
  await tools.edit.execute({ filePath: 'n.ipynb', operations: [{ op: 'insert_cell_before', ref: header(view, id), cell_type: 'markdown', content: 'Why it fails' }] })
  t.deepEqual(s.json().cells[0].source, ['Why it fails'])
  t.deepEqual(nbformatProblems([s.file]), [])
})
