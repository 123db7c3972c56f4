// @ts-check
// Each implementation the benchmark times, reached through its published
// package: what is imported and called is listed in README.md. Every
// adapter builds its edits from the refs of its own view, so the benchmark
// computes no peer's hashes. An adapter gives, for each workload it has a
// path for, a function that runs it once and returns the text produced
// (the view, or the edited file), which the runner checks before timing.

import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as path from 'node:path'
import { editedLines, replacement } from './corpus.mjs'

const require = createRequire(import.meta.url)

export const isBun = typeof (/** @type {any} */ (globalThis).Bun) !== 'undefined'

/**
 * @typedef {() => unknown} Run  returns the text produced, or a promise of it
 * @typedef {{ run: Run, setup?: () => void | Promise<void>, produced?: () => string }} Job
 *   `setup` runs untimed before every timed call; `produced` reads what an
 *   end-to-end edit wrote.
 * @typedef {{
 *   name: string,
 *   runtimes: Array<'node' | 'bun'>,
 *   viewText?: (text: string, lines: number) => Promise<Job>,
 *   viewFile?: (file: string, lines: number) => Promise<Job>,
 *   editText?: (text: string, k: number) => Promise<Job>,
 *   editFile?: (file: string, text: string, k: number) => Promise<Job>,
 *   viewLine: RegExp,
 * }} Impl
 *   `viewLine` matches one line of the view with its ref in group 1.
 */

/**
 * The ref of every line a view shows, by 1-based line number.
 * @param {string} view
 * @param {RegExp} viewLine
 */
export function refsOf(view, viewLine) {
  /** @type {Map<number, string>} */
  const refs = new Map()
  const re = new RegExp(viewLine.source, 'gm')
  for (const m of view.matchAll(re)) refs.set(Number(/^\d+/.exec(m[1])?.[0]), m[1])
  return refs
}

/**
 * The refs of the lines an edit replaces, in order.
 * @param {Map<number, string>} refs
 * @param {number} lines
 * @param {number} k
 */
function citedRefs(refs, lines, k) {
  return editedLines(lines, k).map((at) => {
    const ref = refs.get(at + 1)
    if (!ref) throw new Error(`the view shows no ref for line ${at + 1}`)
    return ref
  })
}

const linesIn = (/** @type {string} */ text) => text.slice(0, -1).split('\n').length

/**
 * hashline, through the addon's loader (`index.js` of a release build).
 * @param {string} binding
 * @returns {Impl}
 */
export function hashline(binding) {
  const native = /** @type {any} */ (require(binding))
  const session = (/** @type {string} */ dir) => new native.Hashline({ root: dir, maxFileBytes: 1 << 30, view: 'full' })
  /** @param {string} text @param {number} lines @param {number} k */
  const operations = (text, lines, k) => {
    const refs = refsOf(native.formatView(text, { limit: lines, view: 'full' }), hashlineImpl.viewLine)
    return citedRefs(refs, lines, k).map((ref, j) => ({ op: 'replace', ref, content: replacement(j) }))
  }
  /** @type {Impl} */
  const hashlineImpl = {
    name: 'hashline',
    runtimes: ['node', 'bun'],
    viewLine: /^(\d+#[0-9A-F]{3}#[0-9A-F]{3})\|/,
    async viewText(text, lines) {
      return { run: () => native.formatView(text, { limit: lines, view: 'full' }) }
    },
    async viewFile(file, lines) {
      const s = session(path.dirname(file))
      const name = path.basename(file)
      return { run: () => s.read(name, { limit: lines }).text }
    },
    async editText(text, k) {
      const request = { operations: operations(text, linesIn(text), k) }
      return { run: () => native.applyEdits(text, request).text }
    },
    async editFile(file, text, k) {
      const lines = linesIn(text)
      const s = session(path.dirname(file))
      const name = path.basename(file)
      s.read(name, { limit: lines })
      const request = { operations: operations(text, lines, k) }
      return {
        setup: () => fs.writeFileSync(file, text),
        run: () => s.edit(name, request),
        produced: () => fs.readFileSync(file, 'utf8'),
      }
    },
  }
  return hashlineImpl
}

/**
 * OpenCode's read output for a file, as OpenCode 1.18 prints it: the text
 * oh-my-openagent's read hook rewrites. Built here because OpenCode's read
 * tool lives inside its compiled binary.
 * @param {string} file
 * @param {string} text
 */
function opencodeReadOutput(file, text) {
  const lines = text.slice(0, -1).split('\n')
  let body = ''
  for (let i = 0; i < lines.length; i++) body += `${i + 1}: ${lines[i]}\n`
  return `<path>${file}</path>\n<type>file</type>\n<content>\n${body}\n(End of file - total ${lines.length} lines)\n</content>`
}

/**
 * oh-my-openagent (npm `oh-my-opencode`), the OpenCode plugin: its server
 * plugin started on a scratch project whose config turns `hashline_edit`
 * on. The view is the plugin's `tool.execute.after` hook on OpenCode's read
 * output; the edit is the plugin's `edit` tool.
 * @param {string} dir  a folder of its own for the scratch project
 * @returns {Promise<Impl>}
 */
export async function ohMyOpenagent(dir) {
  const home = path.join(dir, 'home')
  fs.mkdirSync(path.join(dir, '.opencode'), { recursive: true })
  fs.mkdirSync(home, { recursive: true })
  fs.writeFileSync(path.join(dir, '.opencode', 'oh-my-openagent.json'), JSON.stringify({ hashline_edit: true }))
  // The plugin reads its user config and caches under the home folder; keep them out of the user's.
  process.env.HOME = home
  process.env.XDG_CONFIG_HOME = path.join(home, '.config')
  process.env.XDG_CACHE_HOME = path.join(home, '.cache')
  process.env.XDG_DATA_HOME = path.join(home, '.local', 'share')
  process.env.DO_NOT_TRACK = '1'
  process.env.OMO_DISABLE_POSTHOG = '1'
  const plugin = (await import('oh-my-opencode')).default
  // OpenCode's SDK client: the plugin only shows toasts and logs through it here.
  const host = () => new Proxy(async () => ({ data: undefined }), { get: (_, key) => (key === 'then' ? undefined : host()) })
  const hooks = await plugin.server({ directory: dir, worktree: dir, client: host(), project: { id: 'bench', worktree: dir }, $: undefined, serverUrl: new URL('http://127.0.0.1:9') })
  const after = hooks['tool.execute.after']
  const edit = hooks.tool?.edit
  if (!after || !edit) throw new Error('oh-my-openagent did not register its read hook and edit tool')
  let call = 0
  /** @param {string} output */
  const view = async (output) => {
    const out = { title: '', output, metadata: {} }
    await after({ tool: 'read', sessionID: 'bench', callID: `c${call++}`, args: {} }, out)
    return out.output
  }
  const context = { sessionID: 'bench', messageID: 'm', agent: 'build', directory: dir, worktree: dir, abort: new AbortController().signal, metadata() {}, ask: async () => {} }
  /** @type {Impl} */
  const impl = {
    name: 'oh-my-openagent 4.19.4',
    runtimes: ['node', 'bun'],
    viewLine: /^(\d+#[ZPMQVRWSNKTXJBYH]{2})\|/,
    async viewText(text) {
      const output = opencodeReadOutput('/bench/file.ts', text)
      return { run: () => view(output) }
    },
    async viewFile(file) {
      return { run: () => view(opencodeReadOutput(file, fs.readFileSync(file, 'utf8'))) }
    },
    async editFile(file, text, k) {
      const lines = linesIn(text)
      const refs = refsOf(await view(opencodeReadOutput(file, text)), impl.viewLine)
      const edits = citedRefs(refs, lines, k).map((pos, j) => ({ op: 'replace', pos, lines: [replacement(j)] }))
      return {
        setup: () => fs.writeFileSync(file, text),
        run: async () => {
          const result = await edit.execute({ filePath: file, edits }, context)
          if (!String(result).startsWith('Updated')) throw new Error(`oh-my-openagent's edit failed: ${result}`)
        },
        produced: () => fs.readFileSync(file, 'utf8'),
      }
    },
  }
  return impl
}

/**
 * oh-my-pi's last JS hashline (`@oh-my-pi/pi-coding-agent` 14.9.9,
 * `src/hashline/`), Bun-only as published (`Bun.hash.xxHash32`).
 * @returns {Promise<Impl>}
 */
export async function ohMyPiJs() {
  const { formatHashLines } = await import('@oh-my-pi/pi-coding-agent/hashline/hash')
  const { parseHashline } = await import('@oh-my-pi/pi-coding-agent/hashline/parser')
  const Bun = /** @type {any} */ (globalThis).Bun
  /** @type {Impl} */
  const impl = {
    name: 'oh-my-pi 14.9.9 (JS)',
    runtimes: ['bun'],
    viewLine: /^(\d+[a-z]{2})\|/,
    async viewText(text) {
      return { run: () => formatHashLines(text) }
    },
    async viewFile(file) {
      return { run: async () => formatHashLines(await Bun.file(file).text()) }
    },
    async editText(text, k) {
      // Imported here: its imports load the package's native addon, which may fail where the view needs none.
      const { applyHashlineEdits } = await import('@oh-my-pi/pi-coding-agent/hashline/apply')
      const refs = refsOf(formatHashLines(text), impl.viewLine)
      const diff = citedRefs(refs, linesIn(text), k)
        .map((ref, j) => `= ${ref}..${ref}\n~${replacement(j)}\n`)
        .join('')
      return { run: () => applyHashlineEdits(text, parseHashline(diff)).lines }
    },
  }
  return impl
}

/**
 * oh-my-pi's current engine (`@oh-my-pi/pi-natives` 18.2.3, Rust through
 * N-API; its loader is Bun-only): a per-file tag and numbered lines, edits
 * in its patch language through an `EditSession`.
 * @param {string} dir
 * @returns {Promise<Impl>}
 */
export async function ohMyPiNative(dir) {
  const n = /** @type {any} */ (await import('@oh-my-pi/pi-natives'))
  const Bun = /** @type {any} */ (globalThis).Bun
  const policy = {
    cwd: dir,
    mode: 'hashline',
    allowFuzzy: false,
    fuzzyThreshold: 0.95,
    enforceSeenLines: true,
    blockAutoGenerated: false,
    planActive: false,
    homeDir: dir,
    rawInput: false,
  }
  /** @param {string} name @param {string} tag @param {string} text */
  const format = (name, tag, text) => `${n.hashlineFormatHeader(name, tag)}\n${n.hashlineFormatNumberedLines(text, 1)}`
  /** @type {Impl} */
  const impl = {
    name: 'oh-my-pi 18.2.3 (Rust)',
    runtimes: ['bun'],
    viewLine: /^(\d+):/,
    async viewText(text) {
      return { run: () => format('file.ts', n.hashlineFileHash(text), text) }
    },
    async viewFile(file) {
      const store = new n.EditStore()
      const name = path.basename(file)
      return {
        run: async () => {
          const text = await Bun.file(file).text()
          return format(name, store.recordSnapshot(file, text), text)
        },
      }
    },
    async editFile(file, text, k) {
      const store = new n.EditStore()
      const name = path.basename(file)
      let tag = ''
      const patch = () =>
        `*** Begin Patch\n[${name}#${tag}]\n` +
        editedLines(linesIn(text), k)
          .map((at, j) => `PUT ${at + 1}.=${at + 1}:\n+${replacement(j)}\n`)
          .join('') +
        '*** End Patch\n'
      /** @param {Error | null} _ @param {{ path: string, content?: string }} request */
      const writer = async (_, request) => {
        await Bun.write(request.path, request.content ?? '')
        return { written: request.content ?? '' }
      }
      return {
        setup: () => {
          fs.writeFileSync(file, text)
          tag = store.recordSnapshot(file, text)
        },
        run: async () => {
          const session = new n.EditSession(store, policy)
          try {
            session.setArgsJson(JSON.stringify({ input: patch() }))
            session.finish()
            const outcome = await session.apply({ lspFlush: false }, writer)
            if (outcome.isError) throw new Error(`oh-my-pi's edit failed: ${outcome.text}`)
          } finally {
            session.close()
          }
        },
        produced: () => fs.readFileSync(file, 'utf8'),
      }
    },
  }
  return impl
}

/**
 * mcp-hashline-edit-server 0.2.0 (Bun-only as published:
 * `Bun.hash.xxHash32`, `Bun.file`): its hashline functions in memory, and
 * its MCP tools end to end through the MCP SDK's in-memory transport.
 * @returns {Promise<Impl>}
 */
export async function mcpHashlineEditServer() {
  const { formatHashLines, applyHashlineEdits } = await import('mcp-hashline-edit-server/src/hashline.ts')
  const { createServer } = await import('mcp-hashline-edit-server/src/server.ts')
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js')
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await createServer().connect(serverSide)
  const client = new Client({ name: 'bench', version: '0' })
  await client.connect(clientSide)
  /** @param {string} name @param {Record<string, unknown>} args */
  const call = async (name, args) => {
    const result = /** @type {any} */ (await client.callTool({ name, arguments: args }))
    const text = result.content?.[0]?.text ?? ''
    if (result.isError) throw new Error(`mcp-hashline-edit-server's ${name} failed: ${text}`)
    return text
  }
  /** @param {string} text @param {number} k */
  const edits = (text, k) =>
    citedRefs(refsOf(formatHashLines(text), impl.viewLine), linesIn(text), k).map((anchor, j) => ({ set_line: { anchor, new_text: replacement(j) } }))
  /** @type {Impl} */
  const impl = {
    name: 'mcp-hashline-edit-server 0.2.0',
    runtimes: ['bun'],
    viewLine: /^(\d+:[0-9a-f]{2})\|/,
    async viewText(text) {
      return { run: () => formatHashLines(text) }
    },
    async viewFile(file, lines) {
      return { run: () => call('read_file', { path: file, limit: lines + 1 }) }
    },
    async editText(text, k) {
      const e = edits(text, k)
      return { run: () => applyHashlineEdits(text, e).content }
    },
    async editFile(file, text, k) {
      const e = edits(text, k)
      return {
        setup: () => fs.writeFileSync(file, text),
        run: () => call('edit_file', { path: file, edits: e }),
        produced: () => fs.readFileSync(file, 'utf8'),
      }
    },
  }
  return impl
}
