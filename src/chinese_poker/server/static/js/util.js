// Small pure helpers shared by every screen: escaping, signs, card markup, sorting.
// No DOM at import (node --test imports this module).

import { RANKS, SUITS } from "./eval.js";
import { t } from "./i18n.js";

export const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
// Numbers only: a value that is not one (say, from a hostile shared link on the desk)
// shows as "?" and never reaches the page as markup.
export const signed = (n) => {
  const v = Number(n);
  if (!Number.isFinite(v)) return "?";
  return v > 0 ? `+${v}` : `${v}`;
};
export const signClass = (n) => (n > 0 ? "pos" : n < 0 ? "neg" : "");
export const SUIT_SYMBOL = { s: "♠", h: "♥", d: "♦", c: "♣" };
const RANK_NAME = { T: "10" };

const RANK_KEY = { 2: "rank.2", 3: "rank.3", 4: "rank.4", 5: "rank.5", 6: "rank.6", 7: "rank.7", 8: "rank.8", 9: "rank.9", T: "rank.T", J: "rank.J", Q: "rank.Q", K: "rank.K", A: "rank.A" };
const SUIT_KEY = { s: "suit.s", h: "suit.h", d: "suit.d", c: "suit.c" };

/** "Ah" -> "ace of hearts", in the current language. */
export function cardLabel(name) {
  return t("card.label", { rank: t(RANK_KEY[name[0]] || name[0]), suit: t(SUIT_KEY[name[1]] || name[1]) });
}

export function cardHTML(name, { tag = "div", cls = "", attrs = "", key = null } = {}) {
  const r = name[0], s = name[1];
  const label = cardLabel(name);
  return `<${tag} class="card suit-${s} ${cls}" data-card="${esc(name)}" title="${esc(label)}" aria-label="${esc(label)}" ${attrs}>` +
    (key ? `<span class="key">${esc(key)}</span>` : "") +
    `<span class="rank">${RANK_NAME[r] || r}</span><span class="suit">${SUIT_SYMBOL[s]}</span></${tag}>`;
}
export const backHTML = () => `<div class="card back" aria-label="${esc(t("card.back"))}"></div>`;
export const slotHTML = () => `<div class="slot"></div>`;

export function sortCards(cards, mode) {
  if (mode === "rank") {
    return [...cards].sort((a, b) => RANKS.indexOf(b[0]) - RANKS.indexOf(a[0]) || SUITS.indexOf(a[1]) - SUITS.indexOf(b[1]));
  }
  if (mode === "suit") {
    return [...cards].sort((a, b) => SUITS.indexOf(a[1]) - SUITS.indexOf(b[1]) || RANKS.indexOf(b[0]) - RANKS.indexOf(a[0]));
  }
  return [...cards];
}

/**
 * The key that selects the i-th card of the hand (0-based): 1..9, 0 for the 10th, then
 * Shift+1..Shift+9 ("⇧1".."⇧9") for cards 11..19, so a 13- or 17-card deal is covered.
 */
export function cardKey(i) {
  if (i < 9) return String(i + 1);
  if (i === 9) return "0";
  if (i < 19) return `⇧${i - 9}`;
  return null;
}

/** The card index a key press selects (the inverse of cardKey), or -1. */
export function keyIndex(code, shift) {
  const m = /^(?:Digit|Numpad)([0-9])$/.exec(code || "");
  if (!m) return -1;
  const d = Number(m[1]);
  if (!shift) return d === 0 ? 9 : d - 1;
  return d === 0 ? -1 : 9 + d;
}

/** localStorage, or nothing (private mode, node): values are JSON. */
export const store = {
  get(key, fallback = null) {
    try { const v = globalThis.localStorage.getItem(key); return v === null ? fallback : JSON.parse(v); }
    catch { return fallback; }
  },
  set(key, value) { try { globalThis.localStorage.setItem(key, JSON.stringify(value)); } catch { /* private mode */ } },
  remove(key) { try { globalThis.localStorage.removeItem(key); } catch { /* private mode */ } },
};
