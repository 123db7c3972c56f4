// @ts-check
// The files of the integrations that hosts read from disk (context files, a
// skill, what hook scripts say, MCP configurations, the versions in
// manifests), made from the host table (lib/hosts.mjs), the texts
// (lib/texts.cjs) and the package's version, so that no copy is kept by hand:
//
//   node scripts/generate.mjs           writes every one that differs
//   node scripts/generate.mjs --check   fails, naming each committed file that differs
//
// A text file is made whole; a JSON file keeps what is the integration's own
// (names, descriptions) and gets the fields its host's row names.
// `scripts/release.mjs version` writes them for a new version, `stage`
// refuses a release whose files differ, and the tests compare them.
import fs from "node:fs"
import { createRequire } from "node:module"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { HOSTS } from "../lib/hosts.mjs"

/**
 * @typedef {import("../lib/hosts.mjs").Host} Host
 * @typedef {import("../lib/hosts.mjs").Part} Part
 */

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..")
const { hostContext, hostSkill, turnedAway } = /** @type {typeof import("../lib/texts.cjs")} */ (createRequire(import.meta.url)("../lib/texts.cjs"))

/**
 * How hashline-mcp is started by a host's MCP configuration: the server of
 * the same release, with the host's flags.
 * @param {Host} host
 * @param {string} version
 */
function mcpServer(host, version) {
  if (!host.mcp) throw new Error(`${host.title} has no MCP configuration`)
  return { command: "npx", args: ["-y", `hashline-mcp@${version}`, ...host.mcp.flags], ...host.mcp.server }
}

/**
 * The whole text of a file of each text part.
 * @type {Partial<Record<Part, (host: Host) => string>>}
 */
const TEXTS = {
  contextFile: (host) => `${hostContext(host)}\n`,
  skill: (host) => hostSkill(host),
}

/**
 * How each part of a JSON file is set.
 * @type {Partial<Record<Part, (json: any, host: Host, version: string) => void>>}
 */
const FIELDS = {
  context: (json, host) => {
    json.context = hostContext(host)
  },
  turnedAway: (json, host) => {
    json.turnedAway = Object.fromEntries((host.turnsOff ?? []).map((tool) => [tool, turnedAway(host, tool)]))
  },
  matchers: (json, host) => {
    for (const entry of json.hooks.PreToolUse) entry.matcher = (host.turnsOff ?? []).join("|")
  },
  mcpServer: (json, host, version) => {
    json.mcpServers.hashline = mcpServer(host, version)
  },
  version: (json, _host, version) => {
    json.version = version
  },
  pluginVersions: (json, _host, version) => {
    for (const plugin of json.plugins) plugin.version = version
  },
  excludeTools: (json, host) => {
    json.excludeTools = [...(host.turnsOff ?? [])]
  },
}

/**
 * Every generated file, from the repository's root, with what it must hold.
 * @param {string} [version] the release's (default: package.json's)
 * @returns {Map<string, string>}
 */
export function generatedFiles(version = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).version) {
  /** @type {Map<string, string>} */
  const files = new Map()
  for (const host of /** @type {Host[]} */ (Object.values(HOSTS))) {
    for (const [file, parts] of Object.entries(host.files ?? {})) {
      const text = parts.length === 1 ? TEXTS[parts[0]] : undefined
      if (text) {
        files.set(file, text(host))
        continue
      }
      const at = path.join(ROOT, file)
      const json = fs.existsSync(at) ? JSON.parse(fs.readFileSync(at, "utf8")) : {}
      for (const part of parts) {
        const set = FIELDS[part]
        if (!set) throw new Error(`${file}: ${part} is a whole file, not a field of one`)
        set(json, host, version)
      }
      files.set(file, `${JSON.stringify(json, null, 2)}\n`)
    }
  }
  return files
}

/**
 * The generated files whose committed copy differs from what they must
 * hold, with what that is.
 * @param {string} [version]
 */
function differing(version) {
  return [...generatedFiles(version)].filter(([file, text]) => {
    const at = path.join(ROOT, file)
    return !fs.existsSync(at) || fs.readFileSync(at, "utf8") !== text
  })
}

/**
 * The generated files whose committed copy differs from what they must hold.
 * @param {string} [version]
 */
export const staleFiles = (version) => differing(version).map(([file]) => file)

/**
 * Writes every generated file that differs; returns their names.
 * @param {string} [version]
 */
export function writeGenerated(version) {
  const stale = differing(version)
  for (const [file, text] of stale) {
    fs.mkdirSync(path.dirname(path.join(ROOT, file)), { recursive: true })
    fs.writeFileSync(path.join(ROOT, file), text)
  }
  return stale.map(([file]) => file)
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--check")) {
    const stale = staleFiles()
    if (stale.length > 0) {
      console.error(`generate: these files differ from what scripts/generate.mjs makes (run it): ${stale.join(", ")}`)
      process.exit(1)
    }
  } else {
    const written = writeGenerated()
    console.log(written.length > 0 ? `generate: wrote ${written.join(", ")}` : "generate: every file is current")
  }
}
