// @ts-check
// A small SVG scatter plot: one series per format and applier, its points
// joined in order (here: the mistake rates, low to high).

/**
 * @typedef {{ label: string, points: Array<{ x: number, y: number, tag?: string }> }} Series
 * @param {{ title: string, xLabel: string, yLabel: string, series: Series[], logX?: boolean }} spec
 */
export function scatterSvg({ title, xLabel, yLabel, series, logX = true }) {
  const W = 880
  const H = 560
  const m = { left: 70, right: 290, top: 40, bottom: 56 }
  const pw = W - m.left - m.right
  const ph = H - m.top - m.bottom
  const xs = series.flatMap((s) => s.points.map((p) => p.x))
  const ys = series.flatMap((s) => s.points.map((p) => p.y))
  const fx = logX ? Math.log10 : (/** @type {number} */ v) => v
  let x0 = fx(Math.min(...xs))
  let x1 = fx(Math.max(...xs))
  if (logX) {
    x0 = Math.floor(x0 * 4) / 4
    x1 = Math.ceil(x1 * 4) / 4
  }
  if (x1 === x0) x1 = x0 + 1
  const yTop = niceCeil(Math.max(1, ...ys))
  const X = (/** @type {number} */ v) => m.left + ((fx(v) - x0) / (x1 - x0)) * pw
  const Y = (/** @type {number} */ v) => m.top + ph - (v / yTop) * ph
  const colors = ['#d62728', '#ff9896', '#1f77b4', '#17becf', '#aec7e8', '#2ca02c', '#98df8a', '#bcbd22', '#9467bd', '#c5b0d5', '#7f7f7f', '#8c564b']
  const esc = (/** @type {string} */ s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${m.left + pw / 2}" y="22" text-anchor="middle" font-size="15">${esc(title)}</text>`,
  ]
  for (let i = 0; i <= 5; i++) {
    const v = (yTop * i) / 5
    out.push(`<line x1="${m.left}" x2="${m.left + pw}" y1="${Y(v)}" y2="${Y(v)}" stroke="#eee"/>`)
    out.push(`<text x="${m.left - 6}" y="${Y(v) + 4}" text-anchor="end">${fmt(v)}</text>`)
  }
  const ticks = logX ? logTicks(10 ** x0, 10 ** x1) : [x0, (x0 + x1) / 2, x1]
  for (const t of ticks) {
    out.push(`<line x1="${X(t)}" x2="${X(t)}" y1="${m.top}" y2="${m.top + ph}" stroke="#eee"/>`)
    out.push(`<text x="${X(t)}" y="${m.top + ph + 16}" text-anchor="middle">${fmt(t)}</text>`)
  }
  out.push(`<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`)
  out.push(`<text x="${m.left + pw / 2}" y="${H - 14}" text-anchor="middle">${esc(xLabel)}</text>`)
  out.push(`<text transform="translate(18 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`)
  series.forEach((s, i) => {
    const c = colors[i % colors.length]
    const pts = s.points.map((p) => `${X(p.x).toFixed(1)},${Y(p.y).toFixed(1)}`).join(' ')
    out.push(`<polyline points="${pts}" fill="none" stroke="${c}" stroke-width="1.5"/>`)
    for (const p of s.points) out.push(`<circle cx="${X(p.x).toFixed(1)}" cy="${Y(p.y).toFixed(1)}" r="3.5" fill="${c}"><title>${esc(`${s.label} ${p.tag ?? ''}: ${fmt(p.x)} tokens, ${fmt(p.y)}% silent`)}</title></circle>`)
    const ly = m.top + 8 + i * 18
    out.push(`<line x1="${W - m.right + 16}" x2="${W - m.right + 36}" y1="${ly}" y2="${ly}" stroke="${c}" stroke-width="3"/>`)
    out.push(`<text x="${W - m.right + 42}" y="${ly + 4}">${esc(s.label)}</text>`)
  })
  out.push('</svg>')
  return out.join('\n') + '\n'
}

function niceCeil(/** @type {number} */ v) {
  const p = 10 ** Math.floor(Math.log10(v))
  for (const k of [1, 2, 2.5, 5, 10]) if (k * p >= v) return k * p
  return 10 * p
}

function logTicks(/** @type {number} */ lo, /** @type {number} */ hi) {
  const out = []
  for (let p = 10 ** Math.floor(Math.log10(lo)); p <= hi; p *= 10) for (const k of [1, 2, 5]) if (k * p >= lo && k * p <= hi) out.push(k * p)
  return out
}

function fmt(/** @type {number} */ v) {
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1).replace(/\.0$/, '') : v.toFixed(2).replace(/\.?0+$/, '') || '0'
}
