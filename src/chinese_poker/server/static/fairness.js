// @ts-check
// Fair shuffles checked in the page (docs/fairness.md, scheme chinese-poker/v2).
// The page keeps every commitment it saw before a deal, sends its own random value
// for each hand, and after the showdown recomputes the commitment, the deal seed, the
// shuffle and the deal order with WebCrypto, then compares them with the cards it saw.
// The same construction as chinese_poker/server/fairness.py; tests check both on the
// documented worked example and on played hands.

import { t } from "./js/i18n.js";

export const SCHEME = "chinese-poker/v2";
const RANKS = "23456789TJQKA";
const SUITS = "shdc";
const enc = new TextEncoder();

export function cardName(c) { return RANKS[c >> 2] + SUITS[c & 3]; }

function hex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}
function fromHex(text) {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}
function subtle() {
  const s = globalThis.crypto && globalThis.crypto.subtle;
  if (!s) throw new Error(t("fair.insecure"));
  return s;
}
export async function sha256(data) {
  return hex(await subtle().digest("SHA-256", typeof data === "string" ? enc.encode(data) : data));
}

/** 32 random bytes as 64 hex digits: this client's contribution to a hand. */
export function newContribution() {
  return hex(crypto.getRandomValues(new Uint8Array(32)));
}

export function commitmentOf(r) {
  return sha256(`${SCHEME}|commit|${r.table}|${r.hand}|${r.rules_digest}|${r.seed}|${r.salt}`);
}
export function botValue(r, player) {
  return sha256(`${SCHEME}|bot|${r.table}|${r.hand}|${player}|${r.seed}|${r.salt}`);
}
export function dealSeed(r, values) {
  const tail = [...values].sort().map((v) => `|${v}`).join("");
  return sha256(`${SCHEME}|deal|${r.table}|${r.hand}|${r.seed}|${r.salt}${tail}`);
}

/** The deck (card numbers 0..51) of a deal seed: SHA-256 counter-mode Fisher-Yates. */
export async function shuffle(seedHex) {
  const key = fromHex(seedHex);
  const words = [];
  let block = 0;
  async function next() {
    if (!words.length) {
      const input = new Uint8Array(36);
      input.set(key);
      new DataView(input.buffer).setUint32(32, block++);
      const out = new DataView(await subtle().digest("SHA-256", input));
      for (let k = 0; k < 8; k++) words.push(out.getUint32(4 * k));
    }
    return words.shift();
  }
  const deck = Array.from({ length: 52 }, (_, i) => i);
  for (let i = 51; i >= 1; i--) {
    const n = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % n);
    let w = await next();
    while (w >= limit) w = await next();
    const j = w % n;
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/**
 * Where each box's cards come from in the deck (RULES §5.1): a list of runs
 * {seat, hand, street (1-based; 0 for a Fantasyland deal), start, count}.
 * deal = {players: n, button, open_face, hands_per_seat, streets: [[dealt, placed], ...],
 *         fantasyland: {seat: cards}}; open_face, hands_per_seat and streets are the
 * compiled spec's variant facts (the welcome message's spec.variant).
 */
export function dealRuns(deal) {
  const n = deal.players;
  const order = Array.from({ length: n }, (_, i) => (deal.button + 1 + i) % n);
  const runs = [];
  if (!deal.open_face) {
    const hands = deal.hands_per_seat;
    for (let h = 0; h < hands; h++) {
      for (let i = 0; i < 13 * n; i++) {
        runs.push({ seat: order[i % n], hand: h, street: 1, start: h * 13 * n + i, count: 1 });
      }
    }
    return runs;
  }
  let pos = 0;
  const fl = deal.fantasyland || {};
  for (const seat of order) {
    if (fl[seat]) { runs.push({ seat, hand: 0, street: 0, start: pos, count: fl[seat] }); pos += fl[seat]; }
  }
  deal.streets.forEach(([dealt], k) => {
    for (const seat of order) {
      if (fl[seat]) continue;
      runs.push({ seat, hand: 0, street: k + 1, start: pos, count: dealt });
      pos += dealt;
    }
  });
  return runs;
}

function boardCards(b) { return [...(b.top || []), ...(b.middle || []), ...(b.bottom || [])]; }

/**
 * What one page knows about the fairness of a table's hands, kept in localStorage:
 * commitments seen (and whether before the deal), the values it sent, the cards its
 * seat was dealt street by street, and each finished hand's verdict.
 */
export class FairDeals {
  constructor(tableId, storage = globalThis.localStorage) {
    this.key = `cp.fair.${tableId}`;
    this.storage = storage;
    let saved;
    try { saved = JSON.parse(storage.getItem(this.key) || "null"); } catch { saved = null; }
    this.s = saved || { commitments: {}, sent: {}, seen: {}, verdicts: {} };
  }
  save() { try { this.storage.setItem(this.key, JSON.stringify(this.s)); } catch { /* full: keep in memory */ } }

  /** A commitment for `hand` published before its deal (table info, hand_end). */
  committed(hand, commitment) {
    if (!hand || !commitment || this.s.commitments[hand]) return;
    this.s.commitments[hand] = { commitment, before: true };
    this.save();
  }
  /** The commitment in hand_start: kept, and compared with the one seen before. */
  dealt(hand, commitment) {
    const kept = this.s.commitments[hand];
    if (!kept) this.s.commitments[hand] = { commitment, before: false };
    else if (kept.commitment !== commitment) kept.changed = commitment;
    this.save();
  }
  /** This client's value for `hand` (made once, kept so a reconnect sends the same). */
  contribution(hand) {
    if (!this.s.sent[hand]) { this.s.sent[hand] = newContribution(); this.save(); }
    return this.s.sent[hand];
  }
  /** A state message: note the cards dealt to this seat in each street. */
  observe(hand, view) {
    if (view.seat === null || view.seat === undefined || view.phase === "showdown") return;
    const seen = (this.s.seen[hand] ||= {});
    const known = new Set(Object.values(seen).flat());
    const fresh = (view.hand || []).filter((c) => !known.has(c));
    if (!fresh.length) return;
    const mine = view.boards.find((b) => b.seat === view.seat);
    const street = mine && mine.in_fantasyland ? 0 : (view.street || 1);
    (seen[street] ||= []).push(...fresh);
    this.save();
  }

  verdict(hand) { return this.s.verdicts[hand] || null; }

  /** The server did not take this page's value for `hand` (too late, not dealt in). */
  refused(hand, why) { (this.s.late ||= {})[hand] = why; this.save(); }

  /**
   * Check hand `hand` from its reveal and the showdown view; returns and keeps
   * {ok, reason}. `variant` is the compiled spec's variant facts (streets and all).
   */
  async verify(hand, reveal, view, variant) {
    let result;
    try {
      result = await this._verify(hand, reveal, view, variant);
    } catch (err) {
      result = { ok: false, reason: err.message };
    }
    this.s.verdicts[hand] = result;
    this.save();
    return result;
  }

  async _verify(hand, r, view, variant) {
    const fail = (reason) => ({ ok: false, reason });
    if (!r || r.scheme !== SCHEME) return fail(t("fair.scheme", { scheme: r && r.scheme }));
    if (r.hand !== hand) return fail(t("fair.other_hand", { revealed: r.hand, hand }));
    const kept = this.s.commitments[hand];
    if (!kept) return fail(t("fair.unseen"));
    if (kept.changed) return fail(t("fair.changed", { before: `${kept.commitment.slice(0, 12)}…`, after: `${kept.changed.slice(0, 12)}…` }));
    if (r.commitment !== kept.commitment) return fail(t("fair.not_published"));
    if (await commitmentOf(r) !== kept.commitment) return fail(t("fair.no_hash"));
    const players = view.players;
    const contributions = r.contributions || [];
    if (contributions.map((c) => c.player).join("\n") !== players.join("\n")) return fail(t("fair.players"));
    for (const c of contributions) {
      if (c.source === "bot" && c.value !== await botValue(r, c.player)) return fail(t("fair.bot_value", { player: c.player }));
    }
    const sent = this.s.sent[hand];
    const late = (this.s.late || {})[hand];
    if (sent && !late && view.seat !== null && view.seat !== undefined) {
      const me = contributions[view.seat];
      if (!me || me.source !== "player" || me.value !== sent) return fail(t("fair.own_missing"));
    }
    const values = contributions.filter((c) => c.value).map((c) => c.value);
    const seed = await dealSeed(r, values);
    if (seed !== r.deal_seed) return fail(t("fair.seed"));
    const deck = (await shuffle(seed)).map(cardName);
    const fantasyland = {};
    for (const b of view.boards) if (b.fantasyland_cards) fantasyland[b.seat] = b.fantasyland_cards;
    if (!variant) return fail("the page has not been sent the table's rules spec");
    const runs = dealRuns({ players: players.length, button: view.button, open_face: variant.open_face, hands_per_seat: variant.hands_per_seat, streets: variant.streets, fantasyland });
    const cardsOf = (seat, hand, street = null) => runs
      .filter((x) => x.seat === seat && x.hand === hand && (street === null || x.street === street))
      .flatMap((x) => deck.slice(x.start, x.start + x.count));
    for (const b of view.boards) {
      const allowed = new Set(cardsOf(b.seat, b.hand));
      const shown = boardCards(b).concat(b.seat === view.seat ? b.discards || [] : []);
      const stray = shown.find((c) => !allowed.has(c));
      if (stray) return fail(t("fair.stray", { player: b.player, card: stray }));
      if (b.seat === view.seat && !b.surrendered && shown.length !== allowed.size) return fail(t("fair.not_exact"));
    }
    const seen = this.s.seen[hand] || {};
    for (const [street, cards] of Object.entries(seen)) {
      const allowed = new Set(cardsOf(view.seat, 0, Number(street)));
      if (variant.hands_per_seat > 1) cardsOf(view.seat, 1, Number(street)).forEach((c) => allowed.add(c));
      const stray = cards.find((c) => !allowed.has(c));
      if (stray) return fail(t("fair.order", { card: stray, street }));
    }
    const matched = t("fair.matched", { seed: `${seed.slice(0, 12)}…` });
    // Consistent, but not protected: a server that refuses a player's value, or shows the
    // commitment only with the deal, could have chosen the deal. Never "✓ verified".
    if (late) return { ok: true, unprotected: true, reason: t("fair.late", { matched, late }) };
    if (!kept.before) return { ok: true, unprotected: true, reason: t("fair.first_seen", { matched }) };
    return { ok: true, reason: matched };
  }
}

/** The side panel: this hand's commitment and the verdicts on earlier hands. */
export function fairnessHTML(fair, hand, esc) {
  const rows = [];
  const hands = Object.keys(fair.s.commitments).map(Number).sort((a, b) => b - a).slice(0, 6);
  for (const h of hands) {
    const c = fair.s.commitments[h];
    const v = fair.verdict(h);
    const mark = v ? (v.ok && v.unprotected ? `<span class="fair-warn" title="${esc(v.reason)}">⚠ ${esc(v.reason)}</span>`
      : v.ok ? `<span class="fair-ok" title="${esc(v.reason)}">✓ ${esc(t("fair.verified"))}</span>` : `<span class="fair-bad" title="${esc(v.reason)}">✗ ${esc(v.reason)}</span>`)
      : (h > hand ? `<span class="muted">${esc(t("fair.committed"))}</span>` : `<span class="muted">${esc(c.before ? t("fair.checked_after") : t("fair.seen_at_deal"))}</span>`);
    rows.push(`<li data-hand="${h}"><span>${esc(t("hands.hand", { n: h }))}</span> <code title="${esc(c.commitment)}">${esc(c.commitment.slice(0, 16))}…</code> ${mark}</li>`);
  }
  if (!rows.length) return "";
  return `<div class="panel" id="fairness"><h2>${esc(t("fair.title"))}</h2><ul class="fair-list">${rows.join("")}</ul></div>`;
}

/**
 * The table page's side of the scheme, fed every server message: keeps commitments,
 * sends this seat's value for each committed hand, checks each hand after it ends.
 * send(msg) returns the message id; rerender() redraws the side panel.
 */
export function watchTable(tableId, { send, rerender }) {
  const fair = new FairDeals(tableId);
  const ids = new Map(); // message id -> hand of this page's contributions
  let info = null;
  let view = null;
  let role = null;
  let spec = null;
  function contribute(hand) {
    if (role !== "seat") return;
    const id = send({ type: "contribute", hand, value: fair.contribution(hand) });
    if (id !== null && id !== undefined) ids.set(id, hand);
  }
  return {
    fair,
    onMessage(msg) {
      switch (msg.type) {
        case "welcome": {
          info = msg.table;
          role = msg.role;
          spec = msg.spec || spec;
          if (info.hand && info.commitment) fair.dealt(info.hand, info.commitment);
          if (info.next_commitment && !info.session_over) {
            fair.committed((info.hand || 0) + 1, info.next_commitment);
            contribute((info.hand || 0) + 1);
          }
          break;
        }
        case "hand_start":
          fair.dealt(msg.hand, msg.commitment);
          break;
        case "error":
          // "duplicate": a reconnect sent the value again; it is in. Otherwise it is not.
          if (ids.has(msg.ref) && msg.code !== "duplicate") fair.refused(ids.get(msg.ref), msg.message || msg.code);
          break;
        case "state":
          view = msg.view;
          fair.observe(msg.hand, msg.view);
          break;
        case "hand_end":
          if (msg.next_commitment) {
            fair.committed(msg.hand + 1, msg.next_commitment);
            contribute(msg.hand + 1);
          }
          if (view) fair.verify(msg.hand, msg.reveal, view, spec && spec.variant).then(rerender);
          break;
        default:
          break;
      }
    },
    /** Whether an error answers one of this module's contributions (not the player's). */
    owns(ref) { return ids.has(ref); },
    html(hand, esc) { return fairnessHTML(fair, hand, esc); },
  };
}
