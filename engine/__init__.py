"""The rules of Brandubh and its historical relatives, pure Python (standard library only).

>>> from engine import Game, Side, square_name
>>> game = Game()
>>> game.to_move is Side.ATTACKERS
True
>>> str(game.play("d2-c2"))
'd2-c2'
"""

from engine.board import Board
from engine.errors import (
    IllegalMoveError,
    InvalidMoveError,
    PositionError,
    UnknownRulesetError,
)
from engine.game import Game, opening_step
from engine.layout import format_position, parse_position
from engine.match import MatchReason, MatchResult, SetResult, score_match
from engine.moves import Move, MoveRecord
from engine.outcome import Outcome, Reason
from engine.record import read_record, read_tags, split_records, write_record
from engine.rules import RULESETS, Escape, Ruleset, get_ruleset
from engine.squares import Piece, Side, Square, parse_square, square, square_name

__all__ = [
    "RULESETS",
    "Board",
    "Escape",
    "Game",
    "IllegalMoveError",
    "InvalidMoveError",
    "MatchReason",
    "MatchResult",
    "Move",
    "MoveRecord",
    "Outcome",
    "Piece",
    "PositionError",
    "Reason",
    "Ruleset",
    "SetResult",
    "Side",
    "Square",
    "UnknownRulesetError",
    "format_position",
    "get_ruleset",
    "opening_step",
    "parse_position",
    "parse_square",
    "read_record",
    "read_tags",
    "score_match",
    "split_records",
    "square",
    "square_name",
    "write_record",
]
