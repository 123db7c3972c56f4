// @ts-check
// The HTML report of `hashline stats --html` (and `statsReport` for JS): one
// self-contained file for people who would rather look than read. Its
// plots (first-try success and refusal rates per model over time, tokens
// per successful edit per view) are SVG drawn here, when the report is
// written: no script, no library, nothing fetched, and a Content Security
// Policy that lets the page load nothing at all. Every label in it came
// from a record the engine checked (bounded, no control characters) and is
// escaped here as HTML. CommonJS, so that the command line loads it without
// the ES module loader.
"use strict"

/**
 * @typedef {import("../index.js").TelemetryStats} TelemetryStats
 * @typedef {import("../index.js").TelemetryDay} TelemetryDay
 * @typedef {import("../index.js").TelemetryGroup} TelemetryGroup
 * @typedef {{ name: string, color: string, points: Array<{ x: number, y: number, label: string }> }} Series
 */

// Colours told apart by most eyes (Okabe and Ito's), and then by the marks.
const COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
const WIDTH = 720
const HEIGHT = 260
const MARGIN = { left: 52, right: 16, top: 16, bottom: 40 }

/** @param {unknown} text */
const escape = (text) =>
  String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c)

/** @param {{ model?: string | null, host?: string | null }} g */
const nameOf = (g) => `${g.model ?? "(model unknown)"} on ${g.host ?? "(host unknown)"}`

/** @param {number} n */
const round = (n) => Math.round(n * 10) / 10

/** @param {number} rate */
const percent = (rate) => `${(rate * 100).toFixed(1)}%`

/**
 * A line chart of rates (0 to 1) over the days, a mark per point for each
 * series, joined by a line across consecutive days only: a day without
 * edits is a gap, not a value between its neighbours.
 * @param {string} id the chart's name, as `data-chart`
 * @param {string} title
 * @param {string[]} days every day shown, in order
 * @param {Series[]} series
 */
function lineChart(id, title, days, series) {
  const plotW = WIDTH - MARGIN.left - MARGIN.right
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom
  const x = (/** @type {number} */ i) => round(MARGIN.left + (days.length === 1 ? plotW / 2 : (i * plotW) / (days.length - 1)))
  const y = (/** @type {number} */ v) => round(MARGIN.top + plotH - v * plotH)
  const grid = [0, 0.25, 0.5, 0.75, 1].map(
    (v) => `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(v)}" y2="${y(v)}" class="grid"/><text x="${MARGIN.left - 6}" y="${y(v) + 4}" class="axis" text-anchor="end">${v * 100}%</text>`,
  )
  // At most eight dates under the axis, evenly chosen.
  const every = Math.max(1, Math.ceil(days.length / 8))
  const ticks = days.flatMap((d, i) => (i % every === 0 || i === days.length - 1 ? [`<text x="${x(i)}" y="${HEIGHT - MARGIN.bottom + 18}" class="axis" text-anchor="middle">${escape(d.slice(5))}</text>`] : []))
  const lines = series.map((s) => {
    /** @type {Array<typeof s.points>} */
    const runs = []
    for (const p of s.points) {
      const run = runs[runs.length - 1]
      if (run && run[run.length - 1].x === p.x - 1) run.push(p)
      else runs.push([p])
    }
    const polylines = runs.map((run) => `<polyline points="${run.map((p) => `${x(p.x)},${y(p.y)}`).join(" ")}" fill="none" stroke="${s.color}" stroke-width="2"/>`)
    const marks = s.points.map((p) => `<circle cx="${x(p.x)}" cy="${y(p.y)}" r="3.5" fill="${s.color}"><title>${escape(`${s.name}, ${days[p.x]}: ${p.label}`)}</title></circle>`)
    return `<g data-series="${escape(s.name)}">${polylines.join("")}${marks.join("")}</g>`
  })
  const empty = series.length === 0 ? `<text x="${WIDTH / 2}" y="${HEIGHT / 2}" class="axis" text-anchor="middle">No edits recorded in this window.</text>` : ""
  return figure(id, title, `${grid.join("")}${ticks.join("")}${lines.join("")}${empty}`, series)
}

/**
 * A bar chart of tokens per successful edit, per model, a bar for each view.
 * @param {string} id
 * @param {string} title
 * @param {TelemetryGroup[]} groups
 */
function barChart(id, title, groups) {
  const views = /** @type {const} */ ([
    ["lean", COLORS[0]],
    ["full", COLORS[1]],
  ])
  const rows = groups.flatMap((g) => {
    const bars = views.flatMap(([view, color]) => {
      const v = g[view].tokensPerSuccess
      return typeof v === "number" && Number.isFinite(v) ? [{ view, color, value: v, edits: g[view].attempts }] : []
    })
    return bars.length > 0 ? [{ name: nameOf(g), bars }] : []
  })
  const max = Math.max(1, ...rows.flatMap((r) => r.bars.map((b) => b.value)))
  const plotW = WIDTH - MARGIN.left - MARGIN.right
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom
  const slot = plotW / Math.max(1, rows.length)
  const barW = Math.min(48, (slot * 0.7) / views.length)
  const y = (/** @type {number} */ v) => round(MARGIN.top + plotH - (v / max) * plotH)
  const grid = [0, 0.5, 1].map((f) => `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(f * max)}" y2="${y(f * max)}" class="grid"/><text x="${MARGIN.left - 6}" y="${y(f * max) + 4}" class="axis" text-anchor="end">${Math.round(f * max)}</text>`)
  const marks = rows.map((r, i) => {
    const left = MARGIN.left + i * slot + (slot - barW * r.bars.length) / 2
    const bars = r.bars.map(
      (b, k) =>
        `<rect x="${round(left + k * barW)}" y="${y(b.value)}" width="${round(barW - 2)}" height="${round(MARGIN.top + plotH - y(b.value))}" fill="${b.color}"><title>${escape(`${r.name}, ${b.view} view: ${Math.round(b.value)} tokens per successful edit (${b.edits} edits)`)}</title></rect>`,
    )
    const label = `<text x="${round(MARGIN.left + i * slot + slot / 2)}" y="${HEIGHT - MARGIN.bottom + 18}" class="axis" text-anchor="middle">${escape(r.name.length > 40 ? `${r.name.slice(0, 39)}…` : r.name)}</text>`
    return `<g data-series="${escape(r.name)}">${bars.join("")}${label}</g>`
  })
  const empty = rows.length === 0 ? `<text x="${WIDTH / 2}" y="${HEIGHT / 2}" class="axis" text-anchor="middle">No edit landed in this window.</text>` : ""
  const legend = views.map(([view, color]) => ({ name: `${view} view`, color }))
  return figure(id, title, `${grid.join("")}${marks.join("")}${empty}`, rows.length > 0 ? legend : [])
}

/**
 * A chart in its figure, with its legend.
 * @param {string} id
 * @param {string} title
 * @param {string} body the SVG's content
 * @param {Array<{ name: string, color: string }>} legend
 */
function figure(id, title, body, legend) {
  const items = legend.map((l) => `<li><span class="swatch" style="background:${l.color}"></span>${escape(l.name)}</li>`).join("")
  return `<figure><figcaption>${escape(title)}</figcaption><svg data-chart="${id}" role="img" aria-label="${escape(title)}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}">${body}</svg><ul class="legend">${items}</ul></figure>`
}

/**
 * The days of the record, from the first to the last, each one.
 * @param {TelemetryDay[]} days
 */
function calendar(days) {
  const known = [...new Set(days.map((d) => d.day))].sort()
  if (known.length === 0) return []
  const all = []
  const last = Date.parse(`${known[known.length - 1]}T00:00:00Z`)
  // A record spans at most its files' worth of days; past a year, only the days it has.
  const first = Date.parse(`${known[0]}T00:00:00Z`)
  if ((last - first) / 86_400_000 > 366) return known
  for (let t = first; t <= last; t += 86_400_000) all.push(new Date(t).toISOString().slice(0, 10))
  return all
}

/**
 * The series of a rate per model and host over the days: a point for each
 * day that had edits.
 * @param {TelemetryDay[]} days
 * @param {string[]} calendarDays
 * @param {(d: TelemetryDay) => { rate: number, label: string } | undefined} rateOf
 * @returns {Series[]}
 */
function seriesOf(days, calendarDays, rateOf) {
  /** @type {Map<string, Series>} */
  const byName = new Map()
  for (const d of days) {
    const rate = rateOf(d)
    if (!rate) continue
    const name = nameOf(d)
    let s = byName.get(name)
    if (!s) byName.set(name, (s = { name, color: COLORS[byName.size % COLORS.length], points: [] }))
    s.points.push({ x: calendarDays.indexOf(d.day), y: rate.rate, label: rate.label })
  }
  for (const s of byName.values()) s.points.sort((a, b) => a.x - b.x)
  return [...byName.values()]
}

/**
 * The table of the figures per model and host.
 * @param {TelemetryGroup[]} groups
 */
function figuresTable(groups) {
  const head = ["model", "host", "calls", "edits", "first try", "retries to success", "tokens/edit", "lean tokens/edit", "full tokens/edit", "stale refs recovered", "refusals"]
  const num = (/** @type {number | null | undefined} */ n) => (n === null || n === undefined ? "–" : Math.round(n).toLocaleString("en-US"))
  const rows = groups.map((g) =>
    [
      g.model ?? "(unknown)",
      g.host ?? "(unknown)",
      num(g.calls),
      num(g.edits.attempts),
      g.edits.firstTryRate === null || g.edits.firstTryRate === undefined ? "–" : percent(g.edits.firstTryRate),
      g.retries.toSuccess === null || g.retries.toSuccess === undefined ? "–" : `${g.retries.toSuccess.toFixed(1)} (${g.retries.landed}/${g.retries.runs})`,
      num(g.edits.tokensPerSuccess),
      num(g.lean.tokensPerSuccess),
      num(g.full.tokensPerSuccess),
      num(g.staleRecovered),
      g.refusals.map((r) => `${r.code} ${r.count}`).join(", ") || "–",
    ]
      .map((cell, i) => `<td${i >= 2 && i <= 9 ? ' class="n"' : ""}>${escape(cell)}</td>`)
      .join(""),
  )
  return `<table><thead><tr>${head.map((h) => `<th>${escape(h)}</th>`).join("")}</tr></thead><tbody>${rows.map((r) => `<tr>${r}</tr>`).join("")}</tbody></table>`
}

/**
 * The report of `stats` (what `telemetryStats` gives) as one HTML page.
 * @param {TelemetryStats} stats
 * @returns {string}
 */
function statsReport(stats) {
  const days = calendar(stats.days)
  const success = seriesOf(stats.days, days, (d) =>
    d.edits.firstTries > 0 ? { rate: d.edits.firstTryApplied / d.edits.firstTries, label: `${d.edits.firstTryApplied} of ${d.edits.firstTries} first tries applied` } : undefined,
  )
  const refusals = seriesOf(stats.days, days, (d) =>
    d.edits.attempts > 0 ? { rate: (d.edits.attempts - d.edits.applied) / d.edits.attempts, label: `${d.edits.attempts - d.edits.applied} of ${d.edits.attempts} edits refused` } : undefined,
  )
  const span = stats.first && stats.last ? `from ${new Date(stats.first).toISOString().slice(0, 10)} to ${new Date(stats.last).toISOString().slice(0, 10)}` : "none in this window"
  const notes = []
  if (stats.skipped > 0) notes.push(`${stats.skipped} lines were no record and were skipped.`)
  if (stats.lost > 0) notes.push(`${stats.lost} calls could not be recorded (a full queue or a failed write).`)
  if (stats.truncated) notes.push("The record is larger than any hashline writes, and was read in part.")
  const advice = stats.advice.map((a) => `<li>${escape(a.text)}</li>`).join("")
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>hashline stats</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1000px; padding: 0 16px; color: #222; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
figure { margin: 16px 0; } figcaption { font-weight: 600; margin-bottom: 4px; }
svg { max-width: 100%; height: auto; background: #fff; }
.grid { stroke: #ddd; stroke-width: 1; } .axis { font-size: 11px; fill: #555; }
.legend { list-style: none; padding: 0; margin: 4px 0; display: flex; flex-wrap: wrap; gap: 4px 16px; }
.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 6px; vertical-align: -1px; }
table { border-collapse: collapse; font-size: 13px; } th, td { border-bottom: 1px solid #e4e4e4; padding: 4px 8px; text-align: left; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
</style>
</head>
<body>
<h1>How each model fares with its edits</h1>
<p>${escape(`${stats.matched.toLocaleString("en-US")} calls recorded, ${span}, read from ${stats.files} file${stats.files === 1 ? "" : "s"} of the local record. Nothing in this page was fetched, and nothing was sent anywhere.`)}</p>
${notes.length > 0 ? `<p>${escape(notes.join(" "))}</p>` : ""}
<h2>Over time</h2>
${lineChart("success", "Edits applied at the first try, per model and day", days, success)}
${lineChart("refusals", "Edits refused, per model and day", days, refusals)}
<h2>What an edit costs</h2>
${barChart("tokens", "Tokens per successful edit (requests and results, refused attempts included), per view", stats.groups)}
<h2>Figures</h2>
${figuresTable(stats.groups)}
${advice ? `<h2>Advice</h2><ul>${advice}</ul>` : ""}
</body>
</html>
`
}

module.exports = { statsReport }
