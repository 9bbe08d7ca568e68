// @ts-check
// Decision clocks: the time left of a seat from the last state message, and its bar.
// Pure: ``now`` is passed in (performance.now() in the page).

import { t } from "./i18n.js";
import { html } from "./util.js";

/** The threshold under which a clock turns red: the last 5 s, or the last fifth. */
export const lowAt = (limit) => Math.min(5, limit / 5);

/**
 * The clock of ``seat`` or null: {left, limit, bank, inBank}. ``clocks`` are the state
 * message's ({seat, remaining, limit, bank}), received at ``at``; a seat to act with no
 * clock in the message starts at the table's limit now.
 */
export function clockFor(T, seat, now) {
  if (!T.view || !(T.view.to_act || []).includes(seat) || T.view.phase === "showdown") return null;
  let c = T.clocks.find((x) => x.seat === seat);
  if (!c) {
    const limit = T.info && T.info.time_limit;
    const chair = T.info && T.info.seats && T.info.seats[seat];
    if (!limit || !chair || chair.kind !== "human") return null;
    c = { seat, remaining: limit, limit, bank: 0 };
    T.clocks = [...T.clocks, c];
  }
  const gone = (now - T.clocksAt) / 1000;
  const move = Math.max(0, c.remaining - gone);
  const bank = Math.max(0, (c.bank || 0) - Math.max(0, gone - c.remaining));
  return { left: move, limit: c.limit, bank, inBank: move <= 0 && (c.bank || 0) > 0 };
}

export function clockText(c) {
  if (c.inBank) return t("clock.in_bank", { s: Math.ceil(c.bank) });
  return c.bank ? t("clock.left_bank", { s: Math.ceil(c.left), bank: Math.ceil(c.bank) }) : t("clock.left", { s: Math.ceil(c.left) });
}

/** The bar's fill (0..1) and whether it is red. */
export function clockBar(c) {
  if (c.inBank) return { fill: 1, low: c.bank <= lowAt(c.limit), bank: true };
  return { fill: c.limit ? c.left / c.limit : 0, low: !c.bank && c.left <= lowAt(c.limit), bank: false };
}

export function timerHTML(c, seat) {
  if (!c) return "";
  const bar = clockBar(c);
  return html`<span class="timer ${bar.low ? "low" : ""} ${bar.bank ? "bank" : ""}" data-timer="${seat}" title="${t("clock.title")}"><span class="bar"><span class="fill" style="width:${(bar.fill * 100).toFixed(1)}%"></span></span><span class="text">${clockText(c)}</span></span>`;
}
