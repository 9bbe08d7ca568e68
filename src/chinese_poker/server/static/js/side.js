// @ts-check
// The side panel of the table screen as HTML: hints, the hand's breakdown (linked to
// the marks on the boards), the ledger with its chart, the hands and the log. Pure.

import { lineChart, runningTotals } from "../chart.js";
import { html, joinHTML, raw, signClass, signed } from "./util.js";
import { describeAction, hintText, itemText, naturalName } from "./words.js";
import { lineHandName } from "./eval.js";
import { t } from "./i18n.js";
import { foulReason, pairId } from "./showdown.js";
import { handResultHTML } from "./history.js";

export function breakdownHTML(view, handNo) {
  const st = view.settlement;
  if (!st) return "";
  const bySeat = Object.fromEntries((st.players || []).map((p) => [p.name, p]));
  const hand = (seat, line) => {
    const p = bySeat[seat];
    const l = p && (p.lines || []).find((x) => x.line === line);
    return l ? lineHandName(l) : "";
  };
  const totals = st.totals || view.totals || {};
  const parts = [html`<div class="panel breakdown" id="breakdown"><h2>${t("breakdown.title", { n: handNo })}</h2>
    <button class="small review-this-hand" data-review-hand="${handNo}" id="review-this-hand">☑ ${t("review.this_hand")}</button>
    <div class="totals-row">${Object.entries(totals).map(([n, v]) => html`<span>${n} <b class="${signClass(v)}">${signed(v)}</b></span>`)}</div>`];
  for (const p of st.players || []) {
    const flags = [];
    if (p.fouled) flags.push(html`<span class="foul-badge">${t("badge.foul")}</span> <span class="muted">${foulReason(p)}</span>`);
    if (p.natural) flags.push(t("breakdown.natural", { natural: naturalName(p.natural.kind || p.natural) }));
    if (p.surrendered) flags.push(t("breakdown.surrendered"));
    if (p.fantasyland) flags.push(html`<span class="fl-badge">${t("breakdown.fantasyland_next", { n: p.fantasyland })}</span>`);
    if (flags.length || p.royalties) parts.push(html`<div class="muted" style="font-size:12px">${p.name}: ${p.royalties ? t("breakdown.royalties", { n: p.royalties }) : ""} ${joinHTML(flags, " ")}</div>`);
  }
  for (const pair of st.pairs || []) {
    parts.push(html`<div class="pair" id="${pairId(pair.a, pair.b)}"><div class="pair-head">${t("breakdown.pair", { a: pair.a, b: pair.b })} <span class="${signClass(pair.points)}">${signed(pair.points)}</span></div><table><tbody>`);
    for (const it of pair.items || []) {
      parts.push(html`<tr data-kind="${it.kind}"${it.line ? html` data-line="${it.line}"` : ""}><td>${itemText(pair, it, hand)}</td><td class="pts ${signClass(it.points)}">${signed(it.points)}</td></tr>`);
    }
    parts.push(html`</tbody></table></div>`);
  }
  return html`${parts}</div>`;
}

export function hintsHTML(hints) {
  return html`<div class="panel" id="hints"><h2>${t("hints.title")} <span class="muted" style="font-size:12px;font-weight:400">${t("hints.sub")}</span></h2>${hints.actions.length ? html`<ul class="hint-list">${hints.actions.slice(0, 8).map((h, i) => {
    const val = h.value ?? h.score ?? h.ev;
    const foul = typeof h.foul_probability === "number" && h.foul_probability >= 0.005 ? html` · ${t("hints.foul", { pct: (h.foul_probability * 100).toFixed(0) })}` : "";
    return html`<li title="${h.explanation || ""}"><span class="what">${h.text || hintText(h.action)}${h.explanation ? html`<br><span class="muted">${h.explanation}</span>` : ""}</span>${val !== undefined && val !== null ? html`<span class="val">${typeof val === "number" ? (val > 0 ? "+" : "") + val.toFixed(2) : val}${foul}</span>` : ""}<button class="small" data-act="use-hint" data-index="${i}">${t("hints.use")}</button></li>`;
  })}</ul>` : html`<p class="muted">${t("hints.none")}</p>`}</div>`;
}

export function ledgerHTML(lg, final) {
  const series = runningTotals(lg.players || [], lg.hands || []);
  return html`<div class="panel" id="ledger"><h2>${t("ledger.title")} ${lg.over || final ? html`<span class="chip">${t("ledger.final")}</span>` : ""}</h2>
    <table class="ledger-table"><thead><tr><th>${t("ledger.player")}</th><th>${t("ledger.points")}</th><th>${t("ledger.money")}</th>${lg.stacks ? html`<th>${t("ledger.chips")}</th>` : ""}</tr></thead><tbody>
    ${(lg.players || []).map((p) => html`<tr><td>${p}${(lg.out || []).includes(p) ? html` <span class='muted'>${t("ledger.out")}</span>` : ""}</td><td class="${signClass(lg.points[p])}">${signed(lg.points[p] || 0)}</td><td>${lg.money ? (lg.money[p] ?? 0).toFixed(2) : ""}</td>${lg.stacks ? html`<td>${lg.stacks[p] ?? ""}</td>` : ""}</tr>`)}
    </tbody></table>
    <p class="muted" style="font-size:12px;margin:6px 0 2px">${t("ledger.hands_played", { n: lg.hands_played || 0 })}</p>
    ${(lg.hands || []).length ? raw(lineChart(series, { label: t("ledger.chart"), point: (name, i, v) => t("chart.point", { name, hand: i, value: v }) })) : ""}
  </div>`;
}

export function handsHTML(tableId, hands, ledger = null, me = null) {
  const results = (ledger && ledger.hands) || []; // each hand's points (history.handResultHTML)
  const finished = (hands || []).filter((h) => h.finished);
  if (!finished.length) return "";
  const base = `/api/tables/${encodeURIComponent(tableId)}/history`;
  return html`<div class="panel" id="hands"><h2>${t("hands.title")} <a href="${base}" download="${tableId}-history.jsonl" id="download-all"><button class="small" type="button">⬇ ${t("hands.all")}</button></a></h2>
    <ul class="hands-list">${finished.map((h) => html`<li><span>${t("hands.hand", { n: h.hand })}</span>${handResultHTML(results.find((r) => r.hand === h.hand), me)}<button class="small" data-act="replay" data-hand="${h.hand}">▶ ${t("hands.replay")}</button><button class="small" data-review-hand="${h.hand}" data-table="${tableId}">☑ ${t("review.button")}</button><a href="${base}?hand=${h.hand}" download="${tableId}-hand-${h.hand}.jsonl"><button class="small" type="button">⬇</button></a></li>`)}</ul></div>`;
}

export function logHTML(log, players) {
  if (!log.length) return "";
  return html`<div class="panel" id="log-panel"><h2 id="log-title">${t("log.title")}</h2><ol class="log" id="log" tabindex="0" aria-labelledby="log-title">${log.map((a) => html`<li>${describeAction(a, players)}</li>`)}</ol></div>`;
}
