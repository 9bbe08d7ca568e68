// The table's chat (chat.js): a phrase in each reader's language, lines kept once and in
// order, the text as the server takes it, the hidden players per table, the count of
// lines not read and the words of a refusal.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  chatAllowed, KEEP_LINES, lineWords, mergeLines, mutedAt, PHRASES, refusalWords, speaker, TEXT_LIMIT,
  toggledMute, typedText, unreadAfter,
} from "../../src/chinese_poker/server/static/js/chat.js";
import { useCatalogues } from "../../src/chinese_poker/server/static/js/i18n.js";

const LANGS = ["en", "bg", "hr", "ru", "lv"];
const catalogue = (lang) => JSON.parse(readFileSync(new URL(`../../src/chinese_poker/server/static/i18n/${lang}.json`, import.meta.url), "utf8"));
const catalogues = Object.fromEntries(LANGS.map((lang) => [lang, catalogue(lang)]));
useCatalogues(catalogues, "en");

test("a quick phrase is sent as its key and read in each reader's own language", () => {
  const line = { n: 1, seat: 1, name: "Bob", phrase: "gl" };
  assert.deepEqual(lineWords(line, 0), { who: "Bob", text: "Good luck!", phrase: true });
  useCatalogues({}, "ru");
  try {
    assert.equal(lineWords(line, 0).text, "Удачи!");
    assert.equal(lineWords({ ...line, seat: 0, name: "Аня" }, 0).who, "Аня (вы)");
    assert.equal(lineWords({ n: 2, seat: null, name: null, text: "привет" }, 0).who, "Зритель");
  } finally {
    useCatalogues({}, "en");
  }
  for (const lang of LANGS) {
    for (const key of PHRASES) assert.ok(catalogues[lang][`chat.phrase.${key}`], `${lang}: chat.phrase.${key}`);
  }
});

test("the server's phrases and limits are the page's", () => {
  const server = readFileSync(new URL("../../src/chinese_poker/server/table_chat.py", import.meta.url), "utf8");
  const phrases = /^PHRASES = \(([^)]*)\)/m.exec(server)[1].match(/"(\w+)"/g).map((s) => s.slice(1, -1));
  assert.deepEqual(phrases, PHRASES);
  assert.equal(Number(/^TEXT_LIMIT = (\d+)/m.exec(server)[1]), TEXT_LIMIT);
  assert.equal(Number(/^KEEP_LINES = (\d+)/m.exec(server)[1]), KEEP_LINES);
});

test("free text is shown as typed, markup included: never read as markup", () => {
  const words = lineWords({ n: 3, seat: 1, name: "<img src=x onerror=alert(1)>", text: "<b>hi</b>" }, 0);
  assert.equal(words.who, "<img src=x onerror=alert(1)>");
  assert.equal(words.text, "<b>hi</b>");
  const source = readFileSync(new URL("../../src/chinese_poker/server/static/js/chat.js", import.meta.url), "utf8");
  assert.doesNotMatch(source, /innerHTML|outerHTML|insertAdjacentHTML|setHTML/);
});

test("typed text: white space folded, nothing or too long refused", () => {
  assert.equal(typedText("  nice \n\t hand "), "nice hand");
  assert.equal(typedText("e\u0301"), "\u00e9");
  assert.equal(typedText("   "), null);
  assert.equal(typedText("x".repeat(TEXT_LIMIT)), "x".repeat(TEXT_LIMIT));
  assert.equal(typedText("x".repeat(TEXT_LIMIT + 1)), null);
  assert.equal(typedText("😀".repeat(TEXT_LIMIT)), "😀".repeat(TEXT_LIMIT), "characters, not UTF-16 units");
});

test("lines are kept once each, in order, the last KEEP_LINES", () => {
  const a = { n: 1, seat: 0, text: "a" };
  const b = { n: 2, seat: 1, text: "b" };
  assert.deepEqual(mergeLines([b], [a, b]), [a, b]);
  const many = Array.from({ length: KEEP_LINES + 5 }, (_, i) => ({ n: i + 1, seat: 0, text: String(i) }));
  const kept = mergeLines([], many);
  assert.equal(kept.length, KEEP_LINES);
  assert.equal(kept[0].n, 6);
});

test("hiding a player is per table, and undone by the same button", () => {
  let all = toggledMute({}, "t-1", "seat:1");
  assert.deepEqual(all, { "t-1": ["seat:1"] });
  all = toggledMute(all, "t-2", "watchers");
  assert.ok(mutedAt(all, "t-1").has("seat:1") && !mutedAt(all, "t-2").has("seat:1"));
  all = toggledMute(all, "t-1", "seat:1");
  assert.deepEqual(all, { "t-2": ["watchers"] });
  assert.equal(speaker({ seat: null }), "watchers");
  assert.equal(speaker({ seat: 2 }), "seat:2");
});

test("lines not read: another's line while the panel is closed, not one's own nor a hidden one's", () => {
  const muted = new Set(["seat:2"]);
  const closed = { open: false, mySeat: 0, muted };
  assert.equal(unreadAfter(0, { seat: 1 }, closed), 1);
  assert.equal(unreadAfter(1, { seat: 0 }, closed), 1);
  assert.equal(unreadAfter(1, { seat: 2 }, closed), 1);
  assert.equal(unreadAfter(1, { seat: 1 }, { ...closed, open: true }), 1);
  assert.equal(unreadAfter(0, { seat: null }, { ...closed, mySeat: null }), 1);
});

test("who has the chat, and the words of a refusal", () => {
  assert.ok(chatAllowed("seat", { spectator_chat: false }));
  assert.ok(!chatAllowed("spectator", { spectator_chat: false }));
  assert.ok(chatAllowed("spectator", { spectator_chat: true }));
  assert.match(refusalWords({ code: "busy", message: "too many" }), /wait a few seconds/);
  assert.match(refusalWords({ code: "bad_message", message: "x" }), /1 to 200/);
  assert.equal(refusalWords({ code: "server_error", message: "db down" }), "Not sent: db down");
  useCatalogues({}, "lv");
  try {
    assert.equal(refusalWords({ code: "busy" }), catalogues.lv["chat.too_fast"]);
  } finally {
    useCatalogues({}, "en");
  }
});
