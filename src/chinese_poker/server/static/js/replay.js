// The replay overlay and the page of a table's hands.

import { $, toast } from "./ui.js";
import { api, ApiError } from "./net.js";
import { esc } from "./util.js";
import { plainDetail } from "./words.js";
import { parseHistory, replayBoardsHTML, replaySteps } from "./history.js";

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

export function replayPage(app, tableId, hand) {
  app.innerHTML = `<div class="panel"><h2>Hands of the table</h2><div id="replay-list" class="muted">Loading…</div></div>`;
  let alive = true;
  (async () => {
    try {
      const [info, hands] = await Promise.all([api("GET", `/api/tables/${encodeURIComponent(tableId)}`), api("GET", `/api/tables/${encodeURIComponent(tableId)}/hands`)]);
      if (!alive) return;
      const finished = hands.filter((h) => h.finished);
      const base = `/api/tables/${encodeURIComponent(tableId)}/history`;
      $("#replay-list", app).innerHTML = `<p><b>${esc(info.name)}</b> · ${esc(info.preset)} · ${esc(info.status)}</p>` + (finished.length
        ? `<ul class="hands-list">${finished.map((h) => `<li><span>Hand ${h.hand}</span><button class="small" data-hand="${h.hand}">▶ Replay</button><button class="small" data-review-hand="${h.hand}" data-table="${esc(tableId)}">☑ Review</button><a href="${base}?hand=${h.hand}" download><button class="small" type="button">⬇ history</button></a></li>`).join("")}</ul><p><a href="${base}" download="${esc(tableId)}-history.jsonl">Download the whole history</a></p>`
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
