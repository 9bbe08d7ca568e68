// @ts-check
// The table screen: the server's messages given to the state, the player's intents
// carried out. Its parts are apart: the state (tablestate.js, with staging.js's rules),
// the input (tableinput.js: clicks, keys, drags as intents), the screen (tablepage.js,
// with tableview.js's markup) and the socket (tablesocket.js); this module joins them.

import { watchTable } from "../fairness.js";
import { banner, connBadge, copyText, isTouch, toast } from "./ui.js";
import { api, followTable, getSeat, keepCarriedSeat, loadStaging, saveSeat, saveStaging } from "./net.js";
import { cardLabel, store } from "./util.js";
import * as S from "./staging.js";
import * as state from "./tablestate.js";
import { listenToPlayer } from "./tableinput.js";
import { tablePage } from "./tablepage.js";
import { tableSocket } from "./tablesocket.js";
import { openReplay } from "./replay.js";
import { soundOn, toggleSound, turnAlerts } from "./turnalert.js";
import { t } from "./i18n.js";

export { errorText } from "./tablestate.js";

export function tableScreen(app, tableId, wanted, navigate) {
  keepCarriedSeat(); // a seat this browser held where the table was before it moved here
  const T = state.newTableState(tableId, wanted, getSeat(tableId), store.get("cp.sort", null));
  T.now = performance.now();
  /** @type {any} */ (window).__cp = T; // for tests and debugging
  const fairWatch = T.fair = watchTable(tableId, { send: (m) => send(m), rerender: () => renderSide() });
  const page = tablePage(app, T, { tableId, touch: isTouch(), fairWatch });
  const alerts = turnAlerts(T, { touch: isTouch() });
  T.sound = soundOn();
  const renderSide = page.renderSide;
  /** The screen again, and the turn alerts with it (the title, the icon, the live region). */
  function render() {
    page.render();
    alerts.update(performance.now());
  }
  T.render = render; // for tests: the screen drawn anew, as a state arriving does
  if (wanted === "seat" && !T.token) toast(t("table.no_seat_watching"), "info");

  const socket = tableSocket(T, tableId, { onMessage: (msg) => onMessage(msg), render: () => render() });
  const send = socket.send;

  function onMessage(msg) {
    fairWatch.onMessage(msg);
    switch (msg.type) {
      case "welcome": {
        const staleSeat = state.welcomed(T, msg);
        if (T.role === "seat") saveSeat(tableId, { seat: msg.seat, player: msg.player });
        connBadge(T.role === "seat" ? t("conn.connected_as", { player: msg.player }) : t("conn.watching"), true);
        banner(null);
        if (staleSeat) toast(staleSeat, "info", 10000);
        document.title = `${T.info.name} — ${t("common.title")}`;
        refreshLedger();
        render();
        break;
      }
      case "hand_start":
        state.handStarted(T, msg);
        break;
      case "state":
        state.viewArrived(T, msg, performance.now(), loadStaging(tableId));
        if (state.foulsWanted(T)) send({ type: "fouls" });
        render();
        break;
      case "fouls":
        if (state.foulsArrived(T, msg)) render();
        break;
      case "hand_end":
        state.handEnded(T, msg, performance.now());
        refreshLedger();
        render();
        break;
      case "session_end":
        state.sessionEnded(T, msg);
        refreshLedger();
        render();
        break;
      case "seats":
        state.seatsChanged(T, msg);
        refreshLedger(); // a new player's name belongs in the ledger at once
        render();
        break;
      case "notice":
        toast(state.noticeArrived(T, msg, (getSeat(tableId) || {}).seat), "info", 9000);
        render();
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
      case "hint": {
        const best = state.hintArrived(T, msg);
        if (best) useAction(best);
        else if (best === null) toast(t("table.no_arrangement"), "info");
        render();
        break;
      }
      case "error":
        if (fairWatch.owns(msg.ref)) break; // a contribution too late: nothing to tell
        state.refused(T, msg);
        toast(state.errorText(msg));
        if (msg.code === "stale" || msg.code === "no_hand") send({ type: "sync" });
        render();
        break;
      default:
        break;
    }
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

  // ------------------------------------------------------------------ the player's intents
  function changed() { saveStaging(tableId, T.sig, T.moves); socket.stage(); render(); }
  /** A staging step's answer (staging.stage's): null changed it, "" did nothing, else why not. */
  function staged(why) {
    if (why) toast(why, "info", 3000);
    if (why === null) changed();
    return why === null;
  }
  function confirm() {
    const step = state.confirmStep(T);
    if (step.kind === "none") return;
    if (step.kind === "place_first") {
      toast(t("table.place_first", { n: step.n, placed: step.placed }), "info", 3000);
      return;
    }
    if (step.kind === "foul") {
      // The question is the action bar's (confirm / change), not a toast over the cards.
      render();
      return;
    }
    T.sending = send({ type: "action", action: step.action });
    if (T.sending !== null) {
      const mark = T.sending;
      setTimeout(() => { if (T.sending === mark) { T.sending = null; render(); } }, 8000);
    }
    render();
  }
  function declare(kind, yes) {
    const action = state.declaration(T, kind, yes);
    if (!action) return;
    T.sending = send({ type: "action", action });
    render();
  }
  function useAction(action) {
    if (action.type === "place") { if (state.stageAction(T, action)) changed(); return; }
    if (!S.decision(T)) return;
    declare(action.type === "surrender" ? "surrender" : "natural", action.type === "surrender" ? action.surrender : action.claim);
  }
  function askHint(auto) {
    const refusal = state.hintRefusal(T);
    if (refusal) toast(refusal);
    if (refusal !== null) return;
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
  async function kick(chair) {
    const me = getSeat(tableId) || {};
    try {
      await api("POST", `/api/tables/${encodeURIComponent(tableId)}/seats/${chair}/bot`, { token: me.token });
      toast(t("table.bot_plays_now"), "ok", 3000);
    } catch (err) {
      toast(t("table.kick_failed", { reason: err.message }));
    }
  }

  /**
   * Carries out one of the player's intents (tableinput.js): true when it did something
   * (a key's default is then prevented where the key says so).
   * @param {import("./tableinput.js").Intent} intent
   */
  function carry(intent) {
    T.stageNote = null; // a note on the last step lasts until the next one
    switch (intent.type) {
      case "show-pair": page.showPair(intent.id); return true;
      case "pick": state.pick(T, intent.card); render(); return true;
      case "pick-nth": if (!state.pickNth(T, intent.index)) return false; render(); return true;
      case "pick-next": if (!state.pickNext(T, intent.forward)) return false; render(); return true;
      case "unpick": if (!state.foulChange(T)) T.selected = null; render(); return true;
      case "foul-change": state.foulChange(T); render(); return true;
      case "stage": return staged(S.stage(T, intent.line));
      case "drop": return staged(state.dropCard(T, intent.to, intent.card));
      case "unstage": {
        const tap = state.tapStaged(T, intent.card, intent.line);
        if (tap.placing) return staged(tap.why);
        if (!tap.tookBack) return false;
        // Said beside the hand, not in a toast over the cards and the discard zone.
        T.stageNote = t("table.took_back", { card: cardLabel(intent.card) });
        changed();
        return true;
      }
      case "undo": if (!state.takeBack(T)) return false; changed(); return true;
      case "reset": state.clearStaging(T); changed(); return true;
      case "confirm": confirm(); return true;
      case "declare": declare(intent.kind, intent.yes); return true;
      case "hint":
        if (intent.key && !state.hintKeyFits(T, intent.auto)) return false;
        askHint(intent.auto);
        return true;
      case "use-hint": {
        const h = T.hints && T.hints.actions[intent.index];
        if (h) useAction(h.action);
        return !!h;
      }
      case "sort": store.set("cp.sort", state.nextSortMode(T)); render(); return true;
      case "decision": state.chooseDecision(T, intent.index, loadStaging(tableId)); render(); return true;
      case "replay": openReplay(tableId, intent.hand); return true;
      case "copy-invite": copyText(/** @type {HTMLInputElement} */ (app.querySelector("#invite-url")).value); return true;
      case "rematch": rematch(); return true;
      case "follow": follow(); return true;
      case "leave": if (state.leaveStep(T)) send({ type: "leave" }); render(); return true;
      case "stay": T.leaveAsk = false; render(); return true;
      case "next": if (send({ type: "next" }) === null) return false; T.nextSent = true; render(); return true;
      case "kick": kick(intent.chair); return true;
      case "sound": T.sound = toggleSound(); render(); return true;
      default: return false;
    }
  }

  const stopListening = listenToPlayer(app, carry);
  const ticking = setInterval(() => { const now = performance.now(); page.tick(now); alerts.update(now); }, 250);

  render();
  socket.connect();
  T.send = send; T.render = render;
  return {
    stop() {
      T.alive = false;
      clearInterval(ticking);
      alerts.stop();
      stopListening();
      socket.close();
    },
  };
}
