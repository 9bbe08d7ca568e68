// @ts-check
// The table screen's input: clicks, keys, drags and touch drags on the page, each turned
// into an intent (plain data, below) that table.js carries out on the state. Only the
// gesture in progress (the card dragged, the touch ghost) is kept here.

import { LINES } from "./eval.js";
import { t } from "./i18n.js";
import { $, $$ } from "./ui.js";
import { cardLabel, keyIndex } from "./util.js";
import { lineName } from "./words.js";

/**
 * What the player asked for. `type` says what; the other fields are its details:
 * show-pair {id} (a mark's row of the breakdown), pick {card}, pick-nth {index},
 * pick-next {forward}, unpick, stage {line} (the selected card, else the first),
 * drop {to, card}, unstage {card, line} (a tap on a staged card: tablestate.tapStaged),
 * undo, reset, confirm, foul-change (the foul question's "change"), declare {kind, yes},
 * hint {auto, key} (`key`: only where the hint keys apply), use-hint {index}, sort,
 * decision {index}, replay {hand}, copy-invite, rematch, follow, leave, stay, next,
 * kick {chair}, sound (the turn alert's sound on or off).
 * @typedef {{ type: string, [detail: string]: any }} Intent
 */

/** The intent of a data-act button, from its name and its data-* attributes (null: none). */
export function actIntent(act, data) {
  if (LINES.includes(act) || act === "discard") return { type: "stage", line: act };
  switch (act) {
    case "play": return { type: "declare", kind: "surrender", yes: false };
    case "surrender": return { type: "declare", kind: "surrender", yes: true };
    case "claim": return { type: "declare", kind: "natural", yes: true };
    case "noclaim": return { type: "declare", kind: "natural", yes: false };
    case "hint": return { type: "hint", auto: false, key: false };
    case "auto": return { type: "hint", auto: true, key: false };
    case "use-hint": return { type: "use-hint", index: Number(data.index) };
    case "decision": return { type: "decision", index: Number(data.index) };
    case "replay": return { type: "replay", hand: Number(data.hand) };
    case "kick": return { type: "kick", chair: Number(data.chair) };
    case "undo": case "reset": case "confirm": case "foul-change": case "sort": case "copy-invite":
    case "rematch": case "follow": case "leave": case "stay": case "next": case "sound":
      return { type: act };
    default: return null;
  }
}

const LINE_KEYS = { t: "top", m: "middle", b: "bottom", x: "discard" };

/**
 * The intent of a key (`key` and `code` as KeyboardEvent's), and when the key's default
 * is prevented: "always", "done" (when the intent did something) or "never"; null when
 * the table has no use for the key.
 * @returns {{ intent: Intent, prevent: "always" | "done" | "never" } | null}
 */
export function keyIntent(key, code, shift) {
  const k = key.toLowerCase();
  const i = keyIndex(code, shift);
  if (i >= 0 || /^[0-9]$/.test(k)) {
    return { intent: { type: "pick-nth", index: i >= 0 ? i : (k === "0" ? 9 : Number(k) - 1) }, prevent: "done" };
  }
  if (k === "arrowright" || k === "arrowleft") return { intent: { type: "pick-next", forward: k === "arrowright" }, prevent: "done" };
  if (LINE_KEYS[k]) return { intent: { type: "stage", line: LINE_KEYS[k] }, prevent: "always" };
  if (k === "u" || k === "backspace") return { intent: { type: "undo" }, prevent: "always" };
  if (k === "enter") return { intent: { type: "confirm" }, prevent: "always" };
  if (k === "escape") return { intent: { type: "unpick" }, prevent: "never" };
  if (k === "h") return { intent: { type: "hint", auto: false, key: true }, prevent: "never" };
  if (k === "a") return { intent: { type: "hint", auto: true, key: true }, prevent: "never" };
  return null;
}

/** The cards staged on the page, each with where it is ("top", ..., "discard"). */
function stagedOnPage() {
  /** @type {Map<string, string>} */
  const out = new Map();
  for (const el of $$("[data-unstage]")) {
    const where = /** @type {HTMLElement | null} */ (el.closest("[data-line], [data-drop]"));
    out.set(el.dataset.unstage || "", where ? where.dataset.line || where.dataset.drop || "" : "");
  }
  return out;
}

/**
 * What a key did, in words for a screen reader: the card selected, the card placed and
 * where, the card taken back (compared with the staged cards before the key: `before`);
 * "" when nothing is worth saying.
 * @param {Intent} intent @param {Map<string, string>} before
 */
export function keyWords(intent, before) {
  if (!["pick", "pick-nth", "pick-next", "stage", "drop", "unstage", "undo"].includes(intent.type)) return "";
  const now = stagedOnPage();
  if (intent.type === "pick" || intent.type === "pick-nth" || intent.type === "pick-next") {
    const picked = /** @type {HTMLElement | null} */ ($("#hand .card.selected"));
    return picked ? t("live.selected", { card: cardLabel(picked.dataset.card || "") }) : "";
  }
  for (const [card, where] of now) {
    if (!before.has(card)) {
      const line = where === "discard" ? t("term.discard") : lineName(where);
      return t("live.staged", { card: cardLabel(card), line });
    }
  }
  for (const card of before.keys()) {
    if (!now.has(card)) return t("live.taken_back", { card: cardLabel(card) });
  }
  return "";
}

/** Say ``words`` in the page's polite live region for play (made on first use). */
export function announce(words) {
  let live = document.getElementById("play-live");
  if (!live) {
    live = document.createElement("div");
    live.id = "play-live";
    live.className = "sr-only";
    live.setAttribute("aria-live", "polite");
    live.setAttribute("aria-atomic", "true");
    document.body.appendChild(live);
  }
  live.textContent = words;
}

/** A selector that finds a control again once the screen is drawn anew (null: none). */
export function focusKey(el) {
  const data = el.dataset || {};
  for (const name of ["pick", "unstage", "act", "drop"]) {
    if (data[name] !== undefined) return `[data-${name}="${CSS.escape(data[name])}"]`;
  }
  return el.id ? `#${CSS.escape(el.id)}` : null;
}

/** The element under `target` (an event's) that matches `selector`, if any. */
function under(target, selector) {
  return target instanceof Element ? /** @type {HTMLElement | null} */ (target.closest(selector)) : null;
}

/**
 * Listens to the player on `app` (and to keys on the document) and hands each intent to
 * `carry` (true: it did something). Returns the function that stops listening.
 * @param {HTMLElement} app @param {(intent: Intent) => boolean} carry
 */
export function listenToPlayer(app, carry) {
  // Touch drag (HTML5 drag and drop does not fire for fingers): a card follows the
  // finger once it moved 10 px, and drops on the line under it; a tap stays a tap.
  const touchDrag = { card: null, x: 0, y: 0, source: null, ghost: null };
  let dragCard = null;

  // A control pressed from the keyboard (Enter or Space: a click of detail 0) keeps the
  // focus where the screen drawn anew has it again, else the hand's first card: the
  // focus fell back to the page's start, and the next Tab began from the top bar.
  function onClick(ev) {
    const active = document.activeElement;
    const key = ev.detail === 0 && active instanceof HTMLElement && app.contains(active) ? focusKey(active) : null;
    const before = key ? stagedOnPage() : null;
    const intent = clicked(ev);
    if (!key) return;
    // Pressed from the keyboard: said, as a key of the table's is.
    const words = intent && before ? keyWords(intent, before) : "";
    if (words) announce(words);
    if (document.activeElement && document.activeElement !== document.body) return;
    const again = /** @type {HTMLElement | null} */ (app.querySelector(key) || app.querySelector("#hand [data-pick]"));
    if (again) again.focus();
  }

  /** Carries out a click; returns its intent (null: none). @returns {Intent | null} */
  function clicked(ev) {
    /** @param {Intent} intent */
    const done = (intent) => (carry(intent) ? intent : null);
    const mark = under(ev.target, "[data-pair]");
    if (mark) {
      ev.preventDefault();
      return done({ type: "show-pair", id: mark.dataset.pair });
    }
    const pick = under(ev.target, "[data-pick]");
    if (pick) return done({ type: "pick", card: pick.dataset.pick });
    const un = under(ev.target, "[data-unstage]");
    if (un) {
      // The line under the card: with a card selected the tap places it there.
      const line = under(un, "[data-drop]");
      return done({ type: "unstage", card: un.dataset.unstage, line: line ? line.dataset.drop : null });
    }
    const act = under(ev.target, "[data-act]");
    if (act) {
      const intent = actIntent(act.dataset.act, act.dataset);
      return intent ? done(intent) : null;
    }
    const drop = under(ev.target, "[data-drop]");
    if (drop && drop.dataset.drop !== "hand") return done({ type: "stage", line: drop.dataset.drop });
    return null;
  }

  function onKey(ev) {
    if (under(ev.target, "input, textarea, select")) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if ($(".overlay")) return;
    // Enter on a focused control (a card, a line, a button reached with Tab) is that
    // control's: it was taken as "confirm", so a card could not be chosen with Tab + Enter.
    if (ev.key === "Enter" && under(ev.target, "button, a, [role='button']")) return;
    const press = keyIntent(ev.key, ev.code, ev.shiftKey);
    if (!press) return;
    // Keys act on what is not focused (a card chosen by its number): say what they did.
    const before = stagedOnPage();
    const done = carry(press.intent);
    if (press.prevent === "always" || (press.prevent === "done" && done)) ev.preventDefault();
    if (done) {
      const words = keyWords(press.intent, before);
      if (words) announce(words);
    }
  }

  function dropOn(zone, card) {
    if (zone && card) carry({ type: "drop", to: zone.dataset.drop, card });
  }
  function onDragStart(ev) {
    const el = under(ev.target, "[data-pick], [data-unstage]");
    if (!el) return;
    dragCard = el.dataset.pick || el.dataset.unstage;
    ev.dataTransfer.setData("text/plain", dragCard);
    ev.dataTransfer.effectAllowed = "move";
  }
  function onDragOver(ev) {
    const z = under(ev.target, "[data-drop]");
    if (!z) return;
    ev.preventDefault();
    $$(".drop-hover", app).forEach((e) => e !== z && e.classList.remove("drop-hover"));
    z.classList.add("drop-hover");
  }
  function onDragLeave(ev) {
    const z = under(ev.target, "[data-drop]");
    if (z && !z.contains(ev.relatedTarget)) z.classList.remove("drop-hover");
  }
  function onDrop(ev) {
    const z = under(ev.target, "[data-drop]");
    if (!z) return;
    ev.preventDefault();
    const card = ev.dataTransfer.getData("text/plain") || dragCard;
    dragCard = null;
    z.classList.remove("drop-hover");
    dropOn(z, card);
  }
  // A touch's later events go to the element first touched, even once a state that
  // arrived mid-drag drew the screen anew and took it out of the page: there they no
  // longer reach `app`, so they are listened to on that element itself.
  /** @type {EventTarget | null} */
  let touched = null;
  function stopFollowing() {
    if (!touched) return;
    touched.removeEventListener("touchmove", onTouchMove);
    touched.removeEventListener("touchend", onTouchEnd);
    touched.removeEventListener("touchcancel", onTouchCancel);
    touched = null;
  }
  function onTouchStart(ev) {
    const el = under(ev.target, "[data-pick], [data-unstage]");
    if (!el || ev.touches.length !== 1) return;
    stopFollowing();
    touchDrag.card = el.dataset.pick || el.dataset.unstage;
    touchDrag.x = ev.touches[0].clientX;
    touchDrag.y = ev.touches[0].clientY;
    touchDrag.source = el;
    touched = ev.target;
    touched.addEventListener("touchmove", onTouchMove, { passive: false });
    touched.addEventListener("touchend", onTouchEnd, { passive: false });
    touched.addEventListener("touchcancel", onTouchCancel);
  }
  function onTouchCancel() {
    stopFollowing();
    touchDrag.card = null;
    if (touchDrag.ghost) touchDrag.ghost.remove();
    touchDrag.ghost = null;
    $$(".drop-hover", app).forEach((e) => e.classList.remove("drop-hover"));
  }
  function onTouchMove(ev) {
    if (!touchDrag.card) return;
    const t = ev.touches[0];
    if (!touchDrag.ghost) {
      if (Math.hypot(t.clientX - touchDrag.x, t.clientY - touchDrag.y) < 10) return;
      touchDrag.ghost = touchDrag.source.cloneNode(true);
      touchDrag.ghost.classList.add("drag-ghost");
      document.body.appendChild(touchDrag.ghost);
    }
    ev.preventDefault();
    touchDrag.ghost.style.left = `${t.clientX - 20}px`;
    touchDrag.ghost.style.top = `${t.clientY - 30}px`;
    const zone = under(document.elementFromPoint(t.clientX, t.clientY), "[data-drop]");
    $$(".drop-hover", app).forEach((e) => e !== zone && e.classList.remove("drop-hover"));
    if (zone) zone.classList.add("drop-hover");
  }
  function onTouchEnd(ev) {
    stopFollowing();
    if (!touchDrag.card) return;
    const card = touchDrag.card;
    touchDrag.card = null;
    if (!touchDrag.ghost) return;
    touchDrag.ghost.remove();
    touchDrag.ghost = null;
    const t = ev.changedTouches[0];
    const zone = under(document.elementFromPoint(t.clientX, t.clientY), "[data-drop]");
    $$(".drop-hover", app).forEach((e) => e.classList.remove("drop-hover"));
    // The drag's own click is cancelled here, not by ignoring the next taps for a while
    // (that swallowed a quick tap after a drag).
    if (ev.cancelable) ev.preventDefault();
    dropOn(zone, card);
  }

  /** @type {[string, (ev: any) => void, AddEventListenerOptions?][]} */
  const onApp = [
    ["click", onClick], ["dragstart", onDragStart], ["dragover", onDragOver],
    ["dragleave", onDragLeave], ["drop", onDrop],
    ["touchstart", onTouchStart, { passive: true }],
  ];
  for (const [type, fn, opts] of onApp) app.addEventListener(type, fn, opts);
  document.addEventListener("keydown", onKey);
  return () => {
    onTouchCancel();
    document.removeEventListener("keydown", onKey);
    for (const [type, fn] of onApp) app.removeEventListener(type, fn);
  };
}
