// Chinese poker browser table: lobby, join page, table screen, replay.
// Plain ES module, no build step. Speaks the protocol of docs/server-protocol.md.

import { analyseBoard, LINES, SIZES, RANKS, SUITS } from "./eval.js";
import { lineChart, runningTotals } from "./chart.js";
import { watchTable } from "./fairness.js";

// ============================================================================ helpers

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const signed = (n) => (n > 0 ? `+${n}` : `${n}`);
const signClass = (n) => (n > 0 ? "pos" : n < 0 ? "neg" : "");
const SUIT_SYMBOL = { s: "♠", h: "♥", d: "♦", c: "♣" };
const SUIT_NAME = { s: "spades", h: "hearts", d: "diamonds", c: "clubs" };
const RANK_NAME = { T: "10" };
const store = {
  get(key, fallback = null) {
    try { const v = localStorage.getItem(key); return v === null ? fallback : JSON.parse(v); }
    catch { return fallback; }
  },
  set(key, value) { try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* private mode */ } },
};

function cardHTML(name, { tag = "div", cls = "", attrs = "", key = null } = {}) {
  const r = name[0], s = name[1];
  const label = `${RANK_NAME[r] || r} of ${SUIT_NAME[s]}`;
  return `<${tag} class="card suit-${s} ${cls}" data-card="${esc(name)}" title="${esc(label)}" aria-label="${esc(label)}" ${attrs}>` +
    (key ? `<span class="key">${esc(key)}</span>` : "") +
    `<span class="rank">${RANK_NAME[r] || r}</span><span class="suit">${SUIT_SYMBOL[s]}</span></${tag}>`;
}
const backHTML = () => `<div class="card back" aria-label="face-down card"></div>`;
const slotHTML = () => `<div class="slot"></div>`;

function sortCards(cards, mode) {
  if (mode === "rank") {
    return [...cards].sort((a, b) => RANKS.indexOf(b[0]) - RANKS.indexOf(a[0]) || SUITS.indexOf(a[1]) - SUITS.indexOf(b[1]));
  }
  if (mode === "suit") {
    return [...cards].sort((a, b) => SUITS.indexOf(a[1]) - SUITS.indexOf(b[1]) || RANKS.indexOf(b[0]) - RANKS.indexOf(a[0]));
  }
  return [...cards];
}

// ============================================================================ toasts

export function toast(message, kind = "error", ms = 7000) {
  const box = $("#toasts");
  const el = document.createElement("div");
  el.className = `toast ${kind}`;
  el.setAttribute("role", kind === "error" ? "alert" : "status");
  el.innerHTML = `<span class="msg"></span><button class="close" aria-label="Dismiss">×</button>`;
  el.querySelector(".msg").textContent = message;
  el.querySelector(".close").onclick = () => el.remove();
  box.appendChild(el);
  while (box.children.length > 4) box.firstChild.remove();
  if (ms) setTimeout(() => el.remove(), ms);
  return el;
}

function banner(message, kind = "error") {
  const el = $("#banner");
  if (!message) { el.hidden = true; el.textContent = ""; return; }
  el.hidden = false;
  el.className = kind;
  el.textContent = message;
}

function connBadge(text, ok) {
  const el = $("#conn");
  if (!text) { el.hidden = true; return; }
  el.hidden = false;
  el.textContent = text;
  el.className = `conn ${ok ? "ok" : "bad"}`;
}

// ============================================================================ REST

class ApiError extends Error {}

function plainDetail(status, data) {
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

async function api(method, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: body ? { "Content-Type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw new ApiError("Cannot reach the server. Check your connection and try again.");
  }
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  if (!res.ok) throw new ApiError(plainDetail(res.status, data));
  return data;
}

// ============================================================================ seats

const seatKey = (tableId) => `cp.seat.${tableId}`;
const getSeat = (tableId) => store.get(seatKey(tableId));
function saveSeat(tableId, record) {
  store.set(seatKey(tableId), { ...(getSeat(tableId) || {}), ...record });
  const mine = store.get("cp.myTables", []);
  if (!mine.includes(tableId)) store.set("cp.myTables", [tableId, ...mine].slice(0, 50));
}

// ============================================================================ routing

let current = null; // the current screen: {stop()}

// The server serves index.html at /, /join/ID, /table/ID and /watch/ID; the list of a
// table's hands lives at /?hands=ID so that a reload finds the page too.
function parseRoute(pathname, search = "") {
  const m = pathname.match(/^\/(join|table|watch)\/([^/]+)\/?$/);
  if (m) return { name: m[1], id: decodeURIComponent(m[2]) };
  const hands = new URLSearchParams(search).get("hands");
  if (hands) return { name: "replay", id: hands };
  return { name: "lobby" };
}

export function navigate(path, replace = false) {
  if (replace) history.replaceState({}, "", path);
  else history.pushState({}, "", path);
  route();
}

function route() {
  if (current && current.stop) current.stop();
  current = null;
  banner(null);
  connBadge(null);
  const r = parseRoute(location.pathname, location.search);
  const app = $("#app");
  app.innerHTML = "";
  document.title = "Chinese poker";
  if (r.name === "join") current = joinScreen(app, r.id, new URLSearchParams(location.search).get("code") || "");
  else if (r.name === "table") current = tableScreen(app, r.id, "seat");
  else if (r.name === "watch") current = tableScreen(app, r.id, "spectator");
  else if (r.name === "replay") current = replayPage(app, r.id, new URLSearchParams(location.search).get("hand"));
  else current = lobbyScreen(app);
}

document.addEventListener("click", (ev) => {
  const a = ev.target.closest("a[data-link]");
  if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey || a.target) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin) return;
  ev.preventDefault();
  navigate(url.pathname + url.search);
});
window.addEventListener("popstate", route);

// ============================================================================ lobby

const FALLBACK_PRESETS = ["ofc", "ofc-western", "ofc-hitspoker", "ofc-finnish", "pineapple",
  "pineapple-progressive", "turbo", "classic", "classic-1-6", "classic-low-middle",
  "classic-wheel", "criss-cross"].map((name) => ({ name }));

const presetName = (p) => p.name || p.preset || p.id;
function presetCounts(p) {
  const c = p.player_counts || p.players || p.counts;
  if (Array.isArray(c) && c.length) return c;
  if (c && typeof c === "object" && c.min) return Array.from({ length: c.max - c.min + 1 }, (_, i) => c.min + i);
  const v = p.variant || (p.rules && p.rules.variant) || "";
  if (v === "pineapple") return [2, 3];
  if (v === "criss_cross") return [2];
  return [2, 3, 4];
}

function lobbyScreen(app) {
  const L = { presets: FALLBACK_PRESETS, bots: [{ name: "rules", levels: false }, { name: "random", levels: false }], timer: null, alive: true };
  const saved = store.get("cp.lobby", {});
  const myName = store.get("cp.name", "");
  app.innerHTML = `
  <div class="lobby">
    <section class="panel" id="create-panel">
      <h2>New table</h2>
      <form id="create-form" autocomplete="off">
        <div class="form-grid">
          <label for="f-name">Table name</label><input id="f-name" name="name" type="text" placeholder="Friday pineapple" maxlength="60">
          <label for="f-player">Your name</label><input id="f-player" name="player" type="text" value="${esc(myName)}" placeholder="Player 1" maxlength="30">
          <label for="f-preset">Game (preset)</label><select id="f-preset" name="preset"></select>
          <span></span><div class="rules-summary" id="f-preset-summary"></div>
          <label for="f-count">Players</label><select id="f-count" name="count"></select>
          <label>Seats</label><div id="f-seats"></div>
          <label>Rule options</label>
          <div><div id="f-options"></div><button type="button" class="small" id="f-add-option">+ Override an option</button></div>
          <label for="f-time">Time limit (s)</label><input id="f-time" name="time_limit" type="number" min="1" step="1" placeholder="none">
          <label for="f-mode">Mode</label>
          <select id="f-mode" name="mode"><option value="session">Cash session (one orbit + Fantasyland hands)</option><option value="tournament">Tournament (chips, levels)</option></select>
          <label class="tourn" for="f-chips">Starting chips</label><input class="tourn" id="f-chips" type="number" min="1" placeholder="1000">
          <label class="tourn" for="f-levels">Level every N hands</label><input class="tourn" id="f-levels" type="number" min="1" placeholder="by minutes (rules)">
          <label>Table settings</label>
          <div>
            <label class="toggle"><input type="checkbox" id="f-hints" checked> Hints allowed</label>
            <label class="toggle"><input type="checkbox" id="f-spect" checked> Spectators allowed</label>
          </div>
          <label for="f-botdelay">Bot delay (s)</label><input id="f-botdelay" type="number" min="0" max="10" step="0.1" value="0.5">
          <label for="f-nextdelay">Pause between hands (s)</label><input id="f-nextdelay" type="number" min="0" max="60" step="0.5" value="3">
        </div>
        <div class="actions-bar"><button type="submit" class="primary" id="create-btn">Create table</button></div>
      </form>
      <div id="created"></div>
    </section>
    <section>
      <div class="panel">
        <h2>Join with an invite</h2>
        <form id="invite-form" class="invite"><input id="invite-input" type="text" placeholder="Paste an invite link" aria-label="Invite link"><button type="submit">Open</button></form>
      </div>
      <div class="panel">
        <h2>Tables <button class="small" id="refresh-tables" type="button" title="Refresh">↻</button></h2>
        <div id="tables"><p class="muted">Loading…</p></div>
      </div>
    </section>
  </div>`;

  const form = $("#create-form", app);
  const presetSel = $("#f-preset", app);
  const countSel = $("#f-count", app);
  const seatsBox = $("#f-seats", app);
  const optionsBox = $("#f-options", app);

  const currentPreset = () => L.presets.find((p) => presetName(p) === presetSel.value) || { name: presetSel.value };

  function fillPresets() {
    presetSel.innerHTML = L.presets.map((p) => {
      const n = presetName(p);
      return `<option value="${esc(n)}">${esc(n)}${p.variant ? ` — ${esc(p.variant)}` : ""}</option>`;
    }).join("");
    presetSel.value = saved.preset && L.presets.some((p) => presetName(p) === saved.preset) ? saved.preset : (L.presets.some((p) => presetName(p) === "pineapple") ? "pineapple" : presetName(L.presets[0]));
    onPreset();
  }

  function onPreset() {
    const p = currentPreset();
    const counts = presetCounts(p);
    const prev = Number(countSel.value) || saved.count || 2;
    countSel.innerHTML = counts.map((c) => `<option value="${c}">${c}</option>`).join("");
    countSel.value = String(counts.includes(prev) ? prev : counts[0]);
    const r = p.rules || {};
    $("#f-preset-summary", app).textContent = p.rules
      ? [p.description, `scoring ${r.scoring_method}`, `royalties ${r.royalty_table}`, r.royalty_award && `award ${r.royalty_award}`, r.fantasyland_enabled && ["ofc", "pineapple", "turbo"].includes(r.variant) ? "Fantasyland" : null].filter(Boolean).join(" · ")
      : "";
    renderSeats();
    $$(".option-row", optionsBox).forEach((row) => fillOptionNames($("select", row)));
  }

  function botOptions(selected) {
    return L.bots.map((b) => `<option value="${esc(b.name)}" ${b.name === selected ? "selected" : ""}>${esc(b.name)}</option>`).join("");
  }

  function renderSeats() {
    const n = Number(countSel.value) || 2;
    const old = $$(".seat-row", seatsBox).map((row) => ({
      kind: $(".s-kind", row).value, name: $(".s-name", row).value, bot: $(".s-bot", row).value, level: $(".s-level", row).value,
    }));
    const defaults = saved.seats || [];
    let html = "";
    for (let i = 0; i < n; i++) {
      const s = old[i] || defaults[i] || { kind: i === 0 ? "human" : "bot", name: "", bot: L.bots.some((b) => b.name === "rules") ? "rules" : (L.bots[0] || {}).name, level: "3" };
      const you = i === 0;
      html += `<div class="seat-row" data-seat="${i}">
        <span class="seat-no">Seat ${i + 1}</span>
        <select class="s-kind" aria-label="Seat ${i + 1} player" ${you ? "disabled" : ""}>
          <option value="human" ${s.kind === "human" ? "selected" : ""}>${you ? "You" : "Human (invite)"}</option>
          <option value="bot" ${s.kind === "bot" && !you ? "selected" : ""}>Bot</option>
        </select>
        <input class="s-name" type="text" placeholder="${you ? "(your name)" : "name (optional)"}" value="${esc(you ? "" : s.name)}" ${you ? "hidden" : ""} aria-label="Seat ${i + 1} name">
        <select class="s-bot" aria-label="Seat ${i + 1} bot">${botOptions(s.bot)}</select>
        <select class="s-level" aria-label="Seat ${i + 1} bot level">${[1, 2, 3, 4, 5].map((l) => `<option value="${l}" ${String(l) === String(s.level) ? "selected" : ""}>level ${l}</option>`).join("")}</select>
      </div>`;
    }
    seatsBox.innerHTML = html;
    $$(".seat-row", seatsBox).forEach(updateSeatRow);
  }

  function updateSeatRow(row) {
    const bot = $(".s-kind", row).value === "bot";
    $(".s-bot", row).hidden = !bot;
    const info = L.bots.find((b) => b.name === $(".s-bot", row).value);
    $(".s-level", row).hidden = !bot || !(info && info.levels);
    if (info && Array.isArray(info.levels)) {
      const cur = $(".s-level", row).value;
      $(".s-level", row).innerHTML = info.levels.map((l) => `<option value="${esc(l)}" ${String(l) === cur ? "selected" : ""}>level ${esc(l)}</option>`).join("");
    }
  }

  function optionNames() {
    const p = currentPreset();
    const keys = p.rules ? Object.keys(p.rules).filter((k) => k !== "variant" && k !== "time_limit") : [];
    return keys.length ? keys : ["scoring_method", "royalty_table", "royalty_award", "finnish_deuce", "fantasyland_enabled", "fl_progressive", "fl_repeat_middle_min", "fl_max_consecutive", "unit_value", "surrender_allowed", "naturals_enabled", "middle_mode", "wheel_rank"];
  }

  function fillOptionNames(sel) {
    const cur = sel.value;
    sel.innerHTML = optionNames().map((k) => `<option value="${esc(k)}" ${k === cur ? "selected" : ""}>${esc(k)}</option>`).join("");
    showOptionDefault(sel.closest(".option-row"));
  }

  function showOptionDefault(row) {
    const p = currentPreset();
    const name = $("select", row).value;
    const def = p.rules ? p.rules[name] : undefined;
    const input = $("input", row);
    input.placeholder = def === undefined ? "value" : `now: ${typeof def === "object" ? JSON.stringify(def) : def}`;
  }

  function addOption(name = "", value = "") {
    const row = document.createElement("div");
    row.className = "option-row";
    row.innerHTML = `<select aria-label="Option name"></select><input type="text" aria-label="Option value" value="${esc(value)}"><button type="button" class="small" aria-label="Remove option">×</button>`;
    optionsBox.appendChild(row);
    const sel = $("select", row);
    fillOptionNames(sel);
    if (name) sel.value = name;
    showOptionDefault(row);
    sel.onchange = () => showOptionDefault(row);
    $("button", row).onclick = () => row.remove();
  }

  presetSel.onchange = onPreset;
  countSel.onchange = renderSeats;
  seatsBox.addEventListener("change", (ev) => { const row = ev.target.closest(".seat-row"); if (row) updateSeatRow(row); });
  $("#f-add-option", app).onclick = () => addOption();
  const modeSel = $("#f-mode", app);
  const showTourn = () => $$(".tourn", app).forEach((el) => { el.hidden = modeSel.value !== "tournament"; });
  modeSel.onchange = showTourn;
  showTourn();

  function parseValue(text) {
    const t = text.trim();
    if (t === "") return null;
    if (/^(true|false)$/i.test(t)) return t.toLowerCase() === "true";
    if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
    if (/^[[{]/.test(t)) { try { return JSON.parse(t); } catch { return t; } }
    return t;
  }

  form.onsubmit = async (ev) => {
    ev.preventDefault();
    const player = $("#f-player", app).value.trim();
    if (player) store.set("cp.name", player);
    const options = {};
    for (const row of $$(".option-row", optionsBox)) {
      const value = parseValue($("input", row).value);
      if (value !== null) options[$("select", row).value] = value;
    }
    const mode = modeSel.value;
    const chips = $("#f-chips", app).value;
    if (mode === "tournament" && chips) options.starting_chips = Number(chips);
    const seats = $$(".seat-row", seatsBox).map((row, i) => {
      if (i === 0) return player ? { kind: "human", name: player } : { kind: "human" };
      if ($(".s-kind", row).value === "human") {
        const name = $(".s-name", row).value.trim();
        return name ? { kind: "human", name } : { kind: "human" };
      }
      const bot = $(".s-bot", row).value;
      const info = L.bots.find((b) => b.name === bot);
      const seat = { kind: "bot", bot };
      if (info && info.levels) seat.level = Number($(".s-level", row).value);
      const name = $(".s-name", row).value.trim();
      if (name) seat.name = name;
      return seat;
    });
    const time = $("#f-time", app).value;
    const body = {
      name: $("#f-name", app).value.trim() || `${presetSel.value} table`,
      preset: presetSel.value,
      options,
      seats,
      time_limit: time ? Number(time) : null,
      mode,
      tournament: mode === "tournament" ? { stacks: null, level_hands: $("#f-levels", app).value ? Number($("#f-levels", app).value) : null } : null,
      hints: $("#f-hints", app).checked,
      spectators: $("#f-spect", app).checked,
      bot_delay: Number($("#f-botdelay", app).value || 0),
      next_hand_delay: Number($("#f-nextdelay", app).value || 0),
      join: true,
    };
    store.set("cp.lobby", { preset: body.preset, count: seats.length, seats: $$(".seat-row", seatsBox).map((row) => ({ kind: $(".s-kind", row).value, name: $(".s-name", row).value, bot: $(".s-bot", row).value, level: $(".s-level", row).value })) });
    const btn = $("#create-btn", app);
    btn.disabled = true;
    try {
      const created = await api("POST", "/api/tables", body);
      const id = created.table.id;
      saveSeat(id, { token: created.token, seat: created.seat, player: (created.table.seats[created.seat] || {}).name, invite_url: created.invite_url, join_code: created.join_code });
      const humans = seats.filter((s) => s.kind === "human").length;
      if (humans <= 1) { navigate(`/table/${encodeURIComponent(id)}`); return; }
      $("#created", app).innerHTML = `<div class="created-box">
        <b>Table created.</b> Send this invite link to the other player${humans > 2 ? "s" : ""}:
        <div class="invite"><input id="invite-url" type="text" readonly value="${esc(created.invite_url)}" aria-label="Invite link"><button type="button" id="copy-invite">Copy</button></div>
        <div class="actions-bar"><a class="button" href="/table/${esc(encodeURIComponent(id))}" data-link><button type="button" class="primary" id="go-table">Go to the table</button></a></div>
      </div>`;
      $("#copy-invite", app).onclick = () => copyText(created.invite_url);
      loadTables();
    } catch (err) {
      toast(`Could not create the table: ${err.message}`);
    } finally {
      btn.disabled = false;
    }
  };

  $("#invite-form", app).onsubmit = (ev) => {
    ev.preventDefault();
    const text = $("#invite-input", app).value.trim();
    if (!text) return;
    try {
      const url = new URL(text, location.href);
      if (parseRoute(url.pathname, url.search).name !== "lobby") { navigate(url.pathname + url.search); return; }
    } catch { /* not a URL */ }
    toast("That does not look like an invite link (it should contain /join/<table>?code=...).");
  };

  async function loadTables() {
    const box = $("#tables", app);
    try {
      const tables = await api("GET", "/api/tables");
      if (!L.alive) return;
      if (!tables.length) { box.innerHTML = `<p class="muted">No tables yet. Create one!</p>`; return; }
      box.innerHTML = `<table class="table-list"><thead><tr><th>Table</th><th>Game</th><th>Seats</th><th></th></tr></thead><tbody>${tables.map((t) => {
        const mine = getSeat(t.id);
        const taken = t.seats.filter((s) => s.taken).length;
        const who = t.seats.map((s) => (s.taken ? esc(s.name || "?") + (s.kind === "bot" ? " (bot)" : "") : "<i class='muted'>free</i>")).join(", ");
        const acts = [];
        const idq = esc(encodeURIComponent(t.id));
        if (mine && mine.token && t.status !== "finished") acts.push(`<a href="/table/${idq}" data-link><button class="small primary" type="button">Resume</button></a>`);
        else if (t.status === "waiting" && taken < t.seats.length) acts.push(`<button class="small" type="button" data-join="${esc(t.id)}">Join…</button>`);
        if (t.spectators) acts.push(`<a href="/watch/${idq}" data-link><button class="small" type="button">Watch</button></a>`);
        if (t.hands_played > 0) acts.push(`<a href="/?hands=${idq}" data-link><button class="small" type="button">Hands</button></a>`);
        return `<tr data-table="${esc(t.id)}"><td><b>${esc(t.name)}</b><br><span class="status ${esc(t.status)}">${esc(t.status)}</span> <span class="muted">${t.time_limit ? `${t.time_limit}s` : "no clock"}</span></td><td>${esc(t.preset)}<br><span class="muted">${esc(t.mode)}${t.hand ? ` · hand ${t.hand}` : ""}</span></td><td>${taken}/${t.seats.length}<br><span class="muted">${who}</span></td><td class="actions">${acts.join(" ")}</td></tr>`;
      }).join("")}</tbody></table>`;
    } catch (err) {
      box.innerHTML = `<p class="warning">Could not load the tables: ${esc(err.message)}</p>`;
    }
  }
  $("#tables", app).addEventListener("click", (ev) => {
    const b = ev.target.closest("[data-join]");
    if (!b) return;
    const code = prompt("Join code (from the invite link):");
    if (code) navigate(`/join/${encodeURIComponent(b.dataset.join)}?code=${encodeURIComponent(code.trim())}`);
  });
  $("#refresh-tables", app).onclick = loadTables;

  (async () => {
    const [presets, bots] = await Promise.allSettled([api("GET", "/api/presets"), api("GET", "/api/bots")]);
    if (!L.alive) return;
    if (presets.status === "fulfilled" && Array.isArray(presets.value) && presets.value.length) L.presets = presets.value;
    else if (presets.status === "rejected") toast(`Could not load the game list: ${presets.reason.message}`);
    if (bots.status === "fulfilled" && Array.isArray(bots.value) && bots.value.length) L.bots = bots.value;
    fillPresets();
  })();
  fillPresets();
  loadTables();
  L.timer = setInterval(loadTables, 5000);
  return { stop() { L.alive = false; clearInterval(L.timer); } };
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    toast("Invite link copied.", "ok", 2500);
  } catch {
    const input = document.createElement("textarea");
    input.value = text;
    document.body.appendChild(input);
    input.select();
    try { document.execCommand("copy"); toast("Invite link copied.", "ok", 2500); }
    catch { toast("Copy failed: select the link and copy it by hand."); }
    input.remove();
  }
}

// ============================================================================ join page

function joinScreen(app, tableId, code) {
  const mine = getSeat(tableId);
  app.innerHTML = `<div class="panel join-box" id="join-panel"><h2>Join a table</h2><div id="join-info" class="muted">Loading…</div>
    <form id="join-form" class="form-grid" style="margin-top:10px">
      <label for="j-name">Your name</label><input id="j-name" type="text" maxlength="30" value="${esc(store.get("cp.name", ""))}" placeholder="Your name" required>
      <label for="j-code">Join code</label><input id="j-code" type="text" value="${esc(code)}" required>
      <label for="j-seat">Seat</label><select id="j-seat"><option value="">first free seat</option></select>
      <span></span><div class="actions-bar"><button type="submit" class="primary" id="join-btn">Join</button>
      ${mine && mine.token ? `<a href="/table/${esc(encodeURIComponent(tableId))}" data-link><button type="button">Resume my seat</button></a>` : ""}
      <a href="/watch/${esc(encodeURIComponent(tableId))}" data-link><button type="button">Just watch</button></a></div>
    </form></div>`;
  let alive = true;
  (async () => {
    try {
      const t = await api("GET", `/api/tables/${encodeURIComponent(tableId)}`);
      if (!alive) return;
      const free = t.seats.filter((s) => s.kind === "human" && !s.taken);
      $("#join-info", app).innerHTML = `<b>${esc(t.name)}</b> · ${esc(t.preset)} · ${esc(t.mode)} · ${t.time_limit ? `${t.time_limit}s per decision` : "no clock"}<br>
        Seats: ${t.seats.map((s) => (s.taken ? `${esc(s.name)}${s.kind === "bot" ? " (bot)" : ""}` : "<i>free</i>")).join(", ")}`;
      $("#j-seat", app).innerHTML = `<option value="">first free seat</option>` + free.map((s) => `<option value="${s.seat}">seat ${s.seat + 1}</option>`).join("");
      if (!free.length) $("#join-info", app).insertAdjacentHTML("beforeend", `<p class="warning">No free seat is left at this table; you can still watch.</p>`);
    } catch (err) {
      $("#join-info", app).innerHTML = `<p class="warning">${esc(err.message)}</p>`;
    }
  })();
  $("#join-form", app).onsubmit = async (ev) => {
    ev.preventDefault();
    const name = $("#j-name", app).value.trim();
    const seat = $("#j-seat", app).value;
    if (name) store.set("cp.name", name);
    $("#join-btn", app).disabled = true;
    try {
      const joined = await api("POST", `/api/tables/${encodeURIComponent(tableId)}/join`, { code: $("#j-code", app).value.trim(), name, seat: seat === "" ? null : Number(seat) });
      saveSeat(tableId, { token: joined.token, seat: joined.seat, player: joined.player });
      navigate(`/table/${encodeURIComponent(tableId)}`, true);
    } catch (err) {
      toast(`Could not join: ${err.message}`);
      $("#join-btn", app).disabled = false;
    }
  };
  return { stop() { alive = false; } };
}

// ============================================================================ table screen

const ERROR_WORDS = {
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
const CLOSE_WORDS = {
  4404: "This table does not exist (it may have been removed).",
  4401: "Your seat key is not valid for this table. Join again with the invite link.",
  4403: "This table does not allow spectators.",
};

function describeAction(a, players) {
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

function hintText(action) {
  const parts = [];
  for (const line of LINES) if (action[line] && action[line].length) parts.push(`${line[0].toUpperCase()}: ${action[line].join(" ")}`);
  if (action.discard && action.discard.length) parts.push(`✕ ${action.discard.join(" ")}`);
  if (action.type === "surrender") return action.surrender ? "Surrender" : "Play";
  if (action.type === "claim_natural") return action.claim ? "Declare the natural" : "Play the board";
  return parts.join(" · ");
}

function tableScreen(app, tableId, wanted) {
  const mine = getSeat(tableId);
  const T = {
    id: tableId,
    role: wanted === "seat" && mine && mine.token ? "seat" : "spectator",
    token: mine && mine.token,
    seat: null, player: null,
    info: null, view: null, hand: 0, clocks: [], clocksAt: 0, log: [],
    moves: [], sig: null, selected: null, decisionIndex: 0,
    hints: null, hintPending: false, autoPending: false,
    ledger: null, hands: [], lastEnd: null, nextHandAt: 0, sessionOver: false,
    ws: null, msgId: 0, sending: null, alive: true, retry: 0, closedFor: null,
    sortMode: store.get("cp.sort", null), lastShowdown: null, noHints: false,
  };
  window.__cp = T; // for tests and debugging
  const fairWatch = T.fair = watchTable(tableId, { send: (m) => send(m), rerender: () => renderSide() });
  if (wanted === "seat" && !T.token) toast("You have no seat at this table in this browser, so you are watching. Use the invite link to join.", "info");

  // ------------------------------------------------------------------ socket
  function wsURL() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    // The seat token goes in the first message, never in the URL (access logs).
    const q = T.role === "seat" ? "?role=seat" : "";
    return `${proto}//${location.host}/ws/tables/${encodeURIComponent(tableId)}${q}`;
  }

  function connect() {
    if (!T.alive) return;
    connBadge("connecting…", false);
    const ws = new WebSocket(wsURL());
    T.ws = ws;
    ws.onopen = () => {
      T.retry = 0;
      if (T.role === "seat") ws.send(JSON.stringify({ type: "auth", token: T.token }));
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      onMessage(msg);
    };
    ws.onclose = (ev) => {
      if (T.ws !== ws) return;
      T.ws = null;
      T.sending = null;
      if (!T.alive) return;
      if (CLOSE_WORDS[ev.code]) {
        T.closedFor = CLOSE_WORDS[ev.code];
        banner(T.closedFor);
        connBadge("disconnected", false);
        if (ev.code === 4401 && T.role === "seat") {
          // A stale seat key: fall back to watching so the table is still visible.
          T.role = "spectator";
          setTimeout(connect, 300);
        }
        render();
        return;
      }
      connBadge("reconnecting…", false);
      banner("Connection lost. Reconnecting…", "info");
      const delay = Math.min(8000, 400 * 2 ** T.retry++);
      setTimeout(connect, delay);
    };
  }

  function send(msg) {
    if (!T.ws || T.ws.readyState !== WebSocket.OPEN) {
      toast("Not connected to the server right now; your move is still staged. Try again in a moment.");
      return null;
    }
    const id = ++T.msgId;
    T.ws.send(JSON.stringify({ ...msg, id }));
    return id;
  }

  function onMessage(msg) {
    fairWatch.onMessage(msg);
    switch (msg.type) {
      case "welcome":
        T.info = msg.table;
        T.role = msg.role;
        T.seat = msg.seat;
        T.player = msg.player;
        if (T.role === "seat") saveSeat(tableId, { seat: msg.seat, player: msg.player });
        connBadge(T.role === "seat" ? `connected as ${msg.player}` : "watching", true);
        if (!T.closedFor) banner(null);
        document.title = `${T.info.name} — Chinese poker`;
        refreshLedger();
        render();
        break;
      case "hand_start":
        T.hand = msg.hand;
        T.lastEnd = null;
        T.nextHandAt = 0;
        T.hints = null;
        T.log = [];
        T.moves = []; T.sig = null; T.selected = null;
        if (T.info) { T.info.hand = msg.hand; T.info.status = "playing"; }
        break;
      case "state": {
        if (msg.hand !== T.hand) T.log = [];
        T.view = msg.view;
        // The engine seat of this hand (null: out of the tournament or sitting out).
        if (T.role === "seat") T.seat = msg.view.seat;
        T.hand = msg.hand;
        T.clocks = msg.clocks || [];
        T.clocksAt = performance.now();
        if (Array.isArray(msg.log)) T.log = msg.log;
        else if (msg.last) T.log.push(msg.last);
        if (msg.ack !== null && msg.ack !== undefined && T.sending === msg.ack) T.sending = null;
        if (T.hints && T.hints.version !== msg.version) T.hints = null;
        if (T.view.phase === "showdown") T.lastShowdown = { hand: msg.hand, view: T.view };
        syncStaging();
        render();
        break;
      }
      case "hand_end":
        T.lastEnd = msg;
        T.nextHandAt = msg.session_over ? 0 : performance.now() + (msg.next_hand_in || 0) * 1000;
        if (msg.session_over) T.sessionOver = true;
        if (T.info) T.info.hands_played = (T.info.hands_played || 0) + 1;
        refreshLedger();
        render();
        break;
      case "session_end":
        T.sessionOver = true;
        if (msg.ledger) T.ledger = msg.ledger;
        if (T.info) T.info.status = "finished";
        refreshLedger();
        render();
        break;
      case "seats":
        if (T.info) { T.info.seats = msg.seats; T.info.status = msg.status; }
        render();
        break;
      case "hint":
        T.hintPending = false;
        T.hints = { version: msg.version, actions: msg.actions || [] };
        if (T.autoPending) {
          T.autoPending = false;
          const best = T.hints.actions[0];
          if (best) useAction(best.action);
          else toast("No arrangement was suggested.", "info");
        }
        render();
        break;
      case "error": {
        if (fairWatch.owns(msg.ref)) break; // a contribution too late: nothing to tell
        if (msg.ref !== undefined && msg.ref === T.sending) T.sending = null;
        T.hintPending = false;
        T.autoPending = false;
        if (msg.code === "hints_unavailable" || msg.code === "hints_disabled") T.noHints = true;
        const words = ERROR_WORDS[msg.code] || "The server refused that.";
        const detail = msg.message && msg.message !== words ? ` ${msg.message.charAt(0).toUpperCase()}${msg.message.slice(1)}${/[.!?]$/.test(msg.message) ? "" : "."}` : "";
        toast(`${words}${detail}`);
        if (msg.code === "stale" || msg.code === "no_hand") send({ type: "sync" });
        render();
        break;
      }
      default:
        break;
    }
  }

  async function refreshLedger() {
    try {
      const [ledger, hands] = await Promise.all([
        api("GET", `/api/tables/${encodeURIComponent(tableId)}/ledger`),
        api("GET", `/api/tables/${encodeURIComponent(tableId)}/hands`),
      ]);
      if (!T.alive) return;
      T.ledger = ledger;
      T.hands = hands;
      renderSide();
    } catch (err) {
      if (T.alive && !/no such table/i.test(err.message)) toast(`Could not load the ledger: ${err.message}`);
    }
  }

  // ------------------------------------------------------------------ staging
  function myDecisions() {
    if (!T.view || T.role !== "seat") return [];
    return (T.view.decisions || []).filter((d) => d.seat === T.seat);
  }
  function decision() {
    const ds = myDecisions();
    if (!ds.length) return null;
    return ds[Math.min(T.decisionIndex, ds.length - 1)];
  }
  const decisionSig = (d) => (d ? `${T.hand}|${d.kind}|${d.hand}|${d.cards.join(",")}` : null);
  function syncStaging() {
    const d = decision();
    const sig = decisionSig(d);
    if (sig !== T.sig) {
      T.sig = sig;
      T.moves = [];
      T.selected = null;
    }
    if (!d) T.decisionIndex = 0;
  }
  function staged(line) { return T.moves.filter((m) => m.to === line).map((m) => m.card); }
  function handCards() {
    const d = decision();
    if (!d) return [];
    const used = new Set(T.moves.map((m) => m.card));
    return sortCards(d.cards.filter((c) => !used.has(c)), sortMode());
  }
  // Dealt order for streets, by rank for whole sets, unless the player chose an order.
  function sortMode() {
    const d = decision();
    return T.sortMode || (d && d.kind === "set" ? "rank" : "dealt");
  }
  function room(line) {
    const d = decision();
    if (!d) return 0;
    if (line === "discard") return d.discard - staged("discard").length;
    const placed = T.moves.filter((m) => m.to !== "discard").length;
    if (placed >= d.place) return 0;
    return d.free[LINES.indexOf(line)] - staged(line).length;
  }
  function canAct() {
    const d = decision();
    return !!d && (T.view.to_act || []).includes(T.seat) && !T.sessionOver;
  }
  function moveTo(line, card = T.selected) {
    const d = decision();
    if (!d || !canAct()) return;
    if (d.kind !== "street" && d.kind !== "set") return;
    const cards = handCards();
    if (!card) card = cards[0];
    if (!card || !cards.includes(card)) return;
    if (room(line) <= 0) {
      if (line === "discard") toast(d.discard ? `You discard only ${d.discard} card${d.discard > 1 ? "s" : ""} here.` : "Nothing is discarded on this street.", "info", 3000);
      else if (T.moves.filter((m) => m.to !== "discard").length >= d.place) toast(`You place only ${d.place} card${d.place > 1 ? "s" : ""} now${d.discard ? "; the rest is discarded" : ""}.`, "info", 3000);
      else toast(`The ${line} line is full.`, "info", 3000);
      return;
    }
    T.moves.push({ card, to: line });
    T.selected = null;
    render();
  }
  function unstage(card) {
    const i = T.moves.findIndex((m) => m.card === card);
    if (i >= 0) { T.moves.splice(i, 1); render(); }
  }
  function undo() {
    if (!T.moves.length) return;
    T.moves.pop();
    T.selected = null;
    render();
  }
  function resetStaging() { T.moves = []; T.selected = null; render(); }
  function ready() {
    const d = decision();
    if (!d || (d.kind !== "street" && d.kind !== "set")) return false;
    return T.moves.filter((m) => m.to !== "discard").length === d.place;
  }
  function confirm() {
    const d = decision();
    if (!d || !canAct() || T.sending !== null) return;
    if (!ready()) {
      toast(`Place ${d.place} card${d.place > 1 ? "s" : ""} first (${T.moves.filter((m) => m.to !== "discard").length} placed).`, "info", 3000);
      return;
    }
    const rest = handCards();
    const action = {
      type: "place", seat: T.seat, hand: d.hand, version: T.view.version,
      top: staged("top"), middle: staged("middle"), bottom: staged("bottom"),
      discard: [...staged("discard"), ...rest],
    };
    T.sending = send({ type: "action", action });
    if (T.sending !== null) {
      const mark = T.sending;
      setTimeout(() => { if (T.sending === mark) { T.sending = null; render(); } }, 8000);
    }
    render();
  }
  function declare(kind, yes) {
    const d = decision();
    if (!d || !canAct() || T.sending !== null) return;
    const action = kind === "surrender"
      ? { type: "surrender", seat: T.seat, hand: d.hand, version: T.view.version, surrender: yes }
      : { type: "claim_natural", seat: T.seat, hand: d.hand, version: T.view.version, claim: yes };
    T.sending = send({ type: "action", action });
    render();
  }
  function useAction(action) {
    const d = decision();
    if (!d) return;
    if (action.type !== "place") { declare(action.type === "surrender" ? "surrender" : "natural", action.type === "surrender" ? action.surrender : action.claim); return; }
    T.moves = [];
    for (const line of [...LINES, "discard"]) for (const c of action[line] || []) if (d.cards.includes(c)) T.moves.push({ card: c, to: line });
    T.selected = null;
    render();
  }
  const hintsOn = () => !!(T.info && T.info.hints && !T.noHints);
  function askHint(auto = false) {
    if (!T.info || !T.info.hints) { toast("This table does not allow hints."); return; }
    if (T.noHints) { toast("Hints are not available on this server."); return; }
    if (T.hintPending) return;
    T.hintPending = true;
    T.autoPending = auto;
    if (send({ type: "hint" }) === null) { T.hintPending = false; T.autoPending = false; }
    render();
  }

  // ------------------------------------------------------------------ rendering
  function boardsOf(view) {
    return view ? view.boards : [];
  }
  function clockFor(seat) {
    if (!T.view || !(T.view.to_act || []).includes(seat) || T.view.phase === "showdown") return null;
    let c = T.clocks.find((x) => x.seat === seat);
    if (!c) {
      // A seat to act with no running clock in this message: its timer starts now.
      const limit = T.info && T.info.time_limit;
      const human = T.info && T.info.seats && T.info.seats[seat] && T.info.seats[seat].kind === "human";
      if (!limit || !human) return null;
      c = { seat, remaining: limit, limit };
      T.clocks = [...T.clocks, c];
    }
    const left = Math.max(0, c.remaining - (performance.now() - T.clocksAt) / 1000);
    return { left, limit: c.limit };
  }
  function timerHTML(seat) {
    const c = clockFor(seat);
    if (!c) return "";
    return `<span class="timer ${c.left < 10 ? "low" : ""}" data-timer="${seat}" title="Time left for this decision">${Math.ceil(c.left)}s left</span>`;
  }
  function settlementPlayer(name) {
    const st = T.view && T.view.settlement;
    if (!st || !st.players) return null;
    return st.players.filter((p) => p.name === name || p.player === name);
  }

  function lineRow(line, board, opts = {}) {
    const size = SIZES[line];
    const confirmed = board[line] || [];
    const extra = opts.staged ? opts.staged[line] || [] : [];
    let cells = confirmed.map((c) => cardHTML(c)).join("");
    cells += extra.map((c) => cardHTML(c, { tag: "button", cls: "staged", attrs: `type="button" data-unstage="${esc(c)}" draggable="true"` })).join("");
    for (let i = confirmed.length + extra.length; i < size; i++) cells += slotHTML();
    const info = opts.info ? opts.info[line] : null;
    const infoHTML = info ? `<span class="line-info" title="${esc(info.name || "")}${info.royalty ? ` (royalty ${info.royalty})` : ""}">${info.royalty ? `<span class="roy">+${info.royalty}</span> ` : ""}${esc(info.name || "")}</span>` : `<span class="line-info"></span>`;
    const attrs = opts.target ? `data-drop="${line}" role="button" tabindex="-1" aria-label="Put the card on the ${line} line"` : "";
    const cls = opts.target ? `target ${confirmed.length + extra.length >= size ? "full" : ""}` : "";
    return `<div class="line-row ${cls}" data-line="${line}" ${attrs}><span class="line-label"><span class="long">${line}</span><span class="short">${line[0].toUpperCase()}</span></span><div class="cards">${cells}</div>${infoHTML}</div>`;
  }

  function boardBox(b, { me = false } = {}) {
    const view = T.view;
    const players = view.players;
    const toAct = (view.to_act || []).includes(b.seat) && view.phase !== "showdown" && !(b.is_set && view.phase === "play");
    const isButton = view.button === b.seat;
    const label = b.player + (view.variant === "criss_cross" ? ` / hand ${b.hand + 1}` : "");
    const sp = settlementPlayer(b.player);
    const spHand = sp ? sp[Math.min(b.hand, sp.length - 1)] : null;
    const head = `<div class="board-head"><span class="name">${esc(label)}${me ? " (you)" : ""}</span>
      ${isButton ? `<span class="button-chip" title="The button (dealer)">D</span>` : ""}
      ${b.in_fantasyland ? `<span class="fl-badge" title="Playing a Fantasyland deal">FANTASYLAND${b.fantasyland_cards ? ` ${b.fantasyland_cards}` : ""}</span>` : ""}
      ${toAct ? `<span class="chip turn">to act</span>` : ""}${toAct ? timerHTML(b.seat) : ""}
      ${spHand && spHand.fouled ? `<span class="foul-badge" title="${esc(spHand.foul_reason || "")}">FOUL</span>` : ""}
      ${b.surrendered ? `<span class="chip">surrendered</span>` : ""}${b.natural ? `<span class="chip">natural: ${esc(b.natural)}</span>` : ""}
      ${(T.info && T.info.seats && T.info.seats[b.seat] && T.info.seats[b.seat].kind === "human" && !T.info.seats[b.seat].connected) ? `<span class="chip" title="This player is not connected">offline</span>` : ""}
      ${view.totals && b.hand === 0 && view.totals[b.player] !== undefined ? `<b class="${signClass(view.totals[b.player])}">${signed(view.totals[b.player])}</b>` : ""}
      </div>`;
    if (b.hidden) {
      const why = b.in_fantasyland ? "Fantasyland board, hidden until the showdown" : "Set face down until the showdown";
      const rows = LINES.map((line) => `<div class="line-row"><span class="line-label"><span class="long">${line}</span><span class="short">${line[0].toUpperCase()}</span></span><div class="cards">${Array.from({ length: SIZES[line] }, b.is_set ? backHTML : slotHTML).join("")}</div></div>`).join("");
      return `<div class="board-box ${toAct ? "to-act" : ""}" data-seat="${b.seat}" data-hand="${b.hand}">${head}${rows}<div class="hidden-board">${esc(why)} · ${b.is_set ? "set ✓" : `${b.dealt || b.fantasyland_cards || 13} cards, setting…`}</div></div>`;
    }
    let info = null;
    if (spHand && spHand.lines) {
      info = {};
      for (const l of spHand.lines) info[l.line] = { name: l.hand, royalty: l.royalty };
    } else if (!me) {
      info = analyseBoard(b, view.rules).lines;
    }
    const rows = LINES.map((line) => lineRow(line, b, { info })).join("");
    const meta = view.phase !== "showdown" && b.dealt ? `<div class="muted" style="font-size:12px">${b.placed} placed${b.discarded ? ` · ${b.discarded} discarded` : ""}</div>` : "";
    return `<div class="board-box ${toAct ? "to-act" : ""} ${me ? "me" : ""}" data-seat="${b.seat}" data-hand="${b.hand}">${head}${rows}${meta}</div>`;
  }

  function myAreaHTML() {
    const view = T.view;
    const d = decision();
    const ds = myDecisions();
    const myBoards = boardsOf(view).filter((b) => b.seat === T.seat);
    const handIdx = d ? d.hand : 0;
    const board = myBoards.find((b) => b.hand === handIdx) || myBoards[0];
    if (!board) return "";
    const st = { top: staged("top"), middle: staged("middle"), bottom: staged("bottom") };
    const combined = { top: [...board.top, ...st.top], middle: [...board.middle, ...st.middle], bottom: [...board.bottom, ...st.bottom] };
    const showdown = view.phase === "showdown";
    const analysis = analyseBoard(combined, view.rules);
    const sp = settlementPlayer(board.player);
    const spHand = sp ? sp[Math.min(board.hand, sp.length - 1)] : null;
    let info = analysis.lines;
    if (spHand && spHand.lines) { info = {}; for (const l of spHand.lines) info[l.line] = { name: l.hand, royalty: l.royalty }; }
    const placing = d && (d.kind === "street" || d.kind === "set") && canAct();
    const head = boardBox({ ...board, top: [], middle: [], bottom: [] }, { me: true }).match(/<div class="board-head">[\s\S]*?<\/div>/)[0];
    const rows = LINES.map((line) => lineRow(line, board, { staged: st, info, target: placing && !board.hidden })).join("");
    let html = `<div class="board-box me mine" id="my-board" data-seat="${board.seat}" data-hand="${board.hand}">${head}${rows}`;
    html += `</div>`;
    // my other board (Criss Cross)
    for (const other of myBoards) if (other !== board) html += `<div style="margin-top:8px">${boardBox(other, { me: true })}</div>`;

    // warnings
    const warn = [];
    if (!showdown && combined.top.length + combined.middle.length + combined.bottom.length) {
      if (analysis.fouled) warn.push(`<div class="warning" id="foul-warning">⚠ Foul: ${esc(analysis.foulReason)}. A fouled board loses every line and earns no royalties.</div>`);
      for (const w of analysis.warnings) warn.push(`<div class="warning soft">${esc(w)}</div>`);
      if (analysis.royalties) warn.push(`<div class="good" id="royalty-total">Royalties so far: +${analysis.royalties}</div>`);
      if (analysis.fantasyland) warn.push(`<div class="good">★ Top qualifies for Fantasyland (if the board stays valid).</div>`);
    }
    html += `<div class="warnings" id="warnings">${warn.join("")}</div>`;

    // decision zone
    if (T.sessionOver) {
      html += `<div class="waiting-msg">The session is over. See the ledger for the final result.</div>`;
    } else if (showdown) {
      const secs = T.nextHandAt ? Math.max(0, Math.ceil((T.nextHandAt - performance.now()) / 1000)) : null;
      html += `<div class="waiting-msg" id="next-hand">Showdown. ${secs !== null && T.lastEnd ? `Next hand in <span data-next>${secs}</span> s.` : ""}</div>`;
    } else if (!d) {
      const waitingFor = (view.to_act || []).map((s) => view.players[s]).join(", ");
      html += `<div class="waiting-msg" id="waiting">${waitingFor ? `Waiting for ${esc(waitingFor)}…` : "Waiting…"}</div>`;
    } else if (d.kind === "surrender") {
      html += `<div class="hand-zone"><div class="decision-title">Play this hand, or surrender and pay ${esc(view.rules.surrender_cost)} to each opponent still in?</div>
        <div class="actions-bar"><button class="primary" data-act="play" id="play-btn">Play</button><button class="danger" data-act="surrender" id="surrender-btn">Surrender</button></div></div>`;
    } else if (d.kind === "natural") {
      html += `<div class="hand-zone"><div class="decision-title">You hold a natural. Declare it (you are paid its value and do not play your board), or play the board?</div>
        <div class="actions-bar"><button class="primary" data-act="claim" id="claim-btn">Declare natural</button><button data-act="noclaim" id="noclaim-btn">Play the board</button></div></div>`;
    } else {
      const cards = handCards();
      const isSet = d.kind === "set";
      const fl = board.in_fantasyland;
      const placed = T.moves.filter((m) => m.to !== "discard").length;
      const title = isSet
        ? (fl ? `Fantasyland: set ${d.place} of your ${d.cards.length} cards${d.discard === 1 ? "; the last card is discarded" : d.discard ? `; the other ${d.discard} are discarded` : ""}` : `Set your ${d.cards.length} cards: 3 top, 5 middle, 5 bottom`)
        : `Street ${d.street}: place ${d.place}${d.discard ? `, discard ${d.discard}` : ""}`;
      const tabs = ds.length > 1 ? ds.map((x, i) => `<button class="small ${i === T.decisionIndex ? "primary" : ""}" data-act="decision" data-index="${i}">hand ${x.hand + 1}</button>`).join(" ") : "";
      html += `<div class="hand-zone" id="hand-zone"><div class="decision-title">${esc(title)} ${tabs} <span class="muted">(${placed}/${d.place} placed)</span></div>
        <div class="cards" id="hand" data-drop="hand">${cards.map((c, i) => cardHTML(c, { tag: "button", cls: T.selected === c ? "selected" : "", attrs: `type="button" draggable="true" data-pick="${esc(c)}"`, key: i < 9 ? String(i + 1) : i === 9 ? "0" : null })).join("") || `<span class="muted">All cards placed — confirm.</span>`}</div>
        ${d.discard ? `<div class="discard-zone" data-drop="discard" role="button" tabindex="-1" aria-label="Discard the card" id="discard-zone"><span class="label">Discard ${d.discard}</span><div class="cards">${staged("discard").map((c) => cardHTML(c, { tag: "button", cls: "staged", attrs: `type="button" data-unstage="${esc(c)}"` })).join("")}${Array.from({ length: Math.max(0, d.discard - staged("discard").length) }, slotHTML).join("")}</div><span class="muted" style="font-size:12px">${d.discard > staged("discard").length ? "the card(s) left in hand are discarded on confirm" : ""}</span></div>` : ""}
        <div class="actions-bar">
          <button data-act="top" title="Shortcut: T">→ Top</button><button data-act="middle" title="Shortcut: M">→ Middle</button><button data-act="bottom" title="Shortcut: B">→ Bottom</button>
          ${d.discard ? `<button data-act="discard" title="Shortcut: X">✕ Discard</button>` : ""}
          <button data-act="undo" id="undo-btn" ${T.moves.length ? "" : "disabled"} title="Shortcut: U">↶ Undo</button>
          ${isSet ? `<button data-act="reset" ${T.moves.length ? "" : "disabled"}>Clear</button>` : ""}
          <button data-act="sort" title="Change the order of your cards">Order: ${esc(sortMode())}</button>
          ${hintsOn() ? `<button data-act="hint" id="hint-btn" ${T.hintPending ? "disabled" : ""} title="Shortcut: H">Hint</button>` : ""}
          ${hintsOn() && isSet ? `<button data-act="auto" id="auto-btn" ${T.hintPending ? "disabled" : ""} title="Shortcut: A">Auto-arrange</button>` : ""}
          <span class="spacer"></span>
          <button class="primary" data-act="confirm" id="confirm-btn" ${ready() && T.sending === null ? "" : "disabled"} title="Shortcut: Enter">${T.sending !== null ? "Sending…" : "Confirm ⏎"}</button>
        </div>
        <div class="shortcuts" id="shortcuts"><span><kbd>1</kbd>–<kbd>9</kbd>,<kbd>0</kbd> select a card</span><span><kbd>←</kbd><kbd>→</kbd> move the selection</span><span><kbd>T</kbd>/<kbd>M</kbd>/<kbd>B</kbd> top / middle / bottom</span>${d.discard ? "<span><kbd>X</kbd> discard</span>" : ""}<span><kbd>U</kbd> undo</span><span><kbd>Enter</kbd> confirm</span>${hintsOn() ? "<span><kbd>H</kbd> hint</span>" : ""}${hintsOn() && isSet ? "<span><kbd>A</kbd> auto-arrange</span>" : ""}<span>Or drag a card onto a line. Click a staged card to take it back.</span></div>
      </div>`;
    }
    return html;
  }

  function headHTML() {
    const info = T.info || {};
    const view = T.view;
    const chips = [];
    chips.push(`<span class="chip">${esc(info.preset || "")}</span>`);
    if (info.mode) chips.push(`<span class="chip">${esc(info.mode)}</span>`);
    if (T.hand) chips.push(`<span class="chip" id="hand-no">Hand ${T.hand}</span>`);
    if (view && view.street) chips.push(`<span class="chip">Street ${view.street}</span>`);
    if (view) chips.push(`<span class="chip" id="phase">${esc(view.phase)}</span>`);
    if (info.time_limit) chips.push(`<span class="chip">${info.time_limit}s per decision</span>`);
    if (view && view.phase !== "showdown" && T.role === "seat") {
      if ((view.to_act || []).includes(T.seat)) chips.push(`<span class="chip turn" id="your-turn">Your turn ${timerHTML(T.seat)}</span>`);
      else if ((view.to_act || []).length) chips.push(`<span class="chip" id="whose-turn">Waiting for ${esc(view.to_act.map((s) => view.players[s]).join(", "))}</span>`);
    }
    if (T.role === "spectator") chips.push(`<span class="chip">spectating</span>`);
    return `<div class="table-head"><a href="/" data-link>← Lobby</a><span class="title">${esc(info.name || "Table")}</span>${chips.join("")}</div>`;
  }

  function waitingHTML() {
    const info = T.info;
    if (!info) return `<p class="muted">Connecting…</p>`;
    const mine = getSeat(tableId) || {};
    const free = info.seats.filter((s) => !s.taken).length;
    return `<div class="felt"><div class="panel" id="waiting-room"><h2>Waiting for players</h2>
      <p>${free ? `${free} seat${free > 1 ? "s are" : " is"} still free. The first hand is dealt when every seat is taken.` : "Every seat is taken; dealing…"}</p>
      <ul>${info.seats.map((s) => `<li>Seat ${s.seat + 1}: ${s.taken ? `<b>${esc(s.name)}</b>${s.kind === "bot" ? " (bot)" : s.connected ? " · online" : " · offline"}` : "<i>free</i>"}</li>`).join("")}</ul>
      ${mine.invite_url ? `<p>Invite link:</p><div class="invite"><input type="text" readonly id="invite-url" value="${esc(mine.invite_url)}" aria-label="Invite link"><button type="button" data-act="copy-invite" id="copy-invite">Copy</button></div>` : ""}
    </div></div>`;
  }

  function render() {
    if (!T.alive) return;
    const view = T.view;
    let mainHTML;
    if (!view) {
      mainHTML = headHTML() + (T.closedFor ? `<p class="warning">${esc(T.closedFor)}</p>` : waitingHTML());
    } else {
      const others = view.boards.filter((b) => T.role !== "seat" || b.seat !== T.seat);
      // seats after mine first (clockwise)
      const n = view.players.length;
      const base = T.role === "seat" ? T.seat : -1;
      others.sort((a, b) => ((a.seat - base + n) % n) - ((b.seat - base + n) % n) || a.hand - b.hand);
      mainHTML = headHTML() + `<div class="felt">
        <div class="opponents" id="opponents">${others.map((b) => boardBox(b)).join("")}</div>
        ${T.role === "seat" ? `<div class="my-area" id="my-area">${myAreaHTML()}</div>` : ""}
      </div>`;
    }
    let root = $(".table-screen", app);
    if (!root) {
      app.innerHTML = `<div class="table-screen"><div id="table-main"></div><aside class="side" id="side"></aside></div>`;
      root = $(".table-screen", app);
    }
    $("#table-main", app).innerHTML = mainHTML;
    renderSide();
  }

  function breakdownHTML(view, handNo) {
    const st = view.settlement;
    if (!st) return "";
    const totals = st.totals || view.totals || {};
    let html = `<div class="panel breakdown" id="breakdown"><h2>Hand ${handNo} result</h2>
      <div class="totals-row">${Object.entries(totals).map(([n, v]) => `<span>${esc(n)} <b class="${signClass(v)}">${signed(v)}</b></span>`).join("")}</div>`;
    for (const p of st.players || []) {
      const flags = [];
      if (p.fouled) flags.push(`<span class="foul-badge">FOUL</span> <span class="muted">${esc(p.foul_reason || "")}</span>`);
      if (p.natural) flags.push(`natural: ${esc(p.natural)}`);
      if (p.surrendered) flags.push("surrendered");
      if (p.fantasyland) flags.push(`<span class="fl-badge">Fantasyland next: ${esc(p.fantasyland)} cards</span>`);
      if (flags.length || p.royalties) html += `<div class="muted" style="font-size:12px">${esc(p.name)}: ${p.royalties ? `royalties ${p.royalties}` : ""} ${flags.join(" ")}</div>`;
    }
    for (const pair of st.pairs || []) {
      html += `<div class="pair-head">${esc(pair.a)} vs ${esc(pair.b)}: ${esc(pair.a)} <span class="${signClass(pair.points)}">${signed(pair.points)}</span></div><table><tbody>`;
      for (const it of pair.items || []) {
        html += `<tr><td>${esc(it.text || it.kind)}</td><td class="pts ${signClass(it.points)}">${signed(it.points)}</td></tr>`;
      }
      html += `</tbody></table>`;
    }
    return html + `</div>`;
  }

  function renderSide() {
    const side = $("#side", app);
    if (!side) return;
    let html = "";
    const view = T.view;
    // hints
    if (T.hints && T.role === "seat" && decision()) {
      html += `<div class="panel" id="hints"><h2>Hints <span class="muted" style="font-size:12px;font-weight:400">expected points, best first</span></h2>${T.hints.actions.length ? `<ul class="hint-list">${T.hints.actions.slice(0, 8).map((h, i) => {
        const val = h.value ?? h.score ?? h.ev;
        const foul = typeof h.foul_probability === "number" && h.foul_probability >= 0.005 ? ` · foul ${(h.foul_probability * 100).toFixed(0)}%` : "";
        return `<li title="${esc(h.explanation || "")}"><span class="what">${esc(h.text || hintText(h.action))}${h.explanation ? `<br><span class="muted">${esc(h.explanation)}</span>` : ""}</span>${val !== undefined && val !== null ? `<span class="val">${typeof val === "number" ? (val > 0 ? "+" : "") + val.toFixed(2) : esc(val)}${foul}</span>` : ""}<button class="small" data-act="use-hint" data-index="${i}">Use</button></li>`;
      }).join("")}</ul>` : `<p class="muted">No suggestion.</p>`}</div>`;
    }
    // showdown breakdown (this hand or the last one)
    const sd = view && view.phase === "showdown" ? { hand: T.hand, view } : T.lastShowdown;
    if (sd && sd.view.settlement) html += breakdownHTML(sd.view, sd.hand);
    // ledger
    if (T.ledger) {
      const lg = T.ledger;
      const series = runningTotals(lg.players || [], lg.hands || []);
      html += `<div class="panel" id="ledger"><h2>Ledger ${lg.over || T.sessionOver ? `<span class="chip">final</span>` : ""}</h2>
        <table class="ledger-table"><thead><tr><th>Player</th><th>Points</th><th>Money</th>${lg.stacks ? "<th>Chips</th>" : ""}</tr></thead><tbody>
        ${(lg.players || []).map((p) => `<tr><td>${esc(p)}${(lg.out || []).includes(p) ? " <span class='muted'>(out)</span>" : ""}</td><td class="${signClass(lg.points[p])}">${signed(lg.points[p] || 0)}</td><td>${lg.money ? (lg.money[p] ?? 0).toFixed(2) : ""}</td>${lg.stacks ? `<td>${lg.stacks[p] ?? ""}</td>` : ""}</tr>`).join("")}
        </tbody></table>
        <p class="muted" style="font-size:12px;margin:6px 0 2px">${lg.hands_played || 0} hand(s) played</p>
        ${(lg.hands || []).length ? lineChart(series, { label: "Running total of each player" }) : ""}
      </div>`;
    }
    // hands: history & replay
    const finished = (T.hands || []).filter((h) => h.finished);
    if (finished.length) {
      const base = `/api/tables/${encodeURIComponent(tableId)}/history`;
      html += `<div class="panel" id="hands"><h2>Hands <a href="${base}" download="${esc(tableId)}-history.jsonl" id="download-all"><button class="small" type="button">⬇ all</button></a></h2>
        <ul class="hands-list">${finished.map((h) => `<li><span>Hand ${h.hand}</span><button class="small" data-act="replay" data-hand="${h.hand}">▶ Replay</button><a href="${base}?hand=${h.hand}" download="${esc(tableId)}-hand-${h.hand}.jsonl"><button class="small" type="button">⬇</button></a></li>`).join("")}</ul></div>`;
    }
    html += fairWatch.html(T.hand, esc);
    // log
    if (view && T.log.length) {
      html += `<div class="panel" id="log-panel"><h2>This hand</h2><ol class="log" id="log">${T.log.map((a) => `<li>${esc(describeAction(a, view.players))}</li>`).join("")}</ol></div>`;
    }
    side.innerHTML = html;
    const log = $("#log", side);
    if (log) log.scrollTop = log.scrollHeight;
  }

  // ------------------------------------------------------------------ events
  function onClick(ev) {
    const t = ev.target;
    const pick = t.closest("[data-pick]");
    if (pick) {
      T.selected = T.selected === pick.dataset.pick ? null : pick.dataset.pick;
      render();
      return;
    }
    const un = t.closest("[data-unstage]");
    if (un) { unstage(un.dataset.unstage); return; }
    const act = t.closest("[data-act]");
    if (act) {
      const a = act.dataset.act;
      if (LINES.includes(a) || a === "discard") moveTo(a);
      else if (a === "undo") undo();
      else if (a === "reset") resetStaging();
      else if (a === "confirm") confirm();
      else if (a === "play") declare("surrender", false);
      else if (a === "surrender") declare("surrender", true);
      else if (a === "claim") declare("natural", true);
      else if (a === "noclaim") declare("natural", false);
      else if (a === "hint") askHint(false);
      else if (a === "auto") askHint(true);
      else if (a === "use-hint") { const h = T.hints && T.hints.actions[Number(act.dataset.index)]; if (h) useAction(h.action); }
      else if (a === "sort") { T.sortMode = { dealt: "rank", rank: "suit", suit: "dealt" }[sortMode()]; store.set("cp.sort", T.sortMode); render(); }
      else if (a === "decision") { T.decisionIndex = Number(act.dataset.index); T.sig = null; syncStaging(); render(); }
      else if (a === "replay") openReplay(tableId, Number(act.dataset.hand));
      else if (a === "copy-invite") copyText($("#invite-url", app).value);
      return;
    }
    const drop = t.closest("[data-drop]");
    if (drop && drop.dataset.drop !== "hand") moveTo(drop.dataset.drop);
  }
  function onKey(ev) {
    if (ev.target.closest && ev.target.closest("input, textarea, select")) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if ($(".overlay")) return;
    const k = ev.key.toLowerCase();
    const cards = handCards();
    if (/^[0-9]$/.test(k)) {
      const i = k === "0" ? 9 : Number(k) - 1;
      if (cards[i]) { T.selected = T.selected === cards[i] ? null : cards[i]; render(); ev.preventDefault(); }
      return;
    }
    if (k === "arrowright" || k === "arrowleft") {
      if (!cards.length) return;
      const i = cards.indexOf(T.selected);
      const j = i < 0 ? 0 : (i + (k === "arrowright" ? 1 : cards.length - 1)) % cards.length;
      T.selected = cards[j];
      render();
      ev.preventDefault();
      return;
    }
    const map = { t: "top", m: "middle", b: "bottom", x: "discard" };
    if (map[k]) { moveTo(map[k]); ev.preventDefault(); return; }
    if (k === "u" || k === "backspace") { undo(); ev.preventDefault(); return; }
    if (k === "enter") { confirm(); ev.preventDefault(); return; }
    if (k === "escape") { T.selected = null; render(); return; }
    if (k === "h" && decision()) { askHint(false); return; }
    if (k === "a" && decision() && decision().kind === "set") { askHint(true); }
  }
  let dragCard = null;
  function onDragStart(ev) {
    const el = ev.target.closest("[data-pick], [data-unstage]");
    if (!el) return;
    dragCard = el.dataset.pick || el.dataset.unstage;
    ev.dataTransfer.setData("text/plain", dragCard);
    ev.dataTransfer.effectAllowed = "move";
  }
  function onDragOver(ev) {
    const z = ev.target.closest("[data-drop]");
    if (!z) return;
    ev.preventDefault();
    $$(".drop-hover", app).forEach((e) => e !== z && e.classList.remove("drop-hover"));
    z.classList.add("drop-hover");
  }
  function onDragLeave(ev) {
    const z = ev.target.closest("[data-drop]");
    if (z && !z.contains(ev.relatedTarget)) z.classList.remove("drop-hover");
  }
  function onDrop(ev) {
    const z = ev.target.closest("[data-drop]");
    if (!z) return;
    ev.preventDefault();
    const card = ev.dataTransfer.getData("text/plain") || dragCard;
    dragCard = null;
    z.classList.remove("drop-hover");
    if (!card) return;
    if (T.moves.some((m) => m.card === card)) {
      // moving a staged card: take it back first
      const i = T.moves.findIndex((m) => m.card === card);
      const prev = T.moves.splice(i, 1)[0];
      if (z.dataset.drop === "hand") { render(); return; }
      if (room(z.dataset.drop) <= 0) { T.moves.splice(i, 0, prev); moveTo(z.dataset.drop, card); return; }
    }
    if (z.dataset.drop !== "hand") moveTo(z.dataset.drop, card);
  }

  app.addEventListener("click", onClick);
  app.addEventListener("dragstart", onDragStart);
  app.addEventListener("dragover", onDragOver);
  app.addEventListener("dragleave", onDragLeave);
  app.addEventListener("drop", onDrop);
  document.addEventListener("keydown", onKey);
  const tick = setInterval(() => {
    for (const el of $$("[data-timer]", app)) {
      const c = clockFor(Number(el.dataset.timer));
      if (c) { el.textContent = `${Math.ceil(c.left)}s left`; el.classList.toggle("low", c.left < 10); }
    }
    const nx = $("[data-next]", app);
    if (nx && T.nextHandAt) nx.textContent = String(Math.max(0, Math.ceil((T.nextHandAt - performance.now()) / 1000)));
  }, 250);

  render();
  connect();
  T.send = send; T.render = render;
  return {
    stop() {
      T.alive = false;
      clearInterval(tick);
      document.removeEventListener("keydown", onKey);
      app.removeEventListener("click", onClick);
      app.removeEventListener("dragstart", onDragStart);
      app.removeEventListener("dragover", onDragOver);
      app.removeEventListener("dragleave", onDragLeave);
      app.removeEventListener("drop", onDrop);
      if (T.ws) { const ws = T.ws; T.ws = null; ws.close(); }
    },
  };
}

// ============================================================================ replay

function parseHistory(text) {
  return text.split("\n").map((l) => l.trim()).filter(Boolean).map((l) => JSON.parse(l));
}

function replaySteps(rec) {
  const players = rec.players;
  const boards = {};
  const keyOf = (seat, hand) => `${seat}/${hand || 0}`;
  const criss = rec.rules && rec.rules.variant === "criss_cross";
  for (let s = 0; s < players.length; s++) {
    for (const h of criss ? [0, 1] : [0]) boards[keyOf(s, h)] = { seat: s, hand: h, player: players[s], top: [], middle: [], bottom: [], discard: [], notes: [] };
  }
  const clone = () => JSON.parse(JSON.stringify(boards));
  const steps = [{ text: `Hand dealt. Button: ${players[rec.button]}.${Object.keys(rec.fantasyland || {}).length ? ` Fantasyland: ${Object.keys(rec.fantasyland).join(", ")}.` : ""}`, boards: clone() }];
  for (const a of rec.actions || []) {
    const b = boards[keyOf(a.seat, a.hand)];
    if (b && a.type === "place") {
      for (const line of LINES) b[line].push(...(a[line] || []));
      b.discard.push(...(a.discard || []));
    } else if (b && a.type === "surrender") b.notes.push(a.surrender ? "surrendered" : "plays");
    else if (b && a.type === "claim_natural") b.notes.push(a.claim ? "natural declared" : "plays the board");
    else if (b && a.type === "timeout") b.notes.push("timed out");
    steps.push({ text: describeAction(a, players), boards: clone() });
  }
  const totals = rec.totals || {};
  steps.push({ text: `Showdown: ${Object.entries(totals).map(([n, v]) => `${n} ${signed(v)}`).join(", ")}`, boards: clone(), final: true });
  return steps;
}

function replayBoardsHTML(step, rec) {
  return Object.values(step.boards).map((b) => {
    const name = rec.players.length && rec.rules && rec.rules.variant === "criss_cross" ? `${b.player} / hand ${b.hand + 1}` : b.player;
    const total = step.final && b.hand === 0 && rec.totals ? rec.totals[b.player] : undefined;
    const rows = LINES.map((line) => {
      const cards = b[line].map((c) => cardHTML(c)).join("") + Array.from({ length: Math.max(0, SIZES[line] - b[line].length) }, slotHTML).join("");
      return `<div class="line-row"><span class="line-label">${line}</span><div class="cards">${cards}</div></div>`;
    }).join("");
    return `<div class="board-box"><div class="board-head"><span class="name">${esc(name)}</span>${rec.players[rec.button] === b.player ? `<span class="button-chip">D</span>` : ""}${total !== undefined ? `<b class="${signClass(total)}">${signed(total)}</b>` : ""}${b.notes.length ? `<span class="chip">${esc(b.notes.join(", "))}</span>` : ""}</div>${rows}${b.discard.length ? `<div class="muted" style="font-size:12px">discarded: ${esc(b.discard.join(" "))}</div>` : ""}</div>`;
  }).join("");
}

async function openReplay(tableId, hand) {
  let rec;
  try {
    const res = await fetch(`/api/tables/${encodeURIComponent(tableId)}/history?hand=${hand}`);
    if (!res.ok) {
      let data = null;
      try { data = await res.json(); } catch { /* not JSON */ }
      throw new ApiError(plainDetail(res.status, data));
    }
    rec = parseHistory(await res.text())[0];
    if (!rec) throw new ApiError("That hand has no history yet.");
  } catch (err) {
    toast(`Could not load the hand for the replay: ${err.message}`);
    return;
  }
  const steps = replaySteps(rec);
  let i = 0;
  let timer = null;
  const ov = document.createElement("div");
  ov.className = "overlay";
  ov.id = "replay";
  ov.innerHTML = `<div class="dialog" role="dialog" aria-label="Replay of hand ${hand}"><h2>Replay — hand ${hand} <span class="spacer"></span></h2>
    <div class="replay-controls"><button data-r="first" aria-label="First step">|◀</button><button data-r="prev" aria-label="Previous step">◀ Back</button>
    <button data-r="play" id="replay-play">▶ Play</button><button data-r="next" aria-label="Next step" id="replay-next">Next ▶</button><button data-r="last" aria-label="Last step">▶|</button>
    <span class="muted" id="replay-pos"></span><span class="spacer"></span><button data-r="close" id="replay-close">Close</button></div>
    <div class="replay-step" id="replay-step"></div><div class="replay-boards" id="replay-boards"></div>
    <p class="muted" style="font-size:12px">Keys: <kbd>←</kbd>/<kbd>→</kbd> step, <kbd>Esc</kbd> close.</p></div>`;
  document.body.appendChild(ov);
  const show = () => {
    $("#replay-pos", ov).textContent = `step ${i} / ${steps.length - 1}`;
    $("#replay-step", ov).textContent = steps[i].text;
    $("#replay-boards", ov).innerHTML = replayBoardsHTML(steps[i], rec);
  };
  const stopPlay = () => { if (timer) { clearInterval(timer); timer = null; $("#replay-play", ov).textContent = "▶ Play"; } };
  const close = () => { stopPlay(); ov.remove(); document.removeEventListener("keydown", key, true); };
  const go = (j) => { i = Math.max(0, Math.min(steps.length - 1, j)); show(); };
  function key(ev) {
    if (ev.key === "ArrowRight") { go(i + 1); ev.preventDefault(); ev.stopPropagation(); }
    else if (ev.key === "ArrowLeft") { go(i - 1); ev.preventDefault(); ev.stopPropagation(); }
    else if (ev.key === "Escape") { close(); ev.stopPropagation(); }
  }
  document.addEventListener("keydown", key, true);
  ov.addEventListener("click", (ev) => {
    if (ev.target === ov) { close(); return; }
    const b = ev.target.closest("[data-r]");
    if (!b) return;
    const r = b.dataset.r;
    if (r === "first") go(0);
    else if (r === "prev") go(i - 1);
    else if (r === "next") go(i + 1);
    else if (r === "last") go(steps.length - 1);
    else if (r === "close") close();
    else if (r === "play") {
      if (timer) { stopPlay(); return; }
      b.textContent = "Pause";
      timer = setInterval(() => { if (i >= steps.length - 1) stopPlay(); else go(i + 1); }, 900);
    }
  });
  show();
}

function replayPage(app, tableId, hand) {
  app.innerHTML = `<div class="panel"><h2>Hands of the table</h2><div id="replay-list" class="muted">Loading…</div></div>`;
  let alive = true;
  (async () => {
    try {
      const [info, hands] = await Promise.all([api("GET", `/api/tables/${encodeURIComponent(tableId)}`), api("GET", `/api/tables/${encodeURIComponent(tableId)}/hands`)]);
      if (!alive) return;
      const finished = hands.filter((h) => h.finished);
      const base = `/api/tables/${encodeURIComponent(tableId)}/history`;
      $("#replay-list", app).innerHTML = `<p><b>${esc(info.name)}</b> · ${esc(info.preset)} · ${esc(info.status)}</p>` + (finished.length
        ? `<ul class="hands-list">${finished.map((h) => `<li><span>Hand ${h.hand}</span><button class="small" data-hand="${h.hand}">▶ Replay</button><a href="${base}?hand=${h.hand}" download><button class="small" type="button">⬇ history</button></a></li>`).join("")}</ul><p><a href="${base}" download="${esc(tableId)}-history.jsonl">Download the whole history</a></p>`
        : "<p>No finished hand yet.</p>");
      if (hand) openReplay(tableId, Number(hand));
    } catch (err) {
      $("#replay-list", app).innerHTML = `<p class="warning">${esc(err.message)}</p>`;
    }
  })();
  const onClick = (ev) => { const b = ev.target.closest("[data-hand]"); if (b) openReplay(tableId, Number(b.dataset.hand)); };
  app.addEventListener("click", onClick);
  return { stop() { alive = false; app.removeEventListener("click", onClick); } };
}

// ============================================================================ start

function applyFourColour(on) {
  document.body.classList.toggle("four-colour", on);
  store.set("cp.fourColour", on);
}
const fc = $("#four-colour");
fc.checked = !!store.get("cp.fourColour", false);
applyFourColour(fc.checked);
fc.addEventListener("change", () => applyFourColour(fc.checked));
window.addEventListener("unhandledrejection", (ev) => {
  toast(`Something went wrong: ${ev.reason && ev.reason.message ? ev.reason.message : ev.reason}`);
});
route();
