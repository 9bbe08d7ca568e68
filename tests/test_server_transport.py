"""What the server sends and how: the HTTP protocol it runs under uvicorn
(server/transport.py), where a connection upgraded to a WebSocket leaves no reference
cycle behind (issue 9: under the GC pacer each upgrade's cycle was frozen alive, most of
a server's memory growth between runs); and the state messages (server/connections.py),
whose view is the engine's own ``View.to_dict()``."""

from __future__ import annotations

import asyncio
import gc
import json
import random
import weakref
from typing import Any

import pytest

from chinese_poker.engine import Table
from chinese_poker.engine.views import View, public_log_entry
from chinese_poker.rules import rules_for
from chinese_poker.server.connections import ViewCache

pytest.importorskip("httptools")

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from chinese_poker.server.transport import http_protocol

UPGRADE = (
    b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


class FakeTransport(asyncio.Transport):
    """What uvicorn's protocols ask of a socket, in memory."""

    def __init__(self) -> None:
        super().__init__()
        self.protocol: Any = None
        self.written: list[bytes] = []
        self.closed = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(
            name, default
        )

    def set_protocol(self, protocol: Any) -> None:
        self.protocol = protocol

    def write(self, data: Any) -> None:
        self.written.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def app(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        await receive()


def upgraded_protocol_is_freed(protocol_class: Any) -> bool:
    """Upgrade one connection with ``protocol_class``; is the HTTP protocol freed by
    reference counting alone (the collector off) once the WebSocket has the socket?"""

    async def run() -> bool:
        config = Config(app, http=protocol_class, ws="auto", log_level="error")
        config.load()
        transport = FakeTransport()
        protocol = protocol_class(config=config, server_state=ServerState(), app_state={})
        protocol.connection_made(transport)
        protocol.data_received(UPGRADE)
        for _ in range(5):  # the WebSocket's ASGI task accepts
            await asyncio.sleep(0)
        assert transport.protocol is not None and transport.protocol is not protocol
        assert any(b"101" in w for w in transport.written), transport.written
        gone = weakref.ref(protocol)
        del protocol
        freed = gone() is None
        transport.protocol.connection_lost(None)
        for _ in range(5):
            await asyncio.sleep(0)
        return freed

    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        return asyncio.run(run())
    finally:
        if enabled:
            gc.enable()


def test_an_upgraded_connection_frees_its_http_protocol_without_the_collector() -> None:
    assert upgraded_protocol_is_freed(http_protocol())


def test_uvicorns_own_protocol_keeps_the_cycle_this_module_breaks() -> None:
    """The reason for the subclass: if uvicorn ever breaks the cycle itself, this fails
    and the subclass can go."""
    assert not upgraded_protocol_is_freed(HttpToolsProtocol)


@pytest.mark.parametrize(
    "preset", ["ofc", "pineapple-progressive", "turbo", "classic", "criss-cross"]
)
def test_a_state_message_holds_the_engines_view_and_log(preset: str) -> None:
    """At every step of hands with Fantasyland, for every seat and a spectator: the
    message's view is exactly ``view.to_dict()`` without the rules (the welcome has
    them) and its log the engine's redaction."""
    rules = rules_for(preset)
    rng = random.Random(1)
    players = 3 if preset != "criss-cross" else 2
    for hand in range(3):
        fl = {0: 14 if "pineapple" in preset else 13} if rules.is_open_face and hand else {}
        table = Table(rules, players, seed=hand, fantasyland=fl)
        cache = ViewCache()
        while True:
            for seat in [*range(players), None]:
                view = table.view(seat)
                last = table.log[-1] if table.log else None
                text = cache.state_message(table, table_id="t", hand=hand, seat=seat,
                    last=last, ack=None, clocks=[], commitment=None, with_log=True)  # fmt: skip
                message = json.loads(text)
                assert message["view"] == json.loads(json.dumps(view.to_dict(with_rules=False)))
                hidden = view.hidden_boards
                assert message["log"] == [public_log_entry(e, seat, hidden) for e in table.log]
            if table.over:
                break
            table.apply(table.random_action(table.to_act[0], rng))


@pytest.mark.parametrize("preset", ["pineapple", "ofc", "classic", "criss-cross"])
def test_one_actions_messages_are_each_sockets_own(preset: str) -> None:
    """The messages of one action, built together for every socket (two of one seat, a
    spectator, the actor's with its ack), are each byte for byte the one built for that
    socket alone, with the view it was built from."""
    rules = rules_for(preset)
    rng = random.Random(2)
    players = 2 if preset == "criss-cross" else 3
    fl = {1: 14 if "pineapple" in preset else 13} if rules.is_open_face else {}
    table = Table(rules, players, seed=4, fantasyland=fl)
    together = ViewCache()
    clocks = [{"seat": s, "bank": 30.0} for s in range(players)]
    while not table.over:
        actor = table.to_act[0]
        table.apply(table.random_action(actor, rng))
        last = table.log[-1]
        seats: list[tuple[int | None, object]] = [
            (None, None), *((s, "ref" if s == actor else None) for s in range(players)),
            (0, None),
        ]  # fmt: skip
        texts = together.state_messages(table, table_id="t", hand=1, seats=seats,
            last=last, clocks=clocks, commitment="c")  # fmt: skip
        for (seat, ack), text in zip(seats, texts, strict=True):
            alone = ViewCache().state_message(table, table_id="t", hand=1, seat=seat,
                last=last, ack=ack, clocks=clocks, commitment="c")  # fmt: skip
            assert text == alone
            view = table.view(seat).to_dict(with_rules=False)
            assert json.loads(text)["view"] == json.loads(json.dumps(view))


def test_a_views_rules_are_left_out_only_when_asked() -> None:
    """The play socket's views leave the rules out (its welcome has them); the engine's
    own form keeps them, in their place, and rebuilds the same view."""
    table = Table(rules_for("pineapple"), 2, seed=2)
    view = table.view(0)
    whole = view.to_dict()
    short = view.to_dict(with_rules=False)
    assert list(whole) == ["seat", "player", "players", "rules", *list(short)[3:]]
    assert {**short, "rules": table.rules.to_dict()} == whole
    assert View.from_dict({**short, "rules": table.rules.to_dict()}) == view
    text = ViewCache().state_message(table, table_id="t", hand=1, seat=0, last=None,
        ack=None, clocks=[], commitment=None)  # fmt: skip
    assert "rules" not in json.loads(text)["view"]
