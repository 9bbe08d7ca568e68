// @ts-check
// A hand's history record (docs/hand-history.md) as replay steps. Pure.

import { LINES, SIZES } from "./eval.js";
import { cardHTML, html, signClass, signed, slotHTML } from "./util.js";
import { describeAction, lineName } from "./words.js";
import { t } from "./i18n.js";

/**
 * One hand's result in the hands list: this player's points first ("you"), then each
 * other seat's, from the ledger's per-hand totals (LedgerInfo.hands); "" when the ledger
 * does not have the hand yet.
 * @param {{hand: number, totals: Object<string, number>} | undefined} entry
 * @param {string | null} me
 */
export function handResultHTML(entry, me = null) {
  if (!entry || !entry.totals) return "";
  const names = Object.keys(entry.totals);
  const order = me && names.includes(me) ? [me, ...names.filter((n) => n !== me)] : names;
  const parts = order.map((n) => html`<span class="hand-points${n === me ? " me" : ""}" data-player="${n}">${n === me ? t("review.you") : n} <b class="${signClass(entry.totals[n])}">${signed(entry.totals[n])}</b></span>`);
  return html`<span class="hand-result">${parts}</span>`;
}

export function parseHistory(text) {
  return text.split("\n").map((l) => l.trim()).filter(Boolean).map((l) => JSON.parse(l));
}

/** Hands per seat of a record: the engine writes one final board per hand played
 * (docs/hand-history.md, "boards"), two a seat in Criss Cross. */
export function handsPerSeat(rec) {
  const boards = Object.keys(rec.boards || {}).length;
  return rec.players.length && boards > rec.players.length ? Math.round(boards / rec.players.length) : 1;
}

export function replaySteps(rec) {
  const players = rec.players;
  const boards = {};
  const keyOf = (seat, hand) => `${seat}/${hand || 0}`;
  const hands = handsPerSeat(rec);
  for (let s = 0; s < players.length; s++) {
    for (let h = 0; h < hands; h++) boards[keyOf(s, h)] = { seat: s, hand: h, player: players[s], top: [], middle: [], bottom: [], discard: [], notes: [] };
  }
  const clone = () => JSON.parse(JSON.stringify(boards));
  const fl = Object.keys(rec.fantasyland || {});
  const steps = [{ text: t("replay.dealt", { button: players[rec.button] }) + (fl.length ? ` ${t("replay.dealt_fl", { players: fl.join(", ") })}` : ""), boards: clone() }];
  for (const a of rec.actions || []) {
    const b = boards[keyOf(a.seat, a.hand)];
    if (b && a.type === "place") {
      for (const line of LINES) b[line].push(...(a[line] || []));
      b.discard.push(...(a.discard || []));
    } else if (b && a.type === "surrender") b.notes.push(a.surrender ? t("breakdown.surrendered") : t("log.plays"));
    else if (b && a.type === "claim_natural") b.notes.push(a.claim ? t("replay.natural_declared") : t("log.plays_board"));
    else if (b && a.type === "timeout") b.notes.push(t("replay.timed_out"));
    steps.push({ text: describeAction(a, players), boards: clone() });
  }
  const totals = rec.totals || {};
  steps.push({ text: t("replay.showdown", { totals: Object.entries(totals).map(([n, v]) => `${n} ${signed(v)}`).join(", ") }), boards: clone(), final: true });
  return steps;
}

export function replayBoardsHTML(step, rec) {
  return html`${Object.values(step.boards).map((b) => {
    const name = handsPerSeat(rec) > 1 ? `${b.player} / ${t("board.hand_n", { n: b.hand + 1 })}` : b.player;
    const total = step.final && b.hand === 0 && rec.totals ? rec.totals[b.player] : undefined;
    const rows = LINES.map((line) => {
      const cards = [b[line].map((c) => cardHTML(c)), Array.from({ length: Math.max(0, SIZES[line] - b[line].length) }, slotHTML)];
      return html`<div class="line-row"><span class="line-label">${lineName(line)}</span><div class="cards">${cards}</div></div>`;
    });
    return html`<div class="board-box"><div class="board-head"><span class="name">${name}</span>${rec.players[rec.button] === b.player ? html`<span class="button-chip">${t("board.button")}</span>` : ""}${total !== undefined ? html`<b class="${signClass(total)}">${signed(total)}</b>` : ""}${b.notes.length ? html`<span class="chip">${b.notes.join(", ")}</span>` : ""}</div>${rows}${b.discard.length ? html`<div class="muted" style="font-size:12px">${t("replay.discarded", { cards: b.discard.join(" ") })}</div>` : ""}</div>`;
  })}`;
}
