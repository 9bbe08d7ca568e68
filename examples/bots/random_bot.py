#!/usr/bin/env python3
"""A tiny external bot for chinese-poker, speaking the bot protocol (version 1).

Standard library only. It reads the engine's JSON lines on stdin and answers on stdout:

* ``hello``  -> ``{"type": "ready", "protocol": 1, "name": "example-random"}``
* ``act``    -> a random action: one of ``legal`` when the engine lists them, otherwise
  (a Fantasyland deal or a classic set: ``legal`` is null) a random arrangement of the
  decision's cards that fits its counts and the room in each line;
* ``new_session`` reseeds it with the engine's seed (reproducible runs);
* ``quit`` or the end of stdin ends it. Logs go to stderr, never stdout.

Try it:  chinese-poker simulate --bots 'cmd:python3 examples/bots/random_bot.py,rules'
Online, unchanged (docs/bot-protocol.md "Online"), with a bot account's token:
  chinese-poker bot --connect URL --bot 'cmd:python3 examples/bots/random_bot.py'
"""

import contextlib
import json
import random
import sys


def arrange(decision, rng):
    """A random legal placement for a decision from ``view["decisions"]``."""
    cards = list(decision["cards"])
    rng.shuffle(cards)
    discard = cards[: decision["discard"]]
    keep = cards[decision["discard"] :]
    free = decision["free"]  # room left in top, middle, bottom
    lines = {"top": [], "middle": [], "bottom": []}
    for card in keep:
        open_lines = [name for i, name in enumerate(lines) if len(lines[name]) < free[i]]
        lines[rng.choice(open_lines)].append(card)
    return {"type": "place", "hand": decision["hand"], "discard": discard, **lines}


def choose(message, rng):
    view = message["view"]
    if message.get("legal"):
        return rng.choice(message["legal"])
    decision = view["decisions"][0]
    if decision["kind"] in ("street", "set"):
        action = arrange(decision, rng)
    elif decision["kind"] == "surrender":
        action = {"type": "surrender", "hand": decision["hand"], "surrender": False}
    else:
        action = {"type": "claim_natural", "hand": decision["hand"], "claim": True}
    action.update(seat=view["seat"], version=view["version"])
    return action


def main():
    rng = random.Random()
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            answer = {"type": "ready", "protocol": 1, "name": "example-random"}
        elif kind == "new_session":
            rng.seed(message.get("seed"))
            continue
        elif kind == "act":
            answer = {"type": "action", "id": message["id"], "action": choose(message, rng)}
        elif kind == "quit":
            break
        else:  # "result", or something newer: no answer needed
            continue
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt, BrokenPipeError):
        main()
