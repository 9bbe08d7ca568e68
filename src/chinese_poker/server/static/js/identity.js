// @ts-check
// Who this browser is: a random player key kept in its storage and sent as the
// X-Player-Key header (docs/browser.md, "Your identity"). No DOM at import.

import { store } from "./util.js";
import { plainDetail } from "./words.js";
import { t } from "./i18n.js";

const KEY = "cp.playerKey";

/** A new random key: 32 URL-safe characters from the browser's cryptographic source. */
export function newKey() {
  const bytes = new Uint8Array(24);
  globalThis.crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** This browser's player key (made on first use). */
export function playerKey() {
  let key = store.get(KEY);
  if (typeof key !== "string" || !/^[A-Za-z0-9_-]{22,128}$/.test(key)) {
    key = newKey();
    store.set(KEY, key);
  }
  return key;
}

export function setPlayerKey(key) { store.set(KEY, key); }

/** A REST call as this player; throws an Error with the server's words. */
export async function asMe(method, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: { "X-Player-Key": playerKey(), ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw new Error(t("http.unreachable"));
  }
  const text = await res.text();
  let data;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  if (!res.ok) { throw Object.assign(new Error(plainDetail(res.status, data)), { status: res.status }); }
  return data;
}

const NAME = "cp.name";

/** This browser's player: {id, name, handle, signed_up}. His saved name becomes the
 * name the lobby and the join page offer (one identity: the profile's name at every table). */
export async function whoAmI() {
  const me = await asMe("POST", "/api/me");
  if (me && me.name) store.set(NAME, me.name);
  return me;
}

/** The name saved on this browser's profile; "" for a browser without a player (none is
 * made for it) or when the server cannot be asked. */
export async function savedName() {
  if (!store.get(KEY)) return "";
  try { return (await whoAmI()).name || ""; } catch { return ""; }
}

/** The name to seat this player under: the one typed, else the profile's, else
 * ``fallback`` (the player's language's "Player 1": the server's default is English). */
export async function nameToPlay(typed, fallback) {
  return typed || (await savedName()) || fallback;
}

/** Fill the empty name fields of ``root`` (selectors) with the profile's saved name. */
export async function offerSavedName(root, ...selectors) {
  const name = await savedName();
  if (!name) return;
  for (const sel of selectors) {
    const input = root.querySelector(sel);
    if (input && !input.value) input.value = name;
  }
}

/** Make a seat this player's (its hands then count for his rating); quiet on failure:
 * playing never depends on it. */
export async function linkSeat(tableId, token) {
  try { await asMe("POST", "/api/me/seats", { table_id: tableId, token }); } catch { /* offline or old server */ }
}
