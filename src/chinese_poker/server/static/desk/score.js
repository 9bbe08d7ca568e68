// The scorekeeper: boards of a hand played with real cards, settled by the server's
// scoring (POST /api/score, the same as `chinese-poker score --json`), and a session
// ledger per pair kept in localStorage. Offline, a finished hand is queued and settled
// as soon as the server can be reached again: no scoring rule is copied into the page
// (what the options offered depend on is the spec's, or the preset list's, facts).
import {
  api, BoardEditor, boardCards, boardCount, boardText, download, emptyBoard, esc, money,
  Offline, optionCatalogue, Picker, presets, RANKS, registerWorker, signed, lineWord,
} from "./common.js";
import { startLanguage, t } from "../js/i18n.js";
import { lineHandName } from "../js/eval.js";
import { itemText, naturalName } from "../js/words.js";

/** @type {(id: string) => any} */
const $ = (id) => document.getElementById(id);
const STORE = "desk.score.session";

// The options offered up front; their words are the server's (/api/options, rules.words)
// and whether one applies is the ruleset's compiled spec (from /api/board; see ruleFacts).
const OFFERED = ["finnish_deuce", "fantasyland_enabled", "fl_entry_min", "surrender_allowed", "naturals_enabled"];
const applies = {
  finnish_deuce: (f) => f.open,
  fantasyland_enabled: (f) => f.open,
  fl_entry_min: (f) => f.fantasyland,
  surrender_allowed: (f) => !f.open,
  naturals_enabled: (f) => !f.open,
};

let PRESETS = [];
let OPTIONS = []; // /api/options: [{key, label, help, kind, choices}]
let S = null; // the session
let editors = []; // [{name, index, editor}]
let focused = null;
let picker = null;

function newSession(preset = "ofc") {
  return { id: Date.now().toString(36), preset, options: {}, unit: 1, players: ["A", "B"], hands: [], draft: {} };
}

function save() { localStorage.setItem(STORE, JSON.stringify(S)); }

function load() {
  const shared = new URLSearchParams(location.hash.slice(1)).get("session");
  let stored;
  try { stored = JSON.parse(localStorage.getItem(STORE)); } catch (e) { stored = null; }
  if (shared) {
    history.replaceState(null, "", "/score");
    let linked;
    try {
      linked = fromLink(JSON.parse(decodeURIComponent(escape(atob(shared.replace(/-/g, "+").replace(/_/g, "/"))))));
    } catch (e) { linked = null; /* a broken link: keep what is stored */ }
    const keep = stored && stored.hands && stored.hands.length
      && !confirm(t("desk.replace_session"));
    if (linked && !keep) {
      S = linked;
      save();
      return;
    }
  }
  S = stored && stored.players ? stored : newSession();
}

/** A shared session reduced to what a person entered: the tables of its hands, never
 * their settlements, which the server settles again (a link is anyone's input). */
function fromLink(data) {
  const isText = (x) => typeof x === "string";
  if (!data || !isText(data.preset) || !Array.isArray(data.players) || !data.players.every(isText)) {
    return null;
  }
  const options = data.options && typeof data.options === "object" && !Array.isArray(data.options)
    ? data.options : {};
  const unit = Number(data.unit);
  const hands = (Array.isArray(data.hands) ? data.hands : [])
    .filter((h) => h && h.table && typeof h.table === "object")
    .map((h) => ({ table: h.table, settlement: null }));
  return {
    id: Date.now().toString(36), preset: data.preset, options,
    unit: Number.isFinite(unit) && unit > 0 ? unit : 1, players: data.players, hands, draft: {},
  };
}

const presetOf = () => PRESETS.find((p) => p.name === S.preset) || { name: S.preset, open_face: true, players: [2, 3, 4], rules: {} };
// Open-face or not is the server's fact (the preset's compiled spec), not a list here.
// The spec is the one of the rules chosen now: offline, after a change of rules, the last
// spec fetched is another ruleset's, and the shape comes from the cached preset list.
const rulesKey = () => JSON.stringify([S.preset, S.options]);
const specNow = () => (S.spec && S.specKey === rulesKey() ? S.spec : null);
const isOpen = () => (specNow() ? specNow().variant.open_face : presetOf().open_face === true);
// Hands per seat (two in Criss Cross) is the spec's too.
const handsPer = () => (specNow() ? specNow().variant.hands_per_seat : presetOf().hands_per_seat || 1);
const isCross = () => handsPer() > 1;

/** The compiled spec of the session's rules, from the server; offline, the last one
 * fetched (kept with the session in localStorage). */
async function refreshSpec(reply = null) {
  try {
    const key = rulesKey();
    const r = reply || await api("/api/board", { rules: S.preset, options: S.options, board: " | | " });
    S.spec = r.spec;
    S.specKey = key;
    save();
  } catch (e) {
    if (!(e instanceof Offline)) refuse("extra-reason", e.message);
  }
}

/** A new spec for changed rules: the rules were rendered at once (the person's own
 * change), and what the spec decides follows when it comes: the options offered and
 * their words, and the boards only if their shape changed (open-face, hands a seat), so
 * that nothing being entered is re-rendered under the person's fingers. */
async function respec() {
  const shape = () => `${isOpen()}/${handsPer()}`;
  const before = shape();
  await refreshSpec();
  if (shape() !== before) renderAll();
  else renderOptions();
}

/** What the options offered and their words depend on, all the server's facts: the
 * compiled spec of the rules chosen now; offline after a change of rules (the spec kept
 * is another ruleset's), the cached preset list's facts: open-face or not, and, when no
 * option is changed from the preset's, its Fantasyland entry (else unknown, null, until
 * the server's spec comes: the page does not read the options itself). Null: nothing is
 * known. */
function ruleFacts() {
  const sp = specNow();
  if (sp) {
    const fl = sp.scoring.fantasyland;
    const entry = fl.enabled ? RANKS[fl.entry_min_pair].repeat(2) : null;
    return { open: sp.variant.open_face, fantasyland: fl.enabled, entry };
  }
  if (!PRESETS.some((p) => p.name === S.preset)) return null;
  const own = Object.keys(S.options).length === 0;
  const entry = own ? presetOf().fantasyland_entry : null;
  // With options changed, whether Fantasyland is on waits for the spec: its entry is
  // offered with every open-face game until then.
  return { open: isOpen(), fantasyland: own ? entry !== null : isOpen(), entry };
}

/** "Fantasyland (KK or better on top)": the entry of the spec, not a word list. */
function optionWords(o) {
  const facts = ruleFacts();
  if (o.key !== "fantasyland_enabled" || !facts || !facts.entry) return o.label;
  return t("desk.fantasyland_entry", { option: o.label, entry: facts.entry });
}

function optionHTML(o) {
  const value = rulesValue(o.key);
  const title = o.key === "fantasyland_enabled" ? "" : ` title="${esc(o.help)}"`;
  if (o.kind === "yes_no") {
    return `<label class="opt"${title}><input type="checkbox" data-option="${esc(o.key)}"${value ? " checked" : ""}> ${esc(optionWords(o))}</label>`;
  }
  const choices = o.choices.map((c) => `<option value="${esc(c.value)}"${String(value) === c.value ? " selected" : ""}>${esc(c.label)}</option>`).join("");
  return `<label class="opt"${title}>${esc(optionWords(o))} <select data-option="${esc(o.key)}">${choices}</select></label>`;
}

const offered = () => {
  const facts = ruleFacts();
  return facts ? OPTIONS.filter((o) => OFFERED.includes(o.key) && applies[o.key](facts)) : [];
};
const rulesValue = (name) => (name in S.options ? S.options[name] : presetOf().rules[name]);

function draftOf(name) {
  const d = (S.draft[name] = S.draft[name] || {});
  d.boards = d.boards || [];
  for (let i = 0; i < handsPer(); i++) d.boards[i] = d.boards[i] || emptyBoard();
  d.surrender = d.surrender || [false, false];
  d.fantasyland = d.fantasyland || [false, false];
  return d;
}

/** Every card on a board of this hand, with its holder, except on `skip`. */
function usedCards(skip) {
  const used = new Map();
  for (const name of S.players) {
    draftOf(name).boards.forEach((b, i) => {
      if (skip && skip.name === name && skip.index === i) return;
      for (const c of boardCards(b)) used.set(c, label(name, i));
    });
  }
  return used;
}

const label = (name, i) => (isCross() ? t("desk.hand_of", { name, n: i + 1 }) : t("desk.board_of", { name }));

// --------------------------------------------------------------------------- setup

function renderOptions() {
  const shown = offered();
  $("options").innerHTML = shown.length ? shown.map(optionHTML).join("")
    : `<div class="muted">${OPTIONS.length ? "" : esc(t("desk.no_option_words"))}</div>`;
  $("extras").innerHTML = Object.entries(S.options).filter(([k]) => !shown.some((o) => o.key === k))
    .map(([k, v]) => `<span class="tag">${esc(k)}=${esc(JSON.stringify(v))} <button type="button" data-drop="${esc(k)}" aria-label="${esc(t("desk.remove", { what: k }))}">×</button></span>`).join("");
}

function renderSetup() {
  $("preset").innerHTML = PRESETS.map((p) => `<option value="${esc(p.name)}"${p.name === S.preset ? " selected" : ""}>${esc(p.label || p.name)}</option>`).join("");
  renderOptions();
  $("unit").value = S.unit;
  const counts = presetOf().players;
  $("players").innerHTML = S.players.map((p) => `<span class="tag player">${esc(p)} <button type="button" data-remove-player="${esc(p)}" aria-label="${esc(t("desk.remove", { what: p }))}">×</button></span>`).join("")
    + `<div class="muted">${esc(t("desk.player_count", { min: counts[0], max: counts[counts.length - 1] }))}${isCross() ? esc(t("desk.two_hands_each")) : ""}</div>`;
}

function refuse(id, reason) {
  const el = $(id);
  el.textContent = reason;
  el.hidden = !reason;
  return false;
}

function addPlayer(name) {
  name = name.trim();
  const counts = presetOf().players;
  if (!name) return refuse("player-reason", t("desk.needs_name"));
  if (name.includes("/")) return refuse("player-reason", t("desk.no_slash"));
  if (S.players.includes(name)) return refuse("player-reason", t("desk.same_name", { name }));
  if (S.players.length >= counts[counts.length - 1]) return refuse("player-reason", t("desk.at_most_players", { game: S.preset, max: counts[counts.length - 1] }));
  if (S.hands.length) return refuse("player-reason", t("desk.has_hands_players"));
  S.players.push(name);
  refuse("player-reason", "");
  save();
  renderAll();
  return true;
}

async function addExtra(text) {
  const [name, ...rest] = text.split("=");
  const key = name.trim();
  if (!rest.length || !key) return refuse("extra-reason", t("desk.expected_option", { text }));
  if (!(key in presetOf().rules)) {
    return refuse("extra-reason", t("desk.unknown_option", { key }));
  }
  let value = rest.join("=").trim();
  try { value = JSON.parse(value); } catch (e) { /* a word such as "yes" */ }
  const options = { ...S.options, [key]: value };
  let reply = null;
  try {
    reply = await api("/api/board", { rules: S.preset, options, board: " | | " });
  } catch (e) {
    if (!(e instanceof Offline)) return refuse("extra-reason", e.message);
  }
  S.options = options;
  if (reply) await refreshSpec(reply);
  refuse("extra-reason", "");
  save();
  renderAll();
  return true;
}

// --------------------------------------------------------------------------- boards

function renderBoards() {
  $("hand-no").textContent = `${S.hands.length + 1}`;
  const root = $("boards");
  root.innerHTML = "";
  editors = [];
  for (const name of S.players) {
    const d = draftOf(name);
    for (let i = 0; i < handsPer(); i++) {
      const box = document.createElement("div");
      box.className = "player-board";
      box.dataset.player = name;
      box.dataset.hand = String(i);
      const flags = document.createElement("div");
      flags.className = "pflags";
      if (!isOpen()) {
        if (rulesValue("surrender_allowed")) flags.innerHTML += `<label><input type="checkbox" data-flag="surrender"${d.surrender[i] ? " checked" : ""}> ${esc(t("desk.surrendered_flag"))}</label>`;
      } else if (rulesValue("fantasyland_enabled")) {
        flags.innerHTML += `<label><input type="checkbox" data-flag="fantasyland"${d.fantasyland[i] ? " checked" : ""}> ${esc(t("desk.in_fantasyland_flag"))}</label>`;
      }
      const ed = document.createElement("div");
      box.append(ed, flags);
      root.append(box);
      const editor = new BoardEditor(ed, {
        label: label(name, i),
        board: d.boards[i],
        others: () => usedCards({ name, index: i }),
        onChange: (b) => { d.boards[i] = b; save(); focused = entry; picker.render(); target(); check(entry); },
        onFocus: () => { focused = entry; target(); },
      });
      const entry = { name, index: i, editor, box };
      flags.addEventListener("change", (e) => {
        const box = /** @type {HTMLInputElement} */ (e.target);
        const flag = box.dataset.flag;
        d[flag][i] = box.checked;
        save();
        check(entry);
      });
      editors.push(entry);
      if (boardCount(d.boards[i]) === 13) check(entry);
    }
  }
  focused = editors.find((e) => boardCount(e.editor.board) < 13) || editors[0];
  target();
}

function target() {
  if (!focused) return;
  $("target").textContent = t("desk.target", { board: label(focused.name, focused.index), line: lineWord(focused.editor.line) });
  for (const e of editors) e.box.classList.toggle("focused", e === focused);
}

function flagsEl(entry) { return entry.box.querySelector(".flags"); }

/** Ask the server what a finished board shows (foul, natural, royalties). */
async function check(entry) {
  const el = flagsEl(entry);
  const d = draftOf(entry.name);
  const board = d.boards[entry.index];
  if (boardCount(board) < 13) { el.innerHTML = ""; return; }
  try {
    const r = await api("/api/board", { rules: S.preset, options: S.options, board: boardText(board), fantasyland: d.fantasyland[entry.index] });
    const parts = [];
    if (r.foul) parts.push(`<span class="flag foul">${esc(t("desk.foul_flag", { reason: r.foul }))}</span>`);
    if (r.natural) parts.push(`<span class="flag natural">${esc(t("breakdown.natural", { natural: naturalName(r.natural) }))}</span>`);
    if (!r.foul && r.royalties.total) parts.push(`<span class="flag">${esc(t("breakdown.royalties", { n: r.royalties.total }))}</span>`);
    if (r.fantasyland_next) parts.push(`<span class="flag natural">${esc(t("desk.fantasyland_next", { n: r.fantasyland_next }))}</span>`);
    if (!parts.length) parts.push(`<span class="flag ok">${esc(t("desk.valid"))}</span>`);
    el.innerHTML = parts.join(" ");
  } catch (e) {
    el.innerHTML = e instanceof Offline ? `<span class="flag">${esc(t("desk.offline_checked_later"))}</span>` : `<span class="flag foul">${esc(e.message)}</span>`;
  }
}

// --------------------------------------------------------------------------- settling

function tableOf() {
  const players = S.players.map((name) => {
    const d = draftOf(name);
    const p = { name };
    if (isCross()) {
      p.boards = d.boards.map((b, i) => (d.surrender[i] && !boardCount(b) ? null : boardText(b)));
      if (d.surrender[0] || d.surrender[1]) p.surrender = [d.surrender[0], d.surrender[1]];
    } else {
      if (!(d.surrender[0] && !boardCount(d.boards[0]))) p.board = boardText(d.boards[0]);
      if (d.surrender[0]) p.surrender = true;
      if (d.fantasyland[0]) p.fantasyland = true;
    }
    return p;
  });
  const options = { ...S.options };
  if (Number(S.unit) !== 1) options.unit_value = Number(S.unit);
  const table = { rules: S.preset, players };
  if (Object.keys(options).length) table.options = options;
  return table;
}

function unfinished() {
  for (const name of S.players) {
    const d = draftOf(name);
    for (let i = 0; i < handsPer(); i++) {
      const n = boardCount(d.boards[i]);
      if (n !== 13 && !(d.surrender[i] && n === 0)) return t("desk.has_n_of_13", { board: label(name, i), n });
    }
  }
  return null;
}

async function settle() {
  const missing = unfinished();
  if (missing) return refuse("settle-reason", missing);
  const counts = presetOf().players;
  if (!counts.includes(S.players.length)) return refuse("settle-reason", t("desk.played_by", { game: S.preset, min: counts[0], max: counts[counts.length - 1], n: S.players.length }));
  const table = tableOf();
  const hand = { table, settlement: null, at: new Date().toISOString() };
  $("settle").disabled = true; // one settlement at a time: the boards stay until it is done
  try {
    hand.settlement = await api("/api/score", table);
  } catch (e) {
    if (!(e instanceof Offline)) return refuse("settle-reason", e.message);
  } finally {
    $("settle").disabled = false;
  }
  refuse("settle-reason", "");
  S.hands.push(hand);
  S.draft = {};
  save();
  renderAll();
  showResult(hand, S.hands.length);
  return true;
}

/** Settle the hands queued while offline. */
async function settlePending() {
  let changed = false;
  for (const hand of S.hands) {
    if (hand.settlement) continue;
    try {
      hand.settlement = await api("/api/score", hand.table);
      changed = true;
    } catch (e) {
      if (e instanceof Offline) break;
      hand.error = e.message;
      changed = true;
    }
  }
  if (changed) { save(); renderLedger(); const last = S.hands[S.hands.length - 1]; if (last) showResult(last, S.hands.length); }
}

function showResult(hand, number) {
  const s = hand.settlement;
  if (!s) {
    $("result").innerHTML = `<div class="pending">${esc(t("desk.saved_offline", { n: number }))}</div>`;
    return;
  }
  // Each seat's hand on a line, named in the page's language (the server's are English).
  const handName = (seat, line) => {
    const p = (s.players || []).find((x) => x.name === seat);
    const l = p && (p.lines || []).find((x) => x.line === line);
    return l ? lineHandName(l) : "";
  };
  const totals = Object.entries(s.totals).map(([p, v]) => `<tr><td>${esc(p)}</td><td class="num">${signed(v)}</td><td class="num">${money(s.money[p])}</td></tr>`).join("");
  const pairs = s.pairs.map((pr) => {
    const who = pr.points >= 0 ? pr.a : pr.b;
    const items = pr.items.map((it) => `<li><span class="num">${signed(it.points)}</span> ${esc(itemText(pr, it, handName))}</li>`).join("");
    return `<div class="pair"><div class="pairhead">${esc(t("desk.vs", { a: pr.a, b: pr.b }))}: ${esc(who)} ${signed(Math.abs(pr.points))}${pr.unit !== 1 ? ` (${money(Math.abs(pr.money))})` : ""}</div><ul>${items}</ul></div>`;
  }).join("");
  const fl = Object.entries(s.fantasyland || {}).filter(([, v]) => v).map(([p, v]) => esc(t("desk.fantasyland_with", { name: p, n: v }))).join("; ");
  const fouled = (s.fouled || []).length ? `<div class="flag foul">${esc(t("desk.fouled_list", { names: s.fouled.join(", ") }))}</div>` : "";
  $("result").innerHTML = `<h3>${esc(t("desk.hand_n", { n: number }))}</h3>${fouled}<table class="totals">${columns("player", "points", "money")}${totals}</table>${pairs}${fl ? `<div class="fl">${fl}</div>` : ""}`;
}

// --------------------------------------------------------------------------- the ledger

function ledger() {
  const pairs = new Map();
  const players = new Map(S.players.map((p) => [p, { points: 0, money: 0 }]));
  let settled = 0;
  for (const hand of S.hands) {
    const s = hand.settlement;
    if (!s) continue;
    settled++;
    for (const pr of s.pairs) {
      const a = pr.a_player, b = pr.b_player;
      const [x, y, sign] = S.players.indexOf(a) <= S.players.indexOf(b) ? [a, b, 1] : [b, a, -1];
      const key = `${x} – ${y}`;
      const row = pairs.get(key) || { x, y, points: 0, money: 0 };
      row.points += sign * pr.points;
      row.money += sign * pr.money;
      pairs.set(key, row);
    }
    // totals and money are per player (a Criss Cross player's two hands together).
    for (const [p, v] of Object.entries(s.totals)) {
      const row = players.get(p) || { points: 0, money: 0 };
      row.points += v;
      row.money += s.money[p] || 0;
      players.set(p, row);
    }
  }
  return { pairs, players, settled };
}

/** A table's heading row: the columns' words ("player", "points", ...). */
const columns = (...keys) => `<tr>${keys.map((k) => `<th>${esc(t(`desk.col.${k}`))}</th>`).join("")}</tr>`;

function renderLedger() {
  const { pairs, players, settled } = ledger();
  const pending = S.hands.length - settled;
  const prow = [...players].map(([p, r]) => `<tr><td>${esc(p)}</td><td class="num">${signed(r.points)}</td><td class="num">${money(r.money)}</td></tr>`).join("");
  const pairRows = [...pairs.values()].map((r) => `<tr><td>${esc(r.x)} – ${esc(r.y)}</td><td class="num">${esc(r.points >= 0 ? r.x : r.y)} ${signed(Math.abs(r.points))}</td><td class="num">${money(Math.abs(r.money))}</td></tr>`).join("");
  const handWords = (h) => (h.settlement ? Object.entries(h.settlement.totals).map(([p, v]) => `${esc(p)} ${signed(v)}`).join(", ") : h.error ? `<span class="foul">${esc(h.error)}</span>` : `<i>${esc(t("desk.queued"))}</i>`);
  const hands = S.hands.map((h, i) => `<li>${esc(t("desk.hand_n", { n: i + 1 }))}: ${handWords(h)}</li>`).join("");
  $("ledger").innerHTML = `
    <div class="summary" id="ledger-summary">${esc(t("desk.hands_settled", { n: settled }))}${pending ? esc(t("desk.n_queued", { n: pending })) : ""} · ${esc(S.preset)}</div>
    <table class="totals" id="ledger-players">${columns("player", "points", "money")}${prow}</table>
    <table class="totals" id="ledger-pairs">${columns("pair", "ahead", "owed")}${pairRows}</table>
    <ol class="hands">${hands}</ol>`;
}

function csv() {
  const rows = [["hand", "player", "points", "money"]];
  S.hands.forEach((h, i) => {
    if (!h.settlement) return;
    for (const [p, v] of Object.entries(h.settlement.totals)) rows.push([i + 1, p, v, h.settlement.money[p] ?? ""]);
  });
  rows.push([]);
  rows.push(["pair", "", "points", "money"]);
  for (const r of ledger().pairs.values()) rows.push([`${r.x}-${r.y}`, "", r.points, r.money]);
  return rows.map((r) => r.map((c) => (/[",\n]/.test(String(c)) ? `"${String(c).replace(/"/g, '""')}"` : c)).join(",")).join("\n") + "\n";
}

function shareLink() {
  const data = JSON.stringify({ ...S, draft: {}, spec: undefined });
  const b64 = btoa(unescape(encodeURIComponent(data))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const url = `${location.origin}/score#session=${b64}`;
  const out = $("share-out");
  out.hidden = false;
  out.innerHTML = `<input readonly value="${esc(url)}" id="share-url">`;
  if (navigator.clipboard) navigator.clipboard.writeText(url).catch(() => {});
  return url;
}

// --------------------------------------------------------------------------- wiring

function renderAll() {
  renderSetup();
  renderBoards();
  renderLedger();
  picker.render();
}

function netState() {
  $("net").textContent = navigator.onLine ? "" : t("desk.offline");
  $("net").classList.toggle("off", !navigator.onLine);
}

async function main() {
  registerWorker();
  await startLanguage();
  document.title = t("desk.score.title");
  load();
  try { PRESETS = await presets(); } catch (e) { PRESETS = []; }
  try { OPTIONS = await optionCatalogue(); } catch (e) { OPTIONS = []; }
  await refreshSpec();
  picker = new Picker($("picker"), {
    used: () => usedCards(null),
    pick: (card) => focused && focused.editor.add(card),
  });
  $("preset").addEventListener("change", async (e) => {
    if (S.hands.length) {
      e.target.value = S.preset;
      refuse("player-reason", t("desk.has_hands_rules"));
      return;
    }
    S.preset = e.target.value;
    S.options = {};
    const counts = presetOf().players;
    S.players = S.players.slice(0, counts[counts.length - 1]);
    S.draft = {};
    save();
    renderAll();
    await respec();
  });
  $("options").addEventListener("change", async (e) => {
    const name = e.target.dataset.option;
    if (!name) return;
    const value = e.target.type === "checkbox" ? e.target.checked : e.target.value;
    if (value === presetOf().rules[name]) delete S.options[name];
    else S.options[name] = value;
    save();
    renderAll();
    await respec();
  });
  $("extras").addEventListener("click", async (e) => {
    const k = e.target.dataset.drop;
    if (k) { delete S.options[k]; save(); renderAll(); await respec(); }
  });
  $("extra-form").addEventListener("submit", (e) => { e.preventDefault(); addExtra($("extra").value); });
  $("unit").addEventListener("change", (e) => {
    const v = Number(e.target.value);
    if (!(v >= 0)) { e.target.value = S.unit; return; }
    S.unit = v;
    save();
  });
  $("add-player").addEventListener("submit", (e) => {
    e.preventDefault();
    if (addPlayer($("player-name").value)) $("player-name").value = "";
  });
  $("players").addEventListener("click", (e) => {
    const p = e.target.dataset.removePlayer;
    if (!p) return;
    if (S.hands.length) return refuse("player-reason", t("desk.has_hands_players"));
    S.players = S.players.filter((x) => x !== p);
    delete S.draft[p];
    save();
    renderAll();
  });
  $("settle").addEventListener("click", settle);
  $("export-json").addEventListener("click", () => download(`session-${S.id}.json`, JSON.stringify(S.hands.map((h) => h.table), null, 2) + "\n", "application/json"));
  $("export-csv").addEventListener("click", () => download(`session-${S.id}.csv`, csv(), "text/csv"));
  $("share").addEventListener("click", shareLink);
  $("new-session").addEventListener("click", () => {
    if (S.hands.length && !confirm(t("desk.start_new_session"))) return;
    S = newSession(S.preset);
    S.players = [];
    save();
    renderAll();
  });
  window.addEventListener("online", () => { netState(); settlePending(); });
  window.addEventListener("offline", netState);
  netState();
  renderAll();
  const last = S.hands[S.hands.length - 1];
  if (last) showResult(last, S.hands.length);
  settlePending();
  document.body.dataset.ready = "1";
}

main();
