// @ts-check
// Access to the native engine for the OpenCode tool and plugin. OpenCode ends
// the whole session when a tool or plugin module throws while it is imported,
// so the native module is loaded on first use and a failure becomes an error
// of that one call.
import { createRequire } from "node:module"
import path from "node:path"
import { openEngine } from "../lib/engine.cjs"

/**
 * @typedef {import("./types.mjs").HashlineModule} HashlineModule
 * @typedef {import("./types.mjs").HashlineInstance} HashlineInstance
 */

const require = createRequire(import.meta.url)

/** @type {{ module?: HashlineModule, error?: Error }} */
let loaded = {}

/**
 * The native module, or an Error that says why it is unavailable.
 * @returns {HashlineModule}
 */
export function nativeModule() {
  if (loaded.module) return loaded.module
  if (loaded.error) throw loaded.error
  try {
    loaded.module = /** @type {HashlineModule} */ (require("../lib/native.cjs"))
    return loaded.module
  } catch (cause) {
    loaded.error = /** @type {Error} */ (cause)
    throw loaded.error
  }
}

// The tool file and the plugin may be separate module instances (OpenCode
// imports each on its own), yet they must share one engine per worktree so that
// versions recorded while tagging a read are known to the edit that follows.
const REGISTRY = Symbol.for("hashline.opencode.engines")

/** @returns {Map<string, HashlineInstance>} */
function registry() {
  const holder = /** @type {Record<symbol, Map<string, HashlineInstance> | undefined>} */ (/** @type {unknown} */ (globalThis))
  let map = holder[REGISTRY]
  if (!map) {
    map = new Map()
    holder[REGISTRY] = map
  }
  return map
}

/**
 * @typedef {{ directory: string, worktree: string }} Place
 */

/**
 * The folder the engine sandboxes to. OpenCode reports "/" as the worktree of
 * a folder outside any repository; the session folder is the project then.
 * @param {Place} place
 */
export function projectRoot(place) {
  return place.worktree && place.worktree !== "/" ? path.resolve(place.worktree) : path.resolve(place.directory)
}

/**
 * @param {string} parent
 * @param {string} child
 */
function contains(parent, child) {
  const rel = path.relative(parent, child)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

/**
 * Whether OpenCode counts the path as part of the project, by the same rule as
 * its own file tools (the session folder, or the worktree unless that is "/").
 * @param {string} file absolute path
 * @param {Place} place
 */
export function insideProject(file, place) {
  if (contains(path.resolve(place.directory), file)) return true
  if (!place.worktree || place.worktree === "/") return false
  return contains(path.resolve(place.worktree), file)
}

/**
 * The engine for a project: one per root, whoever asks, so the versions and
 * seen lines it records while tagging a read are there for the edit.
 * @param {Place} place
 * @returns {HashlineInstance}
 */
export function engineFor(place) {
  return engineIn(place, configured)
}

/**
 * @typedef {{ host?: string, view?: unknown, syntax?: unknown, telemetry?: unknown }} EngineChoices
 */

/** @type {EngineChoices} */
let configured = {}

/**
 * The options the plugin's engines are made with: the host they serve
 * (`opencode`, or `opencode-2`, for the telemetry record), the view they
 * render in (the plugin option `view`, else HASHLINE_VIEW, else lean), what
 * an edit that breaks a file's parse gets (`syntax`, else HASHLINE_SYNTAX,
 * else a warning) and whether the local telemetry record is kept
 * (`telemetry: false` turns it off, as HASHLINE_TELEMETRY=0 does); the
 * binding judges them when an engine is made. Engines made before keep
 * theirs.
 * @param {EngineChoices} options
 */
export function configureEngines(options) {
  configured = options
}

/**
 * Starts the plugin: its engines' options (the host, and `view`, `syntax`
 * and `telemetry` from its options in OpenCode's configuration), the
 * native module, and the project's engine, made now so that an option the
 * binding refuses turns hashline off with the reason before any tool is
 * offered. Throws that reason.
 * @param {EngineChoices} options
 * @param {Place} place
 */
export function startEngines(options, place) {
  configureEngines({ host: options.host, view: options.view, syntax: options.syntax, telemetry: options.telemetry })
  nativeModule()
  engineFor(place)
}

/**
 * @param {Place} place
 * @param {EngineChoices} options
 * @returns {HashlineInstance}
 */
function engineIn(place, options) {
  const root = projectRoot(place)
  const map = registry()
  let engine = map.get(root)
  if (!engine) {
    nativeModule()
    engine = openEngine(/** @type {import("../index.js").HashlineOptions} */ ({ root, ...options }))
    map.set(root, engine)
  }
  return engine
}

/**
 * The engine's code for an error, if it has one.
 * @param {unknown} err
 * @returns {string | undefined}
 */
export function errorCode(err) {
  if (err && typeof err === "object" && "code" in err && typeof err.code === "string") return err.code
  return undefined
}

/**
 * Forward slashes, as OpenCode shows project paths.
 * @param {string} p
 */
export function toPosix(p) {
  return p.split(path.sep).join("/")
}
