// @ts-check
// What the plugin does around OpenCode's own tools, the same in OpenCode 1
// (plugin.mjs) and OpenCode 2 (v2.mjs), each of which maps its host's hook
// events onto these: before a `write`, take the model's `literal` and
// remove the view prefixes it copied into the content; after it, tell what
// was removed; after a `read` or `grep`, show refs to the models that cite
// them. What differs is data: what the host's tools call the file (its row
// of lib/hosts.mjs) and the form of its read output.
import path from "node:path"
import { engineFor, errorCode } from "./engine.mjs"
import { tagsReads } from "./model.mjs"
import { tagGrepOutput } from "./view.mjs"

/**
 * @typedef {import("./engine.mjs").Place} Place
 * @typedef {import("./model.mjs").EditKind} EditKind
 * @typedef {import("./view.mjs").Tagger} Tagger
 * @typedef {import("./view.mjs").NotebookView} NotebookView
 * @typedef {(output: string, tag: Tagger, notebook?: NotebookView) => Promise<string>} ReadTagger how a host's read output gets its refs
 */

/**
 * The hooks over the engine of one project.
 * @param {Place} place
 * @param {{ fileArgument: string, tagRead: ReadTagger }} host
 */
export function sharedHooks(place, host) {
  /** What the clean-up of each write did, by call, to tell with its result. @type {Map<string, string>} */
  const cleanedWrites = new Map()
  /** The edit tool of each session's model, as the requests show it. @type {Map<string, EditKind>} */
  const kinds = new Map()
  /** Each session's model, as the requests show it, for the telemetry record. @type {Map<string, string>} */
  const models = new Map()

  /**
   * Who made a call of the host's own tools: its session's model and the
   * host's id of the call.
   * @param {string | undefined} sessionID
   * @param {string | undefined} callID
   */
  const caller = (sessionID, callID) => ({ model: sessionID ? models.get(sessionID) : undefined, callId: callID || undefined })

  /**
   * Refs for lines another tool displayed, from the engine that edits use.
   * OpenCode only shows files outside the project once access was granted.
   * @param {{ model?: string, callId?: string }} who
   * @returns {Tagger}
   */
  const tagFor = (who) => (file, lines) => engineFor(place).tagAsync(path.resolve(place.directory, file), lines, { allowOutsideRoot: true, ...who })

  /**
   * The engine's view of a notebook's cells, for the lines of it the read
   * asked for (offset and limit count the view's lines); undefined where
   * the engine has none (a notebook it does not read as cells shows as
   * text, tagged as any file).
   * @param {unknown} args the read's arguments
   * @returns {NotebookView}
   */
  const notebook = (args) => async (file) => {
    const given = /** @type {Record<string, unknown>} */ (args && typeof args === "object" ? args : {})
    // As OpenCode takes them: numbers, or their digits as text.
    const count = (/** @type {unknown} */ n) => {
      const value = typeof n === "string" && /^\s*\d+\s*$/.test(n) ? Number(n) : n
      return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined
    }
    try {
      const view = await engineFor(place).readAsync(path.resolve(place.directory, file), { offset: count(given.offset), limit: count(given.limit), allowOutsideRoot: true })
      return view.text
    } catch {
      return undefined
    }
  }

  return {
    /**
     * Before a `write` (OpenCode's own tool), on its arguments, which it
     * changes in place: a `literal` the model added to say "write exactly
     * this" is taken and removed before OpenCode checks them, and view
     * prefixes copied into the content are removed where the engine proves
     * them copies. Lines that may or may not be copies refuse the write,
     * saying how to tell; any other failure leaves the write as it is.
     * @param {string} callID
     * @param {unknown} args
     * @param {string} [sessionID]
     */
    beforeWrite(callID, args, sessionID) {
      if (!args || typeof args !== "object" || Array.isArray(args)) return
      const input = /** @type {Record<string, unknown>} */ (args)
      if (typeof input.content !== "string") return
      const literal = input.literal === true || input.literal === "true"
      if ("literal" in input) delete input.literal
      // The file the host's write writes: its own argument.
      const target = typeof input[host.fileArgument] === "string" ? input[host.fileArgument] : input.filePath
      if (literal || typeof target !== "string") return
      let cleaned
      try {
        cleaned = engineFor(place).stripViewPrefixes(path.resolve(place.directory, target), input.content, { allowOutsideRoot: true, ...caller(sessionID, callID) })
      } catch (err) {
        if (errorCode(err) === "AMBIGUOUS_ECHO") throw new Error(err instanceof Error ? err.message : String(err))
        return
      }
      if (cleaned.stripped > 0) {
        input.content = cleaned.text
        cleanedWrites.set(callID, cleaned.note ?? "")
      }
    },

    /**
     * After a `write`: its output with what the clean-up did, or undefined
     * when it did nothing.
     * @param {string} callID
     * @param {string} output
     */
    afterWrite(callID, output) {
      const note = cleanedWrites.get(callID)
      if (note === undefined) return undefined
      cleanedWrites.delete(callID)
      return `${output}\n\n${note}`
    },

    /**
     * After a `read` or `grep`: its output with refs, or undefined where it
     * stays as it is (another tool, a model that copies context lines
     * rather than cite refs, or refs that cannot be had: a binary file, a
     * file gone, no engine, since refs are an addition).
     * @param {string} tool
     * @param {string} sessionID
     * @param {string} output
     * @param {string} [callID]
     * @param {unknown} [args] the call's arguments
     */
    async tagged(tool, sessionID, output, callID, args) {
      if (!tagsReads(kinds.get(sessionID) ?? "edit")) return undefined
      const tag = tagFor(caller(sessionID, callID))
      try {
        if (tool === "read") return await host.tagRead(output, tag, notebook(args))
        if (tool === "grep") return await tagGrepOutput(output, tag)
      } catch {
        // The model still gets the plain view.
      }
      return undefined
    },

    /**
     * The edit tool a session's model has, and the model's id, as its
     * request shows them.
     * @param {string} sessionID
     * @param {EditKind} kind
     * @param {string} [model]
     */
    chose(sessionID, kind, model) {
      kinds.set(sessionID, kind)
      if (model) models.set(sessionID, model)
    },

    /**
     * The model of a session, as its requests showed it.
     * @param {string} sessionID
     */
    modelOf(sessionID) {
      return models.get(sessionID)
    },
  }
}
