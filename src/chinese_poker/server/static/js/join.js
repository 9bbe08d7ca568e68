// The join page of an invite link: name, code, seat; or one clear message and a way on.

import { $, deadEndHTML } from "./ui.js";
import { api, getSeat, saveSeat } from "./net.js";
import { esc, store } from "./util.js";
import { botWords, gameName } from "./words.js";
import { t } from "./i18n.js";

export function joinScreen(app, tableId, code, navigate) {
  const mine = getSeat(tableId);
  const idq = esc(encodeURIComponent(tableId));
  app.innerHTML = `<div class="panel join-box" id="join-panel"><h2>${esc(t("join.title"))}</h2><div id="join-info" class="muted">${esc(t("common.loading"))}</div></div>`;
  let alive = true;
  const formHTML = (info, free) => `
    <form id="join-form" class="form-grid" style="margin-top:10px">
      <label for="j-name">${esc(t("lobby.your_name"))}</label><input id="j-name" type="text" maxlength="30" value="${esc(store.get("cp.name", ""))}" placeholder="${esc(t("lobby.your_name"))}" required>
      <label for="j-code">${esc(t("join.code"))}</label><input id="j-code" type="text" value="${esc(code)}" required>
      <label for="j-seat">${esc(t("join.seat"))}</label><select id="j-seat"><option value="">${esc(t("join.first_free"))}</option>${free.map((s) => `<option value="${s.seat}">${esc(t("seat.n", { n: s.seat + 1 }))}</option>`).join("")}</select>
      <span></span><div id="join-error" class="warning" hidden></div>
      <span></span><div class="actions-bar"><button type="submit" class="primary" id="join-btn">${esc(t("join.join"))}</button>
      ${mine && mine.token ? `<a href="/table/${idq}" data-link><button type="button" id="resume-btn">${esc(t("join.resume"))}</button></a>` : ""}
      ${info.spectators ? `<a href="/watch/${idq}" data-link><button type="button" id="watch-btn">${esc(t("join.watch"))}</button></a>` : ""}</div>
    </form>`;
  (async () => {
    let info;
    try {
      info = await api("GET", `/api/tables/${encodeURIComponent(tableId)}`);
    } catch (err) {
      if (!alive) return;
      $("#join-panel", app).outerHTML = deadEndHTML(esc, err.status === 404 ? t("join.gone") : err.message, ["lobby"], tableId);
      return;
    }
    if (!alive) return;
    const free = info.seats.filter((s) => s.kind === "human" && !s.taken);
    const summary = `<b>${esc(info.name)}</b> · ${esc(gameName(info.preset))} · ${esc(info.mode === "tournament" ? t("table.tournament") : t("join.cash"))} · ${esc(info.time_limit ? t("join.per_move", { s: info.time_limit }) : t("clock.none"))}<br>
      ${esc(t("join.seats"))} ${info.seats.map((s) => (s.taken ? `${esc(s.name)}${s.kind === "bot" ? ` (${esc(t("join.bot_of", { level: botWords(s.bot, s.level) }))})` : ""}` : `<i>${esc(t("table.free"))}</i>`)).join(", ")}`;
    if (mine && mine.token && info.status !== "finished") {
      navigate(`/table/${encodeURIComponent(tableId)}`, true); // this browser holds a seat here already
      return;
    }
    if (info.status === "finished" || info.session_over) {
      $("#join-panel", app).outerHTML = deadEndHTML(esc, t("join.finished"), ["lobby", info.hands_played ? "hands" : null].filter(Boolean), tableId);
      return;
    }
    if (!free.length) {
      const text = info.spectators ? t("join.full_watch") : t("join.full");
      $("#join-panel", app).outerHTML = deadEndHTML(esc, text, info.spectators ? ["watch", "lobby"] : ["lobby"], tableId);
      return;
    }
    $("#join-info", app).innerHTML = summary;
    $("#join-panel", app).insertAdjacentHTML("beforeend", formHTML(info, free));
    $("#join-form", app).onsubmit = submit;
  })();
  async function submit(ev) {
    ev.preventDefault();
    const name = $("#j-name", app).value.trim();
    const seat = $("#j-seat", app).value;
    if (name) store.set("cp.name", name);
    const err = $("#join-error", app);
    err.hidden = true;
    $("#join-btn", app).disabled = true;
    try {
      const joined = await api("POST", `/api/tables/${encodeURIComponent(tableId)}/join`, { code: $("#j-code", app).value.trim(), name, seat: seat === "" ? null : Number(seat) });
      saveSeat(tableId, { token: joined.token, seat: joined.seat, player: joined.player });
      navigate(`/table/${encodeURIComponent(tableId)}`, true);
    } catch (e) {
      // One message, in the form, where the player is looking.
      err.textContent = t("join.failed", { reason: e.message });
      err.hidden = false;
      $("#join-btn", app).disabled = false;
    }
  }
  return { stop() { alive = false; } };
}
