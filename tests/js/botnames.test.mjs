// Issue 40 item 5: a bot the lobby offers as a strength has the one-click table's name on
// the leaderboard and its profile, in the reader's language; other names are as stored.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { leaderboardHTML, profileHTML } from "../../src/chinese_poker/server/static/js/profile.js";
import { useCatalogues } from "../../src/chinese_poker/server/static/js/i18n.js";

const catalogue = (lang) => JSON.parse(readFileSync(new URL(`../../src/chinese_poker/server/static/i18n/${lang}.json`, import.meta.url), "utf8"));
const row = (player, kind, name) => ({ player, kind, name, rating: 25, hands: 1, points_per_hand: 0, foul_percent: 0 });
const board = { players: [row("bot-rules", "bot", "Casual bot"), row("bot-mc-3", "bot", "Expert bot"), row("bot-mc-v1-1", "bot", "Monte Carlo v1 bot (level 1)"), row("p-1", "human", "bot-rules")] };

test("bots are named by strength in the reader's language", () => {
  useCatalogues({ en: catalogue("en"), ru: catalogue("ru") }, "ru");
  const html = String(leaderboardHTML(board));
  assert.match(html, />бот «Любитель»</);
  assert.match(html, />бот «Эксперт»</);
  assert.match(html, />Monte Carlo v1 bot \(level 1\)</); // not a strength: as stored
  assert.match(html, />bot-rules</); // a person is never renamed
  assert.match(String(profileHTML({ id: "bot-rules", kind: "bot", name: "Casual bot", families: [], history: {} })), /id="profile-name">бот «Любитель»/);
  useCatalogues({ en: catalogue("en") }, "en");
  assert.match(String(leaderboardHTML(board)), />Casual bot</); // the server's English name
});
