// @ts-check
// The table's socket: the seat key in the first message, each message handed on, a drop
// reconnected with a growing delay, and a close the server explains (CLOSE_WORDS) kept in
// T.closed for the screen to say. Its bookkeeping lives in T (ws, msgId, retry, sending).

import { banner, connBadge, toast } from "./ui.js";
import { CLOSE_WORDS } from "./words.js";
import { closedWith } from "./tablestate.js";
import { t } from "./i18n.js";
import { tableChat } from "./chat.js";
import { tableHolds } from "./tablehold.js";
import { stageMessage } from "./staging.js";

/**
 * The socket of table `tableId` for the state T: `onMessage` gets each message, `render`
 * is called when a close changes what the screen shows. connect() opens it; send(msg)
 * returns the message's id, or null (a toast says so) when the socket is not open;
 * close() ends it without reconnecting (T.alive false already stops any retry).
 * @param {any} T @param {string} tableId
 * @param {{ onMessage: (msg: any) => void, render: () => void }} handlers
 */
export function tableSocket(T, tableId, { onMessage, render }) {
  // The chat rides on the table's socket: its messages and errors stop here (chat.js).
  const chat = T.chat = tableChat(T, tableId, { send: (msg) => send(msg) });
  // The holds of the next deal (tablehold.js) take their own messages too.
  const holds = tableHolds(T, tableId, { send: (msg) => send(msg), render: () => render() });

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
      if (!chat.onMessage(msg) && !holds.onMessage(msg)) onMessage(msg);
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
        if (closedWith(T, ev.code, words)) setTimeout(connect, 300);
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

  /** The staging to the server when it changed (what a timeout keeps), quietly: nothing
   * is said if the socket is closed (the server keeps what it had). */
  function stage() {
    const msg = stageMessage(T);
    const key = msg && JSON.stringify(msg);
    if (!msg || key === T.stageSent || !T.ws || T.ws.readyState !== WebSocket.OPEN) return;
    T.stageSent = key;
    send(msg);
  }

  /** Closes it for good (the screen is left). */
  function close() {
    chat.stop();
    holds.stop();
    if (T.ws) { const ws = T.ws; T.ws = null; ws.close(); }
  }

  return { connect, send, close, stage };
}
