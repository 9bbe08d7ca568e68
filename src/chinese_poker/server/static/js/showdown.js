// Showdown marks on the boards: per line the points it won against every opponent
// (+1/−1), royalties, fouls and scoops, each linked to its row of the breakdown panel.
// Pure: reads the settlement of the view (engine's Settlement.to_dict()).

import { LINES } from "./eval.js";
import { esc, signed, signClass } from "./util.js";

/** A stable id for the breakdown row of a pair (and the marks that point at it). */
export const pairId = (a, b) => `pair-${[a, b].map((x) => String(x).replace(/[^A-Za-z0-9_-]/g, "_")).join("-")}`;

/**
 * The marks of the board of settlement player ``name``: {lines: {top: [{vs, points,
 * pair}], ...}, royalties: {top: n, ...}, fouled, foulReason, scoops: [{vs, points,
 * pair}]}, or null when the settlement has no such player.
 */
export function marksFor(settlement, name) {
  if (!settlement || !settlement.players) return null;
  const me = settlement.players.find((p) => p.name === name);
  if (!me) return null;
  const out = { lines: { top: [], middle: [], bottom: [] }, royalties: {}, fouled: !!me.fouled, foulReason: me.foul_reason || "", scoops: [] };
  for (const l of me.lines || []) out.royalties[l.line] = l.royalty || 0;
  for (const pair of settlement.pairs || []) {
    let sign = 0;
    if (pair.a === name) sign = 1;
    else if (pair.b === name) sign = -1;
    if (!sign) continue;
    const vs = sign > 0 ? pair.b : pair.a;
    const id = pairId(pair.a, pair.b);
    for (const it of pair.items || []) {
      if (it.kind === "line" && LINES.includes(it.line)) out.lines[it.line].push({ vs, points: sign * it.points, pair: id });
      else if (it.kind === "scoop") out.scoops.push({ vs, points: sign * it.points, pair: id });
    }
  }
  return out;
}

/** The marks beside one line (after the showdown). */
export function lineMarksHTML(marks, line) {
  if (!marks) return "";
  const parts = [];
  if (marks.fouled) parts.push(`<span class="mark foul" title="${esc(marks.foulReason)}">foul</span>`);
  for (const m of marks.lines[line]) {
    parts.push(`<a class="mark ${signClass(m.points)}" href="#${m.pair}" data-pair="${m.pair}" title="${esc(line)} against ${esc(m.vs)}">${m.points === 0 ? "=" : signed(m.points)}</a>`);
  }
  const roy = marks.royalties[line];
  if (roy && !marks.fouled) parts.push(`<span class="mark roy" title="royalty">★+${roy}</span>`);
  return `<span class="marks" data-marks="${line}">${parts.join("")}</span>`;
}

/** Scoop marks for the head of a board. */
export function scoopMarksHTML(marks) {
  if (!marks || !marks.scoops.length) return "";
  return marks.scoops.map((s) => `<a class="mark scoop ${signClass(s.points)}" href="#${s.pair}" data-pair="${s.pair}" title="scoop against ${esc(s.vs)}">${s.points > 0 ? "SCOOP" : "scooped"} ${signed(s.points)}</a>`).join("");
}
