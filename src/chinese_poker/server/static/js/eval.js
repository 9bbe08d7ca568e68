// @ts-check
// Client-side line evaluator: categories and keys (RULES §3), the top-vs-middle rule
// (§3.4), foul warnings (§4, §8.1) and the royalties (§7.4) of the table's compiled spec.
// Values use the same packing as chinese_poker.evaluate: the category in bits 20..23 and
// up to five key ranks (2..14, highest first, 0 where a three-card key has no position)
// in 4-bit slots below, so a top and a middle compare by plain integer comparison.
// The server's own check stays the authority; this only powers live warnings.

import { language, t } from "./i18n.js";

export const RANKS = "23456789TJQKA";
export const SUITS = "shdc";
export const HIGH_CARD = 0, ONE_PAIR = 1, TWO_PAIR = 2, THREE_OF_A_KIND = 3, STRAIGHT = 4,
  FLUSH = 5, FULL_HOUSE = 6, FOUR_OF_A_KIND = 7, STRAIGHT_FLUSH = 8;
export const CATEGORY_NAMES = ["High card", "One pair", "Two pair", "Three of a kind",
  "Straight", "Flush", "Full house", "Four of a kind", "Straight flush"];
// Rank words from the catalogues: the singular ("king") and the form after "pair of"
// ("kings"; a genitive plural in the Slavic and Baltic languages).
const RANK_KEYS = [["rank.2", "ranks.2"], ["rank.3", "ranks.3"], ["rank.4", "ranks.4"],
  ["rank.5", "ranks.5"], ["rank.6", "ranks.6"], ["rank.7", "ranks.7"], ["rank.8", "ranks.8"],
  ["rank.9", "ranks.9"], ["rank.T", "ranks.T"], ["rank.J", "ranks.J"], ["rank.Q", "ranks.Q"],
  ["rank.K", "ranks.K"], ["rank.A", "ranks.A"]];
const word = (r) => t(RANK_KEYS[r][0]);
/** A rank's word ("ten") from its character ("T"), or the character itself. */
export const rankWord = (ch) => (RANKS.includes(ch) ? word(RANKS.indexOf(ch)) : ch);
const plural = (r) => t(RANK_KEYS[r][1]);
const capital = (s) => s.charAt(0).toLocaleUpperCase() + s.slice(1);

/** "Ah" -> {rank: 12, suit: 1} */
export function parseCard(name) {
  const rank = RANKS.indexOf(name[0].toUpperCase());
  const suit = SUITS.indexOf(name[1].toLowerCase());
  if (rank < 0 || suit < 0) throw new Error(`bad card ${name}`);
  return { rank, suit };
}

function pack(cat, ranks) {
  let value = cat;
  for (let i = 0; i < 5; i++) value = value * 16 + (i < ranks.length ? ranks[i] + 2 : 0);
  return value;
}

function groups(ranks) {
  const counts = new Map();
  for (const r of ranks) counts.set(r, (counts.get(r) || 0) + 1);
  const g = [...counts.entries()].sort((a, b) => (b[1] - a[1]) || (b[0] - a[0]));
  return { ordered: g.map((x) => x[0]), shape: g.map((x) => x[1]).join("") };
}

/**
 * Value of a line of 1..5 cards. A five-card line can make straights and flushes; a
 * top (3 cards) or an incomplete line only makes groups (pairs, trips, quads).
 * wheel: "lowest" (A-5 is the lowest straight) or "second_highest" (§8.2).
 */
export function evaluate(cards, { wheel = "lowest", five = true } = {}) {
  const cs = cards.map((c) => (typeof c === "string" ? parseCard(c) : c));
  const ranks = cs.map((c) => c.rank);
  if (cs.length === 0) return 0;
  const { ordered, shape } = groups(ranks);
  if (five && cs.length === 5 && ordered.length === 5) {
    const desc = [...ranks].sort((a, b) => b - a);
    const suited = cs.every((c) => c.suit === cs[0].suit);
    let top = null;
    if (desc[0] - desc[4] === 4) top = desc[0];
    else if (wheel !== "none" && desc.join(",") === "12,3,2,1,0") top = 3;
    if (top !== null) {
      const cat = suited ? STRAIGHT_FLUSH : STRAIGHT;
      if (top === 3 && wheel === "second_highest") return pack(cat, [11]) + (1 << 12);
      return pack(cat, [top]);
    }
    return pack(suited ? FLUSH : HIGH_CARD, desc);
  }
  const cat = {
    "41": FOUR_OF_A_KIND, "4": FOUR_OF_A_KIND, "32": FULL_HOUSE, "311": THREE_OF_A_KIND,
    "31": THREE_OF_A_KIND, "3": THREE_OF_A_KIND, "221": TWO_PAIR, "22": TWO_PAIR,
    "2111": ONE_PAIR, "211": ONE_PAIR, "21": ONE_PAIR, "2": ONE_PAIR,
  }[shape] ?? HIGH_CARD;
  return pack(cat, ordered);
}

export const category = (value) => Math.floor(value / (1 << 20));

export function keyRanks(value) {
  const out = [];
  for (const shift of [16, 12, 8, 4, 0]) {
    const r = Math.floor(value / 2 ** shift) % 16;
    if (r > 1) out.push(r - 2);
  }
  return out;
}

/** A player's name for a value, as the server's scorer writes it (in English; the
 * current language's words otherwise). */
export function describe(value) {
  const cat = category(value);
  const ks = keyRanks(value);
  if (!ks.length) return "";
  if (cat === STRAIGHT_FLUSH && ks[0] === 12) return t("hand.royal_flush");
  if (cat === STRAIGHT || cat === STRAIGHT_FLUSH) {
    const flush = cat === STRAIGHT_FLUSH;
    if (Math.floor(value / 4096) % 16 === 1) return t(flush ? "hand.straight_flush_wheel" : "hand.straight_wheel");
    return capital(t(flush ? "hand.straight_flush" : "hand.straight", { rank: word(ks[0]) }));
  }
  if (cat === FOUR_OF_A_KIND) return capital(t("hand.quads", { ranks: plural(ks[0]) }));
  if (cat === FULL_HOUSE) return capital(t("hand.full_house", { ranks: plural(ks[0]), ranks2: plural(ks[1]) }));
  if (cat === FLUSH) return capital(t("hand.flush", { rank: word(ks[0]) }));
  if (cat === THREE_OF_A_KIND) return capital(t("hand.trips", { ranks: plural(ks[0]) }));
  if (cat === TWO_PAIR) return capital(t("hand.two_pair", { ranks: plural(ks[0]), ranks2: plural(ks[1]) }));
  const kick = ks.slice(1).map((r) => RANKS[r]).join(", ");
  if (cat === ONE_PAIR) {
    if (ks.length === 2) return capital(t("hand.pair_kicker", { ranks: plural(ks[0]), rank: word(ks[1]) }));
    return capital(t(kick ? "hand.pair_kickers" : "hand.pair", { ranks: plural(ks[0]), kickers: kick }));
  }
  return capital(t(kick ? "hand.high_card_then" : "hand.high_card", { rank: word(ks[0]), kickers: kick }));
}

/**
 * The hand name of a settlement line ({cards, hand, value}, engine's to_dict) in the
 * current language: the server's words in English, the value's name otherwise (the
 * fixtures hold describe() to the server's names); a low middle is named by its cards.
 */
export function lineHandName(line) {
  if (!line || language() === "en" || !line.cards) return line ? line.hand || "" : "";
  const cards = line.cards.split(" ").filter(Boolean);
  if (/^low\b/i.test(line.hand || "")) return t("hand.low", { hand: describe(evaluate(cards, { wheel: "none" })) });
  return describe(line.value);
}

/** Deuce-to-seven low value: higher is the better low (the mirror of the high value). */
export function evaluateLow27(cards) {
  const high = evaluate(cards, { wheel: "none" });
  return (1 << 24) - high;
}

function low27HighCard(lowValue) {
  const high = (1 << 24) - lowValue;
  if (category(high) !== HIGH_CARD) return null;
  return (Math.floor(high / 65536) % 16) - 2;
}

// ------------------------------------------------------------------- royalties

// The royalty tables are not kept here: the server sends the table's compiled rules spec
// (chinese_poker.rules.spec, RulesSpec.to_dict()) and every figure is read from it.

// What analyseBoard models, declared as the Python consumers do (rules.require_supported).
// Per part of the spec: the fields it reads (with the values it models, where not all
// are), and the fields that never change one board's royalties, foul or Fantasyland entry
// (how a settlement pays them). Any other field, one the spec gains later included, and
// any other value are refused with an UnsupportedRules error: the page must not show
// figures of another game.
const ANY = null;
const MODELLED = {
  scoring: {
    reads: { royalties: ANY, lowball_middle: ANY, low_qualifier: ANY, low_qualifier_high: ANY, wheel: ["lowest", "second_highest"], fantasyland: ANY },
    settles: ["line_values", "scoop_value", "more_lines_won", "showdown_points", "foul_value", "foul_is_scoop",
      "foul_pays_royalties", "misset_penalised", "finnish_deuce", "deuce_doubles_when_holder_fouled",
      "naturals", "surrender_cost", "parallel_pairing", "unit_value"],
  },
  royalties: {
    reads: { top_pair: ANY, top_trips: ANY, middle: ANY, middle_royal: ANY, bottom: ANY, bottom_royal: ANY,
      low_middle: ANY, low_middle_best: ANY, max_per_hand: [null, 1], dealt_combination: [false] },
    settles: ["table", "low_middle_dp", "award", "split_ties", "lookup"],
  },
  fantasyland: {
    reads: { enabled: ANY, entry_min_pair: ANY },
    settles: ["entry", "repeat", "stay_middle_min", "stay_bottom_min", "max_consecutive", "limit_scope",
      "button_moves", "entry_by_top"],
  },
};

/** A spec option the live evaluator does not model (the server's figures still stand). */
export class UnsupportedRules extends Error {}

/** Throw UnsupportedRules unless every field of the spec's scoring part is modelled. */
export function requireSupported(spec) {
  if (!spec || !spec.scoring || !spec.scoring.royalties || !spec.scoring.fantasyland) {
    throw new Error("the table's rules spec is missing (the server sends it in the welcome message)");
  }
  const parts = { scoring: spec.scoring, royalties: spec.scoring.royalties, fantasyland: spec.scoring.fantasyland };
  for (const [part, data] of Object.entries(parts)) {
    const { reads, settles } = MODELLED[part];
    for (const [key, value] of Object.entries(data)) {
      const where = part === "scoring" ? key : `${part}.${key}`;
      if (settles.includes(key)) continue;
      if (!(key in reads)) throw new UnsupportedRules(`${where} is not modelled by the live evaluator (eval.js)`);
      const allowed = reads[key];
      if (allowed !== ANY && !allowed.includes(value)) {
        throw new UnsupportedRules(`${where}=${JSON.stringify(value)} is not modelled by the live evaluator (eval.js); supported: ${allowed.map((v) => JSON.stringify(v)).join(", ")}`);
      }
    }
  }
}

/** The royalty plan of a compiled spec ({scoring, variant}, as the server sends it). */
export function royaltyPlan(spec) {
  requireSupported(spec);
  const sc = spec.scoring;
  const r = sc.royalties;
  return {
    maxPerHand: r.max_per_hand,
    topPair: r.top_pair, topTrips: r.top_trips,
    mid: { table: r.middle, royal: r.middle_royal },
    bot: { table: r.bottom, royal: r.bottom_royal },
    lowball: !!sc.lowball_middle, qualifierHigh: sc.low_qualifier_high ?? null,
    low: { byTop: r.low_middle, best: r.low_middle_best },
    wheel: sc.wheel || "lowest",
    fantasyland: sc.fantasyland && sc.fantasyland.enabled ? sc.fantasyland.entry_min_pair : null,
  };
}

function fiveRoyalty(value, { table, royal }) {
  const cat = category(value);
  if (cat === STRAIGHT_FLUSH && Math.floor(value / 65536) % 16 === 14) return royal;
  return table[cat] || 0;
}

function topRoyalty(plan, value) {
  const cat = category(value);
  const r = (Math.floor(value / 65536) % 16) - 2;
  if (cat === ONE_PAIR) return plan.topPair[r];
  if (cat === THREE_OF_A_KIND) return plan.topTrips[r];
  return 0;
}

const LOW_75432 = evaluateLow27(["7c", "5d", "4h", "3s", "2c"]);

// The 2-7 low middle's royalties (§8.1) come from the spec too: by the low's top card,
// and the best low, 7-5-4-3-2, apart (RoyaltySpec.low_middle_of on the Python side).
function lowRoyalty({ byTop, best }, lowValue) {
  const high = low27HighCard(lowValue);
  if (high === null) return 0;
  return lowValue === LOW_75432 ? best : byTop[high] || 0;
}

/**
 * analyseBoard, or, under rules it does not model, an empty analysis whose `unsupported`
 * says why: a page shows that reason instead of failing (the server's figures stand).
 */
export function liveAnalysis(board, spec) {
  try {
    return analyseBoard(board, spec);
  } catch (e) {
    if (!(e instanceof UnsupportedRules)) throw e;
    return { lines: null, royalties: 0, fouled: false, foulReason: null, warnings: [], fantasyland: false, unsupported: e.message };
  }
}

export const LINES = ["top", "middle", "bottom"];
export const SIZES = { top: 3, middle: 5, bottom: 5 };

/**
 * Analyse a (possibly incomplete) board {top, middle, bottom} of card names under the
 * table's compiled spec: per line its made hand, name and royalty so far, plus warnings
 * (a foul only once the board is complete: an unfinished one is the server's to judge).
 * Returns {lines: {top: {value, name, royalty, complete}, ...}, royalties, fouled,
 *          foulReason, warnings: [text], fantasyland: bool}.
 */
export function analyseBoard(board, spec) {
  const plan = royaltyPlan(spec);
  const out = { lines: {}, royalties: 0, fouled: false, foulReason: null, warnings: [] };
  for (const line of LINES) {
    const cards = board[line] || [];
    const complete = cards.length === SIZES[line];
    const value = cards.length
      ? evaluate(cards, { wheel: plan.wheel, five: line !== "top" }) : 0;
    let royalty = 0;
    let name = cards.length ? describe(value) : "";
    if (line === "top") royalty = topRoyalty(plan, value);
    else if (line === "middle" && plan.lowball) {
      if (complete) {
        const low = evaluateLow27(cards);
        royalty = lowRoyalty(plan.low, low);
        name = t("hand.low", { hand: describe(evaluate(cards, { wheel: "none" })) });
      } else name = "";
    } else if (complete || category(value) === FOUR_OF_A_KIND || (line === "middle" && category(value) === THREE_OF_A_KIND)) {
      royalty = fiveRoyalty(value, line === "middle" ? plan.mid : plan.bot);
    }
    out.lines[line] = { value, name, royalty, complete, count: cards.length };
  }
  const { top, middle, bottom } = out.lines;
  const LINE = { top: "line.top", middle: "line.middle", bottom: "line.bottom" };
  const cmp = (a, b, an, bn) => t("foul.beats", { line: t(LINE[an]), hand: a.name, below: t(LINE[bn]), hand2: b.name });
  // Only a complete board is judged here (the scorer's order of lines). Whether an
  // unfinished one fouls whatever comes is the server's exact answer to the `fouls`
  // message (staging.certainFoul); here it only warns of a line ahead of the one below.
  const complete = top.complete && middle.complete && bottom.complete;
  if (plan.lowball) {
    if (complete && top.value > bottom.value) {
      out.fouled = true; out.foulReason = cmp(top, bottom, "top", "bottom");
    } else if (!complete && top.count && bottom.count && top.value > bottom.value) {
      out.warnings.push(t("foul.risk_so_far", { reason: cmp(top, bottom, "top", "bottom") }));
    }
    if (complete && plan.qualifierHigh !== null) {
      const high = low27HighCard(evaluateLow27(board.middle));
      if (high === null || high > plan.qualifierHigh) {
        out.fouled = true;
        out.foulReason = out.foulReason || t("foul.low_middle", { rank: t(RANK_KEYS[plan.qualifierHigh][0]) });
      }
    }
  } else if (complete) {
    if (top.value > middle.value) {
      out.fouled = true; out.foulReason = cmp(top, middle, "top", "middle");
    } else if (middle.value > bottom.value) {
      out.fouled = true; out.foulReason = cmp(middle, bottom, "middle", "bottom");
    }
  } else {
    // A risk judged on the real values (a middle pair of tens over a bottom pair of
    // fours warns): the lower line must still catch up.
    if (top.count && middle.count && top.value > middle.value && category(top.value) >= ONE_PAIR) {
      out.warnings.push(t("foul.risk_ahead", { line: t(LINE.top), hand: top.name, below: t(LINE.middle), hand2: middle.name }));
    }
    if (middle.count && bottom.count && middle.value > bottom.value && category(middle.value) >= ONE_PAIR) {
      out.warnings.push(t("foul.risk_ahead", { line: t(LINE.middle), hand: middle.name, below: t(LINE.bottom), hand2: bottom.name }));
    }
  }
  if (plan.maxPerHand === 1) {
    // One royalty per hand: the biggest line's; on equal amounts the lowest line's
    // (scoring.royalties.royalty_parts).
    const best = [bottom, middle, top].reduce((a, b) => (b.royalty > a.royalty ? b : a));
    for (const l of [top, middle, bottom]) if (l !== best) l.royalty = 0;
  }
  out.royalties = out.fouled ? 0 : top.royalty + middle.royalty + bottom.royalty;
  const topCat = category(top.value);
  out.fantasyland = !out.fouled && top.complete && plan.fantasyland !== null &&
    (topCat === THREE_OF_A_KIND || (topCat === ONE_PAIR && keyRanks(top.value)[0] >= plan.fantasyland));
  return out;
}
