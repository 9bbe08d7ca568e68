"""Hints: what each legal action is worth to the seat whose turn it is.

:func:`hint` takes a seat's :class:`~chinese_poker.engine.views.View` and returns its
options best first, each a :class:`HintEntry`: the action, its estimated value
(expected points of the hand for that seat, plus the value of earning Fantasyland), the
chance that the board ends fouled, and a short explanation in players' words.

* An open-face street: **every** legal placement, estimated by the Monte Carlo bot's
  playouts (:func:`chinese_poker.ai.mc.analyse_street`, all placements kept; the weaker
  ones get fewer playouts through successive halving).
* A Fantasyland deal: the exact solver's best arrangement and a handful of alternatives
  (the best boards by royalties, the stay and the strength of their lines, boards one
  swap away from the solver's, and the best board ignoring the stay bonus), each
  played out against the opponents' boards. Not every arrangement: there are millions.
* A classic (or Criss Cross) set: the setting solver's best setting and its runner-up
  settings with their expected points (every setting is never listed: 72,072).
* Surrender and natural declarations: both answers, valued by the setting solver.

>>> from chinese_poker.rules import rules_for
>>> from chinese_poker.engine import Table
>>> table = Table(rules_for("pineapple"), 2, seed=4)
>>> entries = hint(table.view(table.to_act[0]), level=1)
>>> len(entries), entries[0].value >= entries[-1].value
(232, True)
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from chinese_poker.ai import mc, rollout
from chinese_poker.ai.simple import RuleBot
from chinese_poker.ai.warm import OPEN_FACE, warm_unless_compiling
from chinese_poker.cards import RANKS, SUITS, Board, Card, cards_str
from chinese_poker.engine.actions import Action, ClaimNatural, Decision, Place, Surrender
from chinese_poker.engine.views import View
from chinese_poker.evaluate import (
    ONE_PAIR,
    TWO_PAIR,
    WheelRank,
    describe,
    evaluate,
    evaluate3,
)
from chinese_poker.rules import Rules
from chinese_poker.scoring import royalties

__all__ = [
    "DEFAULT_HINT_LEVEL",
    "QUICK_EXPLANATION",
    "HintEntry",
    "hint",
    "hint_from_dict",
    "nearby_boards",
    "quick_hint",
]

#: Hints default to the bot's default level.
DEFAULT_HINT_LEVEL = mc.DEFAULT_LEVEL

_LINES = ("top", "middle", "bottom")
_SIZES = (3, 5, 5)
_SUIT_WORDS = {"s": "spade", "h": "heart", "d": "diamond", "c": "club"}
_PLURAL = ("deuces", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines",
           "tens", "jacks", "queens", "kings", "aces")  # fmt: skip


@dataclass(frozen=True, slots=True)
class HintEntry:
    """One option: ``value`` in expected points, ``foul_probability`` in [0, 1].

    ``stderr`` is the standard error of ``value`` (Monte Carlo playouts of a street;
    0 where the value is exact or a model's, as for a classic setting).
    ``quick``: a quick hint (:func:`quick_hint`) whose action is the rules bot's, not
    valued (``value`` and ``foul_probability`` are NaN, ``null`` in :meth:`to_dict`).
    """

    action: Action
    value: float
    foul_probability: float
    explanation: str
    stderr: float = 0.0
    quick: bool = False

    def to_dict(self) -> dict[str, Any]:
        out = {
            "action": self.action.to_dict(),
            "text": describe_action(self.action),
            "value": None if self.quick else round(self.value, 3),
            "foul_probability": None if self.quick else round(self.foul_probability, 4),
            "explanation": self.explanation,
            "stderr": round(self.stderr, 3),
        }
        if self.quick:
            out["quick"] = True
        return out


def describe_action(action: Action) -> str:
    """A short text of the action: ``Ah | Kd Kc | 5s  (discard 7h)`` or ``surrender``."""
    if isinstance(action, Place):
        text = " | ".join(cards_str(line) or "-" for line in (action.top, action.middle,
                                                               action.bottom))  # fmt: skip
        if action.discard:
            text += f"  (discard {cards_str(action.discard)})"
        return text
    if isinstance(action, Surrender):
        return "surrender" if action.surrender else "play"
    if isinstance(action, ClaimNatural):
        return "claim the natural" if action.claim else "play the board"
    return str(action)


def hint(
    view: View,
    rules: Rules | None = None,
    *,
    level: int = DEFAULT_HINT_LEVEL,
    time_budget: float | None = None,
    seed: int = 0,
    when_cold: Literal["wait", "quick"] = "wait",
) -> list[HintEntry]:
    """The options of the seat of ``view``, best first (see the module docstring).

    ``rules`` replaces the view's rules (default: the view's own). ``level`` is the Monte
    Carlo effort (:data:`chinese_poker.ai.mc.HINT_LEVELS`); ``time_budget`` (seconds) stops the
    sampling early. Raises ``ValueError`` when it is not the seat's turn.

    An open-face hint runs the open-face kernels; when they are not warm in this process
    (:mod:`chinese_poker.ai.warm`), ``when_cold="wait"`` compiles or loads them first
    (a minute and a half of compiling on a fresh machine); ``"quick"`` loads them if
    numba's cache has them, and otherwise answers :func:`quick_hint` at once while they
    are compiled in the background (:func:`~chinese_poker.ai.warm.warm_unless_compiling`).
    """
    if rules is not None and rules != view.rules:
        view = dataclasses.replace(view, rules=rules)
    if level not in mc.HINT_LEVELS:
        raise ValueError(f"level must be 1 to {max(mc.HINT_LEVELS)}, not {level!r}")
    if view.seat is None:
        raise ValueError("a spectator's view has no turn: give a seat's view")
    if not view.decisions or view.seat not in view.to_act:
        raise ValueError(
            f"it is not seat {view.seat}'s turn (to act: "
            f"{', '.join(map(str, view.to_act)) or 'nobody'})"
        )
    deadline = None if time_budget is None else time.monotonic() + time_budget
    dec = view.decisions[0]
    params = mc.HINT_LEVELS[level]
    if dec.kind in ("surrender", "natural"):
        return _declaration_hints(view, dec)
    if dec.kind == "set" and not view.rules.is_open_face:
        return _classic_hints(view, dec)
    if view.rules.spec.scoring.lowball_middle:
        raise ValueError("hints for open-face play need a high middle")
    if when_cold == "quick" and not warm_unless_compiling((OPEN_FACE,)):
        return quick_hint(view, seed=seed)
    if dec.kind == "set":
        return _fantasyland_hints(view, dec, params, seed, deadline)
    return _street_hints(view, dec, params, seed, deadline)


QUICK_EXPLANATION = (
    "a quick hint, the rules bot's choice: the hint engine is still being compiled for"
    " this machine (once, about a minute and a half); ask again then for every option"
    " with its value"
)


def quick_hint(view: View, *, seed: int = 0) -> list[HintEntry]:
    """One option, the rules bot's action, marked ``quick`` and not valued: what a hint
    answers while the open-face kernels are still being compiled (the rules bot runs
    only the Fantasyland solver's, which compile in seconds). Raises ``ValueError`` when
    it is not the seat's turn."""
    if view.seat is None or not view.decisions or view.seat not in view.to_act:
        raise ValueError("it is not this seat's turn")
    action = RuleBot(seed=seed).act(view)
    nan = float("nan")
    return [HintEntry(action, nan, nan, QUICK_EXPLANATION, quick=True)]


def hint_from_dict(data: dict[str, Any], **options: Any) -> list[HintEntry]:
    """:func:`hint` for a view in its ``View.to_dict()`` form."""
    from chinese_poker.ai.protocol import view_from_dict

    return hint(view_from_dict(data), **options)


# =========================================================================== streets


def _street_hints(
    view: View, dec: Decision, params: mc.Level, seed: int, deadline: float | None
) -> list[HintEntry]:
    # Every placement gets the same rollouts (no successive halving), so the values are
    # comparable and "best first" is simply the highest value; the bot's own foul
    # aversion is a choice, not a value, and is left out.
    even = dataclasses.replace(params, keep=1 << 30)
    options = mc.analyse_street(view, dec, even, seed=seed, deadline=deadline, screen=False)
    options.sort(key=lambda o: -o.value)
    unseen = _unseen(view, dec)
    board = view.board_of(dec.seat, dec.hand)
    mine = (board.top, board.middle, board.bottom)
    out = []
    for o in options:
        text = _explain_street(view.rules, mine, o.action, unseen, o.foul_probability,
                               o.fantasyland_probability)  # fmt: skip
        out.append(HintEntry(o.action, o.value, _clip(o.foul_probability), text, o.stderr))
    return out


def _clip(p: float) -> float:
    return min(1.0, max(0.0, float(p)))


def _unseen(view: View, dec: Decision) -> list[Card]:
    seen = set(dec.cards) | set(view.hand) | set(view.board_of(dec.seat, dec.hand).discards)
    for b in view.boards:
        seen.update(b.top + b.middle + b.bottom)
    return [c for c in range(52) if c not in seen]


def _explain_street(
    rules: Rules,
    mine: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]],
    action: Place,
    unseen: Sequence[Card],
    foul: float,
    fantasyland: float,
) -> str:
    parts: list[str] = []
    added = (action.top, action.middle, action.bottom)
    for i in (2, 1, 0):  # bottom first: players read a board from its foundation
        if added[i]:
            parts.append(_line_phrase(rules, i, mine[i] + added[i], added[i], unseen))
    if action.discard:
        parts.append(f"throws the {cards_str(action.discard)}")
    if fantasyland >= 0.005:
        parts.append(f"Fantasyland {fantasyland:.0%}")
    parts.append(f"{foul:.0%} foul risk")
    return ", ".join(p for p in parts if p)


def _line_phrase(
    rules: Rules, line: int, cards: tuple[Card, ...], new: tuple[Card, ...], unseen: Sequence[Card]
) -> str:
    """What a line is after the placement, for players: a made hand, a draw with outs."""
    name = _LINES[line]
    where = "on top" if line == 0 else f"in the {name}"
    fantasyland = rules.spec.scoring.fantasyland
    fl_pair = fantasyland.entry_min_pair if fantasyland.enabled else None
    if len(cards) == _SIZES[line]:
        value = evaluate3(*cards) if line == 0 else evaluate(cards, wheel=_wheel(rules))
        made = describe(value)
        return f"{cards_str(new)} completes the {name}: {made[0].lower()}{made[1:]}"
    ranks = [c >> 2 for c in cards]
    phrase = _sets_phrase(line, ranks, where, fl_pair, unseen)
    if phrase is None and line > 0:
        phrase = _draw_phrase(cards, ranks, where, unseen)
    if phrase is not None:
        return phrase
    high = max(ranks)
    if line == 0 and fl_pair is not None and high >= fl_pair:
        outs = sum(1 for c in unseen if c >> 2 == high)
        return f"{RANKS[high]} {where} ({outs} outs to {RANKS[high]}{RANKS[high]})"
    return f"{cards_str(new)} {'on top' if line == 0 else f'to the {name}'}"


def _sets_phrase(
    line: int, ranks: list[int], where: str, fl_pair: int | None, unseen: Sequence[Card]
) -> str | None:
    """Quads, trips, two pair or a pair in an unfinished line (None for none of them)."""
    counts = {r: ranks.count(r) for r in set(ranks)}
    best = max(counts.values())
    pairs = sorted((r for r, n in counts.items() if n == 2), reverse=True)
    if best == 4:
        return f"four {_PLURAL[ranks[0]]} {where}"
    if best == 3:
        trips = max(r for r, n in counts.items() if n == 3)
        fantasyland = line == 0 and fl_pair is not None  # only where the rules have it
        return f"three {_PLURAL[trips]} {where}" + (" (Fantasyland)" if fantasyland else "")
    if len(pairs) >= 2:
        return f"two pair {where}"
    if not pairs:
        return None
    pair = pairs[0]
    outs = sum(1 for c in unseen if c >> 2 == pair)
    text = f"pair of {_PLURAL[pair]} {where}"
    if line == 0 and fl_pair is not None and pair >= fl_pair:
        return text + " (Fantasyland if it holds)"
    return text + (f" ({outs} out{'s' if outs != 1 else ''} to trips)" if outs else "")


def _draw_phrase(
    cards: tuple[Card, ...], ranks: list[int], where: str, unseen: Sequence[Card]
) -> str | None:
    """A flush or straight draw in an unfinished middle or bottom (None for neither)."""
    suits = {c & 3 for c in cards}
    if len(suits) == 1 and len(cards) >= 3:
        suit = next(iter(suits))
        outs = sum(1 for c in unseen if c & 3 == suit)
        return f"{_SUIT_WORDS[SUITS[suit]]} flush draw {where} ({outs} outs)"
    if len(cards) == 4:
        outs_ranks = _straight_outs(set(ranks))
        if outs_ranks:
            outs = sum(1 for c in unseen if c >> 2 in outs_ranks)
            kind = "open-ended straight draw" if len(outs_ranks) == 2 else "gutshot"
            return f"{kind} {where} ({outs} outs)"
    return None


def _straight_outs(ranks: set[int]) -> set[int]:
    """Ranks that complete a five-card straight with these four distinct ranks."""
    outs: set[int] = set()
    for low in range(-1, 9):  # -1: the wheel (the ace plays low)
        window = {(r if r >= 0 else 12) for r in range(low, low + 5)}
        if ranks <= window:
            outs |= window - ranks
    return outs


def _wheel(rules: Rules) -> WheelRank:
    return rules.spec.scoring.wheel


# =========================================================================== Fantasyland


def _fantasyland_hints(
    view: View, dec: Decision, params: mc.Level, seed: int, deadline: float | None
) -> list[HintEntry]:
    from chinese_poker.ai.fantasyland import fantasyland_boards, solve_fantasyland

    rules = view.rules
    stay = mc.view_stay_value(view, dec)
    sit = rollout.Situation.from_view(view, dec)
    tables = sit.tables.with_stay(stay)
    sit = dataclasses.replace(sit, tables=tables)
    # The solver leaves out what the lines win against the opponents; the boards best
    # by royalties, the stay and the policy's line strength put it back (what mc plays).
    best, *lined = fantasyland_boards(dec.cards, rules, stay_value=stay, solver_first=True,
                                      line_bonus=tables.line_bonus, count=4)  # fmt: skip
    boards: list[tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]] = []
    notes: list[str] = []

    def add(top: Sequence[Card], middle: Sequence[Card], bottom: Sequence[Card], note: str) -> None:
        key = _key(top, middle, bottom)
        if key not in {_key(*bd) for bd in boards}:
            boards.append((tuple(top), tuple(middle), tuple(bottom)))
            notes.append(note)

    b = best.board
    add(b.top, b.middle, b.bottom, "the solver's best arrangement")
    plain = solve_fantasyland(dec.cards, rules, stay_value=0.0).board
    add(plain.top, plain.middle, plain.bottom, "the most royalties, ignoring the stay")
    for sol in lined:
        add(sol.board.top, sol.board.middle, sol.board.bottom, "strong lines for the royalties")
    for alt in nearby_boards(rules, dec.cards, (b.top, b.middle, b.bottom), stay, 3):
        add(*alt, note="one swap from the best")
    cands = [rollout.Candidate(*bd) for bd in boards]
    rollouts = params.rollouts if (len(sit.events_who) or sit.fl_seats) else 1
    stats = rollout.run_rollouts(
        sit, cands, rollouts=rollouts, fills=params.fills, choice=params.choice,
        seed=seed, fl_samples=params.fl_samples, deadline=deadline, rng=random.Random(seed),
    )  # fmt: skip
    mean, fouls, stays = stats.mean(), stats.foul_rate(), stats.fl_rate()
    errs = stats.stderr()  # sampled values: the review's noise rule needs them
    out = []
    for i, (top, middle, bottom) in enumerate(boards):
        used = set(top) | set(middle) | set(bottom)
        thrown = tuple(c for c in dec.cards if c not in used)
        action = Place(dec.seat, top, middle, bottom, thrown, dec.hand, view.version)
        roy = royalties(rules, _board(top, middle, bottom))
        text = f"{notes[i]}: royalties {sum(roy)}"
        if stays[i] > 0 and stay > 0:
            text += ", stays in Fantasyland"
        if i == 0:
            text += f" (of {_count_text(dec)} arrangements; a handful of alternatives shown)"
        out.append(HintEntry(action, float(mean[i]), _clip(fouls[i]), text, float(errs[i])))
    out.sort(key=lambda e: -e.value)
    return out


def _count_text(dec: Decision) -> str:
    from chinese_poker.engine.actions import count_placements

    return f"{count_placements(dec):,}"


def _board(top: Sequence[Card], middle: Sequence[Card], bottom: Sequence[Card]) -> Board:
    return Board(tuple(top), tuple(middle), tuple(bottom))


def nearby_boards(
    rules: Rules,
    cards: Sequence[Card],
    board: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]],
    stay: float,
    count: int,
) -> list[tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]]:
    """The best valid boards one swap (two cards between lines or the discards) away."""
    wheel = _wheel(rules)
    lines = [list(board[0]), list(board[1]), list(board[2])]
    used = set(board[0]) | set(board[1]) | set(board[2])
    thrown = [c for c in cards if c not in used]
    slots = [(i, k) for i in range(3) for k in range(len(lines[i]))]
    Lines = tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]
    scored: dict[tuple[tuple[int, ...], ...], tuple[float, Lines]] = {}
    others = [(i, k) for i, k in slots] + [(3, k) for k in range(len(thrown))]
    for (i, k), (j, m) in itertools.combinations(others, 2):
        if i == j or i == 3:
            continue
        new = [list(x) for x in lines] + [list(thrown)]
        new[i][k], new[j][m] = new[j][m], new[i][k]
        top, middle, bottom = tuple(new[0]), tuple(new[1]), tuple(new[2])
        vt = evaluate3(*top)
        vm = evaluate(middle, wheel=wheel)
        vb = evaluate(bottom, wheel=wheel)
        if vt > vm or vm > vb:
            continue
        roy = sum(royalties(rules, _board(top, middle, bottom)))
        stays = rules.spec.scoring.fantasyland.stays(vt, vm, vb)
        scored[_key(top, middle, bottom)] = (roy + (stay if stays else 0.0) + (vb + vm + vt) / 1e9,
                       (top, middle, bottom))  # fmt: skip
    ranked = sorted(scored.values(), key=lambda x: -x[0])
    return [b for _, b in ranked[:count]]


# =========================================================================== classic


def _classic_hints(view: View, dec: Decision) -> list[HintEntry]:
    from chinese_poker.ai.setting import solve_setting

    rules = view.rules
    sol = solve_setting(dec.cards, rules, opponents=_opponents(view), top_n=5)
    out = []
    best_text = "the solver's best setting (of 72,072; runner-up settings follow)"
    if sol.natural:
        best_text += f", a natural: {sol.natural.replace('_', ' ')}"
    entries = [(sol.board, sol.expected, best_text)]
    entries += [(board, exp, "a runner-up setting") for board, exp in sol.alternatives]
    for board, expected, note in entries:
        action = Place(dec.seat, board.top, board.middle, board.bottom, (), dec.hand,
                       view.version)  # fmt: skip
        text = f"{_setting_words(rules, board)}; {note}"
        out.append(HintEntry(action, float(expected), 0.0, text))
    out.sort(key=lambda e: -e.value)
    return out


def _setting_words(rules: Rules, board: Board) -> str:
    wheel = _wheel(rules)
    words = []
    for name, line in zip(("bottom", "middle", "top"), (board.bottom, board.middle, board.top),
                          strict=True):  # fmt: skip
        value = evaluate3(*line) if len(line) == 3 else evaluate(line, wheel=wheel)
        cat = value >> 20
        short = describe(value)
        if cat in (ONE_PAIR, TWO_PAIR) or cat == 0:
            short = short.split(",")[0]
        words.append(f"{name} {short[0].lower()}{short[1:]}")
    return ", ".join(words)


def _opponents(view: View) -> int:
    return view.rules.spec.opponent_hands(len(view.players))


def _declaration_hints(view: View, dec: Decision) -> list[HintEntry]:
    """Play or surrender, claim or play: valued by the setting solver on the set cards."""
    from chinese_poker.ai.setting import solve_setting
    from chinese_poker.scoring import natural_of

    rules = view.rules
    board = view.board_of(dec.seat, dec.hand)
    cards = board.top + board.middle + board.bottom
    n = _opponents(view)
    sol = solve_setting(cards, rules, opponents=n, top_n=3)
    # What playing the board is worth: the solver's value of this very setting when it
    # is the best or a listed runner-up, else the best setting's (an upper bound).
    key = _key(board.top, board.middle, board.bottom)
    play = None if sol.natural else sol.expected
    if play is not None and key != _key(sol.board.top, sol.board.middle, sol.board.bottom):
        play = None
    for alt, expected in sol.alternatives:
        if play is None and _key(alt.top, alt.middle, alt.bottom) == key:
            play = expected
    note = ""
    if play is None:
        candidates = [e for _, e in sol.alternatives]
        if not sol.natural:
            candidates.append(sol.expected)
        play = max(candidates) if candidates else 0.0
        note = " at best"
    if dec.kind == "surrender":
        give = (
            sol.surrender_expected
            if sol.surrender_expected is not None
            else -float(rules.surrender_cost * n)
        )
        entries = [
            HintEntry(Surrender(dec.seat, False, dec.hand, view.version), play, 0.0,
                      f"play the board ({play:+.2f} expected{note})"),
            HintEntry(Surrender(dec.seat, True, dec.hand, view.version), give, 0.0,
                      f"surrender ({give:+.2f} expected)"),
        ]  # fmt: skip
    else:
        nat = natural_of(rules, board.board) if len(cards) == 13 else None
        claim = float(n * nat.value) if nat is not None else 0.0
        label = nat.kind.replace("_", " ") if nat is not None else "natural"
        entries = [
            HintEntry(ClaimNatural(dec.seat, True, dec.hand, view.version), claim, 0.0,
                      f"claim the {label} ({claim:+.2f}, paid before anyone plays)"),
            HintEntry(ClaimNatural(dec.seat, False, dec.hand, view.version), play, 0.0,
                      f"play the board ({play:+.2f} expected{note})"),
        ]  # fmt: skip
    entries.sort(key=lambda e: -e.value)
    return entries


def _key(*lines: Sequence[Card]) -> tuple[tuple[Card, ...], ...]:
    return tuple(tuple(sorted(line)) for line in lines)
