// @ts-check
// Small pure helpers shared by every screen: escaping, signs, card markup, sorting.
// No DOM at import (node --test imports this module).

import { RANKS, SUITS } from "./eval.js";
import { t } from "./i18n.js";

/** Text as HTML text or a quoted attribute value: & < > " ' become character references. */
export const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Markup that html`` built, or that raw() vouches for: put into other html`` as it is.
 * Everything else interpolated into html`` is text and is escaped.
 */
export class SafeHTML {
  /** @param {string} markup */
  constructor(markup) {
    this.markup = markup;
    Object.freeze(this);
  }
  toString() { return this.markup; }
}

/** @param {unknown} value @returns {string} */
function htmlPart(value) {
  if (value instanceof SafeHTML) return value.markup;
  if (Array.isArray(value)) return value.map(htmlPart).join("");
  // As esc(): a missing optional part shows nothing (false stays "false", as in an
  // attribute such as aria-selected="${on}").
  return esc(value);
}

/**
 * The page's markup, escaped by default: html`<b>${name}</b>` escapes `name` unless it is
 * itself html`` (or raw()); an array puts its items one after another, each by the same rule.
 * @param {TemplateStringsArray} strings
 * @param {...unknown} values
 * @returns {SafeHTML}
 */
export function html(strings, ...values) {
  let out = strings[0];
  values.forEach((value, i) => { out += htmlPart(value) + strings[i + 1]; });
  return new SafeHTML(out);
}

/** The items one after another with `separator` between them, each escaped unless markup. */
export const joinHTML = (/** @type {unknown[]} */ items, /** @type {string} */ separator) =>
  new SafeHTML(items.map(htmlPart).join(esc(separator)));

/**
 * Text with one piece of markup where `marker` stands, say a <b>handle</b> inside a
 * translated sentence (t() with the marker as the value, then this).
 * @param {string} text @param {string} marker @param {unknown} markup
 */
export const textWith = (text, marker, markup) =>
  // A function, so that "$&" or "$'" in the markup is not read as a replacement pattern.
  new SafeHTML(esc(text).replace(esc(marker), () => htmlPart(markup)));

/** Markup built elsewhere that escapes its own text (say, cardHTML): taken as it is. */
export const raw = (/** @type {unknown} */ markup) => new SafeHTML(String(markup ?? ""));

/** @param {unknown} markup @returns {string} */
function checkedMarkup(markup) {
  if (!(markup instanceof SafeHTML)) throw new TypeError("the page's markup must come from html`` or raw(), not a plain string");
  return markup.markup;
}

// The only writes of markup into the page (eslint.config.js forbids the others), so that
// each is html`` and its text is escaped.
/** An element's content. @param {Element} el @param {SafeHTML} markup */
export function setHTML(el, markup) { el.innerHTML = checkedMarkup(markup); }
/** An element itself, replaced. @param {Element} el @param {SafeHTML} markup */
export function replaceHTML(el, markup) { el.outerHTML = checkedMarkup(markup); }
/** Markup added at the end of an element. @param {Element} el @param {SafeHTML} markup */
export function appendHTML(el, markup) { el.insertAdjacentHTML("beforeend", checkedMarkup(markup)); }
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

/**
 * A card ("Ah") as markup: a <div>, or a <button> with its own attributes.
 * @param {string} name
 * @param {{tag?: "div" | "button", cls?: string, attrs?: SafeHTML, key?: string | null}} [options]
 */
export function cardHTML(name, { tag = "div", cls = "", attrs = html``, key = null } = {}) {
  const r = name[0], s = name[1];
  const label = cardLabel(name);
  const shown = `${key || ""}${RANK_NAME[r] || r}${SUIT_SYMBOL[s]}`;
  // The tag is one of two names (never text); the rest goes through html``.
  const open = raw(tag === "button" ? "button" : "div");
  // The spoken name starts with what is shown ("1K♠ king of spades"): speech input
  // users say what they see (WCAG 2.5.3, axe's label-content-name-mismatch).
  return html`<${open} class="card suit-${s} ${cls}" data-card="${name}" title="${label}" aria-label="${shown} ${label}" ${attrs}>${key ? html`<span class="key">${key}</span>` : ""}<span class="rank">${RANK_NAME[r] || r}</span><span class="suit">${SUIT_SYMBOL[s]}</span></${open}>`;
}
export const backHTML = () => html`<div class="card back" aria-label="${t("card.back")}"></div>`;
export const slotHTML = () => html`<div class="slot"></div>`;

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
