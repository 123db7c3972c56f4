// @ts-check
// The one way every host (the package's main entry, the command line, the
// OpenCode plugin and tool, the framework tools, the MCP server) loads the
// native engine: the loader that `napi build` generates, and, when no binary
// fits this machine, one error that says what was detected, which package was
// looked for, and how to fix it.
"use strict"

const path = require("node:path")

/** The per-platform packages that are published, by napi's platform name. */
const PREBUILT = {
  "linux-x64-gnu": "Linux x64 (glibc)",
  "linux-x64-musl": "Linux x64 (musl)",
  "linux-arm64-gnu": "Linux arm64 (glibc)",
  "darwin-x64": "macOS x64",
  "darwin-arm64": "macOS arm64",
  "win32-x64-msvc": "Windows x64",
}

/**
 * The C library of a Linux machine: glibc reports its version to Node; a
 * Node that reports none runs on musl.
 * @returns {{ name: "glibc" | "musl", version?: string } | undefined}
 */
function libc() {
  if (process.platform !== "linux") return undefined
  const report = /** @type {any} */ (process.report)
  if (report && typeof report.getReport === "function") {
    report.excludeNetwork = true
    const version = report.getReport()?.header?.glibcVersionRuntime
    if (typeof version === "string") return { name: "glibc", version }
  }
  return { name: "musl" }
}

/**
 * napi's name for this platform, as in the package names `hashline-<name>`.
 * @param {ReturnType<typeof libc>} c
 */
function platformName(c) {
  if (process.platform === "linux") return `linux-${process.arch}-${c?.name === "musl" ? "musl" : "gnu"}`
  if (process.platform === "win32") return `win32-${process.arch}-msvc`
  return `${process.platform}-${process.arch}`
}

/**
 * Why a binary that is present did not load: the first error in the
 * generated loader's chain that is not about a file it did not find (it tries
 * several names, and the WASI fallback, before giving up).
 * @param {unknown} err
 */
function loadFailure(err) {
  for (let e = err, depth = 0; e instanceof Error && depth < 20; e = e.cause, depth++) {
    const reason = e.message.split("\n")[0]
    if (!/^(Cannot find module|Cannot find native binding|Failed to load native binding)/.test(reason)) return reason
  }
  return undefined
}

/**
 * The error for a machine where no binary loads.
 * @param {unknown} cause what the generated loader threw
 */
function explain(cause) {
  const { name, version } = require("../package.json")
  const c = libc()
  const target = platformName(c)
  const pkg = `${name}-${target}`
  const detected = `${process.platform} ${process.arch}${c ? ` (${c.name}${c.version ? ` ${c.version}` : ""})` : ""}`
  const build =
    "build the binary from a clone of the hashline repository (needs Rust; `npm install` there builds it) " +
    "and set NAPI_RS_NATIVE_LIBRARY_PATH to the .node file it writes"

  let problem
  let fix
  const override = process.env.NAPI_RS_NATIVE_LIBRARY_PATH
  if (override) {
    problem = `NAPI_RS_NATIVE_LIBRARY_PATH names ${override}, which did not load (${loadFailure(cause) ?? "no reason given"})`
    fix = `Point it at a .node file built for ${target}, or unset it to use the package ${pkg}@${version}.`
  } else if (!(target in PREBUILT)) {
    problem = `there is no prebuilt binary for ${target} (prebuilt: ${Object.values(PREBUILT).join(", ")})`
    fix = `To use hashline here, ${build}.`
  } else {
    let installed
    try {
      installed = require(require.resolve(`${pkg}/package.json`, { paths: [path.join(__dirname, "..")] })).version
    } catch {
      installed = undefined
    }
    const get = `npm install ${pkg}@${version}`
    if (installed === undefined) {
      problem = `its binary comes in the package ${pkg}@${version}, which is not installed (npm leaves it out with --omit=optional, --no-optional or a lock file made on another platform)`
      fix = `Install it (${get}), or ${build}.`
    } else if (installed !== version) {
      problem = `the package ${pkg} is installed at version ${installed}, and this hashline is ${version}`
      fix = `Install the matching version (${get}), or ${build}.`
    } else {
      problem = `the package ${pkg}@${version} is installed but its binary did not load (${loadFailure(cause) ?? "no reason given"})`
      fix = `Reinstall it (${get}), or ${build}.`
    }
  }
  const error = new Error(`The hashline native module could not be loaded on ${detected}: ${problem}. ${fix}`, { cause })
  return Object.assign(error, { code: "NATIVE_MODULE_MISSING", platform: process.platform, arch: process.arch, libc: c?.name, package: `${pkg}@${version}` })
}

/**
 * The binary where a build or an install puts it, loaded without the
 * generated loader. That loader is the authority (it knows every layout,
 * the override variable and the WASI fallback) but costs 2–3 ms a call:
 * it parses 36 KB and reads /usr/bin/ldd to tell glibc from musl. Every
 * command-line call pays that, so the usual layouts are tried first: the
 * build's `.node` beside the package, then the platform package, gnu before
 * musl (npm installs the one the machine's libc takes, and a gnu binary
 * fails to load on musl). Anything unusual goes to the generated loader.
 */
function direct() {
  if (process.env.NAPI_RS_NATIVE_LIBRARY_PATH || process.env.NAPI_RS_FORCE_WASI) return undefined
  const { platform, arch } = process
  const names =
    platform === "linux" ? [`linux-${arch}-gnu`, `linux-${arch}-musl`] : platform === "win32" ? [`win32-${arch}-msvc`] : [`${platform}-${arch}`]
  const fs = require("node:fs")
  for (const name of names.filter((n) => n in PREBUILT)) {
    try {
      const built = path.join(__dirname, "..", `hashline.${name}.node`)
      if (fs.existsSync(built)) return require(built)
      return require(`hashline-${name}`)
    } catch {
      // Not installed, or not loadable here: the next name, then the generated loader.
    }
  }
  return undefined
}

const found = direct()
if (found) {
  module.exports = found
} else {
  try {
    module.exports = require("../index.js")
  } catch (cause) {
    throw explain(cause)
  }
}
