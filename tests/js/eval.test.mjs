// eval.js against the Python scorer (eval-fixtures.json, written by make_fixtures.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as E from "../../src/chinese_poker/server/static/js/eval.js";
import { useCatalogues } from "../../src/chinese_poker/server/static/js/i18n.js";

// Hand names come from the catalogues: the English one must say what the Python scorer says.
useCatalogues({ en: JSON.parse(readFileSync(new URL("../../src/chinese_poker/server/static/i18n/en.json", import.meta.url), "utf8")) }, "en");

const { specs, cases } = JSON.parse(readFileSync(new URL("./eval-fixtures.json", import.meta.url), "utf8"));

test("values, names, royalties, fouls and Fantasyland agree with the Python scorer", () => {
  assert.ok(cases.length > 400);
  for (const c of cases) {
    const spec = specs[c.preset];
    const w = spec.scoring.wheel;
    const v = [E.evaluate(c.top, { five: false }), E.evaluate(c.middle, { wheel: w }), E.evaluate(c.bottom, { wheel: w })];
    const a = E.analyseBoard(c, spec);
    assert.deepEqual(
      { values: v, names: [E.describe(v[0]), E.describe(v[1])], royalties: [a.lines.top.royalty, a.lines.middle.royalty, a.lines.bottom.royalty], fouled: a.fouled, fantasyland: a.fantasyland },
      { values: c.values, names: c.names, royalties: c.royalties, fouled: c.fouled, fantasyland: c.fantasyland },
      `${c.preset}: ${c.top} | ${c.middle} | ${c.bottom}`,
    );
  }
});

test("a middle pair of tens over a bottom pair of fours warns (real values, not categories)", () => {
  const a = E.analyseBoard({ top: [], middle: ["Th", "Td"], bottom: ["4s", "4c", "2d"] }, specs.pineapple);
  assert.equal(a.fouled, false);
  assert.match(a.warnings.join(" "), /middle Pair of tens.*ahead of bottom Pair of fours/);
});

test("an unfinished board is never judged here (the server's `fouls` answer is exact); a complete one is", () => {
  const a = E.analyseBoard({ top: [], middle: ["Th", "Td"], bottom: ["4s", "4c", "2d", "7h", "9s"] }, specs.pineapple);
  assert.equal(a.fouled, false);
  assert.match(a.warnings.join(" "), /middle Pair of tens.*ahead of bottom/);
  const complete = E.analyseBoard({ top: ["2h", "3c", "5d"], middle: ["Th", "Td", "8c", "6s", "Jh"], bottom: ["4s", "4c", "2d", "7h", "9s"] }, specs.pineapple);
  assert.equal(complete.fouled, true);
  assert.match(complete.foulReason, /middle .* beats bottom/);
  assert.deepEqual(complete.warnings, []);
});

test("a lone high card ahead of an unfinished line is no warning", () => {
  const a = E.analyseBoard({ top: ["As"], middle: ["Kd"], bottom: [] }, specs.pineapple);
  assert.deepEqual(a.warnings, []);
});

test("without the table's spec the evaluator refuses clearly", () => {
  assert.throws(() => E.analyseBoard({ top: [], middle: [], bottom: [] }, null), /rules spec is missing/);
});

test("the low middle's qualifier is the spec's: its ceiling moves the verdict", () => {
  const spec = specs["classic-low-middle+ten_high_no_pair"];
  assert.equal(spec.scoring.low_qualifier_high, 8);
  const board = { top: ["2c", "3d", "4h"], middle: ["Ts", "7d", "5c", "3s", "2h"], bottom: ["As", "Ad", "Kc", "Kd", "Qh"] };
  assert.equal(E.analyseBoard(board, spec).fouled, false); // ten-high qualifies
  const nineHigh = { ...spec, scoring: { ...spec.scoring, low_qualifier_high: 7 } };
  const a = E.analyseBoard(board, nineHigh);
  assert.equal(a.fouled, true);
  assert.match(a.foulReason, /nine-high or better/i);
  assert.equal(E.analyseBoard(board, specs["classic-low-middle"]).fouled, false);
});

test("random rulesets are in the fixtures: max one royalty a hand, KK entry, low middles", () => {
  const random = cases.filter((c) => c.preset.startsWith("random-"));
  assert.ok(random.length >= 300);
  const of = (c) => specs[c.preset].scoring;
  assert.ok(random.some((c) => of(c).royalties.max_per_hand === 1 && c.royalties.filter(Boolean).length === 1));
  assert.ok(random.some((c) => of(c).fantasyland.enabled && of(c).fantasyland.entry_min_pair === 11 && c.fantasyland));
  assert.ok(random.some((c) => of(c).royalties.table === "custom"));
  assert.ok(random.some((c) => of(c).low_qualifier && !c.fouled));
});

test("one royalty a hand: the biggest line's only, as the scorer pays", () => {
  const board = { top: ["Qh", "Qd", "2c"], middle: ["9s", "9h", "9c", "5d", "2s"], bottom: ["Ah", "Jh", "8h", "6h", "3h"] };
  const a = E.analyseBoard(board, specs["ofc+max_royalties_per_hand=1"]);
  assert.deepEqual([a.lines.top.royalty, a.lines.middle.royalty, a.lines.bottom.royalty], [7, 0, 0]);
  assert.equal(a.royalties, 7);
  assert.equal(E.analyseBoard(board, specs.ofc).royalties, 13);
  // Equal amounts: the lowest line's (trips in the middle 2, a straight at the bottom 2).
  const tie = { top: ["2c", "3d", "4h"], middle: ["9s", "9h", "9c", "5d", "2s"], bottom: ["8h", "7d", "6c", "5s", "4c"] };
  const b = E.analyseBoard(tie, specs["ofc+max_royalties_per_hand=1"]);
  assert.deepEqual([b.lines.top.royalty, b.lines.middle.royalty, b.lines.bottom.royalty], [0, 0, 2]);
});

test("an option the evaluator does not model is refused by name, not guessed", () => {
  const board = { top: ["Qh", "Qd", "2c"], middle: [], bottom: [] };
  assert.throws(() => E.analyseBoard(board, specs["ofc+royalty_for_dealt_combination"]),
    (e) => e instanceof E.UnsupportedRules && /royalties\.dealt_combination=true is not modelled by the live evaluator/.test(e.message));
  // A field the spec gains later is refused too, until eval.js declares it.
  const later = { ...specs.ofc, scoring: { ...specs.ofc.scoring, royalties: { ...specs.ofc.scoring.royalties, doubled_on_sundays: true } } };
  assert.throws(() => E.analyseBoard(board, later), /royalties\.doubled_on_sundays is not modelled/);
  for (const [name, spec] of Object.entries(specs)) {
    if (name !== "ofc+royalty_for_dealt_combination") assert.doesNotThrow(() => E.requireSupported(spec), name);
  }
});
