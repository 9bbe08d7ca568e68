// @ts-check
// The table's chat (issue 40 item 9): short lines and quick phrases, each phrase sent as
// a key and shown in the reader's own language; every line written with textContent,
// never as markup. A player hides another's lines (kept in localStorage, per table): the
// server still sends them, this page does not show them. On a desktop the chat is a panel
// beside the table; on a phone or a narrower window it is a button in the top bar with the
// count of lines not read, which opens the panel (style.css: a column beside the table at
// 601-900 px, a sheet above the pinned action bar on a phone), never over a board, the
// hand or Confirm. The pure parts come first (node --test imports them); tableChat does
// the rest.

import { t } from "./i18n.js";
import { store } from "./util.js";

/** The quick phrases' keys, as the server takes them (server/table_chat.py PHRASES). */
export const PHRASES = ["hello", "gl", "gg", "nh", "wp", "thinking", "thanks", "sorry", "oops", "bye"];
/** The most characters of a line, after white space is folded (table_chat.TEXT_LIMIT). */
export const TEXT_LIMIT = 200;
/** How many lines the page keeps, as the server does (table_chat.KEEP_LINES). */
export const KEEP_LINES = 50;
/** Where the hidden players are kept: {tableId: [speaker, ...]}. */
export const MUTE_KEY = "cp.chat_muted";

/** Who said a line, as the hidden list names him: "seat:N", or "watchers" for spectators. */
export const speaker = (line) => (line.seat === null || line.seat === undefined ? "watchers" : `seat:${line.seat}`);

/** Whether this reader has the chat: a player always, a spectator where the table lets him. */
export const chatAllowed = (role, info) => role === "seat" || !!(info && info.spectator_chat);

/**
 * A line's words in the reader's language: who said it and what (a phrase by its key).
 * @returns {{ who: string, text: string, phrase: boolean }}
 */
export function lineWords(line, mySeat) {
  let who = line.name;
  if (line.seat === null || line.seat === undefined) who = t("chat.spectator");
  else if (line.seat === mySeat) who = t("chat.you", { name: line.name });
  if (line.phrase) return { who, text: t(`chat.phrase.${line.phrase}`), phrase: true };
  return { who, text: String(line.text ?? ""), phrase: false };
}

/** `lines` with `more` added, each line once (by its number), in order, the last KEEP_LINES. */
export function mergeLines(lines, more) {
  const byNumber = new Map(lines.map((line) => [line.n, line]));
  for (const line of more) byNumber.set(line.n, line);
  return [...byNumber.values()].sort((a, b) => a.n - b.n).slice(-KEEP_LINES);
}

/**
 * Typed text as the server will show it (NFC, every run of white space one space), or
 * null when it cannot be said: nothing left, or over TEXT_LIMIT characters. The server
 * checks the rest (invisible or control characters).
 */
export function typedText(text) {
  const shown = String(text).normalize("NFC").split(/\s+/u).filter(Boolean).join(" ");
  return shown && [...shown].length <= TEXT_LIMIT ? shown : null;
}

/** The speakers hidden at table `tableId` in the kept list `all`. */
export const mutedAt = (all, tableId) => new Set((all && all[tableId]) || []);

/** The kept list with `who` hidden at `tableId` if he was not, shown again if he was. */
export function toggledMute(all, tableId, who) {
  const muted = mutedAt(all, tableId);
  if (muted.has(who)) muted.delete(who);
  else muted.add(who);
  const out = { ...(all || {}) };
  if (muted.size) out[tableId] = [...muted].sort();
  else delete out[tableId];
  return out;
}

/** The count of lines not read once `line` came: counted while the panel is closed, for
 * another person's line that is not hidden. */
export function unreadAfter(count, line, { open, mySeat, muted }) {
  if (open || (mySeat !== null && line.seat === mySeat) || muted.has(speaker(line))) return count;
  return count + 1;
}

/** The words of a refused line (the server's error to its sender). */
export function refusalWords(msg) {
  if (msg.code === "busy") return t("chat.too_fast");
  if (msg.code === "bad_message") return t("chat.bad_text");
  return t("chat.not_sent", { reason: msg.message });
}

// ---------------------------------------------------------------------------- the page

/** An element with a class and text (never markup). */
function made(tag, className = "", text = "") {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text) el.textContent = text;
  return el;
}

/** A speech bubble drawn in SVG (an emoji shows as a box where no emoji font is installed). */
function bubble() {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 20 20");
  svg.setAttribute("width", "18");
  svg.setAttribute("height", "18");
  svg.setAttribute("aria-hidden", "true");
  svg.classList.add("chat-icon");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", "M3 3h14a1 1 0 0 1 1 1v9a1 1 0 0 1-1 1H9l-4 4v-4H3a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1z");
  path.setAttribute("fill", "currentColor");
  svg.append(path);
  return svg;
}

/**
 * The chat of table `tableId` for the state T, sending with `send` (the table socket's):
 * onMessage(msg) takes the chat's messages and its own errors (true: handled), mount(screen)
 * puts the panel into the table screen (each render calls it), stop() takes it away.
 * @param {any} T @param {string} tableId @param {{ send: (msg: any) => number | null }} opts
 */
export function tableChat(T, tableId, { send }) {
  let lines = [];
  let unread = 0;
  let allowed = false;
  let mySeat = null;
  let seatsSig = "";
  /** @type {Map<number, string | null>} the lines in flight: their ids and texts */
  const pending = new Map();

  const panel = made("section", "chat-panel");
  panel.id = "chat";
  panel.hidden = true;
  panel.setAttribute("aria-labelledby", "chat-title");
  const head = made("div", "chat-head");
  const title = made("h2", "", t("chat.title"));
  title.id = "chat-title";
  const close = made("button", "small chat-close", "×");
  close.type = "button";
  close.setAttribute("aria-label", t("chat.close"));
  head.append(title, close);
  const log = made("div", "chat-log");
  log.id = "chat-log";
  log.setAttribute("role", "log");
  log.setAttribute("aria-live", "polite");
  log.setAttribute("aria-label", t("chat.log"));
  log.tabIndex = 0; // a long log scrolls by keyboard too
  const phrases = made("div", "chat-phrases");
  phrases.setAttribute("role", "group");
  phrases.setAttribute("aria-label", t("chat.phrases"));
  for (const key of PHRASES) {
    const b = made("button", "small chat-phrase", t(`chat.phrase.${key}`));
    b.type = "button";
    b.dataset.phrase = key;
    phrases.append(b);
  }
  const form = made("form", "chat-form");
  const input = /** @type {HTMLInputElement} */ (made("input"));
  input.id = "chat-input";
  input.type = "text";
  input.maxLength = TEXT_LIMIT;
  input.autocomplete = "off";
  input.placeholder = t("chat.placeholder");
  input.setAttribute("aria-label", t("chat.placeholder"));
  const sendButton = made("button", "", t("chat.send"));
  sendButton.id = "chat-send";
  /** @type {HTMLButtonElement} */ (sendButton).type = "submit";
  form.append(input, sendButton);
  const problem = made("p", "chat-problem");
  problem.setAttribute("role", "status");
  const mutes = made("div", "chat-mutes");
  const kept = made("p", "chat-kept help", t("chat.kept"));
  panel.append(head, log, phrases, form, problem, mutes, kept);

  const toggle = made("button", "chat-toggle");
  toggle.id = "chat-toggle";
  toggle.type = "button";
  toggle.hidden = true;
  toggle.setAttribute("aria-controls", "chat");
  toggle.setAttribute("aria-expanded", "false");
  const icon = bubble();
  const badge = made("span", "chat-unread");
  badge.setAttribute("aria-hidden", "true");
  toggle.append(icon, made("span", "label", t("chat.open")), badge);
  const topbar = document.getElementById("topbar");
  if (topbar) topbar.insertBefore(toggle, topbar.querySelector(".spacer")?.nextSibling ?? null);

  const muted = () => mutedAt(store.get(MUTE_KEY, {}), tableId);
  const isOpen = () => panel.classList.contains("open");

  function drawToggle() {
    toggle.hidden = !allowed;
    toggle.setAttribute("aria-expanded", String(isOpen()));
    badge.textContent = unread ? String(unread) : "";
    const count = unread ? `, ${t("chat.unread", { n: unread })}` : "";
    toggle.setAttribute("aria-label", `${t("chat.open")}${count}`);
  }

  function drawLines() {
    const hidden = muted();
    const shown = lines.filter((line) => !hidden.has(speaker(line)));
    log.replaceChildren(...(shown.length ? shown : [null]).map((line) => {
      if (!line) return made("p", "chat-empty", t("chat.empty"));
      const words = lineWords(line, mySeat);
      const p = made("p", words.phrase ? "chat-line phrase" : "chat-line");
      p.append(made("b", "who", words.who), document.createTextNode(" "), made("span", "said", words.text));
      return p;
    }));
    log.scrollTop = log.scrollHeight;
  }

  /** One hide button per other person at the table (bots do not chat), and spectators. */
  function drawMutes() {
    const seats = ((T.info && T.info.seats) || []).filter((s) => s.kind === "human" && s.name && s.seat !== mySeat);
    const watchers = !!(T.info && T.info.spectator_chat);
    const sig = JSON.stringify([seats.map((s) => [s.seat, s.name]), watchers, [...muted()]]);
    if (sig === seatsSig) return;
    seatsSig = sig;
    const hidden = muted();
    const who = seats.map((s) => ({ key: `seat:${s.seat}`, name: s.name }));
    if (watchers) who.push({ key: "watchers", name: t("chat.spectators") });
    mutes.replaceChildren();
    if (!who.length) return;
    mutes.append(made("span", "help", `${t("chat.mute_title")}:`));
    for (const w of who) {
      const b = made("button", "small chat-mute", w.name);
      b.type = "button";
      b.dataset.mute = w.key;
      b.setAttribute("aria-pressed", String(hidden.has(w.key)));
      b.title = t("chat.mute", { name: w.name });
      b.setAttribute("aria-label", t("chat.mute", { name: w.name }));
      mutes.append(b);
    }
  }

  function say(body) {
    const id = send({ type: "chat", ...body });
    if (id !== null) pending.set(id, body.text ?? null);
    return id;
  }

  function open(yes) {
    panel.classList.toggle("open", yes);
    if (yes) unread = 0;
    drawToggle();
    // A phone: the chat is a sheet above the pinned action bar (style.css); the hand and
    // the player's own board are brought up above it, not left under it.
    if (yes && matchMedia("(max-width: 600px)").matches) {
      document.querySelector("#table-main .hand-zone")?.scrollIntoView({ block: "end" });
    }
    if (yes && !matchMedia("(hover: none)").matches) input.focus({ preventScroll: true });
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = typedText(input.value);
    if (text === null) { problem.textContent = t("chat.bad_text"); return; }
    if (say({ text }) !== null) problem.textContent = "";
  });
  phrases.addEventListener("click", (ev) => {
    const b = ev.target instanceof Element ? ev.target.closest("[data-phrase]") : null;
    if (b instanceof HTMLElement && b.dataset.phrase) say({ phrase: b.dataset.phrase });
  });
  mutes.addEventListener("click", (ev) => {
    const b = ev.target instanceof Element ? ev.target.closest("[data-mute]") : null;
    if (!(b instanceof HTMLElement) || !b.dataset.mute) return;
    store.set(MUTE_KEY, toggledMute(store.get(MUTE_KEY, {}), tableId, b.dataset.mute));
    drawMutes();
    drawLines();
    /** @type {HTMLElement | null} */ (mutes.querySelector(`[data-mute="${b.dataset.mute}"]`))?.focus();
  });
  toggle.addEventListener("click", () => open(!isOpen()));
  close.addEventListener("click", () => { open(false); toggle.focus(); });
  // Escape closes it wherever the focus is: a tap on the button leaves the focus there.
  function onEscape(ev) {
    if (ev.key === "Escape" && isOpen()) { open(false); toggle.focus(); }
  }
  document.addEventListener("keydown", onEscape);

  /** The chat's messages and its own errors: true when handled here. */
  function onMessage(msg) {
    switch (msg.type) {
      case "welcome":
        mySeat = msg.role === "seat" ? msg.seat : null;
        allowed = chatAllowed(msg.role, msg.table);
        panel.hidden = !allowed;
        drawToggle();
        return false;
      case "chat_lines":
        lines = mergeLines([], msg.lines || []);
        drawLines();
        return true;
      case "chat": {
        lines = mergeLines(lines, [msg.line]);
        if (pending.has(msg.ref)) {
          // The field is emptied only of the line said: a next one typed meanwhile stays.
          if (pending.get(msg.ref) === typedText(input.value)) input.value = "";
          pending.delete(msg.ref);
        } else unread = unreadAfter(unread, msg.line, { open: isOpen(), mySeat, muted: muted() });
        drawLines();
        drawToggle();
        return true;
      }
      case "error":
        if (!pending.delete(msg.ref)) return false;
        problem.textContent = refusalWords(msg);
        return true;
      default:
        return false;
    }
  }

  /** Puts the panel into the table screen (once) and brings its hide buttons up to date. */
  function mount(screen) {
    if (screen && panel.parentElement !== screen) screen.append(panel);
    if (allowed) drawMutes();
  }

  function stop() {
    panel.remove();
    toggle.remove();
    document.removeEventListener("keydown", onEscape);
  }

  drawLines();
  return { onMessage, mount, stop };
}
