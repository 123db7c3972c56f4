// @ts-check
// The packages as a host installs them: this machine's platform package (the
// release binary), the main package and hashline-mcp, staged and published by
// scripts/release.mjs as the release does, to a verdaccio registry on
// 127.0.0.1 with the third-party packages they need. The environment it
// returns points npm at that registry and at a cache of its own, so a host
// that installs "hashline" from npm gets exactly these packages, offline.
import { execFile } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { lockClosure, seed, startRegistry } from "./registry.mjs"

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const RELEASE = path.join(REPO, "scripts", "release.mjs")
const execFileAsync = promisify(execFile)

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
 * The third-party packages the suites need, as lock keys: what the main
 * package and hashline-mcp depend on, and the AI SDKs the package suite
 * installs beside them.
 */
export const THIRD_PARTY = ["node_modules/zod", "node_modules/@modelcontextprotocol/sdk", "node_modules/ai", "node_modules/ai-v6"]

/**
 * Where `npm test` describes the registry it shares between the suites
 * (a JSON file); a suite run on its own starts one of its own.
 */
export const SHARED_REGISTRY = "HASHLINE_TEST_REGISTRY"

/**
 * Starts a registry in `dir` holding the packages as the release publishes
 * them (staged into `dir`/stage) and the third-party packages of `lockRoots`.
 * @param {string} dir
 * @param {string[]} lockRoots lock keys of the third-party packages to seed, such as `node_modules/zod`
 */
export async function startPublished(dir, lockRoots) {
  if (!fs.existsSync(BINARY)) {
    throw new Error(`${path.relative(REPO, BINARY)} is missing: npm test builds it first (node scripts/release.mjs build ${platformName()})`)
  }
  const npm = npmCli()
  const registry = await startRegistry(path.join(dir, "registry"))
  const stage = path.join(dir, "stage")
  try {
    await seed(registry, lockClosure(path.join(REPO, "package-lock.json"), lockRoots), { npmCli: npm, dir: path.join(dir, "seed") })
    await execFileAsync(process.execPath, [RELEASE, "stage", stage, "--platform", platformName()], { cwd: REPO, encoding: "utf8", maxBuffer: 64 << 20 }).catch((/** @type {any} */ err) => {
      throw new Error(`release stage failed:\n${err.stderr ?? err.message}`)
    })
    await execFileAsync(process.execPath, [RELEASE, "publish", stage], {
      cwd: REPO,
      encoding: "utf8",
      maxBuffer: 64 << 20,
      env: { ...process.env, npm_config_userconfig: registry.npmrc, npm_config_cache: path.join(dir, "npm-cache") },
    }).catch((/** @type {any} */ err) => {
      throw new Error(`release publish failed:\n${err.stderr ?? err.message}`)
    })
  } catch (err) {
    registry.stop()
    throw err
  }
  return { ...registry, stage, lockRoots }
}

/**
 * The registry of the published packages for a suite whose own folder is
 * `work`: the one `npm test` shares (it must hold `lockRoots`), or else one
 * started under `work`. Stopping a shared one is left to `npm test`.
 * @param {string} work a folder of the test's own
 * @param {string[]} lockRoots lock keys of the third-party packages the suite installs
 */
export async function publishPackages(work, lockRoots) {
  const npm = npmCli()
  const shared = process.env[SHARED_REGISTRY]
  /** @type {{ url: string, token: string, npmrc: string, stage: string, lockRoots: string[], stop: () => void }} */
  let registry
  if (shared) {
    registry = { ...JSON.parse(fs.readFileSync(shared, "utf8")), stop() {} }
    const missing = lockRoots.filter((root) => !registry.lockRoots.includes(root))
    if (missing.length > 0) throw new Error(`the shared test registry (${shared}) lacks ${missing.join(", ")}: add them to THIRD_PARTY`)
  } else registry = await startPublished(work, lockRoots)
  /** @type {Record<string, string>} */
  const env = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !/^(npm_|CARGO|RUSTUP|NAPI_RS_)/i.test(key) && key !== SHARED_REGISTRY) env[key] = value
  Object.assign(env, {
    npm_config_userconfig: registry.npmrc,
    npm_config_cache: path.join(work, "npm-cache"),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
  })
  return { registry, env, npm, stage: registry.stage }
}
