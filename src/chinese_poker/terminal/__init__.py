"""Play Chinese poker in the terminal: a person against bots (``chinese-poker play``).

* :mod:`.game` -- the game loop (:class:`~.game.Game`), fed by an input function and
  drawing on a Rich console, so it runs the same in tests and in a real terminal;
* :mod:`.commands` -- the short placement syntax and the local staging of a decision;
* :mod:`.render` -- Rich rendering of boards, hands, breakdowns and the ledger.

See ``docs/terminal.md`` for the syntax and the screens.
"""

from chinese_poker.terminal.game import Game, GameConfig

__all__ = ["Game", "GameConfig"]
