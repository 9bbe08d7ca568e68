// @ts-check
// The front page: one-click play (a bot or a friend), joining by link or code, the
// custom table form with every option, and the list of tables.

import { $, $$, copyText, toast } from "./ui.js";
import { api, getSeat, inviteTarget, saveSeat } from "./net.js";
import { html, joinHTML, setHTML, store } from "./util.js";
import { CLOCKS, STRENGTHS, TIMEOUT_POLICIES, botWords, choiceWords, gameHelp, gameName, optionHelp, optionLabel, optionWords, rulePresets, setRuleWords, statusName } from "./words.js";
import { parseValue, presetCounts, quickTable } from "./tableplan.js";
import { asMe, nameToPlay, offerSavedName } from "./identity.js";
import { t } from "./i18n.js";

const presetName = (p) => p.name || p.preset || p.id;
const gameOptions = (presets, selected) => presets.map((p) => {
  const n = presetName(p);
  return html`<option value="${n}" ${n === selected ? "selected" : ""}>${gameName(n)}</option>`;
});

export function lobbyScreen(app, navigate) {
  // The games are the server's presets (loaded by app.js; again below if that failed).
  const L = { presets: rulePresets(), timer: null, alive: true };
  const saved = store.get("cp.lobby", {});
  const quick = store.get("cp.quick", { game: "pineapple", strength: "casual", clock: "30" });
  const myName = store.get("cp.name", "");
  setHTML(app, html`
  <div class="lobby">
    <section>
      <div class="panel" id="quick-panel">
        <h2>${t("lobby.play_now")}</h2>
        <div class="form-grid">
          <label for="q-name">${t("lobby.your_name")}</label><input id="q-name" type="text" value="${myName}" placeholder="${t("lobby.player1")}" maxlength="40">
          <label for="q-game">${t("lobby.game")}</label><div><select id="q-game"></select><div class="help" id="q-game-help"></div></div>
          <label for="q-strength">${t("lobby.bot")}</label><div><select id="q-strength">${STRENGTHS.map((s) => html`<option value="${s.id}" ${s.id === quick.strength ? "selected" : ""}>${s.label}</option>`)}</select><div class="help" id="q-strength-help"></div></div>
          <label for="q-clock">${t("lobby.clock")}</label><div><select id="q-clock">${CLOCKS.map((c) => html`<option value="${c.id}" ${c.id === quick.clock ? "selected" : ""}>${c.label}</option>`)}</select><div class="help" id="q-clock-help"></div></div>
        </div>
        <div class="actions-bar big">
          <button type="button" class="primary" id="play-bot">${t("lobby.play_bot")}</button>
          <button type="button" class="primary" id="play-friend">${t("lobby.play_friend")}</button>
        </div>
        <p class="help">${t("lobby.play_help")}</p>
        <div id="created"></div>
      </div>
      <div class="panel" id="online-bots">
        <h2>${t("lobby.bots_online")}</h2>
        <p class="help">${t("lobby.bots_online_help")}</p>
        <div id="online-bots-list"><p class="muted">${t("common.loading")}</p></div>
      </div>
      <div class="panel">
        <h2>${t("lobby.join_friend")}</h2>
        <form id="invite-form" class="invite"><input id="invite-input" type="text" placeholder="${t("lobby.paste_invite")}" aria-label="${t("lobby.invite_link")}"><button type="submit">${t("lobby.open")}</button></form>
      </div>
      <div class="panel">
        <h2>${t("lobby.tables")} <button class="small" id="refresh-tables" type="button" title="${t("lobby.refresh")}">↻</button></h2>
        <div id="tables"><p class="muted">${t("common.loading")}</p></div>
      </div>
    </section>
    <section class="panel" id="create-panel">
      <details id="custom" ${saved.open ? "open" : ""}><summary><h2>${t("lobby.custom")}</h2><span class="muted">${t("lobby.custom_sub")}</span></summary>
      <form id="create-form" autocomplete="off">
        <div class="form-grid">
          <label for="f-name">${t("lobby.table_name")}</label><input id="f-name" name="name" type="text" placeholder="${t("lobby.table_name_example")}" maxlength="60">
          <label for="f-player">${t("lobby.your_name")}</label><input id="f-player" name="player" type="text" value="${myName}" placeholder="${t("lobby.player1")}" maxlength="40">
          <label for="f-preset">${t("lobby.game")}</label><select id="f-preset" name="preset"></select>
          <span></span><div class="rules-summary help" id="f-preset-summary"></div>
          <label for="f-count">${t("lobby.players")}</label><select id="f-count" name="count"></select>
          <label>${t("lobby.seats")}</label><div id="f-seats"></div>
          <label>${t("lobby.rule_changes")}</label>
          <div><div id="f-options"></div><button type="button" class="small" id="f-add-option">+ ${t("lobby.change_rule")}</button></div>
          <label for="f-time">${t("lobby.seconds_move")}</label><div><input id="f-time" name="time_limit" type="number" min="1" step="1" placeholder="${t("lobby.no_clock")}"><div class="help">${t("lobby.seconds_help")}</div></div>
          <label for="f-bank">${t("lobby.bank")}</label><div><input id="f-bank" type="number" min="0" step="1" value="60"><div class="help">${t("lobby.bank_help")}</div></div>
          <label for="f-timeouts">${t("lobby.timeouts")}</label><div><select id="f-timeouts">${Object.entries(TIMEOUT_POLICIES).map(([k, [label]]) => html`<option value="${k}">${label}</option>`)}</select><div class="help" id="f-timeouts-help"></div></div>
          <label for="f-grace">${t("lobby.grace")}</label><div><input id="f-grace" type="number" min="0" max="3600" step="1" value="30"><div class="help">${t("lobby.grace_help")}</div></div>
          <label for="f-mode">${t("lobby.mode")}</label>
          <div><select id="f-mode" name="mode"><option value="continuous">${t("lobby.mode_continuous")}</option><option value="session">${t("lobby.mode_session")}</option><option value="tournament">${t("lobby.mode_tournament")}</option></select></div>
          <label class="tourn" for="f-chips">${t("lobby.chips")}</label><input class="tourn" id="f-chips" type="number" min="1" placeholder="1000">
          <label class="tourn" for="f-levels">${t("lobby.levels")}</label><input class="tourn" id="f-levels" type="number" min="1" placeholder="${t("lobby.levels_placeholder")}">
          <label>${t("lobby.settings")}</label>
          <div>
            <label class="toggle"><input type="checkbox" id="f-hints" checked> ${t("lobby.hints_allowed")}</label>
            <label class="toggle"><input type="checkbox" id="f-spect" checked> ${t("lobby.spectators_allowed")}</label>
            <label class="toggle"><input type="checkbox" id="f-spect-chat"> ${t("lobby.spectator_chat")}</label>
          </div>
          <label for="f-botdelay">${t("lobby.bot_delay")}</label><input id="f-botdelay" type="number" min="0" max="10" step="0.1" value="0.5">
          <label for="f-nextdelay">${t("lobby.next_delay")}</label><input id="f-nextdelay" type="number" min="0" max="60" step="0.5" value="5">
        </div>
        <div class="actions-bar"><button type="submit" class="primary" id="create-btn">${t("lobby.create")}</button></div>
      </form>
      </details>
    </section>
  </div>`);

  const form = $("#create-form", app);
  const presetSel = $("#f-preset", app);
  const countSel = $("#f-count", app);
  const seatsBox = $("#f-seats", app);
  const optionsBox = $("#f-options", app);
  const currentPreset = () => L.presets.find((p) => presetName(p) === presetSel.value) || { name: presetSel.value };
  if (!myName) offerSavedName(app, "#q-name", "#f-player"); // the profile's name, saved elsewhere

  // ---------------------------------------------------------------- play now
  const quickHelp = () => {
    $("#q-game-help", app).textContent = gameHelp($("#q-game", app).value);
    $("#q-strength-help", app).textContent = (STRENGTHS.find((s) => s.id === $("#q-strength", app).value) || {}).help || "";
    $("#q-clock-help", app).textContent = (CLOCKS.find((c) => c.id === $("#q-clock", app).value) || {}).help || "";
  };
  for (const id of ["#q-game", "#q-strength", "#q-clock"]) $(id, app).addEventListener("change", quickHelp);

  async function playNow(friend) {
    const typed = $("#q-name", app).value.trim();
    if (typed) store.set("cp.name", typed);
    const name = await nameToPlay(typed, t("lobby.player1"));
    const choice = { game: $("#q-game", app).value, strength: $("#q-strength", app).value, clock: $("#q-clock", app).value };
    store.set("cp.quick", choice);
    const body = quickTable({ ...choice, name, friend });
    for (const b of ["#play-bot", "#play-friend"]) $(b, app).disabled = true;
    try {
      await created(await api("POST", "/api/tables", body), friend ? 2 : 1);
    } catch (err) {
      toast(t("lobby.open_failed", { reason: err.message }));
    } finally {
      for (const b of ["#play-bot", "#play-friend"]) if ($(b, app)) $(b, app).disabled = false;
    }
  }
  $("#play-bot", app).onclick = () => playNow(false);
  $("#play-friend", app).onclick = () => playNow(true);

  async function created(made, humans) {
    const id = made.table.id;
    saveSeat(id, { token: made.token, seat: made.seat, player: (made.table.seats[made.seat] || {}).name, invite_url: made.invite_url, join_code: made.join_code, creator: true });
    if (humans <= 1) { navigate(`/table/${encodeURIComponent(id)}`); return; }
    setHTML($("#created", app), html`<div class="created-box">
      <b>${t("lobby.table_open")}</b> ${t("lobby.send_link", { n: humans - 1 })}
      <div class="invite"><input id="invite-url" type="text" readonly value="${made.invite_url}" aria-label="${t("lobby.invite_link")}"><button type="button" id="copy-invite">${t("common.copy")}</button></div>
      <div class="actions-bar"><a class="button" href="/table/${encodeURIComponent(id)}" data-link><button type="button" class="primary" id="go-table">${t("lobby.go_table")}</button></a></div>
    </div>`);
    $("#copy-invite", app).onclick = () => copyText(made.invite_url);
    $("#created", app).scrollIntoView({ block: "nearest" });
    loadTables();
  }

  // ---------------------------------------------------------------- bots online
  // Bot accounts connected now that accept the game chosen above; a challenge opens a
  // table with this person and the bot, on the clock chosen above (a bot always has one).
  async function loadOnlineBots() {
    const game = $("#q-game", app).value || quick.game;
    let bots;
    try { bots = await api("GET", `/api/bots/online?preset=${encodeURIComponent(game)}`); } catch { return; }
    if (!L.alive) return;
    setHTML($("#online-bots-list", app), bots.length
      ? html`<ul class="online-bots">${bots.map((b) => html`<li data-bot="${b.id}"><a href="/profile/${encodeURIComponent(b.id)}" data-link><b>${b.name}</b></a> <span class="muted">${b.description}</span> <button type="button" class="small primary challenge" data-bot="${b.id}">${t("lobby.challenge")}</button></li>`)}</ul>`
      : html`<p class="muted">${t("lobby.bots_none")}</p>`);
  }
  $("#online-bots-list", app).addEventListener("click", async (ev) => {
    const button = ev.target.closest && ev.target.closest("button.challenge");
    if (!button) return;
    const typed = $("#q-name", app).value.trim();
    const clock = CLOCKS.find((c) => c.id === $("#q-clock", app).value);
    const body = { preset: $("#q-game", app).value, time_limit: (clock && clock.time_limit) || 60, name: await nameToPlay(typed, t("lobby.player1")) };
    button.disabled = true;
    try {
      await created(await asMe("POST", `/api/bots/${encodeURIComponent(button.dataset.bot)}/challenge`, body), 1);
    } catch (err) {
      toast(t("lobby.open_failed", { reason: err.message }));
      button.disabled = false;
    }
  });
  $("#q-game", app).addEventListener("change", loadOnlineBots);

  // ---------------------------------------------------------------- custom table
  function fillPresets() {
    if (!L.presets.length) return;
    const q = $("#q-game", app);
    const qv = q.value || quick.game;
    setHTML(q, html`${gameOptions(L.presets, L.presets.some((p) => presetName(p) === qv) ? qv : "pineapple")}`);
    const pv = saved.preset && L.presets.some((p) => presetName(p) === saved.preset) ? saved.preset : "pineapple";
    setHTML(presetSel, html`${gameOptions(L.presets, presetSel.value || pv)}`);
    if (!presetSel.value) presetSel.value = presetName(L.presets[0]);
    quickHelp();
    onPreset();
  }

  function onPreset() {
    const p = currentPreset();
    const counts = presetCounts(p);
    const prev = Number(countSel.value) || saved.count || 2;
    setHTML(countSel, html`${counts.map((c) => html`<option value="${c}">${c}</option>`)}`);
    countSel.value = String(counts.includes(prev) ? prev : counts[0]);
    $("#f-preset-summary", app).textContent = gameHelp(presetSel.value);
    renderSeats();
    $$(".option-row", optionsBox).forEach((row) => fillOptionNames($(".o-name", row)));
  }

  function strengthOptions(selected) {
    return STRENGTHS.map((s) => html`<option value="${s.id}" ${s.id === selected ? "selected" : ""} title="${s.help}">${s.label}</option>`);
  }

  function renderSeats() {
    const n = Number(countSel.value) || 2;
    const old = $$(".seat-row", seatsBox).map((row) => ({ kind: $(".s-kind", row).value, name: $(".s-name", row).value, bot: $(".s-bot", row).value }));
    const defaults = saved.seats || [];
    const rows = [];
    for (let i = 0; i < n; i++) {
      const s = old[i] || defaults[i] || { kind: i === 0 ? "human" : "bot", name: "", bot: "casual" };
      const you = i === 0;
      rows.push(html`<div class="seat-row" data-seat="${i}">
        <span class="seat-no">${t("lobby.seat_n", { n: i + 1 })}</span>
        <select class="s-kind" aria-label="${t("lobby.seat_player", { n: i + 1 })}" ${you ? "disabled" : ""}>
          <option value="human" ${s.kind === "human" ? "selected" : ""}>${you ? t("lobby.you") : t("lobby.a_friend")}</option>
          <option value="bot" ${s.kind === "bot" && !you ? "selected" : ""}>${t("lobby.bot")}</option>
        </select>
        <input class="s-name" type="text" placeholder="${t("lobby.name_optional")}" value="${you ? "" : s.name}" ${you ? "hidden" : ""} aria-label="${t("lobby.seat_name", { n: i + 1 })}">
        <select class="s-bot" aria-label="${t("lobby.seat_bot", { n: i + 1 })}">${strengthOptions(STRENGTHS.some((x) => x.id === s.bot) ? s.bot : "casual")}</select>
      </div>`);
    }
    setHTML(seatsBox, html`${rows}`);
    $$(".seat-row", seatsBox).forEach(updateSeatRow);
  }

  function updateSeatRow(row) {
    $(".s-bot", row).hidden = $(".s-kind", row).value !== "bot";
  }

  function optionNames() {
    const p = currentPreset();
    return p.rules ? Object.keys(p.rules).filter((k) => k !== "variant" && k !== "time_limit") : [];
  }

  function fillOptionNames(sel) {
    const cur = sel.value;
    setHTML(sel, html`${optionNames().map((k) => html`<option value="${k}" ${k === cur ? "selected" : ""}>${optionLabel(k)}</option>`)}`);
    showOptionDefault(sel.closest(".option-row"));
  }

  /** The value control of a rule change: the option's choices in words (from the
   * server's catalogue) where it has closed choices, a text field otherwise. */
  function showOptionDefault(row) {
    const p = currentPreset();
    const name = $(".o-name", row).value;
    const def = p.rules ? p.rules[name] : undefined;
    const now = def === undefined ? "" : typeof def === "object" ? JSON.stringify(def) : String(def);
    const o = optionWords(name);
    const old = $(".o-value", row);
    let control;
    if (o && o.kind !== "value" && o.choices.length) {
      control = document.createElement("select");
      setHTML(control, html`${o.choices.map((c) => html`<option value="${c.value}" ${c.value === now ? "selected" : ""}>${choiceWords(name, c.value)}${c.value === now ? html` ${t("lobby.now_mark")}` : ""}</option>`)}`);
    } else {
      control = document.createElement("input");
      control.type = "text";
      control.placeholder = now === "" ? t("lobby.value") : t("lobby.now", { value: now });
      if (old && old.tagName === "INPUT") control.value = old.value;
    }
    control.className = "o-value";
    control.setAttribute("aria-label", t("lobby.value"));
    if (old) old.replaceWith(control); else $(".o-name", row).after(control);
    $(".help", row).textContent = optionHelp(name);
  }

  function addOption(name = "", value = "") {
    const row = document.createElement("div");
    row.className = "option-row";
    setHTML(row, html`<select class="o-name" aria-label="${t("lobby.rule")}"></select><input class="o-value" type="text" aria-label="${t("lobby.value")}" value="${value}"><button type="button" class="small" aria-label="${t("lobby.remove_change")}">×</button><div class="help"></div>`);
    optionsBox.appendChild(row);
    const sel = $(".o-name", row);
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
  const timeoutsSel = $("#f-timeouts", app);
  const showMode = () => {
    $$(".tourn", app).forEach((el) => { el.hidden = modeSel.value !== "tournament"; });
    $("#f-timeouts-help", app).textContent = TIMEOUT_POLICIES[timeoutsSel.value][1];
  };
  modeSel.onchange = () => { timeoutsSel.value = modeSel.value === "tournament" ? "hand" : "decision"; showMode(); };
  timeoutsSel.onchange = showMode;
  showMode();
  $("#custom", app).addEventListener("toggle", () => store.set("cp.lobby", { ...store.get("cp.lobby", {}), open: $("#custom", app).open }));

  form.onsubmit = async (ev) => {
    ev.preventDefault();
    const player = $("#f-player", app).value.trim();
    if (player) store.set("cp.name", player);
    const you = await nameToPlay(player, t("lobby.player1"));
    const options = {};
    for (const row of $$(".option-row", optionsBox)) {
      const key = $(".o-name", row).value;
      const o = optionWords(key);
      const text = $(".o-value", row).value;
      // A choice is sent as the option's own value (yes/no as true/false).
      const value = o && o.kind === "yes_no" ? text === "true" : o && o.kind === "choice" ? text : parseValue(text);
      if (value !== null) options[key] = value;
    }
    const mode = modeSel.value === "continuous" ? "session" : modeSel.value;
    const hands = modeSel.value === "continuous" ? "continuous" : "orbit";
    const chips = $("#f-chips", app).value;
    if (mode === "tournament" && chips) options.starting_chips = Number(chips);
    const seats = $$(".seat-row", seatsBox).map((row, i) => {
      if (i === 0) return { kind: "human", name: you };
      const name = $(".s-name", row).value.trim();
      if ($(".s-kind", row).value === "human") return name ? { kind: "human", name } : { kind: "human" };
      const st = STRENGTHS.find((x) => x.id === $(".s-bot", row).value) || STRENGTHS[1];
      const seat = { kind: "bot", bot: st.bot };
      if (st.level !== null) seat.level = st.level;
      if (name) seat.name = name;
      return seat;
    });
    const time = $("#f-time", app).value;
    const grace = $("#f-grace", app).value;
    const body = {
      name: $("#f-name", app).value.trim() || t("lobby.default_table_name", { game: gameName(presetSel.value) }),
      preset: presetSel.value,
      options,
      seats,
      time_limit: time ? Number(time) : null,
      time_bank: time ? Number($("#f-bank", app).value || 0) : 0,
      timeouts: timeoutsSel.value,
      grace: grace === "" ? null : Number(grace),
      mode,
      hands,
      tournament: mode === "tournament" ? { stacks: null, level_hands: $("#f-levels", app).value ? Number($("#f-levels", app).value) : null } : null,
      hints: $("#f-hints", app).checked,
      spectators: $("#f-spect", app).checked,
      spectator_chat: $("#f-spect-chat", app).checked,
      bot_delay: Number($("#f-botdelay", app).value || 0),
      next_hand_delay: Number($("#f-nextdelay", app).value || 0),
      join: true,
    };
    store.set("cp.lobby", { open: true, preset: body.preset, count: seats.length, seats: $$(".seat-row", seatsBox).map((row) => ({ kind: $(".s-kind", row).value, name: $(".s-name", row).value, bot: $(".s-bot", row).value })) });
    const btn = $("#create-btn", app);
    btn.disabled = true;
    try {
      const made = await api("POST", "/api/tables", body);
      await created(made, seats.filter((s) => s.kind === "human").length);
    } catch (err) {
      toast(t("lobby.create_failed", { reason: err.message }));
    } finally {
      btn.disabled = false;
    }
  };

  // ---------------------------------------------------------------- joining
  $("#invite-form", app).onsubmit = (ev) => {
    ev.preventDefault();
    const path = inviteTarget($("#invite-input", app).value, null, location.href);
    if (path) navigate(path);
    else toast(t("lobby.not_invite"));
  };

  async function loadTables() {
    const box = $("#tables", app);
    if (box.querySelector(".code-form input:focus")) return; // do not wipe a code being typed
    try {
      const tables = await api("GET", "/api/tables");
      if (!L.alive) return;
      if (!tables.length) { setHTML(box, html`<p class="muted">${t("lobby.no_tables")}</p>`); return; }
      setHTML(box, html`<table class="table-list"><thead><tr><th>${t("table.table")}</th><th>${t("lobby.game")}</th><th>${t("lobby.seats")}</th><th></th></tr></thead><tbody>${tables.map((tb) => {
        const mine = getSeat(tb.id);
        const taken = tb.seats.filter((s) => s.taken).length;
        const who = joinHTML(tb.seats.map((s) => (s.taken ? html`${s.name || "?"}${s.kind === "bot" ? html` (${t("join.bot_of", { level: botWords(s.bot, s.level) })})` : ""}` : html`<i class='muted'>${t("table.free")}</i>`)), ", ");
        const acts = [];
        const idq = encodeURIComponent(tb.id);
        if (mine && mine.token && tb.status !== "finished") acts.push(html`<a href="/table/${idq}" data-link><button class="small primary" type="button">${t("lobby.resume")}</button></a>`);
        else if (tb.status === "waiting" && taken < tb.seats.length) acts.push(html`<button class="small" type="button" data-join="${tb.id}">${t("lobby.join_ellipsis")}</button>`);
        if (tb.spectators) acts.push(html`<a href="/watch/${idq}" data-link><button class="small" type="button">${t("lobby.watch")}</button></a>`);
        if (tb.hands_played > 0) acts.push(html`<a href="/?hands=${idq}" data-link><button class="small" type="button">${t("hands.title")}</button></a>`);
        return html`<tr data-table="${tb.id}"><td><b>${tb.name}</b><br><span class="status ${tb.status}">${statusName(tb.status)}</span> <span class="muted">${tb.time_limit ? t("join.per_move", { s: tb.time_limit }) : t("lobby.no_clock")}</span></td><td>${gameName(tb.preset)}<br><span class="muted">${tb.mode === "tournament" ? t("table.tournament") : t("join.cash")}${tb.hand ? html` · ${t("board.hand_n", { n: tb.hand })}` : ""}</span></td><td>${taken}/${tb.seats.length}<br><span class="muted">${who}</span></td><td class="actions">${joinHTML(acts, " ")}</td></tr>`;
      })}</tbody></table>`);
    } catch (err) {
      setHTML(box, html`<p class="warning">${t("lobby.tables_failed", { reason: err.message })}</p>`);
    }
  }
  $("#tables", app).addEventListener("click", (ev) => {
    const b = ev.target.closest("[data-join]");
    if (!b) return;
    // The join code typed in the page, in the table's row (no browser prompt).
    const td = b.closest("td");
    setHTML(td, html`<form class="code-form invite" data-table="${b.dataset.join}"><input type="text" class="code-input" placeholder="${t("lobby.join_code_placeholder")}" aria-label="${t("join.code")}" required><button type="submit" class="small primary">${t("join.join")}</button></form>`);
    $("input", td).focus();
  });
  $("#tables", app).addEventListener("submit", (ev) => {
    const f = ev.target.closest(".code-form");
    if (!f) return;
    ev.preventDefault();
    const path = inviteTarget($("input", f).value, f.dataset.table, location.href);
    if (path) navigate(path);
    else toast(t("lobby.type_code"));
  });
  $("#refresh-tables", app).onclick = loadTables;

  (async () => {
    const presets = await Promise.allSettled([api("GET", "/api/presets")]);
    if (!L.alive) return;
    const p = presets[0];
    if (p.status === "fulfilled" && Array.isArray(p.value) && p.value.length) { L.presets = p.value; setRuleWords({ presets: p.value }); }
    else if (p.status === "rejected") toast(t("lobby.presets_failed", { reason: p.reason.message }));
    fillPresets();
  })();
  fillPresets();
  loadTables();
  loadOnlineBots();
  L.timer = setInterval(() => { loadTables(); loadOnlineBots(); }, 5000);
  return { stop() { L.alive = false; clearInterval(L.timer); } };
}
