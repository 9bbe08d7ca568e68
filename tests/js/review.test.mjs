// The review, profile and leaderboard markup (pure functions of the server's JSON).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { reviewHTML, summaryHTML } from "../../src/chinese_poker/server/static/js/review.js";
import { leaderboardHTML, profileHTML } from "../../src/chinese_poker/server/static/js/profile.js";
import { parseRoute } from "../../src/chinese_poker/server/static/js/net.js";
import { useCatalogues } from "../../src/chinese_poker/server/static/js/i18n.js";

const catalogue = (lang) => JSON.parse(readFileSync(new URL(`../../src/chinese_poker/server/static/i18n/${lang}.json`, import.meta.url), "utf8"));
useCatalogues({ en: catalogue("en") }, "en");

const EVIL = `<img src=x onerror="alert(1)">`;
const decision = (over) => ({
  hand: 1, player: "Ann", box: "Ann", kind: "street", street: 1, label: "street 1", played: "Ah | - | Kd Kc",
  best: "- | Ah | Kd Kc", played_value: -1.5, best_value: 2.25, loss: 3.75, stderr: 0.4, mark: "blunder",
  exact: true, rank: 17, options: 232, explanation: "pair of kings in the bottom", ...over,
});
const summary = (player, accuracy) => ({ player, hands: 1, decisions: 2, loss: 3.75, loss_per_hand: 3.75, accuracy, marks: { inaccuracy: 0, mistake: 0, blunder: 1 }, per_street: [] });

test("review: every decision with its mark, the best line only when it differs, you highlighted", () => {
  const html = String(reviewHTML({ level: 2, decisions: [decision({}), decision({ player: "Bob", box: "Bob", mark: "", rank: 1, loss: 0, played: "x", best: "x" }),
    decision({ kind: "set", street: 0, mark: "inaccuracy", loss: 0.8, exact: false, rank: null })], players_summary: [summary("Ann", 50), summary("Bob", null)] }, "Ann"));
  assert.equal((html.match(/class="review-item/g) || []).length, 3);
  assert.match(html, /data-mark="blunder"[^>]*data-player="Ann"/);
  assert.match(html, /data-kind="best">best</);
  assert.match(html, /street 1/);
  assert.match(html, /\bset\b/);
  assert.match(html, /−3\.75/);
  assert.match(html, /\(at least\)/);
  assert.equal((html.match(/class="best-line"/g) || []).length, 2); // not for the best move
  assert.match(html, /<tr data-player="Ann" class="me">/);
  assert.match(html, /class="accuracy">50%</);
  assert.match(html, /class="accuracy">–</);
  assert.match(html, /level 2/);
});

test("review, profile and leaderboard escape what players typed", () => {
  const r = reviewHTML({ level: 2, decisions: [decision({ player: EVIL, box: EVIL })], players_summary: [summary(EVIL, 0)] });
  const p = profileHTML({ id: "p-1", kind: "human", name: EVIL, families: [], history: {} });
  const l = leaderboardHTML({ players: [{ player: EVIL, name: EVIL, kind: "human", rating: 1, hands: 1, points_per_hand: 1, foul_percent: 0 }] });
  for (const markup of [r, p, l, summaryHTML([summary(EVIL, 1)])]) {
    const html = String(markup);
    assert.ok(!html.includes("<img"), html);
    assert.ok(html.includes("&#60;img"));
  }
});

test("profile: each family's figures and the rating chart; nothing rated yet says so", () => {
  const fam = { family: "open-face", rating: -2.75, mu: 19.1, sigma: 7.3, hands: 2, points_per_hand: -3.5, foul_percent: 50, fantasyland_percent: 0, royalties_per_hand: 1.5 };
  const html = String(profileHTML({ id: "p-1", kind: "human", name: "Ann", handle: "ann", families: [fam], history: { "open-face": [{ rating: -1.6 }, { rating: -2.75 }] } }));
  assert.match(html, /class="rating">-2\.8</);
  assert.match(html, /class="hands">2</);
  assert.match(html, /class="fouls">50\.0%</);
  assert.match(html, /<svg/);
  assert.match(html, /<code id="profile-id">p-1<\/code>/);
  assert.ok(!html.includes("ann"), "a profile never shows the sign-in handle");
  assert.match(String(profileHTML({ id: "p-2", kind: "human", name: "", families: [], history: {} })), /id="no-hands"/);
});

test("routes of the review, profile, me and leaderboard pages", () => {
  assert.deepEqual(parseRoute("/review/t-ab/3"), { name: "review", id: "t-ab", hand: 3 });
  assert.deepEqual(parseRoute("/profile/p-1"), { name: "profile", id: "p-1" });
  assert.deepEqual(parseRoute("/me"), { name: "me" });
  assert.deepEqual(parseRoute("/leaderboard"), { name: "leaderboard" });
  assert.deepEqual(parseRoute("/review/t-ab/x"), { name: "lobby" });
});

test("every catalogue has the review, profile and account words", () => {
  const en = catalogue("en");
  const mine = Object.keys(en).filter((k) => /^(review|profile|account|leaderboard)\.|^top\.(me|leaderboard)/.test(k));
  assert.ok(mine.length > 60);
  for (const lang of ["bg", "hr", "ru", "lv"]) {
    const cat = catalogue(lang);
    assert.deepEqual(mine.filter((k) => !(k in cat)), [], lang);
  }
});
