// @ts-check
// Edit formats that cite lines: the peers' and this project's candidate
// views, each with its tags, view lines, tool-call shape, validation, echo
// clean-up, and the texts its tool returns. `applyRefEdit` plays an edit of
// any of them against a file the way that tool would.

import { binding } from '../appliers/hashline.mjs'
import { joinLines } from './diff.mjs'
import { hashlineView } from './views.mjs'
import { FULL_PREFIX, b64Tag, pairTag, stripLeanPrefixes } from './lean.mjs'
import { angRef, angRev, changedRows, numbered, ompFileTag, ompV2Tag, omoLegacyTag, omoTag, opencodeRead, around } from './peers.mjs'

/**
 * @typedef {import('./formats.mjs').HashlineEdit} HashlineEdit
 * @typedef {import('./formats.mjs').HashlineOp} HashlineOp
 * @typedef {import('./tokens.mjs').Tagged} Tagged
 * @typedef {{ lines: string[], text: string, tags?: string[] }} Version a text and, once asked, its tags by 1-based line
 * @typedef {'engine' | 'grown' | 'grown-loose' | 'none'} BoundaryRule
 * @typedef {{
 *   id: string, label: string, store: boolean, boundary: BoundaryRule, perLine: boolean,
 *   tags(lines: string[]): string[],
 *   ref(n: number, tag: string): string,
 *   prefix(n: number, tag: string): string,
 *   valid(v: Version, n: number, tag: string): boolean,
 *   strip(lines: string[]): string[] | null,
 *   page(path: string, v: Version, start: number, limit: number): string,
 *   call(ops: Array<{ op: HashlineOp, ref?: string, through?: string }>, path: string, v: Version): Tagged,
 *   ok(path: string, before: Version, after: Version, ops: number): string,
 *   fail(path: string, v: Version, bad: number[]): string,
 * }} RefFormat
 */

const esc = (/** @type {string} */ s) => JSON.stringify(s).slice(1, -1)

/** The tags of a version in a format, computed once. */
export function tagsOf(/** @type {RefFormat} */ f, /** @type {Version} */ v) {
  const key = `tags:${f.id}`
  /** @type {any} */
  const cache = v
  return (cache[key] ??= f.tags(v.lines))
}

const byLine = (/** @type {string[]} */ lines, /** @type {(n: number, line: string, i: number) => string} */ fn) => {
  const out = ['']
  for (let i = 0; i < lines.length; i++) out.push(fn(i + 1, lines[i], i))
  return out
}

/** ANCHOR only on lines whose HASH occurs more than once in the file. */
function anchorWhereRepeated(/** @type {string[]} */ full) {
  /** @type {Map<string, number>} */
  const count = new Map()
  for (const r of full) if (r) count.set(r.split('#')[0], (count.get(r.split('#')[0]) ?? 0) + 1)
  return full.map((r) => (!r || (count.get(r.split('#')[0]) ?? 0) > 1 ? r : r.split('#')[0]))
}

/** This project's HASH#ANCHOR of each line, from the engine's own view, by 1-based line. */
const fullTags = (/** @type {string[]} */ lines) => hashlineView(binding, joinLines(lines)).refs.map((r) => (r ? r.split('#').slice(1).join('#') : ''))
/** @param {Version} v */
const fullTagsOf = (v) => {
  /** @type {any} */
  const cache = v
  return /** @type {string[]} */ ((cache['tags:hashline'] ??= fullTags(v.lines)))
}

/**
 * A JSON tool call `{ path, <list>: [ops] }`, tagged for the token split.
 * @param {string} head the opening, path included
 * @param {Array<{ fields: Array<[string, string]>, content?: { key: string, lines: import('./formats.mjs').Line[], array: boolean, nullWhenEmpty?: boolean } }>} ops
 * @returns {Tagged}
 */
function jsonCall(head, ops) {
  /** @type {Tagged} */
  const out = [[head, 'structure']]
  ops.forEach((o, i) => {
    let s = `${i > 0 ? ',' : ''}{${o.fields.map(([k, v]) => `"${k}":"${esc(v)}"`).join(',')}`
    if (!o.content) {
      out.push([s + '}', 'structure'])
      return
    }
    const { key, lines, array } = o.content
    s += `${o.fields.length > 0 ? ',' : ''}"${key}":${array ? '[' : '"'}`
    out.push([s, 'structure'])
    lines.forEach((l, k) => {
      if (array) {
        out.push([`${k > 0 ? ',' : ''}"`, 'structure'])
        out.push([esc(l.text), l.copy ? 'old' : 'new'])
        out.push(['"', 'structure'])
      } else out.push([esc(l.text + (k < lines.length - 1 ? '\n' : '')), l.copy ? 'old' : 'new'])
    })
    out.push([array ? ']}' : '"}', 'structure'])
  })
  out.push([']}', 'structure'])
  return out
}

/** Numbered rows with `>>> ` on the focus lines and `    ...` between separate runs. */
function rejectionRows(/** @type {number[]} */ rows, /** @type {number[]} */ focus, /** @type {(n: number) => string} */ line) {
  const out = []
  let prev = 0
  for (const n of rows) {
    if (prev && n > prev + 1) out.push('    ...')
    out.push(`${focus.includes(n) ? '>>> ' : '    '}${line(n)}`)
    prev = n
  }
  return out.join('\n')
}

/** This project's edit result, as the engine writes it, with each format's line prefixes. */
function engineResult(/** @type {RefFormat} */ f, /** @type {string} */ path, /** @type {Version} */ before, /** @type {Version} */ after, /** @type {number} */ ops) {
  const tags = tagsOf(f, after)
  const { rows, added, removed } = changedRows(before.lines, after.lines)
  const out = [`Applied ${ops} operation${ops === 1 ? '' : 's'} to ${path}. REV ${angRev(before.text)} -> ${angRev(after.text)} (+${added.size} -${removed})`]
  let prev = 0
  for (const n of rows) {
    if (!prev || n > prev + 1) out.push(`@@ ${n}-${Math.min(after.lines.length, n + 4)} @@`)
    out.push(`${added.has(n) ? '+' : ' '}${f.prefix(n, tags[n])}${after.lines[n - 1]}`)
    prev = n
  }
  if (after.lines.length !== before.lines.length) out.push(`Lines moved: the lines after the change moved by ${after.lines.length - before.lines.length > 0 ? '+' : ''}${after.lines.length - before.lines.length}.`)
  return out.join('\n')
}

function engineRejection(/** @type {RefFormat} */ f, /** @type {string} */ path, /** @type {Version} */ v, /** @type {number[]} */ bad) {
  const tags = tagsOf(f, v)
  const focus = bad.map((n) => Math.min(Math.max(1, n), v.lines.length))
  const rows = around(focus, v.lines.length)
  return [
    `Edit rejected, nothing written: ${bad.length} ref${bad.length === 1 ? '' : 's'} no longer match${bad.length === 1 ? 'es' : ''} ${path} (REV now ${angRev(v.text)}).`,
    rejectionRows(rows, focus, (n) => f.prefix(n, tags[n]) + v.lines[n - 1]),
    ...focus.map((n, i) => `operation ${i + 1}: the ref does not match; line ${n} is now ${f.ref(n, tags[n])}.`),
    'Use the refs above, or read the file again.',
  ].join('\n')
}

/** This project's view header and footer around view lines. */
function enginePage(/** @type {RefFormat} */ f, /** @type {string} */ path, /** @type {Version} */ v, /** @type {number} */ start, /** @type {number} */ limit) {
  const tags = tagsOf(f, v)
  const rows = numbered(v.lines, start, limit, (n) => f.prefix(n, tags[n]))
  const end = start + rows.length - 1
  const foot = end < v.lines.length ? `\n(Showing lines ${start}-${end} of ${v.lines.length}. Read on with offset=${end + 1}.)` : ''
  return `${path} REV:${angRev(v.text)} lines ${start}-${end} of ${v.lines.length}\n${rows.join('\n')}${foot}\n`
}

/** The tool call of this project's `edit` tool, with each format's refs. */
function engineCall(/** @type {Array<{ op: HashlineOp, ref?: string, through?: string }>} */ ops, /** @type {string} */ path) {
  return jsonCall(
    `{"filePath":"${esc(path)}","operations":[`,
    ops.map(({ op, ref, through }) => ({
      fields: /** @type {Array<[string, string]>} */ ([['op', op.op], ...(ref ? [['ref', ref]] : []), ...(through ? [['through', through]] : [])]),
      content: op.op === 'delete' ? undefined : { key: 'content', lines: op.lines, array: false },
    })),
  )
}

/** Completes one of this project's formats with the engine's view, call, result and rejection shapes. */
const bindOurs = (/** @type {Omit<RefFormat, 'page' | 'call' | 'ok' | 'fail'>} */ f) => {
  /** @type {RefFormat} */
  const full = {
    ...f,
    page: (path, v, start, limit) => enginePage(full, path, v, start, limit),
    call: (ops, path) => engineCall(ops, path),
    ok: (path, before, after, n) => engineResult(full, path, before, after, n),
    fail: (path, v, bad) => engineRejection(full, path, v, bad),
  }
  return full
}
const sameTag = (/** @type {RefFormat} */ f) => (/** @type {Version} */ v, /** @type {number} */ n, /** @type {string} */ tag) => n >= 1 && n <= v.lines.length && tagsOf(f, v)[n] === tag
/** A ref without ANCHOR matches the HASH alone; with one, both. */
const hashAnchor = (/** @type {RefFormat} */ f) => (/** @type {Version} */ v, /** @type {number} */ n, /** @type {string} */ tag) => {
  if (n < 1 || n > v.lines.length) return false
  const [hash, anchor] = tag.split('#')
  const [h, a] = fullTagsOf(v)[n].split('#')
  return hash === (f.id === 'b64' ? b64Tag(h) : h) && (anchor === undefined || anchor === (f.id === 'b64' ? b64Tag(a) : a))
}

/** Echoed prefixes of a form, stripped only when every non-empty line has one and their numbers rise. */
const risingPrefixes = (/** @type {RegExp} */ re) => (/** @type {string[]} */ lines) => {
  let last = 0
  let any = false
  const out = []
  for (const line of lines) {
    if (line === '') {
      out.push(line)
      continue
    }
    const m = re.exec(line)
    if (!m) return null
    const n = Number(m[1])
    if (n <= last) return null
    last = n
    any = true
    out.push(line.slice(m[0].length))
  }
  return any ? out : null
}

// ------------------------------------------------------------ this project

const fullFormat = bindOurs({
  id: 'hashline',
  label: 'this project, full view `N#HHH#AAA|`',
  store: true,
  boundary: 'engine',
  perLine: true,
  tags: (lines) => fullTags(lines),
  ref: (n, tag) => `${n}#${tag}`,
  prefix: (n, tag) => `${n}#${tag}|`,
  valid: (v, n, tag) => hashAnchor(fullFormat)(v, n, tag),
  strip: (lines) => {
    // The engine's rule today: every non-empty line carries the exact full prefix.
    const filled = lines.filter((l) => l !== '')
    return filled.length > 0 && filled.every((l) => FULL_PREFIX.test(l)) ? lines.map((l) => l.replace(FULL_PREFIX, '')) : null
  },
})

const shortFormat = bindOurs({
  id: 'short',
  label: 'lean candidate: ANCHOR only where the HASH repeats, `N#HHH|`',
  store: true,
  boundary: 'engine',
  perLine: true,
  tags: (lines) => anchorWhereRepeated(fullTags(lines)),
  ref: (n, tag) => `${n}#${tag}`,
  prefix: (n, tag) => `${n}#${tag}|`,
  valid: (v, n, tag) => hashAnchor(shortFormat)(v, n, tag),
  strip: risingPrefixes(/^(?:>>> |[+ ])?(\d+)#[0-9A-F]{3}(?:#[0-9A-F]{3})?\|/),
})

const b64Format = bindOurs({
  id: 'b64',
  label: 'lean candidate: the same refs in base64, `N#Xy|`',
  store: true,
  boundary: 'engine',
  perLine: true,
  tags: (lines) => anchorWhereRepeated(fullTags(lines)).map((t) => (t ? t.split('#').map(b64Tag).join('#') : t)),
  ref: (n, tag) => `${n}#${tag}`,
  prefix: (n, tag) => `${n}#${tag}|`,
  valid: (v, n, tag) => hashAnchor(b64Format)(v, n, tag),
  strip: risingPrefixes(/^(?:>>> |[+ ])?(\d+)#[A-Za-z0-9_-]{2}(?:#[A-Za-z0-9_-]{2})?\|/),
})

const fileTagFormat = bindOurs({
  id: 'revonly',
  label: 'lean candidate: `N:` lines, the REV alone proves them',
  store: true,
  boundary: 'engine',
  perLine: false,
  tags: (lines) => byLine(lines, () => ''),
  ref: (n) => `${n}`,
  prefix: (n) => `${n}:`,
  valid: (v, n) => n >= 1 && n <= v.lines.length,
  strip: risingPrefixes(/^(?:>>> |[+ ])?(\d+):/),
})

/** @param {string} id @param {string} sep @param {string} label */
const pairFormat = (id, sep, label) =>
  bindOurs({
    id,
    label,
    store: true,
    boundary: 'engine',
    perLine: true,
    tags: (lines) => byLine(lines, (n, l) => pairTag(n, l)),
    ref: (n, tag) => `${n}${tag}`,
    prefix: (n, tag) => `${n}${tag}${sep}`,
    valid: (v, n, tag) => n >= 1 && n <= v.lines.length && pairTag(n, v.lines[n - 1]) === tag,
    strip: stripLeanPrefixes,
  })

// ------------------------------------------------------------ the peers

/** @type {RefFormat} */
const omoFormat = {
  id: 'omo',
  label: 'oh-my-openagent `N#LL|`',
  store: false,
  boundary: 'grown',
  perLine: true,
  tags: (lines) => byLine(lines, (n, l) => omoTag(n, l)),
  ref: (n, tag) => `${n}#${tag}`,
  prefix: (n, tag) => `${n}#${tag}|`,
  valid: (v, n, tag) => n >= 1 && n <= v.lines.length && (omoTag(n, v.lines[n - 1]) === tag || omoLegacyTag(n, v.lines[n - 1]) === tag),
  strip: (lines) => {
    // Stripped where at least half of the non-empty lines carry a prefix (then from those lines only).
    const re = /^\s*(?:>>>|>>)?\s*\d+\s*#\s*[ZPMQVRWSNKTXJBYH]{2}\|/
    const filled = lines.filter((l) => l !== '')
    const hits = filled.filter((l) => re.test(l)).length
    return hits > 0 && hits >= filled.length * 0.5 ? lines.map((l) => l.replace(re, '')) : null
  },
  page: (path, v, start, limit) => {
    const tags = tagsOf(omoFormat, v)
    return opencodeRead(path, numbered(v.lines, start, limit, (n) => `${n}#${tags[n]}|`), start, v.lines.length)
  },
  call: (ops, path) =>
    jsonCall(
      `{"filePath":"${esc(path)}","edits":[`,
      ops.map(({ op, ref, through }) => {
        const kind = op.op === 'insert_after' || op.op === 'append' ? 'append' : op.op === 'insert_before' || op.op === 'prepend' ? 'prepend' : 'replace'
        return {
          fields: /** @type {Array<[string, string]>} */ ([['op', kind], ...(ref ? [['pos', ref]] : []), ...(through ? [['end', through]] : [])]),
          content: { key: 'lines', lines: op.lines, array: true },
        }
      }),
    ),
  ok: (path) => `Updated ${path}`,
  fail: (path, v, bad) => {
    const tags = tagsOf(omoFormat, v)
    const focus = bad.filter((n) => n >= 1 && n <= v.lines.length)
    if (focus.length < bad.length) return `Error: Line number ${Math.max(...bad)} out of bounds (file has ${v.lines.length} lines)`
    return `Error: hash mismatch - ${bad.length} line${bad.length > 1 ? 's have' : ' has'} changed since last read. Use updated {line_number}#{hash_id} references below (>>> marks changed lines).\n\n${rejectionRows(around(focus, v.lines.length), focus, (n) => `${n}#${tags[n]}|${v.lines[n - 1]}`)}\nTip: reuse LINE#ID entries from the latest read/edit output, or batch related edits in one call.`
  },
}

/** @type {RefFormat} */
const ompV2Format = {
  id: 'omp-v2',
  label: 'oh-my-pi v2 `N#LL:`',
  store: false,
  boundary: 'grown-loose',
  perLine: true,
  tags: (lines) => byLine(lines, (_n, l) => ompV2Tag(l)),
  ref: (n, tag) => `${n}#${tag}`,
  prefix: (n, tag) => `${n}#${tag}:`,
  valid: (v, n, tag) => n >= 1 && n <= v.lines.length && ompV2Tag(v.lines[n - 1]) === tag,
  strip: (lines) => {
    const re = /^\s*[>+-]*\s*\d+\s*#\s*[ZPMQVRWSNKTXJBYH]{2}:/
    const filled = lines.filter((l) => l !== '')
    return filled.length > 0 && filled.every((l) => re.test(l)) ? lines.map((l) => l.replace(re, '')) : null
  },
  page: (path, v, start, limit) => {
    const tags = tagsOf(ompV2Format, v)
    const rows = numbered(v.lines, start, limit, (n) => `${n}#${tags[n]}:`)
    const end = start + rows.length - 1
    return `${rows.join('\n')}${end < v.lines.length ? `\n\n[Showing lines ${start}-${end} of ${v.lines.length}. Use offset=${end + 1} to continue]` : ''}`
  },
  call: (ops, path) =>
    jsonCall(
      `{"path":"${esc(path)}","edits":[`,
      ops.map(({ op, ref, through }) => {
        /** @type {Array<[string, string]>} */
        let fields
        if (op.op === 'insert_after') fields = [['op', 'append'], ['after', /** @type {string} */ (ref)]]
        else if (op.op === 'insert_before') fields = [['op', 'prepend'], ['before', /** @type {string} */ (ref)]]
        else if (op.op === 'append' || op.op === 'prepend') fields = [['op', op.op]]
        else if (through) fields = [['op', 'replace'], ['first', /** @type {string} */ (ref)], ['last', through]]
        else fields = [['op', 'set'], ['tag', /** @type {string} */ (ref)]]
        return { fields, content: { key: 'content', lines: op.lines, array: true } }
      }),
    ),
  ok: (path, before, after) => {
    const tags = tagsOf(ompV2Format, after)
    const { rows, added } = changedRows(before.lines, after.lines)
    let prev = 0
    const out = [`Updated ${path}`]
    for (const n of rows) {
      if (prev && n > prev + 1) out.push('...')
      out.push(`${added.has(n) ? '+' : ' '}${n}#${tags[n]}:${after.lines[n - 1]}`)
      prev = n
    }
    return out.join('\n')
  },
  fail: (path, v, bad) => {
    const tags = tagsOf(ompV2Format, v)
    const focus = bad.filter((n) => n >= 1 && n <= v.lines.length)
    return `${bad.length} line${bad.length > 1 ? 's have' : ' has'} changed since last read. Use the updated LINE#ID references shown below (>>> marks changed lines).\n\n${rejectionRows(around(focus, v.lines.length), focus, (n) => `${n}#${tags[n]}:${v.lines[n - 1]}`)}`
  },
}

/** @type {RefFormat} */
const ompFormat = {
  id: 'omp',
  label: 'oh-my-pi latest: `N:` lines, one tag per file, PUT/CUT',
  store: true,
  boundary: 'none',
  perLine: false,
  tags: (lines) => byLine(lines, () => ''),
  ref: (n) => `${n}`,
  prefix: (n) => `${n}:`,
  valid: (v, n) => n >= 1 && n <= v.lines.length,
  strip: (lines) => {
    const re = /^\s*(?:>>>|>>)?\s*(?:[+*-]\s*)?\d+[:|]/
    const filled = lines.filter((l) => l !== '')
    return filled.length > 0 && filled.every((l) => re.test(l)) ? lines.map((l) => l.replace(re, '')) : null
  },
  page: (path, v, start, limit) => {
    const rows = numbered(v.lines, start, limit, (n) => `${n}:`)
    const end = start + rows.length - 1
    return `[${path}#${ompFileTag(v.text)}]\n${rows.join('\n')}${end < v.lines.length ? `\n[Showing lines ${start}-${end} of ${v.lines.length}. Use :L${end + 1} to continue]` : ''}`
  },
  call: (ops, path, v) => {
    /** @type {Tagged} */
    const out = [[`{"input":"*** Begin Patch\\n[${esc(path)}#${ompFileTag(v.text)}]\\n`, 'structure']]
    for (const { op } of ops) {
      const first = op.first ?? 0
      const last = op.last ?? first
      if (op.op === 'delete') {
        out.push([`CUT ${first}.=${last}\\n`, 'structure'])
        continue
      }
      const at = op.op === 'replace' ? `${first}.=${last}` : op.op === 'insert_after' ? `>${first}` : op.op === 'insert_before' ? `<${first}` : op.op === 'prepend' ? '<1' : '>$'
      out.push([`PUT ${at}:\\n`, 'structure'])
      for (const l of op.lines) {
        out.push(['+', 'structure'])
        out.push([esc(l.text) + '\\n', l.copy ? 'old' : 'new'])
      }
    }
    out.push(['*** End Patch\\n"}', 'structure'])
    return out
  },
  ok: (path, before, after) => {
    const { rows, added } = changedRows(before.lines, after.lines)
    const out = [`[${path}#${ompFileTag(after.text)}]`]
    let prev = 0
    let run = /** @type {string[]} */ ([])
    const flush = () => {
      out.push(...(run.length > 5 ? [...run.slice(0, 2), '…', ...run.slice(-2)] : run))
      run = []
    }
    for (const n of rows) {
      if (prev && n > prev + 1) {
        flush()
        out.push('')
      }
      if (added.has(n)) run.push(`${n}:${after.lines[n - 1]}`)
      else {
        flush()
        out.push(`${n}:${after.lines[n - 1]}`)
      }
      prev = n
    }
    flush()
    return out.join('\n')
  },
  fail: (path, v, bad) => {
    const focus = bad.filter((n) => n >= 1 && n <= v.lines.length)
    return `[${path}#…] is stale and the edit could not be carried over to the current file: the lines it names changed. Re-read before editing.\n${rejectionRows(around(focus, v.lines.length), focus, (n) => `${n}:${v.lines[n - 1]}`).replace(/>>> /g, '*')}`
  },
}

/** @type {RefFormat} */
const angFormat = {
  id: 'angdrew',
  label: 'AngDrew `#HL N#HHH#AAA|`',
  store: false,
  boundary: 'none',
  perLine: true,
  tags: (lines) => byLine(lines, (_n, _l, i) => angRef(lines, i).split('#').slice(1).join('#')),
  ref: (n, tag) => `${n}#${tag}`,
  prefix: (n, tag) => `#HL ${n}#${tag}|`,
  valid: (v, n, tag) => n >= 1 && n <= v.lines.length && tagsOf(angFormat, v)[n] === tag,
  strip: (lines) => {
    const re = /^([+\- ])?#HL\s*\d+\s*#\s*[A-F0-9]+(?:\s*#\s*[A-F0-9]+)?\|/i
    return lines.some((l) => re.test(l)) ? lines.map((l) => l.replace(re, '')) : null
  },
  page: (path, v, start, limit) => {
    const tags = tagsOf(angFormat, v)
    const rows = numbered(v.lines, start, limit, (n) => `#HL ${n}#${tags[n]}|`)
    const end = start + rows.length - 1
    return [
      `<hashline-file path="/work/project/${path}" file_hash="${angRev(v.text)}AB" total_lines="${v.lines.length}" start_line="${start}" shown_until="${end}">`,
      '# format: <line>#<hash>#<anchor>|<content>',
      '# use refs exactly as shown in hashline edit/patch tools',
      `#HL REV:${angRev(v.text)}`,
      ...rows,
      ...(end < v.lines.length ? [`# truncated: ${v.lines.length - end} lines not shown`] : []),
      '</hashline-file>',
    ].join('\n')
  },
  call: (ops, path) =>
    jsonCall(
      `{"filePath":"${esc(path)}","operations":[`,
      ops.map(({ op, ref, through }) => {
        const kind = op.op === 'prepend' ? 'insert_before' : op.op === 'append' ? 'insert_after' : op.op === 'replace' && through ? 'replace_range' : op.op
        /** @type {Array<[string, string]>} */
        const fields = [['op', kind]]
        if (through) fields.push(['startRef', /** @type {string} */ (ref)], ['endRef', through])
        else if (ref) fields.push(['ref', ref])
        return { fields, content: op.op === 'delete' ? undefined : { key: 'content', lines: op.lines, array: false } }
      }),
    ),
  ok: (path, before, after, n) =>
    [
      `Hashline hashline edit completed for /work/project/${path}.`,
      `File hash: ${angRev(before.text)}AB -> ${angRev(after.text)}AB`,
      `Operations: ${n}; additions: ${Math.max(0, after.lines.length - before.lines.length)}; removals: ${Math.max(0, before.lines.length - after.lines.length)}`,
      `Lines: ${before.lines.length} -> ${after.lines.length}`,
      'Read the file again before issuing additional hashline refs.',
    ].join('\n'),
  fail: (_path, v, bad) => {
    const n = bad[0]
    if (n > v.lines.length) return `Reference ${n} points to line ${n}, but file only has ${v.lines.length} lines. Read the file again.`
    const tag = tagsOf(angFormat, v)[n]
    return `Hash mismatch for line ${n}. Expected ${n}#…, actual ${n}#${tag}. Read the file again.`
  },
}

/**
 * Every format the session measure plays, in table order. `hashline` is
 * modelled here only for its views and texts; its edits go to the engine.
 * @type {RefFormat[]}
 */
export const REF_FORMATS = [
  omoFormat,
  ompV2Format,
  ompFormat,
  angFormat,
  fullFormat,
  shortFormat,
  b64Format,
  fileTagFormat,
  pairFormat('pair', ' ', 'lean candidate: `Nab ` parity-lettered pair tag, space'),
  pairFormat('pair-tab', '\t', 'lean candidate: `Nab⇥` parity-lettered pair tag, tab'),
]
export const LEAN_CHOICE = 'pair'
export const refFormat = (/** @type {string} */ id) => /** @type {RefFormat} */ (REF_FORMATS.find((f) => f.id === id))

/** The OpenCode read view of a page (for str_replace users). */
export function plainPage(/** @type {string} */ path, /** @type {Version} */ v, /** @type {number} */ start, /** @type {number} */ limit) {
  return opencodeRead(path, numbered(v.lines, start, limit, (n) => `${n}: `), start, v.lines.length)
}

// ---------------------------------------------------------------- applying

/** Net count of opening minus closing brackets, as the engine's clean-up counts them. */
function balance(/** @type {string[]} */ lines) {
  let b = 0
  for (const l of lines) for (const c of l) b += c === '{' || c === '(' || c === '[' ? 1 : c === '}' || c === ')' || c === ']' ? -1 : 0
  return b
}

/** The engine's boundary clean-up (`cleanup.rs`, trim_boundary_echo), for the modelled candidates. */
export function trimBoundaryEcho(/** @type {string[]} */ content, /** @type {string | undefined} */ before, /** @type {string[]} */ replaced, /** @type {string | undefined} */ after) {
  const isEcho = (/** @type {string | undefined} */ line, /** @type {string | undefined} */ neighbour, /** @type {string | undefined} */ edge) =>
    line !== undefined && neighbour !== undefined && line === neighbour && neighbour.trim() !== '' && edge !== neighbour
  const lead = isEcho(content[0], before, replaced[0])
  const tail = isEcho(content[content.length - 1], after, replaced[replaced.length - 1])
  const target = balance(replaced)
  const total = balance(content)
  const first = content.length > 0 ? balance([content[0]]) : 0
  const last = content.length > 0 ? balance([content[content.length - 1]]) : 0
  const fits = (/** @type {boolean} */ df, /** @type {boolean} */ dl) => {
    const dropped = Number(df) + Number(dl)
    const bal = Number(df) * first + Number(dl) * last
    const zero = (!df || first === 0) && (!dl || last === 0)
    return content.length > dropped && (zero || total - bal === target)
  }
  for (const [df, dl] of /** @type {Array<[boolean, boolean]>} */ ([[true, true], [true, false], [false, true]])) {
    if ((df || dl) && (!df || lead) && (!dl || tail) && fits(df, dl)) return content.slice(df ? 1 : 0, dl ? content.length - 1 : content.length)
  }
  return content
}

const wsEqual = (/** @type {string | undefined} */ a, /** @type {string | undefined} */ b) => a !== undefined && b !== undefined && (a === b || a.replace(/\s+/g, '') === b.replace(/\s+/g, ''))

/**
 * One file's edit in a ref format, as the tool would take it: refs checked
 * (against the current text, or, where the tool keeps versions, against the
 * version read and carried over provably), echoes cleaned up by the tool's
 * rules, operations applied bottom-up.
 * @param {RefFormat} f
 * @param {HashlineEdit} edit the edit, mistakes injected
 * @param {{ shown: Version, current: Version, map?: (line: number) => number | null }} ctx
 *   `shown` is the version read; `map` carries its 1-based lines to the current text where the tool could prove it
 * @returns {{ outcome: 'applied', text: string } | { outcome: 'rejected', bad: number[] }}
 */
export function applyRefEdit(f, edit, ctx) {
  const shownTags = tagsOf(f, ctx.shown)
  /** @type {Array<{ typed: number, tag: string }>} */
  const cited = []
  for (const u of edit.units) {
    if (u.first !== undefined) cited.push({ typed: u.first + (u.refShift ?? 0), tag: shownTags[u.first] })
    if (u.last !== undefined && (u.op === 'replace' || u.op === 'delete') && (u.last !== u.first || Boolean(edit.throughAlways))) {
      cited.push({ typed: u.last + (u.throughShift ?? 0), tag: shownTags[u.last] })
    }
  }
  const same = ctx.shown.text === ctx.current.text
  /** @type {number[] | null} */
  let lines = null
  const inCurrent = cited.every((c) => f.valid(ctx.current, c.typed, c.tag))
  if (!f.perLine) {
    // One tag per file: the numbers hold in the version read; the tool carries them over or refuses.
    if (same) lines = cited.map((c) => c.typed)
    else if (f.store && ctx.map && cited.every((c) => c.typed >= 1 && c.typed <= ctx.shown.lines.length) && rangesIntact(edit, ctx.map)) {
      const mapped = cited.map((c) => /** @type {(l: number) => number | null} */ (ctx.map)(c.typed))
      if (mapped.every((m) => m !== null)) lines = /** @type {number[]} */ (mapped)
    }
  } else if (!f.store || same) {
    if (inCurrent) lines = cited.map((c) => c.typed)
  } else {
    // The engine's readings: the current text and the stored version read must agree on every line.
    /** @type {number[][]} */
    const readings = []
    if (inCurrent) readings.push(cited.map((c) => c.typed))
    if (ctx.map && cited.every((c) => f.valid(ctx.shown, c.typed, c.tag)) && rangesIntact(edit, ctx.map)) {
      const mapped = cited.map((c) => /** @type {(l: number) => number | null} */ (ctx.map)(c.typed))
      if (mapped.every((m) => m !== null)) readings.push(/** @type {number[]} */ (mapped))
    }
    if (readings.length > 0 && readings.every((r) => r.join() === readings[0].join())) lines = readings[0]
  }
  if (!lines) return { outcome: 'rejected', bad: cited.filter((c) => !f.valid(ctx.current, c.typed, c.tag)).map((c) => c.typed).concat(cited.length === 0 ? [1] : []) }
  if (edit.units.some((u, i) => u.first !== undefined && u.last !== undefined && (u.op === 'replace' || u.op === 'delete') && lineOf(edit, lines, i, 'last') < lineOf(edit, lines, i, 'first'))) {
    return { outcome: 'rejected', bad: [lines[0]] }
  }

  const cur = ctx.current.lines
  /** @type {Array<{ start: number, end: number, lines: string[], at: number }>} */
  const splices = []
  edit.units.forEach((u, i) => {
    let content = u.lines.map((l, k) => (u.echo ? echoPrefix(f, u, k, ctx.shown) : '') + l.text)
    content = f.strip(content) ?? content
    const n = cur.length
    let start
    let end
    if (u.op === 'prepend') [start, end] = [0, 0]
    else if (u.op === 'append') [start, end] = [n, n]
    else if (u.op === 'insert_after') [start, end] = [lineOf(edit, lines, i, 'first'), lineOf(edit, lines, i, 'first')]
    else if (u.op === 'insert_before') [start, end] = [lineOf(edit, lines, i, 'first') - 1, lineOf(edit, lines, i, 'first') - 1]
    else [start, end] = [lineOf(edit, lines, i, 'first') - 1, lineOf(edit, lines, i, 'last')]
    if (u.op === 'delete') content = []
    content = cleanBoundary(f.boundary, u.op, content, cur, start, end)
    splices.push({ start, end, lines: content, at: i })
  })
  splices.sort((a, b) => a.start - b.start || a.end - b.end)
  for (let i = 1; i < splices.length; i++) {
    const [a, b] = [splices[i - 1], splices[i]]
    if (b.start < a.end || (b.start === a.start && b.end === a.end && a.start === a.end)) return { outcome: 'rejected', bad: [b.start + 1] }
  }
  const out = cur.slice()
  for (const s of [...splices].reverse()) out.splice(s.start, s.end - s.start, ...s.lines)
  return { outcome: 'applied', text: joinLines(out) }
}

/** The current 1-based line of the `which` ref of unit `i`, from the located refs in citation order. */
function lineOf(/** @type {HashlineEdit} */ edit, /** @type {number[]} */ located, /** @type {number} */ i, /** @type {'first' | 'last'} */ which) {
  let k = 0
  for (let j = 0; j < edit.units.length; j++) {
    const u = edit.units[j]
    const hasFirst = u.first !== undefined
    const hasLast = u.last !== undefined && (u.op === 'replace' || u.op === 'delete') && (u.last !== u.first || Boolean(edit.throughAlways))
    if (j === i) return which === 'first' || !hasLast ? located[k] : located[k + (hasFirst ? 1 : 0)]
    k += Number(hasFirst) + Number(hasLast)
  }
  throw new Error('unit out of range')
}

/** The view prefix a model echoes onto content line `k` of unit `u`: the prefix of the line at that place in the view it read. */
function echoPrefix(/** @type {RefFormat} */ f, /** @type {HashlineOp} */ u, /** @type {number} */ k, /** @type {Version} */ shown) {
  const start = u.op === 'insert_after' ? (u.first ?? 0) + 1 : u.op === 'append' ? shown.lines.length + 1 : u.op === 'prepend' ? 1 : u.first ?? 1
  const n = start + k
  const tags = tagsOf(f, shown)
  return f.prefix(n, n <= shown.lines.length ? tags[n] : fakeTag(f, n))
}

/** A tag in the format's shape for a line past the end of the file (what a model makes up there). */
function fakeTag(/** @type {RefFormat} */ f, /** @type {number} */ n) {
  if (f.id === 'omo' || f.id === 'omp-v2') return 'ZZ'
  if (f.id === 'angdrew' || f.id === 'hashline') return '000#000'
  if (f.id === 'short') return '000'
  if (f.id === 'b64') return 'AA'
  if (f.id.startsWith('pair')) return pairTag(n, '')
  return ''
}

/** Each tool's boundary clean-up. */
function cleanBoundary(/** @type {BoundaryRule} */ rule, /** @type {string} */ op, /** @type {string[]} */ content, /** @type {string[]} */ cur, /** @type {number} */ start, /** @type {number} */ end) {
  if (rule === 'none' || content.length === 0) return content
  const before = cur[start - 1]
  const after = cur[end]
  if (rule === 'engine') {
    if (op === 'insert_after' || op === 'insert_before' || op === 'prepend' || op === 'append') return trimBoundaryEcho(content, before, [], after)
    return trimBoundaryEcho(content, before, cur.slice(start, end), after)
  }
  const eq = rule === 'grown' ? (/** @type {string | undefined} */ a, /** @type {string | undefined} */ b) => a !== undefined && a === b : wsEqual
  if (op === 'insert_after') return content.length > (rule === 'grown' ? 0 : 1) && wsEqual(content[0], before) ? content.slice(1) : content
  if (op === 'insert_before') return content.length > 1 && wsEqual(content[content.length - 1], after) ? content.slice(0, -1) : content
  if (op !== 'replace') return content
  if (content.length <= 1 || content.length <= end - start) return content
  let out = content
  if (eq(out[0], before)) out = out.slice(1)
  if (out.length > 0 && eq(out[out.length - 1], after)) out = out.slice(0, -1)
  return out
}

/**
 * The exact map of an earlier edit made through the same tool: old 1-based
 * lines outside the spec keep their place (shifted), lines inside it have none.
 * @param {{ oldStart: number, oldLen: number, lines: string[] }} spec
 */
export function specMap(spec) {
  const delta = spec.lines.length - spec.oldLen
  return (/** @type {number} */ line) => (line <= spec.oldStart ? line : line > spec.oldStart + spec.oldLen ? line + delta : null)
}

/** The old ranges every op's lines must keep intact to be carried over (all lines of a range). */
export function rangesIntact(/** @type {HashlineEdit} */ edit, /** @type {(l: number) => number | null} */ map) {
  return edit.units.every((u) => {
    if (u.first === undefined || u.last === undefined || (u.op !== 'replace' && u.op !== 'delete')) return true
    for (let l = u.first + (u.refShift ?? 0); l <= u.last + (u.throughShift ?? 0); l++) if (map(l) === null) return false
    return true
  })
}

