// What the lobby sends to open a table: the one-click presets, the custom form's values
// and the rematch of a finished table. Pure (tests/js/tableplan.test.mjs).

import { CLOCKS, STRENGTHS, gameName } from "./words.js";
import { t } from "./i18n.js";

/** Rule options in players' words (catalogue keys of the label and its one-line
 * explanation). Others keep their key. */
export const OPTION_WORDS = {
  scoring_method: ["option.scoring_method", "option.scoring_method.help"],
  royalty_table: ["option.royalty_table", "option.royalty_table.help"],
  royalty_award: ["option.royalty_award", "option.royalty_award.help"],
  middle_trips_royalty: ["option.middle_trips_royalty", "option.middle_trips_royalty.help"],
  foul_penalty: ["option.foul_penalty", "option.foul_penalty.help"],
  foul_pays_opponent_royalties: ["option.foul_pays_opponent_royalties", "option.foul_pays_opponent_royalties.help"],
  finnish_deuce: ["option.finnish_deuce", "option.finnish_deuce.help"],
  fantasyland_enabled: ["option.fantasyland_enabled", "option.fantasyland_enabled.help"],
  fl_progressive: ["option.fl_progressive", "option.fl_progressive.help"],
  fl_repeat_middle_min: ["option.fl_repeat_middle_min", "option.fl_repeat_middle_min.help"],
  fl_max_consecutive: ["option.fl_max_consecutive", "option.fl_max_consecutive.help"],
  unit_value: ["option.unit_value", "option.unit_value.help"],
  surrender_allowed: ["option.surrender_allowed", "option.surrender_allowed.help"],
  surrender_cost: ["option.surrender_cost", "option.surrender_cost.help"],
  naturals_enabled: ["option.naturals_enabled", "option.naturals_enabled.help"],
  middle_mode: ["option.middle_mode", "option.middle_mode.help"],
  wheel_rank: ["option.wheel_rank", "option.wheel_rank.help"],
  starting_chips: ["option.starting_chips", "option.starting_chips.help"],
  level_minutes: ["option.level_minutes", "option.level_minutes.help"],
  timeout_ends_session: ["option.timeout_ends_session", "option.timeout_ends_session.help"],
};
export const optionLabel = (key) => (OPTION_WORDS[key] ? `${t(OPTION_WORDS[key][0])} (${key})` : key);
export const optionHelp = (key) => (OPTION_WORDS[key] ? t(OPTION_WORDS[key][1]) : "");

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

export const QUICK_DEFAULTS = { bot_delay: 0.6, next_hand_delay: 6, grace: 30, timeouts: "decision", hints: true, spectators: true };

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

/** The same table again (a rematch): same game, options, clock and bots; new seats. */
export function rematchTable(info, myName) {
  const seats = (info.seats || []).map((s) => {
    if (s.kind === "bot") {
      const seat = { kind: "bot", bot: s.bot };
      if (s.level !== null && s.level !== undefined) seat.level = s.level;
      if (s.name) seat.name = s.name;
      return seat;
    }
    return { kind: "human" };
  });
  const mine = seats.findIndex((s) => s.kind === "human");
  if (mine > 0) [seats[0], seats[mine]] = [seats[mine], seats[0]];
  if (seats[0] && myName) seats[0] = { kind: "human", name: myName };
  const body = {
    name: (info.name || "").toLowerCase().includes(t("plan.rematch").toLowerCase()) ? info.name : `${info.name || t("table.table")} (${t("plan.rematch")})`,
    preset: info.preset,
    options: info.options || {},
    seats,
    time_limit: info.time_limit ?? null,
    mode: info.mode || "session",
    hints: info.hints !== false,
    spectators: info.spectators !== false,
    bot_delay: info.bot_delay ?? 0.5,
    next_hand_delay: info.next_hand_delay ?? 3,
    join: true,
  };
  for (const k of ["time_bank", "timeouts", "grace"]) if (info[k] !== undefined) body[k] = info[k];
  return body;
}
