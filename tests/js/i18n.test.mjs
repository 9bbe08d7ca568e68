// The catalogues (static/i18n/*.json) against each other and against the code that uses
// them: every language has every key with the same placeholders and the plural forms
// its language needs; every key is used and every key used exists; t() and the language
// choice behave as players expect.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import * as I from "../../src/chinese_poker/server/static/js/i18n.js";
import * as E from "../../src/chinese_poker/server/static/js/eval.js";
import { cardLabel } from "../../src/chinese_poker/server/static/js/util.js";
import { describeAction, placedWords } from "../../src/chinese_poker/server/static/js/words.js";

const STATIC = new URL("../../src/chinese_poker/server/static/", import.meta.url).pathname;
const LANGS = Object.keys(I.LANGUAGES);
const cat = Object.fromEntries(LANGS.map((l) => [l, JSON.parse(readFileSync(join(STATIC, "i18n", `${l}.json`), "utf8"))]));
const EN = cat.en;
const holes = (s) => new Set([...String(s).matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
const forms = (v) => (typeof v === "object" ? Object.values(v) : [v]);
const allHoles = (v) => new Set(forms(v).flatMap((s) => [...holes(s)]));

function sources(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) { if (name !== "i18n") out.push(sources(p)); }
    else if (/\.(js|html)$/.test(name)) out.push(readFileSync(p, "utf8"));
  }
  return out.join("\n");
}
// The terminal reads the same catalogues (chinese_poker.language): its keys count as used.
function pythonSources(dir) {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((n) => n.endsWith(".py")).map((n) => readFileSync(join(dir, n), "utf8")).join("\n");
}
const CODE = `${sources(STATIC)}\n${pythonSources(new URL("../../src/chinese_poker/", import.meta.url).pathname)}`;
// Families of keys the code builds from a value (`game.${preset}`, Python's f"rank.{r}"):
// their members are used where the family is, and a language may hold members the English
// catalogue leaves to the server's own English words.
const FAMILIES = [...new Set([...CODE.matchAll(/(?:`|\bf")([\w-]+(?:\.[\w-]+)*)\.(?:\$\{|\{)/g)].map((m) => `${m[1]}.`))];
const inFamily = (k) => FAMILIES.some((f) => k.startsWith(f));

test("the five languages of the articles, one catalogue each, named in their own words", () => {
  assert.deepEqual(LANGS.sort(), ["bg", "en", "hr", "lv", "ru"]);
  assert.deepEqual(readdirSync(join(STATIC, "i18n")).sort(), LANGS.map((l) => `${l}.json`).sort());
});

test("every catalogue has every key of the English one and no other", () => {
  for (const l of LANGS) {
    const missing = Object.keys(EN).filter((k) => !(k in cat[l]));
    const extra = Object.keys(cat[l]).filter((k) => !(k in EN) && !inFamily(k));
    assert.deepEqual([missing, extra], [[], []], `${l}: missing ${missing.join(", ")}; extra ${extra.join(", ")}`);
    for (const [k, v] of Object.entries(cat[l])) assert.ok(forms(v).every((s) => typeof s === "string" && s.length > 0 || k === "board.royalty_n"), `${l} ${k} is empty`);
  }
});

test("placeholders match across languages", () => {
  for (const l of LANGS) {
    for (const [k, v] of Object.entries(EN)) {
      const want = allHoles(v);
      if (!(k in cat[l])) continue; // the test above names it
      if (typeof cat[l][k] === "object") {
        // A plural's "one" may leave the number out where only 1 takes it (English, Bulgarian).
        for (const f of forms(cat[l][k])) for (const h of holes(f)) assert.ok(want.has(h), `${l} ${k}: {${h}} is not an English placeholder`);
        assert.deepEqual(holes(cat[l][k].other), holes(typeof v === "object" ? v.other : v), `${l} ${k} (other)`);
      } else {
        assert.deepEqual(holes(cat[l][k]), want, `${l} ${k}`);
      }
    }
  }
});

test("plural messages have every form their language's plural rules ask for", () => {
  for (const l of LANGS) {
    const needed = new Intl.PluralRules(l).resolvedOptions().pluralCategories;
    for (const [k, v] of Object.entries(cat[l])) {
      if (EN[k] && typeof EN[k] === "object") assert.equal(typeof v, "object", `${l} ${k} must be a plural`);
      if (typeof v !== "object") continue;
      for (const c of needed) assert.ok(c in v, `${l} ${k} lacks the "${c}" form`);
      // Where "one" also covers 21, 31, ... the number must be written out.
      if ((l === "ru" || l === "hr") && holes((EN[k] || v).other).has("n")) assert.ok(holes(v.one).has("n"), `${l} ${k}: "one" is used for 21 too`);
    }
  }
});

test("every key is used by the page, and every key the page uses exists", () => {
  const all = new Set(LANGS.flatMap((l) => Object.keys(cat[l])));
  const unused = [...all].filter((k) => !CODE.includes(`"${k}"`) && !inFamily(k));
  assert.deepEqual(unused, [], `unused keys: ${unused.join(", ")}`);
  // (Keys have a dot: "lobby.play_now"; the i18n module's own comments show key-less examples.)
  const used = new Set([...CODE.matchAll(/\bt\("([\w-]+\.[\w.-]+)"/g)].map((m) => m[1]));
  for (const m of CODE.matchAll(/data-i18n(?:-[\w-]+)?="([\w-]+\.[\w.-]+)"/g)) used.add(m[1]);
  const unknown = [...used].filter((k) => !(k in EN));
  assert.deepEqual(unknown, [], `keys used but not in en.json: ${unknown.join(", ")}`);
});

test("t(): placeholders, plural forms by language, English fallback, the key when nothing has it", () => {
  I.useCatalogues({ en: { a: "Hi {name}", p: { one: "{n} card", other: "{n} cards" } }, ru: { p: { one: "{n} карта", few: "{n} карты", many: "{n} карт", other: "{n} карты" } } }, "ru");
  assert.equal(I.t("a", { name: "Ann" }), "Hi Ann"); // English fallback
  assert.deepEqual([1, 2, 5, 21, 22, 25, 11].map((n) => I.t("p", { n })), ["1 карта", "2 карты", "5 карт", "21 карта", "22 карты", "25 карт", "11 карт"]);
  assert.equal(I.t("missing.key"), "missing.key");
  assert.equal(I.t("a"), "Hi {name}"); // an unfilled hole stays visible
  I.useCatalogues({}, "en");
  assert.deepEqual([1, 2].map((n) => I.t("p", { n })), ["1 card", "2 cards"]);
});

test("the language: the stored switch first, then the browser's first language we speak", () => {
  assert.equal(I.pickLanguage(["ru-RU", "en-US"]), "ru");
  assert.equal(I.pickLanguage(["de-DE", "lv-LV", "bg"]), "lv");
  assert.equal(I.pickLanguage(["HR"]), "hr");
  assert.equal(I.pickLanguage(["de", "fr"]), "en");
  assert.equal(I.pickLanguage([]), "en");
  assert.equal(I.pickLanguage(["ru"], "bg"), "bg");
  assert.equal(I.pickLanguage(["ru"], "xx"), "ru"); // a stale stored value is ignored
});

test("setLanguage refuses a language it does not speak, naming the ones it does", async () => {
  await assert.rejects(I.setLanguage("de"), /unknown language "de".*en, bg, hr, ru, lv/);
});

test("in every language hands, cards and moves read without a key or a hole left", () => {
  const values = [
    E.evaluate(["Ah", "Kh", "Qh", "Jh", "Th"]), E.evaluate(["9h", "8h", "7h", "6h", "5h"]), E.evaluate(["Ah", "2h", "3h", "4h", "5h"]),
    E.evaluate(["Kh", "Kd", "Ks", "Kc", "2h"]), E.evaluate(["Qh", "Qd", "Qs", "2c", "2h"]), E.evaluate(["Ah", "9h", "7h", "4h", "2h"]),
    E.evaluate(["Ah", "Kd", "Qs", "Jc", "Th"]), E.evaluate(["7h", "7d", "7s", "Kc", "2h"]), E.evaluate(["7h", "7d", "Ts", "Tc", "2h"]),
    E.evaluate(["Jh", "Jd", "4s", "3c", "2h"]), E.evaluate(["Ah", "Jd", "9s", "4c", "2h"]), E.evaluate(["Qh", "Qd", "4s"], { five: false }),
    E.evaluate(["Ah", "Kd", "4s"], { five: false }), E.evaluate(["5h", "4d", "3s", "2c", "Ah"]),
  ];
  for (const l of LANGS) {
    I.useCatalogues(cat, l);
    const texts = [...values.map(E.describe), cardLabel("Ah"), cardLabel("Tc"),
      describeAction({ type: "place", seat: 0, top: ["Ah"], discard: ["2c"], auto: true }, ["Ann"]),
      placedWords({ bottom: ["7h", "8c"], middle: ["2d"], discard: ["Kd"] })];
    for (const s of texts) {
      assert.ok(s && !/[{}]/.test(s) && !/\b(hand|rank|ranks|suit|log|placed)\.\w/.test(s), `${l}: "${s}"`);
    }
    assert.equal(new Set(values.map(E.describe)).size, values.length, `${l}: two hands got the same name`);
  }
  I.useCatalogues(cat, "en");
  assert.equal(cardLabel("Ah"), "ace of hearts");
  I.useCatalogues(cat, "ru");
  assert.equal(cardLabel("Ah"), "туз червей");
  assert.equal(E.describe(values[3]), "Каре королей");
  I.useCatalogues(cat, "lv");
  assert.equal(E.describe(values[9]), "Kalpu pāris, kikeri 4, 3, 2");
  I.useCatalogues(cat, "en");
});

test("a foul reason is worded from its data, never parsed from the English", async () => {
  const { foulReason } = await import("../../src/chinese_poker/server/static/js/showdown.js");
  const lines = [
    { line: "top", cards: "Qh Qd 7c", hand: "pair of queens", value: E.evaluate(["Qh", "Qd", "7c"]) },
    { line: "middle", cards: "Qs Qc 6d 5h 4s", hand: "pair of queens", value: E.evaluate(["Qs", "Qc", "6d", "5h", "4s"]) },
  ];
  const beats = { foul_reason: "top Q Q 7 beats middle Q Q 6 5 4", lines,
    foul: { kind: "beats", line: "top", below: "middle", ceiling: null } };
  // The sentence's words changed: the data still says which line beats which.
  const reworded = { ...beats, foul_reason: "the top is stronger than the middle" };
  const low = { foul_reason: "middle K K 9 8 7 has a pair; ...", lines,
    foul: { kind: "low_middle", line: "middle", below: null, ceiling: "T" } };
  I.useCatalogues(cat, "ru");
  const ru = foulReason(reworded);
  assert.ok(ru.includes("сильнее") && ru.includes(E.describe(lines[0].value)), ru);
  assert.ok(!/beats|stronger/.test(ru), ru);
  assert.equal(foulReason(reworded), foulReason(beats));
  assert.equal(foulReason(low), I.t("foul.low_middle", { rank: E.rankWord("T") }));
  // A stored settlement from before the data: its sentence, as it was written.
  assert.equal(foulReason({ foul_reason: "top Q Q 7 beats middle Q Q 6 5 4", lines }), "top Q Q 7 beats middle Q Q 6 5 4");
  I.useCatalogues(cat, "en");
  assert.equal(foulReason(beats), "top Q Q 7 beats middle Q Q 6 5 4");
});
