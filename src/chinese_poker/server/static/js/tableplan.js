// What the lobby sends to open a table: the one-click presets, the custom form's values
// and the rematch is the server's own (POST /api/tables/{id}/rematch). Pure (tests/js).

import { CLOCKS, STRENGTHS, gameName } from "./words.js";

/** Rule options in players' words: [label, one-line explanation]. Others keep their key. */
export const OPTION_WORDS = {
  scoring_method: ["Scoring", "How lines and scoops are paid: one_six (1 a line, 6 a scoop), two_four, one_four, one_per_line, two_per_line."],
  royalty_table: ["Royalty table", "Bonus points for strong lines: american, western, classic_standard, classic_flat, custom."],
  royalty_award: ["Royalties paid", "net: each pair pays the difference; winner only: to the player who wins the line; best at table: only the best hand collects; cancel: two royalties on one line void each other."],
  middle_trips_royalty: ["Middle trips bonus", "Points for three of a kind in the middle (American table)."],
  foul_penalty: ["Foul penalty", "What a fouled board pays each opponent (6 = a scoop in 1-6 scoring)."],
  foul_pays_opponent_royalties: ["Fouler pays royalties", "true: a player who fouls also pays the opponent's royalties."],
  finnish_deuce: ["Finnish deuce", "The 2♠ doubles both players' royalties on its line."],
  fantasyland_enabled: ["Fantasyland", "QQ or better on top deals your whole next hand at once."],
  fl_progressive: ["Progressive Fantasyland", "A bigger top pair earns more Fantasyland cards."],
  fl_repeat_middle_min: ["Stay in Fantasyland with", "The weakest middle that keeps you in Fantasyland."],
  fl_max_consecutive: ["Fantasyland streak limit", "At most this many Fantasyland hands in a row."],
  unit_value: ["Money a point", "What one point is worth when the session is settled."],
  surrender_allowed: ["Surrender", "Classic: give up a bad hand for a fixed cost."],
  surrender_cost: ["Surrender cost", "Points a surrender pays each opponent."],
  naturals_enabled: ["Naturals", "Classic: special 13-card hands (dragon, six pairs, ...) paid at once."],
  middle_mode: ["Middle hand", "high (usual) or lowball_2_7 (the middle is a 2-7 low hand)."],
  wheel_rank: ["A-2-3-4-5", "lowest straight, or second_highest (as in Pusoy)."],
  starting_chips: ["Starting chips", "Tournament: each player's stack at the start."],
  level_minutes: ["Level length (min)", "Tournament: minutes before the point value rises."],
  timeout_ends_session: ["Timeout ends the session", "Tournament rule (RULES §10): after a timeout the session ends."],
};
export const optionLabel = (key) => (OPTION_WORDS[key] ? `${OPTION_WORDS[key][0]} (${key})` : key);
export const optionHelp = (key) => (OPTION_WORDS[key] ? OPTION_WORDS[key][1] : "");

export function parseValue(text) {
  const t = String(text).trim();
  if (t === "") return null;
  if (/^(true|false)$/i.test(t)) return t.toLowerCase() === "true";
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  if (/^[[{]/.test(t)) { try { return JSON.parse(t); } catch { return t; } }
  return t;
}

/** The player counts a preset allows (the server's /api/presets says). */
export function presetCounts(p) {
  const c = p.player_counts || p.players || p.counts;
  if (Array.isArray(c) && c.length) return c;
  return [2, 3, 4];
}

// Casual tables deal hand after hand until somebody leaves (docs/rules-decisions.md).
export const QUICK_DEFAULTS = { hands: "continuous", bot_delay: 0.6, next_hand_delay: 6, grace: 30, timeouts: "decision", hints: true, spectators: true };

/** The one-click table: you against a bot of a strength, or you and a friend. */
export function quickTable({ game = "pineapple", strength = "casual", clock = "30", name = "", friend = false, overrides = {} }) {
  const st = STRENGTHS.find((s) => s.id === strength) || STRENGTHS[1];
  const ck = CLOCKS.find((c) => c.id === String(clock)) || CLOCKS[0];
  const you = name ? { kind: "human", name } : { kind: "human" };
  const bot = { kind: "bot", bot: st.bot, name: `${st.label} bot` };
  if (st.level !== null) bot.level = st.level;
  return {
    name: friend ? `${gameName(game)} with a friend` : `${gameName(game)} vs ${st.label} bot`,
    preset: game,
    seats: [you, friend ? { kind: "human" } : bot],
    time_limit: ck.time_limit,
    time_bank: ck.time_limit ? ck.time_bank : 0,
    mode: "session",
    join: true,
    ...QUICK_DEFAULTS,
    ...overrides,
  };
}
