// @ts-check
// The table screen on the page: the markup of tableview.js (built from the state T)
// written into it, the clocks and the next-hand countdown ticking between renders, and
// a breakdown row brought into view. Reads T, never changes what it holds.

import { $, $$ } from "./ui.js";
import { getSeat } from "./net.js";
import { esc, html, raw, setHTML } from "./util.js";
import { clockBar, clockFor, clockText } from "./clock.js";
import { tableMainHTML, tableSideHTML } from "./tableview.js";
import { dealAt, othersHoldText } from "./tablehold.js";

/**
 * The screen of table `tableId` in `app`, drawn from T. `fairWatch` is fairness.js's
 * watcher (its panel goes in the side); `touch` whether the page is used by touch.
 * @param {HTMLElement} app @param {any} T
 * @param {{ tableId: string, touch: boolean, fairWatch: { html: (hand: number, esc: (s: unknown) => string) => string } }} opts
 */
export function tablePage(app, T, { tableId, touch, fairWatch }) {
  /** Everything again: the main column and the side panel. */
  function render() {
    if (!T.alive) return;
    T.now = performance.now();
    const mainHTML = tableMainHTML(T, { tableId, me: getSeat(tableId) || {}, touch });
    if (!$(".table-screen", app)) {
      setHTML(app, html`<div class="table-screen"><div id="table-main"></div><aside class="side" id="side"></aside></div>`);
    }
    if (T.chat) T.chat.mount($(".table-screen", app)); // the chat's panel (chat.js) keeps its own content
    setHTML($("#table-main", app), mainHTML);
    renderSide();
  }

  /** Only the side panel (the ledger, the hands and the fair-deal panel change alone). */
  function renderSide() {
    const side = $("#side", app);
    if (!side) return;
    // fairness.js builds its markup as a string and escapes its own text.
    setHTML(side, tableSideHTML(T, { tableId, fair: raw(fairWatch.html(T.hand, esc)) }));
    const log = $("#log", side);
    if (log) log.scrollTop = log.scrollHeight;
  }

  /** The clocks and the next hand's countdown at `now`, without a render. */
  function tick(now) {
    for (const el of $$("[data-timer]", app)) {
      const c = clockFor(T, Number(el.dataset.timer), now);
      if (!c) continue;
      const bar = clockBar(c);
      el.querySelector(".text").textContent = clockText(c);
      /** @type {HTMLElement} */ (el.querySelector(".fill")).style.width = `${(bar.fill * 100).toFixed(1)}%`;
      el.classList.toggle("low", bar.low);
      el.classList.toggle("bank", bar.bank);
    }
    const nx = $("[data-next]", app);
    const at = dealAt(T); // a player reading the last hand holds the deal
    if (nx && at) nx.textContent = String(Math.max(0, Math.ceil((at - now) / 1000)));
    const held = $("#hold-others", app);
    if (held) held.textContent = othersHoldText(T, now);
  }

  /** A mark on a board points at its row of the breakdown: show and flash it. */
  function showPair(id) {
    const row = document.getElementById(id);
    if (!row) return;
    row.scrollIntoView({ block: "nearest" });
    row.classList.remove("flash");
    void row.offsetWidth; // restarts the flash animation
    row.classList.add("flash");
  }

  return { render, renderSide, tick, showPair };
}
