"""uvicorn's HTTP protocol, without the reference cycle a WebSocket upgrade leaves, and
its WebSocket protocol with a direct writer for state messages.

uvicorn's ``httptools`` protocol and its parser refer to each other (the parser calls
the protocol's bound methods). A plain HTTP connection breaks that cycle when it is
lost; a connection upgraded to a WebSocket never is (the socket is handed to the
WebSocket protocol), so each upgrade leaves the old protocol, its parser, flow control
and transport as cyclic garbage. Under the GC pacer (:class:`~chinese_poker.server.
scheduling.GcPacer`) that garbage is frozen while the socket is open and waits for the
next full collection: measured as ~25 objects per WebSocket ever opened, most of what
grew a server's memory from one 200-table run to the next (issue 9). The subclass drops
the parser once the upgrade is done, so reference counting frees the old protocol.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "READ_TEXT",
    "WRITE_TEXT",
    "Reader",
    "direct_reading",
    "direct_writer",
    "http_protocol",
    "text_frame",
    "websocket_protocol",
]


def http_protocol() -> Any:
    """The ``http`` setting for :class:`uvicorn.Config`: the cycle-free subclass of
    uvicorn's ``httptools`` protocol, or ``"auto"`` where httptools is not installed
    (uvicorn's pure-Python ``h11`` protocol keeps no such cycle)."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # pragma: no cover - depends on the installation
        return "auto"

    class UpgradeFreesHttpProtocol(HttpToolsProtocol):
        def handle_websocket_upgrade(self) -> None:
            super().handle_websocket_upgrade()
            # Nothing reads the parser after the hand-over (data_received returns
            # straight after this call); without it the protocol is acyclic.
            self.parser = None  # type: ignore[assignment]

    return UpgradeFreesHttpProtocol


WRITE_TEXT = "chinese_poker.write_text"
"""The scope key of a socket's direct writer (:func:`direct_writer`)."""

READ_TEXT = "chinese_poker.read_text"
"""The scope key of a socket's direct reading (:func:`direct_reading`)."""

Reader = Callable[[str | None], float | None]
"""Handed each message of a socket read directly (None: a binary one): it says 0.0 once
it has handled it, the seconds to wait before it is given the message again (reading
is paused meanwhile), or None to leave it, and what follows, to the ASGI ``receive``
until it asks to read directly again."""


def direct_writer(scope: Mapping[str, Any]) -> Callable[[str], bool] | None:
    """The socket's direct writer, if its protocol is :func:`websocket_protocol`'s: it
    writes one text message at once and says True, or writes nothing and says False
    (not open, pushed back, compressed): send it the ASGI way then."""
    writer: Callable[[str], bool] | None = scope.get(WRITE_TEXT)
    return writer


def direct_reading(scope: Mapping[str, Any]) -> Callable[[Reader], None] | None:
    """Where the socket's messages can be read directly, if its protocol is
    :func:`websocket_protocol`'s: called with a :data:`Reader`, the socket hands it each
    message as it is parsed, in order, instead of queueing it for the ASGI ``receive``
    (a message queued before is received there first). Its disconnection still comes
    through ``receive``."""
    reading: Callable[[Reader], None] | None = scope.get(READ_TEXT)
    return reading


def websocket_protocol(kind: str = "auto") -> Any:
    """The ``ws`` setting for :class:`uvicorn.Config`: for ``auto`` (and
    ``websockets-sansio``) uvicorn's sans-I/O websockets protocol with a direct writer
    (:func:`direct_writer`) and direct reading (:func:`direct_reading`), else ``kind``
    as uvicorn names it.

    Why: a state message sent through Starlette's and uvicorn's ASGI ``send`` costs two
    coroutines, three dictionaries and websockets' frame builder before its system call;
    the frame of an uncompressed text message is a two-to-ten byte header, written here
    with the message in one ``write``. A message received through the ASGI ``receive``
    waits for a queue, a task's turn and the middlewares' coroutines, and pauses and
    resumes reading the socket each time (measured in docs/benchmarks.md, "Server CPU
    per move")."""
    if kind not in ("auto", "websockets-sansio"):
        return kind
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import (
            WebSocketsSansIOProtocol,
        )
        from websockets.protocol import State
    except ImportError:  # pragma: no cover - depends on the installation
        return kind
    try:  # websockets' own unmasking, in C when it has it
        from websockets.speedups import apply_mask
    except ImportError:  # pragma: no cover - depends on the installation
        from websockets.utils import apply_mask

    class DirectProtocol(WebSocketsSansIOProtocol):
        reader: Reader | None = None
        held: list[str | bytes]  # read directly, not yet handled: waiting for the reader
        holding: asyncio.TimerHandle | None = None

        def handle_connect(self, event: Any) -> None:
            self.held = []
            super().handle_connect(event)
            scope = getattr(self, "scope", None)
            if scope is not None:
                scope[WRITE_TEXT] = self.write_text
                scope[READ_TEXT] = self.read_directly

        def connection_lost(self, exc: Exception | None) -> None:
            super().connection_lost(exc)
            # The scope holds bound methods and the reader holds the app's objects:
            # without this, protocol, scope and reader would stay a reference cycle
            # (see above) after the socket is gone.
            self.reader = None
            if self.holding is not None:
                self.holding.cancel()
                self.holding = None
            scope = getattr(self, "scope", None)
            if scope is not None:
                scope.pop(WRITE_TEXT, None)
                scope.pop(READ_TEXT, None)

        def write_text(self, text: str) -> bool:
            if (
                self.close_sent
                or self.disconnected
                or not self.handshake_complete
                or self.initial_response is not None
                or not self.writable.is_set()
                or self.conn.state is not State.OPEN
                # permessage-deflate: websockets compresses (and keeps its window)
                or self.conn.extensions
            ):
                return False
            self.transport.write(text_frame(text.encode()))
            return True

        def read_directly(self, reader: Reader) -> None:
            if not self.disconnected:
                self.reader = reader

        def data_received(self, data: bytes) -> None:
            text = self.whole_text(data) if self.reader is not None else None
            if text is None:
                super().data_received(data)
                return
            self.held.append(text)
            if len(self.held) == 1:
                self.hand_over()

        def whole_text(self, data: bytes) -> str | None:
            """The message of ``data`` when it is exactly one whole, final, masked text
            frame (what a client's move is, nearly always) arriving while websockets'
            parser waits for a new frame: unmasked and decoded here, as websockets would,
            without its parser's generators and frame objects. None for anything else
            (split, fragmented, control or binary frames, bad UTF-8, a closing socket):
            websockets reads those, and answers what is wrong as ever."""
            conn = self.conn
            if (
                len(data) < 6
                or data[0] != 0x81  # FIN, no reserved bits, text
                or data[1] < 0x80  # masked, as a client's frame must be
                or self.close_sent
                or self.frames
                or not self.queue.empty()
                or conn.state is not State.OPEN
                or conn.extensions
                or conn.current_size is not None  # within a fragmented message
                or conn.reader.buffer  # part of a frame came before
            ):
                return None
            size, start = data[1] & 0x7F, 6
            if size == 126:
                size, start = int.from_bytes(data[2:4], "big"), 8
                if size < 126:
                    return None
            elif size == 127:
                return None
            if len(data) != start + size or any(
                most is not None and size > most
                for most in (conn.max_message_size, conn.max_fragment_size)
            ):
                return None
            try:
                return apply_mask(data[start:], data[start - 4 : start]).decode()
            except UnicodeDecodeError:
                return None

        def send_receive_event_to_app(self) -> None:
            if self.reader is None or self.close_sent or not self.queue.empty():
                super().send_receive_event_to_app()  # behind what the app has to receive
                return
            data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
            if self.curr_msg_data_type == "text":
                try:
                    item: str | bytes = data.decode()
                except UnicodeDecodeError:  # pragma: no cover - uvicorn answers it
                    super().send_receive_event_to_app()
                    return
            else:
                item = data
            self.frames = []
            self.held.append(item)
            if len(self.held) == 1:
                self.hand_over()

        def hand_over(self) -> None:
            """Give the reader what is held, in order, as long as it takes it."""
            held = self.held
            while held and self.holding is None:
                reader = self.reader
                if reader is None or self.close_sent:
                    held.clear()  # the socket is closing: uvicorn drops them too
                    return
                item = held[0]
                wait = reader(item if isinstance(item, str) else None)
                if wait is None:  # the app receives it, and what follows, its own way
                    self.reader = None
                    for item in held:
                        if isinstance(item, str):
                            self.queue.put_nowait({"type": "websocket.receive", "text": item})
                        else:
                            self.queue.put_nowait({"type": "websocket.receive", "bytes": item})
                    held.clear()
                    if not self.read_paused:
                        self.read_paused = True
                        self.transport.pause_reading()
                    return
                if wait > 0:
                    self.transport.pause_reading()
                    self.holding = self.loop.call_later(wait, self.release)
                    return
                held.pop(0)

        def release(self) -> None:
            self.holding = None
            self.hand_over()
            if self.holding is None and not self.read_paused and not self.disconnected:
                self.transport.resume_reading()

    return DirectProtocol


def text_frame(payload: bytes) -> bytes:
    """One unmasked, final text frame (RFC 6455 section 5.2) as a server sends it."""
    n = len(payload)
    if n < 126:
        return bytes((0x81, n)) + payload
    if n < 65536:
        return b"\x81\x7e" + n.to_bytes(2, "big") + payload
    return b"\x81\x7f" + n.to_bytes(8, "big") + payload
