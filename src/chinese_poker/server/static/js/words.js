// @ts-check
// Everything the page says in players' words: games, bots, options, errors, the log.
// Pure (no DOM): tests/js/words.test.mjs checks it. The words themselves are in the
// catalogues (static/i18n/*.json); the tables here hold their keys.

import { LINES } from "./eval.js";
import { DEFAULT_LANGUAGE, has, language, t } from "./i18n.js";

// The presets' and options' words are the server's (chinese_poker.rules.words, served
// as GET /api/presets and GET /api/options): one table, in English, loaded once when the
// page starts. Another language's catalogue translates them under the keys game.<preset>,
// game.<preset>.help, option.<key>, option.<key>.help and option.<key>.<value>; the
// English catalogue has none of them (the server's words are the English).
const RULE_WORDS = { presets: [], byPreset: new Map(), byOption: new Map() };
const ruleText = (key, english) => (language() !== DEFAULT_LANGUAGE && has(key) ? t(key) : english);

/** Keep the server's rule words: its preset list and its option catalogue. */
export function setRuleWords({ presets = [], options = [] } = {}) {
  if (presets.length) RULE_WORDS.presets = presets;
  for (const p of presets) RULE_WORDS.byPreset.set(p.name, p);
  for (const o of options) RULE_WORDS.byOption.set(o.key, o);
}
/** The presets as the server sent them (empty before they are loaded). */
export const rulePresets = () => RULE_WORDS.presets;
export const gameName = (preset) => ruleText(`game.${preset}`, (RULE_WORDS.byPreset.get(preset) || {}).label || preset);
export const gameHelp = (preset) => ruleText(`game.${preset}.help`, (RULE_WORDS.byPreset.get(preset) || {}).help || "");
/** An option's words {key, label, help, kind, choices: [{value, label}]}, or null. */
export const optionWords = (key) => RULE_WORDS.byOption.get(key) || null;
export const optionName = (key) => ruleText(`option.${key}`, (optionWords(key) || {}).label || key);
/** An option's name as the lobby lists it: players' words, never the option's key. */
export const optionLabel = (key) => optionName(key);
export const optionHelp = (key) => ruleText(`option.${key}.help`, (optionWords(key) || {}).help || "");
/** A value of an option in words ("Only the winner of the line"), or the value itself. */
export function choiceWords(key, value) {
  const o = optionWords(key);
  const c = o && o.choices.find((x) => x.value === String(value));
  return ruleText(`option.${key}.${value}`, c ? c.label : String(value));
}

/** Bots by strength, weakest first: what the lobby offers instead of engine names. */
export const STRENGTHS = [
  { id: "beginner", get label() { return t("bot.beginner"); }, get help() { return t("bot.beginner.help"); }, bot: "random", level: null },
  { id: "casual", get label() { return t("bot.casual"); }, get help() { return t("bot.casual.help"); }, bot: "rules", level: null },
  { id: "strong", get label() { return t("bot.strong"); }, get help() { return t("bot.strong.help"); }, bot: "mc", level: 2 },
  { id: "expert", get label() { return t("bot.expert"); }, get help() { return t("bot.expert.help"); }, bot: "mc", level: 3 },
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
  get not_playing() { return t("error.not_playing"); },
  get busy() { return t("error.busy"); },
  get duplicate() { return t("error.duplicate"); },
  get too_late() { return t("error.too_late"); },
};

/** Socket close codes: the message and the ways on offered with it. */
export const CLOSE_WORDS = {
  get 4404() { return { text: t("close.4404"), ways: ["lobby"] }; },
  get 4401() { return { text: t("close.4401"), ways: ["watch", "lobby"] }; },
  get 4403() { return { text: t("close.4403"), ways: ["lobby"] }; },
};

const STATUS_KEYS = { waiting: "status.waiting", playing: "status.playing", finished: "status.finished" };
/** A table's status (waiting, playing, finished) in words. */
export const statusName = (status) => (STATUS_KEYS[status] ? t(STATUS_KEYS[status]) : status);

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

export const NATURAL_KINDS = { dragon: "natural.dragon", six_pairs: "natural.six_pairs", three_flushes: "natural.three_flushes", three_straights: "natural.three_straights" };

/** A natural's name ("dragon") in the current language, or its code. */
export const naturalName = (kind) => (NATURAL_KINDS[kind] ? t(NATURAL_KINDS[kind]) : String(kind || "").replace(/_/g, " "));

// Why an item pays what it pays: the catalogue's note.<kind>.<note> (the same words the
// scorer's English and the terminal build their sentences from), or the note's code.
const noteText = (kind, note, a, b) => (note && has(`note.${kind}.${note}`) ? t(`note.${kind}.${note}`, { a, b }) : note || "");

/**
 * One item of a pair's breakdown in words: the server's text in English, the same
 * sentence from the item's kind and note in another language. ``hand(seat, line)`` names
 * a seat's hand on a line in that language (default: the item's own English names).
 */
export function itemText(pair, it, hand = null) {
  if (language() === "en" || !it.kind) return it.text || it.kind || "";
  const { a, b } = pair;
  const line = it.line ? lineName(it.line) : "";
  const ha = hand && it.line ? hand(a, it.line) || it.a_hand : it.a_hand;
  const hb = hand && it.line ? hand(b, it.line) || it.b_hand : it.b_hand;
  const p = it.points;
  if (it.kind === "line") {
    if (p > 0) return t("item.line_won", { line, who: a, hand: ha, hand2: hb });
    if (p < 0) return t("item.line_won", { line, who: b, hand: hb, hand2: ha });
    return t("item.line_tied", { line, hand: ha, hand2: hb });
  }
  if (it.kind === "overall") {
    const [wins, losses] = String(it.note || "").split("-");
    return t("item.overall", { who: p > 0 ? a : b, score: p > 0 ? `${wins}-${losses}` : `${losses}-${wins}` });
  }
  if (it.kind === "scoop") return t("item.scoop", { who: p > 0 ? a : b });
  if (it.kind === "foul") {
    if (it.note === "both") return t("item.foul_both", { a, b });
    return t("item.foul", { who: p > 0 ? b : a, what: noteText("foul", it.note, a, b) });
  }
  if (it.kind === "royalty") {
    const doubled = it.factor === 2 ? t("item.doubled") : "";
    const why = noteText("royalty", it.note, a, b);
    if (it.note === "foul") {
      const [who, amount, h] = p > 0 ? [a, it.a_amount, ha] : [b, it.b_amount, hb];
      return t("item.royalty_foul", { line, who, amount, hand: h, why }) + doubled;
    }
    const side = (who, amount, h) => (amount ? t("item.royalty_side", { who, amount, hand: h }) : `${who} ${amount || 0}`);
    return t("item.royalties", { line, a: side(a, it.a_amount, ha), b: side(b, it.b_amount, hb), why }) + doubled;
  }
  if (it.kind === "natural") {
    const nat = (k) => (k ? naturalName(k) : t("item.no_natural"));
    return t("item.naturals", { a, b, a_natural: nat(it.a_natural), b_natural: nat(it.b_natural), why: noteText("natural", it.note, a, b) });
  }
  if (it.kind === "surrender") return noteText("surrender", it.note, a, b);
  return it.text || it.kind;
}

/** The name rule's refusals (engine.table.validate_player_name, the same at every
 * entry of a name) and the keys of their words in the player's language. */
/** @type {{ pattern: RegExp, key: string, args?: (m: RegExpExecArray) => object }[]} */
const NAME_RULE = [
  { pattern: /^a player name has at most (\d+) characters, not (\d+)$/, key: "name.too_long", args: (m) => ({ max: m[1], n: m[2] }) },
  { pattern: /^a player name must be a non-empty string of visible characters/, key: "name.invisible" },
  { pattern: /^a player name cannot contain control characters or line breaks/, key: "name.control" },
  { pattern: /^a player name cannot contain direction overrides or isolates/, key: "name.direction" },
  { pattern: /^a player name cannot contain '(.)'/, key: "name.separator", args: (m) => ({ char: m[1] }) },
];

/** A server's one line in the player's words where it is one the page knows. */
function detailWords(detail) {
  for (const { pattern, key, args } of NAME_RULE) {
    const m = pattern.exec(detail);
    if (m) return t(key, args ? args(m) : {});
  }
  return detail;
}

/** A REST error's detail in words. */
export function plainDetail(status, data) {
  const detail = data && data.detail;
  if (typeof detail === "string") return detailWords(detail);
  if (Array.isArray(detail)) {
    return detail.map((d) => {
      const where = (d.loc || []).filter((x) => x !== "body").join(".");
      return where ? `${where}: ${d.msg}` : d.msg;
    }).join("; ");
  }
  const key = { 400: "http.400", 403: "http.403", 404: "http.404", 409: "http.409", 500: "http.500" }[status];
  return key ? t(key) : t("http.other", { status });
}
