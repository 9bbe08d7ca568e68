// The table waits for a reader (tablehold.js, issue 40 item 1): the holds from the
// server's `hold` messages, when the deal comes with them, the words for the others, who
// may hold; and the `stage` message of the staging (staging.js, issue 40 item 4).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { canHold, dealAt, holdArrived, othersHolding, othersHoldText, secondsLeft } from "../../src/chinese_poker/server/static/js/tablehold.js";
import { stageMessage } from "../../src/chinese_poker/server/static/js/staging.js";
import { useCatalogues } from "../../src/chinese_poker/server/static/js/i18n.js";

const catalogue = (lang) => JSON.parse(readFileSync(new URL(`../../src/chinese_poker/server/static/i18n/${lang}.json`, import.meta.url), "utf8"));
useCatalogues({ en: catalogue("en"), ru: catalogue("ru") }, "en");

/** Ann (seat 0) between hand 3 and hand 4, the next deal due at 5000 ms. */
function betweenHands(role = "seat") {
  return { role, seat: role === "seat" ? 0 : null, hand: 3, sessionOver: false, lastEnd: { hand: 3 }, nextHandAt: 5000,
    view: { phase: "showdown" }, holds: {} };
}

test("a hold puts the deal off to its end; its release brings the deal's own time back", () => {
  const T = betweenHands();
  assert.equal(dealAt(T), 5000);
  holdArrived(T, { type: "hold", chair: 1, player: "Bob", seconds: 30 }, 1000);
  assert.equal(dealAt(T), 31000);
  holdArrived(T, { type: "hold", chair: 1, player: "Bob", seconds: null }, 2000);
  assert.equal(dealAt(T), 5000);
  assert.equal(dealAt({ ...T, nextHandAt: 0 }), 0); // the session is over: no deal to come
});

test("the others see who the table waits for and the seconds left, the reader does not", () => {
  const T = betweenHands();
  holdArrived(T, { chair: 0, player: "Ann", seconds: 30 }, 0);
  assert.deepEqual(othersHolding(T, 1000), []); // Ann's own hold: her overlay says it
  assert.equal(othersHoldText(T, 1000), "");
  holdArrived(T, { chair: 2, player: "Cleo", seconds: 20 }, 0);
  assert.deepEqual(othersHolding(T, 1000).map((h) => h.player), ["Cleo"]);
  assert.equal(othersHoldText(T, 1500), "The table waits for Cleo, looking at the last hand: 19 s");
  assert.equal(othersHoldText(T, 21000), ""); // ran out
  const watcher = betweenHands("spectator");
  holdArrived(watcher, { chair: 0, player: "Ann", seconds: 30 }, 0);
  useCatalogues({}, "ru");
  try {
    assert.equal(othersHoldText(watcher, 0), "Стол ждёт: Ann смотрит прошлую руку, 30 с");
  } finally {
    useCatalogues({}, "en");
  }
  assert.equal(secondsLeft(1001, 0), 2);
  assert.equal(secondsLeft(0, 500), 0);
});

test("only a seat between the hand it reads and the next one holds", () => {
  assert.equal(canHold(betweenHands(), 3), true);
  assert.equal(canHold(betweenHands(), 2), false); // an older hand from the hands list
  assert.equal(canHold(betweenHands("spectator"), 3), false);
  assert.equal(canHold({ ...betweenHands(), view: { phase: "play" } }, 3), false); // during a hand
  assert.equal(canHold({ ...betweenHands(), sessionOver: true }, 3), false);
});

test("the stage message carries the staged cards of this street, nothing for a set", () => {
  const d = { seat: 0, hand: 0, kind: "street", street: 1, cards: ["Ah", "Kd", "7c", "7s", "2h"], place: 5, discard: 0, free: [3, 5, 5] };
  const T = { role: "seat", seat: 0, hand: 4, decisionIndex: 0, view: { decisions: [d] },
    moves: [{ card: "Ah", to: "top" }, { card: "7c", to: "bottom" }, { card: "7s", to: "bottom" }] };
  assert.deepEqual(stageMessage(T), { type: "stage", hand: 4, street: 1, top: ["Ah"], middle: [], bottom: ["7c", "7s"], discard: [] });
  T.view.decisions = [{ ...d, kind: "set", street: 0 }];
  assert.equal(stageMessage(T), null);
  T.view.decisions = [];
  assert.equal(stageMessage(T), null);
});
