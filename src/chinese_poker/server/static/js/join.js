// @ts-check
// The join page of an invite link: name, code, seat; or one clear message and a way on.

import { $, deadEndHTML } from "./ui.js";
import { api, getSeat, saveSeat } from "./net.js";
import { appendHTML, html, joinHTML, replaceHTML, setHTML, store } from "./util.js";
import { botWords, gameName } from "./words.js";
import { t } from "./i18n.js";
import { nameToPlay, offerSavedName } from "./identity.js";

export function joinScreen(app, tableId, code, navigate) {
  const mine = getSeat(tableId);
  const idq = encodeURIComponent(tableId);
  setHTML(app, html`<div class="panel join-box" id="join-panel"><h2>${t("join.title")}</h2><div id="join-info" class="muted">${t("common.loading")}</div></div>`);
  let alive = true;
  let firstFree = 0; // the seat a join without a chosen seat takes
  const formHTML = (info, free) => html`
    <form id="join-form" class="form-grid" style="margin-top:10px">
      <label for="j-name">${t("lobby.your_name")}</label><input id="j-name" type="text" maxlength="40" value="${store.get("cp.name", "")}" placeholder="${t("lobby.your_name")}" required>
      <label for="j-code">${t("join.code")}</label><input id="j-code" type="text" value="${code}" required>
      <label for="j-seat">${t("join.seat")}</label><select id="j-seat"><option value="">${t("join.first_free")}</option>${free.map((s) => html`<option value="${s.seat}">${t("seat.n", { n: s.seat + 1 })}</option>`)}</select>
      <span></span><div id="join-error" class="warning" hidden></div>
      <span></span><div class="actions-bar"><button type="submit" class="primary" id="join-btn">${t("join.join")}</button>
      ${mine && mine.token ? html`<a href="/table/${idq}" data-link><button type="button" id="resume-btn">${t("join.resume")}</button></a>` : ""}
      ${info.spectators ? html`<a href="/watch/${idq}" data-link><button type="button" id="watch-btn">${t("join.watch")}</button></a>` : ""}</div>
    </form>`;
  (async () => {
    let info;
    try {
      info = await api("GET", `/api/tables/${encodeURIComponent(tableId)}`);
    } catch (err) {
      if (!alive) return;
      replaceHTML($("#join-panel", app), deadEndHTML(err.status === 404 ? t("join.gone") : err.message, ["lobby"], tableId));
      return;
    }
    if (!alive) return;
    const free = info.seats.filter((s) => s.kind === "human" && !s.taken);
    if (free.length) firstFree = free[0].seat;
    const summary = html`<b>${info.name}</b> · ${gameName(info.preset)} · ${info.mode === "tournament" ? t("table.tournament") : t("join.cash")} · ${info.time_limit ? t("join.per_move", { s: info.time_limit }) : t("clock.none")}<br>
      ${t("join.seats")} ${joinHTML(info.seats.map((s) => (s.taken ? html`${s.name}${s.kind === "bot" ? html` (${t("join.bot_of", { level: botWords(s.bot, s.level) })})` : ""}` : html`<i>${t("table.free")}</i>`)), ", ")}`;
    if (mine && mine.token && info.status !== "finished") {
      navigate(`/table/${encodeURIComponent(tableId)}`, true); // this browser holds a seat here already
      return;
    }
    if (info.status === "finished" || info.session_over) {
      replaceHTML($("#join-panel", app), deadEndHTML(t("join.finished"), ["lobby", info.hands_played ? "hands" : null].filter(Boolean), tableId));
      return;
    }
    if (!free.length) {
      const text = info.spectators ? t("join.full_watch") : t("join.full");
      replaceHTML($("#join-panel", app), deadEndHTML(text, info.spectators ? ["watch", "lobby"] : ["lobby"], tableId));
      return;
    }
    setHTML($("#join-info", app), summary);
    appendHTML($("#join-panel", app), formHTML(info, free));
    offerSavedName(app, "#j-name"); // the profile's name when none was typed here before
    $("#join-form", app).onsubmit = submit;
  })();
  async function submit(ev) {
    ev.preventDefault();
    const typed = $("#j-name", app).value.trim();
    const seat = $("#j-seat", app).value;
    if (typed) store.set("cp.name", typed);
    // No name typed (only spaces): the profile's, else "Player N" in the player's
    // language, not the server's English default.
    const name = await nameToPlay(typed, t("lobby.player_n", { n: (seat === "" ? firstFree : Number(seat)) + 1 }));
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
