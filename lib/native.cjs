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
 * @param {{ file: string, problem: string }} [damaged] a binary found unfit to load, unloaded
 */
function explain(cause, damaged) {
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
  if (damaged && damaged.file !== override && !damaged.file.includes(`${pkg}${path.sep}`)) {
    problem = `the binary ${damaged.file} is damaged (${damaged.problem})`
    fix = `Remove it, or build it again (npm install in the clone builds it).`
  } else if (override) {
    problem = `NAPI_RS_NATIVE_LIBRARY_PATH names ${override}, which did not load (${damaged ? `it is damaged: ${damaged.problem}` : loadFailure(cause) ?? "no reason given"})`
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
    // As an optional dependency, so that teammates on other systems, whose
    // npm skips a package for another platform, can still install.
    const get = `npm install --save-optional ${pkg}@${version}`
    if (installed === undefined) {
      problem = `its binary comes in the package ${pkg}@${version}, which is not installed (npm leaves it out with --omit=optional, --no-optional or a lock file made on another platform)`
      fix = `Install it (${get}), or ${build}.`
    } else if (installed !== version) {
      problem = `the package ${pkg} is installed at version ${installed}, and this hashline is ${version}`
      fix = `Install the matching version (${get}), or ${build}.`
    } else {
      problem = `the package ${pkg}@${version} is installed but its binary did not load (${damaged ? `${damaged.file} is damaged: ${damaged.problem}` : loadFailure(cause) ?? "no reason given"})`
      fix = `Reinstall it (${get}), or ${build}.`
    }
  }
  const error = new Error(`The hashline native module could not be loaded on ${detected}: ${problem}. ${fix}`, { cause })
  // `problem` without the fix, for a host where the fix is another one.
  return Object.assign(error, { code: "NATIVE_MODULE_MISSING", platform: process.platform, arch: process.arch, libc: c?.name, package: `${pkg}@${version}`, problem: `The hashline native module could not be loaded on ${detected}: ${problem}.` })
}

/**
 * Why a binary would crash the process rather than fail to load, or
 * undefined. A shared library cut short (an interrupted download or copy)
 * still maps, and the process dies of SIGBUS (exit 135, no message) when it
 * touches a page past the end; so an ELF file's segments and tables must lie
 * within it. The loaders of macOS and Windows refuse a damaged file with an
 * error, so there only the first bytes are checked. Hand-read: the ELF
 * header and program headers are a few fixed offsets of the System V ABI.
 * @param {string} file
 */
function damage(file) {
  const fs = require("node:fs")
  let fd
  try {
    fd = fs.openSync(file, "r")
  } catch {
    return undefined
  }
  try {
    const size = fs.fstatSync(fd).size
    const head = Buffer.alloc(64)
    const got = fs.readSync(fd, head, 0, 64, 0)
    if (process.platform === "win32") return got >= 2 && head.toString("latin1", 0, 2) === "MZ" ? undefined : `not a DLL (${size} bytes)`
    const magic = got >= 4 ? head.readUInt32BE(0) : 0
    if (process.platform === "darwin") return [0xcffaedfe, 0xcefaedfe, 0xcafebabe].includes(magic) ? undefined : `not a Mach-O library (${size} bytes)`
    if (got < 52 || magic !== 0x7f454c46) return `not an ELF shared library (${size} bytes)`
    const wide = head[4] === 2
    const little = head[5] === 1
    /** @param {Buffer} b @param {number} at @param {number} bytes */
    const read = (b, at, bytes) =>
      bytes === 8 ? Number(little ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at)) : bytes === 4 ? (little ? b.readUInt32LE(at) : b.readUInt32BE(at)) : little ? b.readUInt16LE(at) : b.readUInt16BE(at)
    const word = wide ? 8 : 4
    const programs = read(head, wide ? 0x20 : 0x1c, word)
    const programSize = read(head, wide ? 0x36 : 0x2a, 2)
    const programCount = read(head, wide ? 0x38 : 0x2c, 2)
    const sections = read(head, wide ? 0x28 : 0x20, word)
    const sectionEnd = sections + read(head, wide ? 0x3a : 0x2e, 2) * read(head, wide ? 0x3c : 0x30, 2)
    let needed = Math.max(programs + programSize * programCount, sections ? sectionEnd : 0)
    if (programs + programSize * programCount <= size) {
      const table = Buffer.alloc(programSize * programCount)
      fs.readSync(fd, table, 0, table.length, programs)
      for (let at = 0; at < table.length; at += programSize) {
        const PT_LOAD = 1
        if (read(table, at, 4) !== PT_LOAD) continue
        needed = Math.max(needed, read(table, at + (wide ? 8 : 4), word) + read(table, at + (wide ? 0x20 : 0x10), word))
      }
    }
    return needed > size ? `cut short: ${size} bytes of the ${needed} it declares` : undefined
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * The binary where a build or an install puts it, loaded without the
 * generated loader. That loader is the authority (it knows every layout,
 * the override variable and the WASI fallback) but costs 2–3 ms a call:
 * it parses 36 KB and reads /usr/bin/ldd to tell glibc from musl. Every
 * command-line call pays that, so the usual layouts are tried first: the
 * build's `.node` beside the package, then the platform package, gnu before
 * musl (npm installs the one the machine's libc takes, and a gnu binary
 * fails to load on musl). Anything unusual goes to the generated loader. A
 * platform package of another version, or a damaged binary, is reported and
 * never loaded.
 */
function direct() {
  if (process.env.NAPI_RS_NATIVE_LIBRARY_PATH || process.env.NAPI_RS_FORCE_WASI) return undefined
  const { platform, arch } = process
  const names =
    platform === "linux" ? [`linux-${arch}-gnu`, `linux-${arch}-musl`] : platform === "win32" ? [`win32-${arch}-msvc`] : [`${platform}-${arch}`]
  const fs = require("node:fs")
  for (const name of names.filter((n) => n in PREBUILT)) {
    let file = path.join(__dirname, "..", `hashline.${name}.node`)
    if (!fs.existsSync(file)) {
      let manifest
      try {
        manifest = require.resolve(`hashline-${name}/package.json`)
      } catch {
        continue
      }
      const { version, main } = require(manifest)
      // A binary of another version may not match this JS; the generated
      // loader would take it unless NAPI_RS_ENFORCE_VERSION_CHECK is set.
      if (version !== require("../package.json").version) throw explain(undefined)
      file = path.join(path.dirname(manifest), main ?? `hashline.${name}.node`)
    }
    const problem = damage(file)
    if (problem) throw explain(undefined, { file, problem })
    try {
      return require(file)
    } catch {
      // Not loadable here (a musl binary on glibc): the next name, then the generated loader.
    }
  }
  return undefined
}

const found = direct()
if (found) {
  module.exports = found
} else {
  const override = process.env.NAPI_RS_NATIVE_LIBRARY_PATH
  const problem = override ? damage(override) : undefined
  if (override && problem) throw explain(undefined, { file: override, problem })
  try {
    module.exports = require("../index.js")
  } catch (cause) {
    throw explain(cause)
  }
}
