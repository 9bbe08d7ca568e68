"""The terminal game loop: one person against bots, hand after hand through a session.

:class:`Game` is independent of the real terminal: it reads lines through an input
function (``prompt -> line``) and draws on a Rich :class:`~rich.console.Console`, so tests
drive it with scripted lines and read the recorded output, and ``chinese-poker play``
wires it to the keyboard and the screen.

The engine stays the only legality source. A decision is staged locally
(:class:`~chinese_poker.terminal.commands.Staging`): cards are moved one command at a
time, undone with ``u``, and only a confirmed, complete placement becomes an engine
action (checked with ``table.check`` first). While staging the screen shows, for the
board as it would be, the name and royalty of every complete line and a warning when the
board would foul -- or must foul whatever cards come.

>>> import io
>>> from rich.console import Console
>>> from chinese_poker.rules import rules_for
>>> lines = iter(["tttmm", "", "q"])
>>> console = Console(file=io.StringIO(), record=True, width=100)
>>> game = Game(GameConfig(rules_for("pineapple"), title="pineapple", seed=3),
...             console=console, input_fn=lambda prompt: next(lines))
>>> game.run()
0
>>> "You quit" in console.export_text()
True
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.text import Text

from chinese_poker.ai import Bot, make_bot
from chinese_poker.cards import LINE_NAMES, Board, Card, cards_str, parse_cards
from chinese_poker.cli import plural
from chinese_poker.engine import (
    Action,
    ClaimNatural,
    Decision,
    HandResult,
    Place,
    Session,
    Surrender,
    Table,
    View,
    hand_seed,
    shuffled_deck,
)
from chinese_poker.evaluate import evaluate, evaluate3
from chinese_poker.language import hand_name, t, use_language
from chinese_poker.rules import Rules
from chinese_poker.scoring import ScoringError, certain_foul, fantasyland_next, royalties
from chinese_poker.terminal import render
from chinese_poker.terminal.commands import (
    HELP_DECLARE,
    HELP_PLACE,
    CommandError,
    Simple,
    Staging,
    describe_assignments,
    parse_command,
    parse_declaration,
)

__all__ = ["Game", "GameConfig", "QuitGame", "foul_warning", "line_infos"]

InputFn = Callable[[str], str]


class QuitGame(Exception):
    """The player asked to stop (``q``, end of input)."""


@dataclass(frozen=True, slots=True)
class GameConfig:
    """What ``chinese-poker play`` was asked for.

    ``bots`` names the bot of each opponent (one name is used for all of them); the
    names go through :func:`chinese_poker.ai.make_bot`, so any registered bot plugs in.
    ``hands`` caps the number of hands (the session otherwise ends by RULES §10).
    ``deck`` stacks the first cards of the first hand (a testing hook): the rest of the
    deck follows in the hand's seeded order. ``advisor`` is what ``s`` asks: ``hints``
    (the hint engine, :func:`chinese_poker.ai.hints.hint`, with a time budget of
    :data:`SUGGEST_SECONDS`) or the name of a registered bot (``rules``: its choice).
    """

    rules: Rules
    title: str = ""
    players: int = 2
    bots: Sequence[str] = ("rules",)
    name: str = "You"
    seed: int | None = None
    hands: int | None = None
    delay: float = 0.0
    four_color: bool = False
    symbols: bool = False
    deck: Sequence[Card] | None = None
    language: str = "en"
    advisor: str = "hints"


def _player_names(config: GameConfig) -> tuple[list[str], list[str]]:
    """Seat names (the person first) and the bot name of each opponent."""
    rules = config.rules
    counts = rules.player_counts
    if config.players not in counts:
        raise ValueError(
            f"{rules.variant} is played by {counts.start} to {counts.stop - 1} players,"
            f" not {config.players}"
        )
    opponents = config.players - 1
    bots = [b.strip().lower() for b in config.bots if b.strip()]
    if not bots:
        raise ValueError("give at least one bot, e.g. --bots rules")
    if len(bots) == 1:
        bots *= opponents
    if len(bots) != opponents:
        raise ValueError(
            f"--bots names {len(bots)} bots for {plural(opponents, 'opponent')}; give one name"
            f" for all of them or exactly {opponents}"
        )
    name = config.name.strip()
    if not name or "/" in name or "|" in name:
        raise ValueError(f"a player name must be non-empty without '/' or '|', not {name!r}")
    names = [name] + [f"{bot}-{i}" for i, bot in enumerate(bots, 1)]
    if len(set(names)) != len(names):
        raise ValueError(f"the name {name!r} is taken by a bot; choose another with --name")
    return names, bots


# --------------------------------------------------------------------------- analysis


def _value(rules: Rules, cards: Sequence[Card]) -> int:
    if len(cards) == 3:
        return evaluate3(cards[0], cards[1], cards[2])
    return evaluate(cards, wheel=rules.spec.scoring.wheel)


def _line_desc(rules: Rules, cards: Sequence[Card], size: int) -> str:
    if len(cards) == size:
        return hand_name(_value(rules, cards)).lower()
    return t("term.cards_so_far", cards=cards_str(cards))


def foul_warning(rules: Rules, board: Board, available: Collection[Card]) -> str | None:
    """Why ``board`` (possibly incomplete) would foul, or None.

    The scorer answers (:func:`scoring.certain_foul`, exact): a complete board fouls or
    not; an incomplete one is reported only when no cards of ``available`` (the cards
    that may still come) can finish it without a foul. The browser asks the server for
    the same answer, so both clients warn alike.
    """
    reason = certain_foul(rules, board, available)
    if reason is None:
        return None
    if board.complete or reason.kind != "beats" or reason.below is None:
        return t("term.would_foul_reason", reason=reason)
    upper, lower = reason.line, reason.below
    sizes = {"top": 3, "middle": 5, "bottom": 5}
    lines = dict(zip(("top", "middle", "bottom"), board.lines, strict=True))
    words = {
        "upper": render.line_word(upper),
        "lower": render.line_word(lower),
        "hand": _line_desc(rules, lines[upper], sizes[upper]),
        "hand2": _line_desc(rules, lines[lower], sizes[lower]),
    }
    if len(lines[upper]) == sizes[upper] and len(lines[lower]) == sizes[lower]:
        return t("term.would_foul_beats", **words)
    return t("term.will_foul_whatever_comes", **words)


def line_infos(rules: Rules, board: Board) -> list[tuple[int, str, int]]:
    """``(line, hand name, royalty)`` for every complete line of ``board``."""
    try:
        roys = royalties(rules, board)
    except ScoringError:
        roys = (0, 0, 0)
    out = []
    for i, (cards, size) in enumerate(zip(board.lines, (3, 5, 5), strict=True)):
        if len(cards) != size:
            continue
        name = hand_name(_value(rules, cards))
        if i == 1 and rules.spec.scoring.lowball_middle:
            name += t("term.more_ranked_low")
        out.append((i, name, roys[i]))
    return out


SUGGEST_SECONDS = 1.0
"""The hint engine's time budget for one ``s`` suggestion."""


def _kernels(rules: Rules) -> tuple[str, ...]:
    """The kernel families the hint engine runs for these rules (chinese_poker.ai.warm)."""
    if rules.is_classic:
        return ("setting",)
    return ("fantasyland", "open-face")


def _fantasyland_solver() -> Callable[..., Any] | None:
    """``ai.fantasyland.solve_fantasyland`` if it is there and importable, else None."""
    try:
        from chinese_poker.ai.fantasyland import solve_fantasyland
    except ImportError:
        return None
    return solve_fantasyland


# --------------------------------------------------------------------------- the game


class Game:
    """One person (seat 0) against bots, hand after hand, until the session ends or quits.

    ``input_fn(prompt)`` returns the next typed line (``EOFError`` means quit);
    ``console`` is where everything is drawn. ``sleep`` is injectable so tests never wait.
    """

    def __init__(
        self,
        config: GameConfig,
        *,
        console: Console,
        input_fn: InputFn,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        use_language(config.language)
        names, bot_names = _player_names(config)
        self.config = config
        self.rules = config.rules
        self.console = console
        self.input_fn = input_fn
        self.sleep = sleep
        self.title = config.title or config.rules.variant
        self.session = Session(config.rules, names, seed=config.seed)
        base = self.session.seed
        # Bots are seeded from the session seed so a seeded game replays exactly.
        self.bots: dict[str, Bot] = {
            name: make_bot(bot, seed=(base * 7919 + i) % 2**63)
            for i, (name, bot) in enumerate(zip(names[1:], bot_names, strict=True), 1)
        }
        self.hints = config.advisor.strip().lower() == "hints"
        self.advisor = make_bot("rules" if self.hints else config.advisor, seed=base % 2**63)
        self._hinted: tuple[tuple[int, Decision], tuple[Place | None, str] | None] | None = None
        if self.hints:
            # The hint engine's kernels compile (once per machine) or load while the
            # person looks at the first deal, so that the first ``s`` answers at once.
            from chinese_poker.ai.warm import warm_in_background

            warm_in_background(_kernels(config.rules))
        self.fallback = random.Random(base)
        self.human_name = names[0]
        encoding = (console.encoding or "").lower()
        self.theme = render.Theme(
            four_color=config.four_color,
            symbols=config.symbols,
            unicode=encoding.startswith("utf"),
        )
        self.money = config.rules.unit_value != 1
        self.events: list[str] = []
        self.extras: list[RenderableType] = []
        self.table: Table | None = None
        self.last_breakdown: RenderableType | None = None  # the last showdown, in full

    # ------------------------------------------------------------------ running

    def run(self) -> int:
        """Play until the session is over, ``--hands`` is reached or the player quits.

        Returns the exit status: 0, or 130 after Ctrl-C.
        """
        played = 0
        try:
            while not self.session.over:
                if self.config.hands is not None and played >= self.config.hands:
                    stopped = t("term.stopped_after_n_hands", n=played)
                    self.console.print(stopped)
                    break
                table = self._start_hand()
                self._play_hand(table)
                result = self.session.finish_hand()
                played += 1
                more = not self.session.over and (
                    self.config.hands is None or played < self.config.hands
                )
                self._show_showdown(table, result, more)
                if more:
                    self._between_hands()
            if self.session.over:
                self.console.print(Text(t("zone.session_over"), style="bold"))
            self.console.print(self._ledger_renderable(final=True))
        except QuitGame:
            self._quit_screen()
        except KeyboardInterrupt:
            self._quit_screen()
            return 130
        return 0

    def _start_hand(self) -> Table:
        deck = None
        if self.config.deck and not self.session.hands_played:
            prefix = list(self.config.deck)
            order = shuffled_deck(hand_seed(self.session.seed, 1))
            deck = prefix + [c for c in order if c not in prefix]
        table = self.session.start_hand(deck=deck)
        self.table = table
        self.events = []
        number = self.session.hands_played + 1
        fl = ", ".join(
            render.player_cards(table.players[s], n) for s, n in sorted(table.fantasyland.items())
        )
        self.events.append(
            t(
                "term.hand_dealt",
                number=number,
                button=table.players[table.button],
            )
            + (t("term.more_fantasyland_players", players=fl) if fl else "")
            + (t("term.more_session_seed", seed=self.session.seed) if number == 1 else "")
        )
        return table

    @property
    def human(self) -> int:
        assert self.table is not None
        return self.table.players.index(self.human_name)

    def _ask(self, prompt: str) -> str:
        try:
            return self.input_fn(prompt)
        except EOFError:
            raise QuitGame from None

    def _play_hand(self, table: Table) -> None:
        while not table.over:
            seat = self._next_seat(table)
            if seat == self.human:
                self._human_turn(table)
            else:
                self._bot_turn(table, seat)

    def _next_seat(self, table: Table) -> int:
        """Who acts now among ``to_act``.

        Bots setting a whole hand (Fantasyland, classic) go first: Fantasyland players
        act first by RULES §9.3, and a face-down set tells the person nothing. Then the
        person if asked, else the first seat in play order.
        """
        to_act = table.to_act
        for seat in to_act:
            if seat != self.human and any(d.kind == "set" for d in table.decisions(seat)):
                return seat
        if self.human in to_act:
            return self.human
        return to_act[0]

    # ------------------------------------------------------------------ bots

    def _bot_turn(self, table: Table, seat: int) -> None:
        name = table.players[seat]
        view = table.view(seat)
        decisions = view.decisions
        try:
            action: Action = self.bots[name].act(view)
            reason = table.check(action)
        except Exception as exc:  # a broken bot must not end the person's game
            reason = f"{type(exc).__name__}: {exc}"
        if reason is not None:
            self.events.append(t("term.bot_failed", name=name, reason=reason))
            action = table.random_action(seat, self.fallback)
        table.apply(action)
        self.events.append(self._describe(action, decisions, table, mine=False))
        if self.config.delay > 0:
            self._draw(table.view(self.human))
            self.sleep(self.config.delay)

    def _describe(
        self, action: Action, decisions: Sequence[Decision], table: Table, *, mine: bool
    ) -> str:
        """What everyone may know about an action (the person also sees his discards)."""
        name = table.players[action.seat]
        cc = table.rules.spec.variant.criss_cross
        hand = t("term.more_hand_n", n=getattr(action, "hand", 0) + 1) if cc else ""
        if isinstance(action, Place):
            dec = next((d for d in decisions if d.hand == action.hand), None)
            if dec is not None and dec.kind == "set":
                if mine:
                    board = (
                        f"{cards_str(action.top)} | {cards_str(action.middle)} | "
                        f"{cards_str(action.bottom)}"
                    )
                    text = t("term.name_set_hand_board", name=name, hand=hand, board=board)
                    if action.discard:
                        text += t("term.more_discarding_cards", cards=cards_str(action.discard))
                    return text
                if table.rules.is_open_face:
                    return t("term.name_set_fantasyland_face_down", name=name, hand=hand)
                return t("term.name_set_face_down", name=name, hand=hand)
            parts = [
                t(f"term.placed.{line}", cards=cards_str(cards))
                for line, cards in zip(
                    LINE_NAMES, (action.top, action.middle, action.bottom), strict=True
                )
                if cards
            ]
            text = t("term.name_placed_parts", name=name, parts=", ".join(parts))
            if action.discard:
                n = len(action.discard)
                text += (
                    t("term.more_discarded_cards", cards=cards_str(action.discard))
                    if mine
                    else t("term.more_n_cards_face_down", n=n)
                )
            return text
        if isinstance(action, Surrender):
            if mine:
                if action.surrender:
                    return t("term.name_hand_chose_to_surrender", name=name, hand=hand)
                return t("term.name_hand_chose_to_play", name=name, hand=hand)
            if action.surrender:
                return t("term.name_hand_surrenders", name=name, hand=hand)
            return t("term.name_hand_plays", name=name, hand=hand)
        if isinstance(action, ClaimNatural):
            if action.claim:
                return t("term.name_hand_chose_to_declare", name=name, hand=hand)
            return t("term.name_hand_chose_to_play_board", name=name, hand=hand)
        return t("term.name_times_out", name=name)

    # ------------------------------------------------------------------ the person

    def _human_turn(self, table: Table) -> None:
        view = table.view(self.human)
        dec = view.decisions[0]
        if dec.is_placement:
            self._placement(table, view, dec)
        else:
            self._declaration(table, view, dec)

    def _placement(self, table: Table, view: View, dec: Decision) -> None:
        # A whole set is easier to read sorted (pairs side by side); a street keeps the
        # dealt order, which is what positional letters like "tmbbx" refer to.
        order = None
        if dec.kind == "set":
            order = tuple(sorted(dec.cards, key=lambda c: (-(c >> 2), c & 3)))
        staging = Staging(dec, view.board_of(self.human, dec.hand).board, order=order)
        messages: list[tuple[str, str]] = []
        filled = staging.auto_fill()
        if filled:
            messages.append(
                (
                    "info",
                    t("term.only_one_way_to_play_what", what=describe_assignments(filled)),
                )
            )
        prompt = self._prompt(view, dec)
        while True:
            self._draw(view, staging=staging, messages=messages)
            messages = []
            line = self._ask(prompt)
            try:
                cmd = parse_command(line)
            except CommandError as exc:
                messages.append(("error", str(exc)))
                continue
            if isinstance(cmd, Simple):
                if cmd.name == "confirm":
                    if not staging.complete:
                        messages.append(
                            ("error", t("term.not_finished_what", what=staging.missing()))
                        )
                        continue
                    action = staging.to_place(view.version)
                    reason = table.check(action)
                    if reason is not None:  # the engine has the last word
                        messages.append(
                            ("error", t("term.the_table_refuses_this_reason", reason=reason))
                        )
                        continue
                    table.apply(action)
                    self.events.append(self._describe(action, view.decisions, table, mine=True))
                    return
                messages.extend(self._simple(cmd, table, view, dec, staging))
                continue
            try:
                chosen = staging.resolve(cmd)
            except CommandError as exc:
                messages.append(("error", str(exc)))
                continue
            staging.stage(chosen)
            text = t("term.staged_what", what=describe_assignments(chosen))
            filled = staging.auto_fill()
            if filled:
                text += t("term.more_rest_one_way", what=describe_assignments(filled))
            if staging.complete:
                text += t("term.more_enter_confirms")
            messages.append(("good", text))

    def _simple(
        self, cmd: Simple, table: Table, view: View, dec: Decision, staging: Staging
    ) -> list[tuple[str, str]]:
        """The commands other than confirm while placing; returns messages to show."""
        if cmd.name == "quit":
            raise QuitGame
        if cmd.name == "help":
            self.extras.append(render.help_panel(t(HELP_PLACE)))
            return []
        if cmd.name == "redraw":
            return []
        if cmd.name == "ledger":
            self.extras.append(self._ledger_renderable())
            return []
        if cmd.name == "undo":
            removed = staging.undo(cmd.count)
            if not removed:
                return [("error", t("term.nothing_to_undo"))]
            undone = cards_str(c for c, _dest in reversed(removed))
            return [("info", t("term.undone_cards", cards=undone))]
        # solve / auto
        suggestion, note = self._suggest(table, view, dec)
        if suggestion is None:
            return [("error", note)]
        if dec.kind == "set":  # the bar notation, which can be typed back in as it is
            text = (
                f"{cards_str(suggestion.top)} | {cards_str(suggestion.middle)} | "
                f"{cards_str(suggestion.bottom)}"
            )
            if suggestion.discard:
                text += t("term.more_discard_cards", cards=cards_str(suggestion.discard))
        else:
            text = describe_assignments(
                [
                    (c, d)
                    for d, cards in enumerate(
                        (suggestion.top, suggestion.middle, suggestion.bottom, suggestion.discard)
                    )
                    for c in cards
                ]
            )
        if cmd.name == "solve":
            return [
                (
                    "info",
                    t("term.suggestion", note=note, text=text),
                )
            ]
        staging.stage_place(suggestion)
        return [
            (
                "good",
                t("term.staged_the_suggestion", note=note, text=text),
            )
        ]

    def _suggest(self, table: Table, view: View, dec: Decision) -> tuple[Place | None, str]:
        """The hint engine's best option (by default), else the advisor bot's choice (the
        exact Fantasyland solver for a Fantasyland deal)."""
        if self.hints:
            key = (view.version, dec)
            if self._hinted is None or self._hinted[0] != key:  # `s` then `auto`: once
                self._hinted = (key, self._hint(table, view, dec))
            hinted = self._hinted[1]
            if hinted is not None:
                return hinted
        if dec.kind == "set" and view.rules.is_open_face:
            solver = _fantasyland_solver()
            if solver is not None:
                try:
                    sol = solver(dec.cards, view.rules, stay_value=None)
                    place = Place(
                        dec.seat,
                        tuple(sol.board.top),
                        tuple(sol.board.middle),
                        tuple(sol.board.bottom),
                        tuple(sol.discards),
                        hand=dec.hand,
                        version=view.version,
                    )
                    if table.check(place) is None:
                        stays = t("term.more_stays_in_fantasyland") if sol.stays else ""
                        royalties_ = sum(sol.royalties)
                        note = t("term.exact_solver_royalties_n", n=royalties_)
                        return place, note + stays
                except Exception:  # the solver is optional: use the bot below
                    pass
        try:
            action = self.advisor.act(dataclasses.replace(view, decisions=(dec,)))
        except Exception as exc:
            return None, t("term.no_suggestion_available_reason", reason=exc)
        if not isinstance(action, Place) or table.check(action) is not None:
            return None, t("term.no_suggestion_available")
        return action, t("term.bots_choice", bot=self.advisor.name)

    def _hint(self, table: Table, view: View, dec: Decision) -> tuple[Place | None, str] | None:
        """The hint engine's best; None while its kernels are being compiled (a fresh
        machine, a minute or more): the advisor (the rules bot) suggests meanwhile."""
        from chinese_poker.ai.hints import hint
        from chinese_poker.ai.warm import (
            compile_notice,
            is_warm,
            warm_kernels,
            warm_unless_compiling,
        )

        def say(message: str) -> None:
            self.console.print(Text(message, style="dim"))

        try:
            kernels = _kernels(self.rules)
            if not is_warm(kernels):
                say(t("term.hint_engine_warming"))
            if not warm_unless_compiling(kernels):
                return None
            # Wait for the background warm-up first: the time budget is for thinking, and
            # spent waiting on it the first suggestion would be a guess.
            warm_kernels(kernels, say=say)
            with compile_notice(say):
                entries = hint(dataclasses.replace(view, decisions=(dec,)),
                               time_budget=SUGGEST_SECONDS)  # fmt: skip
        except Exception as exc:
            return None, t("term.no_suggestion_available_reason", reason=exc)
        best = next((e for e in entries if isinstance(e.action, Place)), None)
        if best is None or table.check(best.action) is not None:
            return None, t("term.no_suggestion_available")
        assert isinstance(best.action, Place)
        return best.action, t("term.hint_engines_best", value=f"{best.value:+.2f}")

    def _declaration(self, table: Table, view: View, dec: Decision) -> None:
        cc = view.rules.spec.variant.criss_cross
        which = t("term.more_hand_n", n=dec.hand + 1) if cc else ""
        if dec.kind == "surrender":
            question = t("term.ask_surrender", which=which, cost=view.rules.surrender_cost)
        else:
            natural = view.board_of(self.human, dec.hand).natural
            question = t(
                "term.ask_declare_natural",
                which=which,
                natural=render.natural_word(natural),
            )
        messages: list[tuple[str, str]] = []
        while True:
            self._draw(view, messages=messages, question=question)
            messages = []
            line = self._ask("y/n › " if self.theme.unicode else "y/n > ")
            try:
                answer = parse_declaration(line)
            except CommandError as exc:
                messages.append(("error", str(exc)))
                continue
            if isinstance(answer, Simple):
                if answer.name == "quit":
                    raise QuitGame
                if answer.name == "help":
                    self.extras.append(render.help_panel(t(HELP_DECLARE)))
                elif answer.name == "ledger":
                    self.extras.append(self._ledger_renderable())
                continue
            action: Action
            if dec.kind == "surrender":
                action = Surrender(dec.seat, answer, dec.hand, view.version)
            else:
                action = ClaimNatural(dec.seat, answer, dec.hand, view.version)
            reason = table.check(action)
            if reason is not None:
                messages.append(("error", t("term.the_table_refuses_this_reason", reason=reason)))
                continue
            table.apply(action)
            self.events.append(self._describe(action, view.decisions, table, mine=True))
            return

    def _prompt(self, view: View, dec: Decision) -> str:
        arrow = "›" if self.theme.unicode else ">"
        cc = view.rules.spec.variant.criss_cross
        which = t("term.hand_n", n=dec.hand + 1) if cc else ""
        if dec.kind == "street":
            return t("review.street", n=dec.street) + f" {arrow} "
        if view.rules.is_open_face:
            return t("option.fantasyland_enabled") + f" {arrow} "
        return which + t("term.set") + f" {arrow} "

    # ------------------------------------------------------------------ drawing

    def _available(self, view: View, staging: Staging) -> set[Card]:
        """Cards that may still reach the person's board: not seen anywhere else."""
        seen: set[Card] = set()
        for b in view.boards:
            seen.update(b.top)
            seen.update(b.middle)
            seen.update(b.bottom)
            seen.update(b.discards)
        seen.update(view.hand)  # own cards of other decisions (Criss Cross)
        seen.update(staging.cards)
        # This street's unstaged cards may still be placed, unless all that it places
        # are staged: the rest are discards.
        open_cards = set(staging.unstaged()) if staging.placed_left > 0 else set()
        return (set(range(52)) - seen) | open_cards

    def _draw(
        self,
        view: View,
        *,
        staging: Staging | None = None,
        messages: Sequence[tuple[str, str]] = (),
        question: str | None = None,
    ) -> None:
        c = self.console
        c.clear()
        number = self.session.hands_played + 1
        c.print(render.header_text(view, self.title, number, self.theme))
        c.print(render.ledger_line(self.session.ledger.points))
        c.print(render.board_table(view, self.theme, human=self.human, staging=staging))
        if self.events:
            c.print(render.events_text(self.events))
        if staging is not None:
            mine = view.board_of(self.human, staging.decision.hand)
            c.print(
                render.hand_panel(
                    staging,
                    self.theme,
                    criss_cross=view.rules.spec.variant.criss_cross,
                    discards=mine.discards,
                )
            )
            board = staging.lines()
            infos = line_infos(view.rules, board)
            if infos:
                c.print(render.line_info_text(infos))
            warning = foul_warning(view.rules, board, self._available(view, staging))
            if warning:
                c.print(render.messages_text([("warn", warning)]))
            elif board.complete and view.rules.is_open_face:
                fl = fantasyland_next(view.rules, board, in_fantasyland=mine.in_fantasyland)
                if fl:
                    text = (
                        t("term.board_stays_in_fantasyland")
                        if mine.in_fantasyland
                        else t("term.board_earns_fantasyland")
                    )
                    c.print(Text(text.format(n=fl), style="magenta"))
        if question:
            c.print(Text(question, style="bold"))
        for extra in self.extras:
            c.print(extra)
        self.extras = []
        if messages:
            c.print(render.messages_text(messages))
        hint = t("term.keys_placing") if staging else t("term.keys_waiting")
        c.print(Text(hint if self.theme.unicode else hint.replace("·", "-"), style="dim"))

    def _show_showdown(self, table: Table, result: HandResult, more: bool) -> None:
        """The showdown: the whole breakdown when it fits the screen, else a summary
        that does (four players on 80x24); ``d`` between hands shows the whole one."""
        c = self.console
        c.clear()
        view = table.view(self.human)
        settlement = table.settlement
        assert settlement is not None
        data = settlement.to_dict()
        self.last_breakdown = render.settlement_view(
            data, self.theme, money=self.money, focus=self.human_name
        )
        fantasyland: list[RenderableType] = []
        if result.fantasyland_next:
            deals = ", ".join(render.player_cards(p, n) for p, n in result.fantasyland_next.items())
            fantasyland.append(Text(t("term.next_hand_fantasyland", deals=deals), style="magenta"))
        header = render.header_text(view, self.title, result.number, self.theme)
        events = [render.events_text(self.events, limit=4)] if self.events else []
        # What follows on the same screen: the prompt, or (last hand) a line saying why
        # the game ends and the final ledger, which run() prints.
        after = 1 if more else 1 + self._height(self._ledger_renderable(final=True))
        ledger = [self._ledger_renderable()] if more else []
        full = Group(header, *events, self.last_breakdown, *fantasyland, *ledger)
        if self._height(full) + after <= c.size.height:
            c.print(full)
            return
        session = [render.ledger_line(self.session.ledger.points)] if more else []
        for hands in (True, False):  # without the names of the hands if need be
            summary = Group(
                header,
                render.showdown_summary(
                    data, self.theme, money=self.money, focus=self.human_name, hands=hands
                ),
                *fantasyland,
                *session,
            )
            if self._height(summary) + after <= c.size.height:
                break
        c.print(summary)

    def _height(self, renderable: RenderableType) -> int:
        """Lines ``renderable`` takes on this console."""
        return len(self.console.render_lines(renderable, self.console.options, pad=False))

    def _between_hands(self) -> None:
        while True:
            line = self._ask(
                t("term.next_hand_prompt")
                if self.theme.unicode
                else t("term.next_hand_prompt_ascii")
            )
            word = line.strip().lower()
            if word in ("", "c", "n", "next", "ok"):
                return
            if word in ("q", "quit", "exit"):
                raise QuitGame
            if word in ("l", "ledger"):
                self.console.print(self._ledger_renderable())
                continue
            if word in ("d", "details") and self.last_breakdown is not None:
                self.console.print(self.last_breakdown)
                continue
            self.console.print(
                render.messages_text(
                    [
                        (
                            "error",
                            t("term.next_hand_or_quit", line=line.strip()),
                        )
                    ]
                )
            )

    def _ledger_renderable(self, *, final: bool = False) -> RenderableType:
        ledger = self.session.ledger
        return render.ledger_table(
            ledger.points,
            ledger.money if self.money else None,
            hands=self.session.hands_played,
            title=t("term.final_ledger") if final else t("term.session_ledger"),
        )

    def _quit_screen(self) -> None:
        unfinished = self.table is not None and not self.table.over
        n = self.session.hands_played
        text = t("term.you_quit_after_n_hands", n=n)
        text = text.format(n=n) + (
            t("term.more_unfinished_hand_not_counted") if unfinished else "."
        )
        self.console.print(Text(text, style="bold"))
        self.console.print(self._ledger_renderable(final=True))


def parse_deck(text: str) -> list[Card]:
    """The ``--deck`` testing hook: cards in dealing order (they must be distinct)."""
    cards = list(parse_cards(text))
    if len(cards) > 52:
        raise ValueError("a deck has 52 cards")
    return cards
