// The boards of the table screen as HTML: opponents', the player's own (with staging),
// and the decision zone. Pure functions of the table state T and the time ``now``.

import { analyseBoard, LINES, SIZES } from "./eval.js";
import { backHTML, cardHTML, cardKey, esc, signClass, signed, slotHTML } from "./util.js";
import { clockFor, timerHTML } from "./clock.js";
import { canAct, combinedBoard, decision, handCards, myDecisions, ready, sortMode, staged } from "./staging.js";
import { lineMarksHTML, marksFor, scoopMarksHTML } from "./showdown.js";
import { botWords } from "./words.js";

const lineLabel = (line) => `<span class="line-label"><span class="long">${line}</span><span class="short">${line[0].toUpperCase()}</span></span>`;

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
  cells += extra.map((c) => cardHTML(c, { tag: "button", cls: "staged", attrs: `type="button" data-unstage="${esc(c)}" draggable="true"` })).join("");
  for (let i = confirmed.length + extra.length; i < size; i++) cells += slotHTML();
  const info = opts.info ? opts.info[line] : null;
  const infoHTML = info ? `<span class="line-info" title="${esc(info.name || "")}${info.royalty ? ` (royalty ${info.royalty})` : ""}">${info.royalty && !opts.marks ? `<span class="roy">+${info.royalty}</span> ` : ""}${esc(info.name || "")}</span>` : `<span class="line-info"></span>`;
  const attrs = opts.target ? `data-drop="${line}" role="button" tabindex="-1" aria-label="Put the card on the ${line} line"` : "";
  const cls = opts.target ? `target ${confirmed.length + extra.length >= size ? "full" : ""}` : "";
  return `<div class="line-row ${cls}" data-line="${line}" ${attrs}>${lineLabel(line)}<div class="cards">${cells}</div>${infoHTML}${lineMarksHTML(opts.marks, line)}</div>`;
}

function seatChip(T, b) {
  const chair = T.info && T.info.seats && T.info.seats[b.seat];
  if (!chair || chair.kind !== "human") return "";
  if (chair.stand_in) return `<span class="chip standin" title="A bot plays this seat until the player comes back">bot playing</span>`;
  if (!chair.connected) return `<span class="chip" title="This player is not connected">offline</span>`;
  return "";
}

function headHTML(T, b, { me, marks }) {
  const view = T.view;
  const toAct = (view.to_act || []).includes(b.seat) && view.phase !== "showdown" && !(b.is_set && view.phase === "play");
  const label = b.player + (view.variant === "criss_cross" ? ` / hand ${b.hand + 1}` : "");
  const sp = settlementPlayer(T, b.player);
  const spHand = sp ? sp[Math.min(b.hand, sp.length - 1)] : null;
  const chair = T.info && T.info.seats && T.info.seats[b.seat];
  const botName = chair && chair.kind === "bot" ? `<span class="muted bot-level">${esc(botWords(chair.bot, chair.level))}</span>` : "";
  return `<div class="board-head"><span class="name" title="${esc(label)}">${esc(label)}${me ? " (you)" : ""}</span>${botName}
    ${view.button === b.seat ? `<span class="button-chip" title="The button (dealer)">D</span>` : ""}
    ${b.in_fantasyland ? `<span class="fl-badge" title="Playing a Fantasyland deal">FANTASYLAND${b.fantasyland_cards ? ` ${b.fantasyland_cards}` : ""}</span>` : ""}
    ${toAct ? `<span class="chip turn">to act</span>${timerHTML(clockFor(T, b.seat, T.now), b.seat)}` : ""}
    ${spHand && spHand.fouled ? `<span class="foul-badge" title="${esc(spHand.foul_reason || "")}">FOUL</span>` : ""}
    ${b.surrendered ? `<span class="chip">surrendered</span>` : ""}${b.natural ? `<span class="chip">natural: ${esc(b.natural)}</span>` : ""}
    ${seatChip(T, b)}${scoopMarksHTML(marks)}
    ${view.totals && b.hand === 0 && view.totals[b.player] !== undefined ? `<b class="${signClass(view.totals[b.player])}">${signed(view.totals[b.player])}</b>` : ""}
    </div>`;
}

function infoFromSettlement(spHand) {
  if (!spHand || !spHand.lines) return null;
  const info = {};
  for (const l of spHand.lines) info[l.line] = { name: l.hand, royalty: l.royalty };
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
    const why = b.in_fantasyland ? "Fantasyland board, hidden until the showdown" : "Set face down until the showdown";
    const rows = LINES.map((line) => `<div class="line-row">${lineLabel(line)}<div class="cards">${Array.from({ length: SIZES[line] }, b.is_set ? backHTML : slotHTML).join("")}</div></div>`).join("");
    return `<div class="board-box ${toAct ? "to-act" : ""}" data-seat="${b.seat}" data-hand="${b.hand}">${head}${rows}<div class="hidden-board">${esc(why)} · ${b.is_set ? "set ✓" : `${b.dealt || b.fantasyland_cards || 13} cards, setting…`}</div></div>`;
  }
  const sp = settlementPlayer(T, b.player);
  const info = infoFromSettlement(sp ? sp[Math.min(b.hand, sp.length - 1)] : null) || (!me ? analyseBoard(b, T.spec).lines : null);
  const rows = LINES.map((line) => lineRow(line, b, { info, marks })).join("");
  const meta = view.phase !== "showdown" && b.dealt && !me ? `<div class="muted" style="font-size:12px">${b.placed} placed${b.discarded ? ` · ${b.discarded} discarded` : ""}</div>` : "";
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
  const analysis = analyseBoard(combined, T.spec);
  const sp = settlementPlayer(T, board.player);
  const spHand = sp ? sp[Math.min(board.hand, sp.length - 1)] : null;
  const info = infoFromSettlement(spHand) || analysis.lines;
  const marks = showdown && spHand ? marksFor(view.settlement, spHand.name) : null;
  const placing = d && (d.kind === "street" || d.kind === "set") && canAct(T);
  const head = headHTML(T, board, { me: true, marks });
  const rows = LINES.map((line) => lineRow(line, board, { staged: st, info, target: placing && !board.hidden, marks })).join("");
  const discards = myDiscards(T, board.hand);
  let html = `<div class="board-box me mine" id="my-board" data-seat="${board.seat}" data-hand="${board.hand}">${head}${rows}`;
  if (discards.length) html += `<div class="discards" id="my-discards"><span class="muted">your discards</span> <span class="cards mini">${discards.map((c) => cardHTML(c)).join("")}</span></div>`;
  html += `</div>`;
  for (const other of myBoards) if (other !== board) html += `<div style="margin-top:8px">${boardBox(T, other, { me: true })}</div>`;

  const warn = [];
  if (!showdown && combined.top.length + combined.middle.length + combined.bottom.length) {
    if (analysis.fouled) warn.push(`<div class="warning" id="foul-warning">⚠ Foul: ${esc(analysis.foulReason)}. A fouled board loses every line and earns no royalties.</div>`);
    for (const w of analysis.warnings) warn.push(`<div class="warning soft">${esc(w)}</div>`);
    if (analysis.royalties) warn.push(`<div class="good" id="royalty-total">Royalties so far: +${analysis.royalties}</div>`);
    if (analysis.fantasyland) warn.push(`<div class="good">★ Top qualifies for Fantasyland (if the board stays valid).</div>`);
  }
  html += `<div class="warnings" id="warnings">${warn.join("")}</div>`;
  html += decisionZoneHTML(T, { d, ds, board, showdown, touch, fouled: analysis.fouled });
  return html;
}

/** The end of a session: who left, the rematch offer (one click to follow), the lobby. */
export function sessionOverHTML(T) {
  const left = T.info && T.info.left;
  const why = left ? `${esc(left)} left, so the session is over.` : "The session is over.";
  const offer = T.rematchOffer;
  const again = offer
    ? `<span id="rematch-offer">${offer.by ? `${esc(offer.by)} started a rematch.` : "A rematch has started."}</span> <button class="primary" data-act="follow" id="follow-btn">${T.role === "seat" ? "Join the rematch" : "Watch the rematch"}</button>`
    : (T.role === "seat" ? `<button class="primary" data-act="rematch" id="rematch-btn">Rematch</button>` : "");
  return `<div class="waiting-msg action-bar" id="session-over"><span>${why}</span> ${again} <a href="/" data-link><button type="button">Lobby</button></a></div>`;
}

/** Leave the table: ends a cash session after this hand (asked twice, so a stray tap
 * does not end it). Not in tournaments, which are played to the end. */
export function leaveHTML(T) {
  if (T.role !== "seat" || T.sessionOver || !T.info || T.info.mode === "tournament") return "";
  if (T.info.left) return `<span class="chip" id="last-hand">Last hand: ${esc(T.info.left)} is leaving</span>`;
  if (T.leaveAsk) {
    return `<span class="leave-ask" id="leave-ask">End the session after this hand? <button class="small danger" data-act="leave" id="leave-yes">Yes, leave</button><button class="small" data-act="stay" id="leave-no">Stay</button></span>`;
  }
  return `<button class="small" data-act="leave" id="leave-btn" title="The session ends after this hand">Leave</button>`;
}

function decisionZoneHTML(T, { d, ds, board, showdown, touch, fouled }) {
  const view = T.view;
  if (T.sessionOver) return sessionOverHTML(T);
  if (showdown) {
    const secs = T.nextHandAt ? Math.max(0, Math.ceil((T.nextHandAt - T.now) / 1000)) : null;
    const next = T.lastEnd ? (T.nextSent ? `<span class="muted">waiting for the others…</span>` : `<button class="primary" data-act="next" id="next-btn">Next hand ▶</button>`) : "";
    return `<div class="waiting-msg action-bar" id="next-hand"><span>Showdown. ${secs !== null && T.lastEnd ? `Next hand in <span data-next>${secs}</span> s.` : ""}</span>${next}</div>`;
  }
  if (!d) {
    const waitingFor = (view.to_act || []).map((s) => view.players[s]).join(", ");
    return `<div class="waiting-msg" id="waiting">${waitingFor ? `Waiting for ${esc(waitingFor)}…` : "Waiting…"}</div>`;
  }
  if (d.kind === "surrender") {
    return `<div class="hand-zone"><div class="decision-title">Play this hand, or surrender and pay ${esc(view.rules.surrender_cost)} to each opponent still in?</div>
      <div class="actions-bar action-bar"><button class="primary" data-act="play" id="play-btn">Play</button><button class="danger" data-act="surrender" id="surrender-btn">Surrender</button></div></div>`;
  }
  if (d.kind === "natural") {
    return `<div class="hand-zone"><div class="decision-title">You hold a natural. Declare it (you are paid its value and do not play your board), or play the board?</div>
      <div class="actions-bar action-bar"><button class="primary" data-act="claim" id="claim-btn">Declare natural</button><button data-act="noclaim" id="noclaim-btn">Play the board</button></div></div>`;
  }
  const cards = handCards(T);
  const isSet = d.kind === "set";
  const fl = board.in_fantasyland;
  const placed = T.moves.filter((m) => m.to !== "discard").length;
  const hintsOn = !!(T.info && T.info.hints && !T.noHints);
  const title = isSet
    ? (fl ? `Fantasyland: set ${d.place} of your ${d.cards.length} cards${d.discard === 1 ? "; the last card is discarded" : d.discard ? `; the other ${d.discard} are discarded` : ""}` : `Set your ${d.cards.length} cards: 3 top, 5 middle, 5 bottom`)
    : `Street ${d.street}: place ${d.place}${d.discard ? `, discard ${d.discard}` : ""}`;
  const tabs = ds.length > 1 ? ds.map((x, i) => `<button class="small ${i === T.decisionIndex ? "primary" : ""}" data-act="decision" data-index="${i}">hand ${x.hand + 1}</button>`).join(" ") : "";
  const sd = staged(T, "discard");
  const confirmLabel = T.sending !== null ? "Sending…" : fouled && T.foulAsked ? "Confirm the foul" : `Confirm${touch ? "" : " ⏎"}`;
  return `<div class="hand-zone" id="hand-zone"><div class="decision-title">${esc(title)} ${tabs} <span class="muted">(${placed}/${d.place} placed)</span></div>
    <div class="cards" id="hand" data-drop="hand">${cards.map((c, i) => cardHTML(c, { tag: "button", cls: T.selected === c ? "selected" : "", attrs: `type="button" draggable="true" data-pick="${esc(c)}"`, key: touch ? null : cardKey(i) })).join("") || `<span class="muted">All cards placed — confirm.</span>`}</div>
    ${d.discard ? `<div class="discard-zone" data-drop="discard" role="button" tabindex="-1" aria-label="Discard the card" id="discard-zone"><span class="label">✕ Discard ${d.discard}</span><div class="cards">${sd.map((c) => cardHTML(c, { tag: "button", cls: "staged", attrs: `type="button" data-unstage="${esc(c)}"` })).join("")}${Array.from({ length: Math.max(0, d.discard - sd.length) }, slotHTML).join("")}</div><span class="muted hint-left">${d.discard > sd.length ? "or leave it in hand" : ""}</span></div>` : ""}
    <div class="actions-bar action-bar" id="action-bar">
      <button data-act="top" title="Shortcut: T">→ Top</button><button data-act="middle" title="Shortcut: M">→ Mid</button><button data-act="bottom" title="Shortcut: B">→ Bottom</button>
      <button data-act="undo" id="undo-btn" ${T.moves.length ? "" : "disabled"} title="Shortcut: U">↶ Undo</button>
      ${isSet ? `<button data-act="reset" ${T.moves.length ? "" : "disabled"}>Clear</button>` : ""}
      <button data-act="sort" class="opt" title="Change the order of your cards">Order: ${esc(sortMode(T))}</button>
      ${hintsOn ? `<button data-act="hint" id="hint-btn" ${T.hintPending ? "disabled" : ""} title="Shortcut: H">Hint</button>` : ""}
      ${hintsOn && isSet ? `<button data-act="auto" id="auto-btn" ${T.hintPending ? "disabled" : ""} title="Shortcut: A">Auto-arrange</button>` : ""}
      <span class="spacer"></span>
      <button class="primary ${fouled && T.foulAsked ? "danger" : ""}" data-act="confirm" id="confirm-btn" ${ready(T) && T.sending === null ? "" : "disabled"} title="Shortcut: Enter">${confirmLabel}</button>
    </div>
    ${touch ? "" : `<div class="shortcuts" id="shortcuts"><span><kbd>1</kbd>–<kbd>9</kbd>,<kbd>0</kbd>${d.cards.length > 10 ? `,<kbd>⇧1</kbd>–<kbd>⇧${Math.min(9, d.cards.length - 10)}</kbd>` : ""} select a card</span><span><kbd>←</kbd><kbd>→</kbd> move the selection</span><span><kbd>T</kbd>/<kbd>M</kbd>/<kbd>B</kbd> top / middle / bottom</span>${d.discard ? "<span><kbd>X</kbd> discard</span>" : ""}<span><kbd>U</kbd> undo</span><span><kbd>Enter</kbd> confirm</span>${hintsOn ? "<span><kbd>H</kbd> hint</span>" : ""}${hintsOn && isSet ? "<span><kbd>A</kbd> auto-arrange</span>" : ""}<span>Or drag a card onto a line. Click a staged card to take it back.</span></div>`}
  </div>`;
}
