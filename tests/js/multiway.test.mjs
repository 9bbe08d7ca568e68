// Multi-way clarity (issue 40 item 6): with two opponents or more, each line's mark names
// the opponent it is against (his first letters on a phone, by the stylesheet), and the
// hands list shows each hand's points, this player's first (showdown.js, history.js,
// side.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { lineMarksHTML, marksFor, shortNames } from "../../src/chinese_poker/server/static/js/showdown.js";
import { handResultHTML } from "../../src/chinese_poker/server/static/js/history.js";
import { handsHTML } from "../../src/chinese_poker/server/static/js/side.js";
import { useCatalogues } from "../../src/chinese_poker/server/static/js/i18n.js";

const catalogue = (lang) => JSON.parse(readFileSync(new URL(`../../src/chinese_poker/server/static/i18n/${lang}.json`, import.meta.url), "utf8"));
useCatalogues({ en: catalogue("en"), lv: catalogue("lv") }, "en");

const line = (l, points) => ({ kind: "line", line: l, points });
/** Ann, Bob and Bea: Ann wins the top against Bob and loses it against Bea. */
const settlement = (names = ["Ann", "Bob", "Bea"]) => ({
  players: names.map((name) => ({ name, fouled: false, lines: [] })),
  pairs: [
    { a: "Ann", b: "Bob", items: [line("top", 1), line("middle", -1), line("bottom", 1)] },
    ...(names.includes("Bea") ? [{ a: "Bea", b: "Ann", items: [line("top", 1), line("middle", 1), line("bottom", -1)] }] : []),
  ],
});

test("the shortest start that tells each opponent from the others", () => {
  assert.deepEqual(shortNames(["Bob", "Bea", "Cleo"]), { Bob: "Bo", Bea: "Be", Cleo: "C" });
  assert.deepEqual(shortNames(["Anna", "Anne"]), { Anna: "Anna", Anne: "Anne" }); // 3 letters do not tell them apart
  assert.deepEqual(shortNames(["Ēriks", "Bob"]), { "Ēriks": "Ē", Bob: "B" });
});

test("multi-way: each line's mark names its opponent, with his points from this board's side", () => {
  const marks = marksFor(settlement(), "Ann");
  const top = String(lineMarksHTML(marks, "top"));
  assert.match(top, /data-vs="Bob"[^>]*><span class="vs"><span class="vs-long">Bob<\/span><span class="vs-short">Bo<\/span><\/span> \+1<\/a>/);
  assert.match(top, /data-vs="Bea"[^>]*><span class="vs"><span class="vs-long">Bea<\/span><span class="vs-short">Be<\/span><\/span> -1<\/a>/);
  assert.match(top, /title="top against Bob"/i);
  useCatalogues({}, "lv");
  try {
    assert.match(String(lineMarksHTML(marksFor(settlement(), "Ann"), "top")), /title="[^"]+ pret Bob"/);
  } finally {
    useCatalogues({}, "en");
  }
});

test("heads-up: the mark is the points alone (one opponent, nothing to tell apart)", () => {
  const top = String(lineMarksHTML(marksFor(settlement(["Ann", "Bob"]), "Ann"), "top"));
  assert.doesNotMatch(top, /class="vs"/);
  assert.match(top, />\+1<\/a>/);
});

test("each hand of the hands list says its points, this player's first", () => {
  const ledger = { hands: [{ hand: 1, button: "Ann", totals: { Bob: -1, Ann: 4, Bea: -3 } }] };
  const out = String(handsHTML("t-1", [{ hand: 1, finished: true }, { hand: 2, finished: false }], ledger, "Ann"));
  assert.match(out, /<span class="hand-result"><span class="hand-points me" data-player="Ann">you <b class="pos">\+4<\/b><\/span><span class="hand-points" data-player="Bob">Bob <b class="neg">-1<\/b><\/span><span class="hand-points" data-player="Bea">Bea <b class="neg">-3<\/b><\/span><\/span>/);
  assert.equal(handResultHTML(undefined, "Ann"), ""); // the ledger has not caught up yet
  const watching = String(handResultHTML(ledger.hands[0], null));
  assert.ok(watching.indexOf("Bob") < watching.indexOf("Ann")); // a spectator: the seats' order
  assert.doesNotMatch(watching, /you/);
});
