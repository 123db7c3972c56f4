// @ts-check
// `hashline stats`: how each model fares with its edits, from the local
// record of tool calls (docs/telemetry.md), as a table, CSV or JSON, and
// with --html as a page with plots (lib/report.cjs). The engine reads the
// record and makes the figures (`telemetryStats`); this file reads the
// command line and lays them out. Every label it prints
// came from a record the engine checked: no control characters, bounded.
"use strict"

const { usage } = require("../args.cjs")

/**
 * @typedef {import("../../index.js").TelemetryStats} TelemetryStats
 * @typedef {import("../../index.js").TelemetryGroup} TelemetryGroup
 * @typedef {import("../../index.js").TelemetryFigures} TelemetryFigures
 */

const UNITS = /** @type {Record<string, number>} */ ({ m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 })

/**
 * A time on the command line: a time ago (`30m`, `12h`, `7d`, `2w`), or a
 * date or time (`2026-11-01`, `2026-11-01T09:30`, read in UTC unless it
 * says its zone), as milliseconds since the epoch.
 * @param {string | undefined} text
 * @param {string} flag
 * @param {number} now
 */
function time(text, flag, now) {
  if (text === undefined) return undefined
  const ago = /^(\d+)([mhdw])$/.exec(text.trim())
  if (ago) return Math.max(0, now - Number(ago[1]) * UNITS[ago[2]])
  const dated = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/.test(text.trim())
  const zoned = /(Z|[+-]\d{2}:\d{2})$/.test(text.trim()) || !text.includes("T")
  const ms = dated ? Date.parse(zoned ? text.trim() : `${text.trim()}Z`) : NaN
  if (!Number.isFinite(ms)) {
    throw usage(`${flag} takes a date or time such as 2026-11-01 or 2026-11-01T09:30, or a time ago such as 30m, 12h, 7d or 2w, got ${JSON.stringify(text)}.`, "stats")
  }
  return ms
}

/** @param {number | null | undefined} rate */
const percent = (rate) => (rate === null || rate === undefined ? "-" : `${(rate * 100).toFixed(1)}%`)

/** @param {number | null | undefined} n */
const whole = (n) => (n === null || n === undefined ? "-" : Math.round(n).toLocaleString("en-US"))

/** @param {number} ms */
const day = (ms) => new Date(ms).toISOString().slice(0, 10)

/** @param {string | null | undefined} label */
const named = (label) => label ?? "(unknown)"

/**
 * The groups as a table, columns aligned, numbers to the right.
 * @param {TelemetryGroup[]} groups
 */
function table(groups) {
  const header = ["model", "host", "calls", "edits", "first try", "retries", "tokens/edit", "stale", "refusals"]
  const rows = groups.map((g) => {
    const r = g.retries
    const retries = r.toSuccess === null || r.toSuccess === undefined ? "-" : `${r.toSuccess.toFixed(1)} (${r.landed}/${r.runs})`
    const refusals = g.refusals.slice(0, 3).map((x) => `${x.code} ${x.count}`)
    if (g.refusals.length > 3) refusals.push("…")
    return [named(g.model), named(g.host), whole(g.calls), whole(g.edits.attempts), percent(g.edits.firstTryRate), retries, whole(g.edits.tokensPerSuccess), whole(g.staleRecovered), refusals.join(", ") || "-"]
  })
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)))
  const left = new Set([0, 1, 8])
  return [header, ...rows]
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : left.has(i) ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  "))
    .join("\n")
}

/**
 * A CSV cell: quoted where it must be, and a leading `=`, `+`, `-` or `@`
 * (which a spreadsheet would run as a formula) escaped.
 * @param {unknown} value
 */
function cell(value) {
  if (value === null || value === undefined) return ""
  let text = String(value)
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** @param {TelemetryGroup[]} groups */
function csv(groups) {
  /** @type {Array<[string, (g: TelemetryGroup) => unknown]>} */
  const columns = [
    ["model", (g) => g.model],
    ["host", (g) => g.host],
    ["calls", (g) => g.calls],
    ["reads", (g) => g.reads],
    ["edits", (g) => g.edits.attempts],
    ["applied", (g) => g.edits.applied],
    ["first_tries", (g) => g.edits.firstTries],
    ["first_try_applied", (g) => g.edits.firstTryApplied],
    ["first_try_rate", (g) => g.edits.firstTryRate],
    ["retry_runs", (g) => g.retries.runs],
    ["retry_runs_landed", (g) => g.retries.landed],
    ["retry_runs_abandoned", (g) => g.retries.abandoned],
    ["retries_to_success", (g) => g.retries.toSuccess],
    ["request_tokens", (g) => g.edits.requestTokens],
    ["result_tokens", (g) => g.edits.resultTokens],
    ["tokens_per_success", (g) => g.edits.tokensPerSuccess],
    ["lean_edits", (g) => g.lean.attempts],
    ["lean_first_try_rate", (g) => g.lean.firstTryRate],
    ["lean_tokens_per_success", (g) => g.lean.tokensPerSuccess],
    ["full_edits", (g) => g.full.attempts],
    ["full_first_try_rate", (g) => g.full.firstTryRate],
    ["full_tokens_per_success", (g) => g.full.tokensPerSuccess],
    ["stale_recovered", (g) => g.staleRecovered],
    ["prefixes_removed", (g) => g.prefixesRemoved],
    ["echoes_dropped", (g) => g.echoesDropped],
    ["literal_resends", (g) => g.literalResends],
    ["median_ms", (g) => g.medianMs],
    ["refusals", (g) => g.refusals.map((r) => `${r.code}:${r.count}`).join(";")],
  ]
  const lines = [columns.map(([name]) => name).join(","), ...groups.map((g) => columns.map(([, of]) => cell(of(g))).join(","))]
  return `${lines.join("\n")}\n`
}

/** @param {TelemetryStats} stats */
function text(stats) {
  const lines = []
  const files = `${stats.files} file${stats.files === 1 ? "" : "s"}`
  if (stats.matched === 0) {
    const none = stats.records === 0 ? "No calls are recorded" : `None of the ${whole(stats.records)} calls recorded match`
    lines.push(`${none} in ${stats.folder} (${files}).`)
  } else {
    const span = stats.first && stats.last ? ` from ${day(stats.first)} to ${day(stats.last)}` : ""
    lines.push(`${whole(stats.matched)} call${stats.matched === 1 ? "" : "s"}${span}, in ${stats.folder} (${files}).`, "", table(stats.groups))
  }
  const notes = []
  if (stats.skipped > 0) notes.push(`${whole(stats.skipped)} lines were no record and were skipped`)
  if (stats.lost > 0) notes.push(`${whole(stats.lost)} calls could not be recorded (a full queue or a failed write)`)
  if (stats.truncated) notes.push("the record is larger than any hashline writes, and was read in part")
  if (notes.length > 0) lines.push("", `Note: ${notes.join("; ")}.`)
  if (stats.advice.length > 0) lines.push("", "Advice:", ...stats.advice.map((a) => `  ${a.text}`))
  return `${lines.join("\n")}\n`
}

/** @param {import("../args.cjs").Context} cx */
async function stats(cx) {
  const { values } = cx
  if (values.csv && values.json) throw usage("give --csv or --json, not both.", "stats")
  const now = Date.now()
  /** @type {import("../../index.js").TelemetryStatsOptions} */
  const options = {
    dir: values["telemetry-dir"] === undefined ? undefined : require("node:path").resolve(values["telemetry-dir"]),
    since: time(values.since, "--since", now),
    until: time(values.until, "--until", now),
    model: values.model,
    host: values.host,
    tool: /** @type {any} */ (values.tool),
  }
  let found
  try {
    found = await cx.native().telemetryStatsAsync(options)
  } catch (err) {
    // A wrong --tool is a wrong command line.
    if (/** @type {{ code?: unknown }} */ (err)?.code === "INVALID_REQUEST") throw usage(err instanceof Error ? err.message.replace("`options.tool`", "--tool") : String(err), "stats")
    throw err
  }
  let stdout = values.csv ? csv(found.groups) : text(found)
  if (values.html !== undefined) {
    const file = require("node:path").resolve(values.html)
    require("node:fs").writeFileSync(file, require("../../lib/report.cjs").statsReport(found))
    if (!values.csv) stdout += `\nThe report with plots is in ${file}.\n`
  }
  return { stdout, json: { ok: true, ...found } }
}

module.exports = { run: stats }
