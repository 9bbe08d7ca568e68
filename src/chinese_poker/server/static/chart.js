// @ts-check
// A small inline SVG line chart: each player's running total after every hand.

export const PALETTE = ["#facc15", "#60a5fa", "#f472b6", "#4ade80", "#fb923c", "#c084fc"];

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * series: [{name, values: [running total after hand 1, 2, ...]}]; every series starts
 * at 0 before the first hand. Returns an HTML string (an <svg> plus a legend).
 */
export function lineChart(series, { width = 320, height = 180, label = "Running total", point = (name, i, v) => `${name} after hand ${i}: ${v}` } = {}) {
  const n = Math.max(0, ...series.map((s) => s.values.length));
  const pad = { l: 34, r: 10, t: 10, b: 22 };
  const w = width - pad.l - pad.r;
  const h = height - pad.t - pad.b;
  const all = series.flatMap((s) => s.values).concat([0]);
  let lo = Math.min(...all);
  let hi = Math.max(...all);
  if (lo === hi) { lo -= 1; hi += 1; }
  const span = hi - lo;
  lo -= span * 0.08; hi += span * 0.08;
  const x = (i) => pad.l + (n === 0 ? 0 : (i / n) * w);
  const y = (v) => pad.t + h - ((v - lo) / (hi - lo)) * h;
  const parts = [];
  parts.push(`<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(label)}" class="ledger-chart">`);
  parts.push(`<rect x="${pad.l}" y="${pad.t}" width="${w}" height="${h}" fill="#00000030" rx="4"/>`);
  // horizontal grid lines at round values; the zero line brighter
  const niceTicks = niceScale(lo, hi, 4);
  for (const t of niceTicks) {
    parts.push(`<line x1="${pad.l}" x2="${pad.l + w}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="${t === 0 ? "#ffffff80" : "#ffffff20"}" stroke-width="1"/>`);
    parts.push(`<text x="${pad.l - 4}" y="${(y(t) + 4).toFixed(1)}" fill="#a7c4b3" font-size="10" text-anchor="end">${t}</text>`);
  }
  for (let i = 0; i <= n; i++) {
    if (n > 12 && i % Math.ceil(n / 12) !== 0 && i !== n) continue;
    parts.push(`<text x="${x(i).toFixed(1)}" y="${height - 6}" fill="#a7c4b3" font-size="10" text-anchor="middle">${i}</text>`);
  }
  series.forEach((s, k) => {
    const color = PALETTE[k % PALETTE.length];
    const pts = [0, ...s.values].map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`);
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2.5" stroke-linejoin="round" points="${pts.join(" ")}" data-player="${esc(s.name)}"/>`);
    [0, ...s.values].forEach((v, i) => {
      parts.push(`<circle cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3" fill="${color}"><title>${esc(point(s.name, i, v))}</title></circle>`);
    });
  });
  parts.push("</svg>");
  const legend = series.map((s, k) => {
    const last = s.values.length ? s.values[s.values.length - 1] : 0;
    return `<span><i style="background:${PALETTE[k % PALETTE.length]}"></i>${esc(s.name)} ${last > 0 ? "+" : ""}${last}</span>`;
  }).join("");
  return `<div class="chart">${parts.join("")}<div class="legend">${legend}</div></div>`;
}

function niceScale(lo, hi, count) {
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw && Number.isInteger(s)) || Math.max(1, Math.ceil(raw));
  const out = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) out.push(Math.round(t));
  if (!out.includes(0) && lo <= 0 && hi >= 0) out.push(0);
  return [...new Set(out)];
}

/** Running totals per player from LedgerInfo.hands ([{hand, totals: {name: pts}}]). */
export function runningTotals(players, hands) {
  return players.map((name) => {
    let sum = 0;
    const values = hands.map((h) => (sum += (h.totals && h.totals[name]) || 0));
    return { name, values };
  });
}
