// @ts-check
// The boards of the table screen as HTML: opponents', the player's own (with staging),
// and the decision zone. Pure functions of the table state T and the time ``now``.

import { liveAnalysis, LINES, SIZES } from "./eval.js";
import { backHTML, cardHTML, cardKey, html, joinHTML, signClass, signed, slotHTML, textWith } from "./util.js";
import { clockFor, timerHTML } from "./clock.js";
import { canAct, certainFoul, combinedBoard, decision, handCards, myDecisions, ready, sortMode, staged } from "./staging.js";
import { foulReason, lineMarksHTML, marksFor, scoopMarksHTML } from "./showdown.js";
import { botWords, lineName, naturalName } from "./words.js";
import { t } from "./i18n.js";
import { lineHandName } from "./eval.js";
import { dealAt } from "./tablehold.js";

const lineLabel = (line) => { const w = lineName(line); return html`<span class="line-label"><span class="long">${w}</span><span class="short">${w[0].toLocaleUpperCase()}</span></span>`; };
/** A line button: its words, on a phone only their first letter (its name is the words;
 * the arrow is the stylesheet's, so what is seen stays within the name, WCAG 2.5.3). */
const lineButton = (act, key, words) => html`<button data-act="${act}" class="to-line" aria-label="${words}" title="${t("zone.shortcut", { key })}"><span class="long">${words}</span><span class="short">${words[0].toLocaleUpperCase()}</span></button>`;
const ORDER_KEYS = { dealt: "order.dealt", rank: "order.rank", suit: "order.suit" };
const DROP_KEYS = { top: "board.drop.top", middle: "board.drop.middle", bottom: "board.drop.bottom" };

export function settlementPlayer(T, name) {
  const st = T.view && T.view.settlement;
  if (!st || !st.players) return null;
  return st.players.filter((p) => p.name === name || p.player === name);
}

function lineRow(line, board, opts = {}) {
  const size = SIZES[line];
  const confirmed = board[line] || [];
  const extra = opts.staged ? opts.staged[line] || [] : [];
  const cells = [...confirmed.map((c) => cardHTML(c)), ...extra.map((c) => cardHTML(c, { tag: "button", cls: "staged", attrs: html`type="button" data-unstage="${c}" draggable="true"` }))];
  for (let i = confirmed.length + extra.length; i < size; i++) cells.push(slotHTML());
  const info = opts.info ? opts.info[line] : null;
  const infoHTML = info ? html`<span class="line-info" title="${info.name || ""}${info.royalty ? t("board.royalty_n", { n: info.royalty }) : ""}">${info.royalty && !opts.marks ? html`<span class="roy">+${info.royalty}</span> ` : ""}${info.name || ""}</span>` : html`<span class="line-info"></span>`;
  // The drop hint is a title: the spoken name is what the line shows (WCAG 2.5.3).
  const attrs = opts.target ? html`data-drop="${line}" role="button" tabindex="-1" title="${t(DROP_KEYS[line])}"` : "";
  const cls = opts.target ? html`target ${confirmed.length + extra.length >= size ? "full" : ""}` : "";
  return html`<div class="line-row ${cls}" data-line="${line}" ${attrs}>${lineLabel(line)}<div class="cards">${cells}</div>${infoHTML}${lineMarksHTML(opts.marks, line)}</div>`;
}

function seatChip(T, b) {
  const chair = T.info && T.info.seats && T.info.seats[b.seat];
  if (!chair || chair.kind !== "human") return "";
  if (chair.stand_in) return html`<span class="chip standin" title="${t("seat.standin_help")}">${t("seat.standin")}</span>`;
  if (!chair.connected) return html`<span class="chip" title="${t("seat.offline_help")}">${t("seat.offline")}</span>`;
  return "";
}

function headHTML(T, b, { me, marks }) {
  const view = T.view;
  const toAct = (view.to_act || []).includes(b.seat) && view.phase !== "showdown" && !(b.is_set && view.phase === "play");
  const label = b.player + (T.spec && T.spec.variant.hands_per_seat > 1 ? ` / ${t("board.hand_n", { n: b.hand + 1 })}` : "");
  const sp = settlementPlayer(T, b.player);
  const spHand = sp ? sp[Math.min(b.hand, sp.length - 1)] : null;
  const chair = T.info && T.info.seats && T.info.seats[b.seat];
  const botName = chair && chair.kind === "bot" ? html`<span class="muted bot-level">${botWords(chair.bot, chair.level)}</span>` : "";
  return html`<div class="board-head"><span class="name" title="${label}">${label}${me ? t("board.you") : ""}</span>${botName}
    ${view.button === b.seat ? html`<span class="button-chip" title="${t("board.button_help")}">${t("board.button")}</span>` : ""}
    ${b.in_fantasyland ? html`<span class="fl-badge" title="${t("board.fl_help")}">${t("board.fl")}${b.fantasyland_cards ? html` ${b.fantasyland_cards}` : ""}</span>` : ""}
    ${toAct ? html`<span class="chip turn">${t("board.to_act")}</span>${timerHTML(clockFor(T, b.seat, T.now), b.seat)}` : ""}
    ${spHand && spHand.fouled ? html`<span class="foul-badge" title="${foulReason(spHand)}">${t("badge.foul")}</span>` : ""}
    ${b.surrendered ? html`<span class="chip">${t("breakdown.surrendered")}</span>` : ""}${b.natural ? html`<span class="chip">${t("breakdown.natural", { natural: naturalName(b.natural) })}</span>` : ""}
    ${seatChip(T, b)}${scoopMarksHTML(marks)}
    ${view.totals && b.hand === 0 && view.totals[b.player] !== undefined ? html`<b class="${signClass(view.totals[b.player])}">${signed(view.totals[b.player])}</b>` : ""}
    </div>`;
}

function infoFromSettlement(spHand) {
  if (!spHand || !spHand.lines) return null;
  const info = {};
  for (const l of spHand.lines) info[l.line] = { name: lineHandName(l), royalty: l.royalty };
  return info;
}

function marksOf(T, b) {
  const sp = settlementPlayer(T, b.player);
  const spHand = sp ? sp[Math.min(b.hand, sp.length - 1)] : null;
  return spHand ? marksFor(T.view.settlement, spHand.name) : null;
}

/** The player's own discards of this hand, from the log (they are his to see). */
export function myDiscards(T, hand = 0) {
  return (T.log || []).filter((a) => a.type === "place" && a.seat === T.seat && (a.hand || 0) === hand)
    .flatMap((a) => a.discard || []);
}

export function boardBox(T, b, { me = false } = {}) {
  const view = T.view;
  const toAct = (view.to_act || []).includes(b.seat) && view.phase !== "showdown" && !(b.is_set && view.phase === "play");
  const marks = view.phase === "showdown" ? marksOf(T, b) : null;
  const head = headHTML(T, b, { me, marks });
  if (b.hidden) {
    const why = t(b.in_fantasyland ? "board.fl_hidden" : "board.face_down");
    const rows = LINES.map((line) => html`<div class="line-row">${lineLabel(line)}<div class="cards">${Array.from({ length: SIZES[line] }, b.is_set ? backHTML : slotHTML)}</div></div>`);
    return html`<div class="board-box ${toAct ? "to-act" : ""}" data-seat="${b.seat}" data-hand="${b.hand}">${head}${rows}<div class="hidden-board">${why} · ${b.is_set ? t("board.set_done") : t("board.setting", { n: b.dealt || b.fantasyland_cards || 13 })}</div></div>`;
  }
  const sp = settlementPlayer(T, b.player);
  const info = infoFromSettlement(sp ? sp[Math.min(b.hand, sp.length - 1)] : null) || (!me ? liveAnalysis(b, T.spec).lines : null);
  const rows = LINES.map((line) => lineRow(line, b, { info, marks }));
  const meta = view.phase !== "showdown" && b.dealt && !me ? html`<div class="muted" style="font-size:12px">${t("board.placed", { n: b.placed })}${b.discarded ? html` · ${t("board.discarded", { n: b.discarded })}` : ""}</div>` : "";
  return html`<div class="board-box ${toAct ? "to-act" : ""} ${me ? "me" : ""}" data-seat="${b.seat}" data-hand="${b.hand}">${head}${rows}${meta}</div>`;
}

/** The player's own board, staging and the decision zone (with the pinned action bar). */
export function myAreaHTML(T, { touch = false } = {}) {
  const view = T.view;
  const d = decision(T);
  const ds = myDecisions(T);
  const myBoards = view.boards.filter((b) => b.seat === T.seat);
  const handIdx = d ? d.hand : 0;
  const board = myBoards.find((b) => b.hand === handIdx) || myBoards[0];
  if (!board) return "";
  const st = { top: staged(T, "top"), middle: staged(T, "middle"), bottom: staged(T, "bottom") };
  const combined = combinedBoard(board, T);
  const showdown = view.phase === "showdown";
  const analysis = liveAnalysis(combined, T.spec);
  const sp = settlementPlayer(T, board.player);
  const spHand = sp ? sp[Math.min(board.hand, sp.length - 1)] : null;
  const info = infoFromSettlement(spHand) || analysis.lines;
  const marks = showdown && spHand ? marksFor(view.settlement, spHand.name) : null;
  const placing = d && (d.kind === "street" || d.kind === "set") && canAct(T);
  const head = headHTML(T, board, { me: true, marks });
  const rows = LINES.map((line) => lineRow(line, board, { staged: st, info, target: placing && !board.hidden, marks }));
  const discards = myDiscards(T, board.hand);
  const parts = [html`<div class="board-box me mine" id="my-board" data-seat="${board.seat}" data-hand="${board.hand}">${head}${rows}`];
  if (discards.length) parts.push(html`<div class="discards" id="my-discards"><span class="muted">${t("board.your_discards")}</span> <span class="cards mini">${discards.map((c) => cardHTML(c))}</span></div>`);
  parts.push(html`</div>`);
  for (const other of myBoards) if (other !== board) parts.push(html`<div style="margin-top:8px">${boardBox(T, other, { me: true })}</div>`);

  const warn = [];
  if (!showdown && analysis.unsupported) warn.push(html`<div class="warning soft" id="live-off">${t("board.live_off", { reason: analysis.unsupported })}</div>`);
  // A certain foul: the complete board's (eval.js) or the server's exact answer for an
  // unfinished one (staging.certainFoul); it says more than the risks it replaces.
  const foul = showdown ? null : certainFoul(T, board, T.spec);
  if (foul) warn.push(html`<div class="warning" id="foul-warning">⚠ ${t("board.foul_warning", { reason: foul })}</div>`);
  if (!showdown && combined.top.length + combined.middle.length + combined.bottom.length) {
    if (!foul) for (const w of analysis.warnings) warn.push(html`<div class="warning soft">${w}</div>`);
    // A board that fouls whatever comes earns no royalties and no Fantasyland.
    if (analysis.royalties && !foul) warn.push(html`<div class="good" id="royalty-total">${t("board.royalties_so_far", { n: analysis.royalties })}</div>`);
    if (analysis.fantasyland && !foul) warn.push(html`<div class="good">★ ${t("board.fl_qualifies")}</div>`);
  }
  // A note on the last tap goes with the warnings: on a phone they float over the head,
  // so it moves neither the hand nor the discard zone under the action bar.
  if (T.stageNote) warn.push(html`<div class="stage-note" id="stage-note" role="status">${T.stageNote}</div>`);
  parts.push(html`<div class="warnings" id="warnings">${warn}</div>`);
  parts.push(decisionZoneHTML(T, { d, ds, board, showdown, touch, foul }));
  return html`${parts}`;
}

/** The end of a session: who left, the rematch offer (one click to follow), the lobby. */
export function sessionOverHTML(T) {
  const left = T.info && T.info.left;
  const why = left ? t("zone.left_over", { name: left }) : t("zone.session_over");
  const offer = T.rematchOffer;
  const again = offer
    ? html`<span id="rematch-offer">${offer.by ? t("zone.rematch_by", { name: offer.by }) : t("zone.rematch_started")}</span> <button class="primary" data-act="follow" id="follow-btn">${t(T.role === "seat" ? "zone.rematch_join" : "zone.rematch_watch")}</button>`
    : (T.role === "seat" ? html`<button class="primary" data-act="rematch" id="rematch-btn">${t("zone.rematch")}</button>` : "");
  return html`<div class="waiting-msg action-bar" id="session-over"><span>${why}</span> ${again} <a href="/" data-link><button type="button">${t("zone.lobby")}</button></a></div>`;
}

/** Leave the table: ends a cash session after this hand (asked twice, so a stray tap
 * does not end it). Not in tournaments, which are played to the end. */
export function leaveHTML(T) {
  if (T.role !== "seat" || T.sessionOver || !T.info || T.info.mode === "tournament" || T.info.status !== "playing") return "";
  if (T.info.left) return html`<span class="chip" id="last-hand">${t("head.last_hand", { name: T.info.left })}</span>`;
  if (T.leaveAsk) {
    return html`<span class="leave-ask" id="leave-ask">${t("head.leave_ask")} <button class="small danger" data-act="leave" id="leave-yes">${t("head.leave_yes")}</button><button class="small" data-act="stay" id="leave-no">${t("head.leave_no")}</button></span>`;
  }
  return html`<button class="small" data-act="leave" id="leave-btn" title="${t("head.leave_title")}">${t("head.leave")}</button>`;
}

/** The foul question in the action bar (asked once before a certain foul is sent):
 * play it (Confirm again, Enter) or change it (Esc); never a toast over the cards. */
function foulQuestionHTML(foul) {
  return html`<div class="actions-bar action-bar foul-question" id="action-bar" role="group" aria-labelledby="foul-question">
      <span class="foul-q" id="foul-question" role="alert">⚠ ${t("zone.foul_q", { reason: foul })}</span>
      <span class="spacer"></span>
      <button data-act="foul-change" id="foul-change-btn" title="${t("zone.shortcut", { key: "Esc" })}">${t("zone.foul_change")}</button>
      <button class="primary danger" data-act="confirm" id="confirm-btn" title="${t("zone.shortcut", { key: "Enter" })}">${t("zone.foul_play")}</button>
    </div>`;
}

function decisionZoneHTML(T, { d, ds, board, showdown, touch, foul }) {
  const view = T.view;
  if (T.sessionOver) return sessionOverHTML(T);
  if (showdown) {
    const at = dealAt(T); // later while a player reads the last hand (tablehold.js)
    const secs = at ? Math.max(0, Math.ceil((at - T.now) / 1000)) : null;
    const next = T.lastEnd ? (T.nextSent ? html`<span class="muted">${t("zone.waiting_others")}</span>` : html`<button class="primary" data-act="next" id="next-btn">${t("zone.next_hand")} ▶</button>`) : "";
    return html`<div class="waiting-msg action-bar" id="next-hand"><span>${t("zone.showdown")} ${secs !== null && T.lastEnd ? textWith(t("zone.next_in", { s: "\u0000" }), "\u0000", html`<span data-next>${secs}</span>`) : ""}</span>${next}</div>`;
  }
  if (!d) {
    const waitingFor = (view.to_act || []).map((s) => view.players[s]).join(", ");
    return html`<div class="waiting-msg" id="waiting">${waitingFor ? t("zone.waiting_for", { who: waitingFor }) : t("zone.waiting")}</div>`;
  }
  if (d.kind === "surrender") {
    return html`<div class="hand-zone"><div class="decision-title">${t("zone.surrender_q", { cost: view.rules.surrender_cost })}</div>
      <div class="actions-bar action-bar"><button class="primary" data-act="play" id="play-btn">${t("hint.play")}</button><button class="danger" data-act="surrender" id="surrender-btn">${t("hint.surrender")}</button></div></div>`;
  }
  if (d.kind === "natural") {
    return html`<div class="hand-zone"><div class="decision-title">${t("zone.natural_q")}</div>
      <div class="actions-bar action-bar"><button class="primary" data-act="claim" id="claim-btn">${t("zone.declare")}</button><button data-act="noclaim" id="noclaim-btn">${t("log.plays_board_hint")}</button></div></div>`;
  }
  const cards = handCards(T);
  const isSet = d.kind === "set";
  const fl = board.in_fantasyland;
  const placed = T.moves.filter((m) => m.to !== "discard").length;
  const hintsOn = !!(T.info && T.info.hints && !T.noHints);
  const title = isSet
    ? (fl ? t("zone.fl_set", { place: d.place, n: d.cards.length }) + (d.discard ? t("zone.fl_discard", { n: d.discard }) : "") : t("zone.set", { n: d.cards.length }))
    : t(d.discard ? "zone.street_discard" : "zone.street", { street: d.street, place: d.place, n: d.discard });
  const tabs = ds.length > 1 ? joinHTML(ds.map((x, i) => html`<button class="small ${i === T.decisionIndex ? "primary" : ""}" data-act="decision" data-index="${i}">${t("board.hand_n", { n: x.hand + 1 })}</button>`), " ") : "";
  const sd = staged(T, "discard");
  const confirmLabel = T.sending !== null ? t("zone.sending") : `${t("zone.confirm")}${touch ? "" : " ⏎"}`;
  const asking = !!foul && T.foulAsked && ready(T) && T.sending === null;
  return html`<div class="hand-zone" id="hand-zone"><div class="decision-title">${title} ${tabs} <span class="muted">${t("zone.placed_of", { placed, place: d.place })}</span></div>
    <div class="cards" id="hand" data-drop="hand">${cards.length ? cards.map((c, i) => cardHTML(c, { tag: "button", cls: T.selected === c ? "selected" : "", attrs: html`type="button" draggable="true" data-pick="${c}"`, key: touch ? null : cardKey(i) })) : html`<span class="muted">${t("zone.all_placed")}</span>`}</div>
    ${d.discard ? html`<div class="discard-zone" data-drop="discard" role="button" tabindex="-1" title="${t("zone.discard_aria")}" id="discard-zone"><span class="label">✕ ${t("zone.discard_n", { n: d.discard })}</span><div class="cards">${sd.map((c) => cardHTML(c, { tag: "button", cls: "staged", attrs: html`type="button" data-unstage="${c}"` }))}${Array.from({ length: Math.max(0, d.discard - sd.length) }, slotHTML)}</div><span class="muted hint-left">${d.discard > sd.length ? t("zone.leave_in_hand") : ""}</span></div>` : ""}
    ${asking ? foulQuestionHTML(foul) : html`<div class="actions-bar action-bar" id="action-bar">
      ${lineButton("top", "T", t("zone.to_top"))}${lineButton("middle", "M", t("zone.to_middle"))}${lineButton("bottom", "B", t("zone.to_bottom"))}
      <button data-act="undo" id="undo-btn" aria-label="↶ ${t("zone.undo")}" ${T.moves.length ? "" : "disabled"} title="${t("zone.shortcut", { key: "U" })}">↶ <span class="long">${t("zone.undo")}</span></button>
      ${isSet ? html`<button data-act="reset" ${T.moves.length ? "" : "disabled"}>${t("zone.clear")}</button>` : ""}
      <button data-act="sort" class="opt" title="${t("zone.order_help")}">${t("zone.order", { mode: t(ORDER_KEYS[sortMode(T)] || sortMode(T)) })}</button>
      ${hintsOn ? html`<button data-act="hint" id="hint-btn" ${T.hintPending ? "disabled" : ""} title="${t("zone.shortcut", { key: "H" })}">${t("zone.hint")}</button>` : ""}
      ${hintsOn && isSet ? html`<button data-act="auto" id="auto-btn" ${T.hintPending ? "disabled" : ""} title="${t("zone.shortcut", { key: "A" })}">${t("zone.auto")}</button>` : ""}
      <span class="spacer"></span>
      <button class="primary" data-act="confirm" id="confirm-btn" ${ready(T) && T.sending === null ? "" : "disabled"} title="${t("zone.shortcut", { key: "Enter" })}">${confirmLabel}</button>
    </div>`}
    ${touch ? "" : html`<div class="shortcuts" id="shortcuts"><span><kbd>1</kbd>–<kbd>9</kbd>,<kbd>0</kbd>${d.cards.length > 10 ? html`,<kbd>⇧1</kbd>–<kbd>⇧${Math.min(9, d.cards.length - 10)}</kbd>` : ""} ${t("keys.select")}</span><span><kbd>←</kbd><kbd>→</kbd> ${t("keys.move")}</span><span><kbd>T</kbd>/<kbd>M</kbd>/<kbd>B</kbd> ${t("keys.lines")}</span>${d.discard ? html`<span><kbd>X</kbd> ${t("keys.discard")}</span>` : ""}<span><kbd>U</kbd> ${t("keys.undo")}</span><span><kbd>Enter</kbd> ${t("keys.confirm")}</span>${hintsOn ? html`<span><kbd>H</kbd> ${t("keys.hint")}</span>` : ""}${hintsOn && isSet ? html`<span><kbd>A</kbd> ${t("keys.auto")}</span>` : ""}<span>${t("keys.drag")}</span></div>`}
  </div>`;
}
