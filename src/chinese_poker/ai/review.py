"""A review of played hands: each decision next to the best one, and what it cost.

:func:`review_hand` steps through one hand-history record (docs/hand-history.md) action
by action. Before each decision a player made (the engine's own ``auto`` actions are
not theirs), it asks the hint engine (:func:`chinese_poker.ai.hints.hint`) for the
seat's options at a **fixed strength** (:data:`REVIEW_LEVEL`, :data:`REVIEW_SEED`, no
time budget: the same history always gets the same review) and compares the action
played with the best option: the **expected points lost** is the best option's value
minus the played one's (never below 0).

Each decision is marked by the loss (see docs/review.md):

* ``inaccuracy``: at least :data:`INACCURACY` expected points,
* ``mistake``: at least :data:`MISTAKE`,
* ``blunder``: at least :data:`BLUNDER`,

and only when the loss is also more than :data:`NOISE_SIGMAS` standard errors of the
Monte Carlo estimates (a street's values are sampled: a small gap may be noise).

Where the hint engine lists only the best few options and the played one is not among
them: a valid classic setting is valued by the setting solver itself (which can list
every setting); a classic set that fouls is a ``blunder`` (a valid setting was there);
otherwise (a Fantasyland arrangement) the loss is at least the gap to the weakest option
listed: the decision is marked with that lower bound and ``exact`` is False.

A player's **accuracy** over a session is the share of his decisions that got no mark.

>>> from chinese_poker.rules import rules_for
>>> from chinese_poker.engine import Table
>>> from chinese_poker.engine.history import hand_record
>>> import random
>>> table = Table(rules_for("classic"), ["Ann", "Bob"], seed=3)
>>> rng = random.Random(1)
>>> while not table.over:
...     table.apply(table.random_action(table.to_act[0], rng))
>>> review = review_hand(hand_record(table))
>>> sorted({d.player for d in review.decisions}), review.decisions[0].loss >= 0
(['Ann', 'Bob'], True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chinese_poker.ai.hints import HintEntry, describe_action, hint
from chinese_poker.cards import Board
from chinese_poker.engine.actions import Action, ClaimNatural, Place, Surrender, action_from_dict
from chinese_poker.engine.history import HistoryError, apply_actions, table_from_record
from chinese_poker.rules import NaturalClaim
from chinese_poker.scoring import foul_reason, line_values, natural_of

__all__ = [
    "BLUNDER",
    "INACCURACY",
    "MARKS",
    "MISTAKE",
    "NOISE_SIGMAS",
    "REVIEW_LEVEL",
    "REVIEW_SEED",
    "DecisionReview",
    "HandReview",
    "PlayerSummary",
    "ReviewError",
    "mark_for",
    "review_hand",
    "review_history",
    "review_record",
    "street_label",
    "summarise",
]

#: The hint engine's Monte Carlo level used by every review (240 playouts per placement).
REVIEW_LEVEL = 2
#: The sampling seed of every review: the same hand always gets the same review.
REVIEW_SEED = 0

#: Expected points lost from which a decision is an inaccuracy, a mistake, a blunder.
INACCURACY = 0.5
MISTAKE = 1.5
BLUNDER = 3.0
#: A loss is marked only when it is more than this many standard errors (sampling noise).
NOISE_SIGMAS = 2.0

#: The marks, mildest first.
MARKS = ("inaccuracy", "mistake", "blunder")


class ReviewError(ValueError):
    """A hand that cannot be reviewed (a bad record, or rules the hints do not cover)."""


@dataclass(frozen=True, slots=True)
class DecisionReview:
    """One decision: what was played, the best option, and the expected points lost.

    ``street`` is the open-face street (1-based) or 0 for a set or a declaration;
    ``kind`` the decision (``street``, ``set``, ``surrender``, ``natural``). ``rank``
    is the played option's place among the hint engine's options (1: the best), None
    when it was not listed; then ``exact`` is False and ``loss`` a lower bound.
    ``stderr`` is the standard error of the gap (0 where the values are exact).
    """

    hand: int
    player: str
    box: str
    kind: str
    street: int
    played: str
    best: str
    played_value: float
    best_value: float
    loss: float
    stderr: float
    mark: str
    exact: bool
    rank: int | None
    options: int
    explanation: str

    @property
    def label(self) -> str:
        return street_label(self.kind, self.street)

    def to_dict(self) -> dict[str, Any]:
        return {
            "hand": self.hand,
            "player": self.player,
            "box": self.box,
            "kind": self.kind,
            "street": self.street,
            "label": self.label,
            "played": self.played,
            "best": self.best,
            "played_value": round(self.played_value, 3),
            "best_value": round(self.best_value, 3),
            "loss": round(self.loss, 3),
            "stderr": round(self.stderr, 3),
            "mark": self.mark,
            "exact": self.exact,
            "rank": self.rank,
            "options": self.options,
            "explanation": self.explanation,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DecisionReview:
        """The inverse of :meth:`to_dict` (values as rounded there)."""
        names = [f for f in cls.__dataclass_fields__ if f != "label"]
        return cls(**{name: data[name] for name in names})


@dataclass(frozen=True, slots=True)
class HandReview:
    """Every reviewed decision of one hand, in the order they were made."""

    index: int
    players: tuple[str, ...]
    totals: dict[str, int]
    session_hand: int | None
    decisions: tuple[DecisionReview, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "players": list(self.players),
            "totals": dict(self.totals),
            "session_hand": self.session_hand,
            "decisions": [d.to_dict() for d in self.decisions],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HandReview:
        """The inverse of :meth:`to_dict` (a stored review read back)."""
        return cls(
            index=int(data["index"]),
            players=tuple(data["players"]),
            totals=dict(data["totals"]),
            session_hand=data.get("session_hand"),
            decisions=tuple(DecisionReview.from_dict(d) for d in data["decisions"]),
        )


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """One player's figures over the reviewed hands.

    ``accuracy`` is the percentage of decisions without a mark (None: no decisions);
    ``per_street`` is (label, expected points lost per hand, decisions) in street order.
    """

    player: str
    hands: int
    decisions: int
    loss: float
    accuracy: float | None
    marks: dict[str, int]
    per_street: tuple[tuple[str, float, int], ...]

    @property
    def loss_per_hand(self) -> float:
        return self.loss / self.hands if self.hands else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "hands": self.hands,
            "decisions": self.decisions,
            "loss": round(self.loss, 3),
            "loss_per_hand": round(self.loss_per_hand, 3),
            "accuracy": None if self.accuracy is None else round(self.accuracy, 1),
            "marks": dict(self.marks),
            "per_street": [
                {"label": label, "loss_per_hand": round(loss, 3), "decisions": n}
                for label, loss, n in self.per_street
            ],
        }


def street_label(kind: str, street: int) -> str:
    """The x-axis label of a decision: ``street 2``, ``set``, ``surrender``, ``natural``.

    >>> street_label("street", 3), street_label("set", 0)
    ('street 3', 'set')
    """
    return f"street {street}" if kind == "street" else kind


def mark_for(loss: float, stderr: float = 0.0) -> str:
    """The mark of a loss: ``""``, ``inaccuracy``, ``mistake`` or ``blunder``.

    >>> mark_for(0.2), mark_for(0.6), mark_for(2.0), mark_for(5.0), mark_for(1.0, 0.6)
    ('', 'inaccuracy', 'mistake', 'blunder', '')
    """
    if loss <= NOISE_SIGMAS * stderr:
        return ""
    for name, threshold in (("blunder", BLUNDER), ("mistake", MISTAKE),
                            ("inaccuracy", INACCURACY)):  # fmt: skip
        if loss >= threshold:
            return name
    return ""


# --------------------------------------------------------------------------- reviewing


def review_hand(
    record: Mapping[str, Any],
    *,
    index: int = 1,
    players: Collection[str] | None = None,
    level: int = REVIEW_LEVEL,
    seed: int = REVIEW_SEED,
) -> HandReview:
    """Review one hand-history record (``players``: only these players' decisions).

    ``index`` numbers the hand in messages and results. Raises :class:`ReviewError`
    (naming the hand) for a record that does not replay or rules the hints cannot value.
    """
    where = f"hand {index}"
    try:
        table = table_from_record(record, where)
        actions = record["actions"]
        if not isinstance(actions, list):
            raise HistoryError(f"{where}: 'actions' must be a list")
        reviews: list[DecisionReview] = []
        for i, data in enumerate(actions, 1):
            if not isinstance(data, Mapping) or data.get("auto"):
                apply_actions(table, [data], f"{where}, action {i}")
                continue
            try:
                action = action_from_dict(data)
            except ValueError as exc:
                raise HistoryError(f"{where}, action {i}: {exc}") from None
            player = table.players[action.seat] if 0 <= action.seat < table.n_seats else None
            if player is not None and (players is None or player in players):
                reviewed = _review_decision(table, action, index, level, seed, where)
                if reviewed is not None:
                    reviews.append(reviewed)
            apply_actions(table, [data], f"{where}, action {i}")
    except HistoryError as exc:
        raise ReviewError(str(exc)) from None
    if not table.over:
        raise ReviewError(f"{where}: the recorded actions end before the showdown")
    session = record.get("session")
    return HandReview(
        index=index,
        players=tuple(table.players),
        totals=dict(table.totals),
        session_hand=session.get("hand") if isinstance(session, Mapping) else None,
        decisions=tuple(reviews),
    )


def _review_decision(
    table: Any, action: Action, index: int, level: int, seed: int, where: str
) -> DecisionReview | None:
    if not isinstance(action, Place | Surrender | ClaimNatural):
        return None  # a timeout or the like: nothing was chosen
    view = table.view(action.seat)
    decisions = [d for d in view.decisions if d.hand == action.hand]
    if not decisions:
        return None  # not this seat's turn: the engine will refuse it on apply
    dec = decisions[0]
    if dec is not view.decisions[0]:  # the hint answers the view's first decision
        rest = tuple(d for d in view.decisions if d is not dec)
        view = _with_decisions(view, (dec, *rest))
    try:
        entries = hint(view, level=level, seed=seed)
    except ValueError as exc:
        raise ReviewError(f"{where}: cannot review {table.players[action.seat]}'s"
                          f" decision: {exc}") from None  # fmt: skip
    if not entries:
        return None
    best = entries[0]
    rank = next((k for k, e in enumerate(entries, 1) if _same(e.action, action)), None)
    if rank is not None:
        played = entries[rank - 1]
        played_value, exact = played.value, True
        gap_err = math.hypot(best.stderr, played.stderr) if rank > 1 else 0.0
        explanation = played.explanation
    else:
        played_value, exact, gap_err, explanation = _off_the_list(view, dec, action, entries)
    if rank != 1 and _same_natural(view, best.action, action):
        # The natural is claimed whatever the setting (automatic claim): nothing lost.
        played_value, exact, explanation = best.value, True, best.explanation
    loss = max(0.0, best.value - played_value) if rank != 1 else 0.0
    mark = _mark(view, dec, action, best.action, listed=rank is not None, loss=loss, err=gap_err)
    return DecisionReview(
        hand=index,
        player=table.players[action.seat],
        box=table.hand_name(action.seat, action.hand),
        kind=dec.kind,
        street=dec.street,
        played=describe_action(action),
        best=describe_action(best.action),
        played_value=played_value,
        best_value=best.value,
        loss=loss,
        stderr=gap_err,
        mark=mark,
        exact=exact,
        rank=rank,
        options=len(entries),
        explanation=explanation if rank != 1 else best.explanation,
    )


def _mark(
    view: Any, dec: Any, action: Action, best: Action, *, listed: bool, loss: float, err: float
) -> str:
    """The decision's mark: by its loss, but never for a Fantasyland arrangement off the
    hint's list, and always "blunder" for a classic foul where a valid set was there."""
    if listed:
        return mark_for(loss, err)
    if _classic_foul(view, action) is not None and _classic_foul(view, best) is None:
        return "blunder"  # fouling a set that could be valid: always the worst mark
    if view.rules.is_open_face and dec.kind == "set":
        # A Fantasyland arrangement off the hint's list (not the top ones by value): the
        # gap to the weakest listed is no bound, so it is shown but not marked.
        return ""
    return mark_for(loss, err)


def _off_the_list(
    view: Any, dec: Any, action: Action, entries: Sequence[HintEntry]
) -> tuple[float, bool, float, str]:
    """(value, exact, its error, why) of a decision the hint engine does not list."""
    weakest = min(entries, key=lambda e: e.value)
    gap_err = math.hypot(entries[0].stderr, weakest.stderr)
    foul = _classic_foul(view, action)
    if foul is not None:
        return weakest.value, False, gap_err, f"the board fouls ({foul}); a valid setting was there"
    if isinstance(action, Place) and dec.kind == "set" and not view.rules.is_open_face:
        value = _classic_value(view, action)
        if value is not None:
            return value, True, gap_err, "a valid setting, not the best"
    explanation = (
        f"not among the {len(entries)} options the hint engine lists: it loses at"
        " least the gap to the weakest of them"
    )
    return weakest.value, False, gap_err, explanation


def _classic_foul(view: Any, action: Action) -> str | None:
    """Why a classic set fouls (None: it does not, or it is not a classic set)."""
    if not isinstance(action, Place) or view.rules.is_open_face:
        return None
    if len(action.top) + len(action.middle) + len(action.bottom) != 13:
        return None
    return foul_reason(view.rules, Board(action.top, action.middle, action.bottom))


def _same_natural(view: Any, best: Action, action: Action) -> bool:
    """The played classic set claims the same natural as the best one, and the claim is
    automatic: the natural, not the setting, is what is paid."""
    rules = view.rules
    if rules.is_open_face or rules.natural_claim != NaturalClaim.AUTOMATIC:
        return False
    if not (isinstance(best, Place) and isinstance(action, Place)):
        return False
    if len(action.top) + len(action.middle) + len(action.bottom) != 13:
        return False
    ours = natural_of(rules, Board(best.top, best.middle, best.bottom))
    theirs = natural_of(rules, Board(action.top, action.middle, action.bottom))
    return ours is not None and theirs is not None and ours.label == theirs.label


def _classic_value(view: Any, action: Place) -> float | None:
    """The setting solver's expected points of the played (valid) classic setting: the
    solver lists settings by their line values, so the played one is found by its own."""
    from chinese_poker.ai.setting import solve_setting

    rules = view.rules
    board = Board(action.top, action.middle, action.bottom)
    cards = action.top + action.middle + action.bottom
    sol = solve_setting(cards, rules, opponents=rules.spec.opponent_hands(len(view.players)),
                        top_n=_ALL_SETTINGS)  # fmt: skip
    wanted = line_values(rules, board)
    listed = [] if sol.natural else [(sol.board, sol.expected)]
    for alt, expected in (*listed, *sol.alternatives):
        if line_values(rules, alt) == wanted:
            return float(expected)
    return None


#: More than the settings of 13 cards (72,072): every valid setting is listed.
_ALL_SETTINGS = 80_000


def _with_decisions(view: Any, decisions: tuple[Any, ...]) -> Any:
    import dataclasses

    return dataclasses.replace(view, decisions=decisions)


def _same(option: Action, played: Action) -> bool:
    """The same choice (cards to the same lines, the same answer), whatever the version."""
    if isinstance(option, Place) and isinstance(played, Place):
        return option.hand == played.hand and all(
            sorted(a) == sorted(b)
            for a, b in zip(
                (option.top, option.middle, option.bottom, option.discard),
                (played.top, played.middle, played.bottom, played.discard),
                strict=True,
            )
        )
    if isinstance(option, Surrender) and isinstance(played, Surrender):
        return option.hand == played.hand and option.surrender == played.surrender
    if isinstance(option, ClaimNatural) and isinstance(played, ClaimNatural):
        return option.hand == played.hand and option.claim == played.claim
    return False


def review_record(record: Mapping[str, Any], index: int = 1) -> dict[str, Any]:
    """:func:`review_hand` in its JSON form with each player's summary, or ``{"error":
    message}`` for a record that cannot be reviewed: what the server's hint workers run
    (a module-level function of the library, so that a worker process imports little)."""
    try:
        review = review_hand(record, index=index)
    except ReviewError as exc:
        return {"error": str(exc)}
    return {
        **review.to_dict(),
        "players_summary": [summarise([review], p).to_dict() for p in review.players],
    }


def review_history(
    records: Sequence[Mapping[str, Any]],
    *,
    players: Collection[str] | None = None,
    level: int = REVIEW_LEVEL,
    seed: int = REVIEW_SEED,
    progress: Callable[[int, int], None] | None = None,
) -> list[HandReview]:
    """Review every record (numbered from 1); ``progress(done, total)`` after each."""
    out = []
    for i, rec in enumerate(records, 1):
        out.append(review_hand(rec, index=i, players=players, level=level, seed=seed))
        if progress is not None:
            progress(i, len(records))
    return out


def summarise(hands: Sequence[HandReview], player: str) -> PlayerSummary:
    """``player``'s figures over ``hands`` (the hands he sat in)."""
    played = [h for h in hands if player in h.players]
    mine = [d for h in played for d in h.decisions if d.player == player]
    marks = {name: sum(1 for d in mine if d.mark == name) for name in MARKS}
    per: dict[str, tuple[float, int, tuple[int, int]]] = {}
    for d in mine:
        loss, n, order = per.get(d.label, (0.0, 0, _order(d)))
        per[d.label] = (loss + d.loss, n + 1, order)
    count = len(played)
    streets = tuple(
        (label, loss / count if count else 0.0, n)
        for label, (loss, n, _) in sorted(per.items(), key=lambda kv: kv[1][2])
    )
    unmarked = sum(1 for d in mine if not d.mark)
    return PlayerSummary(
        player=player,
        hands=count,
        decisions=len(mine),
        loss=sum(d.loss for d in mine),
        accuracy=100.0 * unmarked / len(mine) if mine else None,
        marks=marks,
        per_street=streets,
    )


_KIND_ORDER = {"surrender": 0, "natural": 1, "set": 2, "street": 3}


def _order(d: DecisionReview) -> tuple[int, int]:
    return (_KIND_ORDER.get(d.kind, 9), d.street)
