// @ts-check
// The table waits for a reader (issue 40 item 1; docs/server-protocol.md `hold`): a seated
// player who opens the review or the replay of the hand just played asks the table to hold
// the next deal (30 s at most, once per hand); closing it lets the deal come. Everybody
// sees who the table waits for and for how long; the reader sees it on the overlay.

import { t } from "./i18n.js";

/** The table this page plays (its state and a quiet send), for the overlays; else null. */
let current = null;

/** A `hold` message into T.holds (chair -> {player, until}), `now` in performance.now() ms. */
export function holdArrived(T, msg, now) {
  T.holds = { ...(T.holds || {}) };
  if (msg.seconds === null || msg.seconds === undefined) delete T.holds[msg.chair];
  else T.holds[msg.chair] = { player: msg.player, until: now + msg.seconds * 1000 };
}

/** When the next deal comes, the holds counted (0: not known, or no deal to come). */
export function dealAt(T) {
  if (!T.nextHandAt) return 0;
  return Math.max(T.nextHandAt, ...Object.values(T.holds || {}).map((h) => h.until));
}

/** The players (not this one) the table waits for now: [{chair, player, until}]. */
export function othersHolding(T, now) {
  return Object.entries(T.holds || {})
    .filter(([chair, h]) => !(T.role === "seat" && Number(chair) === T.seat) && h.until > now)
    .map(([chair, h]) => ({ chair: Number(chair), player: h.player, until: h.until }));
}

/** Whole seconds from `now` to `until` (never below 0). */
export const secondsLeft = (until, now) => Math.max(0, Math.ceil((until - now) / 1000));

/** The words "the table waits for Ann: 27 s" for the others' holds (empty: none). */
export function othersHoldText(T, now) {
  const holding = othersHolding(T, now);
  if (!holding.length) return "";
  const until = Math.max(...holding.map((h) => h.until));
  return t("hold.waits_for", { who: holding.map((h) => h.player).join(", "), s: secondsLeft(until, now) });
}

/**
 * The holds of table `tableId`, kept in T from the socket's messages. `send(msg)` sends on
 * the table's socket (the message's id, or null); `render()` redraws the screen.
 * onMessage(msg) is true for a message it took whole: `hold`, and the refusal of its own
 * ask (a hold too late or a second one this hand: the overlay stays, the deal comes).
 * @param {any} T @param {string} tableId
 * @param {{ send: (msg: any) => (number | null), render: () => void }} io
 */
export function tableHolds(T, tableId, { send, render }) {
  T.holds = {};
  const asked = new Set();
  const quiet = (msg) => {
    if (!T.ws || T.ws.readyState !== WebSocket.OPEN) return null;
    const id = send(msg);
    if (id !== null) asked.add(id);
    return id;
  };
  current = { T, tableId, send: quiet };
  function onMessage(msg) {
    if (msg.type === "hold") {
      holdArrived(T, msg, performance.now());
      render();
      return true;
    }
    if (msg.type === "hand_start") T.holds = {};
    if (msg.type === "error" && asked.has(msg.ref)) {
      asked.delete(msg.ref);
      return true;
    }
    return false;
  }
  function stop() { if (current && current.T === T) current = null; }
  return { onMessage, stop };
}

/** Whether `T` is this page's seat between hand `hand` and the next one. */
export function canHold(T, hand) {
  return T.role === "seat" && !T.sessionOver && !!T.lastEnd && T.hand === hand
    && !!T.view && T.view.phase === "showdown";
}

/**
 * Hold the next deal while `overlay` (the review or the replay of hand `hand` of table
 * `tableId`) is open, when this page is a seat of that table and the hand is the one just
 * played; the overlay counts the seconds down. Nothing otherwise (the hands list's older
 * hands, a spectator, another page).
 * @param {string} tableId @param {number} hand @param {HTMLElement} overlay
 */
export function holdWhileOpen(tableId, hand, overlay) {
  const table = current;
  if (!table || table.tableId !== tableId || !canHold(table.T, hand)) return;
  const T = table.T;
  if (table.send({ type: "hold", on: true }) === null) return;
  const note = document.createElement("p");
  note.className = "hold-note";
  note.id = "hold-note";
  const head = overlay.querySelector("h2");
  if (head) head.after(note); else overlay.prepend(note);
  let said = "";
  const tick = () => {
    const mine = (T.holds || {})[T.seat];
    const text = T.hand !== hand ? t("hold.dealt")
      : mine ? t("hold.waits_for_you", { s: secondsLeft(mine.until, performance.now()) }) : "";
    if (text !== said) { note.textContent = text; said = text; }
  };
  const timer = setInterval(tick, 250);
  tick();
  const watch = new MutationObserver(() => { if (!overlay.isConnected) done(); });
  watch.observe(document.body, { childList: true });
  function done() {
    clearInterval(timer);
    watch.disconnect();
    // Still between the same hands: the deal need not wait any longer (the server
    // ignores a release it has no hold for).
    if (T.hand === hand && current === table) table.send({ type: "hold", on: false });
  }
}
