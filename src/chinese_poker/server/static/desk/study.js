// The study desk: the Fantasyland and setting solvers, the position analyser and the
// trainer. Every answer comes from the server (/api/solve/*, /api/hint, /api/trainer/*);
// the page only enters cards and shows what it is told.
import {
  api, BoardEditor, boardCards, boardCount, boardText, CardsEditor, cardHtml, emptyBoard, esc,
  lineWord, parseBoard, Picker, presets, registerWorker, signed, tHTML,
} from "./common.js";
import { startLanguage, t } from "../js/i18n.js";
import { naturalName } from "../js/words.js";

/** @type {(id: string) => any} */
const $ = (id) => document.getElementById(id);
/** @type {(selector: string) => NodeListOf<HTMLElement>} */
const all = (selector) => document.querySelectorAll(selector);
let PRESETS = [];
let tab = "fantasyland";
let focused = null;
let picker = null;
const facts = new Map(); // preset -> rules facts from /api/board
const editors = { fantasyland: [], setting: [], position: [], trainer: [] };
let trainerAllowed = null;

async function rulesFacts(preset) {
  if (!facts.has(preset)) {
    const r = await api("/api/board", { rules: preset, board: " | | " });
    facts.set(preset, r.rules);
  }
  return facts.get(preset);
}

function refuse(id, reason) {
  const el = $(id);
  el.textContent = reason || "";
  el.hidden = !reason;
  return false;
}

function presetOptions(select, open, chosen) {
  // Open-face or not is the server's fact (the preset's compiled spec), not a list here.
  select.innerHTML = PRESETS.filter((p) => (p.open_face === true) === open)
    .map((p) => `<option value="${esc(p.name)}"${p.name === chosen ? " selected" : ""}>${esc(p.label || p.name)}</option>`).join("");
}

/** Cards held by the active pane's editors other than `skip`, with where they are. */
function used(skip) {
  const out = new Map();
  for (const ed of editors[tab]) {
    if (ed === skip) continue;
    const cards = ed.board ? boardCards(ed.board) : ed.cards;
    for (const c of cards) out.set(c, ed.label);
  }
  return out;
}

function focus(ed) {
  focused = ed;
  $("target").textContent = ed ? (ed.board ? t("desk.target", { board: ed.label, line: lineWord(ed.line) }) : ed.label) : "";
  if (picker) picker.render();
}

function makeCards(root, label, max, maxText) {
  const ed = new CardsEditor(root, {
    label, max, maxText,
    others: () => used(ed),
    onChange: () => { save(); focus(ed); },
    onFocus: () => focus(ed),
  });
  return ed;
}

function makeBoard(root, label) {
  const ed = new BoardEditor(root, {
    label,
    others: () => used(ed),
    onChange: () => { save(); focus(ed); },
    onFocus: () => focus(ed),
  });
  return ed;
}

// Whatever is entered is kept in localStorage, so a reload loses nothing.
function save() {
  const state = {
    tab,
    fl: { preset: $("fl-preset").value, cards: flCards.cards },
    st: { preset: $("st-preset").value, cards: stCards.cards, opponents: $("st-opponents").value },
    ps: {
      preset: $("ps-preset").value, street: $("ps-street").value, me: psMe.board,
      cards: psCards.cards, dead: psDead.cards,
      opponents: psOpp.map((e) => (e.flBox.querySelector("input").checked ? "fantasyland" : e.board)),
    },
  };
  localStorage.setItem("desk.study", JSON.stringify(state));
}

function restore() {
  try { return JSON.parse(localStorage.getItem("desk.study")) || {}; } catch (e) { return {}; }
}

const yesNo = (b) => esc(t(b ? "desk.yes" : "desk.no"));
/** A table's heading row: the columns' words ("board", "royalties", ...). */
const columns = (...keys) => `<tr>${keys.map((k) => `<th>${k === "#" ? k : esc(t(`desk.col.${k}`))}</th>`).join("")}</tr>`;

// --------------------------------------------------------------------------- Fantasyland

let flCards, stCards, psMe, psCards, psDead, psOpp = [];

async function flLimits() {
  const f = await rulesFacts($("fl-preset").value);
  const sizes = f.fantasyland_sizes;
  flCards.max = sizes[sizes.length - 1];
  const range = sizes.length === 1 ? `${sizes[0]}` : t("desk.range", { min: sizes[0], max: sizes[sizes.length - 1] });
  flCards.maxText = () => t("desk.fl_deals", { game: $("fl-preset").value, range });
  flCards.sizes = sizes;
  if (flCards.cards.length > flCards.max) flCards.cards = flCards.cards.slice(0, flCards.max);
  flCards.render();
}

async function flSolve() {
  const sizes = flCards.sizes || [];
  if (!sizes.includes(flCards.cards.length)) return refuse("fl-reason", t("desk.too_many_cards", { why: flCards.maxText(), n: flCards.cards.length }));
  refuse("fl-reason", "");
  $("fl-out").innerHTML = `<p class="muted">${esc(t("desk.solving"))}</p>`;
  try {
    const r = await api("/api/solve/fantasyland", { rules: $("fl-preset").value, cards: flCards.cards.join(" ") });
    $("fl-out").innerHTML = flHtml(r);
  } catch (e) { $("fl-out").innerHTML = ""; refuse("fl-reason", e.message); }
}

function boardHtml(text) {
  const b = parseBoard(text);
  return `<div class="sboard">${["top", "middle", "bottom"].map((l) => `<div class="bline"><span class="lname">${esc(lineWord(l))}</span>${b[l].map((c) => cardHtml(c)).join("")}</div>`).join("")}</div>`;
}

function flHtml(r) {
  const roy = r.royalties;
  const rows = r.runner_up.map((x) => `<tr><td>${esc(x.board)}${x.foul ? ` <span class="foul">${esc(t("desk.col.foul"))}</span>` : ""}</td><td class="num">${x.royalties}</td><td>${yesNo(x.stays)}</td><td class="num">${x.value.toFixed(2)}</td></tr>`).join("");
  return `<h3>${esc(t("desk.best_board"))}</h3>${boardHtml(r.board)}
    <div id="fl-best" data-board="${esc(r.board)}">${esc(r.board)}</div>
    <div>${esc(t("desk.fl_royalties", { top: roy.top, middle: roy.middle, bottom: roy.bottom }))} <b id="fl-royalties">${roy.total}</b></div>
    <div>${esc(t("desk.stays_label"))} <b id="fl-stays">${yesNo(r.stays)}</b> · ${esc(t("desk.score_value", { value: r.score.toFixed(2) }))}${r.discards ? ` · ${esc(t("desk.discards", { cards: r.discards }))}` : ""}</div>
    <h3>${esc(t("desk.runner_up"))}</h3>
    <table class="totals options-table" id="fl-runners">${columns("board", "royalties", "stays", "value")}${rows}</table>`;
}

// --------------------------------------------------------------------------- setting

async function stSolve() {
  if (stCards.cards.length !== 13) return refuse("st-reason", t("desk.classic_13", { n: stCards.cards.length }));
  refuse("st-reason", "");
  $("st-out").innerHTML = `<p class="muted">${esc(t("desk.solving"))}</p>`;
  try {
    const r = await api("/api/solve/setting", { rules: $("st-preset").value, cards: stCards.cards.join(" "), opponents: Number($("st-opponents").value) });
    const alts = r.alternatives.map((a) => `<tr><td>${esc(a.board)}</td><td class="num">${signed(a.expected.toFixed(2))}</td></tr>`).join("");
    const natural = r.natural ? ` · ${tHTML("breakdown.natural", { natural: `<b>${esc(naturalName(r.natural))}</b>` })}` : "";
    const surrender = r.surrender_expected !== null ? ` (${esc(t("desk.surrender_value", { value: r.surrender_expected.toFixed(2) }))})` : "";
    $("st-out").innerHTML = `<h3>${esc(t("desk.best_setting"))}</h3>${boardHtml(r.board)}
      <div id="st-best" data-board="${esc(r.board)}">${esc(r.board)}</div>
      <div>${esc(t("desk.expected_points"))} <b id="st-ev">${signed(r.expected.toFixed(2))}</b>${natural}</div>
      <div id="st-advice">${esc(r.advice)}${surrender}</div>
      <h3>${esc(t("desk.alternatives"))}</h3><table class="totals" id="st-alts">${columns("setting", "expected")}${alts}</table>`;
  } catch (e) { $("st-out").innerHTML = ""; refuse("st-reason", e.message); }
}

// --------------------------------------------------------------------------- position

async function psStreets() {
  const f = await rulesFacts($("ps-preset").value);
  const sel = $("ps-street");
  const chosen = sel.value;
  sel.innerHTML = f.streets.map((s, i) => `<option value="${i + 1}">${esc(t("desk.street_option", { n: i + 1, dealt: s[0], placed: s[1] }))}</option>`).join("");
  if (chosen && Number(chosen) <= f.streets.length) sel.value = chosen;
  const street = f.streets[Number(sel.value) - 1];
  psCards.max = street[0];
  psCards.maxText = () => t("desk.street_deals", { n: sel.value, game: f.variant, cards: street[0] });
  psCards.render();
  psFacts = f;
}
let psFacts = null;

function addOpponent(board) {
  const max = psFacts ? psFacts.players[psFacts.players.length - 1] - 1 : 3;
  if (psOpp.length >= max) return refuse("ps-reason", t("desk.at_most_players", { game: $("ps-preset").value, max: max + 1 }));
  const div = document.createElement("div");
  const fl = document.createElement("label");
  fl.innerHTML = `<input type="checkbox" class="opp-fl"> ${esc(t("desk.plays_fantasyland"))}`;
  $("ps-opponents").append(div, fl);
  const ed = /** @type {any} */ (makeBoard(div, t("desk.opponent_n", { n: psOpp.length + 1 })));
  ed.flBox = fl;
  fl.addEventListener("change", save);
  if (board === "fantasyland") fl.querySelector("input").checked = true;
  else if (board) ed.set(board);
  psOpp.push(ed);
  editors.position.push(ed);
  refuse("ps-reason", "");
  return true;
}

function dropOpponent() {
  const ed = psOpp.pop();
  if (!ed) return;
  ed.root.remove();
  ed.flBox.remove();
  editors.position = editors.position.filter((e) => e !== ed);
  save();
}

function positionObject() {
  return {
    rules: $("ps-preset").value,
    street: Number($("ps-street").value),
    me: boardText(psMe.board),
    cards: psCards.cards.join(" "),
    dead: psDead.cards.join(" "),
    opponents: psOpp.map((e) => (e.flBox.querySelector("input").checked ? "fantasyland" : boardText(e.board))),
  };
}

async function loadPositionText(text) {
  const pos = { opponents: [] };
  for (const raw of text.split("\n")) {
    const line = raw.split("#")[0].trim();
    if (!line) continue;
    const i = line.indexOf(":");
    if (i < 0) return refuse("ps-reason", t("desk.key_value", { line }));
    const key = line.slice(0, i).trim().toLowerCase(), value = line.slice(i + 1).trim();
    if (key === "opponent") pos.opponents.push(value); else pos[key] = value;
  }
  try {
    if (pos.rules) { $("ps-preset").value = pos.rules; }
    if (pos.street) $("ps-street").value = pos.street;
    await psStreets();
    if (pos.street) $("ps-street").value = pos.street;
    await psStreets();
    psMe.set(pos.me ? parseBoard(pos.me) : emptyBoard());
    psCards.set(pos.cards ? pos.cards.split(/\s+/).filter(Boolean) : []);
    psDead.set(pos.dead ? pos.dead.split(/\s+/).filter(Boolean) : []);
    while (psOpp.length) dropOpponent();
    for (const o of pos.opponents) addOpponent(o.toLowerCase() === "fantasyland" ? "fantasyland" : parseBoard(o));
  } catch (e) { return refuse("ps-reason", e.message); }
  refuse("ps-reason", "");
  save();
  return true;
}

async function analyse() {
  refuse("ps-reason", "");
  $("ps-out").innerHTML = `<p class="muted">${esc(t("desk.analysing"))}</p>`;
  try {
    const r = await api("/api/hint", { position: positionObject(), level: 2 });
    $("ps-out").innerHTML = hintsHtml(r);
  } catch (e) { $("ps-out").innerHTML = ""; refuse("ps-reason", e.message); }
}

function hintsHtml(r) {
  // A quick hint (the engine still compiling on a fresh server) has no value: its row says why.
  const rows = r.hints.map((h, i) => h.quick ? `<tr class="best"><td>${i + 1}</td><td>${esc(h.text)}</td><td colspan="3" class="muted">${esc(h.explanation)}</td></tr>` : `<tr${i === 0 ? ' class="best"' : ""}><td>${i + 1}</td><td>${esc(h.text)}</td><td class="num">${signed(h.value.toFixed(2))}</td><td class="num">${h.interval[0].toFixed(1)} … ${h.interval[1].toFixed(1)}</td><td class="num">${Math.round(h.foul_probability * 100)}%</td></tr>`).join("");
  const quick = r.hints.length && r.hints[0].quick;
  const summary = quick ? t("desk.quick_suggestion", { street: r.street, game: r.variant }) : t("desk.legal_actions", { n: r.options, street: r.street, game: r.variant });
  return `<div id="ps-summary">${esc(summary)}</div>
    <table class="totals options-table" id="ps-hints">${columns("#", "action", "points", "interval", "foul")}${rows}</table>`;
}

// --------------------------------------------------------------------------- trainer

let task = null;
let trBoard = null;
let trPlace = {};

function streak(delta) {
  const n = delta === null ? 0 : Number(localStorage.getItem("desk.streak") || 0) + delta;
  localStorage.setItem("desk.streak", String(n));
  $("tr-streak").textContent = n;
}

function mistakes() { try { return JSON.parse(localStorage.getItem("desk.mistakes")) || []; } catch (e) { return []; } }

function renderMistakes() {
  $("tr-mistakes").innerHTML = mistakes().map((m, i) => `<li>${esc(t("desk.mistake", { kind: m.kind, cards: m.cards || m.text, lost: m.lost.toFixed(2) }))} <button type="button" data-retry="${i}">${esc(t("desk.retry"))}</button></li>`).join("");
}

function showTask(next) {
  task = next;
  trPlace = {};
  refuse("tr-reason", "");
  $("tr-out").innerHTML = "";
  editors.trainer = [];
  const root = $("tr-task");
  if (next.kind === "street") {
    const p = next.position;
    trainerAllowed = null;
    const opp = p.opponents.map((o, i) => `<div>${esc(t("desk.opponent_board", { n: i + 1, board: o }))}</div>`).join("");
    const cards = p.cards.split(" ");
    const what = t("desk.street_task", { game: next.variant, street: next.street, place: next.decision.place }) + (next.decision.discard ? t("desk.throw", { n: next.decision.discard }) : "");
    const where = (l) => (l === "discard" ? t("term.discard") : lineWord(l));
    root.innerHTML = `<div>${esc(what)}</div>
      <div>${esc(t("desk.my_board_is"))} <b>${esc(p.me)}</b>${p.dead ? ` · ${esc(t("desk.dead", { cards: p.dead }))}` : ""}</div>${opp}
      <div id="tr-place">${cards.map((c) => `<div class="place-row" data-card="${c}">${cardHtml(c)} ${["top", "middle", "bottom", "discard"].map((l) => `<button type="button" data-to="${l}" aria-pressed="false">${esc(where(l))}</button>`).join("")}</div>`).join("")}</div>`;
  } else {
    const cards = next.cards.split(" ");
    trainerAllowed = new Set(cards);
    const what = next.kind === "setting" ? t("desk.drill.setting") : t("desk.set_fl_hand", { n: cards.length });
    root.innerHTML = `<div>${esc(what)} (${esc(next.preset)}):</div>
      <div class="cline">${cards.map((c) => cardHtml(c)).join("")}</div><div id="tr-board"></div>`;
    trBoard = makeBoard($("tr-board"), t("desk.my_board"));
    editors.trainer = [trBoard];
    focus(trBoard);
  }
  $("tr-answer").hidden = false;
  picker.render();
}

async function nextTask(params) {
  $("tr-out").innerHTML = `<p class="muted">${esc(t("desk.dealing"))}</p>`;
  try {
    const q = new URLSearchParams(params || { kind: $("tr-kind").value });
    showTask(await api(`/api/trainer/next?${q}`));
  } catch (e) { $("tr-out").innerHTML = ""; refuse("tr-reason", e.message); }
}

function placementKey(top, middle, bottom, discard) {
  return [top, middle, bottom, discard].map((l) => [...l].sort().join(" ")).join("|");
}

async function answer() {
  const job = task;
  if (!job) return;
  let lost, best, text;
  if (job.kind === "street") {
    const cards = job.position.cards.split(" ");
    const missing = cards.filter((c) => !trPlace[c]);
    if (missing.length) return refuse("tr-reason", t("desk.say_where", { cards: missing.join(" ") }));
    const lines = { top: [], middle: [], bottom: [], discard: [] };
    for (const c of cards) lines[trPlace[c]].push(c);
    const key = placementKey(lines.top, lines.middle, lines.bottom, lines.discard);
    const mine = job.hints.find((h) => placementKey(h.action.top, h.action.middle, h.action.bottom, h.action.discard || []) === key);
    if (!mine) return refuse("tr-reason", t("desk.not_legal", { street: job.street, place: job.decision.place, throw: job.decision.discard, free: job.decision.free.join(", ") }));
    best = job.hints[0];
    lost = Math.max(0, best.value - mine.value);
    text = `${esc(t("desk.solver_says"))} <b id="tr-best">${esc(best.text)}</b> (${signed(best.value.toFixed(2))}); ${esc(t("desk.yours", { text: mine.text, value: signed(mine.value.toFixed(2)) }))}`;
  } else {
    if (boardCount(trBoard.board) !== 13) return refuse("tr-reason", t("desk.board_has", { n: boardCount(trBoard.board) }));
    try {
      const r = await api("/api/trainer/grade", { kind: job.kind, rules: job.preset, cards: job.cards, answer: boardText(trBoard.board) });
      lost = r.lost;
      best = r;
      text = `${esc(t("desk.solver_says"))} <b id="tr-best">${esc(r.best)}</b> (${signed(Number(r.best_value).toFixed(2))})${r.answer.foul ? esc(t("desk.yours_fouls", { reason: r.answer.foul })) : ""}${r.exact ? "" : esc(t("desk.not_listed"))}`;
    } catch (e) { return refuse("tr-reason", e.message); }
  }
  refuse("tr-reason", "");
  const good = lost < 0.005;
  streak(good ? 1 : null);
  if (!good) {
    const list = mistakes();
    list.unshift({ kind: job.kind, preset: job.preset, seed: job.seed, lost, cards: job.cards || job.position.cards, at: new Date().toISOString() });
    localStorage.setItem("desk.mistakes", JSON.stringify(list.slice(0, 50)));
    renderMistakes();
  }
  $("tr-out").innerHTML = `<div id="tr-feedback" class="${good ? "best" : "foul"}">${good ? esc(t("desk.right")) : tHTML("desk.you_lost", { lost: `<b id="tr-lost">${lost.toFixed(2)}</b>` })}</div><div>${text}</div>`;
  $("tr-answer").hidden = true;
}

// --------------------------------------------------------------------------- wiring

function showTab(name) {
  tab = name;
  for (const b of all("[data-tab]")) b.setAttribute("aria-selected", String(b.dataset.tab === name));
  for (const p of all("[data-pane]")) p.hidden = p.dataset.pane !== name;
  focus(editors[name][0] || null);
  save();
}

async function main() {
  registerWorker();
  await startLanguage();
  document.title = t("desk.study.title");
  try { PRESETS = await presets(); } catch (e) { PRESETS = []; }
  const st = restore();
  presetOptions($("fl-preset"), true, st.fl?.preset || "pineapple-progressive");
  presetOptions($("st-preset"), false, st.st?.preset || "classic");
  presetOptions($("ps-preset"), true, st.ps?.preset || "pineapple");
  if (st.st?.opponents) $("st-opponents").value = st.st.opponents;
  flCards = makeCards($("fl-cards"), t("desk.fl_cards"), 17);
  stCards = makeCards($("st-cards"), t("desk.my_13_cards"), 13, () => t("desk.classic_hand"));
  const me = document.createElement("div");
  $("ps-me").append(me);
  psMe = makeBoard(me, t("desk.my_board"));
  psCards = makeCards($("ps-cards"), t("desk.my_street_cards"), 5);
  psDead = makeCards($("ps-dead"), t("desk.dead_cards"), 30);
  editors.fantasyland = [flCards];
  editors.setting = [stCards];
  editors.position = [psMe, psCards, psDead];
  picker = new Picker($("picker"), {
    used: () => used(null),
    allowed: () => (tab === "trainer" ? trainerAllowed : null),
    pick: (card) => focused && focused.add(card),
  });
  try { await flLimits(); } catch (e) { /* offline: limits come with the first answer */ }
  try { await psStreets(); } catch (e) { /* offline */ }
  if (st.fl?.cards) flCards.set(st.fl.cards);
  if (st.st?.cards) stCards.set(st.st.cards);
  if (st.ps) {
    if (st.ps.street) { $("ps-street").value = st.ps.street; try { await psStreets(); } catch (e) { /* offline */ } }
    if (st.ps.me) psMe.set(st.ps.me);
    if (st.ps.cards) psCards.set(st.ps.cards);
    if (st.ps.dead) psDead.set(st.ps.dead);
    for (const o of st.ps.opponents || []) addOpponent(o);
  }
  if (!psOpp.length) addOpponent();
  $("fl-preset").addEventListener("change", async () => { await flLimits(); save(); });
  $("ps-preset").addEventListener("change", async () => { await psStreets(); save(); });
  $("ps-street").addEventListener("change", async () => { await psStreets(); save(); });
  $("st-preset").addEventListener("change", save);
  $("st-opponents").addEventListener("change", save);
  $("fl-solve").addEventListener("click", flSolve);
  $("st-solve").addEventListener("click", stSolve);
  $("ps-analyse").addEventListener("click", analyse);
  $("ps-add").addEventListener("click", () => { addOpponent(); save(); });
  $("ps-drop").addEventListener("click", dropOpponent);
  $("ps-type").addEventListener("submit", (e) => { e.preventDefault(); loadPositionText($("ps-text").value); });
  $("tr-next").addEventListener("click", () => nextTask());
  $("tr-answer").addEventListener("click", answer);
  $("tr-task").addEventListener("click", (e) => {
    const b = e.target.closest("[data-to]");
    if (!b) return;
    const row = b.closest("[data-card]");
    trPlace[row.dataset.card] = b.dataset.to;
    for (const x of row.querySelectorAll("[data-to]")) x.setAttribute("aria-pressed", String(x === b));
  });
  $("tr-mistakes").addEventListener("click", (e) => {
    const i = e.target.dataset.retry;
    if (i === undefined) return;
    const m = mistakes()[Number(i)];
    showTab("trainer");
    nextTask({ kind: m.kind, preset: m.preset, seed: m.seed });
  });
  for (const b of all("[data-tab]")) b.addEventListener("click", () => showTab(b.dataset.tab));
  streak(0);
  renderMistakes();
  showTab(st.tab || "fantasyland");
  document.body.dataset.ready = "1";
}

main();
