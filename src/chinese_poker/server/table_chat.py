"""Chat at a live table (docs/server-protocol.md "Chat"; issue 40 item 9).

A ``chat`` message carries either one of the quick :data:`PHRASES` (a key: each reader's
page shows it in his own language) or free text, normalised (NFC, every run of white
space one space) and refused when empty, longer than :data:`TEXT_LIMIT`, or holding
what a player's name may not hold (``engine.table.showable_line``). Each seat (and each
spectator's address, where the table lets spectators chat) may say a few lines at once
and then a steady few a minute (:data:`BURST`, :data:`STEADY`: moving windows of the
``limits`` library, as the server's guard counts); past that only the sender is told
(``busy``).

What is kept: the last :data:`KEEP_LINES` lines, with the table's live state
(``tables.live``, ``TableGame.chat``) while its session is played, so a socket that
reconnects, or another process taking the table over, gets them back; when the session
ends the stored lines are deleted, and lines said after the end live only in this
process's memory until the finished table leaves it. Chat is never part of a hand's
history, an export, a view or the bot protocol. Bots do not chat. Muting a player is the
reader's own choice, kept in his browser: the server sends every line to every reader.
"""

from __future__ import annotations

import time
import unicodedata
from typing import TYPE_CHECKING, Any, Literal

from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from chinese_poker.engine.table import showable_line
from chinese_poker.server.db import compact_json
from chinese_poker.server.messages import ErrorCode, validation_message
from chinese_poker.server.table_part import TablePart

if TYPE_CHECKING:
    from chinese_poker.server.connections import Conn
    from chinese_poker.server.tables import LiveTable

__all__ = [
    "BURST",
    "CHAT",
    "KEEP_LINES",
    "PHRASES",
    "STEADY",
    "TEXT_LIMIT",
    "ChatMsg",
    "TableChat",
    "chat_text",
]

CHAT = "chat"
"""The ``type`` of a chat message, both ways."""

TEXT_LIMIT = 200
"""The most characters of a line of free text, after normalising."""

KEEP_LINES = 50
"""How many of a table's last lines are kept (and sent to a socket that joins)."""

PHRASES = ("hello", "gl", "gg", "nh", "wp", "thinking", "thanks", "sorry", "oops", "bye")
"""The quick phrases, as keys; their words are the catalogues' ``chat.phrase.<key>``."""

BURST = parse("4 per 10 seconds")
"""Lines one seat may say at once."""

STEADY = parse("12 per minute")
"""Lines one seat may say in a row, after the burst."""

# Counted in this process's memory, at once (no wait on Redis): a table's chat reaches
# only the process that plays the table, so its seats' counts need no sharing.
_COUNTS = MovingWindowRateLimiter(MemoryStorage())

Phrase = Literal["hello", "gl", "gg", "nh", "wp", "thinking", "thanks", "sorry", "oops", "bye"]


class ChatMsg(BaseModel):
    """A line a client says: free ``text`` or a quick ``phrase``, exactly one."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["chat"]
    id: StrictInt | str | None = Field(default=None, description="echoed as 'ref'")
    text: StrictStr | None = Field(default=None, max_length=4 * TEXT_LIMIT)
    phrase: Phrase | None = None


def chat_text(text: str) -> str | None:
    """``text`` as it is shown (NFC, every run of white space one space, no space at
    either end), or None if it may not be said: empty, invisible, with a control
    character or a direction override, or longer than :data:`TEXT_LIMIT`.

    >>> chat_text("  nice\\n\\thand  ")
    'nice hand'
    >>> chat_text("\\u200b"), chat_text("a\\x00b"), chat_text("x" * 201)
    (None, None, None)
    """
    shown = " ".join(unicodedata.normalize("NFC", text).split())
    if not shown or len(shown) > TEXT_LIMIT or not showable_line(shown):
        return None
    return shown


class TableChat(TablePart):
    """One table's chat: who may say and read it, its limits and its kept lines."""

    def __init__(self, live: LiveTable) -> None:
        super().__init__(live)
        # Whether tables.live holds lines that must go when the session ends.
        self.stored = bool(live.game.chat)
        self.said = max((line["n"] for line in live.game.chat), default=0)

    def may_chat(self, conn: Conn) -> bool:
        """Players always; spectators where the table lets them."""
        return conn.chair is not None or self.live.spec.spectator_chat

    def hear(self, conn: Conn, data: dict[str, Any]) -> None:
        """A client's ``chat`` message: checked, kept, then sent to every reader."""
        live = self.live
        ref = data.get("id")
        dispatch = live.dispatch
        if not self.may_chat(conn):
            message = "this table does not let spectators chat"
            dispatch.error(conn, ref, ErrorCode.READ_ONLY, message)
            return
        try:
            msg = ChatMsg.model_validate(data)
        except ValidationError as exc:
            dispatch.error(conn, ref, ErrorCode.BAD_MESSAGE, validation_message(exc))
            return
        line = self._line(conn, msg)
        if isinstance(line, str):
            dispatch.error(conn, msg.id, ErrorCode.BAD_MESSAGE, line)
            return
        if not self._within_limits(conn):
            message = "too many chat lines; wait a few seconds"
            dispatch.error(conn, msg.id, ErrorCode.BUSY, message)
            return
        game = live.game
        game.chat = [*game.chat, line][-KEEP_LINES:]
        if game.status != "finished":
            if not live.ownership.save_live():  # not stored: never said
                game.chat = [kept for kept in game.chat if kept is not line]
                if live.gone is None:
                    message = "the line could not be stored; say it again"
                    dispatch.error(conn, msg.id, ErrorCode.SERVER_ERROR, message)
                return
            self.stored = True
        self.said = line["n"]
        text = compact_json({"type": CHAT, "ref": msg.id, "line": line})
        for reader in live.conns:
            if self.may_chat(reader):
                reader.send(text)

    def _line(self, conn: Conn, msg: ChatMsg) -> dict[str, Any] | str:
        """The line ``msg`` says, or why it may not be said."""
        if (msg.text is None) == (msg.phrase is None):
            return "a chat message has either a text or a phrase"
        line: dict[str, Any] = {"n": self.said + 1, "at": round(time.time(), 3)}
        chair = conn.chair
        if chair is None:
            line.update(seat=None, name=None)
        else:
            line.update(seat=chair, name=self.live.game.chairs[chair].player)
        if msg.phrase is not None:
            line["phrase"] = msg.phrase
            return line
        assert msg.text is not None
        shown = chat_text(msg.text)
        if shown is None:
            return (
                f"a chat line is 1 to {TEXT_LIMIT} visible characters, without control"
                " characters or direction overrides"
            )
        line["text"] = shown
        return line

    def _within_limits(self, conn: Conn) -> bool:
        """Count one line of the sender (a seat, or a spectator's address): False when
        over the burst or the steady rate (then nothing is counted)."""
        who = f"seat {conn.chair}" if conn.chair is not None else f"watcher {conn.address}"
        keys = (CHAT, self.live.id, who)
        if not (_COUNTS.test(BURST, *keys) and _COUNTS.test(STEADY, *keys)):
            return False
        _COUNTS.hit(BURST, *keys)
        _COUNTS.hit(STEADY, *keys)
        return True

    def welcome(self, conn: Conn) -> None:
        """A socket joined: the lines kept, if there are any and it may read them (a table
        nobody spoke at sends nothing more than before the chat)."""
        lines = self.live.game.chat
        if lines and self.may_chat(conn):
            conn.send(compact_json({"type": "chat_lines", "lines": lines}))

    def session_over(self) -> None:
        """Once the session's end is stored: delete the stored lines (the readers still
        at the table keep what they were sent)."""
        live = self.live
        if self.stored and live.game.status == "finished" and live.ownership.save_live():
            self.stored = False
