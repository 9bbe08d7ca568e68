// @ts-check
// What the lobby sends to open a table: the one-click presets, the custom form's values
// and the rematch is the server's own (POST /api/tables/{id}/rematch). Pure (tests/js).

import { CLOCKS, STRENGTHS, gameName } from "./words.js";
import { t } from "./i18n.js";

export function parseValue(text) {
  const v = String(text).trim();
  if (v === "") return null;
  if (/^(true|false)$/i.test(v)) return v.toLowerCase() === "true";
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (/^[[{]/.test(v)) { try { return JSON.parse(v); } catch { return v; } }
  return v;
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
  const bot = { kind: "bot", bot: st.bot, name: t("join.bot_of", { level: st.label }) };
  if (st.level !== null) bot.level = st.level;
  return {
    name: friend ? t("plan.with_friend", { game: gameName(game) }) : t("plan.vs_bot", { game: gameName(game), level: st.label }),
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
