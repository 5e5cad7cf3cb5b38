"""The positions Texel tuning fits (``benchmarks.fit_evaluation``): self-play games of level 5,
their quiet positions and each one's raw term counts, from the defenders' view.

A row holds the counts behind each term of today's evaluation (``TERMS``), then three
piece-square tables' class counts (``TABLES`` over ``CLASSES``); ``TODAY`` gives today's
weight of each term, so that ``today_from_row`` rebuilds today's hand-set evaluation.
"""

from __future__ import annotations

from collections.abc import Sequence

from benchmarks.ai_depth import iterations
from benchmarks.fit_piece_values import self_play
from engine import RULESETS
from engine.board import ATTACKER, DEFENDER, Board
from engine.evaluation import (
    ATTACKER_VALUE,
    CORNER_DISTANCE,
    DEFENDER_VALUE,
    GUARD_DIAGONAL,
    GUARD_NEXT_TO_CORNER,
    KING_MOBILITY,
    KING_PRESSURE,
    OPEN_LINE,
    SQUARE_CLASSES,
    TWO_MOVE_ROUTE,
    Tables,
    can_capture,
    king_capturable,
    square_class,
    tables,
)

CLASSES = SQUARE_CLASSES

TERMS = (
    "attackers",
    "defenders",
    "open lines",
    "routes",
    "king mobility",
    "king pressure",
    "corner distance",
    "guard beside corner",
    "guard diagonal",
    "defenders to move",
    "waiting side threat",
)
"""The raw term counts of a row, in order, from the defenders' view; the three tables follow."""

TODAY: dict[str, float] = {
    "attackers": -ATTACKER_VALUE,
    "defenders": DEFENDER_VALUE,
    "open lines": OPEN_LINE,
    "routes": TWO_MOVE_ROUTE,
    "king mobility": KING_MOBILITY,
    "king pressure": -KING_PRESSURE,
    "corner distance": -CORNER_DISTANCE,
    "guard beside corner": -GUARD_NEXT_TO_CORNER,
    "guard diagonal": -GUARD_DIAGONAL,
    "defenders to move": 0,
    "waiting side threat": 0,
}
"""Today's weight of each term in the defenders' view (the threat of the side to move is zero in
a quiet position; the side not to move's is not in the evaluation)."""

TABLES = ("attacker", "defender", "king")

Record = tuple[list[int], int]
"""One quiet position: its feature counts (terms, then 3 x 10 class counts) and today's
evaluation from the defenders' view."""


def features(board: Board, t: Tables) -> Record | None:
    """The raw counts of ``board``, or ``None`` when it is not quiet: the side to move can
    capture a piece or win at once (the king escape or be taken)."""
    mover = board.turn
    if can_capture(board, t, ATTACKER if mover == ATTACKER else DEFENDER):
        return None
    king = board.king
    cells = board.cells
    occupied = board.att_bb | board.def_bb
    escape_lines = t.escape_lines
    open_lines = sum(1 for mask in escape_lines[king] if not occupied & mask)
    if (open_lines and mover == DEFENDER) or (mover == ATTACKER and king_capturable(board, t)):
        return None
    mobility = routes = pressure = 0
    for ray in t.rays[king]:
        for to in ray:
            if cells[to]:
                if cells[to] == ATTACKER and to == ray[0]:
                    pressure += 1
                break
            mobility += 1
            if any(not occupied & mask for mask in escape_lines[to]):
                routes += 1
    guards = {w: (board.att_bb & mask).bit_count() for w, mask in t.guard_masks}
    waiting = DEFENDER if mover == ATTACKER else ATTACKER
    row = [
        len(board.attackers),
        len(board.defenders) - 1,
        open_lines,
        routes,
        mobility,
        pressure,
        t.corner_distance[king],
        guards.get(GUARD_NEXT_TO_CORNER, 0),
        guards.get(GUARD_DIAGONAL, 0),
        1 if mover == DEFENDER else -1,
        (1 if waiting == DEFENDER else -1) * int(can_capture(board, t, waiting)),
    ]
    pst = [0] * (3 * len(CLASSES))
    for sq in board.attackers:
        pst[square_class(sq, 7)] += 1
    for sq in board.defenders:
        if sq != king:
            pst[len(CLASSES) + square_class(sq, 7)] += 1
    pst[2 * len(CLASSES) + square_class(king, 7)] += 1
    # Today's hand-set evaluation (the threat of the side to move is zero here).
    return row + pst, round(today_from_row(row))


def today_from_row(row: Sequence[int]) -> float:
    """Today's evaluation (defenders' view) rebuilt from a row's term counts."""
    return sum(TODAY[name] * row[i] for i, name in enumerate(TERMS))


def search_score(board: Board, t: Tables, depth: int) -> int:
    """The score of ``board`` from the defenders' view by a full search ``depth`` plies deep
    (level 5's iterations, no time or node limit), forced results kept within +-``_SURE``."""
    score = 0
    for scored, _ in iterations(board, t, depth):
        score = scored[0][0]
    score = max(-_SURE, min(_SURE, score))
    return score if board.turn == DEFENDER else -score


_SURE = 3000
"""A search score beyond which a position counts as decided (far out on the logistic curve)."""


def play_game(job: tuple[str, int, int, int, int]) -> tuple[list[Record], list[int], float]:
    """One self-play game: its quiet positions, their search scores (``job``'s last item is
    the depth, none if 0) and the defenders' result (1, 0 or ½)."""
    ruleset, seed, nodes, max_plies, depth = job
    t = tables(RULESETS[ruleset])

    def keep(board: Board) -> tuple[Record, int] | None:
        record = features(board, t)
        if record is None:
            return None
        return record, search_score(board, t, depth) if depth else 0

    kept, result = self_play(ruleset, seed, nodes, max_plies, keep)
    return [record for record, _ in kept], [score for _, score in kept], result
