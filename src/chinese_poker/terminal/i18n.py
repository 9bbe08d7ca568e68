"""The terminal game's words in the player's language: :mod:`chinese_poker.language`.

Kept so the names the terminal game's callers import from here go on working; the
catalogues, the translate function :func:`~chinese_poker.language.t` and the hand names
live in :mod:`chinese_poker.language`, shared with the browser and the study desk.
"""

from __future__ import annotations

from chinese_poker.language import *  # noqa: F403 (the same names, for older callers)
from chinese_poker.language import __all__ as __all__
