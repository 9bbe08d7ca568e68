// @ts-check
// REST calls and the seats this browser holds. No DOM at import.

import { t } from "./i18n.js";
import { store } from "./util.js";
import { plainDetail } from "./words.js";
import { linkSeat } from "./identity.js";

export class ApiError extends Error {
  constructor(message, status = 0) { super(message); this.status = status; }
}

export async function api(method, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: body ? { "Content-Type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw new ApiError(t("http.unreachable"));
  }
  const text = await res.text();
  let data;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  // Another server of the same database plays the table: the page goes there.
  if (res.status === 409 && data && data.moved) throw new ApiError(await followTable(data.moved), 409);
  if (!res.ok) throw new ApiError(plainDetail(res.status, data), res.status);
  return data;
}

/**
 * A table played by another server of the same database (a ``moved`` message, or a 409
 * with one): this page opens there, carrying this browser's seat of the table in the
 * address's fragment (which no server sees). Returns what to tell the player: that, or
 * why not (no address known, or one this browser cannot reach).
 * @param {{table_id: string, to: string | null}} moved
 * @returns {Promise<string>}
 */
export async function followTable(moved) {
  if (!moved.to) return t("moved.unknown");
  try {
    await fetch(`${moved.to}/api/health`, { mode: "no-cors" });
  } catch {
    return t("moved.unreachable", { to: moved.to });
  }
  const seat = getSeat(moved.table_id);
  const carried = seat && seat.token ? `#seat=${encodeURIComponent(JSON.stringify({ ...seat, table: moved.table_id }))}` : "";
  location.assign(`${moved.to}${location.pathname}${location.search}${carried}`);
  return t("moved.going", { to: moved.to });
}

/** Keep a seat that followTable carried here in the fragment, and take it out of the address. */
export function keepCarriedSeat() {
  const m = location.hash.match(/^#seat=(.+)$/);
  if (!m) return;
  history.replaceState(null, "", location.pathname + location.search);
  try {
    const { table, ...seat } = JSON.parse(decodeURIComponent(m[1]));
    if (typeof table === "string" && typeof seat.token === "string") saveSeat(table, seat);
  } catch { /* not a seat of ours */ }
}

const seatKey = (tableId) => `cp.seat.${tableId}`;
export const getSeat = (tableId) => store.get(seatKey(tableId));
export function saveSeat(tableId, record) {
  store.set(seatKey(tableId), { ...(getSeat(tableId) || {}), ...record });
  const mine = store.get("cp.myTables", []);
  if (!mine.includes(tableId)) store.set("cp.myTables", [tableId, ...mine].slice(0, 50));
  // The seat becomes this browser's player's (once per page): its hands count for him.
  const token = (getSeat(tableId) || {}).token;
  if (token && !linked.has(`${tableId} ${token}`)) {
    linked.add(`${tableId} ${token}`);
    linkSeat(tableId, token);
  }
}
const linked = new Set();

/** Staged cards survive a reload: kept per table, for one decision (its signature). */
const stagingKey = (tableId) => `cp.staging.${tableId}`;
export const loadStaging = (tableId) => store.get(stagingKey(tableId));
export function saveStaging(tableId, sig, moves) {
  if (!sig || !moves.length) store.remove(stagingKey(tableId));
  else store.set(stagingKey(tableId), { sig, moves });
}

/** The server serves index.html at /, /join/ID, /table/ID and /watch/ID; a table's hands
 * live at /?hands=ID so that a reload finds the page too. */
export function parseRoute(pathname, search = "") {
  const m = pathname.match(/^\/(join|table|watch|profile)\/([^/]+)\/?$/);
  if (m) return { name: m[1], id: decodeURIComponent(m[2]) };
  const rv = pathname.match(/^\/review\/([^/]+)\/(\d+)\/?$/);
  if (rv) return { name: "review", id: decodeURIComponent(rv[1]), hand: Number(rv[2]) };
  if (/^\/(me|leaderboard)\/?$/.test(pathname)) return { name: pathname.replace(/\//g, "") };
  const hands = new URLSearchParams(search).get("hands");
  if (hands) return { name: "replay", id: hands };
  return { name: "lobby" };
}

/** A pasted invite link or a bare join code (with a table id) as a /join/ path, or null. */
export function inviteTarget(text, tableId = null, base = "http://localhost/") {
  const t = String(text || "").trim();
  if (!t) return null;
  try {
    const url = new URL(t, base);
    const r = parseRoute(url.pathname, url.search);
    if (r.name !== "lobby") return url.pathname + url.search;
  } catch { /* not a URL */ }
  if (tableId && /^[A-Za-z0-9_-]{4,}$/.test(t)) return `/join/${encodeURIComponent(tableId)}?code=${encodeURIComponent(t)}`;
  return null;
}
