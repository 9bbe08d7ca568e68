// The bots' ladder (/ladder, /ladder/<family>): one page per rating family, from
// GET /api/ladder (server/ladder.py, docs/ladder.md). Every bot's rating with its 95%
// interval, its hands, foul and Fantasyland rates and its owner's words, then each
// bot's points a hand against each other bot from the duplicate matches.
import { LANGUAGES, language, onLanguage, setLanguage, startLanguage, t, num } from "./i18n.js";
import { html, joinHTML, setHTML, signClass } from "./util.js";

const $ = (/** @type {string} */ sel) => /** @type {HTMLElement} */ (document.querySelector(sel));

/** The family the address names (/ladder/classic, or ?family=), or null: the default. */
export function familyOf(/** @type {string} */ pathname, /** @type {string} */ search) {
  const m = /^\/ladder\/([a-z-]+)\/?$/.exec(pathname);
  return m ? m[1] : new URLSearchParams(search).get("family");
}

/** A bot's name in the reader's words: ours by the lobby's strength or the ladder's
 * words for it, an account by its own name. */
export function botName(/** @type {any} */ b) {
  if (!b.house) return b.name;
  const strength = ["beginner", "casual", "strong", "expert"].includes(b.house);
  return strength ? t("join.bot_of", { level: t(`bot.${b.house}`) }) : t(`ladder.bot.${b.house}`);
}

/** What its owner says of it (ours: the lobby's words for the strength). */
export function botAbout(/** @type {any} */ b) {
  if (!b.house) return b.description || "";
  const strength = ["beginner", "casual", "strong", "expert"].includes(b.house);
  return strength ? t(`bot.${b.house}.help`) : t(`ladder.about.${b.house}`);
}

const fixed = (/** @type {number} */ x, digits = 2) => num(x, { minimumFractionDigits: digits, maximumFractionDigits: digits });
const signedFixed = (/** @type {number} */ x) => (x > 0 ? "+" : "") + fixed(x);

/** The bots' table as HTML (pure): a line of figures per bot (each cell a figure and,
 * small below it, its companion: the interval, the match hands, the Fantasyland rate),
 * and under it, the whole width of a phone, whose it is and what its owner says of it. */
export function botsHTML(/** @type {any[]} */ bots) {
  if (!bots.length) return html`<p class="muted">${t("ladder.none")}</p>`;
  const left = "text-align:left";
  const rows = bots.map((b, i) => html`<tr data-player="${b.player}">
    <td>${i + 1}</td>
    <td style="${left}"><b>${botName(b)}</b></td>
    <td><b>${fixed(b.rating)}</b><br><span class="muted" style="font-size:12px;white-space:nowrap">${fixed(b.low)}–${fixed(b.high)}</span></td>
    <td>${num(b.rated_hands)}<br><span class="muted" style="font-size:12px">${num(b.match_hands)}</span></td>
    <td>${fixed(b.foul_percent, 1)}<br><span class="muted" style="font-size:12px">${fixed(b.fantasyland_percent, 1)}</span></td></tr>
    <tr data-about="${b.player}"><td></td><td colspan="4" class="muted" style="${left};font-size:12px">${b.house ? t("ladder.ours") : t("ladder.owned_by", { owner: b.owner || "?" })} · ${botAbout(b)}</td></tr>`);
  const head = html`<th scope="col">${t("ladder.rank")}</th><th scope="col" style="${left}">${t("ladder.bot")}</th><th scope="col">${t("ladder.rating")}</th><th scope="col">${t("ladder.hands")}</th><th scope="col">${t("ladder.fouls")}<br>${t("ladder.fantasyland")}</th>`;
  return html`<div class="ladder-scroll" style="overflow-x:auto" tabindex="0" role="region" aria-label="${t("ladder.title")}"><table class="ledger-table" id="ladder-table"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** The head-to-head results as HTML (pure): per bot and opponent, points a hand ± 95%. */
export function pairsHTML(/** @type {any[]} */ pairs, /** @type {any[]} */ bots) {
  if (!pairs.length) return html`<p class="muted">${t("ladder.no_pairs")}</p>`;
  const names = new Map(bots.map((b) => [b.player, botName(b)]));
  const named = (/** @type {string} */ id) => names.get(id) || id;
  const rows = pairs.map((p) => {
    const x = p.points_per_hand;
    const ci = x.ci95 === null ? "" : ` ± ${fixed(x.ci95)}`;
    return html`<tr data-pair="${p.player}|${p.opponent}"><td>${named(p.player)}</td><td>${named(p.opponent)}</td><td class="${signClass(x.mean)}">${signedFixed(x.mean)}${ci}</td><td>${num(x.n)}</td></tr>`;
  });
  const head = ["bot", "opponent", "points", "deals"].map((k) => html`<th scope="col">${t(`ladder.${k}`)}</th>`);
  return html`<div class="ladder-scroll" style="overflow-x:auto" tabindex="0" role="region" aria-label="${t("ladder.pairs")}"><table class="ledger-table" id="ladder-pairs-table"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

function familyTabsHTML(/** @type {string[]} */ families, /** @type {string} */ current) {
  return joinHTML(families.map((k) => html`<a href="/ladder/${k}" role="tab" aria-selected="${k === current}" class="chip${k === current ? " turn" : ""}" data-family="${k}">${t(`profile.family.${k}`)}</a>`), " ");
}

let board = /** @type {any} */ (null);

function render() {
  document.title = `${t("ladder.title")} · ${t("common.title").trim()}`;
  if (!board) return;
  setHTML($("#ladder-families"), familyTabsHTML(board.families, board.family));
  setHTML($("#ladder-body"), botsHTML(board.bots));
  $("#ladder-body").classList.remove("muted");
  setHTML($("#ladder-pairs"), pairsHTML(board.pairs, board.bots));
  document.body.dataset.ready = "1";
}

async function load() {
  const family = familyOf(location.pathname, location.search);
  const query = family ? `?family=${encodeURIComponent(family)}` : "";
  let res = await fetch(`/api/ladder${query}`);
  if (res.status === 422) res = await fetch("/api/ladder"); // an unknown family: the default
  if (!res.ok) throw new Error(`${res.status}`);
  board = await res.json();
  render();
}

const langSel = /** @type {HTMLSelectElement} */ ($("#lang"));
function fillLanguages() {
  setHTML(langSel, html`${Object.entries(LANGUAGES).map(([code, name]) => html`<option value="${code}" ${code === language() ? "selected" : ""} lang="${code}">${name}</option>`)}`);
}
langSel.addEventListener("change", () => { setLanguage(langSel.value).catch(() => fillLanguages()); });
onLanguage(() => { fillLanguages(); render(); });

startLanguage()
  .catch(() => fillLanguages())
  .then(load)
  .catch((err) => setHTML($("#ladder-body"), html`<p role="alert">${t("common.went_wrong", { reason: String(err && err.message ? err.message : err) })}</p>`));
