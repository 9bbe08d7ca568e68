// Profiles (/profile/ID, and /me for this browser's player with its account box) and
// the leaderboard (/leaderboard). Figures and ratings come from the server
// (docs/browser.md, "Profiles, ratings, leaderboard").

import { lineChart } from "../chart.js";
import { $ } from "./ui.js";
import { api } from "./net.js";
import { asMe, newKey, setPlayerKey, whoAmI } from "./identity.js";
import { esc, signed } from "./util.js";
import { t } from "./i18n.js";

export const FAMILIES = ["open-face", "classic"];
const familyWords = (f) => t(`profile.family.${f}`);

/** A profile as HTML (pure). */
export function profileHTML(p) {
  const fams = (p.families || []).map((f) => `<div class="panel family" data-family="${esc(f.family)}">
      <h3>${esc(familyWords(f.family))}</h3>
      <div class="figures">
        <div><span class="muted">${esc(t("profile.rating"))}</span><b class="rating">${f.rating.toFixed(1)}</b><span class="muted" style="font-size:11px">μ ${f.mu.toFixed(1)} ± ${(3 * f.sigma).toFixed(1)}</span></div>
        <div><span class="muted">${esc(t("profile.hands"))}</span><b class="hands">${f.hands}</b></div>
        <div><span class="muted">${esc(t("profile.points_per_hand"))}</span><b class="pph">${f.points_per_hand >= 0 ? "+" : ""}${f.points_per_hand.toFixed(2)}</b></div>
        <div><span class="muted">${esc(t("profile.fouls"))}</span><b class="fouls">${f.foul_percent.toFixed(1)}%</b></div>
        <div><span class="muted">${esc(t("profile.fantasyland"))}</span><b class="fl">${f.fantasyland_percent.toFixed(1)}%</b></div>
        <div><span class="muted">${esc(t("profile.royalties"))}</span><b class="roy">${f.royalties_per_hand.toFixed(2)}</b></div>
      </div>
      ${(p.history || {})[f.family] && p.history[f.family].length ? lineChart([{ name: t("profile.chart_series"), values: p.history[f.family].map((e) => e.rating) }], { width: 360, label: t("profile.chart", { family: familyWords(f.family) }), point: (name, i, v) => t("chart.point", { name, hand: i, value: v }) }) : ""}
    </div>`).join("");
  const id = esc(t("profile.id", { id: "\u0000" })).replace("\u0000", `<code id="profile-id">${esc(p.id)}</code>`);
  return `<h2 id="profile-name">${esc(p.name || t("profile.no_name"))} ${p.kind === "bot" ? `<span class='chip'>${esc(t("profile.bot"))}</span>` : ""}</h2>
    <p class="muted" style="font-size:12px">${id}. ${esc(t("profile.about"))}</p>
    ${fams || `<p id="no-hands">${esc(t("profile.no_hands"))}</p>`}`;
}

export function profilePage(app, playerId) {
  app.innerHTML = `<div class="panel" id="profile"><p class="muted">${esc(t("common.loading"))}</p></div>`;
  let alive = true;
  (async () => {
    try {
      const p = await api("GET", `/api/players/${encodeURIComponent(playerId)}`);
      if (alive) $("#profile", app).innerHTML = profileHTML(p);
    } catch (err) {
      if (alive) $("#profile", app).innerHTML = `<p class="warning">${esc(err.message)}</p>`;
    }
  })();
  return { stop() { alive = false; } };
}

function accountHTML(me) {
  const w = (key) => esc(t(key));
  const signedUp = esc(t("account.signed_up", { handle: "\u0000" })).replace("\u0000", `<b>${esc(me.handle)}</b>`);
  return `<div class="panel" id="account"><h2>${w("account.title")}</h2>
    <p class="muted" style="font-size:13px">${w("account.intro")}</p>
    <form id="name-form" class="row"><label>${w("account.name")} <input id="me-name" maxlength="40" value="${esc(me.name || "")}" required></label><button type="submit">${w("account.save_name")}</button></form>
    ${me.signed_up ? `<p id="signed-up">${signedUp}</p><form id="password-form" class="row" data-handle="${esc(me.handle)}"><label>${w("account.current_password")} <input id="me-current-password" type="password" autocomplete="current-password" required></label><label>${w("account.new_password")} <input id="me-password" type="password" minlength="8" autocomplete="new-password" required></label><button type="submit">${w("account.change_password")}</button></form>` : `<form id="password-form" class="row"><label>${w("account.handle")} <input id="me-handle" maxlength="40" autocomplete="username" required></label><label>${w("account.password")} <input id="me-password" type="password" minlength="8" autocomplete="new-password" required></label><button type="submit">${w("account.save_password")}</button></form>`}
    <h3>${w("account.signin_title")}</h3>
    <form id="signin-form" class="row"><label>${w("account.handle")} <input id="signin-handle" maxlength="40" autocomplete="username" required></label><label>${w("account.password")} <input id="signin-password" type="password" autocomplete="current-password" required></label><button type="submit">${w("account.signin")}</button></form>
    <p class="warning" id="account-error" hidden></p></div>`;
}

export function mePage(app, navigate) {
  app.innerHTML = `<div id="me-page"><p class="muted">${esc(t("common.loading"))}</p></div>`;
  let alive = true;
  const show = async () => {
    let me;
    try { me = await whoAmI(); } catch (err) { if (alive) app.innerHTML = `<p class="warning">${esc(err.message)}</p>`; return; }
    let profile = null;
    try { profile = await api("GET", `/api/players/${encodeURIComponent(me.id)}`); } catch { /* shown below */ }
    if (!alive) return;
    $("#me-page", app).innerHTML = accountHTML(me) + `<div class="panel" id="profile">${profile ? profileHTML(profile) : ""}</div>`;
  };
  const fail = (err) => { const el = $("#account-error", app); if (el) { el.hidden = false; el.textContent = err.message; } };
  const onSubmit = async (ev) => {
    ev.preventDefault();
    try {
      if (ev.target.id === "name-form") await asMe("PUT", "/api/me/name", { name: $("#me-name", app).value.trim() });
      else if (ev.target.id === "password-form") {
        // Signed up already: the handle stays, and the server wants the current password.
        const current = $("#me-current-password", app);
        const body = current
          ? { handle: ev.target.dataset.handle, password: $("#me-password", app).value, current_password: current.value }
          : { handle: $("#me-handle", app).value.trim(), password: $("#me-password", app).value };
        await asMe("POST", "/api/me/password", body);
      }
      else if (ev.target.id === "signin-form") {
        const key = newKey();
        await api("POST", "/api/signin", { handle: $("#signin-handle", app).value.trim(), password: $("#signin-password", app).value, key });
        setPlayerKey(key);
      } else return;
      await show();
    } catch (err) { fail(err); }
  };
  app.addEventListener("submit", onSubmit);
  show();
  return { stop() { alive = false; app.removeEventListener("submit", onSubmit); } };
}

/** The leaderboard as HTML (pure). */
export function leaderboardHTML(board) {
  const rows = (board.players || []).map((r, i) => `<tr data-player="${esc(r.player)}" data-kind="${esc(r.kind)}"><td>${i + 1}</td>
      <td><a href="/profile/${encodeURIComponent(r.player)}" data-link>${esc(r.name)}</a>${r.kind === "bot" ? ` <span class='chip'>${esc(t("profile.bot"))}</span>` : ""}</td>
      <td class="rating">${r.rating.toFixed(1)}</td><td>${r.hands}</td><td>${signed(Math.round(r.points_per_hand * 100) / 100)}</td><td>${r.foul_percent.toFixed(1)}%</td></tr>`).join("");
  return rows
    ? `<table class="ledger-table" id="leaderboard-table"><thead><tr><th>#</th>${["player", "rating", "hands", "points_per_hand", "fouls"].map((k) => `<th>${esc(t(`leaderboard.${k}`))}</th>`).join("")}</tr></thead><tbody>${rows}</tbody></table>`
    : `<p class="muted">${esc(t("leaderboard.none"))}</p>`;
}

export function leaderboardPage(app, family) {
  const fam = family === "classic" ? "classic" : "open-face";
  app.innerHTML = `<div class="panel" id="leaderboard"><h2>${esc(t("leaderboard.title"))}</h2>
    <div class="row" role="tablist">${FAMILIES.map((k) => `<a href="/leaderboard?family=${k}" data-link role="tab" aria-selected="${k === fam}" class="chip${k === fam ? " turn" : ""}" data-family="${k}">${esc(familyWords(k))}</a>`).join(" ")}</div>
    <p class="muted" style="font-size:12px">${esc(t("leaderboard.intro"))}</p>
    <div id="leaderboard-body" class="muted">${esc(t("common.loading"))}</div></div>`;
  let alive = true;
  (async () => {
    try {
      const board = await api("GET", `/api/leaderboard?family=${fam}`);
      if (alive) $("#leaderboard-body", app).outerHTML = `<div id="leaderboard-body">${leaderboardHTML(board)}</div>`;
    } catch (err) {
      if (alive) $("#leaderboard-body", app).innerHTML = `<p class="warning">${esc(err.message)}</p>`;
    }
  })();
  return { stop() { alive = false; } };
}
