// @ts-check
// The table screen's markup, pure (the table state T in, html`` out, no DOM): the head,
// the waiting room, the felt with the boards, the side panel. tablepage.js writes it into
// the page (tablestate.js holds T, table.js joins the parts).

import { deadEndHTML } from "./ui.js";
import { html } from "./util.js";
import { gameName } from "./words.js";
import { boardBox, leaveHTML, myAreaHTML, sessionOverHTML } from "./board.js";
import { breakdownHTML, handsHTML, hintsHTML, ledgerHTML, logHTML } from "./side.js";
import { decision } from "./staging.js";
import { t } from "./i18n.js";
import { othersHoldText } from "./tablehold.js";

const PHASE_KEYS = { play: "phase.play", naturals: "phase.naturals", surrender: "phase.surrender", showdown: "phase.showdown" };

function headHTML(T) {
  const info = T.info || {};
  const view = T.view;
  const chips = [];
  chips.push(html`<span class="chip">${gameName(info.preset || "")}</span>`);
  if (info.mode === "tournament") chips.push(html`<span class="chip">${t("table.tournament")}</span>`);
  if (T.hand) chips.push(html`<span class="chip" id="hand-no">${t("hands.hand", { n: T.hand })}</span>`);
  if (view && view.street) chips.push(html`<span class="chip">${t("table.street", { n: view.street })}</span>`);
  if (view) chips.push(html`<span class="chip" id="phase" data-phase="${view.phase}">${PHASE_KEYS[view.phase] ? t(PHASE_KEYS[view.phase]) : view.phase}</span>`);
  if (view && view.phase !== "showdown" && T.role === "seat") {
    if ((view.to_act || []).includes(T.seat)) chips.push(html`<span class="chip turn" id="your-turn">${t("table.your_turn")}</span>`);
    else if ((view.to_act || []).length) chips.push(html`<span class="chip" id="whose-turn">${t("table.waiting_for", { who: view.to_act.map((s) => view.players[s]).join(", ") })}</span>`);
  }
  if (T.role === "spectator") chips.push(html`<span class="chip">${t("table.spectating")}</span>`);
  // The turn sound is the player's to choose (off until turned on; kept in this browser).
  if (T.role === "seat") chips.push(html`<button type="button" class="small sound-toggle" data-act="sound" id="sound-btn" aria-pressed="${T.sound ? "true" : "false"}" title="${t("turn.sound_help")}"><span class="icon" aria-hidden="true">♪</span><span class="label"> ${t("turn.sound")}</span></button>`);
  chips.push(leaveHTML(T));
  return html`<div class="table-head"><a href="/" data-link>← ${t("zone.lobby")}</a><span class="title">${info.name || t("table.table")}</span>${chips}</div>`;
}

function waitingHTML(T, me) {
  const info = T.info;
  if (!info) return html`<p class="muted">${t("table.connecting")}</p>`;
  const free = info.seats.filter((s) => !s.taken).length;
  return html`<div class="felt"><div class="panel" id="waiting-room"><h2>${t("table.waiting_players")}</h2>
    <p>${free ? t("table.seats_free", { n: free }) : t("table.all_taken_dealing")}</p>
    <ul>${info.seats.map((s) => html`<li>${t("table.seat_n", { n: s.seat + 1 })} ${s.taken ? html`<b>${s.name}</b>${s.kind === "bot" ? t("table.is_bot") : s.connected ? t("table.online") : t("table.offline")}` : html`<i>${t("table.free")}</i>`}</li>`)}</ul>
    ${me.invite_url ? html`<p>${t("table.send_link")}</p><div class="invite"><input type="text" readonly id="invite-url" value="${me.invite_url}" aria-label="${t("lobby.invite_link")}"><button type="button" data-act="copy-invite" id="copy-invite">${t("common.copy")}</button></div>` : ""}
  </div></div>`;
}

function seatControlsHTML(T, me) {
  // The table's creator may hand an absent player's seat to a bot at once.
  if (!me.creator || !T.info || T.sessionOver) return html``;
  const away = T.info.seats.filter((s) => s.kind === "human" && s.taken && !s.connected && !s.stand_in && s.seat !== me.seat);
  if (!away.length) return html``;
  return html`<div class="panel" id="seat-controls">${away.map((s) => html`<div>${t("table.has_left", { player: s.name })} <button class="small danger" data-act="kick" data-chair="${s.seat}">${t("table.let_bot", { player: s.name })}</button></div>`)}</div>`;
}

/**
 * The main column: the head and, by the table's state, the way out of a closed table,
 * the waiting room, or the felt (the others' boards, notices, this player's area).
 * `me` is this browser's seat of the table (net.getSeat), or {}.
 */
export function tableMainHTML(T, { tableId, me, touch }) {
  const view = T.view;
  if (T.closed && (T.closed.final || !view)) {
    return html`${headHTML(T)}${T.closed.final ? deadEndHTML(T.closed.text, T.closed.ways, tableId) : html`<p class="muted">${t("table.connecting")}</p>`}`;
  }
  if (!view) return html`${headHTML(T)}${waitingHTML(T, me)}`;
  const others = view.boards.filter((b) => T.role !== "seat" || b.seat !== T.seat);
  const n = view.players.length;
  const base = T.role === "seat" ? T.seat : -1;
  others.sort((a, b) => ((a.seat - base + n) % n) - ((b.seat - base + n) % n) || a.hand - b.hand);
  const notice = T.notice ? html`<div class="notice ${T.notice.mine ? "mine" : ""}" id="${T.notice.kind === "timeout" && T.notice.mine ? "timeout-notice" : "notice"}" role="status">${T.notice.text}</div>` : "";
  // Who the table waits for (reading the last hand); tablepage.js ticks the seconds.
  const waits = othersHoldText(T, T.now);
  const held = waits ? html`<div class="notice hold" id="hold-others">${waits}</div>` : "";
  return html`${headHTML(T)}<div class="felt">
        <div class="opponents n${others.length}" id="opponents">${others.map((b) => boardBox(T, b))}</div>
        ${notice}${held}${seatControlsHTML(T, me)}
        ${T.role === "seat" ? html`<div class="my-area" id="my-area">${myAreaHTML(T, { touch })}</div>` : T.sessionOver ? sessionOverHTML(T) : ""}
      </div>`;
}

/** The side panel: hints, the hand's breakdown, the ledger, the hands, `fair` (the
 * fair-deal panel's markup) and the log. */
export function tableSideHTML(T, { tableId, fair }) {
  const parts = [];
  const view = T.view;
  if (T.hints && T.role === "seat" && decision(T)) parts.push(hintsHTML(T.hints));
  const sd = view && view.phase === "showdown" ? { hand: T.hand, view } : T.lastShowdown;
  if (sd && sd.view.settlement) parts.push(breakdownHTML(sd.view, sd.hand));
  if (T.ledger) parts.push(ledgerHTML(T.ledger, T.sessionOver));
  parts.push(handsHTML(tableId, T.hands, T.ledger, T.role === "seat" && view ? view.player : null));
  parts.push(fair);
  if (view) parts.push(logHTML(T.log, view.players));
  return html`${parts}`;
}
