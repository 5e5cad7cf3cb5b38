"""Pictures of tafl games: board PNGs, replay GIFs, rules cards, and the same in words.

>>> from engine import Game
>>> from renderer import render_board, describe_board
>>> render_board(Game())[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
>>> "Attackers to move, move 1." in describe_board(Game())
True
"""

from renderer.board import render_board
from renderer.replay import describe_replay, render_replay
from renderer.rules_card import describe_rules_card, render_rules_card
from renderer.text import ALT_TEXT_LIMIT, describe_board, text_board

__all__ = [
    "ALT_TEXT_LIMIT",
    "describe_board",
    "describe_replay",
    "describe_rules_card",
    "render_board",
    "render_replay",
    "render_rules_card",
    "text_board",
]
