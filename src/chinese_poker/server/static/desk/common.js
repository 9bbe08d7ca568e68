// The study desk's shared pieces: card notation, the card picker, board entry, the API.
// Card notation only (as cards.py reads it); no scoring rule lives in this file: every
// foul, royalty, natural and settlement comes from the server (/api/board, /api/score).

// The card facts and small helpers are the table's own (static/js), not copies.
import { LINES, RANKS, SIZES, SUITS } from "../js/eval.js";
import { SUIT_SYMBOL, cardLabel, esc, signed } from "../js/util.js";
import { has, language, t } from "../js/i18n.js";

export { LINES, RANKS, SIZES, SUITS, esc, signed };
const SUIT_FROM = { "♠": "s", "♤": "s", "♥": "h", "♡": "h", "♦": "d", "♢": "d", "♣": "c", "♧": "c" };

export class EntryError extends Error {}

/** "Ah" from a typed token ("ah", "10h", "A♥"); EntryError if it is not a card. */
export function parseCard(token) {
  let t = token.trim();
  if (t.startsWith("10")) t = "T" + t.slice(2);
  if (t.length !== 2) throw new EntryError(t("desk.bad_card", { token }));
  const rank = t[0].toUpperCase();
  const suit = SUIT_FROM[t[1]] || t[1].toLowerCase();
  if (!RANKS.includes(rank) || !SUITS.includes(suit)) {
    throw new EntryError(t("desk.bad_card_ranks", { token }));
  }
  return rank + suit;
}

/** The cards of a typed text ("Ah Kd 7c" or "AhKd7c"); EntryError on a bad or repeated card. */
export function parseCards(text) {
  const tokens = text.replace(/[,]/g, " ").match(/(10|[2-9tjqka])[shdc♠♥♦♣♤♡♢♧]|\S+/gi) || [];
  const out = [];
  for (const tok of tokens) {
    const card = parseCard(tok);
    if (out.includes(card)) throw new EntryError(t("desk.duplicate_card", { card }));
    out.push(card);
  }
  return out;
}

/** {top, middle, bottom} from "top | middle | bottom" (lines may be short unless complete). */
export function parseBoard(text, complete = false) {
  const parts = text.split("|");
  if (parts.length !== 3) {
    throw new EntryError(t("desk.bad_board", { text: text.trim(), n: parts.length }));
  }
  const board = { top: [], middle: [], bottom: [] };
  const seen = new Set();
  LINES.forEach((line, i) => {
    const cards = parseCards(parts[i]);
    for (const c of cards) {
      if (seen.has(c)) throw new EntryError(t("desk.duplicate_on_board", { card: c }));
      seen.add(c);
    }
    if (cards.length > SIZES[line] || (complete && cards.length !== SIZES[line])) {
      throw new EntryError(t("desk.line_too_many", { line: lineWord(line), n: cards.length, size: SIZES[line] }));
    }
    board[line] = cards;
  });
  return board;
}

/** A message whose placeholders take markup (``parts``): its words are escaped, the parts
 * are put in as they are (built by the caller with ``esc``). */
export function tHTML(key, parts) {
  const marks = Object.fromEntries(Object.keys(parts).map((k) => [k, `\uE000${k}\uE000`]));
  return esc(t(key, marks)).replace(/\uE000(\w+)\uE000/g, (whole, k) => parts[k]);
}

/** A line's name ("top") in the page's language. */
export const lineWord = (line) => t(`line.${line}`);

export const boardText = (b) => LINES.map((l) => b[l].join(" ")).join(" | ");
export const boardCount = (b) => b.top.length + b.middle.length + b.bottom.length;
export const boardCards = (b) => [...b.top, ...b.middle, ...b.bottom];
export const emptyBoard = () => ({ top: [], middle: [], bottom: [] });

export function cardHtml(card, extra = "") {
  const suit = card[1];
  return `<span class="dcard suit-${suit} ${extra}" data-card="${card}">${card[0]}<i>${SUIT_SYMBOL[suit]}</i></span>`;
}


// --------------------------------------------------------------------------- the API

export class Offline extends Error {}

/** A refusal of the study desk in the page's language: the words of its code (the server's
 * desk_refusals.py), filled with its values. In English, and for a code this page has no
 * words for, the server's own detail: it names the very card, option or line. */
export function refusalWords(data, status) {
  const detail = data && typeof data.detail === "string" ? data.detail : null;
  const code = data && typeof data.code === "string" ? `desk.refusal.${data.code}` : null;
  if (code && has(code) && !(language() === "en" && detail)) return t(code, data.params || {});
  return detail ?? t("desk.server_answered", { status });
}

/** POST/GET JSON; throws Error(words) for a refused request (its code's words in the page's
 * language, the English detail kept as the error's `detail`), Offline when unreachable. */
export async function api(path, body, method) {
  let res;
  try {
    res = await fetch(path, {
      method: method || (body === undefined ? "GET" : "POST"),
      // The page's language: the server's refusals it can put in words come in it.
      headers: { "Accept-Language": language(), ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  } catch (e) {
    throw new Offline(t("desk.offline_unreachable"));
  }
  let data = null;
  try { data = await res.json(); } catch (e) { /* not JSON */ }
  if (!res.ok) {
    const refused = new Error(refusalWords(data, res.status));
    Object.assign(refused, { code: data && data.code, detail: data && data.detail });
    throw refused;
  }
  return data;
}

/** GET `path`, kept in localStorage under `key`: offline, the last answer fetched. */
async function kept(path, key) {
  try {
    const data = await api(path);
    localStorage.setItem(key, JSON.stringify(data));
    return data;
  } catch (e) {
    const cached = localStorage.getItem(key);
    if (cached) return JSON.parse(cached);
    throw e;
  }
}

/** The presets with their rules (cached for offline use). */
export const presets = () => kept("/api/presets", "desk.presets");

/** The §13 options in players' words (rules.words, /api/options; cached for offline use). */
export const optionCatalogue = () => kept("/api/options", "desk.options");

export function registerWorker() {
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/sw.js").catch(() => {});
  }
}

// --------------------------------------------------------------------------- card picker

/**
 * A 52-card picker. `used()` gives the cards to grey out (with who holds them),
 * `allowed()` (optional) the only cards that may be tapped, `pick(card)` is called on a tap.
 */
export class Picker {
  constructor(root, { used, pick, allowed = null }) {
    this.root = root;
    this.used = used;
    this.pick = pick;
    this.allowed = allowed || (() => null);
    root.classList.add("picker");
    root.addEventListener("click", (e) => {
      const el = e.target.closest("[data-card]");
      if (el && !el.classList.contains("used")) this.pick(el.dataset.card);
    });
    this.render();
  }

  render() {
    const used = this.used();
    const only = this.allowed();
    let html = "";
    for (const s of SUITS) {
      html += `<div class="prow">`;
      for (const r of [...RANKS].reverse()) {
        const card = r + s;
        const off = used.has(card) || (only && !only.has(card));
        const title = used.has(card) ? ` title="${esc(card + ": " + used.get(card))}"` : "";
        html += `<button type="button" class="pcard suit-${s}${off ? " used" : ""}" data-card="${card}"${off ? " disabled" : ""}${title} aria-label="${esc(`${r}${SUIT_SYMBOL[s]} ${cardLabel(card)}`)}">${r}<i>${SUIT_SYMBOL[s]}</i></button>`;
      }
      html += `</div>`;
    }
    this.root.innerHTML = html;
  }
}

// --------------------------------------------------------------------------- board entry

/** What both entry boxes share: an entry refused on the spot, its reason shown under it. */
class Entry {
  /** @type {HTMLElement} */
  root = null;
  reason = "";

  refuse(reason) {
    this.reason = reason;
    const el = /** @type {HTMLElement} */ (this.root.querySelector(".reason"));
    if (el) { el.textContent = reason; el.hidden = false; }
    return false;
  }
}

/**
 * Board entry: three lines to fill by tapping a line then cards in the picker, or by
 * typing "Ah Kd 7c | ... | ...". `onChange(board)` is called after every change;
 * `others()` maps the cards held elsewhere (other boards, dead cards) to their holder.
 * Impossible entries are refused on the spot with the reason in `.reason`.
 */
export class BoardEditor extends Entry {
  constructor(root, { label, board = null, onChange = null, others = null, onFocus = null }) {
    super();
    this.root = root;
    this.label = label;
    this.board = board || emptyBoard();
    this.onChange = onChange || (() => {});
    this.others = others || (() => new Map());
    this.onFocus = onFocus || (() => {});
    this.line = this.nextLine() || "top";
    root.classList.add("board-editor");
    root.addEventListener("click", (e) => {
      const chip = e.target.closest("[data-remove]");
      if (chip) {
        const [line, card] = chip.dataset.remove.split(":");
        this.board[line] = this.board[line].filter((c) => c !== card);
        this.line = line;
        this.changed();
        return;
      }
      const lineEl = e.target.closest("[data-line]");
      if (lineEl) { this.line = lineEl.dataset.line; this.onFocus(this); this.render(); }
    });
    root.addEventListener("submit", (e) => {
      e.preventDefault();
      this.typed(root.querySelector("input.typed").value);
    });
    this.render();
  }

  nextLine() {
    return LINES.find((l) => this.board[l].length < SIZES[l]) || null;
  }

  /** Put a card on the selected line (or the next line with room). */
  add(card) {
    if (boardCount(this.board) >= 13) return this.refuse(t("desk.board_full"));
    const holder = this.others().get(card);
    if (holder) return this.refuse(t("desk.already_on", { card, where: holder }));
    if (boardCards(this.board).includes(card)) return this.refuse(t("desk.already_on_this", { card }));
    const line = this.line;
    if (this.board[line].length >= SIZES[line]) {
      return this.refuse(t("desk.line_full", { line: lineWord(line), size: SIZES[line] }));
    }
    this.board[line].push(card);
    if (this.board[line].length === SIZES[line]) this.line = this.nextLine() || line;
    this.reason = "";
    this.changed();
    return true;
  }

  typed(text) {
    let board;
    try {
      board = parseBoard(text);
    } catch (e) {
      return this.refuse(e.message);
    }
    const others = this.others();
    for (const c of boardCards(board)) {
      if (others.has(c)) return this.refuse(t("desk.already_on", { card: c, where: others.get(c) }));
    }
    this.board = board;
    this.line = this.nextLine() || "bottom";
    this.reason = "";
    this.changed();
    return true;
  }

  set(board) { this.board = board; this.line = this.nextLine() || "top"; this.render(); }

  changed() { this.render(); this.onChange(this.board); }

  render() {
    const rows = LINES.map((line) => {
      const cards = this.board[line].map((c) => `<button type="button" class="chip" data-remove="${line}:${c}" aria-label="${esc(t("desk.remove", { what: c }))}">${cardHtml(c)}</button>`).join("");
      const empty = Array(SIZES[line] - this.board[line].length).fill(`<span class="slot"></span>`).join("");
      return `<div class="bline${line === this.line ? " active" : ""}" data-line="${line}" role="button" tabindex="0"><span class="lname">${esc(lineWord(line))}</span>${cards}${empty}</div>`;
    }).join("");
    this.root.innerHTML = `
      <div class="bhead">${esc(this.label)} <span class="count">${boardCount(this.board)}/13</span></div>
      ${rows}
      <form class="typeform"><input class="typed" placeholder="${esc(t("desk.type_board"))}" value="${esc(boardCount(this.board) ? boardText(this.board) : "")}" autocomplete="off" autocapitalize="off" spellcheck="false"><button type="submit">${esc(t("desk.set"))}</button></form>
      <div class="reason" role="alert" ${this.reason ? "" : "hidden"}>${esc(this.reason || "")}</div>
      <div class="flags"></div>`;
  }
}

/**
 * A list of cards (a hand to solve, my street cards, dead cards): tap in the picker or type.
 * `max` cards at most (a 14th card is refused with the reason).
 */
export class CardsEditor extends Entry {
  constructor(root, { label, max, cards = null, onChange = null, others = null, onFocus = null, maxText = null }) {
    super();
    this.root = root;
    this.label = label;
    this.max = max;
    this.maxText = maxText || (() => t("desk.at_most_cards", { n: this.max }));
    this.cards = cards || [];
    this.onChange = onChange || (() => {});
    this.others = others || (() => new Map());
    this.onFocus = onFocus || (() => {});
    root.classList.add("cards-editor");
    root.addEventListener("click", (e) => {
      const chip = e.target.closest("[data-remove]");
      if (chip) { this.cards = this.cards.filter((c) => c !== chip.dataset.remove); this.changed(); return; }
      if (e.target.closest(".cline")) { this.onFocus(this); }
    });
    root.addEventListener("submit", (e) => {
      e.preventDefault();
      this.typed(root.querySelector("input.typed").value);
    });
    this.render();
  }

  add(card) {
    if (this.cards.length >= this.max) return this.refuse(t("desk.no_room", { why: this.maxText(), card }));
    const holder = this.others().get(card);
    if (holder) return this.refuse(t("desk.already_in", { card, where: holder }));
    if (this.cards.includes(card)) return this.refuse(t("desk.already_here", { card }));
    this.cards.push(card);
    this.reason = "";
    this.changed();
    return true;
  }

  typed(text) {
    let cards;
    try { cards = parseCards(text); } catch (e) { return this.refuse(e.message); }
    if (cards.length > this.max) return this.refuse(t("desk.too_many_cards", { why: this.maxText(), n: cards.length }));
    const others = this.others();
    for (const c of cards) if (others.has(c)) return this.refuse(t("desk.already_in", { card: c, where: others.get(c) }));
    this.cards = cards;
    this.reason = "";
    this.changed();
    return true;
  }

  set(cards) { this.cards = cards; this.render(); }

  changed() { this.render(); this.onChange(this.cards); }

  render() {
    const chips = this.cards.map((c) => `<button type="button" class="chip" data-remove="${c}" aria-label="${esc(t("desk.remove", { what: c }))}">${cardHtml(c)}</button>`).join("");
    this.root.innerHTML = `
      <div class="bhead">${esc(this.label)} <span class="count">${this.cards.length}/${this.max}</span></div>
      <div class="cline" role="button" tabindex="0">${chips || `<span class="muted">${esc(t("desk.tap_cards_below"))}</span>`}</div>
      <form class="typeform"><input class="typed" placeholder="${esc(t("desk.type_cards"))}" value="${esc(this.cards.join(" "))}" autocomplete="off" autocapitalize="off" spellcheck="false"><button type="submit">${esc(t("desk.set"))}</button></form>
      <div class="reason" role="alert" ${this.reason ? "" : "hidden"}>${esc(this.reason || "")}</div>`;
  }
}

export function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export const money = (x) => {
  const v = Number(x);
  if (!Number.isFinite(v)) return "?";
  return (v > 0 ? "+" : v < 0 ? "−" : "") + Math.abs(v).toFixed(2);
};
