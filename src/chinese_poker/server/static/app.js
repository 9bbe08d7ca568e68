// @ts-check
// Chinese poker browser table: the router and the page's start. Plain ES modules, no
// build step; each screen and concern lives in js/ (docs/browser.md has the map).
// Speaks the protocol of docs/server-protocol.md.

import { $, banner, connBadge, toast } from "./js/ui.js";
import { api, parseRoute } from "./js/net.js";
import { setRuleWords } from "./js/words.js";
import { html, setHTML, store } from "./js/util.js";
import { lobbyScreen } from "./js/lobby.js";
import { joinScreen } from "./js/join.js";
import { tableScreen } from "./js/table.js";
import { replayPage } from "./js/replay.js";
import { installReviewButtons, reviewPage } from "./js/review.js";
import { leaderboardPage, mePage, profilePage } from "./js/profile.js";
import { LANGUAGES, language, onLanguage, setLanguage, startLanguage, t } from "./js/i18n.js";

export { toast };

let current = null; // the current screen: {stop()}

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
  app.replaceChildren();
  document.title = t("common.title");
  const q = new URLSearchParams(location.search);
  if (r.name === "join") current = joinScreen(app, r.id, q.get("code") || "", navigate);
  else if (r.name === "table") current = tableScreen(app, r.id, "seat", navigate);
  else if (r.name === "watch") current = tableScreen(app, r.id, "spectator", navigate);
  else if (r.name === "replay") current = replayPage(app, r.id, q.get("hand"));
  else if (r.name === "review") current = reviewPage(app, r.id, r.hand);
  else if (r.name === "profile") current = profilePage(app, r.id);
  else if (r.name === "me") current = mePage(app);
  else if (r.name === "leaderboard") current = leaderboardPage(app, q.get("family"));
  else current = lobbyScreen(app, navigate);
}

document.addEventListener("click", (ev) => {
  const a = /** @type {HTMLAnchorElement | null} */ (ev.target instanceof Element ? ev.target.closest("a[data-link]") : null);
  if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey || a.target) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin) return;
  ev.preventDefault();
  navigate(url.pathname + url.search);
});
window.addEventListener("popstate", route);
installReviewButtons();

function applyFourColour(on) {
  document.body.classList.toggle("four-colour", on);
  store.set("cp.fourColour", on);
}
const fc = $("#four-colour");
fc.checked = !!store.get("cp.fourColour", false);
applyFourColour(fc.checked);
fc.addEventListener("change", () => applyFourColour(fc.checked));
window.addEventListener("unhandledrejection", (ev) => {
  toast(t("common.went_wrong", { reason: ev.reason && ev.reason.message ? ev.reason.message : ev.reason }));
});

// The language switch: the browser's language first, the player's choice kept across
// reloads; a switch re-renders the current screen (a table reconnects and keeps its staging).
const langSel = $("#lang");
function fillLanguages() {
  setHTML(langSel, html`${Object.entries(LANGUAGES).map(([code, name]) => html`<option value="${code}" ${code === language() ? "selected" : ""} lang="${code}">${name}</option>`)}`);
}
langSel.addEventListener("change", async () => {
  try { await setLanguage(langSel.value); }
  catch (err) { toast(String(err.message || err)); fillLanguages(); }
});
onLanguage(() => { fillLanguages(); route(); });
// The rule words (presets and options in players' words) are the server's: loaded once,
// with the language, before the first screen (without them, names fall back to the keys).
const ruleWords = Promise.all([api("GET", "/api/presets"), api("GET", "/api/options")])
  .then(([presets, options]) => setRuleWords({ presets, options }))
  .catch(() => {});
await ruleWords; // the language's listener shows the first screen
try { await startLanguage(); }
catch (err) { fillLanguages(); route(); toast(String(err.message || err)); }
