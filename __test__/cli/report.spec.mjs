// @ts-check
/// <reference lib="dom" />
// `hashline stats --html` and `hashline/report`: one self-contained page
// whose plots are drawn from the record, checked as text (a mark per day
// and model, labels escaped, nothing it could fetch) and in a real browser
// (Chromium from the npm registry, driven by playwright-core): the plots
// have size and colour on screen, and the page asks for nothing beyond
// its own file.
import test from "ava"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { createRequire } from "node:module"
import * as helpers from "../helpers.mjs"

const { binding, scratch } = helpers
const require = createRequire(import.meta.url)
const { statsReport } = /** @type {typeof import("../../lib/report.cjs")} */ (require("../../lib/report.cjs"))
const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "cli", "hashline.cjs")
const DAY = 86_400_000
// A model name a page must show as text, never run.
const HOSTILE = `<img src=x onerror="alert(1)">&model`

/**
 * A record of edits by three models over three days: real calls through the
 * binding, each day's dated back by whole days (the reader takes any time
 * in range), with refusals (a ref no line has) and views that differ.
 * @param {import("ava").ExecutionContext} t
 */
function record(t) {
  const root = scratch(t)
  const dir = path.join(scratch(t), "telemetry")
  const plan = [
    { model: "steady-model", host: "pi", view: "lean", days: [2, 1, 0], refusedEvery: 0 },
    { model: "typo-model", host: "opencode", view: "lean", days: [2, 0], refusedEvery: 3 },
    { model: HOSTILE, host: "mcp:an-editor", view: "full", days: [1], refusedEvery: 2 },
  ]
  const lines = []
  for (const [k, p] of plan.entries()) {
    for (const ago of p.days) {
      const part = path.join(scratch(t), "part")
      const file = `f${k}.txt`
      fs.writeFileSync(path.join(root, file), "first\n")
      const hl = new binding.Hashline({ root, telemetryDir: part, host: p.host, model: p.model, view: /** @type {"lean" | "full"} */ (p.view) })
      for (let i = 0; i < 6; i++) {
        const ref = /** @type {Record<number, string>} */ (helpers.refsOf(hl.read(file).text))[1]
        try {
          hl.edit(file, { operations: [{ op: "insert_after", ref: p.refusedEvery > 0 && i % p.refusedEvery === 0 ? "1qq" : ref, content: `line ${i}` }] })
        } catch {
          // A refusal: recorded.
        }
      }
      for (const r of helpers.recorded(part)) lines.push(JSON.stringify({ ...r, at: r.at - ago * DAY }))
    }
  }
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, "telemetry.jsonl"), `${lines.join("\n")}\n`)
  return dir
}

/**
 * The points the record has for a chart: the (day, model, host) with
 * first tries (success) or edits (refusals).
 * @param {import("../../index.js").TelemetryStats} stats
 */
function pointsOf(stats) {
  return {
    success: stats.days.filter((d) => d.edits.firstTries > 0).length,
    refusals: stats.days.filter((d) => d.edits.attempts > 0).length,
    bars: stats.groups.reduce((n, g) => n + (g.lean.tokensPerSuccess != null ? 1 : 0) + (g.full.tokensPerSuccess != null ? 1 : 0), 0),
  }
}

/**
 * The SVG of one chart in a page.
 * @param {string} html
 * @param {string} name
 */
function chart(html, name) {
  const m = new RegExp(`<svg data-chart="${name}"[^>]*>([\\s\\S]*?)</svg>`).exec(html)
  if (!m) throw new Error(`no chart ${name}`)
  return m[1]
}

/** @param {string} text @param {RegExp} re */
const count = (text, re) => (text.match(re) ?? []).length

test("stats --html writes one self-contained page: a mark per day and model in each plot, labels escaped, nothing it could fetch", (t) => {
  const dir = record(t)
  const out = path.join(scratch(t), "report.html")
  const run = spawnSync(process.execPath, [CLI, "stats", "--telemetry-dir", dir, "--html", out], { encoding: "utf8" })
  t.is(run.status, 0, run.stderr)
  t.regex(run.stdout, /The report with plots is in .*report\.html\./)
  const html = fs.readFileSync(out, "utf8")
  const stats = binding.telemetryStats({ dir })
  const points = pointsOf(stats)
  t.is(points.success, 6)

  // Each plot: a line and a mark per point of each model, a bar per view of each model.
  const success = chart(html, "success")
  t.is(count(success, /<circle /g), points.success)
  // A line per run of consecutive days: typo-model's two days, a day apart, are two.
  t.is(count(success, /<g data-series=/g), 3)
  t.is(count(success, /<polyline points="[\d., ]+"/g), 4)
  t.is(count(chart(html, "refusals"), /<circle /g), points.refusals)
  t.is(count(chart(html, "tokens"), /<rect /g), points.bars)
  // The refusal rates as the record has them: typo-model refused 2 of 6 a day.
  t.regex(chart(html, "refusals"), /typo-model on opencode, \d{4}-\d{2}-\d{2}: 2 of 6 edits refused/)

  // Self-contained: no script, nothing linked or fetched, a policy that allows nothing.
  t.notRegex(html, /<script|<link|<iframe|<img|https?:\/\//i)
  t.regex(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">/)
  // The hostile model name is text.
  t.false(html.includes(HOSTILE))
  t.true(html.includes("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;model"))
  // The page from the JS API is the same.
  t.is(statsReport(stats).length, html.length)
})

test("a report of an empty record says so in each plot", (t) => {
  const html = statsReport(binding.telemetryStats({ dir: path.join(scratch(t), "none") }))
  t.is(count(html, /No edits recorded in this window\./g), 2)
  t.true(html.includes("No edit landed in this window."))
})

test("stats --html to a folder that does not exist fails with the reason and writes nothing", (t) => {
  const dir = record(t)
  const out = path.join(scratch(t), "missing", "report.html")
  const run = spawnSync(process.execPath, [CLI, "stats", "--telemetry-dir", dir, "--html", out], { encoding: "utf8" })
  t.not(run.status, 0)
  t.regex(run.stderr, /report\.html/)
  t.false(fs.existsSync(out))
})

/**
 * Chromium from the registry package, unpacked into `dir`, launched by
 * playwright-core; or why it cannot start on this machine.
 * @param {string} dir
 * @returns {Promise<{ browser: import("playwright-core").Browser } | { unavailable: string }>}
 */
async function launch(dir) {
  // The package carries one build: Linux on x86-64.
  if (process.platform !== "linux" || process.arch !== "x64") return { unavailable: `the registry's Chromium (@sparticuz/chromium) is built for Linux x86-64 only, not ${process.platform} ${process.arch}` }
  const { default: chromium } = await import("@sparticuz/chromium")
  const { chromium: playwright } = await import("playwright-core")
  // It unpacks into the system's temporary folder and takes whatever is
  // there already: a private one keeps other runs' copies out.
  const before = process.env.TMPDIR
  process.env.TMPDIR = dir
  let executablePath
  try {
    executablePath = await chromium.executablePath()
  } finally {
    if (before === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = before
  }
  // The package's own fontconfig file names folders of its own platform.
  const fontconfig = path.join(dir, "fontconfig")
  fs.mkdirSync(fontconfig)
  fs.writeFileSync(path.join(fontconfig, "fonts.conf"), `<?xml version="1.0"?>\n<fontconfig><dir>${path.join(dir, "fonts")}</dir><cachedir>${path.join(dir, "font-cache")}</cachedir></fontconfig>\n`)
  try {
    const browser = await playwright.launch({
      executablePath,
      headless: true,
      args: ["--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic"],
      env: { ...process.env, FONTCONFIG_PATH: fontconfig },
      timeout: 60_000,
    })
    return { browser }
  } catch (err) {
    // Shared libraries the machine lacks, a sandbox it refuses: the machine's, not the page's.
    return { unavailable: `Chromium did not start on this machine: ${err instanceof Error ? err.message.split("\n").slice(0, 4).join(" ") : String(err)}` }
  }
}

test.serial("in a real browser the report's plots draw with size and colour, and the page asks for nothing beyond its own file", async (t) => {
  t.timeout(240_000)
  const dir = record(t)
  const work = scratch(t)
  const out = path.join(work, "report.html")
  const run = spawnSync(process.execPath, [CLI, "stats", "--telemetry-dir", dir, "--html", out], { encoding: "utf8" })
  t.is(run.status, 0, run.stderr)
  const points = pointsOf(binding.telemetryStats({ dir }))

  const browserDir = fs.mkdtempSync(path.join(os.tmpdir(), "hashline-browser-"))
  t.teardown(() => fs.rmSync(browserDir, { recursive: true, force: true }))
  const started = await launch(browserDir)
  if ("unavailable" in started) {
    t.log(`SKIPPED, for a reason outside the project: ${started.unavailable}`)
    t.pass()
    return
  }
  const { browser } = started
  t.teardown(() => browser.close())
  t.log(`Chromium ${browser.version()}`)
  const context = await browser.newContext({ viewport: { width: 1000, height: 1400 } })
  /** @type {string[]} */
  const requested = []
  const url = pathToFileURL(out).href
  await context.route("**/*", (route) => {
    requested.push(route.request().url())
    return route.request().url() === url ? route.continue() : route.abort()
  })
  const page = await context.newPage()
  await page.goto(url)

  // Each plot has size on screen, and as many marks as the record has points.
  const drawn = await page.evaluate(() =>
    Array.from(document.querySelectorAll("svg[data-chart]")).map((svg) => {
      const box = svg.getBoundingClientRect()
      const marks = Array.from(svg.querySelectorAll("circle, rect")).map((m) => /** @type {SVGGraphicsElement} */ (m).getBBox())
      return {
        name: svg.getAttribute("data-chart"),
        width: box.width,
        height: box.height,
        lines: Array.from(svg.querySelectorAll("polyline")).map((l) => /** @type {SVGGraphicsElement} */ (l).getBBox().width),
        marks: marks.filter((b) => b.width > 0 && b.height > 0).length,
      }
    }),
  )
  t.deepEqual(
    drawn.map((c) => c.name),
    ["success", "refusals", "tokens"],
  )
  for (const c of drawn) {
    t.true(c.width > 300 && c.height > 100, `${c.name} is ${c.width}×${c.height}`)
  }
  t.is(drawn[0].marks, points.success)
  t.is(drawn[1].marks, points.refusals)
  t.is(drawn[2].marks, points.bars)
  // A model's line over several days is a line, not a point.
  t.true(drawn[0].lines.some((w) => w > 100), JSON.stringify(drawn[0].lines))

  // On screen: each plot's pixels hold the colours of its marks.
  for (const name of ["success", "refusals", "tokens"]) {
    const shot = await page.locator(`svg[data-chart="${name}"]`).screenshot({ path: path.join(work, `${name}.png`) })
    const scratchPage = await context.newPage()
    const coloured = await scratchPage.evaluate(async (png) => {
      const img = new Image()
      img.src = `data:image/png;base64,${png}`
      await img.decode()
      const canvas = document.createElement("canvas")
      canvas.width = img.width
      canvas.height = img.height
      const g = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"))
      g.drawImage(img, 0, 0)
      const data = g.getImageData(0, 0, img.width, img.height).data
      let n = 0
      // A pixel far from grey: a mark's colour, not the background, grid or text.
      for (let i = 0; i < data.length; i += 4) if (Math.max(data[i], data[i + 1], data[i + 2]) - Math.min(data[i], data[i + 1], data[i + 2]) > 60) n++
      return n
    }, shot.toString("base64"))
    await scratchPage.close()
    t.true(coloured > 200, `${name}: ${coloured} coloured pixels`)
  }
  const whole = path.join(work, "report.png")
  await page.screenshot({ path: whole, fullPage: true })
  t.true(fs.statSync(whole).size > 10_000)
  t.log(`screenshots in ${work}: report.png, success.png, refusals.png, tokens.png`)

  // Nothing beyond the page's own file was asked for.
  t.deepEqual([...new Set(requested)], [url])
  // The hostile model name is on screen as text.
  t.true((await page.textContent("body"))?.includes(HOSTILE))
})
