// @ts-check
// The page's shared widgets: toasts, the banner, the connection badge, copying text.
// DOM only when called (nothing touches the document at import).

import { t } from "./i18n.js";
import { html, setHTML } from "./util.js";

// `any`: the screens look up their own markup (inputs, buttons, dialogs) by selector.
/** @type {(sel: string, root?: ParentNode) => any} */
export const $ = (sel, root = document) => root.querySelector(sel);
/** @type {(sel: string, root?: ParentNode) => any[]} */
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

export function toast(message, kind = "error", ms = 7000) {
  const box = $("#toasts");
  // The same message twice in a row is shown once (a retry must not stack errors).
  const last = box.lastElementChild;
  if (last && last.querySelector(".msg").textContent === message) last.remove();
  const el = document.createElement("div");
  el.className = `toast ${kind}`;
  el.setAttribute("role", kind === "error" ? "alert" : "status");
  setHTML(el, html`<span class="msg"></span><button class="close" aria-label="${t("common.dismiss")}">×</button>`);
  $(".msg", el).textContent = message;
  $(".close", el).onclick = () => el.remove();
  box.appendChild(el);
  while (box.children.length > 4) box.firstChild.remove();
  if (ms) setTimeout(() => el.remove(), ms);
  return el;
}

export function banner(message, kind = "error") {
  const el = $("#banner");
  if (!message) { el.hidden = true; el.textContent = ""; return; }
  el.hidden = false;
  el.className = kind;
  el.textContent = message;
}

export function connBadge(text, ok) {
  const el = $("#conn");
  if (!text) { el.hidden = true; return; }
  el.hidden = false;
  el.textContent = text;
  el.className = `conn ${ok ? "ok" : "bad"}`;
}

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    toast(t("common.copied"), "ok", 2500);
  } catch {
    const input = document.createElement("textarea");
    input.value = text;
    document.body.appendChild(input);
    input.select();
    try { document.execCommand("copy"); toast(t("common.copied"), "ok", 2500); }
    catch { toast(t("common.copy_failed")); }
    input.remove();
  }
}

/** True on a touch-first device (no hover, coarse pointer): no keyboard hints there. */
export const isTouch = () => !!(globalThis.matchMedia && matchMedia("(hover: none) and (pointer: coarse)").matches);

/**
 * One clear message and the ways on (lobby, watch, join, rematch) as links.
 * @param {string} text @param {string[]} ways @param {string} [tableId]
 */
export function deadEndHTML(text, ways, tableId) {
  const id = encodeURIComponent(tableId || "");
  const links = {
    lobby: html`<a href="/" data-link><button type="button" class="primary">${t("way.lobby")}</button></a>`,
    watch: html`<a href="/watch/${id}" data-link><button type="button" id="way-watch">${t("way.watch")}</button></a>`,
    hands: html`<a href="/?hands=${id}" data-link><button type="button">${t("way.hands")}</button></a>`,
  };
  return html`<div class="panel dead-end" id="dead-end"><p class="warning">${text}</p><div class="actions-bar">${ways.map((w) => links[w])}</div></div>`;
}
