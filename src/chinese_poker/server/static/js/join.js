// The join page of an invite link: name, code, seat; or one clear message and a way on.

import { $, deadEndHTML } from "./ui.js";
import { api, getSeat, saveSeat } from "./net.js";
import { esc, store } from "./util.js";
import { botWords, gameName } from "./words.js";

export function joinScreen(app, tableId, code, navigate) {
  const mine = getSeat(tableId);
  const idq = esc(encodeURIComponent(tableId));
  app.innerHTML = `<div class="panel join-box" id="join-panel"><h2>Join a table</h2><div id="join-info" class="muted">Loading…</div></div>`;
  let alive = true;
  const formHTML = (t, free) => `
    <form id="join-form" class="form-grid" style="margin-top:10px">
      <label for="j-name">Your name</label><input id="j-name" type="text" maxlength="30" value="${esc(store.get("cp.name", ""))}" placeholder="Your name" required>
      <label for="j-code">Join code</label><input id="j-code" type="text" value="${esc(code)}" required>
      <label for="j-seat">Seat</label><select id="j-seat"><option value="">first free seat</option>${free.map((s) => `<option value="${s.seat}">seat ${s.seat + 1}</option>`).join("")}</select>
      <span></span><div id="join-error" class="warning" hidden></div>
      <span></span><div class="actions-bar"><button type="submit" class="primary" id="join-btn">Join</button>
      ${mine && mine.token ? `<a href="/table/${idq}" data-link><button type="button" id="resume-btn">Resume my seat</button></a>` : ""}
      ${t.spectators ? `<a href="/watch/${idq}" data-link><button type="button" id="watch-btn">Just watch</button></a>` : ""}</div>
    </form>`;
  (async () => {
    let t;
    try {
      t = await api("GET", `/api/tables/${encodeURIComponent(tableId)}`);
    } catch (err) {
      if (!alive) return;
      $("#join-panel", app).outerHTML = deadEndHTML(esc, err.status === 404 ? "This invite is for a table that no longer exists (it was removed, or the link is mistyped)." : err.message, ["lobby"], tableId);
      return;
    }
    if (!alive) return;
    const free = t.seats.filter((s) => s.kind === "human" && !s.taken);
    const summary = `<b>${esc(t.name)}</b> · ${esc(gameName(t.preset))} · ${t.mode === "tournament" ? "tournament" : "cash game"} · ${t.time_limit ? `${t.time_limit}s a move` : "no clock"}<br>
      Seats: ${t.seats.map((s) => (s.taken ? `${esc(s.name)}${s.kind === "bot" ? ` (${esc(botWords(s.bot, s.level))} bot)` : ""}` : "<i>free</i>")).join(", ")}`;
    if (mine && mine.token && t.status !== "finished") {
      navigate(`/table/${encodeURIComponent(tableId)}`, true); // this browser holds a seat here already
      return;
    }
    if (t.status === "finished" || t.session_over) {
      $("#join-panel", app).outerHTML = deadEndHTML(esc, "This table has finished its session.", ["lobby", t.hands_played ? "hands" : null].filter(Boolean), tableId);
      return;
    }
    if (!free.length) {
      const text = t.spectators ? "Every seat at this table is taken. You can watch it." : "Every seat at this table is taken, and it does not allow spectators.";
      $("#join-panel", app).outerHTML = deadEndHTML(esc, text, t.spectators ? ["watch", "lobby"] : ["lobby"], tableId);
      return;
    }
    $("#join-info", app).innerHTML = summary;
    $("#join-panel", app).insertAdjacentHTML("beforeend", formHTML(t, free));
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
      err.textContent = `Could not join: ${e.message}`;
      err.hidden = false;
      $("#join-btn", app).disabled = false;
    }
  }
  return { stop() { alive = false; } };
}
