// @ts-check
// The boards of the table screen as HTML: opponents', the player's own (with staging),
// and the decision zone. Pure functions of the table state T and the time ``now``.

import { liveAnalysis, LINES, SIZES } from "./eval.js";
import { backHTML, cardHTML, cardKey, esc, html, signClass, signed, slotHTML } from "./util.js";
import { clockFor, timerHTML } from "./clock.js";
import { canAct, combinedBoard, decision, handCards, myDecisions, ready, sortMode, staged } from "./staging.js";
import { foulReason, lineMarksHTML, marksFor, scoopMarksHTML } from "./showdown.js";
import { botWords, lineName, naturalName } from "./words.js";
import { t } from "./i18n.js";
import { lineHandName } from "./eval.js";

const lineLabel = (line) => { const w = lineName(line); return `<span class="line-label"><span class="long">${esc(w)}</span><span class="short">${esc(w[0].toLocaleUpperCase())}</span></span>`; };
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
  let cells = confirmed.map((c) => cardHTML(c)).join("");
  cells += extra.map((c) => cardHTML(c, { tag: "button", cls: "staged", attrs: html`type="button" data-unstage="${c}" draggable="true"` })).join("");
  for (let i = confirmed.length + extra.length; i < size; i++) cells += slotHTML();
  const info = opts.info ? opts.info[line] : null;
  const infoHTML = info ? `<span class="line-info" title="${esc(info.name || "")}${info.royalty ? esc(t("board.royalty_n", { n: info.royalty })) : ""}">${info.royalty && !opts.marks ? `<span class="roy">+${info.royalty}</span> ` : ""}${esc(info.name || "")}</span>` : `<span class="line-info"></span>`;
  const attrs = opts.target ? `data-drop="${line}" role="button" tabindex="-1" aria-label="${esc(t(DROP_KEYS[line]))}"` : "";
  const cls = opts.target ? `target ${confirmed.length + extra.length >= size ? "full" : ""}` : "";
  return `<div class="line-row ${cls}" data-line="${line}" ${attrs}>${lineLabel(line)}<div class="cards">${cells}</div>${infoHTML}${lineMarksHTML(opts.marks, line)}</div>`;
}

function seatChip(T, b) {
  const chair = T.info && T.info.seats && T.info.seats[b.seat];
  if (!chair || chair.kind !== "human") return "";
  if (chair.stand_in) return `<span class="chip standin" title="${esc(t("seat.standin_help"))}">${esc(t("seat.standin"))}</span>`;
  if (!chair.connected) return `<span class="chip" title="${esc(t("seat.offline_help"))}">${esc(t("seat.offline"))}</span>`;
  return "";
}

function headHTML(T, b, { me, marks }) {
  const view = T.view;
  const toAct = (view.to_act || []).includes(b.seat) && view.phase !== "showdown" && !(b.is_set && view.phase === "play");
  const label = b.player + (T.spec && T.spec.variant.hands_per_seat > 1 ? ` / ${t("board.hand_n", { n: b.hand + 1 })}` : "");
  const sp = settlementPlayer(T, b.player);
  const spHand = sp ? sp[Math.min(b.hand, sp.length - 1)] : null;
  const chair = T.info && T.info.seats && T.info.seats[b.seat];
  const botName = chair && chair.kind === "bot" ? `<span class="muted bot-level">${esc(botWords(chair.bot, chair.level))}</span>` : "";
  return `<div class="board-head"><span class="name" title="${esc(label)}">${esc(label)}${me ? esc(t("board.you")) : ""}</span>${botName}
    ${view.button === b.seat ? `<span class="button-chip" title="${esc(t("board.button_help"))}">${esc(t("board.button"))}</span>` : ""}
    ${b.in_fantasyland ? `<span class="fl-badge" title="${esc(t("board.fl_help"))}">${esc(t("board.fl"))}${b.fantasyland_cards ? ` ${b.fantasyland_cards}` : ""}</span>` : ""}
    ${toAct ? `<span class="chip turn">${esc(t("board.to_act"))}</span>${timerHTML(clockFor(T, b.seat, T.now), b.seat)}` : ""}
    ${spHand && spHand.fouled ? `<span class="foul-badge" title="${esc(foulReason(spHand))}">${esc(t("badge.foul"))}</span>` : ""}
    ${b.surrendered ? `<span class="chip">${esc(t("breakdown.surrendered"))}</span>` : ""}${b.natural ? `<span class="chip">${esc(t("breakdown.natural", { natural: naturalName(b.natural) }))}</span>` : ""}
    ${seatChip(T, b)}${scoopMarksHTML(marks)}
    ${view.totals && b.hand === 0 && view.totals[b.player] !== undefined ? `<b class="${signClass(view.totals[b.player])}">${signed(view.totals[b.player])}</b>` : ""}
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
    const rows = LINES.map((line) => `<div class="line-row">${lineLabel(line)}<div class="cards">${Array.from({ length: SIZES[line] }, b.is_set ? backHTML : slotHTML).join("")}</div></div>`).join("");
    return `<div class="board-box ${toAct ? "to-act" : ""}" data-seat="${b.seat}" data-hand="${b.hand}">${head}${rows}<div class="hidden-board">${esc(why)} · ${esc(b.is_set ? t("board.set_done") : t("board.setting", { n: b.dealt || b.fantasyland_cards || 13 }))}</div></div>`;
  }
  const sp = settlementPlayer(T, b.player);
  const info = infoFromSettlement(sp ? sp[Math.min(b.hand, sp.length - 1)] : null) || (!me ? liveAnalysis(b, T.spec).lines : null);
  const rows = LINES.map((line) => lineRow(line, b, { info, marks })).join("");
  const meta = view.phase !== "showdown" && b.dealt && !me ? `<div class="muted" style="font-size:12px">${esc(t("board.placed", { n: b.placed }))}${b.discarded ? ` · ${esc(t("board.discarded", { n: b.discarded }))}` : ""}</div>` : "";
  return `<div class="board-box ${toAct ? "to-act" : ""} ${me ? "me" : ""}" data-seat="${b.seat}" data-hand="${b.hand}">${head}${rows}${meta}</div>`;
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
  const rows = LINES.map((line) => lineRow(line, board, { staged: st, info, target: placing && !board.hidden, marks })).join("");
  const discards = myDiscards(T, board.hand);
  let html = `<div class="board-box me mine" id="my-board" data-seat="${board.seat}" data-hand="${board.hand}">${head}${rows}`;
  if (discards.length) html += `<div class="discards" id="my-discards"><span class="muted">${esc(t("board.your_discards"))}</span> <span class="cards mini">${discards.map((c) => cardHTML(c)).join("")}</span></div>`;
  html += `</div>`;
  for (const other of myBoards) if (other !== board) html += `<div style="margin-top:8px">${boardBox(T, other, { me: true })}</div>`;

  const warn = [];
  if (!showdown && analysis.unsupported) warn.push(`<div class="warning soft" id="live-off">${esc(t("board.live_off", { reason: analysis.unsupported }))}</div>`);
  if (!showdown && combined.top.length + combined.middle.length + combined.bottom.length) {
    if (analysis.fouled) warn.push(`<div class="warning" id="foul-warning">⚠ ${esc(t("board.foul_warning", { reason: analysis.foulReason }))}</div>`);
    for (const w of analysis.warnings) warn.push(`<div class="warning soft">${esc(w)}</div>`);
    if (analysis.royalties) warn.push(`<div class="good" id="royalty-total">${esc(t("board.royalties_so_far", { n: analysis.royalties }))}</div>`);
    if (analysis.fantasyland) warn.push(`<div class="good">★ ${esc(t("board.fl_qualifies"))}</div>`);
  }
  html += `<div class="warnings" id="warnings">${warn.join("")}</div>`;
  html += decisionZoneHTML(T, { d, ds, board, showdown, touch, fouled: analysis.fouled });
  return html;
}

/** The end of a session: who left, the rematch offer (one click to follow), the lobby. */
export function sessionOverHTML(T) {
  const left = T.info && T.info.left;
  const why = left ? t("zone.left_over", { name: left }) : t("zone.session_over");
  const offer = T.rematchOffer;
  const again = offer
    ? `<span id="rematch-offer">${esc(offer.by ? t("zone.rematch_by", { name: offer.by }) : t("zone.rematch_started"))}</span> <button class="primary" data-act="follow" id="follow-btn">${esc(t(T.role === "seat" ? "zone.rematch_join" : "zone.rematch_watch"))}</button>`
    : (T.role === "seat" ? `<button class="primary" data-act="rematch" id="rematch-btn">${esc(t("zone.rematch"))}</button>` : "");
  return `<div class="waiting-msg action-bar" id="session-over"><span>${esc(why)}</span> ${again} <a href="/" data-link><button type="button">${esc(t("zone.lobby"))}</button></a></div>`;
}

/** Leave the table: ends a cash session after this hand (asked twice, so a stray tap
 * does not end it). Not in tournaments, which are played to the end. */
export function leaveHTML(T) {
  if (T.role !== "seat" || T.sessionOver || !T.info || T.info.mode === "tournament" || T.info.status !== "playing") return "";
  if (T.info.left) return `<span class="chip" id="last-hand">${esc(t("head.last_hand", { name: T.info.left }))}</span>`;
  if (T.leaveAsk) {
    return `<span class="leave-ask" id="leave-ask">${esc(t("head.leave_ask"))} <button class="small danger" data-act="leave" id="leave-yes">${esc(t("head.leave_yes"))}</button><button class="small" data-act="stay" id="leave-no">${esc(t("head.leave_no"))}</button></span>`;
  }
  return `<button class="small" data-act="leave" id="leave-btn" title="${esc(t("head.leave_title"))}">${esc(t("head.leave"))}</button>`;
}

function decisionZoneHTML(T, { d, ds, board, showdown, touch, fouled }) {
  const view = T.view;
  if (T.sessionOver) return sessionOverHTML(T);
  if (showdown) {
    const secs = T.nextHandAt ? Math.max(0, Math.ceil((T.nextHandAt - T.now) / 1000)) : null;
    const next = T.lastEnd ? (T.nextSent ? `<span class="muted">${esc(t("zone.waiting_others"))}</span>` : `<button class="primary" data-act="next" id="next-btn">${esc(t("zone.next_hand"))} ▶</button>`) : "";
    return `<div class="waiting-msg action-bar" id="next-hand"><span>${esc(t("zone.showdown"))} ${secs !== null && T.lastEnd ? t("zone.next_in", { s: `<span data-next>${secs}</span>` }) : ""}</span>${next}</div>`;
  }
  if (!d) {
    const waitingFor = (view.to_act || []).map((s) => view.players[s]).join(", ");
    return `<div class="waiting-msg" id="waiting">${esc(waitingFor ? t("zone.waiting_for", { who: waitingFor }) : t("zone.waiting"))}</div>`;
  }
  if (d.kind === "surrender") {
    return `<div class="hand-zone"><div class="decision-title">${esc(t("zone.surrender_q", { cost: view.rules.surrender_cost }))}</div>
      <div class="actions-bar action-bar"><button class="primary" data-act="play" id="play-btn">${esc(t("hint.play"))}</button><button class="danger" data-act="surrender" id="surrender-btn">${esc(t("hint.surrender"))}</button></div></div>`;
  }
  if (d.kind === "natural") {
    return `<div class="hand-zone"><div class="decision-title">${esc(t("zone.natural_q"))}</div>
      <div class="actions-bar action-bar"><button class="primary" data-act="claim" id="claim-btn">${esc(t("zone.declare"))}</button><button data-act="noclaim" id="noclaim-btn">${esc(t("log.plays_board_hint"))}</button></div></div>`;
  }
  const cards = handCards(T);
  const isSet = d.kind === "set";
  const fl = board.in_fantasyland;
  const placed = T.moves.filter((m) => m.to !== "discard").length;
  const hintsOn = !!(T.info && T.info.hints && !T.noHints);
  const title = isSet
    ? (fl ? t("zone.fl_set", { place: d.place, n: d.cards.length }) + (d.discard ? t("zone.fl_discard", { n: d.discard }) : "") : t("zone.set", { n: d.cards.length }))
    : t(d.discard ? "zone.street_discard" : "zone.street", { street: d.street, place: d.place, n: d.discard });
  const tabs = ds.length > 1 ? ds.map((x, i) => `<button class="small ${i === T.decisionIndex ? "primary" : ""}" data-act="decision" data-index="${i}">${esc(t("board.hand_n", { n: x.hand + 1 }))}</button>`).join(" ") : "";
  const sd = staged(T, "discard");
  const confirmLabel = T.sending !== null ? t("zone.sending") : fouled && T.foulAsked ? t("zone.confirm_foul") : `${t("zone.confirm")}${touch ? "" : " ⏎"}`;
  return `<div class="hand-zone" id="hand-zone"><div class="decision-title">${esc(title)} ${tabs} <span class="muted">${esc(t("zone.placed_of", { placed, place: d.place }))}</span></div>
    <div class="cards" id="hand" data-drop="hand">${cards.map((c, i) => cardHTML(c, { tag: "button", cls: T.selected === c ? "selected" : "", attrs: html`type="button" draggable="true" data-pick="${c}"`, key: touch ? null : cardKey(i) })).join("") || `<span class="muted">${esc(t("zone.all_placed"))}</span>`}</div>
    ${d.discard ? `<div class="discard-zone" data-drop="discard" role="button" tabindex="-1" aria-label="${esc(t("zone.discard_aria"))}" id="discard-zone"><span class="label">✕ ${esc(t("zone.discard_n", { n: d.discard }))}</span><div class="cards">${sd.map((c) => cardHTML(c, { tag: "button", cls: "staged", attrs: html`type="button" data-unstage="${c}"` })).join("")}${Array.from({ length: Math.max(0, d.discard - sd.length) }, slotHTML).join("")}</div><span class="muted hint-left">${d.discard > sd.length ? esc(t("zone.leave_in_hand")) : ""}</span></div>` : ""}
    <div class="actions-bar action-bar" id="action-bar">
      <button data-act="top" title="${esc(t("zone.shortcut", { key: "T" }))}">→ ${esc(t("zone.to_top"))}</button><button data-act="middle" title="${esc(t("zone.shortcut", { key: "M" }))}">→ ${esc(t("zone.to_middle"))}</button><button data-act="bottom" title="${esc(t("zone.shortcut", { key: "B" }))}">→ ${esc(t("zone.to_bottom"))}</button>
      <button data-act="undo" id="undo-btn" ${T.moves.length ? "" : "disabled"} title="${esc(t("zone.shortcut", { key: "U" }))}">↶ ${esc(t("zone.undo"))}</button>
      ${isSet ? `<button data-act="reset" ${T.moves.length ? "" : "disabled"}>${esc(t("zone.clear"))}</button>` : ""}
      <button data-act="sort" class="opt" title="${esc(t("zone.order_help"))}">${esc(t("zone.order", { mode: t(ORDER_KEYS[sortMode(T)] || sortMode(T)) }))}</button>
      ${hintsOn ? `<button data-act="hint" id="hint-btn" ${T.hintPending ? "disabled" : ""} title="${esc(t("zone.shortcut", { key: "H" }))}">${esc(t("zone.hint"))}</button>` : ""}
      ${hintsOn && isSet ? `<button data-act="auto" id="auto-btn" ${T.hintPending ? "disabled" : ""} title="${esc(t("zone.shortcut", { key: "A" }))}">${esc(t("zone.auto"))}</button>` : ""}
      <span class="spacer"></span>
      <button class="primary ${fouled && T.foulAsked ? "danger" : ""}" data-act="confirm" id="confirm-btn" ${ready(T) && T.sending === null ? "" : "disabled"} title="${esc(t("zone.shortcut", { key: "Enter" }))}">${esc(confirmLabel)}</button>
    </div>
    ${touch ? "" : `<div class="shortcuts" id="shortcuts"><span><kbd>1</kbd>–<kbd>9</kbd>,<kbd>0</kbd>${d.cards.length > 10 ? `,<kbd>⇧1</kbd>–<kbd>⇧${Math.min(9, d.cards.length - 10)}</kbd>` : ""} ${esc(t("keys.select"))}</span><span><kbd>←</kbd><kbd>→</kbd> ${esc(t("keys.move"))}</span><span><kbd>T</kbd>/<kbd>M</kbd>/<kbd>B</kbd> ${esc(t("keys.lines"))}</span>${d.discard ? `<span><kbd>X</kbd> ${esc(t("keys.discard"))}</span>` : ""}<span><kbd>U</kbd> ${esc(t("keys.undo"))}</span><span><kbd>Enter</kbd> ${esc(t("keys.confirm"))}</span>${hintsOn ? `<span><kbd>H</kbd> ${esc(t("keys.hint"))}</span>` : ""}${hintsOn && isSet ? `<span><kbd>A</kbd> ${esc(t("keys.auto"))}</span>` : ""}<span>${esc(t("keys.drag"))}</span></div>`}
  </div>`;
}
