// A table played by another server of the same database (docs/server.md "Processes"):
// the page goes there with this browser's seat, or says why it cannot.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { api, followTable, getSeat, keepCarriedSeat, saveSeat } from "../../src/chinese_poker/server/static/js/net.js";
import { useCatalogues } from "../../src/chinese_poker/server/static/js/i18n.js";

useCatalogues({ en: JSON.parse(readFileSync(new URL("../../src/chinese_poker/server/static/i18n/en.json", import.meta.url), "utf8")) }, "en");

/** A browser's globals: storage, address bar, history and a network of reachable hosts. */
function browser(pathname, search = "", hash = "", reachable = []) {
  const items = new Map();
  const seen = { assigned: null, replaced: null, fetched: [] };
  // Stand-ins with only what net.js uses (`any`: not the whole DOM types).
  globalThis.localStorage = /** @type {any} */ ({
    getItem: (k) => (items.has(k) ? items.get(k) : null),
    setItem: (k, v) => items.set(k, String(v)),
    removeItem: (k) => items.delete(k),
  });
  globalThis.location = /** @type {any} */ ({ pathname, search, hash, assign: (url) => { seen.assigned = url; } });
  globalThis.history = /** @type {any} */ ({ replaceState: (_state, _title, url) => { seen.replaced = url; globalThis.location.hash = ""; } });
  globalThis.fetch = /** @type {any} */ (async (url, options = {}) => {
    seen.fetched.push([url, options.mode || "cors"]);
    if (url.startsWith("/api/tables/")) {
      const moved = { type: "moved", table_id: "t-1", to: "http://a:8001", message: "table t-1 is played by the server at http://a:8001; connect there" };
      return { ok: false, status: 409, text: async () => JSON.stringify({ detail: moved.message, moved }) };
    }
    if (reachable.some((host) => url.startsWith(host))) return { ok: true, status: 200, text: async () => "{}" };
    throw new TypeError("Failed to fetch");
  });
  return seen;
}

test("a moved table opens on its server, with this browser's seat carried in the fragment", async () => {
  const seen = browser("/table/t-1", "", "", ["http://a:8001"]);
  saveSeat("t-1", { token: "s-abc", seat: 1, player: "Bob" });
  const text = await followTable({ table_id: "t-1", to: "http://a:8001" });
  assert.equal(text, "This table is played by the server at http://a:8001. Taking you there…");
  assert.deepEqual(seen.fetched.filter(([u]) => u.includes("/api/health")), [["http://a:8001/api/health", "no-cors"]]);
  const [where, carried] = seen.assigned.split("#");
  assert.equal(where, "http://a:8001/table/t-1");
  // There: the seat is kept and the fragment leaves the address at once.
  browser("/table/t-1", "", `#${carried}`);
  assert.equal(getSeat("t-1"), null);
  keepCarriedSeat();
  assert.deepEqual(getSeat("t-1"), { token: "s-abc", seat: 1, player: "Bob" });
  assert.equal(globalThis.location.hash, "");
});

test("an owner this browser cannot reach, or whose address is unknown, is said in words", async () => {
  const seen = browser("/table/t-1");
  assert.equal(
    await followTable({ table_id: "t-1", to: "http://poker.invalid:8001" }),
    "This table is played by the server at http://poker.invalid:8001, which this browser cannot reach. Ask whoever runs the servers for an address you can open.",
  );
  assert.equal(await followTable({ table_id: "t-1", to: null }), "This table is played by another server, whose address is not known.");
  assert.equal(seen.assigned, null);
});

test("a REST answer 409 'moved' sends the page (an invite link with its code) to the owner", async () => {
  const seen = browser("/join/t-1", "?code=xyz", "", ["http://a:8001"]);
  await assert.rejects(api("GET", "/api/tables/t-1"), (/** @type {any} */ err) => err.status === 409 && /Taking you there/.test(err.message));
  assert.equal(seen.assigned, "http://a:8001/join/t-1?code=xyz");
});

test("a fragment that is not a seat changes nothing", () => {
  browser("/table/t-2", "", "#seat=%7Bbroken");
  keepCarriedSeat();
  assert.equal(getSeat("t-2"), null);
  browser("/table/t-2", "", "#other");
  keepCarriedSeat();
  assert.equal(globalThis.location.hash, "#other");
});
