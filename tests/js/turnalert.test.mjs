// Turn alerts (turnalert.js): whose turn it is and the time left, said at the start of a
// turn and once more near its end, never every second; the action bar's foul question
// and the sound toggle in the table's head (board.js, tableview.js, tableinput.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { announcement, REMIND_AT, turnOf, turnWords } from "../../src/chinese_poker/server/static/js/turnalert.js";
import * as state from "../../src/chinese_poker/server/static/js/tablestate.js";
import { myAreaHTML } from "../../src/chinese_poker/server/static/js/board.js";
import { tableMainHTML } from "../../src/chinese_poker/server/static/js/tableview.js";
import { actIntent, keyIntent } from "../../src/chinese_poker/server/static/js/tableinput.js";
import { useCatalogues } from "../../src/chinese_poker/server/static/js/i18n.js";

const catalogue = (lang) => JSON.parse(readFileSync(new URL(`../../src/chinese_poker/server/static/i18n/${lang}.json`, import.meta.url), "utf8"));
useCatalogues({ en: catalogue("en"), ru: catalogue("ru") }, "en");
const { specs } = JSON.parse(readFileSync(new URL("./eval-fixtures.json", import.meta.url), "utf8"));

/** Ann to act on Pineapple's street 2 with a 30 s clock, the state sent at 1000 ms. */
function annToAct() {
  const T = state.newTableState("t-1", "seat", { token: "k", seat: 0, player: "Ann" }, "dealt");
  state.welcomed(T, { table: { name: "Fri", seats: [], hints: false, time_limit: 30 }, spec: specs.pineapple, role: "seat", seat: 0, player: "Ann" });
  state.handStarted(T, { hand: 2 });
  const decision = { seat: 0, hand: 0, kind: "street", street: 2, cards: ["Ah", "Ad", "Kc"], place: 2, discard: 1, free: [3, 5, 0] };
  const view = { version: 9, seat: 0, to_act: [0], decisions: [decision], phase: "play", players: ["Ann", "Bob"], rules: {},
    boards: [{ seat: 0, hand: 0, player: "Ann", top: [], middle: [], bottom: ["2s", "3h", "5d", "7c", "9c"] }] };
  state.viewArrived(T, { hand: 2, version: 9, view, clocks: [{ seat: 0, remaining: 25, limit: 30, bank: 0 }], log: [] }, 1000, null);
  return { T, view };
}

test("your turn: the time left in words, said at the start and once near the end, not every second", () => {
  const { T, view } = annToAct();
  const start = turnOf(T, 1000);
  assert.equal(start.left, 25);
  assert.equal(turnWords(start), "Your turn — 0:25 left");
  let said = null;
  const spoken = [];
  for (let ms = 1000; ms <= 27000; ms += 250) {
    const next = announcement(turnOf(T, ms), said);
    said = next.said;
    if (next.words) spoken.push(next.words);
  }
  assert.deepEqual(spoken, ["Your turn — 0:25 left", `Your turn — 0:${REMIND_AT} left`]);
  state.viewArrived(T, { hand: 2, version: 10, view: { ...view, version: 10, to_act: [1] } }, 5000, null);
  assert.equal(turnOf(T, 5000), null, "Bob's turn: nothing to say, the title and icon go back");
  assert.deepEqual(announcement(null, said), { words: null, said: null });
  useCatalogues({}, "ru");
  assert.equal(turnWords({ sig: "x", left: 75 }), "Ваш ход — осталось 1:15");
  assert.equal(turnWords({ sig: "x", left: null }), "Ваш ход");
  useCatalogues({}, "en");
});

test("a spectator, a showdown or the end of the session is nobody's turn here", () => {
  const { T } = annToAct();
  assert.equal(turnOf({ ...T, role: "spectator" }, 1000), null);
  assert.equal(turnOf({ ...T, view: { ...T.view, phase: "showdown" } }, 1000), null);
  assert.equal(turnOf({ ...T, sessionOver: true }, 1000), null);
});

test("the foul question is the action bar's: the reason, change (Esc) and play it (Enter), no other buttons", () => {
  const { T } = annToAct();
  T.info.seats = [];
  const reason = { kind: "beats", line: "middle", below: "bottom", ceiling: null, text: "middle A A beats anything the bottom 9 7 5 3 2 can still become" };
  state.foulsWanted(T);
  state.foulsArrived(T, { type: "fouls", version: 9, fouls: { "0:mmd": reason } });
  state.dropCard(T, "middle", "Ah");
  state.dropCard(T, "middle", "Ad");
  const before = String(myAreaHTML(T, { touch: true }));
  assert.match(before, /id="foul-warning"/);
  assert.doesNotMatch(before, /id="foul-question"/, "asked only on Confirm");
  assert.equal(state.confirmStep(T).kind, "foul");
  const asking = String(myAreaHTML(T, { touch: true }));
  const bar = /<div class="actions-bar action-bar foul-question" id="action-bar"[\s\S]*?<\/div>/.exec(asking)[0];
  assert.match(bar, /id="foul-question"[^>]*>⚠ Fouls: middle A A beats anything/);
  assert.match(bar, /data-act="foul-change" id="foul-change-btn"[^>]*>Change</);
  assert.match(bar, /class="primary danger" data-act="confirm" id="confirm-btn"[^>]*>Play it</);
  assert.doesNotMatch(bar, /data-act="(top|middle|bottom|undo)"/);
  assert.deepEqual(actIntent("foul-change", {}), { type: "foul-change" });
  assert.deepEqual(keyIntent("Escape", "Escape", false).intent, { type: "unpick" }, "Esc: table.js answers 'change' while asked");
  state.foulChange(T);
  assert.doesNotMatch(String(myAreaHTML(T, { touch: true })), /id="foul-question"/);
  T.stageNote = "Ace of diamonds taken back to your hand.";
  assert.match(String(myAreaHTML(T, { touch: true })), /id="warnings">[\s\S]*id="stage-note" role="status">Ace of diamonds taken back/, "said with the warnings, not in a toast");
});

test("the turn sound's toggle sits in the table's head for a seat, pressed when on", () => {
  const { T } = annToAct();
  const head = (sound) => String(tableMainHTML({ ...T, sound }, { tableId: "t-1", me: {}, touch: false }));
  assert.match(head(false), /data-act="sound" id="sound-btn" aria-pressed="false"[^>]*><span class="icon" aria-hidden="true">♪<\/span><span class="label"> Sound<\/span>/);
  assert.match(head(true), /id="sound-btn" aria-pressed="true"/);
  assert.doesNotMatch(String(tableMainHTML({ ...T, role: "spectator" }, { tableId: "t-1", me: {}, touch: false })), /sound-btn/);
  assert.deepEqual(actIntent("sound", {}), { type: "sound" });
});
