// @ts-check
// The packages as a host installs them: this machine's platform package (the
// release binary), the main package and hashline-mcp, staged and published by
// scripts/release.mjs as the release does, to a verdaccio registry on
// 127.0.0.1 with the third-party packages they need. The environment it
// returns points npm at that registry and at a cache of its own, so a host
// that installs "hashline" from npm gets exactly these packages, offline.
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { lockClosure, seed, startRegistry } from "./registry.mjs"

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const RELEASE = path.join(REPO, "scripts", "release.mjs")

/** napi's name for this machine, as in `hashline-<name>`. */
export function platformName() {
  const report = /** @type {any} */ (process.report?.getReport())
  if (process.platform === "linux") return `linux-${process.arch}-${report?.header?.glibcVersionRuntime ? "gnu" : "musl"}`
  if (process.platform === "win32") return `win32-${process.arch}-msvc`
  return `${process.platform}-${process.arch}`
}

/** The release binary the platform package ships; `npm test` builds it first. */
export const BINARY = path.join(REPO, "npm", platformName(), `hashline.${platformName()}.node`)

/** npm's own script, found next to the npm on the PATH. */
export function npmCli() {
  const candidates = [process.env.npm_execpath ?? ""]
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) candidates.push(path.join(dir, "npm"))
  for (const candidate of candidates) {
    if (!candidate || !fs.existsSync(candidate)) continue
    const real = fs.realpathSync(candidate)
    if (/npm-cli\.js$/.test(real)) return real
    const sibling = path.join(path.dirname(real), "..", "lib", "node_modules", "npm", "bin", "npm-cli.js")
    if (fs.existsSync(sibling)) return sibling
  }
  throw new Error("npm-cli.js not found next to any npm on the PATH")
}

/**
 * Publishes the packages into a registry whose storage is under `work`.
 * @param {string} work a folder of the test's own
 * @param {string[]} lockRoots lock keys of the third-party packages to seed, such as `node_modules/zod`
 */
export async function publishPackages(work, lockRoots) {
  if (!fs.existsSync(BINARY)) {
    throw new Error(`${path.relative(REPO, BINARY)} is missing: npm test builds it first (node scripts/release.mjs build ${platformName()})`)
  }
  const npm = npmCli()
  const registry = await startRegistry(path.join(work, "registry"))
  const cache = path.join(work, "npm-cache")
  try {
    await seed(registry, lockClosure(path.join(REPO, "package-lock.json"), lockRoots), { npmCli: npm, dir: path.join(work, "seed") })
    const stage = path.join(work, "stage")
    const staged = spawnSync(process.execPath, [RELEASE, "stage", stage, "--platform", platformName()], { cwd: REPO, encoding: "utf8" })
    if (staged.status !== 0) throw new Error(`release stage failed:\n${staged.stderr}`)
    const published = spawnSync(process.execPath, [RELEASE, "publish", stage], {
      cwd: REPO,
      encoding: "utf8",
      env: { ...process.env, npm_config_userconfig: registry.npmrc, npm_config_cache: cache },
    })
    if (published.status !== 0) throw new Error(`release publish failed:\n${published.stderr}`)
  } catch (err) {
    registry.stop()
    throw err
  }
  /** @type {Record<string, string>} */
  const env = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !/^(npm_|CARGO|RUSTUP|NAPI_RS_)/i.test(key)) env[key] = value
  Object.assign(env, {
    npm_config_userconfig: registry.npmrc,
    npm_config_cache: cache,
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
  })
  return { registry, env, npm }
}
