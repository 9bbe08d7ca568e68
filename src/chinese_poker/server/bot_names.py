"""A bot's name in players' words: the one rule for every place that names a bot (a
table's bot seat given no name, the leaderboard and profiles, and so the histories,
which keep the seats' names). A bot the lobby offers as a strength is named by it, as
the lobby's one-click table names it (``"Casual bot"``: the browser's ``join.bot_of``
with the strength's word); another by the registry's display name and its level."""

from __future__ import annotations

from chinese_poker.ai import REGISTRY

__all__ = ["STRENGTHS", "bot_name"]

#: (bot, level) -> the strength the lobby offers it as (``static/js/words.js``
#: STRENGTHS; a test holds the two equal); level None: at any level.
STRENGTHS: dict[tuple[str, int | None], str] = {
    ("random", None): "Beginner",
    ("rules", None): "Casual",
    ("mc", 2): "Strong",
    ("mc", 3): "Expert",
}


def bot_name(bot: str, level: int | None) -> str:
    """The name of ``bot`` at ``level`` in players' words.

    >>> bot_name("rules", None), bot_name("mc", 3), bot_name("mc", 1)
    ('Casual bot', 'Expert bot', 'Monte Carlo bot (level 1)')
    """
    strength = STRENGTHS.get((bot, None)) or STRENGTHS.get((bot, level))
    if strength is not None:
        return f"{strength} bot"
    kind = REGISTRY.get(bot)
    words = kind.display_name if kind is not None else bot
    return f"{words} bot" + (f" (level {level})" if level is not None else "")
