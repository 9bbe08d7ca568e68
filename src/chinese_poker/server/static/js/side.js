// @ts-check
// The side panel of the table screen as HTML: hints, the hand's breakdown (linked to
// the marks on the boards), the ledger with its chart, the hands and the log. Pure.

import { lineChart, runningTotals } from "../chart.js";
import { esc, signClass, signed } from "./util.js";
import { describeAction, hintText, itemText, naturalName } from "./words.js";
import { lineHandName } from "./eval.js";
import { t } from "./i18n.js";
import { foulReason, pairId } from "./showdown.js";

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
  let html = `<div class="panel breakdown" id="breakdown"><h2>${esc(t("breakdown.title", { n: handNo }))}</h2>
    <button class="small review-this-hand" data-review-hand="${handNo}" id="review-this-hand">☑ ${esc(t("review.this_hand"))}</button>
    <div class="totals-row">${Object.entries(totals).map(([n, v]) => `<span>${esc(n)} <b class="${signClass(v)}">${signed(v)}</b></span>`).join("")}</div>`;
  for (const p of st.players || []) {
    const flags = [];
    if (p.fouled) flags.push(`<span class="foul-badge">${esc(t("badge.foul"))}</span> <span class="muted">${esc(foulReason(p))}</span>`);
    if (p.natural) flags.push(esc(t("breakdown.natural", { natural: naturalName(p.natural.kind || p.natural) })));
    if (p.surrendered) flags.push(esc(t("breakdown.surrendered")));
    if (p.fantasyland) flags.push(`<span class="fl-badge">${esc(t("breakdown.fantasyland_next", { n: p.fantasyland }))}</span>`);
    if (flags.length || p.royalties) html += `<div class="muted" style="font-size:12px">${esc(p.name)}: ${p.royalties ? esc(t("breakdown.royalties", { n: p.royalties })) : ""} ${flags.join(" ")}</div>`;
  }
  for (const pair of st.pairs || []) {
    html += `<div class="pair" id="${pairId(pair.a, pair.b)}"><div class="pair-head">${esc(t("breakdown.pair", { a: pair.a, b: pair.b }))} <span class="${signClass(pair.points)}">${signed(pair.points)}</span></div><table><tbody>`;
    for (const it of pair.items || []) {
      html += `<tr data-kind="${esc(it.kind)}"${it.line ? ` data-line="${esc(it.line)}"` : ""}><td>${esc(itemText(pair, it, hand))}</td><td class="pts ${signClass(it.points)}">${signed(it.points)}</td></tr>`;
    }
    html += `</tbody></table></div>`;
  }
  return html + `</div>`;
}

export function hintsHTML(hints) {
  return `<div class="panel" id="hints"><h2>${esc(t("hints.title"))} <span class="muted" style="font-size:12px;font-weight:400">${esc(t("hints.sub"))}</span></h2>${hints.actions.length ? `<ul class="hint-list">${hints.actions.slice(0, 8).map((h, i) => {
    const val = h.value ?? h.score ?? h.ev;
    const foul = typeof h.foul_probability === "number" && h.foul_probability >= 0.005 ? ` · ${esc(t("hints.foul", { pct: (h.foul_probability * 100).toFixed(0) }))}` : "";
    return `<li title="${esc(h.explanation || "")}"><span class="what">${esc(h.text || hintText(h.action))}${h.explanation ? `<br><span class="muted">${esc(h.explanation)}</span>` : ""}</span>${val !== undefined && val !== null ? `<span class="val">${typeof val === "number" ? (val > 0 ? "+" : "") + val.toFixed(2) : esc(val)}${foul}</span>` : ""}<button class="small" data-act="use-hint" data-index="${i}">${esc(t("hints.use"))}</button></li>`;
  }).join("")}</ul>` : `<p class="muted">${esc(t("hints.none"))}</p>`}</div>`;
}

export function ledgerHTML(lg, final) {
  const series = runningTotals(lg.players || [], lg.hands || []);
  return `<div class="panel" id="ledger"><h2>${esc(t("ledger.title"))} ${lg.over || final ? `<span class="chip">${esc(t("ledger.final"))}</span>` : ""}</h2>
    <table class="ledger-table"><thead><tr><th>${esc(t("ledger.player"))}</th><th>${esc(t("ledger.points"))}</th><th>${esc(t("ledger.money"))}</th>${lg.stacks ? `<th>${esc(t("ledger.chips"))}</th>` : ""}</tr></thead><tbody>
    ${(lg.players || []).map((p) => `<tr><td>${esc(p)}${(lg.out || []).includes(p) ? ` <span class='muted'>${esc(t("ledger.out"))}</span>` : ""}</td><td class="${signClass(lg.points[p])}">${signed(lg.points[p] || 0)}</td><td>${lg.money ? (lg.money[p] ?? 0).toFixed(2) : ""}</td>${lg.stacks ? `<td>${lg.stacks[p] ?? ""}</td>` : ""}</tr>`).join("")}
    </tbody></table>
    <p class="muted" style="font-size:12px;margin:6px 0 2px">${esc(t("ledger.hands_played", { n: lg.hands_played || 0 }))}</p>
    ${(lg.hands || []).length ? lineChart(series, { label: t("ledger.chart"), point: (name, i, v) => t("chart.point", { name, hand: i, value: v }) }) : ""}
  </div>`;
}

export function handsHTML(tableId, hands) {
  const finished = (hands || []).filter((h) => h.finished);
  if (!finished.length) return "";
  const base = `/api/tables/${encodeURIComponent(tableId)}/history`;
  return `<div class="panel" id="hands"><h2>${esc(t("hands.title"))} <a href="${base}" download="${esc(tableId)}-history.jsonl" id="download-all"><button class="small" type="button">⬇ ${esc(t("hands.all"))}</button></a></h2>
    <ul class="hands-list">${finished.map((h) => `<li><span>${esc(t("hands.hand", { n: h.hand }))}</span><button class="small" data-act="replay" data-hand="${h.hand}">▶ ${esc(t("hands.replay"))}</button><button class="small" data-review-hand="${h.hand}" data-table="${esc(tableId)}">☑ ${esc(t("review.button"))}</button><a href="${base}?hand=${h.hand}" download="${esc(tableId)}-hand-${h.hand}.jsonl"><button class="small" type="button">⬇</button></a></li>`).join("")}</ul></div>`;
}

export function logHTML(log, players) {
  if (!log.length) return "";
  return `<div class="panel" id="log-panel"><h2>${esc(t("log.title"))}</h2><ol class="log" id="log">${log.map((a) => `<li>${esc(describeAction(a, players))}</li>`).join("")}</ol></div>`;
}
