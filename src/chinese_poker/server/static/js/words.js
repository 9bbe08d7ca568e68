// Everything the page says in players' words: games, bots, options, errors, the log.
// Pure (no DOM): tests/js/words.test.mjs checks it. The words themselves are in the
// catalogues (static/i18n/*.json); the tables here hold their keys.

import { LINES } from "./eval.js";
import { t } from "./i18n.js";

/** The §14 presets as a player would name and explain them (catalogue keys: name, help). */
export const GAMES = {
  "pineapple": ["game.pineapple", "game.pineapple.help"],
  "pineapple-progressive": ["game.pineapple-progressive", "game.pineapple-progressive.help"],
  "ofc": ["game.ofc", "game.ofc.help"],
  "ofc-western": ["game.ofc-western", "game.ofc-western.help"],
  "ofc-hitspoker": ["game.ofc-hitspoker", "game.ofc-hitspoker.help"],
  "ofc-finnish": ["game.ofc-finnish", "game.ofc-finnish.help"],
  "turbo": ["game.turbo", "game.turbo.help"],
  "classic": ["game.classic", "game.classic.help"],
  "classic-1-6": ["game.classic-1-6", "game.classic-1-6.help"],
  "classic-low-middle": ["game.classic-low-middle", "game.classic-low-middle.help"],
  "classic-wheel": ["game.classic-wheel", "game.classic-wheel.help"],
  "criss-cross": ["game.criss-cross", "game.criss-cross.help"],
};
export const gameName = (preset) => (GAMES[preset] ? t(GAMES[preset][0]) : preset);
export const gameHelp = (preset) => (GAMES[preset] ? t(GAMES[preset][1]) : "");

/** Bots by strength, weakest first: what the lobby offers instead of engine names. */
export const STRENGTHS = [
  { id: "beginner", get label() { return t("bot.beginner"); }, get help() { return t("bot.beginner.help"); }, bot: "random", level: null },
  { id: "casual", get label() { return t("bot.casual"); }, get help() { return t("bot.casual.help"); }, bot: "rules", level: null },
  { id: "strong", get label() { return t("bot.strong"); }, get help() { return t("bot.strong.help"); }, bot: "mc", level: 2 },
  { id: "expert", get label() { return t("bot.expert"); }, get help() { return t("bot.expert.help"); }, bot: "mc", level: 4 },
];

/** The strength of a seat ({bot, level}) in words, or the engine's name. */
export function botWords(bot, level) {
  const s = STRENGTHS.find((x) => x.bot === bot && (x.level === null || x.level === level));
  if (s) return s.label;
  return bot ? `${bot}${level ? ` ${level}` : ""}` : t("bot.bot");
}

/** Clock choices: seconds per decision and the time bank. */
export const CLOCKS = [
  { id: "30", get label() { return t("clock.30"); }, get help() { return t("clock.30.help"); }, time_limit: 30, time_bank: 60 },
  { id: "15", get label() { return t("clock.15"); }, get help() { return t("clock.15.help"); }, time_limit: 15, time_bank: 30 },
  { id: "60", get label() { return t("clock.60"); }, get help() { return t("clock.60.help"); }, time_limit: 60, time_bank: 120 },
  { id: "none", get label() { return t("clock.none"); }, get help() { return t("clock.none.help"); }, time_limit: null, time_bank: 0 },
];

/** What happens when the clock runs out. */
export const TIMEOUT_POLICIES = {
  get decision() { return [t("timeouts.decision"), t("timeouts.decision.help")]; },
  get hand() { return [t("timeouts.hand"), t("timeouts.hand.help")]; },
};

export const ERROR_WORDS = {
  get bad_json() { return t("error.bad_json"); },
  get too_large() { return t("error.too_large"); },
  get bad_message() { return t("error.bad_message"); },
  get unknown_type() { return t("error.unknown_type"); },
  get read_only() { return t("error.read_only"); },
  get not_your_seat() { return t("error.not_your_seat"); },
  get no_hand() { return t("error.no_hand"); },
  get stale() { return t("error.stale"); },
  get illegal() { return t("error.illegal"); },
  get hints_disabled() { return t("error.hints_disabled"); },
  get hints_unavailable() { return t("error.hints_unavailable"); },
  get server_error() { return t("error.server_error"); },
};

/** Socket close codes: the message and the ways on offered with it. */
export const CLOSE_WORDS = {
  get 4404() { return { text: t("close.4404"), ways: ["lobby"] }; },
  get 4401() { return { text: t("close.4401"), ways: ["watch", "lobby"] }; },
  get 4403() { return { text: t("close.4403"), ways: ["lobby"] }; },
};

/** A line's name as a word in the current language ("top", "middle", "bottom"). */
export const lineName = (line) => t(LINE_KEYS[line] || line);
const LINE_KEYS = { top: "line.top", middle: "line.middle", bottom: "line.bottom" };
const PLACED_KEYS = { top: "placed.top", middle: "placed.middle", bottom: "placed.bottom" };

export function describeAction(a, players) {
  const who = players ? players[a.seat] ?? t("seat.n", { n: a.seat + 1 }) : t("seat.n", { n: a.seat + 1 });
  const auto = a.auto ? t("log.auto") : "";
  if (a.type === "place") {
    const parts = [];
    for (const line of LINES) if (a[line] && a[line].length) parts.push(`${lineName(line)} ${a[line].join(" ")}`);
    if (a.discard && a.discard.length) parts.push(t("log.discard", { cards: a.discard.join(" ") }));
    return `${who}: ${parts.join(", ") || t("log.placed_hidden")}${auto}`;
  }
  if (a.type === "surrender") return `${who}: ${a.surrender ? t("log.surrenders") : t("log.plays")}${auto}`;
  if (a.type === "claim_natural") return `${who}: ${a.claim ? t("log.declares_natural") : t("log.plays_board")}${auto}`;
  if (a.type === "timeout") return `${who}: ${t("log.timeout")}`;
  return `${who}: ${a.type}`;
}

export function hintText(action) {
  const parts = [];
  for (const line of LINES) if (action[line] && action[line].length) parts.push(`${lineName(line)[0].toUpperCase()}: ${action[line].join(" ")}`);
  if (action.discard && action.discard.length) parts.push(`✕ ${action.discard.join(" ")}`);
  if (action.type === "surrender") return action.surrender ? t("hint.surrender") : t("hint.play");
  if (action.type === "claim_natural") return action.claim ? t("hint.declare_natural") : t("log.plays_board_hint");
  return parts.join(" · ");
}

/** "placed 7h 8c on the bottom, 2d on the middle, discarded Kd" */
export function placedWords(a) {
  const parts = [];
  for (const line of ["bottom", "middle", "top"]) if (a[line] && a[line].length) parts.push(t(PLACED_KEYS[line], { cards: a[line].join(" ") }));
  const text = parts.join(", ");
  return a.discard && a.discard.length ? `${text}${text ? ", " : ""}${t("placed.discarded", { cards: a.discard.join(" ") })}` : text;
}

/** A REST error's detail in words. */
export function plainDetail(status, data) {
  const detail = data && data.detail;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail.map((d) => {
      const where = (d.loc || []).filter((x) => x !== "body").join(".");
      return where ? `${where}: ${d.msg}` : d.msg;
    }).join("; ");
  }
  const key = { 400: "http.400", 403: "http.403", 404: "http.404", 409: "http.409", 500: "http.500" }[status];
  return key ? t(key) : t("http.other", { status });
}
