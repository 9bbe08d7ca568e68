// The client's pure logic: staging, clocks, keys, words, routes, table plans, marks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as S from "../../src/chinese_poker/server/static/js/staging.js";
import { clockFor, clockBar, clockText, lowAt } from "../../src/chinese_poker/server/static/js/clock.js";
import { cardKey, keyIndex, sortCards } from "../../src/chinese_poker/server/static/js/util.js";
import { botWords, placedWords, describeAction, setRuleWords, gameName, gameHelp, optionLabel, choiceWords, rulePresets } from "../../src/chinese_poker/server/static/js/words.js";
import { inviteTarget, parseRoute } from "../../src/chinese_poker/server/static/js/net.js";
import { quickTable, parseValue } from "../../src/chinese_poker/server/static/js/tableplan.js";
import { marksFor, lineMarksHTML, pairId, scoopMarksHTML } from "../../src/chinese_poker/server/static/js/showdown.js";
import { replaySteps } from "../../src/chinese_poker/server/static/js/history.js";
import { leaveHTML, myAreaHTML, sessionOverHTML } from "../../src/chinese_poker/server/static/js/board.js";
import { useCatalogues } from "../../src/chinese_poker/server/static/js/i18n.js";

// The client's words come from its catalogues: these tests read the English one.
useCatalogues({ en: JSON.parse(readFileSync(new URL("../../src/chinese_poker/server/static/i18n/en.json", import.meta.url), "utf8")) }, "en");

const { specs } = JSON.parse(readFileSync(new URL("./eval-fixtures.json", import.meta.url), "utf8"));

function street2() {
  const d = { seat: 0, hand: 0, kind: "street", street: 2, cards: ["Ah", "Kd", "2c"], place: 2, discard: 1, free: [3, 5, 0] };
  return {
    role: "seat", seat: 0, hand: 4, decisionIndex: 0, moves: [], sig: null, selected: null, sessionOver: false, sortMode: null,
    view: { version: 9, to_act: [0], decisions: [d], boards: [{ seat: 0, hand: 0, player: "Ann", top: [], middle: [], bottom: ["5s", "5h", "6d", "7c", "8c"] }], players: ["Ann", "Bob"], phase: "play" },
  };
}

test("staging: room per line, the place limit, and the discard of what is left", () => {
  const T = street2();
  S.syncStaging(T);
  assert.equal(S.room(T, "bottom"), 0);
  assert.match(S.stage(T, "bottom", "Ah"), /bottom line is full/);
  assert.equal(S.stage(T, "top", "Ah"), null);
  assert.equal(S.ready(T), false);
  assert.equal(S.stage(T, "middle", "Kd"), null);
  assert.match(S.stage(T, "top", "2c"), /only 2 cards/);
  assert.equal(S.ready(T), true);
  const a = S.placeAction(T);
  assert.deepEqual([a.top, a.middle, a.bottom, a.discard, a.version], [["Ah"], ["Kd"], [], ["2c"], 9]);
});

test("staging survives a reload for the same decision only, and drops what no longer fits", () => {
  const T = street2();
  const sig = S.decisionSig(4, T.view.decisions[0]);
  S.syncStaging(T, { sig, moves: [{ card: "Ah", to: "top" }, { card: "Kd", to: "bottom" }, { card: "Zz", to: "top" }] });
  assert.deepEqual(T.moves, [{ card: "Ah", to: "top" }]);
  const U = street2();
  S.syncStaging(U, { sig: "other", moves: [{ card: "Ah", to: "top" }] });
  assert.deepEqual(U.moves, []);
});

test("a certain foul is known before confirming, from the server's answer for this decision", () => {
  const T = street2();
  T.view.decisions[0] = { ...T.view.decisions[0], cards: ["Ah", "Ad", "Kc"] };
  T.view.boards[0].bottom = ["2s", "3h", "5d", "7c", "9c"];
  S.syncStaging(T);
  S.stage(T, "middle", "Ah");
  assert.equal(S.certainFoul(T, T.view.boards[0], specs.pineapple), null, "no answer yet: no guess");
  const reason = { kind: "beats", line: "middle", below: "bottom", ceiling: null, text: "middle A A beats anything the bottom 9 7 5 3 2 can still become" };
  // Both aces in the middle foul, whichever card goes with them; the ace of diamonds on
  // top does not: the staging so far can still be saved.
  T.fouls = { sig: T.sig, version: 9, placements: { "0:mmd": reason, "0:mdm": reason } };
  assert.equal(S.certainFoul(T, T.view.boards[0], specs.pineapple), null, "the ace of diamonds on top still saves it");
  T.fouls.placements = { ...T.fouls.placements, "0:mtd": reason, "0:mdt": reason };
  assert.equal(S.certainFoul(T, T.view.boards[0], specs.pineapple), reason.text, "every way on fouls: so does the staging so far");
  T.fouls.placements = { "0:mdm": reason };
  S.stage(T, "middle", "Ad");
  assert.equal(S.certainFoul(T, T.view.boards[0], specs.pineapple), null, "this very placement is not listed");
  T.fouls.placements = { "0:mmd": reason };
  assert.equal(S.certainFoul(T, T.view.boards[0], specs.pineapple), reason.text);
  T.fouls.sig = "another decision";
  assert.equal(S.certainFoul(T, T.view.boards[0], specs.pineapple), null, "an answer about another decision is not used");
});

test("placements are written as the server writes them: a letter per dealt card, the counts kept", () => {
  const codes = S.placementCodes({ cards: ["Ah", "Ad", "Kc"], place: 2, free: [3, 5, 0] });
  assert.ok(codes.includes("mmd") && codes.includes("dtm") && !codes.includes("bmd") && !codes.includes("mmm"));
  assert.equal(codes.length, 12);
  assert.equal(S.placementCodes({ cards: ["2c", "3c", "4c", "5c", "6c"], place: 5, free: [3, 5, 5] }).length, 232, "a first street: 232, as the server counts");
});

test("clocks: move time, then the bank; red only near the end", () => {
  const T = { view: { to_act: [1], phase: "play" }, clocks: [{ seat: 1, remaining: 30, limit: 30, bank: 60 }], clocksAt: 0 };
  let c = clockFor(T, 1, 20_000);
  assert.equal(Math.round(c.left), 10);
  assert.equal(clockText(c), "10s left + 60s bank");
  assert.equal(clockBar(c).low, false); // 10 s left with a bank behind it is not an alarm
  c = clockFor(T, 1, 40_000);
  assert.equal(c.inBank, true);
  assert.equal(clockText(c), "time bank 50s");
  const U = { view: { to_act: [1], phase: "play" }, clocks: [{ seat: 1, remaining: 10, limit: 30, bank: 0 }], clocksAt: 0 };
  assert.equal(clockBar(clockFor(U, 1, 0)).low, false);
  assert.equal(clockBar(clockFor(U, 1, 6000)).low, true);
  assert.equal(lowAt(30), 5);
  assert.equal(clockFor(U, 0, 0), null);
});

test("number keys reach every card of a 14-card deal", () => {
  const keys = Array.from({ length: 14 }, (_, i) => cardKey(i));
  assert.deepEqual(keys.slice(8, 12), ["9", "0", "⇧1", "⇧2"]);
  for (let i = 0; i < 14; i++) {
    const k = keys[i];
    const code = `Digit${k.replace("⇧", "")}`;
    assert.equal(keyIndex(code, k.startsWith("⇧")), i);
  }
  assert.equal(keyIndex("KeyT", false), -1);
});

test("words: bots by strength, placements, the log", () => {
  assert.equal(botWords("random", null), "Beginner");
  assert.equal(botWords("mc", 2), "Strong");
  assert.equal(botWords("mc", 3), "Expert");
  assert.equal(botWords("mc", 4), "mc 4"); // not offered: no stronger than level 3
  assert.equal(placedWords({ top: ["Ah"], bottom: ["2c", "3c"], discard: ["Kd"] }), "2c 3c on the bottom, Ah on the top, discarded Kd");
  assert.equal(describeAction({ type: "place", seat: 1, top: ["Ah"], auto: true }, ["Ann", "Bob"]), "Bob: top Ah (auto, timed out)");
  assert.deepEqual(sortCards(["2c", "Ah", "Kd"], "rank"), ["Ah", "Kd", "2c"]);
});

test("routes and invites: a link, a bare code with its table, nonsense", () => {
  assert.deepEqual(parseRoute("/table/abc"), { name: "table", id: "abc" });
  assert.deepEqual(parseRoute("/", "?hands=x1"), { name: "replay", id: "x1" });
  assert.equal(inviteTarget("http://h:1/join/t1?code=ab12"), "/join/t1?code=ab12");
  assert.equal(inviteTarget("ab12cd", "t1"), "/join/t1?code=ab12cd");
  assert.equal(inviteTarget("hello there"), null);
  assert.equal(inviteTarget(""), null);
});

test("one-click tables", () => {
  const bot = quickTable({ game: "pineapple", strength: "strong", clock: "30", name: "Ann" });
  assert.deepEqual(bot.seats, [{ kind: "human", name: "Ann" }, { kind: "bot", bot: "mc", level: 2, name: "Strong bot" }]);
  const expert = quickTable({ game: "pineapple", strength: "expert", clock: "30", name: "Ann" });
  assert.deepEqual(expert.seats[1], { kind: "bot", bot: "mc", level: 3, name: "Expert bot" });
  assert.equal(bot.time_limit, 30);
  assert.equal(bot.time_bank, 60);
  assert.equal(bot.timeouts, "decision");
  assert.ok(bot.grace > 0);
  assert.equal(bot.hands, "continuous");
  const friend = quickTable({ friend: true, clock: "none" });
  assert.deepEqual(friend.seats[1], { kind: "human" });
  assert.equal(friend.time_limit, null);
  assert.equal(parseValue("true"), true);
  assert.equal(parseValue(" 2.5 "), 2.5);
  assert.equal(parseValue(""), null);
});

const SETTLEMENT = {
  players: [
    { name: "Ann", fouled: false, lines: [{ line: "top", royalty: 0 }, { line: "middle", royalty: 0 }, { line: "bottom", royalty: 6 }] },
    { name: "Bob", fouled: false, lines: [] },
  ],
  pairs: [{ a: "Ann", b: "Bob", items: [
    { kind: "line", line: "top", points: 1 }, { kind: "line", line: "middle", points: 1 }, { kind: "line", line: "bottom", points: 1 },
    { kind: "scoop", points: 3 }, { kind: "royalty", points: 6 }] }],
};

test("showdown marks: +1/−1 per opponent and line, royalties, the scoop, both sides", () => {
  const ann = marksFor(SETTLEMENT, "Ann");
  assert.deepEqual(ann.lines.top, [{ vs: "Bob", points: 1, pair: pairId("Ann", "Bob") }]);
  assert.deepEqual(ann.scoops, [{ vs: "Bob", points: 3, pair: "pair-Ann-Bob" }]);
  assert.equal(ann.royalties.bottom, 6);
  const bob = marksFor(SETTLEMENT, "Bob");
  assert.equal(bob.lines.middle[0].points, -1);
  assert.match(String(lineMarksHTML(ann, "bottom")), /\+1.*★\+6/);
  assert.match(String(lineMarksHTML(bob, "top")), /href="#pair-Ann-Bob"[^>]*>-1</);
  assert.equal(marksFor(SETTLEMENT, "Cy"), null);
});

test("a replay has a step per action and the showdown", () => {
  const steps = replaySteps({ players: ["Ann", "Bob"], button: 0, actions: [{ type: "place", seat: 1, bottom: ["2c"], discard: ["3d"] }], totals: { Ann: 1, Bob: -1 } });
  assert.equal(steps.length, 3);
  assert.deepEqual(steps[1].boards["1/0"].discard, ["3d"]);
  assert.match(steps[2].text, /Ann \+1, Bob -1/);
});

test("the own board shows the player's discards and no key hints on touch", () => {
  const T = { ...street2(), spec: specs.pineapple, info: { hints: true, seats: [] }, log: [{ type: "place", seat: 0, hand: 0, bottom: ["5s"], discard: ["Qd"] }, { type: "place", seat: 1, discard: ["Jc"] }], clocks: [], clocksAt: 0, now: 0, sending: null };
  S.syncStaging(T);
  const html = String(myAreaHTML(T, { touch: false }));
  assert.match(html, /id="my-discards"[\s\S]*data-card="Qd"/);
  assert.doesNotMatch(html, /data-card="Jc"/);
  assert.match(html, /class="key">1</);
  assert.doesNotMatch(String(myAreaHTML(T, { touch: true })), /class="key"|id="shortcuts"/);
});

test("rule words are the server's catalogue, with the rule keys as the fallback", () => {
  assert.equal(gameName("pineapple"), "pineapple"); // nothing loaded yet: the key
  setRuleWords({
    presets: [{ name: "pineapple", label: "Pineapple", help: "Keep 2, throw 1.", open_face: true }],
    options: [{ key: "royalty_award", label: "Royalties paid", help: "Who collects.", kind: "choice",
      choices: [{ value: "winner_only", label: "Only the winner of the line" }] }],
  });
  assert.equal(gameName("pineapple"), "Pineapple");
  assert.equal(gameHelp("pineapple"), "Keep 2, throw 1.");
  assert.equal(gameName("turbo"), "turbo");
  assert.equal(optionLabel("royalty_award"), "Royalties paid"); // no option key in the lobby
  assert.equal(choiceWords("royalty_award", "winner_only"), "Only the winner of the line");
  assert.equal(choiceWords("royalty_award", "net"), "net");
  assert.equal(rulePresets().length, 1);
});

test("Leave, the last hand and the rematch offer", () => {
  const info = { mode: "session", status: "playing", left: null };
  const T = { role: "seat", sessionOver: false, leaveAsk: false, info };
  assert.match(String(leaveHTML(T)), /id="leave-btn"/);
  assert.match(String(leaveHTML({ ...T, leaveAsk: true })), /id="leave-yes".*id="leave-no"/);
  assert.equal(String(leaveHTML({ ...T, role: "spectator" })), "");
  assert.equal(String(leaveHTML({ ...T, info: { ...info, mode: "tournament" } })), "");
  assert.equal(String(leaveHTML({ ...T, info: { ...info, status: "waiting" } })), "");
  assert.match(String(leaveHTML({ ...T, info: { ...info, left: "Bob" } })), /Last hand: Bob is leaving/);
  const over = { ...T, sessionOver: true, info: { ...info, status: "finished", left: "Ann <b>" } };
  assert.match(String(sessionOverHTML(over)), /Ann &#60;b&#62; left, so the session is over\..*id="rematch-btn"/);
  const offered = { ...over, rematchOffer: { id: "t-2", by: "Ann" } };
  assert.match(String(sessionOverHTML(offered)), /Ann started a rematch\..*id="follow-btn">Join the rematch/);
  assert.doesNotMatch(String(sessionOverHTML(offered)), /rematch-btn/);
  assert.match(String(sessionOverHTML({ ...offered, role: "spectator" })), /Watch the rematch/);
  assert.doesNotMatch(String(sessionOverHTML({ ...over, role: "spectator" })), /rematch-btn/);
});

test("scoop marks: a foul against a foul shows no 'fouled 0' chip, a paid foul does", () => {
  const marks = { scoops: [
    { vs: "Bob", points: 0, foul: true, pair: "pair-Ann-Bob" },
    { vs: "Cy", points: -6, foul: true, pair: "pair-Ann-Cy" },
  ] };
  const html = String(scoopMarksHTML(marks));
  assert.ok(!html.includes("pair-Ann-Bob"), html);
  assert.ok(html.includes("pair-Ann-Cy") && /[−-]6/.test(html), html);
});

test("rules the live evaluator does not model: the own board says so in words and still renders", () => {
  const spec = specs["ofc+royalty_for_dealt_combination"];
  const T = { ...street2(), spec, info: { hints: true, seats: [] }, log: [], clocks: [], clocksAt: 0, now: 0, sending: null };
  S.syncStaging(T);
  const html = String(myAreaHTML(T, { touch: false }));
  assert.match(html, /id="live-off"[^>]*>Live warnings are off for these rules[^<]*royalties\.dealt_combination=true is not modelled/);
  assert.match(html, /id="my-board"/);
  assert.equal(S.certainFoul(T, T.view.boards[0], spec), null);
  assert.doesNotMatch(String(myAreaHTML({ ...T, spec: specs.pineapple }, { touch: false })), /live-off/);
});

test("Criss Cross is the spec's fact (two hands a seat), not the variant's name", () => {
  const T = { ...street2(), info: { hints: true, seats: [] }, log: [], clocks: [], clocksAt: 0, now: 0, sending: null };
  S.syncStaging(T);
  const two = { ...specs.classic, variant: { ...specs.classic.variant, hands_per_seat: 2 } };
  assert.match(String(myAreaHTML({ ...T, spec: two }, {})), /Ann \/ hand 1/i);
  assert.doesNotMatch(String(myAreaHTML({ ...T, spec: specs.pineapple }, {})), /Ann \/ hand/i);
  // A replay reads the record's own boxes: two final boards a player.
  const rec = { players: ["Ann", "Bob"], button: 0, actions: [], totals: {}, rules: { variant: "renamed" },
    boards: { "Ann/1": "", "Ann/2": "", "Bob/1": "", "Bob/2": "" } };
  assert.deepEqual(Object.keys(replaySteps(rec)[0].boards).sort(), ["0/0", "0/1", "1/0", "1/1"]);
  assert.deepEqual(Object.keys(replaySteps({ ...rec, boards: { Ann: "", Bob: "" } })[0].boards).sort(), ["0/0", "1/0"]);
});
