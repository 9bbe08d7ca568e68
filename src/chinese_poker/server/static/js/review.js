// @ts-check
// The review of a hand (docs/review.md): each decision next to the hint engine's best
// one, the expected points lost and the marks; as an overlay at the table and in the
// hand list, and as the page /review/TABLE/HAND.

import { $, toast } from "./ui.js";
import { api, getSeat } from "./net.js";
import { html, replaceHTML, setHTML } from "./util.js";
import { t } from "./i18n.js";
import { holdWhileOpen } from "./tablehold.js";

const markWord = (m) => t(`review.mark.${m}`);
/** The decision's place in the hand: "street 2", "set", "surrender", "natural". */
const labelOf = (d) => (d.kind === "street" ? t("review.street", { n: d.street }) : t(`review.kind.${d.kind}`));

export function fetchReview(tableId, hand) {
  return api("GET", `/api/tables/${encodeURIComponent(tableId)}/hands/${encodeURIComponent(hand)}/review`);
}

const pct = (x) => (x === null || x === undefined ? "–" : `${Math.round(x)}%`);

/** Each player's accuracy, points lost per hand and marks, as a table (pure). */
export function summaryHTML(summaries, me = null) {
  const rows = (summaries || []).map((s) => html`<tr data-player="${s.player}"${s.player === me ? html` class="me"` : ""}>
      <td>${s.player}${s.player === me ? html` <span class='chip'>${t("review.you")}</span>` : ""}</td><td class="accuracy">${pct(s.accuracy)}</td>
      <td>${s.loss_per_hand.toFixed(2)}</td><td>${s.marks.inaccuracy}</td><td>${s.marks.mistake}</td><td>${s.marks.blunder}</td></tr>`);
  const heads = ["player", "accuracy", "lost_per_hand", "inaccuracies", "mistakes", "blunders"].map((k) => html`<th>${t(`review.${k}`)}</th>`);
  return html`<table class="ledger-table review-summary"><thead><tr>${heads}</tr></thead><tbody>${rows}</tbody></table>`;
}

/** The review as HTML (pure: tests and both views use it). */
export function reviewHTML(review, me = null) {
  const items = (review.decisions || []).map((d) => {
    const kind = d.mark || (d.rank === 1 ? "best" : "ok");
    const mark = html`<span class="mark-badge ${kind}" data-kind="${kind}">${markWord(kind)}</span>`;
    const lost = d.loss > 0 ? html`<span class="neg">−${d.loss.toFixed(2)}</span>${d.exact ? "" : html` <span class='muted'>${t("review.at_least")}</span>`}` : html`<span class="muted">0.00</span>`;
    const best = d.rank === 1 ? "" : html`<div class="best-line"><span class="muted">${t("review.best")}</span> <code>${d.best}</code> <span class="muted">(${d.best_value >= 0 ? "+" : ""}${d.best_value.toFixed(2)})</span></div>`;
    return html`<li class="review-item${d.mark ? html` mark-${d.mark}` : ""}${d.player === me ? " me" : ""}" data-mark="${d.mark}" data-player="${d.player}">
      <div class="review-head"><b>${d.box}</b> <span class="muted">${labelOf(d)}</span> ${mark} <span class="spacer"></span> ${lost}</div>
      <div><span class="muted">${t("review.played")}</span> <code>${d.played}</code> <span class="muted">(${d.played_value >= 0 ? "+" : ""}${d.played_value.toFixed(2)})</span></div>${best}
      <div class="muted explain">${d.explanation}</div></li>`;
  });
  return html`<p class="muted" style="font-size:12px">${t("review.intro", { level: review.level })}</p>
    ${summaryHTML(review.players_summary, me)}
    <ol class="review-list">${items}</ol>`;
}

function myName(tableId) {
  const seat = getSeat(tableId) || {};
  return seat.player || null;
}

/** The overlay over the current screen. */
export async function openReview(tableId, hand) {
  const ov = document.createElement("div");
  ov.className = "overlay";
  ov.id = "review";
  setHTML(ov, html`<div class="dialog review-dialog" role="dialog" aria-label="${t("review.aria", { n: hand })}"><h2>${t("review.title", { n: hand })} <span class="spacer"></span><a href="/review/${encodeURIComponent(tableId)}/${encodeURIComponent(hand)}" data-link class="small" id="review-page-link">${t("review.page")}</a> <button id="review-close">${t("review.close")}</button></h2>
    <div id="review-body" class="muted">${t("review.loading")}</div></div>`);
  document.body.appendChild(ov);
  holdWhileOpen(tableId, hand, ov); // the hand just played: the next deal waits for the reader
  const close = () => { ov.remove(); document.removeEventListener("keydown", key, true); };
  function key(ev) { if (ev.key === "Escape") { close(); ev.stopPropagation(); } }
  document.addEventListener("keydown", key, true);
  ov.addEventListener("click", (ev) => {
    const el = /** @type {HTMLElement} */ (ev.target);
    if (el === ov || el.id === "review-close" || el.closest("#review-page-link")) close();
  });
  try {
    const review = await fetchReview(tableId, hand);
    if (ov.isConnected) replaceHTML($("#review-body", ov), html`<div id="review-body">${reviewHTML(review, myName(tableId))}</div>`);
  } catch (err) {
    if (ov.isConnected) setHTML($("#review-body", ov), html`<p class="warning">${t("review.failed", { reason: err.message })}</p>`);
  }
}

/** The page /review/TABLE/HAND. */
export function reviewPage(app, tableId, hand) {
  setHTML(app, html`<div class="panel"><h2>${t("review.title", { n: hand })} <span class="spacer"></span><a href="/?hands=${encodeURIComponent(tableId)}" data-link>${t("review.all_hands")}</a></h2><div id="review-body" class="muted">${t("review.loading")}</div></div>`);
  let alive = true;
  (async () => {
    try {
      const review = await fetchReview(tableId, hand);
      if (alive) replaceHTML($("#review-body", app), html`<div id="review-body">${reviewHTML(review, myName(tableId))}</div>`);
    } catch (err) {
      if (alive) setHTML($("#review-body", app), html`<p class="warning">${err.message}</p>`);
    }
  })();
  return { stop() { alive = false; } };
}

/** The session's figures into ``box`` (the hand list's "Review the session"). */
export async function showSessionReview(tableId, box) {
  setHTML(box, html`<p class="muted">${t("review.loading")}</p>`);
  try {
    const data = await api("GET", `/api/tables/${encodeURIComponent(tableId)}/review`);
    // The server reviews a few new hands per request; the others come on the next one.
    const pending = data.pending > 0 ? html`<p class="muted" id="review-pending">${t("review.pending", { n: data.pending })}</p>` : "";
    setHTML(box, html`<h3>${t("review.session_title", { n: data.hands.length })}</h3>${summaryHTML(data.players, myName(tableId))}${pending}`);
  } catch (err) {
    setHTML(box, html`<p class="warning">${t("review.failed", { reason: err.message })}</p>`);
  }
}

/** Buttons with data-review-hand (and data-table, else the table of the page) open the
 * overlay, wherever a screen puts them. */
export function installReviewButtons() {
  document.addEventListener("click", (ev) => {
    const target = /** @type {Element} */ (ev.target);
    const s = /** @type {HTMLElement | null} */ (target.closest("[data-session-review]"));
    if (s) {
      ev.preventDefault();
      showSessionReview(s.dataset.sessionReview, document.getElementById("session-review") || s.parentElement);
      return;
    }
    const b = /** @type {HTMLElement | null} */ (target.closest("[data-review-hand]"));
    if (!b) return;
    ev.preventDefault();
    ev.stopPropagation();
    const m = location.pathname.match(/^\/(?:table|watch)\/([^/]+)/);
    const tableId = b.dataset.table || (m && decodeURIComponent(m[1]));
    if (!tableId) { toast(t("review.which_table")); return; }
    openReview(tableId, Number(b.dataset.reviewHand));
  }, true);
}
