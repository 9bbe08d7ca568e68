// @ts-check
// Showdown marks on the boards: per line the points it won against every opponent
// (+1/−1), royalties, fouls and scoops, each linked to its row of the breakdown panel.
// Pure: reads the settlement of the view (engine's Settlement.to_dict()).

import { LINES, lineHandName, rankWord } from "./eval.js";
import { html, signed, signClass } from "./util.js";
import { language, t } from "./i18n.js";
import { lineName } from "./words.js";

/**
 * A fouled seat's reason in the current language, from the reason's data (``p.foul``,
 * scoring.FoulReason: which line beats which, or the low middle's ceiling); the lines'
 * hands are named here. English, or a settlement without the data, shows the sentence.
 */
export function foulReason(p) {
  const reason = p.foul_reason || "";
  const foul = p.foul;  // the reason as data (scoring.FoulReason): never parse the English
  if (language() === "en" || !foul) return reason;
  const line = (n) => (p.lines || []).find((l) => l.line === n);
  if (foul.kind === "beats" && line(foul.line) && line(foul.below)) return t("foul.beats", { line: lineName(foul.line), hand: lineHandName(line(foul.line)), below: lineName(foul.below), hand2: lineHandName(line(foul.below)) });
  if (foul.kind === "low_middle") return t("foul.low_middle", { rank: rankWord(foul.ceiling) });
  return reason;
}

/** A stable id for the breakdown row of a pair (and the marks that point at it). */
export const pairId = (a, b) => `pair-${[a, b].map((x) => String(x).replace(/[^A-Za-z0-9_-]/g, "_")).join("-")}`;

/**
 * The shortest start of each name that tells it from the others' (1 to 3 letters; the
 * whole name when even 3 do not): the opponents' labels on a phone.
 * @param {string[]} names
 */
export function shortNames(names) {
  const out = {};
  for (const name of names) {
    const letters = [...name];
    let n = 1;
    while (n < 3 && names.some((o) => o !== name && [...o].slice(0, n).join("") === letters.slice(0, n).join(""))) n++;
    const short = letters.slice(0, n).join("");
    out[name] = names.some((o) => o !== name && [...o].slice(0, n).join("") === short) ? name : short;
  }
  return out;
}

/**
 * The marks of the board of settlement player ``name``: {lines: {top: [{vs, points,
 * pair}], ...}, royalties: {top: n, ...}, fouled, foulReason, scoops: [{vs, points,
 * pair}]}, or null when the settlement has no such player.
 */
export function marksFor(settlement, name) {
  if (!settlement || !settlement.players) return null;
  const me = settlement.players.find((p) => p.name === name);
  if (!me) return null;
  const out = { lines: { top: [], middle: [], bottom: [] }, royalties: {}, fouled: !!me.fouled, foulReason: foulReason(me), scoops: [] };
  for (const l of me.lines || []) out.royalties[l.line] = l.royalty || 0;
  // With two opponents or more, each line's mark names the opponent it is against.
  const vs = settlement.players.map((p) => p.name).filter((n) => n !== name);
  out.named = vs.length > 1;
  out.short = shortNames(vs);
  for (const pair of settlement.pairs || []) {
    let sign = 0;
    if (pair.a === name) sign = 1;
    else if (pair.b === name) sign = -1;
    if (!sign) continue;
    const vs = sign > 0 ? pair.b : pair.a;
    const id = pairId(pair.a, pair.b);
    if (!out.pair) out.pair = id;
    for (const it of pair.items || []) {
      if (it.kind === "line" && LINES.includes(it.line)) out.lines[it.line].push({ vs, points: sign * it.points, pair: id });
      else if (it.kind === "scoop") out.scoops.push({ vs, points: sign * it.points, pair: id });
      else if (it.kind === "foul") out.scoops.push({ vs, points: sign * it.points, pair: id, foul: true });
    }
  }
  return out;
}

/** The marks beside one line (after the showdown). */
export function lineMarksHTML(marks, line) {
  if (!marks) return "";
  const parts = [];
  if (marks.fouled) parts.push(html`<a class="mark foul" href="#${marks.pair || ""}" data-pair="${marks.pair || ""}" title="${marks.foulReason}">${t("mark.foul")}</a>`);
  for (const m of marks.lines[line]) {
    // Multi-way: the opponent's name before the points (its first letters on a phone).
    const who = marks.named ? html`<span class="vs"><span class="vs-long">${m.vs}</span><span class="vs-short">${(marks.short || {})[m.vs] || m.vs}</span></span> ` : "";
    parts.push(html`<a class="mark ${signClass(m.points)}" href="#${m.pair}" data-pair="${m.pair}" data-vs="${m.vs}" title="${t("mark.line_against", { line: lineName(line), vs: m.vs })}">${who}${m.points === 0 ? "=" : signed(m.points)}</a>`);
  }
  const roy = marks.royalties[line];
  if (roy && !marks.fouled) parts.push(html`<span class="mark roy" title="${t("mark.royalty")}">★+${roy}</span>`);
  return html`<span class="marks" data-marks="${line}">${parts}</span>`;
}

/** Scoop marks for the head of a board. */
export function scoopMarksHTML(marks) {
  if (!marks || !marks.scoops.length) return "";
  // Both fouled: nothing changes hands, and the foul mark already says it (no "fouled 0").
  return html`${marks.scoops.filter((s) => !(s.foul && s.points === 0)).map((s) => html`<a class="mark scoop ${signClass(s.points)}" href="#${s.pair}" data-pair="${s.pair}" title="${t(s.foul ? "mark.foul_against" : "mark.scoop_against", { vs: s.vs })}">${s.foul ? (s.points > 0 ? t("mark.they_fouled", { vs: s.vs }) : t("mark.fouled")) : s.points > 0 ? t("mark.scoop") : t("mark.scooped")} ${signed(s.points)}</a>`)}`;
}
