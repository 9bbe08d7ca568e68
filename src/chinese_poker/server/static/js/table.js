// @ts-check
// The table screen: the socket, the messages, the player's input (click, drag, touch,
// keys) and the render loop. The markup comes from tableview.js (with board.js and
// side.js), the staging rules from staging.js, the clocks from clock.js.

import { watchTable } from "../fairness.js";
import { LINES } from "./eval.js";
import { $, $$, banner, connBadge, copyText, isTouch, toast } from "./ui.js";
import { api, followTable, getSeat, keepCarriedSeat, loadStaging, saveSeat, saveStaging } from "./net.js";
import { esc, html, keyIndex, raw, setHTML, store } from "./util.js";
import { CLOSE_WORDS, ERROR_WORDS, placedWords } from "./words.js";
import { clockBar, clockFor, clockText } from "./clock.js";
import { tableMainHTML, tableSideHTML } from "./tableview.js";
import * as S from "./staging.js";
import { openReplay } from "./replay.js";
import { language, t } from "./i18n.js";

const NOTICE_KEYS = { back: "notice.back", stand_in: "notice.stand_in", leaving: "notice.leaving", left: "notice.left" };

/**
 * A server error in words, by its code. In English the server's own detail follows; in
 * another language only an illegal move keeps it (its reason names the cards).
 */
export function errorText(msg) {
  const words = ERROR_WORDS[msg.code] || t("error.refused");
  const m = msg.message;
  if (!m || m === words || (language() !== "en" && msg.code !== "illegal")) return words;
  return `${words} ${m.charAt(0).toUpperCase()}${m.slice(1)}${/[.!?]$/.test(m) ? "" : "."}`;
}

export function tableScreen(app, tableId, wanted, navigate) {
  keepCarriedSeat(); // a seat this browser held where the table was before it moved here
  const mine = getSeat(tableId);
  const T = {
    id: tableId,
    role: wanted === "seat" && mine && mine.token ? "seat" : "spectator",
    token: mine && mine.token,
    seat: null, player: null, spec: null,
    info: null, view: null, hand: 0, clocks: [], clocksAt: 0, log: [], now: performance.now(),
    moves: [], sig: null, selected: null, decisionIndex: 0, foulAsked: false,
    hints: null, hintPending: false, autoPending: false,
    ledger: null, hands: [], lastEnd: null, nextHandAt: 0, sessionOver: false,
    ws: null, msgId: 0, sending: null, alive: true, retry: 0, closed: null,
    sortMode: store.get("cp.sort", null), lastShowdown: null, noHints: false, notice: null,
    leaveAsk: false, rematchOffer: null, moved: null,
  };
  /** @type {any} */ (window).__cp = T; // for tests and debugging
  const touch = isTouch();
  const fairWatch = T.fair = watchTable(tableId, { send: (m) => send(m), rerender: () => renderSide() });
  if (wanted === "seat" && !T.token) toast(t("table.no_seat_watching"), "info");

  // ------------------------------------------------------------------ socket
  function wsURL() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    // The seat token goes in the first message, never in the URL (access logs).
    const q = T.role === "seat" ? "?role=seat" : "";
    return `${proto}//${location.host}/ws/tables/${encodeURIComponent(tableId)}${q}`;
  }

  function connect() {
    if (!T.alive) return;
    connBadge(t("conn.connecting"), false);
    const ws = new WebSocket(wsURL());
    T.ws = ws;
    ws.onopen = () => {
      T.retry = 0;
      if (T.role === "seat") ws.send(JSON.stringify({ type: "auth", token: T.token }));
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      onMessage(msg);
    };
    ws.onclose = (ev) => {
      if (T.ws !== ws) return;
      T.ws = null;
      T.sending = null;
      if (!T.alive) return;
      const words = CLOSE_WORDS[ev.code];
      if (words) {
        connBadge(t("conn.disconnected"), false);
        banner(null);
        if (ev.code === 4401 && T.role === "seat") {
          // A stale seat key: watch instead, if the table lets us; one message either way.
          T.role = "spectator";
          T.closed = { ...words, code: 4401 };
          setTimeout(connect, 300);
        } else if (ev.code === 4403 && T.closed && T.closed.code === 4401) {
          T.closed = { text: t("close.4401_no_spectators"), ways: ["lobby"], code: 4403, final: true };
        } else {
          T.closed = { ...words, code: ev.code, final: true };
        }
        render();
        return;
      }
      connBadge(t("conn.reconnecting"), false);
      // 4409: another server plays the table and this browser could not go there; keep
      // asking here (this server takes the table over if that one stops).
      if (ev.code === 4409 && T.moved) {
        banner(T.moved, "info");
        setTimeout(connect, 8000);
        return;
      }
      // 4429: this address holds as many sockets as the server allows; say why, and
      // keep trying (a tab closed elsewhere frees one).
      banner(t(ev.code === 4429 ? "close.4429" : "conn.lost"), "info");
      const delay = Math.min(8000, 400 * 2 ** T.retry++);
      setTimeout(connect, delay);
    };
  }

  function send(msg) {
    if (!T.ws || T.ws.readyState !== WebSocket.OPEN) {
      toast(t("conn.not_connected"));
      return null;
    }
    const id = ++T.msgId;
    T.ws.send(JSON.stringify({ ...msg, id }));
    return id;
  }

  function onMessage(msg) {
    fairWatch.onMessage(msg);
    switch (msg.type) {
      case "welcome":
        T.info = msg.table;
        T.spec = msg.spec || T.spec;
        T.role = msg.role;
        T.seat = msg.seat;
        T.player = msg.player;
        if (T.role === "seat") saveSeat(tableId, { seat: msg.seat, player: msg.player });
        connBadge(T.role === "seat" ? t("conn.connected_as", { player: msg.player }) : t("conn.watching"), true);
        banner(null);
        if (T.closed && T.closed.code === 4401) toast(T.closed.text, "info", 10000);
        T.closed = null;
        T.moved = null;
        document.title = `${T.info.name} — ${t("common.title")}`;
        if (T.info.rematch) T.rematchOffer = T.rematchOffer || { id: T.info.rematch, by: null };
        if (T.info.session_over) T.sessionOver = true;
        refreshLedger();
        render();
        break;
      case "hand_start":
        T.hand = msg.hand;
        T.lastEnd = null;
        T.nextHandAt = 0;
        T.hints = null;
        T.log = [];
        T.notice = null;
        T.nextSent = false;
        T.moves = []; T.sig = null; T.selected = null;
        if (T.info) { T.info.hand = msg.hand; T.info.status = "playing"; }
        break;
      case "state": {
        if (msg.hand !== T.hand) T.log = [];
        T.view = msg.view;
        // The engine seat of this hand (null: out of the tournament or sitting out).
        if (T.role === "seat") T.seat = msg.view.seat;
        T.hand = msg.hand;
        T.clocks = msg.clocks || [];
        T.clocksAt = performance.now();
        if (Array.isArray(msg.log)) T.log = msg.log;
        else if (msg.last) T.log.push(msg.last);
        if (msg.ack !== null && msg.ack !== undefined && T.sending === msg.ack) T.sending = null;
        if (T.hints && T.hints.version !== msg.version) T.hints = null;
        if (T.view.phase === "showdown") T.lastShowdown = { hand: msg.hand, view: T.view };
        syncStaging();
        render();
        break;
      }
      case "hand_end":
        T.lastEnd = msg;
        T.nextHandAt = msg.session_over ? 0 : performance.now() + (msg.next_hand_in || 0) * 1000;
        if (msg.session_over) T.sessionOver = true;
        if (T.info) T.info.hands_played = (T.info.hands_played || 0) + 1;
        refreshLedger();
        render();
        break;
      case "session_end":
        T.sessionOver = true;
        T.leaveAsk = false;
        if (msg.ledger) T.ledger = msg.ledger;
        if (T.info) { T.info.status = "finished"; T.info.left = msg.left || null; }
        refreshLedger();
        render();
        break;
      case "seats":
        if (T.info) { T.info.seats = msg.seats; T.info.status = msg.status; }
        refreshLedger(); // a new player's name belongs in the ledger at once
        render();
        break;
      case "notice":
        if ((msg.kind === "leaving" || msg.kind === "left") && T.info) T.info.left = msg.player;
        onNotice(msg);
        break;
      case "rematch":
        // Somebody started the rematch: this browser's seat key opens its seat there.
        T.rematchOffer = { id: msg.rematch, by: msg.by };
        render();
        break;
      case "moved":
        followTable(msg).then((text) => { T.moved = text; banner(text, "info"); });
        break;
      case "leaving":
        T.leaveAsk = false;
        render();
        break;
      case "hint":
        T.hintPending = false;
        T.hints = { version: msg.version, actions: msg.actions || [] };
        if (T.autoPending) {
          T.autoPending = false;
          const best = T.hints.actions[0];
          if (best) useAction(best.action);
          else toast(t("table.no_arrangement"), "info");
        }
        render();
        break;
      case "error": {
        if (fairWatch.owns(msg.ref)) break; // a contribution too late: nothing to tell
        if (msg.ref !== undefined && msg.ref === T.sending) T.sending = null;
        T.hintPending = false;
        T.autoPending = false;
        if (msg.code === "hints_unavailable" || msg.code === "hints_disabled") T.noHints = true;
        toast(errorText(msg));
        if (msg.code === "stale" || msg.code === "no_hand") send({ type: "sync" });
        render();
        break;
      }
      default:
        break;
    }
  }

  /** The server's notices: a decision placed when time ran out, a bot taking a seat. */
  function onNotice(msg) {
    const mineNow = T.role === "seat" && msg.chair === (getSeat(tableId) || {}).seat;
    let text = msg.text || "";
    if (msg.kind === "timeout") {
      text = mineNow
        ? t("notice.timeout_mine", { placed: msg.action ? placedWords(msg.action) : t("notice.your_cards") })
        : t("notice.timeout", { player: msg.player });
    } else if (NOTICE_KEYS[msg.kind] && language() !== "en") {
      text = t(NOTICE_KEYS[msg.kind], { player: msg.player });
    }
    T.notice = { kind: msg.kind, text, mine: mineNow };
    toast(text, "info", 9000);
    render();
  }

  async function refreshLedger() {
    try {
      const [ledger, hands] = await Promise.all([
        api("GET", `/api/tables/${encodeURIComponent(tableId)}/ledger`),
        api("GET", `/api/tables/${encodeURIComponent(tableId)}/hands`),
      ]);
      if (!T.alive) return;
      T.ledger = ledger;
      T.hands = hands;
      renderSide();
    } catch (err) {
      if (T.alive && !/no such table/i.test(err.message)) toast(t("table.ledger_failed", { reason: err.message }));
    }
  }

  // ------------------------------------------------------------------ staging
  function syncStaging() { S.syncStaging(T, loadStaging(tableId)); }
  function changed() { saveStaging(tableId, T.sig, T.moves); render(); }
  function moveTo(line, card = T.selected) {
    const why = S.stage(T, line, card);
    if (why) toast(why, "info", 3000);
    if (why === null) changed();
  }
  function unstage(card) { if (S.unstage(T, card)) changed(); }
  function undo() {
    if (!T.moves.length) return;
    T.moves.pop();
    T.selected = null;
    T.foulAsked = false;
    changed();
  }
  function resetStaging() { T.moves = []; T.selected = null; T.foulAsked = false; changed(); }
  function myBoard() {
    const d = S.decision(T);
    return T.view.boards.find((b) => b.seat === T.seat && b.hand === (d ? d.hand : 0));
  }
  function confirm() {
    const d = S.decision(T);
    if (!d || !S.canAct(T) || T.sending !== null) return;
    if (!S.ready(T)) {
      toast(t("table.place_first", { n: d.place, placed: T.moves.filter((m) => m.to !== "discard").length }), "info", 3000);
      return;
    }
    const foul = S.certainFoul(T, myBoard(), T.spec);
    if (foul && !T.foulAsked) {
      // A certain foul is asked about once: the next Confirm plays it.
      T.foulAsked = true;
      toast(t("table.fouls_confirm", { reason: foul }), "error", 9000);
      render();
      return;
    }
    T.sending = send({ type: "action", action: S.placeAction(T) });
    if (T.sending !== null) {
      const mark = T.sending;
      setTimeout(() => { if (T.sending === mark) { T.sending = null; render(); } }, 8000);
    }
    render();
  }
  function declare(kind, yes) {
    const d = S.decision(T);
    if (!d || !S.canAct(T) || T.sending !== null) return;
    const action = kind === "surrender"
      ? { type: "surrender", seat: T.seat, hand: d.hand, version: T.view.version, surrender: yes }
      : { type: "claim_natural", seat: T.seat, hand: d.hand, version: T.view.version, claim: yes };
    T.sending = send({ type: "action", action });
    render();
  }
  function useAction(action) {
    const d = S.decision(T);
    if (!d) return;
    if (action.type !== "place") { declare(action.type === "surrender" ? "surrender" : "natural", action.type === "surrender" ? action.surrender : action.claim); return; }
    T.moves = [];
    for (const line of [...LINES, "discard"]) for (const c of action[line] || []) if (d.cards.includes(c)) T.moves.push({ card: c, to: line });
    T.selected = null;
    changed();
  }
  function askHint(auto = false) {
    if (!T.info || !T.info.hints) { toast(ERROR_WORDS.hints_disabled); return; }
    if (T.noHints) { toast(ERROR_WORDS.hints_unavailable); return; }
    if (T.hintPending) return;
    T.hintPending = true;
    T.autoPending = auto;
    if (send({ type: "hint" }) === null) { T.hintPending = false; T.autoPending = false; }
    render();
  }
  /** The rematch: the server seats every person of this table at a new one under the
   * seat key each already holds, so following is one click and needs no new link. */
  async function rematch() {
    const me = getSeat(tableId) || {};
    if (!T.info || !me.token) { if (T.rematchOffer) follow(); return; }
    try {
      const made = await api("POST", `/api/tables/${encodeURIComponent(tableId)}/rematch`, { token: me.token });
      follow(made.table.id, made.seat);
    } catch (err) {
      toast(t("table.rematch_failed", { reason: err.message }));
    }
  }
  function follow(id = T.rematchOffer && T.rematchOffer.id, seat = null) {
    if (!id) return;
    const me = getSeat(tableId) || {};
    if (!me.token) { navigate(`/watch/${encodeURIComponent(id)}`); return; }
    saveSeat(id, { token: me.token, seat: seat ?? me.seat, player: me.player, creator: !!me.creator });
    navigate(`/table/${encodeURIComponent(id)}`);
  }
  function leave() {
    if (!T.leaveAsk) { T.leaveAsk = true; render(); return; }
    T.leaveAsk = false;
    send({ type: "leave" });
    render();
  }
  async function kick(chair) {
    const me = getSeat(tableId) || {};
    try {
      await api("POST", `/api/tables/${encodeURIComponent(tableId)}/seats/${chair}/bot`, { token: me.token });
      toast(t("table.bot_plays_now"), "ok", 3000);
    } catch (err) {
      toast(t("table.kick_failed", { reason: err.message }));
    }
  }

  // ------------------------------------------------------------------ rendering
  // The markup is tableview.js's (pure); here it goes into the page.
  function render() {
    if (!T.alive) return;
    T.now = performance.now();
    const mainHTML = tableMainHTML(T, { tableId, me: getSeat(tableId) || {}, touch });
    if (!$(".table-screen", app)) {
      setHTML(app, html`<div class="table-screen"><div id="table-main"></div><aside class="side" id="side"></aside></div>`);
    }
    setHTML($("#table-main", app), mainHTML);
    renderSide();
  }

  function renderSide() {
    const side = $("#side", app);
    if (!side) return;
    // fairness.js builds its markup as a string and escapes its own text.
    setHTML(side, tableSideHTML(T, { tableId, fair: raw(fairWatch.html(T.hand, esc)) }));
    const log = $("#log", side);
    if (log) log.scrollTop = log.scrollHeight;
  }

  // ------------------------------------------------------------------ events
  function onClick(ev) {
    const t = ev.target;
    if (touchDrag.justDropped) { touchDrag.justDropped = false; return; }
    const mark = t.closest("[data-pair]");
    if (mark) {
      // A mark on a board points at its row of the breakdown: show and flash it.
      ev.preventDefault();
      const row = document.getElementById(mark.dataset.pair);
      if (row) {
        row.scrollIntoView({ block: "nearest" });
        row.classList.remove("flash");
        void row.offsetWidth;
        row.classList.add("flash");
      }
      return;
    }
    const pick = t.closest("[data-pick]");
    if (pick) {
      T.selected = T.selected === pick.dataset.pick ? null : pick.dataset.pick;
      render();
      return;
    }
    const un = t.closest("[data-unstage]");
    if (un) { unstage(un.dataset.unstage); return; }
    const act = t.closest("[data-act]");
    if (act) {
      const a = act.dataset.act;
      if (LINES.includes(a) || a === "discard") moveTo(a);
      else if (a === "undo") undo();
      else if (a === "reset") resetStaging();
      else if (a === "confirm") confirm();
      else if (a === "play") declare("surrender", false);
      else if (a === "surrender") declare("surrender", true);
      else if (a === "claim") declare("natural", true);
      else if (a === "noclaim") declare("natural", false);
      else if (a === "hint") askHint(false);
      else if (a === "auto") askHint(true);
      else if (a === "use-hint") { const h = T.hints && T.hints.actions[Number(act.dataset.index)]; if (h) useAction(h.action); }
      else if (a === "sort") { T.sortMode = { dealt: "rank", rank: "suit", suit: "dealt" }[S.sortMode(T)]; store.set("cp.sort", T.sortMode); render(); }
      else if (a === "decision") { T.decisionIndex = Number(act.dataset.index); T.sig = null; syncStaging(); render(); }
      else if (a === "replay") openReplay(tableId, Number(act.dataset.hand));
      else if (a === "copy-invite") copyText($("#invite-url", app).value);
      else if (a === "rematch") rematch();
      else if (a === "follow") follow();
      else if (a === "leave") leave();
      else if (a === "stay") { T.leaveAsk = false; render(); }
      else if (a === "next") { if (send({ type: "next" }) !== null) { T.nextSent = true; render(); } }
      else if (a === "kick") kick(Number(act.dataset.chair));
      return;
    }
    const drop = t.closest("[data-drop]");
    if (drop && drop.dataset.drop !== "hand") moveTo(drop.dataset.drop);
  }
  function onKey(ev) {
    if (ev.target.closest && ev.target.closest("input, textarea, select")) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if ($(".overlay")) return;
    const k = ev.key.toLowerCase();
    const cards = S.handCards(T);
    const i = keyIndex(ev.code, ev.shiftKey);
    if (i >= 0 || /^[0-9]$/.test(k)) {
      const j = i >= 0 ? i : (k === "0" ? 9 : Number(k) - 1);
      if (cards[j]) { T.selected = T.selected === cards[j] ? null : cards[j]; render(); ev.preventDefault(); }
      return;
    }
    if (k === "arrowright" || k === "arrowleft") {
      if (!cards.length) return;
      const at = cards.indexOf(T.selected);
      const j = at < 0 ? 0 : (at + (k === "arrowright" ? 1 : cards.length - 1)) % cards.length;
      T.selected = cards[j];
      render();
      ev.preventDefault();
      return;
    }
    const map = { t: "top", m: "middle", b: "bottom", x: "discard" };
    if (map[k]) { moveTo(map[k]); ev.preventDefault(); return; }
    if (k === "u" || k === "backspace") { undo(); ev.preventDefault(); return; }
    if (k === "enter") { confirm(); ev.preventDefault(); return; }
    if (k === "escape") { T.selected = null; render(); return; }
    if (k === "h" && S.decision(T)) { askHint(false); return; }
    if (k === "a" && S.decision(T) && S.decision(T).kind === "set") { askHint(true); }
  }
  function dropOn(zone, card) {
    if (!zone || !card) return;
    const to = zone.dataset.drop;
    const i = T.moves.findIndex((m) => m.card === card);
    if (i >= 0) {
      // moving a staged card: take it back first
      const prev = T.moves.splice(i, 1)[0];
      if (to === "hand") { changed(); return; }
      if (S.room(T, to) <= 0) { T.moves.splice(i, 0, prev); moveTo(to, card); return; }
    }
    if (to !== "hand") moveTo(to, card);
  }
  let dragCard = null;
  function onDragStart(ev) {
    const el = ev.target.closest("[data-pick], [data-unstage]");
    if (!el) return;
    dragCard = el.dataset.pick || el.dataset.unstage;
    ev.dataTransfer.setData("text/plain", dragCard);
    ev.dataTransfer.effectAllowed = "move";
  }
  function onDragOver(ev) {
    const z = ev.target.closest("[data-drop]");
    if (!z) return;
    ev.preventDefault();
    $$(".drop-hover", app).forEach((e) => e !== z && e.classList.remove("drop-hover"));
    z.classList.add("drop-hover");
  }
  function onDragLeave(ev) {
    const z = ev.target.closest("[data-drop]");
    if (z && !z.contains(ev.relatedTarget)) z.classList.remove("drop-hover");
  }
  function onDrop(ev) {
    const z = ev.target.closest("[data-drop]");
    if (!z) return;
    ev.preventDefault();
    const card = ev.dataTransfer.getData("text/plain") || dragCard;
    dragCard = null;
    z.classList.remove("drop-hover");
    dropOn(z, card);
  }
  // Touch drag (HTML5 drag and drop does not fire for fingers): a card follows the
  // finger once it moved 10 px, and drops on the line under it; a tap stays a tap.
  const touchDrag = { card: null, x: 0, y: 0, ghost: null, justDropped: false };
  function onTouchStart(ev) {
    const el = ev.target.closest("[data-pick], [data-unstage]");
    if (!el || ev.touches.length !== 1) return;
    touchDrag.card = el.dataset.pick || el.dataset.unstage;
    touchDrag.x = ev.touches[0].clientX;
    touchDrag.y = ev.touches[0].clientY;
    touchDrag.source = el;
  }
  function onTouchMove(ev) {
    if (!touchDrag.card) return;
    const t = ev.touches[0];
    if (!touchDrag.ghost) {
      if (Math.hypot(t.clientX - touchDrag.x, t.clientY - touchDrag.y) < 10) return;
      touchDrag.ghost = touchDrag.source.cloneNode(true);
      touchDrag.ghost.classList.add("drag-ghost");
      document.body.appendChild(touchDrag.ghost);
    }
    ev.preventDefault();
    touchDrag.ghost.style.left = `${t.clientX - 20}px`;
    touchDrag.ghost.style.top = `${t.clientY - 30}px`;
    const z = document.elementFromPoint(t.clientX, t.clientY);
    const zone = z && z.closest("[data-drop]");
    $$(".drop-hover", app).forEach((e) => e !== zone && e.classList.remove("drop-hover"));
    if (zone) zone.classList.add("drop-hover");
  }
  function onTouchEnd(ev) {
    if (!touchDrag.card) return;
    const card = touchDrag.card;
    touchDrag.card = null;
    if (!touchDrag.ghost) return;
    touchDrag.ghost.remove();
    touchDrag.ghost = null;
    const t = ev.changedTouches[0];
    const z = document.elementFromPoint(t.clientX, t.clientY);
    const zone = z && z.closest("[data-drop]");
    $$(".drop-hover", app).forEach((e) => e.classList.remove("drop-hover"));
    touchDrag.justDropped = true;
    setTimeout(() => { touchDrag.justDropped = false; }, 400);
    dropOn(zone, card);
  }

  app.addEventListener("click", onClick);
  app.addEventListener("dragstart", onDragStart);
  app.addEventListener("dragover", onDragOver);
  app.addEventListener("dragleave", onDragLeave);
  app.addEventListener("drop", onDrop);
  app.addEventListener("touchstart", onTouchStart, { passive: true });
  app.addEventListener("touchmove", onTouchMove, { passive: false });
  app.addEventListener("touchend", onTouchEnd);
  document.addEventListener("keydown", onKey);
  const tick = setInterval(() => {
    const now = performance.now();
    for (const el of $$("[data-timer]", app)) {
      const c = clockFor(T, Number(el.dataset.timer), now);
      if (!c) continue;
      const bar = clockBar(c);
      el.querySelector(".text").textContent = clockText(c);
      el.querySelector(".fill").style.width = `${(bar.fill * 100).toFixed(1)}%`;
      el.classList.toggle("low", bar.low);
      el.classList.toggle("bank", bar.bank);
    }
    const nx = $("[data-next]", app);
    if (nx && T.nextHandAt) nx.textContent = String(Math.max(0, Math.ceil((T.nextHandAt - now) / 1000)));
  }, 250);

  render();
  connect();
  T.send = send; T.render = render;
  return {
    stop() {
      T.alive = false;
      clearInterval(tick);
      document.removeEventListener("keydown", onKey);
      app.removeEventListener("click", onClick);
      app.removeEventListener("dragstart", onDragStart);
      app.removeEventListener("dragover", onDragOver);
      app.removeEventListener("dragleave", onDragLeave);
      app.removeEventListener("drop", onDrop);
      app.removeEventListener("touchstart", onTouchStart);
      app.removeEventListener("touchmove", onTouchMove);
      app.removeEventListener("touchend", onTouchEnd);
      if (T.ws) { const ws = T.ws; T.ws = null; ws.close(); }
    },
  };
}
