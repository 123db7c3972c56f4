// @ts-check
// The shared loader (lib/native.cjs) on machines where no binary loads: a copy
// of the package's JS with, beside it, no platform package, one at another
// version, one whose binary is damaged, or an override that points nowhere.
// Each time the error says what it found and what to do, in one line.
import test from "ava"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { scratch } from "../helpers.mjs"

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const { version } = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8"))

/** napi's name for this machine, as in `hashline-<name>`. */
function platformName() {
  const report = /** @type {any} */ (process.report?.getReport())
  if (process.platform === "linux") return `linux-${process.arch}-${report?.header?.glibcVersionRuntime ? "gnu" : "musl"}`
  if (process.platform === "win32") return `win32-${process.arch}-msvc`
  return `${process.platform}-${process.arch}`
}
const PACKAGE = `hashline-${platformName()}`

/**
 * The installed package without any binary: its JS, manifest and loader.
 * @param {import("ava").ExecutionContext} t
 */
function installedCopy(t) {
  const root = scratch(t)
  const pkg = path.join(root, "node_modules", "hashline")
  fs.mkdirSync(path.join(pkg, "lib"), { recursive: true })
  for (const file of ["package.json", "index.js"]) fs.copyFileSync(path.join(REPO, file), path.join(pkg, file))
  for (const file of fs.readdirSync(path.join(REPO, "lib"))) fs.copyFileSync(path.join(REPO, "lib", file), path.join(pkg, "lib", file))
  return root
}

/**
 * A platform package for this machine beside the copy.
 * @param {string} root
 * @param {string} at its version
 */
function platformPackage(root, at) {
  const dir = path.join(root, "node_modules", PACKAGE)
  fs.mkdirSync(dir, { recursive: true })
  const binary = `hashline.${platformName()}.node`
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: PACKAGE, version: at, main: binary }))
  fs.writeFileSync(path.join(dir, binary), "not a shared library")
}

/**
 * What `require("hashline")` throws there.
 * @param {string} root
 * @param {Record<string, string>} [extraEnv]
 */
function loadError(root, extraEnv = {}) {
  const script = `try { require("hashline"); console.log("{}") } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message, package: e.package, platform: e.platform, arch: e.arch })) }`
  const env = { ...process.env, ...extraEnv }
  if (!extraEnv.NAPI_RS_NATIVE_LIBRARY_PATH) delete env.NAPI_RS_NATIVE_LIBRARY_PATH
  const result = spawnSync(process.execPath, ["-e", script], { cwd: root, env, encoding: "utf8", timeout: 30_000 })
  return JSON.parse(result.stdout)
}

test("no platform package: the error names the machine, the package and both fixes", (t) => {
  const err = loadError(installedCopy(t))
  t.like(err, { code: "NATIVE_MODULE_MISSING", package: `${PACKAGE}@${version}`, platform: process.platform, arch: process.arch })
  t.false(err.message.includes("\n"))
  t.true(err.message.startsWith(`The hashline native module could not be loaded on ${process.platform} ${process.arch}`))
  t.true(err.message.includes(`the package ${PACKAGE}@${version}, which is not installed`))
  t.true(err.message.includes(`npm install --save-optional ${PACKAGE}@${version}`))
  t.true(err.message.includes("build the binary from a clone"))
})

test("a platform package at another version: the error says which versions disagree", (t) => {
  const root = installedCopy(t)
  platformPackage(root, "0.0.1")
  const err = loadError(root)
  t.is(err.code, "NATIVE_MODULE_MISSING")
  t.true(err.message.includes(`the package ${PACKAGE} is installed at version 0.0.1, and this hashline is ${version}`), err.message)
  t.true(err.message.includes(`Install the matching version (npm install --save-optional ${PACKAGE}@${version})`))
})

test("a damaged binary in the right package: the error gives the loader's reason", (t) => {
  const root = installedCopy(t)
  platformPackage(root, version)
  const err = loadError(root)
  t.is(err.code, "NATIVE_MODULE_MISSING")
  t.regex(err.message, new RegExp(`the package ${PACKAGE}@${version.replace(/\./g, "\\.")} is installed but its binary did not load \\(.*hashline\\.${platformName()}\\.node(: | is damaged: ).+\\)\\. Reinstall it`))
  t.false(err.message.includes("\n"))
})

test("NAPI_RS_NATIVE_LIBRARY_PATH naming a file that does not load: the error names the override", (t) => {
  const root = installedCopy(t)
  const missing = path.join(root, "nowhere.node")
  const err = loadError(root, { NAPI_RS_NATIVE_LIBRARY_PATH: missing })
  t.is(err.code, "NATIVE_MODULE_MISSING")
  t.true(err.message.includes(`NAPI_RS_NATIVE_LIBRARY_PATH names ${missing}, which did not load`), err.message)
})

test("the loader's list of prebuilt platforms is the package's napi targets", (t) => {
  const source = fs.readFileSync(path.join(REPO, "lib", "native.cjs"), "utf8")
  const listed = [...(/const PREBUILT = \{([^}]*)\}/.exec(source)?.[1] ?? "").matchAll(/"([a-z0-9-]+)":/g)].map((m) => m[1]).sort()
  t.deepEqual(listed, fs.readdirSync(path.join(REPO, "npm")).sort())
})

/**
 * Loads `hashline` in a fresh process at `root` and says whether the binding
 * works and whether napi's generated loader (index.js) ran.
 * @param {string} root
 * @param {Record<string, string>} [extraEnv]
 */
function loadWorking(root, extraEnv = {}) {
  const script = `const h = require("hashline"); console.log(JSON.stringify({ rev: h.rev("a\\n"), generated: Object.keys(require.cache).some((k) => k.endsWith(require("node:path").join("hashline", "index.js"))) }))`
  const env = { ...process.env, ...extraEnv }
  if (!extraEnv.NAPI_RS_NATIVE_LIBRARY_PATH) delete env.NAPI_RS_NATIVE_LIBRARY_PATH
  const result = spawnSync(process.execPath, ["-e", script], { cwd: root, env, encoding: "utf8", timeout: 30_000 })
  return JSON.parse(result.stdout)
}

/**
 * A working platform package beside the copy, with this build's binary.
 * @param {string} root
 * @param {string} [at] its version
 */
function workingPlatformPackage(root, at = version) {
  const dir = path.join(root, "node_modules", PACKAGE)
  fs.mkdirSync(dir, { recursive: true })
  const binary = `hashline.${platformName()}.node`
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: PACKAGE, version: at, main: binary }))
  fs.copyFileSync(path.join(REPO, binary), path.join(dir, binary))
  return path.join(dir, binary)
}

test("an installed platform package is loaded directly, without the generated loader's search", (t) => {
  const root = installedCopy(t)
  workingPlatformPackage(root)
  const loaded = loadWorking(root)
  t.is(typeof loaded.rev, "string")
  t.false(loaded.generated)
})

test("NAPI_RS_NATIVE_LIBRARY_PATH still goes through the generated loader", (t) => {
  const root = installedCopy(t)
  const binary = workingPlatformPackage(root)
  const loaded = loadWorking(root, { NAPI_RS_NATIVE_LIBRARY_PATH: binary })
  t.is(typeof loaded.rev, "string")
  t.true(loaded.generated)
})

test("a working platform package at another version is not loaded: the error says which versions disagree", (t) => {
  const root = installedCopy(t)
  workingPlatformPackage(root, "0.0.1")
  const err = loadError(root)
  t.is(err.code, "NATIVE_MODULE_MISSING", JSON.stringify(err))
  t.true(err.message.includes(`the package ${PACKAGE} is installed at version 0.0.1, and this hashline is ${version}`), err.message)
})

/**
 * Cuts a file to half its size, as an interrupted download or copy leaves it.
 * @param {string} file
 */
const cutShort = (file) => fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2))

// Only ELF files map past their end; other systems' loaders refuse a cut file with an error.
const elfOnly = process.platform === "linux" ? test : test.skip

elfOnly("a platform package whose binary was cut short: one line that names the file, and no crash", (t) => {
  const root = installedCopy(t)
  const binary = workingPlatformPackage(root)
  cutShort(binary)
  const err = loadError(root)
  t.is(err.code, "NATIVE_MODULE_MISSING")
  t.true(err.message.includes(`the package ${PACKAGE}@${version} is installed but its binary did not load (${binary} is damaged: cut short: `), err.message)
  t.regex(err.message, /Reinstall it/)
  t.false(err.message.includes("\n"))
})

elfOnly("a build's binary beside the package cut short: the error names it, and the override is checked too", (t) => {
  const root = installedCopy(t)
  const binary = path.join(root, "node_modules", "hashline", `hashline.${platformName()}.node`)
  fs.copyFileSync(path.join(REPO, `hashline.${platformName()}.node`), binary)
  cutShort(binary)
  const err = loadError(root)
  t.is(err.code, "NATIVE_MODULE_MISSING")
  t.true(err.message.includes(`the binary ${binary} is damaged (cut short: `), err.message)
  fs.rmSync(binary)
  const other = path.join(root, "other.node")
  fs.writeFileSync(other, "\x7fELF")
  const overridden = loadError(root, { NAPI_RS_NATIVE_LIBRARY_PATH: other })
  t.true(overridden.message.includes(`NAPI_RS_NATIVE_LIBRARY_PATH names ${other}, which did not load (it is damaged: not an ELF shared library (4 bytes))`), overridden.message)
})
