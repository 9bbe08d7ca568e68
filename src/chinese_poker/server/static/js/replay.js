// @ts-check
// The replay overlay and the page of a table's hands.

import { $, toast } from "./ui.js";
import { api, ApiError } from "./net.js";
import { html, setHTML } from "./util.js";
import { gameName, plainDetail, statusName } from "./words.js";
import { t } from "./i18n.js";
import { parseHistory, replayBoardsHTML, replaySteps } from "./history.js";
import { holdWhileOpen } from "./tablehold.js";

export async function openReplay(tableId, hand) {
  let rec;
  try {
    const res = await fetch(`/api/tables/${encodeURIComponent(tableId)}/history?hand=${hand}`);
    if (!res.ok) {
      let data = null;
      try { data = await res.json(); } catch { /* not JSON */ }
      throw new ApiError(plainDetail(res.status, data));
    }
    rec = parseHistory(await res.text())[0];
    if (!rec) throw new ApiError(t("replay.no_history"));
  } catch (err) {
    toast(t("replay.load_failed", { reason: err.message }));
    return;
  }
  const steps = replaySteps(rec);
  let i = 0;
  let timer = null;
  const ov = document.createElement("div");
  ov.className = "overlay";
  ov.id = "replay";
  setHTML(ov, html`<div class="dialog" role="dialog" aria-label="${t("replay.aria", { n: hand })}"><h2>${t("replay.title", { n: hand })} <span class="spacer"></span></h2>
    <div class="replay-controls"><button data-r="first" aria-label="${t("replay.first")}">|◀</button><button data-r="prev" aria-label="${t("replay.back")}: ${t("replay.prev")}">◀ ${t("replay.back")}</button>
    <button data-r="play" id="replay-play">▶ ${t("replay.play")}</button><button data-r="next" aria-label="${t("replay.next_step")}" id="replay-next">${t("replay.next")} ▶</button><button data-r="last" aria-label="${t("replay.last")}">▶|</button>
    <span class="muted" id="replay-pos"></span><span class="spacer"></span><button data-r="close" id="replay-close">${t("replay.close")}</button></div>
    <div class="replay-step" id="replay-step"></div><div class="replay-boards" id="replay-boards"></div>
    <p class="muted" style="font-size:12px">${t("replay.keys")} <kbd>←</kbd>/<kbd>→</kbd> ${t("replay.keys_step")}, <kbd>Esc</kbd> ${t("replay.keys_close")}.</p></div>`);
  document.body.appendChild(ov);
  holdWhileOpen(tableId, hand, ov); // the hand just played: the next deal waits for the reader
  const show = () => {
    $("#replay-pos", ov).textContent = t("replay.pos", { i, n: steps.length - 1 });
    $("#replay-step", ov).textContent = steps[i].text;
    setHTML($("#replay-boards", ov), replayBoardsHTML(steps[i], rec));
  };
  const stopPlay = () => { if (timer) { clearInterval(timer); timer = null; $("#replay-play", ov).textContent = `▶ ${t("replay.play")}`; } };
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
    const b = /** @type {HTMLElement | null} */ (/** @type {Element} */ (ev.target).closest("[data-r]"));
    if (!b) return;
    const r = b.dataset.r;
    if (r === "first") go(0);
    else if (r === "prev") go(i - 1);
    else if (r === "next") go(i + 1);
    else if (r === "last") go(steps.length - 1);
    else if (r === "close") close();
    else if (r === "play") {
      if (timer) { stopPlay(); return; }
      b.textContent = t("replay.pause");
      timer = setInterval(() => { if (i >= steps.length - 1) stopPlay(); else go(i + 1); }, 900);
    }
  });
  show();
}

export function replayPage(app, tableId, hand) {
  setHTML(app, html`<div class="panel"><h2>${t("replay.page_title")}</h2><div id="replay-list" class="muted">${t("common.loading")}</div></div>`);
  let alive = true;
  (async () => {
    try {
      const [info, hands] = await Promise.all([api("GET", `/api/tables/${encodeURIComponent(tableId)}`), api("GET", `/api/tables/${encodeURIComponent(tableId)}/hands`)]);
      if (!alive) return;
      const finished = hands.filter((h) => h.finished);
      const base = `/api/tables/${encodeURIComponent(tableId)}/history`;
      setHTML($("#replay-list", app), html`<p><b>${info.name}</b> · ${gameName(info.preset)} · ${statusName(info.status)}</p>${finished.length
        ? html`<ul class="hands-list">${finished.map((h) => html`<li><span>${t("hands.hand", { n: h.hand })}</span><button class="small" data-hand="${h.hand}">▶ ${t("hands.replay")}</button><button class="small" data-review-hand="${h.hand}" data-table="${tableId}">☑ ${t("review.button")}</button><a href="${base}?hand=${h.hand}" download><button class="small" type="button">⬇ ${t("replay.history")}</button></a></li>`)}</ul><p><a href="${base}" download="${tableId}-history.jsonl">${t("replay.download_all")}</a></p><p><button class="small" data-session-review="${tableId}" id="review-session">☑ ${t("review.session")}</button></p><div id="session-review"></div>`
        : html`<p>${t("replay.none_finished")}</p>`}`);
      if (hand) openReplay(tableId, Number(hand));
    } catch (err) {
      setHTML($("#replay-list", app), html`<p class="warning">${err.message}</p>`);
    }
  })();
  const onClick = (ev) => { const b = /** @type {HTMLElement | null} */ (ev.target.closest("[data-hand]")); if (b) openReplay(tableId, Number(b.dataset.hand)); };
  app.addEventListener("click", onClick);
  return { stop() { alive = false; app.removeEventListener("click", onClick); } };
}
