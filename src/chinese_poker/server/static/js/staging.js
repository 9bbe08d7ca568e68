// @ts-check
// The staging of a decision: which cards the player has put where before confirming.
// Pure functions of the table state T (no DOM); table.js renders and sends.

import { LINES, SIZES, liveAnalysis, rankWord } from "./eval.js";
import { language, t } from "./i18n.js";
import { lineName } from "./words.js";
import { sortCards } from "./util.js";

export function myDecisions(T) {
  if (!T.view || T.role !== "seat") return [];
  return (T.view.decisions || []).filter((d) => d.seat === T.seat);
}

export function decision(T) {
  const ds = myDecisions(T);
  if (!ds.length) return null;
  return ds[Math.min(T.decisionIndex, ds.length - 1)];
}

/** What identifies a decision: staging survives messages (and reloads) with the same one. */
export const decisionSig = (hand, d) => (d ? `${hand}|${d.kind}|${d.hand}|${d.cards.join(",")}` : null);

/** A new decision clears the staging, unless ``saved`` holds staging for this very one. */
export function syncStaging(T, saved = null) {
  const d = decision(T);
  const sig = decisionSig(T.hand, d);
  if (sig !== T.sig) {
    T.sig = sig;
    T.moves = [];
    T.selected = null;
    if (saved && saved.sig === sig && Array.isArray(saved.moves)) {
      const seen = new Set();
      for (const m of saved.moves) {
        if (d.cards.includes(m.card) && !seen.has(m.card) && [...LINES, "discard"].includes(m.to)) {
          seen.add(m.card);
          T.moves.push({ card: m.card, to: m.to });
        }
      }
      // Keep only what still fits (a stored record from an older page may not).
      T.moves = T.moves.filter((m, i) => fitsAfter(d, T.moves.slice(0, i), m.to));
    }
  }
  if (!d) T.decisionIndex = 0;
}

export const staged = (T, line) => T.moves.filter((m) => m.to === line).map((m) => m.card);

export function sortMode(T) {
  const d = decision(T);
  return T.sortMode || (d && d.kind === "set" ? "rank" : "dealt");
}

export function handCards(T) {
  const d = decision(T);
  if (!d) return [];
  const used = new Set(T.moves.map((m) => m.card));
  return sortCards(d.cards.filter((c) => !used.has(c)), sortMode(T));
}

function fitsAfter(d, moves, line) {
  if (line === "discard") return moves.filter((m) => m.to === "discard").length < d.discard;
  const placed = moves.filter((m) => m.to !== "discard").length;
  if (placed >= d.place) return false;
  return moves.filter((m) => m.to === line).length < d.free[LINES.indexOf(line)];
}

/** Room left on a line (or the discard pile) for the current decision. */
export function room(T, line) {
  const d = decision(T);
  if (!d) return 0;
  if (line === "discard") return d.discard - staged(T, "discard").length;
  const placed = T.moves.filter((m) => m.to !== "discard").length;
  if (placed >= d.place) return 0;
  return d.free[LINES.indexOf(line)] - staged(T, line).length;
}

export function canAct(T) {
  const d = decision(T);
  return !!d && (T.view.to_act || []).includes(T.seat) && !T.sessionOver;
}

/** Stage ``card`` (default: the selected one, else the first) on ``line``: null, or why not. */
const FULL_KEYS = { top: "stage.full.top", middle: "stage.full.middle", bottom: "stage.full.bottom" };

export function stage(T, line, card = T.selected) {
  const d = decision(T);
  if (!d || !canAct(T) || (d.kind !== "street" && d.kind !== "set")) return "";
  const cards = handCards(T);
  if (!card) card = cards[0];
  if (!card || !cards.includes(card)) return "";
  if (room(T, line) <= 0) {
    if (line === "discard") return d.discard ? t("stage.discard_only", { n: d.discard }) : t("stage.no_discard");
    if (T.moves.filter((m) => m.to !== "discard").length >= d.place) return t(d.discard ? "stage.place_only_rest" : "stage.place_only", { n: d.place });
    return t(FULL_KEYS[line] || line);
  }
  T.moves.push({ card, to: line });
  T.selected = null;
  return null;
}

export function unstage(T, card) {
  const i = T.moves.findIndex((m) => m.card === card);
  if (i < 0) return false;
  T.moves.splice(i, 1);
  return true;
}

export function ready(T) {
  const d = decision(T);
  if (!d || (d.kind !== "street" && d.kind !== "set")) return false;
  return T.moves.filter((m) => m.to !== "discard").length === d.place;
}

/** The board with the staged cards added, as the player will have it after confirming. */
export function combinedBoard(board, T) {
  const out = {};
  for (const line of LINES) out[line] = [...(board ? board[line] : []), ...staged(T, line)];
  return out;
}

/** The `stage` message of the staging now (docs/server-protocol.md): the cards a timeout
 * keeps where they are. Null when this seat has no street to stage. */
export function stageMessage(T) {
  const d = decision(T);
  if (!d || d.kind !== "street" || !T.hand || !d.street) return null;
  return {
    type: "stage", hand: T.hand, street: d.street,
    top: staged(T, "top"), middle: staged(T, "middle"), bottom: staged(T, "bottom"), discard: staged(T, "discard"),
  };
}

/** The Place action of the staging (cards left in hand go to the discard). */
export function placeAction(T) {
  const d = decision(T);
  return {
    type: "place", seat: T.seat, hand: d.hand, version: T.view.version,
    top: staged(T, "top"), middle: staged(T, "middle"), bottom: staged(T, "bottom"),
    discard: [...staged(T, "discard"), ...handCards(T)],
  };
}

const LETTER = { top: "t", middle: "m", bottom: "b", discard: "d" };

/**
 * Every placement of decision `d`'s cards as the server writes it (engine.views.
 * placement_fouls): one letter per dealt card in the dealt order, t, m, b or d (discard),
 * `place` of them on the lines and at most `free` on each.
 */
export function placementCodes(d) {
  let codes = [""];
  for (let i = 0; i < d.cards.length; i++) codes = codes.flatMap((c) => ["t", "m", "b", "d"].map((x) => c + x));
  return codes.filter((c) => {
    const n = (x) => c.split(x).length - 1;
    return n("d") === d.cards.length - d.place && n("t") <= d.free[0] && n("m") <= d.free[1] && n("b") <= d.free[2];
  });
}

/**
 * The server's reason (scoring.FoulReason as data, with its English `text`) when every way
 * to go on from the staging fouls whatever comes (of those ways, the shortest reason), by its answer to the `fouls` message
 * (T.fouls, for this decision); null when a way does not, or no answer is there yet.
 */
export function serverFoul(T) {
  const d = decision(T);
  const known = T.fouls;
  if (!d || d.kind !== "street" || !known || known.sig !== T.sig) return null;
  const where = new Map(T.moves.map((m) => [m.card, LETTER[m.to]]));
  let first = null;
  for (const code of placementCodes(d)) {
    if (![...code].every((x, i) => !where.has(d.cards[i]) || where.get(d.cards[i]) === x)) continue;
    const reason = known.placements[`${d.hand}:${code}`];
    if (!reason) return null;
    // The shortest reason: it names the fewest cards the player has not placed yet.
    if (!first || reason.text.length < first.text.length) first = reason;
  }
  return first;
}

/** The server's foul reason in the current language; `lines` name the staged lines' hands. */
export function foulWords(reason, lines) {
  if (language() === "en" || !reason.kind) return reason.text;
  const hand = (line) => (lines && lines[line] ? lines[line].name : "");
  if (reason.kind === "beats" && reason.line && reason.below) {
    return t("foul.beats_whatever", { line: lineName(reason.line), hand: hand(reason.line), below: lineName(reason.below), hand2: hand(reason.below) });
  }
  if (reason.kind === "low_middle" && reason.ceiling) return t("foul.low_middle", { rank: rankWord(reason.ceiling) });
  if (reason.kind === "squeezed") return t("foul.squeezed");
  return reason.text;
}

/**
 * Why confirming now would certainly foul (null: it would not, as far as is known). A
 * complete board is judged here (eval.js, the scorer's order of lines); an unfinished one
 * by the server's exact answer (serverFoul).
 */
export function certainFoul(T, board, spec) {
  const combined = combinedBoard(board, T);
  const a = liveAnalysis(combined, spec);
  if (LINES.every((l) => combined[l].length === SIZES[l])) return a.fouled ? a.foulReason : null;
  const reason = serverFoul(T);
  return reason ? foulWords(reason, a.lines) : null;
}
