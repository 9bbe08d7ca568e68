// Everything the page says in players' words: games, bots, options, errors, the log.
// Pure (no DOM): tests/js/words.test.mjs checks it.

import { LINES } from "./eval.js";

// The presets' and options' words are the server's (chinese_poker.rules.words, served
// as GET /api/presets and GET /api/options): one table, loaded once when the page starts.
const RULE_WORDS = { presets: [], byPreset: new Map(), byOption: new Map() };

/** Keep the server's rule words: its preset list and its option catalogue. */
export function setRuleWords({ presets = [], options = [] } = {}) {
  if (presets.length) RULE_WORDS.presets = presets;
  for (const p of presets) RULE_WORDS.byPreset.set(p.name, p);
  for (const o of options) RULE_WORDS.byOption.set(o.key, o);
}
/** The presets as the server sent them (empty before they are loaded). */
export const rulePresets = () => RULE_WORDS.presets;
export const gameName = (preset) => (RULE_WORDS.byPreset.get(preset) || {}).label || preset;
export const gameHelp = (preset) => (RULE_WORDS.byPreset.get(preset) || {}).help || "";
/** An option's words {key, label, help, kind, choices: [{value, label}]}, or null. */
export const optionWords = (key) => RULE_WORDS.byOption.get(key) || null;
export const optionLabel = (key) => { const o = optionWords(key); return o ? `${o.label} (${key})` : key; };
export const optionHelp = (key) => (optionWords(key) || {}).help || "";
/** A value of an option in words ("Only the winner of the line"), or the value itself. */
export function choiceWords(key, value) {
  const o = optionWords(key);
  const c = o && o.choices.find((x) => x.value === String(value));
  return c ? c.label : String(value);
}

/** Bots by strength, weakest first: what the lobby offers instead of engine names. */
export const STRENGTHS = [
  { id: "beginner", label: "Beginner", help: "Plays legal cards at random: learn the rules against it.", bot: "random", level: null },
  { id: "casual", label: "Casual", help: "Follows sound rules of thumb, rarely fouls, thinks instantly.", bot: "rules", level: null },
  { id: "strong", label: "Strong", help: "Simulates the rest of the hand before each move (a few seconds).", bot: "mc", level: 2 },
  { id: "expert", label: "Expert", help: "Simulates much deeper; slow, and hard to beat.", bot: "mc", level: 4 },
];

/** The strength of a seat ({bot, level}) in words, or the engine's name. */
export function botWords(bot, level) {
  const s = STRENGTHS.find((x) => x.bot === bot && (x.level === null || x.level === level));
  if (s) return s.label;
  return bot ? `${bot}${level ? ` ${level}` : ""}` : "bot";
}

/** Clock choices: seconds per decision and the time bank. */
export const CLOCKS = [
  { id: "30", label: "30 s a move + 60 s bank", help: "Enough to think; the bank covers a hard street.", time_limit: 30, time_bank: 60 },
  { id: "15", label: "15 s a move + 30 s bank", help: "Brisk.", time_limit: 15, time_bank: 30 },
  { id: "60", label: "60 s a move + 120 s bank", help: "Relaxed, for learning.", time_limit: 60, time_bank: 120 },
  { id: "none", label: "No clock", help: "Nobody is hurried; a player who leaves is replaced by a bot after the grace period.", time_limit: null, time_bank: 0 },
];

/** What happens when the clock runs out. */
export const TIMEOUT_POLICIES = {
  decision: ["Place the cards for me and go on", "Only that decision is made for you (bottom first); the session goes on."],
  hand: ["Tournament rule (RULES §10)", "The rest of your hand is played for you and the session ends after it."],
};

export const ERROR_WORDS = {
  bad_json: "The server could not read the message.",
  too_large: "The message was too large.",
  bad_message: "The server did not understand the message.",
  unknown_type: "The server did not understand the request.",
  read_only: "You are watching this table, so you cannot act.",
  not_your_seat: "That move was for another seat.",
  no_hand: "No hand is being played right now.",
  stale: "The table moved on before your move arrived; look again and confirm.",
  illegal: "That move is not allowed.",
  hints_disabled: "This table does not allow hints.",
  hints_unavailable: "Hints are not available on this server.",
  server_error: "The server could not save the move; nothing changed. Try again.",
};

/** Socket close codes: the message and the ways on offered with it. */
export const CLOSE_WORDS = {
  4404: { text: "This table does not exist (it may have been removed).", ways: ["lobby"] },
  4401: { text: "Your seat key is not valid for this table (it was taken in another browser, or the table was reset). You can watch, or join again with the invite link.", ways: ["watch", "lobby"] },
  4403: { text: "This table does not allow spectators.", ways: ["lobby"] },
};

export function describeAction(a, players) {
  const who = players ? players[a.seat] ?? `seat ${a.seat + 1}` : `seat ${a.seat + 1}`;
  const auto = a.auto ? " (auto, timed out)" : "";
  if (a.type === "place") {
    const parts = [];
    for (const line of LINES) if (a[line] && a[line].length) parts.push(`${line} ${a[line].join(" ")}`);
    if (a.discard && a.discard.length) parts.push(`discard ${a.discard.join(" ")}`);
    return `${who}: ${parts.join(", ") || "placed (hidden)"}${auto}`;
  }
  if (a.type === "surrender") return `${who}: ${a.surrender ? "surrenders" : "plays"}${auto}`;
  if (a.type === "claim_natural") return `${who}: ${a.claim ? "declares a natural" : "plays the board"}${auto}`;
  if (a.type === "timeout") return `${who}: time ran out — the engine plays the rest`;
  return `${who}: ${a.type}`;
}

export function hintText(action) {
  const parts = [];
  for (const line of LINES) if (action[line] && action[line].length) parts.push(`${line[0].toUpperCase()}: ${action[line].join(" ")}`);
  if (action.discard && action.discard.length) parts.push(`✕ ${action.discard.join(" ")}`);
  if (action.type === "surrender") return action.surrender ? "Surrender" : "Play";
  if (action.type === "claim_natural") return action.claim ? "Declare the natural" : "Play the board";
  return parts.join(" · ");
}

/** "placed 7h 8c on the bottom, 2d on the middle, discarded Kd" */
export function placedWords(a) {
  const parts = [];
  for (const line of ["bottom", "middle", "top"]) if (a[line] && a[line].length) parts.push(`${a[line].join(" ")} on the ${line}`);
  const text = parts.join(", ");
  return a.discard && a.discard.length ? `${text}${text ? ", " : ""}discarded ${a.discard.join(" ")}` : text;
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
  return {
    400: "The server did not accept that request.",
    403: "That join code is not valid for this table.",
    404: "There is no such table (it may have been removed).",
    409: "That is not possible right now (for example, no free seat is left).",
    500: "The server hit an internal error; nothing was changed. Try again.",
  }[status] || `The server answered with status ${status}.`;
}
