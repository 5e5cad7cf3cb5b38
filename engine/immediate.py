"""Results one move away: which moves win at once, and after which the opponent wins at once.

This is what every level of the computer opponent guarantees whatever its budget (it takes an
immediate win, blocks an immediate escape or king capture, and never plays a move that loses at
once when another move does not), computed without a search: each candidate move is played on
the board, and the opponent's wins in one are looked for with the search's own quick checks —
the king's open lines to an escape square (a corner or any edge square, by the ruleset),
:func:`engine.evaluation.king_capturable` — and, for the rarer ways a game ends, cheap screens
that play the opponent's moves themselves (with the board's own rules) only when the position
makes such an end possible: the attackers encircling every defender, a side left without a
legal move, the defenders capturing the last attackers.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from engine.board import ATTACKER, DEFENDER, KING, Board
from engine.evaluation import Tables, king_capturable
from engine.squares import Side

_MOST_CAPTURED = 3
"""A move captures at most three pieces: the square it came from, beside its landing square, is
empty."""


class Immediate(enum.IntEnum):
    """What a move does one move deep."""

    LOSES = -1
    """It loses at once: by its own result (a third repetition) or by an answer of the
    opponent's that wins."""
    NEITHER = 0
    WINS = 1


def classify(board: Board, t: Tables, moves: Iterable[int]) -> dict[int, Immediate]:
    """For each of ``moves`` (legal for the side to move on ``board``), whether it wins at once,
    loses at once, or neither. ``board`` is left as it was."""
    mover = Side.ATTACKERS if board.turn == ATTACKER else Side.DEFENDERS
    found: dict[int, Immediate] = {}
    for move in moves:
        board.push(move)
        outcome = board.outcome
        if outcome is not None:
            found[move] = Immediate.WINS if outcome.winner is mover else Immediate.LOSES
        elif wins_in_one(board, t):
            found[move] = Immediate.LOSES
        else:
            found[move] = Immediate.NEITHER
        board.pop()
    return found


def wins_in_one(board: Board, t: Tables) -> bool:
    """Whether the side to move on ``board`` (a game in progress) has a move that wins at once.

    Exact on every ruleset of :mod:`engine.rules`: the escapes and king captures are checked
    directly, and the other ends are played out whenever the position allows them.
    """
    if board.turn == DEFENDER:
        occupied = board.att_bb | board.def_bb
        for mask in t.escape_lines[board.king]:
            if not occupied & mask:
                return True
    else:
        if king_capturable(board, t):
            return True
        encircling = _encircling_landings(board)
        if encircling is None:
            if _some_move_wins(board, board.moves()):
                return True
        elif encircling and _some_move_wins(
            board, [m for m in board.moves() if 1 << (m & 255) & encircling]
        ):
            return True
    # Left without a legal move: possible only when the side that just moved has few pieces
    # that can move two ways (one landing square blocks one way, and captures take at most
    # three). The defenders taking the last attackers (brandubh-classic) needs three attackers
    # or fewer, so it is found here too.
    return not _keeps_a_move(board) and _some_move_wins(board, board.moves())


def _some_move_wins(board: Board, moves: Iterable[int]) -> bool:
    """Whether one of ``moves`` wins at once for the side to move, by the board's own rules."""
    mover = Side.ATTACKERS if board.turn == ATTACKER else Side.DEFENDERS
    for move in moves:
        board.push(move)
        outcome = board.outcome
        board.pop()
        if outcome is not None and outcome.winner is mover:
            return True
    return False


def _keeps_a_move(board: Board) -> bool:
    """Whether the side *not* to move is sure to have a legal move after any one move of the
    side to move: at least four of its pieces can move in two directions or more."""
    cells = board.cells
    geo = board.geo
    restricted = geo.restricted
    blocks = geo.blocks
    pieces = board.defenders if board.turn == ATTACKER else board.attackers
    mobile = 0
    for frm in pieces:
        king = cells[frm] == KING
        ways = 0
        for ray in geo.rays[frm]:
            for to in ray:
                if cells[to]:
                    break
                if king or not restricted[to]:
                    ways += 1
                    break
                if blocks[to]:
                    break
            if ways >= 2:
                mobile += 1
                if mobile > _MOST_CAPTURED:
                    return True
                break
    return False


def _encircling_landings(board: Board) -> int | None:
    """For the attackers to move: a mask of the squares where an attacker landing *might*
    encircle every defender (0 when none can), or ``None`` when no square can be ruled out.

    The defenders stay unencircled while one of them, the anchor, can reach the edge through
    squares free of attackers and is not captured. The anchor is the king when he can reach the
    edge (he cannot be taken by this move: that is checked first), else the first other
    defender that can; an attacker landing beside that one might take him. Take one shortest
    path from the anchor to the edge: an attacker landing off it leaves it open. If a second
    path avoids it entirely, no single landing closes both; else only the path's squares whose
    loss cuts the anchor off remain.
    """
    geo = board.geo
    open_squares = geo.board_mask & ~board.att_bb
    start = geo.edge_mask & open_squares
    king_bit = 1 << board.king
    layers = _layers(start, open_squares, king_bit)
    landings = 0
    if layers is None:
        # The king is shut in already: another defender that reaches the edge keeps them free.
        layers = _layers(start, open_squares, board.def_bb & ~king_bit)
        if layers is None:
            return None
        reached = layers[-1] & board.def_bb
        anchor = (reached & -reached).bit_length() - 1
        for n in geo.neighbours[anchor]:
            landings |= 1 << n
        landings &= ~(board.att_bb | board.def_bb)
    else:
        anchor = board.king
    anchor_bit = 1 << anchor
    # Walk back from the anchor through the layers: one shortest path to the edge.
    path = 0
    square = anchor
    for layer in reversed(layers[:-1]):
        for step in (1, -1, 16, -16):
            if square + step >= 0 and layer >> (square + step) & 1:
                square += step
                break
        path |= 1 << square
    if _layers(start & ~path, open_squares & ~path, anchor_bit) is not None:
        return landings
    cuts = path & ~board.def_bb
    while cuts:
        low = cuts & -cuts
        cuts ^= low
        rest = open_squares & ~low
        if _layers(geo.edge_mask & rest, rest, anchor_bit) is None:
            landings |= low
    return landings


def _layers(start: int, open_squares: int, target: int) -> list[int] | None:
    """The breadth-first layers of a flood from ``start`` through ``open_squares`` until it
    reaches ``target`` (the last layer holds it), or ``None`` if it never does."""
    if not start:
        return None
    reach = start
    layers = [start]
    frontier = start
    while not frontier & target:
        grown = (
            (frontier << 1 | frontier >> 1 | frontier << 16 | frontier >> 16)
            & open_squares
            & ~reach
        )
        if not grown:
            return None
        reach |= grown
        layers.append(grown)
        frontier = grown
    return layers
