"""Perft: move-sequence counts from the brandubh start, pinned, and cross-checked against a
deliberately simple, slow reference written here from docs/rules.md alone (not from
engine/board.py).

A perft count at depth d is the number of legal move sequences of d plies; a game that ends
stops expanding, so an ended game counts only at the depth where it ended.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

import pytest

from engine import Game, Piece, Side, parse_position, square_name
from engine.board import Board

# ------------------------------------------------------------------ the reference rules
# Coordinates are (file, rank) pairs counted from 0; pieces are "A" attacker, "D" defender,
# "K" king. Only the default brandubh ruleset is modelled.

Coord = tuple[int, int]
SIZE = 7
THRONE: Coord = (3, 3)
CORNERS = frozenset({(0, 0), (0, 6), (6, 0), (6, 6)})
STEPS: tuple[Coord, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))


def on_board(c: Coord) -> bool:
    return 0 <= c[0] < SIZE and 0 <= c[1] < SIZE


def step(c: Coord, d: Coord) -> Coord:
    return (c[0] + d[0], c[1] + d[1])


def side_of(piece: str) -> str:
    return "A" if piece == "A" else "D"


@dataclass
class RefGame:
    """The whole state: pieces, the side to move ("A" or "D") and the result, if any."""

    pieces: dict[Coord, str]
    to_move: str
    winner: str | None = None
    history: Counter[tuple[frozenset[tuple[Coord, str]], str]] = field(default_factory=Counter)

    def key(self) -> tuple[frozenset[tuple[Coord, str]], str]:
        return frozenset(self.pieces.items()), self.to_move


def ref_moves(game: RefGame) -> list[tuple[Coord, Coord]]:
    """§2-3: rook moves, no jumping; only the king stops on the throne or a corner; anyone
    passes over the empty throne."""
    if game.winner is not None:
        return []
    moves = []
    for frm, piece in game.pieces.items():
        if side_of(piece) != game.to_move:
            continue
        for d in STEPS:
            to = step(frm, d)
            while on_board(to) and to not in game.pieces:
                if piece == "K" or (to != THRONE and to not in CORNERS):
                    moves.append((frm, to))
                to = step(to, d)
    return moves


def hostile_to(victim: str, jaw_square: Coord, pieces: dict[Coord, str]) -> bool:
    """§4-5: whether ``jaw_square`` closes a pincer on ``victim`` for the moving side."""
    if not on_board(jaw_square):
        return False  # the edge is never hostile
    jaw = pieces.get(jaw_square)
    if victim == "A":
        # Defenders and the armed king are jaws; corners and the throne (empty, or with the
        # king on it) are hostile to attackers.
        special = jaw_square in CORNERS or jaw_square == THRONE
        return jaw in ("D", "K") or (jaw is None and special)
    if victim == "D":
        return jaw == "A" or (jaw is None and (jaw_square in CORNERS or jaw_square == THRONE))
    # The king (§6): away from the throne, an attacker or a corner on the opposite side.
    return jaw == "A" or (jaw is None and jaw_square in CORNERS)


def ref_play(game: RefGame, move: tuple[Coord, Coord]) -> tuple[RefGame, list[Coord]]:
    """The game after ``move``, and the squares it captured."""
    frm, to = move
    pieces = dict(game.pieces)
    piece = pieces.pop(frm)
    pieces[to] = piece
    mover = side_of(piece)
    captured = []
    for d in STEPS:
        n = step(to, d)
        victim = pieces.get(n)
        if victim is None or side_of(victim) == mover:
            continue
        if victim == "K" and n == THRONE:
            if all(pieces.get(step(n, e)) == "A" for e in STEPS):
                captured.append(n)
        elif hostile_to(victim, step(n, d), pieces):
            captured.append(n)
    for c in captured:
        del pieces[c]
    after = RefGame(pieces, "D" if game.to_move == "A" else "A", history=Counter(game.history))
    after.history[after.key()] += 1
    if "K" not in pieces.values():
        after.winner = "A"  # §8 king captured
    elif piece == "K" and to in CORNERS:
        after.winner = "D"  # §7 escape
    elif mover == "A" and encircled(pieces):
        after.winner = "A"  # §8 encirclement
    elif after.history[after.key()] >= 3:
        after.winner = "D" if mover == "A" else "A"  # §9 the repeater loses
    elif not ref_moves(after):
        after.winner = mover  # §10 the side with no move loses
    return after, captured


def encircled(pieces: dict[Coord, str]) -> bool:
    """§8: flood from every edge square through squares free of attackers; no defender met."""
    edge = [
        (f, r) for f in range(SIZE) for r in range(SIZE) if f in (0, SIZE - 1) or r in (0, SIZE - 1)
    ]
    seen = {c for c in edge if pieces.get(c) != "A"}
    todo = list(seen)
    while todo:
        c = todo.pop()
        if pieces.get(c) in ("D", "K"):
            return False
        for d in STEPS:
            n = step(c, d)
            if on_board(n) and n not in seen and pieces.get(n) != "A":
                seen.add(n)
                todo.append(n)
    return True


def ref_from_position(position: str, to_move: str) -> RefGame:
    _, pieces = parse_position(position)
    letters = {Piece.ATTACKER: "A", Piece.DEFENDER: "D", Piece.KING: "K"}
    game = RefGame({(sq & 15, sq >> 4): letters[p] for sq, p in pieces.items()}, to_move)
    game.history[game.key()] += 1
    if not ref_moves(game):
        game.winner = "D" if to_move == "A" else "A"
    return game


@dataclass
class Tally:
    """Leaf nodes, and along the way the captures made and games ended at each move."""

    nodes: int = 0
    captures: int = 0
    endings: int = 0


def ref_perft(game: RefGame, depth: int, tally: Tally) -> None:
    if depth == 0:
        tally.nodes += 1
        return
    for move in ref_moves(game):
        after, captured = ref_play(game, move)
        tally.captures += len(captured)
        tally.endings += after.winner is not None
        ref_perft(after, depth - 1, tally)


# ------------------------------------------------------------------ the engine's board


def board_perft(board: Board, depth: int, tally: Tally) -> None:
    if depth == 0:
        tally.nodes += 1
        return
    for move in board.moves():
        captured = board.push(move)
        tally.captures += len(captured)
        tally.endings += board.outcome is not None
        board_perft(board, depth - 1, tally)
        board.pop()


def perft(board: Board, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for move in board.moves():
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


# ------------------------------------------------------------------ tests


@pytest.mark.parametrize(("depth", "nodes"), [(1, 40), (2, 960), (3, 39_512)])
def test_start_position_perft(depth: int, nodes: int) -> None:
    """The number of move sequences from the brandubh start is pinned to depth 3."""
    assert perft(Game().board, depth) == nodes


def test_perft_leaves_the_board_as_it_found_it() -> None:
    """Walking the depth-3 tree with push/pop restores position, hash and counts."""
    board = Game().board
    before = (board.cells[:], board.hash, dict(board.counts), board.turn)
    perft(board, 3)
    assert (board.cells, board.hash, dict(board.counts), board.turn) == before


def test_start_position_matches_the_reference_to_depth_3() -> None:
    """The slow reference implementation of docs/rules.md agrees on nodes, captures and endings."""
    game = Game()
    engine_tally, ref_tally = Tally(), Tally()
    board_perft(game.board, 3, engine_tally)
    ref_perft(ref_from_position(game.position(), "A"), 3, ref_tally)
    assert engine_tally == ref_tally


def midgame_positions(count: int) -> list[Game]:
    """Positions from seeded random playouts, at plies where captures are in the air."""
    games: list[Game] = []
    rng = random.Random(2024)
    while len(games) < count:
        game = Game()
        stop = rng.randrange(6, 40)
        while game.outcome is None and game.ply < stop:
            game.play(rng.choice(game.legal_moves()))
        if game.outcome is None:
            games.append(game)
    return games


@pytest.mark.parametrize("index", range(12))
def test_midgame_positions_match_the_reference_to_depth_2(index: int) -> None:
    """From random midgame positions the reference and the engine agree move by move."""
    game = midgame_positions(12)[index]
    side = "A" if game.to_move is Side.ATTACKERS else "D"
    ref = ref_from_position(game.position(), side)
    board = Board(game.ruleset, game.pieces(), game.to_move)
    ref_results = {}
    for frm, to in ref_moves(ref):
        after, captured = ref_play(ref, (frm, to))
        name = f"{square_name(frm[1] * 16 + frm[0])}-{square_name(to[1] * 16 + to[0])}"
        ref_results[name] = (sorted(captured), after.winner)
    engine_results = {}
    for move in board.moves():
        captured = board.push(move)
        outcome = board.outcome
        winner = None if outcome is None else ("A" if outcome.winner is Side.ATTACKERS else "D")
        name = f"{square_name(move >> 8)}-{square_name(move & 255)}"
        engine_results[name] = (sorted((sq & 15, sq >> 4) for sq, _ in captured), winner)
        board.pop()
    assert engine_results == ref_results
    engine_tally, ref_tally = Tally(), Tally()
    board_perft(board, 2, engine_tally)
    ref_perft(ref, 2, ref_tally)
    assert engine_tally == ref_tally
