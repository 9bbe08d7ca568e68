"""The server's deferred work (scheduling.Deferred): settlements wait for the
acknowledgements, but are never starved; and the fair share of the hint worker
(fair_share.FairShare): one client's flood leaves others their hints."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient

from _helpers import FakeClock
from _redis import RedisServer
from chinese_poker.server import scheduling
from chinese_poker.server.app import create_app
from chinese_poker.server.fair_share import FairShare, SharedPlaces
from chinese_poker.server.guard import RateSpec
from chinese_poker.server.scheduling import Deferred


def stopped_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """The deferred work's clock, moved only by the test: how quiet the loop has been and
    how long a piece has waited are what the test says, however slowly the machine runs
    the loop (its timers still fire on the loop's real clock)."""
    clock = FakeClock()
    monkeypatch.setattr(scheduling, "time", SimpleNamespace(perf_counter=clock))
    return clock


async def until_done(done: list[Any], count: int = 1) -> None:
    """Let the loop run until ``done`` has ``count`` entries (a generous bound on the wait)."""
    for _ in range(10_000):
        if len(done) >= count:
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"the deferred work never ran: {done}")


def test_deferred_work_waits_while_messages_are_handled_then_runs_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = stopped_clock(monkeypatch)
    monkeypatch.setattr(scheduling, "DEFER_MAX_WAIT", 30.0)

    async def main() -> list[str]:
        done: list[str] = []
        deferred = Deferred()
        deferred.busy()
        deferred.add(lambda: done.append("a"))
        deferred.add(lambda: done.append("b"))
        assert len(deferred) == 2
        for _ in range(200):  # a message every half quiet period: never quiet
            clock.now += scheduling.DEFER_QUIET / 2
            deferred.busy()
            await asyncio.sleep(scheduling.DEFER_QUIET)  # its timer does fire, and waits on
            assert done == []
        clock.now += 2 * scheduling.DEFER_QUIET  # quiet now
        await until_done(done, 2)
        return done

    assert asyncio.run(main()) == ["a", "b"]


def test_deferred_work_is_not_starved_by_a_steady_flow_of_messages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = stopped_clock(monkeypatch)

    async def main() -> list[float]:
        ran: list[float] = []
        deferred = Deferred()
        added = clock.now
        deferred.add(lambda: ran.append(clock.now - added))
        for _ in range(10_000):
            if ran:
                break
            clock.now += scheduling.DEFER_QUIET / 2
            deferred.busy()  # never quiet
            await asyncio.sleep(scheduling.DEFER_QUIET / 2)
        return ran

    ran = asyncio.run(main())
    assert ran, "starved"
    # Never quiet, so it ran because it had waited DEFER_MAX_WAIT (and not before).
    assert ran[0] >= scheduling.DEFER_MAX_WAIT


def test_deferred_work_runs_in_slices_and_survives_a_failing_piece(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = stopped_clock(monkeypatch)
    slices: list[int] = []

    async def main() -> list[int]:
        done: list[int] = []
        deferred = Deferred()
        loop = asyncio.get_running_loop()
        marks: list[int] = []

        def piece(i: int) -> None:
            if i == 3:
                raise RuntimeError("boom")
            clock.now += 0.002  # each piece takes 2 ms: a slice of 3 ms holds two
            done.append(i)

        for i in range(8):
            deferred.add(lambda i=i: piece(i))  # type: ignore[misc]

        def count() -> None:  # between slices the loop runs other callbacks
            marks.append(len(done))
            if len(done) < 7:
                loop.call_soon(count)

        loop.call_soon(count)
        await until_done(done, 7)
        slices.extend(sorted(set(marks)))
        return done

    monkeypatch.setattr(scheduling, "DEFER_SLICE", 0.003)
    with caplog.at_level(logging.ERROR):
        done = asyncio.run(main())
    assert done == [0, 1, 2, 4, 5, 6, 7]
    assert "deferred work failed" in caplog.text
    assert slices == [2, 4, 6, 7]  # two pieces a slice (the failing one took no time)


def test_drain_runs_everything_now() -> None:
    async def main() -> list[int]:
        done: list[int] = []
        deferred = Deferred()
        deferred.busy()
        for i in range(3):
            deferred.add(lambda i=i: done.append(i))  # type: ignore[misc]
        deferred.drain()
        assert len(deferred) == 0
        await asyncio.sleep(scheduling.DEFER_QUIET * 3)
        return done

    assert asyncio.run(main()) == [0, 1, 2]


# --------------------------------------------------------------------------- fair share


def test_a_player_holds_at_most_his_share_of_the_places() -> None:
    share = FairShare(places=5, per_player=2)
    mine = [share.take("10.0.0.1") for _ in range(3)]
    assert mine[0] is not None and mine[1] is not None and mine[2] is None
    others = [share.take(f"10.0.0.{i}") for i in range(2, 6)]
    assert [p is not None for p in others] == [True, True, True, False]  # 5 on the server
    share.give_back(mine[0])
    assert share.take("10.0.0.9") is not None  # the place given back is anybody's
    assert share.held == 5


def test_the_worker_goes_round_the_players_waiting() -> None:
    async def main() -> list[str]:
        share = FairShare(places=32, per_player=4)
        order: list[str] = []
        gate = asyncio.Event()

        async def job(player: str, name: str) -> None:
            place = share.take(player)
            assert place is not None
            try:
                async with share.turn(player):
                    order.append(name)
                    await gate.wait()
            finally:
                share.give_back(place)

        tasks = [asyncio.create_task(job("flood", f"flood{i}")) for i in range(4)]
        await asyncio.sleep(0)
        tasks += [asyncio.create_task(job(p, p)) for p in ("alice", "bob")]
        await asyncio.sleep(0)
        gate.set()
        await asyncio.gather(*tasks)
        return order

    # The flood's first job had the worker; then each of the others before its second.
    assert asyncio.run(main()) == ["flood0", "alice", "bob", "flood1", "flood2", "flood3"]


def test_a_job_cancelled_while_waiting_or_just_given_its_turn_does_not_keep_the_worker() -> None:
    async def main() -> list[str]:
        share = FairShare(places=8, per_player=8)
        order: list[str] = []

        async def job(name: str) -> None:
            async with share.turn(name):
                order.append(name)

        holding = share.turn("a")
        await holding.__aenter__()
        waiting = asyncio.create_task(job("b"))
        given = asyncio.create_task(job("c"))
        last = asyncio.create_task(job("d"))
        await asyncio.sleep(0)
        waiting.cancel()  # still waiting: forgotten
        await asyncio.sleep(0)
        await holding.__aexit__(None, None, None)  # "c" is given the turn (no wait here) ...
        given.cancel()  # ... and cancelled before it runs: it passes the turn on
        await asyncio.gather(given, waiting, return_exceptions=True)
        await asyncio.wait_for(last, 5)
        return order

    assert asyncio.run(main()) == ["d"]


def addressed(app: Any) -> Any:
    """``app`` with each request's client address taken from ``x-test-address`` (the
    test's clients all come from one place; a server sees different people)."""

    async def asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            for name, value in scope.get("headers", ()):
                if name == b"x-test-address":
                    scope = {**scope, "client": (value.decode(), 50000)}
        await app(scope, receive, send)

    return asgi


def test_one_clients_hint_flood_leaves_others_their_hints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One address holding 40 seats asks a hint at each (more than the server's
    :data:`HINT_QUEUE`): it gets its share, the rest ``busy``; a hint asked at another
    table from another address is answered, before the flood's second."""
    import chinese_poker.ai.hints as hints

    seats = 40
    assert seats > scheduling.HINT_QUEUE  # the flood alone used to fill the queue
    gate = threading.Event()
    answered: list[str] = []

    def slow_hint(view: Any, **kwargs: Any) -> list[Any]:
        assert gate.wait(60)
        answered.append(str(view.player))
        return []

    monkeypatch.setattr(hints, "hint", slow_hint)
    app = create_app(
        f"sqlite:///{tmp_path / 'db.sqlite'}",
        hint_processes=False,
        rate_limits=RateSpec(create="1000/minute", join="1000/minute"),
    )
    flooder = {"x-test-address": "10.0.0.66"}
    other = {"x-test-address": "10.0.0.7"}
    with TestClient(addressed(app)) as client, contextlib.ExitStack() as sockets:

        def seat_to_act(name: str, headers: dict[str, str]) -> Any:
            made = client.post(
                "/api/tables",
                json={
                    "seats": [{"kind": "human", "name": name}, {"kind": "bot", "bot": "random"}],
                    "bot_delay": 0,
                    "next_hand_delay": 0,
                },
                headers=headers,
            )
            assert made.status_code == 201, made.text
            tid = made.json()["table"]["id"]
            ws = sockets.enter_context(
                client.websocket_connect(f"/ws/tables/{tid}?role=seat", headers=headers)
            )
            ws.send_json({"type": "auth", "token": made.json()["token"]})
            while True:  # the bot places first: until then a hint is no_hand
                m = ws.receive_json()
                if m["type"] == "state" and m["view"]["seat"] in m["view"]["to_act"]:
                    return ws

        flood = [seat_to_act(f"flood{i}", flooder) for i in range(seats)]
        victim = seat_to_act("victim", other)
        try:
            for i, ws in enumerate(flood):
                ws.send_json({"type": "hint", "id": i})
            refused = 0
            for ws in flood:
                ws.send_json({"type": "ping", "id": "end"})
                while (m := ws.receive_json())["type"] != "pong":
                    if m["type"] == "error":
                        assert m["code"] == "busy", m
                        refused += 1
            assert refused == seats - scheduling.HINT_PER_PLAYER
            victim.send_json({"type": "hint", "id": "mine"})
            victim.send_json({"type": "ping", "id": "end"})
            while (m := victim.receive_json())["type"] != "pong":
                assert m["type"] != "error", m  # today: busy
        finally:
            gate.set()
        while (m := victim.receive_json())["type"] != "hint":
            pass
        assert m["ref"] == "mine"
        for ws in flood[: scheduling.HINT_PER_PLAYER]:
            while (m := ws.receive_json())["type"] != "hint":
                pass
    assert answered == ["flood0", "victim", "flood1"]  # round robin: before the second


def test_a_players_share_is_one_over_every_process_sharing_a_redis(
    redis_server: RedisServer,
) -> None:
    """Two processes' queues (two FairShares) on one Redis: a player's third place is
    refused at the other process too; given back, it is free again. While Redis is
    down each counts its own, and no place is refused for it."""
    here = FairShare(32, 2, shared=SharedPlaces(redis_server.url))
    there = FairShare(32, 2, shared=SharedPlaces(redis_server.url))

    async def run() -> None:
        first = await here.take_admitted("10.0.0.1")
        second = await there.take_admitted("10.0.0.1")
        assert first is not None and second is not None
        assert await there.take_admitted("10.0.0.1") is None
        assert await here.take_admitted("10.0.0.1") is None
        assert there.held == 1 and here.held == 1  # the refused places given back here
        assert await there.take_admitted("10.0.0.2") is not None  # somebody else
        here.give_back(first)
        await asyncio.sleep(0.1)  # given back in Redis without the caller waiting
        again = await there.take_admitted("10.0.0.1")
        assert again is not None
        redis_server.kill()
        alone = FairShare(32, 2, shared=SharedPlaces(redis_server.url))
        assert await alone.take_admitted("10.0.0.1") is not None
        assert await alone.take_admitted("10.0.0.1") is not None
        assert await alone.take_admitted("10.0.0.1") is None  # its own count still holds
        there.give_back(again)  # Redis gone: the place is still given back here
        await asyncio.sleep(0.1)
        assert there.held == 2

    asyncio.run(run())


def test_places_given_back_during_a_redis_blip_are_freed_once_it_answers(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A place whose giving back failed is removed with the next take that reaches
    Redis: a blip does not leave the player refused on every process until expiry."""
    import redis.asyncio

    from chinese_poker.server import redis_link

    clock = [1000.0]
    monkeypatch.setattr(redis_link, "retry_clock", lambda: clock[0])
    here = FairShare(32, 2, shared=SharedPlaces(redis_server.url))
    there = FairShare(32, 2, shared=SharedPlaces(redis_server.url))

    async def down(*args: object) -> int:
        raise redis.ConnectionError("Redis blinked")

    async def run() -> None:
        held = [await here.take_admitted("10.0.0.1"), await here.take_admitted("10.0.0.1")]
        with monkeypatch.context() as blip:
            blip.setattr(redis.asyncio.Redis, "zrem", down)
            for place in held:
                assert place is not None
                here.give_back(place)  # Redis fails: the places stay in its set for now
            await asyncio.sleep(0.1)
        clock[0] += redis_link.REDIS_RETRY_SECONDS + 0.1
        assert await there.take_admitted("10.0.0.9") is not None  # this process saw no blip
        mine = await here.take_admitted("10.0.0.2")  # the first take here reaching Redis
        assert mine is not None
        first = await there.take_admitted("10.0.0.1")
        second = await there.take_admitted("10.0.0.1")
        assert first is not None and second is not None  # the two owed places are gone

    asyncio.run(run())


def test_a_turn_held_on_a_loop_that_is_gone_does_not_hold_the_next_loops_work() -> None:
    share = FairShare(places=8, per_player=2)

    async def hold_forever() -> None:
        await share.turn("a").__aenter__()  # never given back: its loop ends meanwhile

    async def job() -> str:
        async with share.turn("b"):
            return "ran"

    asyncio.run(hold_forever())
    assert asyncio.run(asyncio.wait_for(job(), 5)) == "ran"
