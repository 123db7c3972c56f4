// @ts-check
// The packages as they are published, from this repository:
//
//   node scripts/release.mjs version            after `npm version`: the same version everywhere
//   node scripts/release.mjs build PLATFORM     the release binary into npm/PLATFORM/
//   node scripts/release.mjs glibc FILE         the newest glibc version FILE needs
//   node scripts/release.mjs tag TAG            fails unless TAG is v<version>
//   node scripts/release.mjs stage OUT [--platform NAME]...
//   node scripts/release.mjs publish OUT [--provenance] [--tag TAG] [--dry-run]
//
// `stage` writes one folder per package into OUT: each platform package with
// its binary (every prebuilt platform unless --platform names some), the main
// package with the manifest users install (the pi extension and the folders
// of the Claude Code and Codex plugins and of the Gemini CLI and Qwen Code
// extensions are in it), and hashline-mcp. `publish` runs
// `npm publish` on them, platform packages first, so that the main package
// never names an optional dependency that is not there yet. The release
// workflow and the registry tests both go through here.
//
// The repository's own manifest is for contributors: it is private (so that
// `npm publish` in a clone is refused), it has the `install` step that builds
// the addon from source, and it has no optional dependencies (a clone builds
// its own binary). The published manifest has none of that.
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"

/**
 * The script that writes the integrations' files. Loaded when a command
 * needs it, since it reads the package's texts, and the install step, which
 * runs in a clone before anything else is there, loads this module too.
 */
const generator = () => import("./generate.mjs")

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..")
const MCP_DIR = path.join(ROOT, "packages", "hashline-mcp")

/** Fields of the repository's manifest that the published one keeps. */
const PUBLISHED_FIELDS = [
  "name",
  "version",
  "description",
  "keywords",
  "homepage",
  "bugs",
  "repository",
  "license",
  "author",
  "type",
  "main",
  "types",
  "bin",
  "exports",
  "files",
  "engines",
  "dependencies",
  "peerDependencies",
  "peerDependenciesMeta",
  "pi",
]

/** @param {string} file */
const readJson = (file) => JSON.parse(fs.readFileSync(file, "utf8"))
/**
 * @param {string} file
 * @param {unknown} value
 */
const writeJson = (file, value) => fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`)

/** @param {string} message */
function fail(message) {
  console.error(`release: ${message}`)
  process.exit(1)
}

/**
 * @param {string} command
 * @param {string[]} args
 * @param {string} cwd
 */
function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8", shell: process.platform === "win32" })
  if (result.status !== 0) fail(`${command} ${args.join(" ")} failed in ${cwd} (${result.status ?? result.signal})`)
  return result.stdout
}

/** The per-platform packages, by napi's platform name (`linux-x64-gnu`, ...). */
export function platformPackages() {
  const dir = path.join(ROOT, "npm")
  return fs
    .readdirSync(dir)
    .sort()
    .map((name) => ({ platform: name, dir: path.join(dir, name), manifest: readJson(path.join(dir, name, "package.json")) }))
}

/** Every package and every place that must carry the release's version. */
async function versionProblems() {
  const { name, version } = readJson(path.join(ROOT, "package.json"))
  const problems = []
  for (const p of platformPackages()) {
    if (p.manifest.name !== `${name}-${p.platform}`) problems.push(`npm/${p.platform} is named ${p.manifest.name}`)
    if (p.manifest.version !== version) problems.push(`npm/${p.platform} is at ${p.manifest.version}`)
  }
  const mcp = readJson(path.join(MCP_DIR, "package.json"))
  if (mcp.version !== version) problems.push(`hashline-mcp is at ${mcp.version}`)
  if (mcp.dependencies?.[name] !== version) problems.push(`hashline-mcp depends on ${name}@${mcp.dependencies?.[name]}`)
  // The integrations' files name the release (their manifests, the hashline-mcp they start).
  const { staleFiles } = await generator()
  for (const file of staleFiles(version)) problems.push(`${file} is not what scripts/generate.mjs makes`)
  // The generated loader compares an installed platform package's version
  // with the one it was generated for.
  if (!fs.readFileSync(path.join(ROOT, "index.js"), "utf8").includes(`expected ${version} but got`)) {
    problems.push("index.js was generated for another version (napi build --platform regenerates it)")
  }
  return { version, problems }
}

/** Writes the root version into every package and the integrations' files, then regenerates index.js. */
async function syncVersions() {
  const { name, version } = readJson(path.join(ROOT, "package.json"))
  for (const p of platformPackages()) writeJson(path.join(p.dir, "package.json"), { ...p.manifest, version })
  const mcpFile = path.join(MCP_DIR, "package.json")
  const mcp = readJson(mcpFile)
  writeJson(mcpFile, { ...mcp, version, dependencies: { ...mcp.dependencies, [name]: version } })
  const { writeGenerated } = await generator()
  writeGenerated(version)
  run(process.execPath, [path.join(ROOT, "node_modules", "@napi-rs", "cli", "dist", "cli.js"), "build", "--platform"], ROOT)
}

/** The oldest glibc the Linux binaries run on: that of CentOS 7 and RHEL 7. */
export const GLIBC_FLOOR = "2.17"

/**
 * The most a platform's binary may weigh, every grammar included: users
 * download it with the package. The grammars' parse tables are what would
 * take it over (see `crates/hashline/build.rs`).
 */
const SIZE_BUDGET = 12e6

/** The Rust target of each platform package. */
export const RUST_TARGETS = /** @type {Record<string, string>} */ ({
  "linux-x64-gnu": "x86_64-unknown-linux-gnu",
  "linux-x64-musl": "x86_64-unknown-linux-musl",
  "linux-arm64-gnu": "aarch64-unknown-linux-gnu",
  "darwin-x64": "x86_64-apple-darwin",
  "darwin-arm64": "aarch64-apple-darwin",
  "win32-x64-msvc": "x86_64-pc-windows-msvc",
})

/**
 * Builds the release binary of one platform package (LTO, stripped: see the
 * release profile in Cargo.toml) and puts it into npm/PLATFORM/. Linux
 * binaries are linked by zig (cargo-zigbuild), the glibc ones against glibc
 * 2.17, so that they load on any Linux a current Node runs on.
 * @param {string} platform
 */
function buildPlatform(platform) {
  const triple = RUST_TARGETS[platform]
  if (!triple) fail(`no platform ${platform}; the platforms are ${Object.keys(RUST_TARGETS).join(", ")}`)
  const napi = path.join(ROOT, "node_modules", "@napi-rs", "cli", "dist", "cli.js")
  const out = path.join(ROOT, "target", "npm-artifacts")
  const args = ["build", "--platform", "--release", "--no-js", "--output-dir", out]
  if (platform.startsWith("linux-")) args.push("--cross-compile", "--target", platform.endsWith("-gnu") ? `${triple}.${GLIBC_FLOOR}` : triple)
  else args.push("--target", triple)
  const result = spawnSync(process.execPath, [napi, ...args], { cwd: ROOT, stdio: "inherit" })
  if (result.status !== 0) fail(`napi ${args.join(" ")} failed (${result.status ?? result.signal})`)
  const binary = `hashline.${platform}.node`
  const packaged = path.join(ROOT, "npm", platform, binary)
  fs.copyFileSync(path.join(out, binary), packaged)
  const size = fs.statSync(packaged).size
  if (size > SIZE_BUDGET) fail(`${binary} is ${(size / 1e6).toFixed(1)} MB, over the budget of ${SIZE_BUDGET / 1e6} MB`)
  console.log(`release: ${binary} is ${(size / 1e6).toFixed(1)} MB`)
  if (platform.endsWith("-gnu")) {
    const needed = glibcNeeded(packaged)
    if (compareVersions(needed, GLIBC_FLOOR) > 0) fail(`${binary} needs glibc ${needed}, newer than ${GLIBC_FLOOR}`)
    console.log(`release: ${binary} needs glibc ${needed} at most`)
  }
}

/**
 * @param {string} a
 * @param {string} b
 */
export function compareVersions(a, b) {
  const x = a.split(".").map(Number)
  const y = b.split(".").map(Number)
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0)
  }
  return 0
}

/**
 * The symbol versions an ELF file needs from the libraries it links, read
 * from its version-needs section (what `objdump -T` shows, without binutils,
 * which a machine may not have). The layout is the System V ABI's, stable
 * for decades: reading it here takes fewer lines than a dependency would.
 * @param {string} file
 * @returns {string[]} such as `GLIBC_2.17`
 */
export function neededVersions(file) {
  const elf = fs.readFileSync(file)
  if (elf.length < 64 || elf.readUInt32BE(0) !== 0x7f454c46) fail(`${file} is not an ELF file`)
  const wide = elf[4] === 2
  const little = elf[5] === 1
  const u16 = (/** @type {number} */ at) => (little ? elf.readUInt16LE(at) : elf.readUInt16BE(at))
  const u32 = (/** @type {number} */ at) => (little ? elf.readUInt32LE(at) : elf.readUInt32BE(at))
  const word = (/** @type {number} */ at) => (wide ? Number(little ? elf.readBigUInt64LE(at) : elf.readBigUInt64BE(at)) : u32(at))
  const sectionsAt = word(wide ? 0x28 : 0x20)
  const entrySize = u16(wide ? 0x3a : 0x2e)
  const count = u16(wide ? 0x3c : 0x30)
  const section = (/** @type {number} */ i) => {
    const at = sectionsAt + i * entrySize
    return { type: u32(at + 4), offset: word(at + (wide ? 0x18 : 0x10)), link: u32(at + (wide ? 0x28 : 0x18)), info: u32(at + (wide ? 0x2c : 0x1c)) }
  }
  const SHT_GNU_VERNEED = 0x6ffffffe
  const versions = []
  for (let i = 0; i < count; i++) {
    const needs = section(i)
    if (needs.type !== SHT_GNU_VERNEED) continue
    const strings = section(needs.link).offset
    const name = (/** @type {number} */ at) => elf.toString("latin1", strings + at, elf.indexOf(0, strings + at))
    // Each entry: version, count, file, aux, next; each aux: hash, flags, other, name, next.
    for (let entry = needs.offset, n = 0; n < needs.info; n++) {
      for (let aux = entry + u32(entry + 8), k = 0; k < u16(entry + 2); k++) {
        versions.push(name(u32(aux + 8)))
        aux += u32(aux + 12)
      }
      entry += u32(entry + 12)
    }
  }
  return versions
}

/**
 * The newest glibc symbol version an ELF file needs.
 * @param {string} file
 */
export function glibcNeeded(file) {
  const versions = [...new Set(neededVersions(file).flatMap((v) => /^GLIBC_(\d+(?:\.\d+)+)$/.exec(v)?.[1] ?? []))]
  if (versions.length === 0) fail(`${file} names no glibc symbol version`)
  return versions.sort(compareVersions)[versions.length - 1]
}

/**
 * The manifest users install: no install step, no development fields, and
 * every platform package as an optional dependency at the same version.
 * @param {Record<string, any>} repo
 */
export function publishedManifest(repo) {
  /** @type {Record<string, any>} */
  const manifest = {}
  for (const field of PUBLISHED_FIELDS) if (repo[field] !== undefined) manifest[field] = repo[field]
  manifest.optionalDependencies = Object.fromEntries(platformPackages().map((p) => [p.manifest.name, repo.version]))
  return manifest
}

/**
 * Copies the files npm would pack from `from` into `to`.
 * @param {string} from
 * @param {string} to
 */
function copyPacked(from, to) {
  const listing = JSON.parse(run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], from))
  for (const { path: file } of listing[0].files) {
    fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true })
    fs.copyFileSync(path.join(from, file), path.join(to, file))
  }
}

/**
 * @param {string} out
 * @param {string[]} only platform names; all when empty
 */
async function stage(out, only) {
  const { version, problems } = await versionProblems()
  if (problems.length > 0) fail(`versions disagree with ${version}: ${problems.join("; ")}. Run node scripts/release.mjs version.`)
  const platforms = platformPackages()
  for (const name of only) if (!platforms.some((p) => p.platform === name)) fail(`no package for the platform ${name}`)
  fs.rmSync(out, { recursive: true, force: true })
  fs.mkdirSync(out, { recursive: true })
  const order = []

  for (const p of platforms.filter((p) => only.length === 0 || only.includes(p.platform))) {
    for (const file of p.manifest.files) {
      if (!fs.existsSync(path.join(p.dir, file))) fail(`npm/${p.platform}/${file} is missing (napi artifacts puts the built binaries there)`)
    }
    const dir = path.join(out, p.manifest.name)
    fs.mkdirSync(dir)
    copyPacked(p.dir, dir)
    order.push(p.manifest.name)
  }

  const repo = readJson(path.join(ROOT, "package.json"))
  const main = path.join(out, repo.name)
  fs.mkdirSync(main)
  copyPacked(ROOT, main)
  for (const file of fs.readdirSync(main)) {
    if (file.endsWith(".node")) fail(`the main package would ship ${file}`)
  }
  writeJson(path.join(main, "package.json"), publishedManifest(repo))
  order.push(repo.name)

  const mcp = path.join(out, "hashline-mcp")
  fs.mkdirSync(mcp)
  copyPacked(MCP_DIR, mcp)
  fs.copyFileSync(path.join(ROOT, "LICENSE"), path.join(mcp, "LICENSE"))
  order.push("hashline-mcp")

  writeJson(path.join(out, "publish-order.json"), order)
  console.log(`release: staged ${order.join(", ")} at ${version} in ${out}`)
}

/**
 * @param {string} out
 * @param {{ provenance: boolean, tag?: string, dryRun: boolean }} options
 */
function publish(out, options) {
  const order = readJson(path.join(out, "publish-order.json"))
  const flags = ["--access", "public"]
  if (options.provenance) flags.push("--provenance")
  if (options.tag) flags.push("--tag", options.tag)
  if (options.dryRun) flags.push("--dry-run")
  for (const name of order) {
    run("npm", ["publish", ...flags], path.join(out, name))
    console.log(`release: published ${name}${options.dryRun ? " (dry run)" : ""}`)
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      platform: { type: "string", multiple: true },
      provenance: { type: "boolean" },
      tag: { type: "string" },
      "dry-run": { type: "boolean" },
    },
  })
  const [command, arg] = positionals
  if (command === "version") await syncVersions()
  else if (command === "build" && arg) buildPlatform(arg)
  else if (command === "glibc" && arg) console.log(glibcNeeded(path.resolve(arg)))
  else if (command === "tag" && arg) {
    const { version } = readJson(path.join(ROOT, "package.json"))
    if (arg !== `v${version}`) fail(`the tag ${arg} does not name the package's version ${version}`)
  }
  else if (command === "stage" && arg) await stage(path.resolve(arg), values.platform ?? [])
  else if (command === "publish" && arg) publish(path.resolve(arg), { provenance: values.provenance ?? false, tag: values.tag, dryRun: values["dry-run"] ?? false })
  else fail("usage: node scripts/release.mjs version | build PLATFORM | glibc FILE | tag TAG | stage OUT [--platform NAME]... | publish OUT [--provenance] [--tag TAG] [--dry-run]")
}
