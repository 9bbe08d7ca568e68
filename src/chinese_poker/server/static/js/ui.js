// The page's shared widgets: toasts, the banner, the connection badge, copying text.
// DOM only when called (nothing touches the document at import).

import { t } from "./i18n.js";

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

export function toast(message, kind = "error", ms = 7000) {
  const box = $("#toasts");
  // The same message twice in a row is shown once (a retry must not stack errors).
  const last = box.lastElementChild;
  if (last && last.querySelector(".msg").textContent === message) last.remove();
  const el = document.createElement("div");
  el.className = `toast ${kind}`;
  el.setAttribute("role", kind === "error" ? "alert" : "status");
  el.innerHTML = `<span class="msg"></span><button class="close" aria-label="${t("common.dismiss")}">×</button>`;
  el.querySelector(".msg").textContent = message;
  el.querySelector(".close").onclick = () => el.remove();
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

/** One clear message and the ways on (lobby, watch, join, rematch) as links. */
export function deadEndHTML(esc, text, ways, tableId) {
  const id = encodeURIComponent(tableId || "");
  const links = {
    lobby: `<a href="/" data-link><button type="button" class="primary">${esc(t("way.lobby"))}</button></a>`,
    watch: `<a href="/watch/${esc(id)}" data-link><button type="button" id="way-watch">${esc(t("way.watch"))}</button></a>`,
    hands: `<a href="/?hands=${esc(id)}" data-link><button type="button">${esc(t("way.hands"))}</button></a>`,
  };
  return `<div class="panel dead-end" id="dead-end"><p class="warning">${esc(text)}</p><div class="actions-bar">${ways.map((w) => links[w] || "").join("")}</div></div>`;
}
