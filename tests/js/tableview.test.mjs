// The table screen's markup (tableview.js), apart from the socket and the input: the
// head, the waiting room, a closed table, the felt and the side panel.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { tableMainHTML, tableSideHTML } from "../../src/chinese_poker/server/static/js/tableview.js";
import { html } from "../../src/chinese_poker/server/static/js/util.js";
import { useCatalogues } from "../../src/chinese_poker/server/static/js/i18n.js";

useCatalogues({ en: JSON.parse(readFileSync(new URL("../../src/chinese_poker/server/static/i18n/en.json", import.meta.url), "utf8")) }, "en");
const { specs } = JSON.parse(readFileSync(new URL("./eval-fixtures.json", import.meta.url), "utf8"));

const EVIL = `<img src=x onerror="alert(1)">`;
const seats = [
  { seat: 0, kind: "human", taken: true, name: "Ann", connected: true },
  { seat: 1, kind: "human", taken: true, name: EVIL, connected: false },
  { seat: 2, kind: "human", taken: false },
];
const table = (more = {}) => ({ role: "seat", seat: 0, hand: 0, view: null, closed: null, notice: null, sessionOver: false, leaveAsk: false,
  info: { name: `Fri ${EVIL}`, preset: "pineapple", mode: "session", status: "waiting", seats }, ...more });

test("the waiting room: the seats (names escaped), who is free, the invite link for its creator", () => {
  const markup = String(tableMainHTML(table(), { tableId: "t-1", me: { invite_url: "http://x/join/t-1?code=a&b" }, touch: false }));
  assert.match(markup, /<span class="title">Fri &#60;img src=x onerror=&#34;alert\(1\)&#34;&#62;<\/span>/);
  assert.match(markup, /id="waiting-room"/);
  assert.match(markup, /<b>&#60;img src=x onerror=&#34;alert\(1\)&#34;&#62;<\/b>/);
  assert.match(markup, /<i>free<\/i>/i);
  assert.match(markup, /value="http:\/\/x\/join\/t-1\?code=a&#38;b"/);
  assert.doesNotMatch(markup, /<img/);
  assert.doesNotMatch(String(tableMainHTML(table(), { tableId: "t-1", me: {}, touch: false })), /id="invite-url"/);
});

test("a closed table: the way out when it is final, 'connecting' while it may come back", () => {
  const closed = { final: true, text: `Gone ${EVIL}`, ways: ["lobby", "hands"] };
  const markup = String(tableMainHTML(table({ closed }), { tableId: "t 1", me: {}, touch: false }));
  assert.match(markup, /id="dead-end"[\s\S]*Gone &#60;img/);
  assert.match(markup, /href="\/\?hands=t%201"/);
  const waiting = String(tableMainHTML(table({ closed: { final: false } }), { tableId: "t-1", me: {}, touch: false }));
  assert.doesNotMatch(waiting, /dead-end|waiting-room/);
  assert.match(waiting, /class="muted">Connecting/i);
});

test("the felt: the others' boards after this seat's, the turn, a notice, the creator's seat controls", () => {
  const board = (seat, player) => ({ seat, hand: 0, player, top: [], middle: [], bottom: [] });
  const view = { version: 1, to_act: [0], decisions: [], boards: [board(2, "Cy"), board(0, "Ann"), board(1, EVIL)], players: ["Ann", EVIL, "Cy"], phase: "play", rules: {} };
  const T = table({ view, spec: specs.pineapple, info: { ...table().info, status: "playing" }, notice: { kind: "timeout", mine: true, text: "Too slow" }, moves: [], log: [], clocks: [], clocksAt: 0, now: 0, sending: null, decisionIndex: 0 });
  const markup = String(tableMainHTML(T, { tableId: "t-1", me: { creator: true, seat: 0 }, touch: false }));
  const order = [...markup.matchAll(/class="board-box[^"]*" data-seat="(\d)"/g)].map((m) => m[1]);
  assert.deepEqual(order.slice(0, 2), ["1", "2"], "opponents from the next seat on");
  assert.match(markup, /id="your-turn"/);
  assert.match(markup, /id="timeout-notice"[^>]*>Too slow</);
  assert.match(markup, /id="seat-controls"[\s\S]*data-chair="1"/);
  assert.match(markup, /id="my-area"/);
  assert.doesNotMatch(String(tableMainHTML({ ...T, role: "spectator" }, { tableId: "t-1", me: {}, touch: false })), /id="my-area"|id="seat-controls"/);
});

test("the side panel: the hands, the fair-deal panel as given, the log", () => {
  const T = table({ view: { players: ["Ann", "Bob"], phase: "play" }, hands: [{ hand: 1, finished: true }], log: [{ type: "timeout", seat: 1 }] });
  const markup = String(tableSideHTML(T, { tableId: "t-1", fair: html`<div id="fair">fair</div>` }));
  assert.match(markup, /id="hands"[\s\S]*<div id="fair">fair<\/div>[\s\S]*id="log-panel"/);
  assert.doesNotMatch(markup, /id="hints"|id="breakdown"|id="ledger"/);
});
