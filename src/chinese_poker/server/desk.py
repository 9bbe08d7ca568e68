"""The study desk over HTTP: scoring, the solvers, hints and the trainer (issue #14).

Every endpoint takes what a person can type (cards as ``Ah Kd 7c``, boards as
``top | middle | bottom``, positions as in docs/formats.md "Positions") and answers with
the same data and the same one-line errors as the command line, because it runs the
command line's own code: :func:`chinese_poker.cli.score.read_table` for tables,
:func:`chinese_poker.cli.solve.solver` for the solvers and
:func:`chinese_poker.engine.position.parse_position` for hint positions. An error is
``400 {"detail": "<one line>"}``, the server's usual error shape, with the refusal's
``code`` and ``params`` that the desk's pages put in the player's words
(:mod:`.desk_refusals`).

Work is bounded per request: it runs in the study pool (:class:`StudyPool`, one worker
process of its own at a lower priority, so study traffic never waits for, nor delays,
the tables' event loop, bots and hints), at most :data:`STUDY_QUEUE` requests wait or
run at once, :data:`STUDY_PER_PLAYER` of them one client address's (more get ``503``;
the worker takes them round robin over the addresses, :mod:`.fair_share`), each has a
time budget of :data:`STUDY_SECONDS` (hints sample until it, the exact solvers are
answered ``503`` if they have not finished, and the worker is stopped), and each client
address is rate limited (``study`` in :class:`~chinese_poker.server.guard.RateSpec`).

The routes are module-level functions of :data:`router`; the rate limits and the
study pool are the application's (:mod:`.holdings`).

>>> from fastapi import FastAPI
>>> app = FastAPI()
>>> app.router.routes.extend(router.routes)
>>> sorted(r.path for r in app.routes if r.path.startswith("/api/"))[:3]
['/api/board', '/api/hint', '/api/score']
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import multiprocessing
import os
import random
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Literal, TypeVar

from fastapi import APIRouter, HTTPException, Query, Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from chinese_poker.cards import (
    LINE_NAMES,
    LINE_SIZES,
    Board,
    Card,
    CardError,
    cards_str,
    parse_board,
    parse_cards,
)
from chinese_poker.engine.position import (
    Position,
    parse_position,
    position_from_dict,
)
from chinese_poker.language import DEFAULT_LANGUAGE, LANGUAGES, text_in
from chinese_poker.rules import Rules, RulesError, rules_for, rules_from_document
from chinese_poker.server.desk_refusals import (
    DeskRefusal,
    DeskRoute,
    position_refusal,
    refusal_of,
)
from chinese_poker.server.fair_share import FairShare, SharedPlaces
from chinese_poker.server.guard import client_address
from chinese_poker.server.holdings import holdings_of, throttle

__all__ = [
    "STUDY_PER_PLAYER",
    "STUDY_QUEUE",
    "STUDY_SECONDS",
    "TRAINER_THRESHOLD",
    "StudyPool",
    "router",
]

T = TypeVar("T")

STUDY_SECONDS = 5.0
"""The time budget of one study request (seconds)."""

STUDY_QUEUE = 8
"""At most this many study requests wait or run at once; more are answered 503."""

STUDY_PER_PLAYER = 2
"""At most this many of them are one client address's (on every process when they share
a Redis); more are answered 503 to that address only."""

STUDY_WARMUP = 60.0
"""Seconds a fresh study worker process may take to start, beyond the budget."""

TRAINER_THRESHOLD = {"setting": 0.5, "fantasyland": 2.0, "street": 0.5}
"""A trainer position is kept only when the best and the second-best answers differ by at
least this many expected points: positions where the choice matters."""

TRAINER_SECONDS = 3.0
"""The budget for finding one trainer position (the best found so far is served)."""

HINT_LEVEL = 2
"""The Monte Carlo level of desk hints unless the request asks for another (1 to 3)."""


class StudyPool:
    """The study desk's own bounded worker, off the event loop's process.

    By default one worker *process* at a lower scheduling priority (as the hints'), so
    that a solver's minutes of CPU never hold the GIL the tables' event loop needs; a
    request over its budget has its worker terminated (a fresh one starts). At most
    ``queue`` requests wait or run at once, :data:`STUDY_PER_PLAYER` of them one
    player's (also counted in ``places``, the Redis every process shares, when given),
    and the workers take them round robin over the players. ``threads=N`` (or ``processes=False``)
    runs the work in N threads of this process instead (tests replace functions)."""

    def __init__(
        self,
        threads: int | None = None,
        queue: int = STUDY_QUEUE,
        *,
        processes: bool | None = None,
        workers: int = 1,
        places: SharedPlaces | None = None,
    ) -> None:
        self.processes = threads is None if processes is None else processes
        self.workers = threads or workers
        self._pool = self._new_pool()
        self.places = places
        self.share = FairShare(queue, STUDY_PER_PLAYER, self.workers, kind="study", shared=places)

    def _new_pool(self) -> Executor:
        self._cold = self.processes  # its first job also starts the worker
        # The worker said it is still compiling its kernels (start()'s probe or a job's
        # answer): a request that runs over may be stuck behind numba's compiler.
        self.compiling = False
        if self.processes:
            return ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_study_worker, initargs=(os.getpid(),),
            )  # fmt: skip
        return ThreadPoolExecutor(self.workers, "cp-study")

    @property
    def pending(self) -> int:
        """Requests waiting or running in this process."""
        return self.share.held

    async def run(
        self,
        fn: Callable[..., T],
        *args: Any,
        budget: float = STUDY_SECONDS,
        player: str = "",
        preparing: str | None = None,
    ) -> T:
        """``fn(*args)`` in the pool at ``player``'s turn (a module-level function and
        picklable arguments for a process pool); 503 when the pool or the player's share
        of it is full, or the budget is exceeded.

        ``preparing``: the reason to answer (503) for a request still unanswered after
        its budget while the worker compiles its kernels; the worker is not stopped (it
        would lose the compiling). Without it such a request waits up to the grace of a
        worker's start, :data:`STUDY_WARMUP`."""
        place = await self.share.take_admitted(player)
        if place is None:
            raise DeskRefusal(503, "busy", "the study desk is busy: try again in a moment")
        call = functools.partial(fn, *args)
        try:
            # A request waits here, not in the pool, until a worker is free: its budget
            # runs from its start, not from the requests ahead of it, and a worker
            # stopped for running over holds no other request (which a fresh, cold
            # pool would then have had to start again).
            async with self.share.turn(player):
                return await self._run(call, budget, preparing)
        except TimeoutError:
            raise DeskRefusal(
                503, "over_budget",
                f"the request took longer than its budget of {budget:g} seconds",
                seconds=budget,
            ) from None  # fmt: skip
        except _Unavailable as exc:
            raise DeskRefusal(exc.status, exc.code, exc.detail, **exc.params) from None
        except _Preparing:
            raise DeskRefusal(503, "preparing", preparing or "") from None
        finally:
            self.share.give_back(place)

    def start(self) -> None:
        """Start the worker process now rather than at the first request, so that it has
        loaded (or begun compiling) the kernels before a person waits on it: started by
        the first request, the first hint waited about 6 s beyond its 2 s budget."""
        if self.processes:
            with contextlib.suppress(RuntimeError):  # already shut down
                pool = self._pool
                probe = pool.submit(_still_warming)
                probe.add_done_callback(functools.partial(self._heard, pool))

    def _heard(self, pool: Executor, probe: Future[bool]) -> None:
        if pool is self._pool and not probe.cancelled() and probe.exception() is None:
            self.compiling = probe.result()

    async def _run(self, call: Callable[[], T], budget: float, preparing: str | None) -> T:
        for attempt in range(2):
            pool = self._pool
            stuck = preparing is not None and self.compiling
            try:
                # A fresh worker first imports the solvers and loads their compiled
                # kernels, and on a fresh machine compiles them: that is not held against
                # a request's budget (nor is the worker stopped for it, losing the work).
                # Once it says it compiles, a request that can be refused is not held
                # for it either: a hint blocked behind numba's compiler waited 62 s.
                grace = 1.0 if stuck or not self._cold else STUDY_WARMUP
                loop = asyncio.get_running_loop()
                if not self.processes:
                    return await asyncio.wait_for(loop.run_in_executor(pool, call), budget + grace)
                work = functools.partial(_with_warmth, call)
                result, self._cold = await asyncio.wait_for(
                    loop.run_in_executor(pool, work), budget + grace
                )
                self.compiling = self._cold
                return result
            except BrokenProcessPool:  # a worker died: a fresh pool, one more try
                self._restart(pool)
                if attempt:
                    raise DeskRefusal(503, "failed", "the study desk failed; try again") from None
            except TimeoutError:
                if stuck:  # the worker finishes it once compiled, and is warm then
                    raise _Preparing from None
                if self.processes:  # the worker may still be busy with it: stop it
                    self._restart(pool)
                raise
        raise AssertionError("unreachable")

    def _restart(self, broken: Executor) -> None:
        if broken is not self._pool:  # already replaced: the fresh pool is kept
            return
        from chinese_poker.server.scheduling import stop_pool

        stop_pool(self._pool, join=False)  # on the event loop: do not wait for it
        self._pool = self._new_pool()

    def close(self) -> None:
        from chinese_poker.server.scheduling import stop_pool

        stop_pool(self._pool)


def _with_warmth(call: Callable[[], T]) -> tuple[T, bool]:
    """``call()`` in a study worker, and whether the worker is still warming (a kernel
    family not loaded yet: the next request gets the grace of a worker's start)."""
    from chinese_poker.ai.warm import is_warm

    return call(), not is_warm()


def _still_warming() -> bool:
    """In a study worker: whether it is still compiling (or loading) kernels."""
    from chinese_poker.ai.warm import is_warm

    return not is_warm()


def _study_worker(server: int) -> None:
    """A study worker yields the processors to the server's event loop, and loads the
    kernels before its first request, as the hint worker does
    (:func:`~chinese_poker.server.scheduling.warm_worker`): within the grace of a
    worker's start, and never within a request's budget (a first hint on a busy machine
    once spent its whole 2 s loading, and ranked its options unsampled). Kernels that
    must be compiled are compiled in the background; hints meanwhile are quick ones."""
    from chinese_poker.server.scheduling import leave_with, warm_worker

    leave_with(server)  # killed, the server cannot stop its workers
    with contextlib.suppress(OSError, AttributeError):
        os.nice(10)
    warm_worker()


class _Preparing(Exception):
    """A request that ran over its budget while the worker compiles its kernels."""


class _Unavailable(Exception):
    """A refusal raised in a worker (a 503, or a 400 the desk names itself), carried
    back across the process boundary with its code."""

    def __init__(self, status: int, detail: str, code: str, params: dict[str, Any]) -> None:
        super().__init__(status, detail, code, params)
        self.status = status
        self.detail = detail
        self.code = code
        self.params = params


def _guarded(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a worker: bad input becomes a :class:`_UserError` (a 400), an
    HTTPException an :class:`_Unavailable` (both cross a process boundary intact, each
    with its refusal's code)."""
    try:
        return fn(*args)
    except HTTPException as exc:
        raise _Unavailable(exc.status_code, str(exc.detail), *refusal_of(exc)) from None
    except (ValueError, KeyError) as exc:
        text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
        raise _UserError(text, *refusal_of(exc)) from None


# --------------------------------------------------------------------------- request bodies


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BoardRequest(_Body):
    """One board to check as it is entered."""

    rules: str | dict[str, Any] = Field("ofc", description="a preset or an object of options")
    options: dict[str, Any] = Field(default_factory=dict, description="§13 options on top")
    board: str = Field(description="'top | middle | bottom', lines may be short")
    fantasyland: bool = Field(False, description="the board is played in Fantasyland")


class FantasylandRequest(_Body):
    """A Fantasyland deal to solve."""

    cards: str = Field(description="13 to 17 cards, as many as the rules deal")
    rules: str | dict[str, Any] = "pineapple"
    options: dict[str, Any] = Field(default_factory=dict)
    stay_value: float | None = Field(None, ge=0, description="points a stay is worth (15)")


class SettingRequest(_Body):
    """13 classic cards to set."""

    cards: str = Field(description="13 cards")
    rules: str | dict[str, Any] = "classic"
    options: dict[str, Any] = Field(default_factory=dict)
    opponents: int = Field(3, ge=1, le=3, description="opponents at the table")


class HintRequest(_Body):
    """A position (docs/formats.md, "Positions") and the effort to spend on it."""

    position: str | dict[str, Any] = Field(description="the text form or the JSON object")
    level: int = Field(HINT_LEVEL, ge=1, le=3, description="Monte Carlo effort, 1 to 3")
    seed: int = Field(0, ge=0)
    time_budget: float = Field(2.0, gt=0, le=STUDY_SECONDS, description="seconds of sampling")


class GradeRequest(_Body):
    """A trainer answer to grade: the cards and the board the player set."""

    kind: Literal["setting", "fantasyland"]
    rules: str | dict[str, Any]
    options: dict[str, Any] = Field(default_factory=dict)
    cards: str
    answer: str = Field(description="the board the player set, 'top | middle | bottom'")
    opponents: int = Field(3, ge=1, le=3)


M = TypeVar("M", bound=BaseModel)


def _one_line(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "the request"
    if err["type"] == "extra_forbidden":
        return f"unknown key {where!r} in the request"
    if err["type"] == "missing":
        return f"the request has no {where!r}"
    return f"{where}: {err['msg']}"


async def _read(request: Request, model: type[M]) -> M:
    raw = await request.body()
    try:
        data = json.loads(raw or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise HTTPException(400, f"the request is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise HTTPException(400, "the request must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise HTTPException(400, _one_line(exc)) from None


def _sizes_text(sizes: tuple[int, ...]) -> str:
    return str(sizes[0]) if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]}"


# --------------------------------------------------------------------------- the work


def score_table(text: str) -> dict[str, Any]:
    """``chinese-poker score --json`` of a table's JSON text."""
    from chinese_poker.cli.score import read_table

    return read_table(text, source="the table").settle().to_dict()


def check_board(req: BoardRequest) -> dict[str, Any]:
    """What a board entered so far shows: lines, royalties, a foul, a natural."""
    from chinese_poker.scoring import (
        fantasyland_next,
        foul_reason,
        line_name,
        natural_of,
        royalties,
    )

    rules = rules_from_document(req.rules, req.options)
    board = parse_board(req.board, complete=False)
    lines: dict[str, str | None] = {}
    for i, (name, line, size) in enumerate(zip(LINE_NAMES, board.lines, LINE_SIZES, strict=True)):
        lines[name] = line_name(rules, i, line) if len(line) == size else None
    complete = board.complete
    foul = foul_reason(rules, board) if complete else None
    natural = natural_of(rules, board) if complete and rules.spec.variant.has_naturals else None
    top, middle, bottom = royalties(rules, board)
    nxt = None
    if complete and rules.is_open_face and foul is None:
        nxt = fantasyland_next(rules, board, in_fantasyland=req.fantasyland)
    return {
        "board": str(board),
        "cards": len(board),
        "complete": complete,
        "lines": lines,
        "foul": foul,
        "natural": None if natural is None else natural.kind,
        "royalties": {
            "top": top,
            "middle": middle,
            "bottom": bottom,
            "total": 0 if foul else top + middle + bottom,
        },
        "fantasyland_next": nxt,
        # What card entry needs to know of the rules (one source: the Rules object).
        "rules": {
            "variant": rules.variant,
            "players": list(rules.player_counts),
            "streets": [list(street) for street in rules.streets],
            "fantasyland_sizes": list(rules.spec.variant.fantasyland_sizes),
        },
        "spec": rules.spec.to_dict(),  # the compiled rules, as a table's welcome sends them
    }


def _fantasyland_value(rules: Rules, board: Board, stay: float) -> dict[str, Any]:
    """A Fantasyland board's worth to the solver: royalties plus the stay value."""
    from chinese_poker.scoring import fantasyland_next, foul_reason, royalties

    foul = foul_reason(rules, board)
    if foul is not None:
        return {"board": str(board), "foul": foul, "royalties": 0, "stays": False,
                "value": -float(rules.foul_value)}  # fmt: skip
    roy = sum(royalties(rules, board))
    stays = fantasyland_next(rules, board, in_fantasyland=True) is not None
    return {"board": str(board), "foul": None, "royalties": roy, "stays": stays,
            "value": roy + (stay if stays else 0.0)}  # fmt: skip


def solve_fantasyland_deal(req: FantasylandRequest) -> dict[str, Any]:
    """The best board, its royalties and stay, and the runner-up boards with values."""
    from chinese_poker.ai.fantasyland import DEFAULT_STAY_VALUE
    from chinese_poker.ai.hints import nearby_boards
    from chinese_poker.cli.solve import solver

    rules = rules_from_document(req.rules, req.options)
    cards = parse_cards(req.cards)
    solve = solver("fantasyland", rules, stay_value=req.stay_value)
    sizes = rules.spec.variant.fantasyland_sizes
    if not sizes:
        raise RulesError(f"{rules.variant} with these options has no Fantasyland")
    if len(cards) not in sizes and 13 <= len(cards) <= 17:
        raise CardError(
            f"{rules.variant}{' (progressive)' if rules.fl_progressive else ''} deals "
            f"{_sizes_text(sizes)} Fantasyland cards, not {len(cards)}"
        )
    best = solve(cards)
    out: dict[str, Any] = best.to_dict()
    stay = DEFAULT_STAY_VALUE if req.stay_value is None else req.stay_value
    plain = solver("fantasyland", rules, stay_value=0.0)(cards).board
    b = best.board
    # Runner-ups differ from the best (and from each other) in what the lines are and
    # pay, not only in which kicker is thrown away.
    seen = {_worth(rules, b)}
    runners = []
    swaps = nearby_boards(rules, cards, b.lines, stay, 40)
    candidates = [plain] + [Board(*(_strongest_first(line) for line in x)) for x in swaps]
    for board in candidates:
        if _worth(rules, board) in seen:
            continue
        seen.add(_worth(rules, board))
        runners.append(_fantasyland_value(rules, board, stay))
    runners.sort(key=lambda r: -float(r["value"]))
    out["value"] = _fantasyland_value(rules, b, stay)["value"]
    out["runner_up"] = runners[:5]
    out["cards"] = len(cards)
    out["sizes"] = list(sizes)
    return out


def _strongest_first(line: tuple[Card, ...]) -> tuple[Card, ...]:
    return tuple(sorted(line, key=lambda c: (-(c >> 2), c & 3)))


def _worth(rules: Rules, board: Board) -> tuple[tuple[int, ...], tuple[int, int, int]]:
    """What a board's lines are (pair, flush, ...) and pay: kickers aside."""
    from chinese_poker.scoring import line_values, royalties

    return tuple(v >> 20 for v in line_values(rules, board)), royalties(rules, board)


def solve_setting_hand(req: SettingRequest, top_n: int = 5) -> dict[str, Any]:
    from chinese_poker.ai.setting import solve_setting

    rules = rules_from_document(req.rules, req.options)
    cards = parse_cards(req.cards)
    from chinese_poker.cli.solve import solver

    solver("setting", rules)  # the command's own checks and messages
    out = solve_setting(cards, rules, opponents=req.opponents, top_n=top_n).to_dict()
    out["advice"] = _setting_advice(out)
    return out


def _setting_advice(d: Mapping[str, Any]) -> str:
    if d["natural"]:
        return f"claim the natural ({d['natural'].replace('_', ' ')})"
    if d["surrender"]:
        return (f"surrender: it costs {-d['surrender_expected']:.2f}, playing is expected to "
                f"lose {-d['expected']:.2f}")  # fmt: skip
    return f"play the best setting ({d['expected']:+.2f} expected)"


def hint_position(position: Position, level: int, seed: int, budget: float) -> dict[str, Any]:
    """Every legal action of the position, best first, as ``hint --json`` lists them."""
    from chinese_poker.ai.hints import hint

    view = position.view()
    # While the open-face kernels compile (a fresh machine), the rules bot's action.
    entries = hint(view, level=level, time_budget=budget, seed=seed, when_cold="quick")
    hints = []
    for e in entries:
        d = e.to_dict()
        half = 1.96 * e.stderr
        d["interval"] = None if e.quick else [round(e.value - half, 3), round(e.value + half, 3)]
        hints.append(d)
    return {
        "position": position.to_dict(),
        "variant": view.rules.variant,
        "street": position.street,
        "decision": view.decisions[0].to_dict(),
        "options": len(entries),
        "level": level,
        "hints": hints,
    }


def _parse_position(given: str | Mapping[str, Any]) -> Position:
    if isinstance(given, str):
        return parse_position(given)
    return position_from_dict(given)


# --------------------------------------------------------------------------- the trainer


def _deck(rng: random.Random) -> list[Card]:
    deck = list(range(52))
    rng.shuffle(deck)
    return deck


def trainer_position(kind: str, preset: str, seed: int, budget: float) -> dict[str, Any]:
    """A position drawn from simulated hands where the best answer beats the second-best
    by at least :data:`TRAINER_THRESHOLD` (the widest gap found within ``budget``)."""
    rules = rules_for(preset)
    rng = random.Random(seed)
    deadline = time.monotonic() + budget
    threshold = TRAINER_THRESHOLD[kind]
    best: dict[str, Any] | None = None
    tries = 0
    while True:
        tries += 1
        found = _draw(kind, rules, preset, rng)
        if found is not None and (best is None or found["gap"] > best["gap"]):
            best = found
        if (best is not None and best["gap"] >= threshold) or time.monotonic() > deadline:
            break
    if best is None:
        raise DeskRefusal(503, "no_position_found", "no trainer position found in the time budget")
    best.update(kind=kind, preset=preset, threshold=threshold, tries=tries, seed=seed)
    return best


def _draw(kind: str, rules: Rules, preset: str, rng: random.Random) -> dict[str, Any] | None:
    if kind == "setting":
        cards = cards_str(_deck(rng)[:13])
        sol = solve_setting_hand(SettingRequest.model_validate({"cards": cards, "rules": preset}))
        if sol["natural"] or not sol["alternatives"]:
            return None
        gap = sol["expected"] - sol["alternatives"][0]["expected"]
        return {"cards": cards, "gap": gap}
    if kind == "fantasyland":
        sizes = rules.spec.variant.fantasyland_sizes
        if not sizes:
            raise RulesError(f"{rules.variant} with these options has no Fantasyland")
        size = rng.choice(sizes)
        cards = cards_str(_deck(rng)[:size])
        sol = solve_fantasyland_deal(
            FantasylandRequest.model_validate({"cards": cards, "rules": preset})
        )
        if not sol["runner_up"]:
            return None
        return {"cards": cards, "gap": sol["value"] - sol["runner_up"][0]["value"]}
    return _draw_street(rules, preset, rng)


def _draw_street(rules: Rules, preset: str, rng: random.Random) -> dict[str, Any] | None:
    from chinese_poker.ai.simple import RuleBot
    from chinese_poker.engine import Table

    players = max(rules.player_counts)
    table = Table(rules, players, seed=rng.getrandbits(32))
    bot = RuleBot(seed=rng.getrandbits(32), samples=4)
    stop = rng.randint(2, len(rules.streets) - 1)
    while table.to_act:
        seat = table.to_act[0]
        view = table.view(seat)
        dec = view.decisions[0]
        if seat == 0 and dec.kind == "street" and dec.street == stop:
            board = view.board_of(0)
            position = position_from_dict({
                "rules": preset,
                "street": dec.street,
                "me": str(board.board),
                "cards": cards_str(dec.cards),
                "dead": cards_str(board.discards),
                "opponents": [str(b.board) for b in view.boards if b.seat != 0],
            })  # fmt: skip
            result = hint_position(position, 1, rng.getrandbits(16), 1.0)
            hints = result["hints"]
            if hints and hints[0].get("quick"):  # a fresh machine: nothing to rank yet
                raise DeskRefusal(503, "preparing", "street positions need the hint engine,"
                                  " which is still being compiled for this machine (once,"
                                  " about a minute and a half): try again then")  # fmt: skip
            if len(hints) < 2:
                return None
            result["gap"] = hints[0]["value"] - hints[1]["value"]
            return result
        table.apply(bot.act(view))
    return None


def grade(req: GradeRequest) -> dict[str, Any]:
    """Expected points lost by the player's board against the solver's best."""
    from chinese_poker.scoring import foul_reason, line_values

    rules = rules_from_document(req.rules, req.options)
    cards = parse_cards(req.cards)
    answer = parse_board(req.answer)
    if sorted(answer.cards) != sorted(cards) and req.kind == "setting":
        raise CardError("the answer must use exactly the 13 cards dealt")
    if req.kind == "fantasyland":
        extra = set(answer.cards) - set(cards)
        if extra:
            raise CardError(f"the answer uses {cards_str(sorted(extra))}, which were not dealt")
        sol = solve_fantasyland_deal(
            FantasylandRequest.model_validate(
                {"cards": req.cards, "rules": req.rules, "options": req.options}
            )
        )
        from chinese_poker.ai.fantasyland import DEFAULT_STAY_VALUE

        mine = _fantasyland_value(rules, answer, DEFAULT_STAY_VALUE)
        lost = max(0.0, float(sol["value"]) - float(mine["value"]))
        return {"best": sol["board"], "best_value": sol["value"], "answer": mine,
                "lost": round(lost, 3), "exact": True, "solution": sol}  # fmt: skip
    sol = solve_setting_hand(
        SettingRequest.model_validate({"cards": req.cards, "rules": req.rules,
                                       "options": req.options, "opponents": req.opponents}),
        top_n=400,
    )  # fmt: skip
    best_value = float(sol["expected"])
    foul = foul_reason(rules, answer)
    mine_value: float | None = None
    wanted = line_values(rules, answer) if foul is None else None
    for d in [{"board": sol["board"], "expected": sol["expected"]}, *sol["alternatives"]]:
        if wanted is not None and line_values(rules, parse_board(d["board"])) == wanted:
            mine_value = float(d["expected"])
            break
    listed = [float(a["expected"]) for a in sol["alternatives"]]
    if mine_value is None:
        floor = listed[-1] if listed else best_value
        lost, exact = best_value - floor, False
    else:
        lost, exact = best_value - mine_value, True
    sol["alternatives"] = sol["alternatives"][:5]
    return {"best": sol["board"], "best_value": best_value,
            "answer": {"board": str(answer), "foul": foul, "value": mine_value},
            "lost": round(max(0.0, lost), 3), "exact": exact, "solution": sol}  # fmt: skip


# --------------------------------------------------------------------------- the router

_EXAMPLE_TABLE = {
    "rules": "ofc",
    "options": {"finnish_deuce": True},
    "players": [
        {"name": "A", "board": "Kc 8d 3h | Qh Qd 7c 7d 4c | As Js 9s 5s 2s"},
        {"name": "B", "board": "Jc Td 2h | 9h 9d 6c 5h 3c | Ks Kh Kd 8c 6h"},
    ],
}
_EXAMPLE_POSITION = (
    "rules: pineapple\nstreet: 3\nme: Kh Kd | 9s 9h | Ah Jh 8h\ncards: Qc 8c 2s\n"
    "dead: 4c\nopponent: Ac 7d | Qs Qd | Ks Kc 3d"
)


def _doc(model: type[BaseModel] | None, examples: Mapping[str, Any]) -> dict[str, Any]:
    schema = model.model_json_schema() if model is not None else {"type": "object"}
    return {"requestBody": {"required": True, "content": {"application/json": {
        "schema": schema,
        "examples": {name: {"summary": name, "value": value} for name, value in examples.items()},
    }}}}  # fmt: skip


def _desk_hint(req: HintRequest, budget: float, lang: str) -> dict[str, Any]:
    miscounted = position_refusal(req.position)
    if miscounted is not None:
        raise miscounted
    position = _parse_position(req.position)
    _check_cards_left(position, lang)
    return hint_position(position, req.level, req.seed, budget)


def _check_cards_left(position: Position, lang: str) -> None:
    """Refuse, before any sampling, a position whose unseen cards cannot deal the rest
    of the hand (too many dead cards given): the words in the page's language."""
    from chinese_poker.ai.rollout import Situation

    try:
        Situation.from_view(position.view())
    except ValueError as exc:
        if "not enough unseen cards" not in str(exc):
            raise
        raise DeskRefusal(400, "no_cards_left", text_in(lang, "desk.no_cards_left")) from None


def desk_language(request: Request) -> str:
    """The language of the page asking: the first of its ``Accept-Language`` that the
    catalogues speak (the desk's pages send the one they show), else English."""
    for part in request.headers.get("accept-language", "").split(","):
        tag = part.split(";", 1)[0].strip().lower().split("-", 1)[0]
        if tag in LANGUAGES:
            return tag
    return DEFAULT_LANGUAGE


def _trainer_next(kind: str, name: str, draw_seed: int) -> dict[str, Any]:
    rules = rules_for(name)
    if kind == "setting" and not rules.is_classic:
        raise RulesError(f"a 13-card setting needs classic rules, not {rules.variant!r}")
    if kind != "setting" and not rules.is_open_face:
        raise RulesError(f"{kind} positions need open-face rules, not {rules.variant!r}")
    return trainer_position(kind, name, draw_seed, TRAINER_SECONDS)


router = APIRouter(tags=["study desk"], route_class=DeskRoute)


async def _run(
    request: Request, fn: Callable[..., T], *args: Any, budget: float | None = None
) -> T:
    # STUDY_SECONDS is read at each call: a test may lengthen it.
    study = holdings_of(request).study
    try:
        return await study.run(
            _guarded,
            fn,
            *args,
            budget=STUDY_SECONDS if budget is None else budget,
            player=client_address(request),
            preparing=text_in(desk_language(request), "desk.preparing"),
        )
    except _UserError as exc:
        raise DeskRefusal(400, exc.code, exc.text, **exc.params) from None


@router.post("/api/score", openapi_extra=_doc(None, {"Finnish deuce": _EXAMPLE_TABLE}))
async def score(request: Request) -> dict[str, Any]:
    """Settle a table of finished boards: the table JSON that ``chinese-poker score``
    reads (docs/formats.md), answered with what ``score --json`` prints (totals, money,
    every pair's itemised breakdown, Fantasyland next)."""
    await throttle(request, "study")
    text = (await request.body()).decode("utf-8", errors="replace")
    return await _run(request, score_table, text)


@router.post("/api/board", openapi_extra=_doc(BoardRequest, {
    "a fouled OFC board": {"rules": "ofc", "board": "Ah Ad 2c | Kh Kd 3s 4s 5d | 6c 7c"},
    "complete": {"rules": "ofc", "board": "Qh Qd 2c | 9h 9d 3s 4s 5d | 6c 7c 8c Tc Jc"},
}))  # fmt: skip
async def board(request: Request) -> dict[str, Any]:
    """Check one board as it is entered: each full line described, a foul and why, a
    natural, royalties, and the Fantasyland cards it earns; ``rules`` tells card
    entry the player counts, the streets and the Fantasyland deal sizes."""
    await throttle(request, "study")
    req = await _read(request, BoardRequest)
    return await _run(request, check_board, req)


@router.post("/api/solve/fantasyland", openapi_extra=_doc(FantasylandRequest, {
    "16 cards, progressive": {"rules": "pineapple-progressive",
                              "cards": "As Ah Ad Kc Kd Qh Qs Js Ts 9s 8s 7s 2d 3c 4h 5h"},
    "14 cards": {"cards": "As Ah Ad Kc Kd Qh Qs Js Ts 9s 8s 7s 2d 3c"},
}))  # fmt: skip
async def solve_fantasyland(request: Request) -> dict[str, Any]:
    """The exact best Fantasyland board (as ``solve fantasyland --json``: board,
    discards, royalties, stays, score) plus ``value`` and the ``runner_up`` boards,
    each with royalties, stay and value (royalties + the stay value)."""
    await throttle(request, "study")
    req = await _read(request, FantasylandRequest)
    return await _run(request, solve_fantasyland_deal, req)


@router.post("/api/solve/setting", openapi_extra=_doc(SettingRequest, {
    "13 cards": {"cards": "Ah Kd Qs Jc Ts 8h 8d 7s 7h 7c 5s 5c 2d"},
    "a dragon": {"cards": "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"},
}))  # fmt: skip
async def solve_setting(request: Request) -> dict[str, Any]:
    """The classic setting solver (as ``solve setting --json``: best setting, its
    expected points, alternatives, surrender, natural) plus one line of ``advice``."""
    await throttle(request, "study")
    req = await _read(request, SettingRequest)
    return await _run(request, solve_setting_hand, req)


@router.post("/api/hint", openapi_extra=_doc(HintRequest, {
    "Pineapple street 3 (text)": {"position": _EXAMPLE_POSITION, "level": 1},
    "OFC street 2 (object)": {"position": {
        "rules": "ofc", "street": 2, "me": "Ah | Kd Kc | 7s 7d",
        "cards": "Qh", "opponents": ["2c | Jd Js | 9h 9s"]}},
}))  # fmt: skip
async def hint(request: Request) -> dict[str, Any]:
    """Every legal action of an open-face position with its expected points, a 95%
    interval and the foul risk, best first (the hint engine, as ``hint --json``)."""
    await throttle(request, "study")
    req = await _read(request, HintRequest)
    budget = min(req.time_budget, STUDY_SECONDS)
    return await _run(request, _desk_hint, req, budget, desk_language(request), budget=budget)


@router.get("/api/trainer/next")
async def trainer_next(
    request: Request,
    kind: Literal["setting", "fantasyland", "street"] = Query(
        "setting",
        description="set 13 cards, set a Fantasyland hand, place a street",
        examples=["street"],
    ),
    preset: str = Query(
        "",
        description="default: classic, pineapple-progressive, pineapple",
        examples=["pineapple"],
    ),
    seed: int | None = Query(
        None, ge=0, description="the same seed, the same position", examples=[7]
    ),
) -> dict[str, Any]:
    """A trainer position from simulated hands where the choice matters (best and
    second-best differ by at least the kind's threshold). ``street`` positions come
    with every option valued; grade the others with ``POST /api/trainer/grade``."""
    await throttle(request, "study")
    name = preset or {"setting": "classic", "fantasyland": "pineapple-progressive",
                      "street": "pineapple"}[kind]  # fmt: skip
    draw_seed = random.SystemRandom().getrandbits(31) if seed is None else seed
    return await _run(request, _trainer_next, kind, name, draw_seed)


@router.post("/api/trainer/grade", openapi_extra=_doc(GradeRequest, {
    "a setting": {"kind": "setting", "rules": "classic",
                  "cards": "Ah Kd Qs Jc Ts 8h 8d 7s 7h 7c 5s 5c 2d",
                  "answer": "Ah Kd Qs | Jc Ts 8h 8d 2d | 7s 7h 7c 5s 5c"},
}))  # fmt: skip
async def trainer_grade(request: Request) -> dict[str, Any]:
    """The expected points the player's board loses against the solver's best
    (``exact`` false: the board is not among the solver's listed settings, and the
    loss is at least the one given)."""
    await throttle(request, "study")
    req = await _read(request, GradeRequest)
    return await _run(request, grade, req)


class _UserError(Exception):
    """Bad input found inside a worker thread: a 400 with its one line and its refusal's
    code."""

    def __init__(self, text: str, code: str, params: dict[str, Any]) -> None:
        super().__init__(text, code, params)
        self.text = text
        self.code = code
        self.params = params
