// @ts-check
// A real npm registry for the package tests: verdaccio on 127.0.0.1, empty
// storage, no uplinks. It serves only what is put into it: this repository's
// packages, published by the release script, and the third-party packages
// they need, copied from the tarballs the repository's own install used (the
// versions in package-lock.json, from npm's cache), so nothing is fetched
// through it and the tests resolve the same versions every time.
import { execFile, spawn } from "node:child_process"
import crypto from "node:crypto"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import zlib from "node:zlib"

const execFileAsync = promisify(execFile)
const SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), "registry-server.mjs")

/**
 * Starts verdaccio with its storage in `dir`, and a user to publish as.
 * @param {string} dir
 */
export async function startRegistry(dir) {
  const child = spawn(process.execPath, [SERVER, dir], { stdio: ["ignore", "pipe", "pipe"] })
  let log = ""
  child.stderr.setEncoding("utf8").on("data", (d) => (log += d))
  const port = await new Promise((resolve, reject) => {
    let out = ""
    const timer = setTimeout(() => reject(new Error(`verdaccio did not start in 60 s:\n${log}`)), 60_000)
    child.stdout.setEncoding("utf8").on("data", (d) => {
      out += d
      const line = out.split("\n").find((l) => l.startsWith('{"port"'))
      if (line) {
        clearTimeout(timer)
        resolve(JSON.parse(line).port)
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`verdaccio exited (${code}):\n${log}`))
    })
  })
  const url = `http://127.0.0.1:${port}/`
  const response = await fetch(`${url}-/user/org.couchdb.user:ci`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "ci", password: crypto.randomBytes(12).toString("hex") }),
  })
  const { token } = /** @type {{ token: string }} */ (await response.json())
  if (!token) throw new Error(`verdaccio gave no token (${response.status})`)
  const npmrc = path.join(dir, "npmrc")
  fs.writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`)
  return {
    url,
    token,
    /** An npm user config naming this registry, with the token to publish. */
    npmrc,
    stop() {
      child.kill("SIGKILL")
    },
  }
}

/**
 * `package.json` of a package tarball. Hand-read because a tarball is a plain
 * ustar stream, and the test should not depend on a tar package for this.
 * @param {Buffer} tgz
 */
function tarballManifest(tgz) {
  const tar = zlib.gunzipSync(tgz)
  /** @type {string | undefined} */
  let longName
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512)
    if (header.every((b) => b === 0)) break
    const text = (/** @type {number} */ from, /** @type {number} */ to) => header.subarray(from, to).toString("utf8").replace(/\0.*$/s, "")
    const size = parseInt(text(124, 136).trim() || "0", 8)
    const type = text(156, 157)
    const body = tar.subarray(at + 512, at + 512 + size)
    at += 512 + Math.ceil(size / 512) * 512
    if (type === "x") {
      longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString("utf8"))?.[1]
      continue
    }
    if (type === "L") {
      longName = body.toString("utf8").replace(/\0.*$/s, "")
      continue
    }
    const prefix = text(345, 500)
    const name = longName ?? (prefix ? `${prefix}/${text(0, 100)}` : text(0, 100))
    longName = undefined
    if (/^[^/]+\/package\.json$/.test(name)) return JSON.parse(body.toString("utf8"))
  }
  throw new Error("no package.json in the tarball")
}

/**
 * Publishes a tarball as it is, through the registry's publish API (what
 * `npm publish` sends, without starting npm for each of many packages).
 * @param {{ url: string, token: string }} registry
 * @param {string} file
 */
export async function publishTarball(registry, file) {
  const tgz = fs.readFileSync(file)
  const manifest = tarballManifest(tgz)
  const { name, version } = manifest
  const attachment = `${name}-${version}.tgz`
  const doc = {
    _id: name,
    name,
    "dist-tags": { latest: version },
    versions: {
      [version]: {
        ...manifest,
        _id: `${name}@${version}`,
        dist: {
          shasum: crypto.createHash("sha1").update(tgz).digest("hex"),
          integrity: `sha512-${crypto.createHash("sha512").update(tgz).digest("base64")}`,
          tarball: `${registry.url}${name}/-/${path.basename(name)}-${version}.tgz`,
        },
      },
    },
    _attachments: { [attachment]: { content_type: "application/octet-stream", data: tgz.toString("base64"), length: tgz.length } },
  }
  const response = await fetch(`${registry.url}${name.replace("/", "%2f")}`, {
    method: "PUT",
    headers: { "content-type": "application/json", authorization: `Bearer ${registry.token}` },
    body: JSON.stringify(doc),
  })
  if (!response.ok) throw new Error(`publishing ${name}@${version}: ${response.status} ${await response.text()}`)
  return `${name}@${version}`
}

/**
 * The packages a set of installed packages need, as the lock file resolved
 * them: each `node_modules/...` entry reached from `roots` through
 * dependencies, optional dependencies and required peers, found the way
 * Node finds them (the nearest `node_modules` up the tree).
 * @param {string} lockFile
 * @param {string[]} roots lock keys, such as `node_modules/zod`
 * @returns {string[]} `name@version` specs
 */
export function lockClosure(lockFile, roots) {
  /** @type {Record<string, any>} */
  const packages = JSON.parse(fs.readFileSync(lockFile, "utf8")).packages
  const seen = new Set()
  /** @type {Set<string>} */
  const specs = new Set()
  const queue = [...roots]
  while (queue.length > 0) {
    const key = /** @type {string} */ (queue.pop())
    if (seen.has(key)) continue
    seen.add(key)
    const entry = packages[key]
    if (!entry) throw new Error(`${key} is not in the lock file`)
    const name = entry.name ?? key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length)
    specs.add(`${name}@${entry.version}`)
    const optionalPeers = entry.peerDependenciesMeta ?? {}
    const wanted = [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...Object.keys(entry.peerDependencies ?? {}).filter((p) => !optionalPeers[p]?.optional),
    ]
    for (const dep of wanted) {
      let found
      for (let base = key; ; ) {
        const candidate = `${base}/node_modules/${dep}`
        if (packages[candidate]) {
          found = candidate
          break
        }
        const cut = base.lastIndexOf("/node_modules/")
        if (cut < 0) break
        base = base.slice(0, cut)
      }
      found ??= packages[`node_modules/${dep}`] ? `node_modules/${dep}` : undefined
      // An optional dependency for another platform is not in the lock.
      if (found) queue.push(found)
      else if (!entry.optionalDependencies?.[dep]) throw new Error(`${key} needs ${dep}, which the lock file does not have`)
    }
  }
  return [...specs].sort()
}

/**
 * Copies packages into the registry from npm's cache (fetching any that are
 * not cached, with the machine's own npm configuration).
 * @param {{ url: string, token: string }} registry
 * @param {string[]} specs
 * @param {{ npmCli: string, dir: string }} where
 */
export async function seed(registry, specs, where) {
  fs.mkdirSync(where.dir, { recursive: true })
  // Asynchronous, so that npm test can publish beside the cargo tests.
  const packed = await execFileAsync(process.execPath, [where.npmCli, "pack", ...specs, "--prefer-offline", "--json", "--pack-destination", where.dir], {
    cwd: where.dir,
    encoding: "utf8",
    maxBuffer: 64 << 20,
    timeout: 300_000,
  }).catch((/** @type {any} */ err) => {
    throw new Error(`npm pack of the dependencies failed:\n${err.stderr ?? err.message}`)
  })
  const files = /** @type {Array<{ filename: string }>} */ (JSON.parse(packed.stdout)).map((f) => path.join(where.dir, f.filename))
  const published = []
  for (const file of files) published.push(await publishTarball(registry, file))
  return published
}
