// @ts-check
// Profiles (/profile/ID, and /me for this browser's player with its account box) and
// the leaderboard (/leaderboard). Figures and ratings come from the server
// (docs/browser.md, "Profiles, ratings, leaderboard").

import { lineChart } from "../chart.js";
import { $ } from "./ui.js";
import { ApiError, api } from "./net.js";
import { asMe, newKey, setPlayerKey, whoAmI } from "./identity.js";
import { html, joinHTML, raw, replaceHTML, setHTML, signed, textWith } from "./util.js";
import { t } from "./i18n.js";
import { STRENGTHS } from "./words.js";

const familyWords = (f) => t(`profile.family.${f}`);

/** A profile as HTML (pure). */
export function profileHTML(p) {
  const fams = (p.families || []).map((f) => html`<div class="panel family" data-family="${f.family}">
      <h3>${familyWords(f.family)}</h3>
      <div class="figures">
        <div><span class="muted">${t("profile.rating")}</span><b class="rating">${f.rating.toFixed(1)}</b><span class="muted" style="font-size:11px">μ ${f.mu.toFixed(1)} ± ${(3 * f.sigma).toFixed(1)}</span></div>
        <div><span class="muted">${t("profile.hands")}</span><b class="hands">${f.hands}</b></div>
        <div><span class="muted">${t("profile.points_per_hand")}</span><b class="pph">${f.points_per_hand >= 0 ? "+" : ""}${f.points_per_hand.toFixed(2)}</b></div>
        <div><span class="muted">${t("profile.fouls")}</span><b class="fouls">${f.foul_percent.toFixed(1)}%</b></div>
        <div><span class="muted">${t("profile.fantasyland")}</span><b class="fl">${f.fantasyland_percent.toFixed(1)}%</b></div>
        <div><span class="muted">${t("profile.royalties")}</span><b class="roy">${f.royalties_per_hand.toFixed(2)}</b></div>
      </div>
      ${(p.history || {})[f.family] && p.history[f.family].length ? raw(lineChart([{ name: t("profile.chart_series"), values: p.history[f.family].map((e) => e.rating) }], { width: 360, label: t("profile.chart", { family: familyWords(f.family) }), point: (name, i, v) => t("chart.point", { name, hand: i, value: v }) })) : ""}
    </div>`);
  const id = textWith(t("profile.id", { id: "\u0000" }), "\u0000", html`<code id="profile-id">${p.id}</code>`);
  return html`<h2 id="profile-name">${shownName(p.id, p.kind, p.name)} ${p.kind === "bot" ? html`<span class='chip'>${t("profile.bot")}</span>` : ""}</h2>
    <p class="muted" style="font-size:12px">${id}. ${t("profile.about")}</p>
    ${fams.length ? fams : html`<p id="no-hands">${t("profile.no_hands")}</p>`}`;
}

export function profilePage(app, playerId) {
  setHTML(app, html`<div class="panel" id="profile"><p class="muted">${t("common.loading")}</p></div>`);
  let alive = true;
  (async () => {
    try {
      const p = await api("GET", `/api/players/${encodeURIComponent(playerId)}`);
      if (alive) setHTML($("#profile", app), profileHTML(p));
    } catch (err) {
      if (alive) setHTML($("#profile", app), html`<p class="warning">${err.message}</p>`);
    }
  })();
  return { stop() { alive = false; } };
}

function accountHTML(me) {
  const w = (key) => t(key);
  const signedUp = textWith(t("account.signed_up", { handle: "\u0000" }), "\u0000", html`<b>${me.handle}</b>`);
  return html`<div class="panel" id="account"><h2>${w("account.title")}</h2>
    <p class="muted" style="font-size:13px">${w("account.intro")}</p>
    <form id="name-form" class="row"><label>${w("account.name")} <input id="me-name" maxlength="40" value="${me.name || ""}" required></label><button type="submit">${w("account.save_name")}</button></form>
    ${me.signed_up ? html`<p id="signed-up">${signedUp}</p><form id="password-form" class="row" data-handle="${me.handle}"><label>${w("account.current_password")} <input id="me-current-password" type="password" autocomplete="current-password" required></label><label>${w("account.new_password")} <input id="me-password" type="password" minlength="8" autocomplete="new-password" required></label><button type="submit">${w("account.change_password")}</button></form>` : html`<form id="password-form" class="row"><label>${w("account.handle")} <input id="me-handle" maxlength="40" autocomplete="username" required></label><label>${w("account.password")} <input id="me-password" type="password" minlength="8" autocomplete="new-password" required></label><button type="submit">${w("account.save_password")}</button></form>`}
    <h3>${w("account.signin_title")}</h3>
    <form id="signin-form" class="row"><label>${w("account.handle")} <input id="signin-handle" maxlength="40" autocomplete="username" required></label><label>${w("account.password")} <input id="signin-password" type="password" autocomplete="current-password" required></label><button type="submit">${w("account.signin")}</button></form>
    <p class="warning" id="account-error" hidden></p></div>`;
}

/** The /me page's bot accounts (pure): each with its state and buttons, the form to
 * make one, and a token just made (shown once: the server keeps only its hash). */
export function botsHTML(me, bots, fresh) {
  if (!me.signed_up) return html`<div class="panel" id="bots"><h2>${t("bots.title")}</h2><p class="muted" id="bots-need-account">${t("bots.need_account")}</p></div>`;
  const state = (b) => (b.paused ? t("bots.paused") : !b.has_token ? t("bots.no_token") : b.online ? t("bots.online") : t("bots.offline"));
  const rows = bots.map((b) => html`<li class="bot-account" data-bot="${b.id}">
      <a href="/profile/${encodeURIComponent(b.id)}" data-link><b>${b.name}</b></a> <span class="chip bot-state">${state(b)}</span>
      <span class="muted" style="font-size:12px">${t("bots.faults", { count: b.faults_total })}</span>
      <form class="row bot-desc-form" data-bot="${b.id}"><label>${t("bots.description")} <input class="bot-desc" maxlength="2000" value="${b.description}"></label><button type="submit" class="small">${t("bots.save")}</button></form>
      <div class="row"><button type="button" class="small" data-bot-action="token" data-bot="${b.id}">${t("bots.new_token")}</button>
      ${b.has_token ? html`<button type="button" class="small" data-bot-action="revoke" data-bot="${b.id}">${t("bots.revoke")}</button>` : ""}
      ${b.paused ? html`<button type="button" class="small primary" data-bot-action="resume" data-bot="${b.id}">${t("bots.resume")}</button>` : ""}</div></li>`);
  const token = fresh ? html`<p id="bot-token">${t("bots.token_once", { name: fresh.bot.name })} <code>${fresh.token}</code></p>` : "";
  return html`<div class="panel" id="bots"><h2>${t("bots.title")}</h2>
    <p class="muted" style="font-size:13px">${t("bots.intro")}</p>
    ${token}
    ${rows.length ? html`<ul id="bot-list">${rows}</ul>` : html`<p class="muted" id="bots-none">${t("bots.none")}</p>`}
    <form id="bot-form" class="row"><label>${t("bots.name")} <input id="bot-name" maxlength="40" required></label><label>${t("bots.description")} <input id="bot-description" maxlength="2000"></label><button type="submit">${t("bots.create")}</button></form>
    <p class="warning" id="bots-error" hidden></p></div>`;
}

export function mePage(app) {
  setHTML(app, html`<div id="me-page"><p class="muted">${t("common.loading")}</p></div>`);
  let alive = true;
  let fresh = null; // a bot's token just made: shown by the next render only
  const show = async () => {
    let me;
    try { me = await whoAmI(); } catch (err) { if (alive) setHTML(app, html`<p class="warning">${err.message}</p>`); return; }
    let profile = null;
    try { profile = await api("GET", `/api/players/${encodeURIComponent(me.id)}`); } catch { /* shown below */ }
    let bots = [];
    if (me.signed_up) { try { bots = await asMe("GET", "/api/me/bots"); } catch { /* shown as none */ } }
    if (!alive) return;
    setHTML($("#me-page", app), html`${accountHTML(me)}${botsHTML(me, bots, fresh)}<div class="panel" id="profile">${profile ? profileHTML(profile) : ""}</div>`);
    fresh = null;
  };
  const fail = (err, where = "#account-error") => { const el = $(where, app); if (el) { el.hidden = false; el.textContent = err.message; } };
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
      else if (ev.target.id === "bot-form" || ev.target.classList.contains("bot-desc-form")) {
        try {
          if (ev.target.id === "bot-form") fresh = await asMe("POST", "/api/me/bots", { name: $("#bot-name", app).value.trim(), description: $("#bot-description", app).value });
          else await asMe("PUT", `/api/me/bots/${encodeURIComponent(ev.target.dataset.bot)}`, { description: $(".bot-desc", ev.target).value });
        } catch (err) { fail(err, "#bots-error"); return; }
      }
      else if (ev.target.id === "signin-form") {
        const key = newKey();
        await api("POST", "/api/signin", { handle: $("#signin-handle", app).value.trim(), password: $("#signin-password", app).value, key });
        setPlayerKey(key);
      } else return;
      await show();
    } catch (err) { fail(err); }
  };
  // A bot's buttons: a new token (shown once), revoke it, resume a paused bot.
  const onClick = async (ev) => {
    const button = ev.target.closest && ev.target.closest("[data-bot-action]");
    if (!button) return;
    const path = `/api/me/bots/${encodeURIComponent(button.dataset.bot)}`;
    try {
      const action = button.dataset.botAction;
      if (action === "token") fresh = await asMe("POST", `${path}/token`);
      else await asMe(action === "revoke" ? "DELETE" : "POST", action === "revoke" ? `${path}/token` : `${path}/resume`);
      await show();
    } catch (err) { fail(err, "#bots-error"); }
  };
  app.addEventListener("submit", onSubmit);
  app.addEventListener("click", onClick);
  show();
  return { stop() { alive = false; app.removeEventListener("submit", onSubmit); app.removeEventListener("click", onClick); } };
}

/** The leaderboard as HTML (pure). */
/** A player's name as shown: a bot the lobby offers as a strength in the reader's
 * language (its id is "bot-<bot>[-<level>]"), the words of the one-click table's bot. */
function shownName(id, kind, name) {
  const m = kind === "bot" ? /^bot-(.+?)(?:-(\d+))?$/.exec(id || "") : null;
  const level = m && m[2] ? Number(m[2]) : null;
  const s = m ? STRENGTHS.find((x) => x.bot === m[1] && (x.level === null || x.level === level)) : null;
  return s ? t("join.bot_of", { level: s.label }) : name || t("profile.no_name");
}

export function leaderboardHTML(board) {
  const rows = (board.players || []).map((r, i) => html`<tr data-player="${r.player}" data-kind="${r.kind}"><td>${i + 1}</td>
      <td><a href="/profile/${encodeURIComponent(r.player)}" data-link>${shownName(r.player, r.kind, r.name)}</a>${r.kind === "bot" ? html` <span class='chip'>${t("profile.bot")}</span>` : ""}</td>
      <td class="rating">${r.rating.toFixed(1)}</td><td>${r.hands}</td><td>${signed(Math.round(r.points_per_hand * 100) / 100)}</td><td>${r.foul_percent.toFixed(1)}%</td></tr>`);
  return rows.length
    ? html`<table class="ledger-table" id="leaderboard-table"><thead><tr><th>#</th>${["player", "rating", "hands", "points_per_hand", "fouls"].map((k) => html`<th>${t(`leaderboard.${k}`)}</th>`)}</tr></thead><tbody>${rows}</tbody></table>`
    : html`<p class="muted">${t("leaderboard.none")}</p>`;
}

/** The family tabs (pure): the families and the default come from the server's answer
 * (ratings.Family), so the page has no list of its own to drift. */
export function familyTabsHTML(families, fam) {
  return joinHTML((families || []).map((k) => html`<a href="/leaderboard?family=${k}" data-link role="tab" aria-selected="${k === fam}" class="chip${k === fam ? " turn" : ""}" data-family="${k}">${familyWords(k)}</a>`), " ");
}

/** The leaderboard of ``family``, or of the server's default family when it names none
 * the server rates (the server refuses an unknown one: asked again without it). */
async function leaderboardOf(family) {
  if (!family) return api("GET", "/api/leaderboard");
  try {
    return await api("GET", `/api/leaderboard?family=${encodeURIComponent(family)}`);
  } catch (err) {
    if (err instanceof ApiError && err.status === 422) return api("GET", "/api/leaderboard");
    throw err;
  }
}

export function leaderboardPage(app, family) {
  setHTML(app, html`<div class="panel" id="leaderboard"><h2>${t("leaderboard.title")}</h2>
    <div class="row" role="tablist" id="leaderboard-families"></div>
    <p class="muted" style="font-size:12px">${t("leaderboard.intro")}</p>
    <div id="leaderboard-body" class="muted">${t("common.loading")}</div></div>`);
  let alive = true;
  (async () => {
    try {
      const board = await leaderboardOf(family);
      if (!alive) return;
      setHTML($("#leaderboard-families", app), familyTabsHTML(board.families, board.family));
      replaceHTML($("#leaderboard-body", app), html`<div id="leaderboard-body">${leaderboardHTML(board)}</div>`);
    } catch (err) {
      if (alive) setHTML($("#leaderboard-body", app), html`<p class="warning">${err.message}</p>`);
    }
  })();
  return { stop() { alive = false; } };
}
