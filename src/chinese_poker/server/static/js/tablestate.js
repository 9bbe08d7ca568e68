// @ts-check
// The table screen's state T: what the server last said (the table, the view, the clocks,
// the log, the ledger), what this player has selected and staged, and what the page is
// waiting for. Plain data and functions of it, no DOM (node --test imports this module):
// table.js feeds it the server's messages and the player's intents (tableinput.js),
// tablepage.js renders it. The staging rules themselves are staging.js's.

import { LINES } from "./eval.js";
import * as S from "./staging.js";
import { ERROR_WORDS, placedWords } from "./words.js";
import { language, t } from "./i18n.js";

const NOTICE_KEYS = { back: "notice.back", stand_in: "notice.stand_in", leaving: "notice.leaving", left: "notice.left" };
const NEXT_SORT = { dealt: "rank", rank: "suit", suit: "dealt" };

/**
 * A table screen's state before the first message. `wanted` is "seat" or "spectator";
 * `mine` this browser's seat record for the table (net.getSeat), if any; `sortMode` the
 * player's kept card order (null: by the decision).
 * @param {string} tableId @param {string} wanted @param {any} mine @param {string | null} sortMode
 */
export function newTableState(tableId, wanted, mine, sortMode) {
  return {
    id: tableId,
    role: wanted === "seat" && mine && mine.token ? "seat" : "spectator",
    token: mine && mine.token,
    seat: null, player: null, spec: null,
    info: null, view: null, hand: 0, clocks: [], clocksAt: 0, log: [], now: 0,
    moves: [], sig: null, selected: null, decisionIndex: 0,
    // The staging the foul question was asked about: the question stands while the
    // staging is that one (any card moved, taken back or a new decision ends it).
    foulQuestion: null,
    get foulAsked() { return this.foulQuestion !== null && this.foulQuestion === stagingKey(this); },
    set foulAsked(asked) { this.foulQuestion = asked ? stagingKey(this) : null; },
    // The server's answer to `fouls` (which placements of this street foul whatever comes)
    // and the decision it was asked for.
    fouls: null, foulsAsked: null,
    hints: null, hintPending: false, autoPending: false,
    ledger: null, hands: [], lastEnd: null, nextHandAt: 0, sessionOver: false, nextSent: false,
    // The socket's bookkeeping (table.js): the open socket, the last message id, the
    // action awaiting its answer, whether the screen is still shown, reconnect attempts.
    ws: null, msgId: 0, sending: null, alive: true, retry: 0, closed: null,
    sortMode, lastShowdown: null, noHints: false, notice: null,
    leaveAsk: false, rematchOffer: null, moved: null, sound: false,
    // What the last tap did when it is not to be seen on the board (a card taken back).
    stageNote: null,
  };
}

/** What the staging is: the decision and where each staged card is. */
function stagingKey(T) {
  return `${T.sig}|${T.moves.map((m) => `${m.card}>${m.to}`).join(",")}`;
}

// ------------------------------------------------------------------ the server's messages

/**
 * welcome: the table, and who this page is at it. Returns the words of a stale seat key's
 * closing, to say once more now that the page watches instead (else null).
 */
export function welcomed(T, msg) {
  const staleSeat = T.closed && T.closed.code === 4401 ? T.closed.text : null;
  T.info = msg.table;
  T.spec = msg.spec || T.spec;
  T.role = msg.role;
  T.seat = msg.seat;
  T.player = msg.player;
  T.closed = null;
  T.moved = null;
  if (T.info.rematch) T.rematchOffer = T.rematchOffer || { id: T.info.rematch, by: null };
  if (T.info.session_over) T.sessionOver = true;
  return staleSeat;
}

/**
 * A close the server explains (`words`: CLOSE_WORDS's for its code), kept in T.closed for
 * the screen. True when the page is to connect again, watching: a stale seat key.
 */
export function closedWith(T, code, words) {
  if (code === 4401 && T.role === "seat") {
    // Watch instead, if the table lets us; one message either way.
    T.role = "spectator";
    T.closed = { ...words, code: 4401 };
    return true;
  }
  if (code === 4403 && T.closed && T.closed.code === 4401) {
    T.closed = { text: t("close.4401_no_spectators"), ways: ["lobby"], code: 4403, final: true };
  } else {
    T.closed = { ...words, code, final: true };
  }
  return false;
}

/** hand_start: a new hand clears the last one's end, hints, log, notice and staging. */
export function handStarted(T, msg) {
  T.hand = msg.hand;
  T.lastEnd = null;
  T.nextHandAt = 0;
  T.hints = null;
  T.log = [];
  T.notice = null;
  T.nextSent = false;
  T.moves = []; T.sig = null; T.selected = null;
  if (T.info) { T.info.hand = msg.hand; T.info.status = "playing"; }
}

/**
 * state: the view at `now` (performance.now()); the staging survives a message about the
 * same decision, and `saved` (net.loadStaging) restores it after a reload.
 */
export function viewArrived(T, msg, now, saved) {
  if (msg.hand !== T.hand) T.log = [];
  T.view = msg.view;
  // The rules travel once, in the welcome's table: the screen reads them with the view.
  if (!T.view.rules && T.info) T.view.rules = T.info.rules;
  // The engine seat of this hand (null: out of the tournament or sitting out).
  if (T.role === "seat") T.seat = msg.view.seat;
  T.hand = msg.hand;
  T.clocks = msg.clocks || [];
  T.clocksAt = now;
  if (Array.isArray(msg.log)) T.log = msg.log;
  else if (msg.last) T.log.push(msg.last);
  if (msg.ack !== null && msg.ack !== undefined && T.sending === msg.ack) T.sending = null;
  if (T.hints && T.hints.version !== msg.version) T.hints = null;
  if (T.view.phase === "showdown") T.lastShowdown = { hand: msg.hand, view: T.view };
  S.syncStaging(T, saved);
}

/** hand_end at `now`: the countdown to the next hand, or the end of the session. */
export function handEnded(T, msg, now) {
  T.lastEnd = msg;
  T.nextHandAt = msg.session_over ? 0 : now + (msg.next_hand_in || 0) * 1000;
  if (msg.session_over) T.sessionOver = true;
  if (T.info) T.info.hands_played = (T.info.hands_played || 0) + 1;
}

export function sessionEnded(T, msg) {
  T.sessionOver = true;
  T.leaveAsk = false;
  if (msg.ledger) T.ledger = msg.ledger;
  if (T.info) { T.info.status = "finished"; T.info.left = msg.left || null; }
}

export function seatsChanged(T, msg) {
  if (T.info) { T.info.seats = msg.seats; T.info.status = msg.status; }
}

/**
 * The server's notices: a decision placed when time ran out, a bot taking a seat.
 * `myChair` is the chair of this browser's seat (net.getSeat), if any. Returns the words.
 */
export function noticeArrived(T, msg, myChair) {
  if ((msg.kind === "leaving" || msg.kind === "left") && T.info) T.info.left = msg.player;
  const mine = T.role === "seat" && msg.chair === myChair;
  let text = msg.text || "";
  if (msg.kind === "timeout") {
    text = mine
      ? t("notice.timeout_mine", { placed: msg.action ? placedWords(msg.action) : t("notice.your_cards") })
      : t("notice.timeout", { player: msg.player });
  } else if (NOTICE_KEYS[msg.kind] && language() !== "en") {
    text = t(NOTICE_KEYS[msg.kind], { player: msg.player });
  }
  T.notice = { kind: msg.kind, text, mine };
  return text;
}

/**
 * hint: the suggestions for this version. When they were asked for to be played at once
 * ("auto"), returns what to do: the best action, or null when there is none; else undefined.
 */
export function hintArrived(T, msg) {
  T.hintPending = false;
  T.hints = { version: msg.version, actions: msg.actions || [] };
  if (!T.autoPending) return undefined;
  T.autoPending = false;
  const best = T.hints.actions[0];
  return best ? best.action : null;
}

/**
 * Whether to ask the server which placements of this street foul (the `fouls` message):
 * true once per decision while this player stages a street (the answer is about the
 * player's own board and cards: another player's move, a new version, does not change
 * it; it was asked again on every version).
 */
export function foulsWanted(T) {
  const d = S.decision(T);
  if (!d || d.kind !== "street" || !S.canAct(T)) return false;
  if (T.foulsAsked && T.foulsAsked.sig === T.sig) return false;
  T.foulsAsked = { sig: T.sig };
  return true;
}

/** fouls: the server's answer, kept when it is about the decision being staged. */
export function foulsArrived(T, msg) {
  if (!T.foulsAsked || T.foulsAsked.sig !== T.sig) return false;
  T.fouls = { sig: T.sig, version: msg.version, placements: msg.fouls || {} };
  return true;
}

/** error: the action it answers is no longer awaited, nor a hint. */
export function refused(T, msg) {
  if (msg.ref !== undefined && msg.ref === T.sending) T.sending = null;
  T.hintPending = false;
  T.autoPending = false;
  if (msg.code === "hints_unavailable" || msg.code === "hints_disabled") T.noHints = true;
}

/**
 * A server error in words, by its code. In English the server's own detail follows; in
 * another language only an illegal move keeps it (its reason names the cards).
 */
export function errorText(msg) {
  const words = ERROR_WORDS[msg.code] || t("error.refused");
  const m = msg.message;
  if (!m || m === words || (language() !== "en" && msg.code !== "illegal")) return words;
  return `${words} ${m.charAt(0).toUpperCase()}${m.slice(1)}${/[.!?]$/.test(m) ? "" : "."}`;
}

// ------------------------------------------------------------------ selecting and staging

/** A card clicked in the hand: selected, or no longer when it was. */
export function pick(T, card) {
  T.selected = T.selected === card ? null : card;
}

/** The hand's card at `index` (a number key): as pick(); false when there is none. */
export function pickNth(T, index) {
  const card = S.handCards(T)[index];
  if (!card) return false;
  pick(T, card);
  return true;
}

/** The next card of the hand (the previous one backwards), the first when none is selected. */
export function pickNext(T, forward) {
  const cards = S.handCards(T);
  if (!cards.length) return false;
  const at = cards.indexOf(T.selected);
  T.selected = cards[at < 0 ? 0 : (at + (forward ? 1 : cards.length - 1)) % cards.length];
  return true;
}

/**
 * A tap on a staged card, on `line` (or the discard pile): one meaning per gesture. With
 * a card selected the tap is on the line, so the selected card goes there (`placing`;
 * `why` is staging.stage's answer: null, "" or why not); with none selected it takes the
 * tapped card back to the hand (`tookBack`: whether it did).
 * @returns {{ placing: boolean, why?: string | null, tookBack?: boolean }}
 */
export function tapStaged(T, card, line) {
  if (T.selected && line) return { placing: true, why: S.stage(T, line) };
  return { placing: false, tookBack: S.unstage(T, card) };
}

/** Takes the last staged card back: false when nothing is staged. */
export function takeBack(T) {
  if (!T.moves.length) return false;
  T.moves.pop();
  T.selected = null;
  return true;
}

/** Takes every staged card back. */
export function clearStaging(T) {
  T.moves = [];
  T.selected = null;
}

/**
 * A card dragged onto `to` (a line, "discard" or "hand"): a staged card moves (or goes back
 * to the hand), a card in hand is staged. As staging.stage: null when the staging changed,
 * "" when nothing happened, else why not.
 */
export function dropCard(T, to, card) {
  const i = T.moves.findIndex((m) => m.card === card);
  if (i >= 0) {
    const prev = T.moves.splice(i, 1)[0];
    if (to === "hand") return null;
    if (S.room(T, to) <= 0) T.moves.splice(i, 0, prev); // no room there: it stays where it was
  }
  if (to === "hand") return "";
  return S.stage(T, to, card);
}

/** A Place action (a hint's) as the staging: false when there is no decision. */
export function stageAction(T, action) {
  const d = S.decision(T);
  if (!d) return false;
  T.moves = [];
  for (const line of [...LINES, "discard"]) for (const c of action[line] || []) if (d.cards.includes(c)) T.moves.push({ card: c, to: line });
  T.selected = null;
  return true;
}

/** The board of the hand this decision is for, as the server last showed it. */
export function myBoard(T) {
  const d = S.decision(T);
  return T.view.boards.find((b) => b.seat === T.seat && b.hand === (d ? d.hand : 0));
}

/**
 * What Confirm does now: nothing ("none": no decision, not this player's turn, or an action
 * already on its way), ask for more cards ("place_first"), warn of a certain foul once
 * ("foul"; the next Confirm plays it), or send the Place action ("send").
 */
export function confirmStep(T) {
  const d = S.decision(T);
  if (!d || !S.canAct(T) || T.sending !== null) return { kind: "none" };
  if (!S.ready(T)) return { kind: "place_first", n: d.place, placed: T.moves.filter((m) => m.to !== "discard").length };
  const foul = S.certainFoul(T, myBoard(T), T.spec);
  if (foul && !T.foulAsked) {
    T.foulAsked = true;
    return { kind: "foul", reason: foul };
  }
  return { kind: "send", action: S.placeAction(T) };
}

/** The foul question answered "change": the staging stays, to be changed. */
export function foulChange(T) {
  if (!T.foulAsked) return false;
  T.foulAsked = false;
  return true;
}

/**
 * The action declaring (`yes`) or declining a surrender (`kind` "surrender") or a natural
 * ("natural"); null when this player cannot act now.
 */
export function declaration(T, kind, yes) {
  const d = S.decision(T);
  if (!d || !S.canAct(T) || T.sending !== null) return null;
  return kind === "surrender"
    ? { type: "surrender", seat: T.seat, hand: d.hand, version: T.view.version, surrender: yes }
    : { type: "claim_natural", seat: T.seat, hand: d.hand, version: T.view.version, claim: yes };
}

/** The hand's next order (dealt, rank, suit, dealt ...), kept in T.sortMode and returned. */
export function nextSortMode(T) {
  T.sortMode = NEXT_SORT[S.sortMode(T)];
  return T.sortMode;
}

/** Another of this player's decisions (two hands a seat): its own staging, `saved` if any. */
export function chooseDecision(T, index, saved) {
  T.decisionIndex = index;
  T.sig = null;
  S.syncStaging(T, saved);
}

// ------------------------------------------------------------------ hints and leaving

/** Why a hint cannot be asked for now (words to show), "" while one is on its way, else null. */
export function hintRefusal(T) {
  if (!T.info || !T.info.hints) return ERROR_WORDS.hints_disabled;
  if (T.noHints) return ERROR_WORDS.hints_unavailable;
  if (T.hintPending) return "";
  return null;
}

/** Whether the hint keys apply: H with any decision, A (play the best) with a set. */
export function hintKeyFits(T, auto) {
  const d = S.decision(T);
  return !!d && (!auto || d.kind === "set");
}

/** Leave asks first: true when this click confirms it (the message is to be sent). */
export function leaveStep(T) {
  T.leaveAsk = !T.leaveAsk;
  return !T.leaveAsk;
}
