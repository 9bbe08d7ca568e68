// The table screen's state (tablestate.js) fed with the server's messages and the
// player's intents, and the input's mapping of keys and buttons to intents (tableinput.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as state from "../../src/chinese_poker/server/static/js/tablestate.js";
import { actIntent, keyIntent } from "../../src/chinese_poker/server/static/js/tableinput.js";
import { handCards } from "../../src/chinese_poker/server/static/js/staging.js";
import { useCatalogues } from "../../src/chinese_poker/server/static/js/i18n.js";

useCatalogues({ en: JSON.parse(readFileSync(new URL("../../src/chinese_poker/server/static/i18n/en.json", import.meta.url), "utf8")) }, "en");
const { specs } = JSON.parse(readFileSync(new URL("./eval-fixtures.json", import.meta.url), "utf8"));

const SEATED = { token: "key", seat: 0, player: "Ann" };

/** Ann seated at a Pineapple table on street 2: three cards, two to place, one to discard. */
function street2(cards = ["Ah", "Kd", "2c"], bottom = ["5s", "5h", "6d", "7c", "8c"]) {
  const T = state.newTableState("t-1", "seat", SEATED, "dealt");
  state.welcomed(T, { table: { name: "Fri", seats: [], hints: true }, spec: specs.pineapple, role: "seat", seat: 0, player: "Ann" });
  state.handStarted(T, { hand: 4 });
  const decision = { seat: 0, hand: 0, kind: "street", street: 2, cards, place: 2, discard: 1, free: [3, 5, 0] };
  const view = { version: 9, seat: 0, to_act: [0], decisions: [decision], phase: "play", players: ["Ann", "Bob"],
    boards: [{ seat: 0, hand: 0, player: "Ann", top: [], middle: [], bottom }] };
  state.viewArrived(T, { hand: 4, version: 9, view, clocks: [], log: [] }, 1000, null);
  return T;
}

test("a seat key makes a seat, none a spectator; welcome and a hand set what the screen shows", () => {
  assert.equal(state.newTableState("t-1", "seat", null, null).role, "spectator");
  assert.equal(state.newTableState("t-1", "spectator", SEATED, null).role, "spectator");
  const T = street2();
  assert.deepEqual([T.role, T.seat, T.hand, T.info.status, T.clocksAt], ["seat", 0, 4, "playing", 1000]);
  assert.deepEqual(handCards(T), ["Ah", "Kd", "2c"]);
});

test("a stale seat key: the page watches instead, and says so once; a table without spectators ends there", () => {
  const T = state.newTableState("t-1", "seat", SEATED, null);
  const stale = { text: "Your seat key is no longer valid.", ways: ["lobby"] };
  assert.equal(state.closedWith(T, 4401, stale), true, "connect again");
  assert.deepEqual([T.role, T.closed.code, T.closed.final], ["spectator", 4401, undefined]);
  assert.equal(state.closedWith(T, 4403, { text: "No spectators.", ways: ["lobby"] }), false);
  assert.deepEqual([T.closed.code, T.closed.final], [4403, true]);
  assert.match(T.closed.text, /./);
  assert.notEqual(T.closed.text, "No spectators.", "the stale key's own words");
  const U = state.newTableState("t-1", "seat", SEATED, null);
  state.closedWith(U, 4401, stale);
  assert.equal(state.welcomed(U, { table: { name: "Fri" }, role: "spectator", seat: null, player: null }), stale.text, "said once more when watching");
  assert.equal(U.closed, null);
  const V = state.newTableState("t-1", "spectator", null, null);
  assert.equal(state.closedWith(V, 4404, { text: "No such table.", ways: ["lobby"] }), false);
  assert.deepEqual(V.closed, { text: "No such table.", ways: ["lobby"], code: 4404, final: true });
});

test("selecting: a click toggles, number keys pick by place, arrows go round the hand", () => {
  const T = street2();
  state.pick(T, "Kd");
  assert.equal(T.selected, "Kd");
  state.pick(T, "Kd");
  assert.equal(T.selected, null);
  assert.equal(state.pickNth(T, 2), true);
  assert.equal(T.selected, "2c");
  assert.equal(state.pickNth(T, 5), false, "no sixth card");
  assert.equal(T.selected, "2c");
  state.pickNext(T, true);
  assert.equal(T.selected, "Ah", "after the last comes the first");
  state.pickNext(T, false);
  assert.equal(T.selected, "2c");
});

test("staging by dragging: a card in hand is staged, a staged card moves or goes back, a full line keeps it where it was", () => {
  const T = street2();
  assert.equal(state.dropCard(T, "top", "Ah"), null);
  assert.equal(state.dropCard(T, "middle", "Ah"), null);
  assert.deepEqual(T.moves, [{ card: "Ah", to: "middle" }]);
  assert.equal(state.dropCard(T, "bottom", "Ah"), "", "no room on the bottom: nothing happens");
  assert.deepEqual(T.moves, [{ card: "Ah", to: "middle" }], "still where it was");
  assert.match(state.dropCard(T, "bottom", "Kd"), /bottom line is full/, "a card from the hand is told why");
  assert.equal(state.dropCard(T, "hand", "Ah"), null);
  assert.deepEqual(T.moves, []);
  assert.equal(state.dropCard(T, "hand", "Kd"), "", "a card in hand dropped on the hand: nothing");
});

test("taking back: the last card, then everything; a new decision starts empty", () => {
  const T = street2();
  state.dropCard(T, "top", "Ah");
  state.dropCard(T, "middle", "Kd");
  T.foulAsked = true;
  assert.equal(state.takeBack(T), true);
  assert.deepEqual(T.moves, [{ card: "Ah", to: "top" }]);
  assert.equal(T.foulAsked, false);
  state.clearStaging(T);
  assert.equal(state.takeBack(T), false, "nothing left to take back");
  state.dropCard(T, "top", "Ah");
  state.handStarted(T, { hand: 5 });
  assert.deepEqual(T.moves, []);
});

test("what a confirm sends: nothing before the cards are placed, then the Place action with the rest discarded", () => {
  const T = street2();
  assert.deepEqual(state.confirmStep(T), { kind: "place_first", n: 2, placed: 0 });
  state.dropCard(T, "top", "Ah");
  state.dropCard(T, "middle", "Kd");
  const step = state.confirmStep(T);
  assert.equal(step.kind, "send");
  assert.deepEqual(step.action, { type: "place", seat: 0, hand: 0, version: 9, top: ["Ah"], middle: ["Kd"], bottom: [], discard: ["2c"] });
  T.sending = 3;
  assert.deepEqual(state.confirmStep(T), { kind: "none" }, "one action on its way at a time");
  state.viewArrived(T, { hand: 4, version: 10, ack: 3, view: { ...T.view, version: 10, to_act: [1] } }, 2000, null);
  assert.equal(T.sending, null, "the state that answers it ends the wait");
  assert.deepEqual(state.confirmStep(T), { kind: "none" }, "not this player's turn");
});

const MIDDLE_FOULS = { kind: "beats", line: "middle", below: "bottom", ceiling: null, text: "middle A A beats anything the bottom 9 7 5 3 2 can still become" };

test("the page asks the server which placements foul once per decision, and keeps the answer for it", () => {
  const T = street2(["Ah", "Ad", "Kc"], ["2s", "3h", "5d", "7c", "9c"]);
  assert.equal(state.foulsWanted(T), true, "the street's staging starts");
  assert.equal(state.foulsWanted(T), false, "asked already");
  assert.equal(state.foulsArrived(T, { type: "fouls", version: 9, fouls: { "0:mmd": MIDDLE_FOULS } }), true);
  assert.deepEqual(T.fouls, { sig: T.sig, version: 9, placements: { "0:mmd": MIDDLE_FOULS } });
  state.viewArrived(T, { hand: 4, version: 10, view: { ...T.view, version: 10 } }, 2000, null);
  assert.equal(state.foulsWanted(T), false, "another player's move: the answer still holds");
  state.viewArrived(T, { hand: 4, version: 11, view: { ...T.view, version: 11, decisions: [{ ...T.view.decisions[0], cards: ["2h", "3h", "4h"] }] } }, 3000, null);
  assert.equal(state.foulsArrived(T, { type: "fouls", version: 10, fouls: {} }), false, "an answer about the last street is dropped");
  assert.equal(state.foulsWanted(T), true, "the next street: asked once again");
  assert.equal(state.foulsWanted(T), false);
  const waiting = street2();
  waiting.view.to_act = [1];
  assert.equal(state.foulsWanted(waiting), false, "not this player's turn");
});

test("the foul question stands for the staging it was asked about: any card moved ends it", () => {
  const T = street2(["Ah", "Ad", "Kc"], ["2s", "3h", "5d", "7c", "9c"]);
  state.dropCard(T, "middle", "Ah");
  state.dropCard(T, "middle", "Ad");
  T.foulAsked = true;
  assert.equal(T.foulAsked, true);
  state.dropCard(T, "top", "Ad");
  assert.equal(T.foulAsked, false, "a card moved");
  state.dropCard(T, "middle", "Ad");
  T.foulAsked = true;
  state.dropCard(T, "discard", "Kc");
  assert.equal(T.foulAsked, false, "a card staged");
  T.foulAsked = true;
  state.viewArrived(T, { hand: 4, version: 10, view: { ...T.view, version: 10, decisions: [{ ...T.view.decisions[0], cards: ["2h", "3h", "4h"] }] } }, 3000, null);
  assert.equal(T.foulAsked, false, "a new decision");
});

test("a certain foul is asked about once (the action bar's question), then the next confirm sends it; 'change' keeps the staging", () => {
  const T = street2(["Ah", "Ad", "Kc"], ["2s", "3h", "5d", "7c", "9c"]);
  state.foulsWanted(T);
  state.foulsArrived(T, { type: "fouls", version: 9, fouls: { "0:mmd": MIDDLE_FOULS } });
  state.dropCard(T, "middle", "Ah");
  state.dropCard(T, "middle", "Ad");
  const ask = state.confirmStep(T);
  assert.equal(ask.kind, "foul");
  assert.equal(ask.reason, MIDDLE_FOULS.text);
  assert.equal(state.foulChange(T), true);
  assert.equal(T.moves.length, 2, "the staging stays, to be changed");
  assert.equal(state.foulChange(T), false, "no question to answer");
  assert.equal(state.confirmStep(T).kind, "foul", "asked again after a change");
  assert.equal(state.confirmStep(T).kind, "send");
});

test("one meaning per tap on a staged card: with a card selected it places that card on the line; with none it takes the card back", () => {
  const T = street2();
  state.dropCard(T, "top", "Ah");
  state.pick(T, "Kd");
  assert.deepEqual(state.tapStaged(T, "Ah", "top"), { placing: true, why: null });
  assert.deepEqual(T.moves, [{ card: "Ah", to: "top" }, { card: "Kd", to: "top" }], "placed, not taken back");
  assert.equal(T.selected, null);
  assert.deepEqual(state.tapStaged(T, "Ah", "top"), { placing: false, tookBack: true });
  assert.deepEqual(T.moves, [{ card: "Kd", to: "top" }]);
  state.pick(T, "2c");
  assert.match(state.tapStaged(T, "Kd", "bottom").why, /bottom line is full/, "no room there: told why, nothing taken back");
  assert.deepEqual(T.moves, [{ card: "Kd", to: "top" }]);
  state.dropCard(T, "discard", "Ah");
  state.pick(T, "2c");
  assert.match(state.tapStaged(T, "Ah", "discard").why, /discard/i, "the discard pile is full: told why");
  assert.deepEqual(state.tapStaged(T, "Zz", null), { placing: false, tookBack: false });
});

test("a hint: staged as the staging, or played at once when asked for with auto", () => {
  const T = street2();
  assert.equal(state.stageAction(T, { type: "place", top: ["Kd"], middle: [], bottom: [], discard: ["2c", "Zz"] }), true);
  assert.deepEqual(T.moves, [{ card: "Kd", to: "top" }, { card: "2c", to: "discard" }]);
  T.hintPending = true;
  assert.equal(state.hintArrived(T, { version: 9, actions: [{ action: { type: "place" } }] }), undefined);
  assert.equal(T.hintPending, false);
  T.autoPending = true;
  assert.deepEqual(state.hintArrived(T, { version: 9, actions: [{ action: { type: "place", top: ["Ah"] } }] }), { type: "place", top: ["Ah"] });
  T.autoPending = true;
  assert.equal(state.hintArrived(T, { version: 9, actions: [] }), null, "auto with nothing to play");
  assert.equal(state.hintRefusal(T), null);
  T.hintPending = true;
  assert.equal(state.hintRefusal(T), "", "one on its way");
  state.refused(T, { code: "hints_unavailable" });
  assert.match(state.hintRefusal(T), /./);
});

test("declaring a surrender or a natural, leaving after asking, the card order going round", () => {
  const T = street2();
  assert.deepEqual(state.declaration(T, "surrender", true), { type: "surrender", seat: 0, hand: 0, version: 9, surrender: true });
  assert.deepEqual(state.declaration(T, "natural", false), { type: "claim_natural", seat: 0, hand: 0, version: 9, claim: false });
  assert.equal(state.leaveStep(T), false, "the first click asks");
  assert.equal(T.leaveAsk, true);
  assert.equal(state.leaveStep(T), true, "the second leaves");
  assert.deepEqual([state.nextSortMode(T), state.nextSortMode(T), state.nextSortMode(T)], ["rank", "suit", "dealt"]);
});

test("a notice in words: this player's own timeout, another's", () => {
  const T = street2();
  assert.match(state.noticeArrived(T, { kind: "timeout", chair: 0, player: "Ann" }, 0), /your cards/i);
  assert.equal(T.notice.mine, true);
  assert.match(state.noticeArrived(T, { kind: "timeout", chair: 1, player: "Bob" }, 0), /Bob/);
  assert.equal(T.notice.mine, false);
});

test("keys and buttons as intents", () => {
  assert.deepEqual(keyIntent("3", "Digit3", false), { intent: { type: "pick-nth", index: 2 }, prevent: "done" });
  assert.deepEqual(keyIntent("#", "Digit3", true), { intent: { type: "pick-nth", index: 12 }, prevent: "done" });
  assert.deepEqual(keyIntent("T", "KeyT", true), { intent: { type: "stage", line: "top" }, prevent: "always" });
  assert.deepEqual(keyIntent("Backspace", "Backspace", false).intent, { type: "undo" });
  assert.deepEqual(keyIntent("Escape", "Escape", false), { intent: { type: "unpick" }, prevent: "never" });
  assert.deepEqual(keyIntent("a", "KeyA", false).intent, { type: "hint", auto: true, key: true });
  assert.equal(keyIntent("q", "KeyQ", false), null);
  assert.deepEqual(actIntent("discard", {}), { type: "stage", line: "discard" });
  assert.deepEqual(actIntent("noclaim", {}), { type: "declare", kind: "natural", yes: false });
  assert.deepEqual(actIntent("use-hint", { index: "1" }), { type: "use-hint", index: 1 });
  assert.deepEqual(actIntent("kick", { chair: "2" }), { type: "kick", chair: 2 });
  assert.deepEqual(actIntent("confirm", {}), { type: "confirm" });
  assert.equal(actIntent("nonsense", {}), null);
});

test("a state's view reads the rules the welcome brought (the server sends them once a socket)", () => {
  const T = state.newTableState("t-1", "seat", SEATED, "dealt");
  const rules = { variant: "pineapple", surrender_cost: 3 };
  state.welcomed(T, { table: { name: "Fri", seats: [], hints: true, rules }, spec: specs.pineapple, role: "seat", seat: 0, player: "Ann" });
  state.handStarted(T, { hand: 1 });
  const view = { version: 0, seat: 0, to_act: [1], decisions: [], phase: "play", players: ["Ann", "Bob"], boards: [] };
  state.viewArrived(T, { hand: 1, version: 0, view, clocks: [], log: [] }, 0, null);
  assert.deepEqual(T.view.rules, rules);
  state.viewArrived(T, { hand: 1, version: 1, view: { ...view, version: 1 }, clocks: [], last: null }, 10, null);
  assert.equal(T.view.rules.surrender_cost, 3, "every later state as well");
});
