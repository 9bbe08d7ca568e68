// @ts-check
// Turn alerts: the signs that it is this player's turn, for a player who looks at another
// tab, listens, or feels the phone. The tab's title and icon say it while it lasts; when a
// turn starts a polite live region says whose turn it is and the time left (once, and
// once more when little time is left: never every second), the phone vibrates and, if
// the player turned the sound on (remembered in localStorage), a short tone plays.
// turnOf and turnWords are pure (node --test imports them); turnAlerts does the rest.

import { clockFor } from "./clock.js";
import { t } from "./i18n.js";
import { store } from "./util.js";

/** Where the player's choice of the turn sound is kept. */
export const SOUND_KEY = "cp.turn_sound";
/** The seconds left at which the live region says the time once more. */
export const REMIND_AT = 10;
const ICON = "/static/favicon.svg";
const TURN_ICON = "/static/favicon-turn.svg";

/**
 * This player's turn at `now`, or null when it is not: a seat with a decision to make, and
 * `left` the whole seconds on its clock (the time bank once in it; null: no clock).
 * @returns {{ sig: string, left: number | null } | null}
 */
export function turnOf(T, now) {
  const v = T.view;
  if (!v || T.role !== "seat" || T.seat === null || T.sessionOver || v.phase === "showdown") return null;
  if (!(v.to_act || []).includes(T.seat)) return null;
  const c = clockFor(T, T.seat, now);
  return { sig: `${T.hand}|${T.sig}|${v.phase}`, left: c ? Math.ceil(c.inBank ? c.bank : c.left) : null };
}

/** The words the live region says: "Your turn — 0:25 left", or "Your turn" without a clock. */
export function turnWords(turn) {
  if (turn.left === null) return t("turn.now");
  const s = Math.max(0, turn.left);
  return t("turn.left", { time: `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}` });
}

/**
 * What to say at `now` given the last turn announced (`said`: {sig, reminded}): the
 * words, or null, and what has then been said. Pure, so that the rule "at the start,
 * and once more at REMIND_AT seconds" is tested without a page.
 */
export function announcement(turn, said) {
  if (!turn) return { words: null, said: null };
  if (!said || said.sig !== turn.sig) return { words: turnWords(turn), said: { sig: turn.sig, reminded: false }, start: true };
  if (!said.reminded && turn.left !== null && turn.left <= REMIND_AT && turn.left > 0) {
    return { words: turnWords(turn), said: { ...said, reminded: true } };
  }
  return { words: null, said };
}

/** A short two-note tone (Web Audio: no sound file to load). */
function playTone() {
  const Ctx = globalThis.AudioContext || /** @type {any} */ (globalThis).webkitAudioContext;
  if (!Ctx) return;
  try {
    const ctx = new Ctx();
    const gain = ctx.createGain();
    gain.connect(ctx.destination);
    gain.gain.setValueAtTime(0.0001, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.2, ctx.currentTime + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, ctx.currentTime + 0.35);
    [660, 880].forEach((hz, i) => {
      const osc = ctx.createOscillator();
      osc.frequency.value = hz;
      osc.connect(gain);
      osc.start(ctx.currentTime + i * 0.12);
      osc.stop(ctx.currentTime + 0.12 + i * 0.12);
    });
    setTimeout(() => ctx.close(), 600);
  } catch { /* no audio device: the other signs remain */ }
}

/** Whether the player turned the turn sound on. */
export const soundOn = () => !!store.get(SOUND_KEY, false);

/** Turns the turn sound on or off (kept), with the tone as a sample when on. */
export function toggleSound() {
  const on = !soundOn();
  store.set(SOUND_KEY, on);
  if (on) playTone();
  return on;
}

/**
 * The alerts of the table state T on this page: update(now) after each render and tick,
 * stop() when the screen is left (the title and icon as they were, the region empty).
 * `touch`: the page is used by touch (a phone vibrates).
 * @param {any} T @param {{ touch: boolean }} opts
 */
export function turnAlerts(T, { touch }) {
  let said = null;
  let prefix = "";
  const live = document.getElementById("turn-live");
  const icon = /** @type {HTMLLinkElement | null} */ (document.querySelector('link[rel="icon"]'));

  function mark(mine) {
    const base = prefix && document.title.startsWith(prefix) ? document.title.slice(prefix.length) : document.title;
    prefix = mine ? `● ${t("table.your_turn")} — ` : "";
    if (document.title !== prefix + base) document.title = prefix + base;
    const href = mine ? TURN_ICON : ICON;
    if (icon && icon.getAttribute("href") !== href) icon.setAttribute("href", href);
  }

  function update(now) {
    const turn = T.alive ? turnOf(T, now) : null;
    mark(!!turn);
    const next = announcement(turn, said);
    said = next.said;
    if (next.words && live) live.textContent = next.words;
    if (!turn && live && live.textContent) live.textContent = "";
    if (next.start) {
      if (touch && typeof navigator.vibrate === "function") navigator.vibrate([120, 60, 120]);
      if (soundOn()) playTone();
    }
  }

  function stop() {
    mark(false);
    if (live) live.textContent = "";
  }

  return { update, stop };
}
