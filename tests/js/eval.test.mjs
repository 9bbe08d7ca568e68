// eval.js against the Python scorer (eval-fixtures.json, written by make_fixtures.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as E from "../../src/chinese_poker/server/static/js/eval.js";
import { useCatalogues } from "../../src/chinese_poker/server/static/js/i18n.js";

// Hand names come from the catalogues: the English one must say what the Python scorer says.
useCatalogues({ en: JSON.parse(readFileSync(new URL("../../src/chinese_poker/server/static/i18n/en.json", import.meta.url))) }, "en");

const { specs, cases } = JSON.parse(readFileSync(new URL("./eval-fixtures.json", import.meta.url)));

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

test("a bottom that is complete and behind the middle is a certain foul", () => {
  const a = E.analyseBoard({ top: [], middle: ["Th", "Td"], bottom: ["4s", "4c", "2d", "7h", "9s"] }, specs.pineapple);
  assert.equal(a.fouled, true);
  assert.match(a.foulReason, /middle .* beats bottom/);
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
