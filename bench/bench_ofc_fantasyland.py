"""Why ``mc`` never reaches Fantasyland in plain OFC: the playout policy, measured.

    PYTHONPATH=src .venv/bin/python bench/bench_ofc_fantasyland.py --boards 3000

Three measurements (docs/bots-research.md, *Round three*), printed as JSON lines:

* ``policy``: boards the fast policy completes from scratch (``rollout.solitaire_values``)
  for each ``fills x choice`` given: fouls, Fantasyland earned, pairs on top, royalties
  per board. These are the boards the rollouts assume our own later streets make.
* ``chances``: boards the policy (6 x 5) plays card by card from scratch in OFC: how
  many end with a queen, king or ace on top, how many get a card that pairs it while
  the top has room (and is not paired yet), and how many of those it pairs on top.
* ``ceiling``: random 13-card deals for which *some* arrangement is a valid board with
  a Fantasyland top (QQ or better, or trips): what a player who knew every card in
  advance could reach; a player who sees one card at a time reaches less.
* ``spots``: positions with a pair of queens on top and part of the board placed: how
  often the cards still to come can be arranged into a valid board, (a) by the best
  arrangement (exhaustive), (b) by the best of ``choice`` random arrangements (what one
  policy completion counts), (c) by the policy itself placing them one card at a time
  (6 x 5 completions, the bot's level 2, and 60 x 5).

A policy ``6x5r3`` is 6 completions x 5 arrangements with 3 rounds of foul repair
(``Level.foul_repair``); ``8x5r1w1`` adds the learned correction at weight 1
(``Level.residual``, Pineapple only; docs/bots-research.md, *Round eleven*); ``0x5r1v`` places
every street by the learned value of the board alone, no completions (``Level.value``,
the presets of ``ai.value.PRESETS``; docs/bots-research.md, *Round twelve* and *Round thirteen*),
and ``0x5r1s`` by that value refined on ``mc``'s search means (``Level.value`` 2,
``ai.value.SEARCH_PRESETS``; *Round fourteen*).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
from collections.abc import Sequence

import numpy as np

from chinese_poker.ai import rollout
from chinese_poker.ai.rollout import policy
from chinese_poker.cards import Card, card_rank, parse_cards
from chinese_poker.evaluate import evaluate, evaluate3
from chinese_poker.rules import rules_for
from shortfall import short, verdict


def policy_boards(
    preset: str, boards: int, fills: int, choice: int, repair: int, seed: int,
    residual: float = 0.0, learned: int = 0,
) -> dict[str, object]:  # fmt: skip
    rules = rules_for(preset)
    t = rollout.tables_for(rules).with_policy(repair=repair, residual=residual, value=learned)
    v = rollout.solitaire_values(rules, boards, seed=seed, fills=fills, choice=choice,
                                 repair=repair, residual=residual, value=learned)  # fmt: skip
    foul = (v[:, 0] > v[:, 1]) | (v[:, 1] > v[:, 2])
    hi = v[:, 0] >> 16
    fl = (t.flv[hi] > 0) & ~foul
    roy = t.roy[0, hi] + t.roy[1, v[:, 1] >> 16] + t.roy[2, v[:, 2] >> 16]
    # The value the policy maximises, from the kernels' own function.
    w, penalty = t.policy[rollout.POL_W], t.policy[rollout.POL_FOUL_PENALTY]
    value = np.array([policy.lines_value(int(a), int(b), int(c), t.roy, t.flv, t.strength, w,
                                           penalty) for a, b, c in v])  # fmt: skip
    return {
        "measure": "policy", "preset": preset, "fills": fills, "choice": choice,
        "repair": repair, "residual": residual, "learned_value": learned,
        "boards": len(v), "foul_rate": round(float(foul.mean()), 4),
        "fantasyland_rate": round(float(fl.mean()), 4),
        "pair_on_top": round(float(((hi >> 4) == 1).mean()), 4),
        "royalties_per_board": round(float(roy[~foul].sum() / len(v)), 3),
        "royalties_per_valid_board": round(float(roy[~foul].mean()), 3),
        "policy_value": round(float(value.mean()), 3),
    }  # fmt: skip


def chances(boards: int, seed: int) -> dict[str, object]:
    rules = rules_for("ofc")
    rng = random.Random(seed)
    high_top = chances_ = paired = 0
    for _ in range(boards):
        deck = list(range(52))
        rng.shuffle(deck)
        lines: tuple[tuple[Card, ...], ...] = ((), (), ())
        at = 0
        for dealt, place in rules.streets:
            street = deck[at : at + dealt]
            at += dealt
            top = [card_rank(c) for c in lines[0]]
            chance = (dealt == 1 and 0 < len(top) < 3 and len(set(top)) == len(top)
                      and card_rank(street[0]) in [r for r in top if r >= 10])  # fmt: skip
            add = rollout.policy_place(rules, (lines[0], lines[1], lines[2]), street, place,
                                       deck[at:], fills=6, choice=5,
                                       seed=rng.getrandbits(30))  # fmt: skip
            chances_ += chance
            paired += chance and bool(add[0])
            lines = (lines[0] + add[0], lines[1] + add[1], lines[2] + add[2])
        high_top += any(card_rank(c) >= 10 for c in lines[0])
    return {"measure": "chances", "boards": boards, "queen_or_better_on_top": high_top,
            "pairing_card_while_room": chances_, "paired_on_top": paired}  # fmt: skip


def _valid(top: Sequence[Card], middle: Sequence[Card], bottom: Sequence[Card]) -> bool:
    return evaluate3(*top) <= evaluate(middle) <= evaluate(bottom)


def _fantasyland_top(top: Sequence[Card]) -> int | None:
    """The top's value if it earns Fantasyland under the OFC preset (QQ+ or trips)."""
    vt = evaluate3(*top)
    h = vt >> 16
    return vt if (h >> 4 == 1 and h & 15 >= 12) or h >> 4 == 3 else None


def ceiling(deals: int, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    hits = 0
    for _ in range(deals):
        cards = rng.sample(range(52), 13)
        hits += _can_finish(cards, [], [], [], qualify=True)
    return {"measure": "ceiling", "deals": deals, "fantasyland_possible": round(hits / deals, 4)}


def _can_finish(
    cards: Sequence[Card], top: list[Card], middle: list[Card], bottom: list[Card],
    *, qualify: bool,
) -> bool:  # fmt: skip
    """Whether ``cards`` can fill the open slots into a valid board (with a Fantasyland
    top if ``qualify``)."""
    for t in itertools.combinations(cards, 3 - len(top)):
        line = top + list(t)
        vt = _fantasyland_top(line) if qualify else evaluate3(*line)
        if vt is None:
            continue
        rest = [c for c in cards if c not in t]
        for m in itertools.combinations(rest, 5 - len(middle)):
            vm = evaluate(middle + list(m))
            if vm >= vt and evaluate(bottom + [c for c in rest if c not in m]) >= vm:
                return True
    return False


SPOTS = (
    ("Qd Qs", "9c 9h", "Ah Kh 5h"),
    ("Qd Qs", "9c 7h", "Ah Kh 5h"),
    ("Qd Qs", "Ac 7h", "9s 9h 5h 5d"),
    ("Qd Qs", "", "Ah Ad"),
)


def spots(draws: int, choice: int, seed: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    rules = rules_for("ofc")
    out: list[dict[str, object]] = []
    for text in SPOTS:
        top, middle, bottom = (list(parse_cards(x)) for x in text)
        seen = set(top + middle + bottom)
        pool = [c for c in range(52) if c not in seen]
        need = 13 - len(seen)
        best = randomly = repaired = 0
        played = {6: 0, 60: 0}
        t = rollout.tables_for(rules)
        sums = [sum(int(t.codes[c]) for c in line) for line in (top, middle, bottom)]
        penalty = float(t.policy[rollout.POL_FOUL_PENALTY])
        f0, f1 = 3 - len(top), 5 - len(middle)
        for _ in range(draws):
            cards = rng.sample(pool, need)
            best += _can_finish(cards, top, middle, bottom, qualify=False)
            rest = [c for c in pool if c not in cards]
            for fills in played:
                lines = (tuple(top), tuple(middle), tuple(bottom))
                for k, card in enumerate(cards):  # one card a time, the rest unseen
                    add = rollout.policy_place(rules, lines, [card], 1, cards[k + 1 :] + rest,
                                               fills=fills, choice=choice,
                                               seed=rng.getrandbits(30))  # fmt: skip
                    lines = (lines[0] + add[0], lines[1] + add[1], lines[2] + add[2])
                played[fills] += _valid(*lines)
            for _ in range(choice):
                p = cards[:]
                rng.shuffle(p)
                if _valid(top + p[:f0], middle + p[f0 : f0 + f1], bottom + p[f0 + f1 :]):
                    randomly += 1
                    repaired += 1
                    break
            else:  # all five foul: what three rounds of foul repair make of the last
                codes = np.array([t.codes[c] for c in p], dtype=np.int64)
                value = policy.repaired_value(*sums, f0, f0 + f1, need, codes, 3, t.t3, t.t5, t.fo,
                                        t.roy, t.flv, t.strength, float(t.policy[rollout.POL_W]),
                                        penalty)  # fmt: skip
                repaired += value > -penalty
        out.append({"measure": "spots", "board": " | ".join(text), "cards_to_come": need,
                    "valid_best_arrangement": round(best / draws, 3),
                    f"valid_best_of_{choice}_random": round(randomly / draws, 3),
                    f"valid_best_of_{choice}_random_repair_3": round(repaired / draws, 3),
                    "valid_policy_6x5_card_by_card": round(played[6] / draws, 3),
                    "valid_policy_60x5_card_by_card": round(played[60] / draws, 3)})  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--boards", type=int, default=3000)
    p.add_argument("--policies", default="6x5,6x1,6x20,12x5,30x1,6x5r1,6x5r3",
                   help="fills x choice of the policy, comma separated")  # fmt: skip
    p.add_argument("--presets", default="ofc,pineapple")
    p.add_argument("--deals", type=int, default=400)
    p.add_argument("--chance-boards", type=int, default=600)
    p.add_argument("--draws", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--policy-only", action="store_true",
                   help="only the policy's boards (the first measurement)")  # fmt: skip
    args = p.parse_args(argv)
    problems: list[str | None] = []
    for preset in args.presets.split(","):
        for item in args.policies.split(","):
            # v: the learned value (BoardValue.ITERATED); s: refined on search (SEARCH); l: with
            # the live cards (LIVE)
            learned = {"v": 1, "s": 2, "l": 3}.get(item[-1], 0)
            item, _, weight = item.rstrip("vsl").partition("w")
            shape, _, repair = item.partition("r")
            fills, choice = (int(x) for x in shape.split("x"))
            row = policy_boards(preset, args.boards, fills, choice, int(repair or 0),
                                args.seed, float(weight or 0), learned)  # fmt: skip
            print(json.dumps(row), flush=True)
            completed = row["boards"]
            assert isinstance(completed, int)
            problems.append(short(f"{preset} {item}: boards completed", completed, args.boards))
    if args.policy_only:
        return verdict("bench_ofc_fantasyland", problems)
    print(json.dumps(chances(args.chance_boards, args.seed)), flush=True)
    print(json.dumps(ceiling(args.deals, args.seed)), flush=True)
    for row in spots(args.draws, 5, args.seed):
        print(json.dumps(row), flush=True)
    return verdict("bench_ofc_fantasyland", problems)


if __name__ == "__main__":
    sys.exit(main())
