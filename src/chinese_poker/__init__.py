"""chinese-poker: the Chinese poker family (classic, Criss Cross, OFC, Pineapple, Turbo).

Layers, each usable without the ones above it: ``cards`` and ``evaluate``;
``rules`` and ``scoring``; ``engine``; ``ai``; the clients (``cli``, server, env).
"""

from chinese_poker.cards import Board, Card, CardError, parse_board, parse_card, parse_cards

__version__ = "0.1.0"

__all__ = ["Board", "Card", "CardError", "__version__", "parse_board", "parse_card", "parse_cards"]
