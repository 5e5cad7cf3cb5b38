"""The computer opponent: iterative-deepening alpha-beta search over the fast board.

:func:`choose_move` is the engine's entry point; :func:`think` is the same thing as a plain,
picklable function of strings for a process pool. The search is a negamax principal-variation
search with a Zobrist-keyed transposition table, move ordering (transposition-table move,
killer moves, history), late-move reductions for quiet moves, and a threat extension at the
horizon: a position where the king can reach an escape square, or where the attackers can take
him, is never scored statically.

Levels 1 to 5 differ in how deep they may look, what share of the budget they use, and how much
they let chance choose among the moves the search found nearly as good as the best (a softmax
over scores). Every level takes an immediate win and steps out of an immediate loss when it can,
because both are seen at depth 2 and a move losing at once is never drawn by chance.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from engine.board import ATTACKER, DEFENDER, Board
from engine.evaluation import Tables, evaluate, king_capturable, tables
from engine.game import Game
from engine.moves import Move
from engine.squares import Side

MATE = 100_000
"""A won position scores ``MATE - plies to the win``."""
MATE_BOUND = MATE - 1_000
INFINITY = MATE + 1
_EXACT, _LOWER, _UPPER = 0, 1, 2
_CHECK_EVERY = 255
"""The clock is read every 256 positions (a few milliseconds)."""
_MAX_PLY = 128


@dataclass(frozen=True)
class SearchResult:
    """The move the search chose and what it knows about it."""

    move: Move
    score: int
    """From the mover's point of view, in centipawn-like units; wins score near ``MATE``."""
    depth: int
    """The deepest iteration that was completed."""
    nodes: int
    """Positions searched (moves pushed on the board)."""
    elapsed: float
    """Seconds spent."""


@dataclass(frozen=True)
class Level:
    """How one difficulty level searches."""

    max_depth: int
    temperature: float
    """Softmax temperature over root scores, 0 for always the best move."""
    default_time: float
    """Seconds per move when the caller gives no time limit."""
    effort: float = 1.0
    """Share of the time or node budget this level uses."""


LEVELS: dict[int, Level] = {
    # Each level's share of a caller's budget matches its share of the full-strength time.
    1: Level(max_depth=2, temperature=150.0, default_time=0.2, effort=0.1),
    2: Level(max_depth=2, temperature=40.0, default_time=0.3, effort=0.15),
    3: Level(max_depth=2, temperature=12.0, default_time=0.5, effort=0.25),
    4: Level(max_depth=4, temperature=8.0, default_time=1.0, effort=0.5),
    5: Level(max_depth=_MAX_PLY - 16, temperature=0.0, default_time=2.0),
}


class _Stop(Exception):
    """The time or node budget ran out in the middle of an iteration."""


class _Searcher:
    """One search: the board it works on, its tables, counters and budget."""

    def __init__(
        self, board: Board, deadline: float | None, node_limit: int | None, t: Tables
    ) -> None:
        self.board = board
        self.t = t
        self.deadline = deadline
        self.node_limit = node_limit
        self.nodes = 0
        self.next_check = _CHECK_EVERY
        self.tt: dict[int, tuple[int, int, int, int]] = {}
        self.history = [[0] * 65536 for _ in range(3)]
        self.killers = [[0, 0] for _ in range(_MAX_PLY + 8)]
        self.ext_limit = 0
        self.abortable = False

    # ------------------------------------------------------------------ budget

    def _check_budget(self) -> None:
        self.next_check = self.nodes + _CHECK_EVERY
        if not self.abortable:
            return
        if self.node_limit is not None and self.nodes >= self.node_limit:
            raise _Stop
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            raise _Stop

    # ------------------------------------------------------------------ search

    def negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The score of the board for the side to move, searched ``depth`` plies deep."""
        board = self.board
        if self.nodes >= self.next_check:
            self._check_budget()
        t = self.t
        if depth <= 0:
            # The horizon: a win in one is a fact, a threat gets one more ply, else evaluate.
            if board.turn == DEFENDER:
                king = board.king
                occupied = board.att_bb | board.def_bb
                for mask in t.escape_lines[king]:
                    if not occupied & mask:
                        return MATE - ply - 1
                if ply >= self.ext_limit or not king_capturable(board, t):
                    return evaluate(board, t)
            else:
                if king_capturable(board, t):
                    return MATE - ply - 1
                king = board.king
                occupied = board.att_bb | board.def_bb
                threatened = False
                for mask in t.escape_lines[king]:
                    if not occupied & mask:
                        threatened = True
                        break
                if not threatened or ply >= self.ext_limit:
                    return evaluate(board, t)
            depth = 1

        tt = self.tt
        key = board.hash
        entry = tt.get(key)
        tt_move = 0
        if entry is not None:
            e_depth, e_flag, e_score, tt_move = entry
            if e_depth >= depth and ply:
                if e_score > MATE_BOUND:
                    e_score -= ply
                elif e_score < -MATE_BOUND:
                    e_score += ply
                if e_flag == _EXACT:
                    return e_score
                if e_flag == _LOWER:
                    if e_score >= beta:
                        return e_score
                elif e_score <= alpha:
                    return e_score

        turn = board.turn
        moves = board.moves()
        history = self.history[turn]
        moves.sort(key=history.__getitem__, reverse=True)
        killers = self.killers[ply]
        k0, k1 = killers
        front = 0
        for m in (tt_move, k0, k1):
            if m and m in moves:
                moves.remove(m)
                moves.insert(front, m)
                front += 1

        alpha_orig = alpha
        best = -INFINITY
        best_move = 0
        push = board.push
        pop = board.pop
        child_ply = ply + 1
        first = True
        for late, m in enumerate(moves, 1):
            captured = push(m)
            self.nodes += 1
            outcome = board.outcome
            if outcome is not None:
                won = (outcome.winner is Side.ATTACKERS) == (turn == ATTACKER)
                score = MATE - child_ply if won else -(MATE - child_ply)
            elif first:
                score = -self.negamax(depth - 1, -beta, -alpha, child_ply)
            else:
                if (
                    late > 4
                    and depth >= 3
                    and not captured
                    and board.king != m & 255
                    and m != k0
                    and m != k1
                ):
                    # Late, quiet move: look one ply less unless it surprises.
                    score = -self.negamax(depth - 2, -alpha - 1, -alpha, child_ply)
                else:
                    score = alpha + 1
                if score > alpha:
                    score = -self.negamax(depth - 1, -alpha - 1, -alpha, child_ply)
                if alpha < score < beta:
                    score = -self.negamax(depth - 1, -beta, -alpha, child_ply)
            pop()
            first = False
            if score > best:
                best = score
                best_move = m
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        history[m] += depth * depth
                        if m != k0:
                            killers[1] = k0
                            killers[0] = m
                        break

        if best <= alpha_orig:
            flag = _UPPER
        elif best >= beta:
            flag = _LOWER
        else:
            flag = _EXACT
        stored = best
        if stored > MATE_BOUND:
            stored += ply
        elif stored < -MATE_BOUND:
            stored -= ply
        tt[key] = (depth, flag, stored, best_move)
        return best

    def root(
        self, moves: list[int], depth: int, margin: int | None
    ) -> tuple[list[tuple[int, int]], bool]:
        """Search every root move ``depth`` plies deep; return ``(score, move)`` pairs, best first.

        With ``margin`` each move is searched with a window reaching ``margin`` below the best so
        far, so every move near the best has an exact score (for the levels that choose among
        them); without it, a plain principal-variation search. The flag says whether the
        iteration finished.
        """
        board = self.board
        turn = board.turn
        self.ext_limit = depth + 6
        stack_size = len(board.stack)
        alpha = -INFINITY
        scored: list[tuple[int, int]] = []
        complete = True
        try:
            for i, m in enumerate(moves):
                board.push(m)
                self.nodes += 1
                outcome = board.outcome
                if outcome is not None:
                    won = (outcome.winner is Side.ATTACKERS) == (turn == ATTACKER)
                    score = MATE - 1 if won else -(MATE - 1)
                elif margin is not None:
                    low = -INFINITY if alpha == -INFINITY else alpha - margin
                    score = -self.negamax(depth - 1, -INFINITY, -low, 1)
                    if score <= low:
                        score = min(score, low - 1)  # only a bound: never a tie with low
                elif i == 0:
                    score = -self.negamax(depth - 1, -INFINITY, INFINITY, 1)
                else:
                    score = -self.negamax(depth - 1, -alpha - 1, -alpha, 1)
                    if score > alpha:
                        score = -self.negamax(depth - 1, -INFINITY, -alpha, 1)
                    else:
                        score = min(score, alpha - 1)  # only a bound: never a tie with alpha
                board.pop()
                scored.append((score, m))
                if score > alpha:
                    alpha = score
        except _Stop:
            complete = False
            while len(board.stack) > stack_size:
                board.pop()
        scored.sort(key=lambda pair: -pair[0])
        return scored, complete


def choose_move(
    game: Game,
    *,
    level: int = 5,
    time_limit: float | None = None,
    nodes: int | None = None,
    seed: int | None = None,
) -> SearchResult:
    """The computer's move in ``game`` at ``level`` (1 weakest to 5 full strength).

    ``time_limit`` is a hard budget in seconds; ``nodes`` a limit on positions searched. With
    neither, the level's own time is used; with ``nodes`` alone the search is deterministic.
    ``seed`` fixes the chance in the weaker levels' choices. Raises ``ValueError`` if the game is
    over or the side to move has no legal move.
    """
    started = time.perf_counter()
    if level not in LEVELS:
        raise ValueError(f"The level must be from 1 to 5, not {level}.")
    if game.outcome is not None:
        raise ValueError(f"The game is over. {game.outcome}")
    board = game.board.copy()
    root_moves = sorted(board.moves())
    if not root_moves:
        raise ValueError("The side to move has no legal move.")
    config = LEVELS[level]
    budget = time_limit
    if budget is None and nodes is None:
        budget = config.default_time
    elif budget is not None:
        budget *= config.effort
    if nodes is not None:
        nodes = max(1, int(nodes * config.effort))
    deadline = None if budget is None else started + budget * 0.92
    searcher = _Searcher(board, deadline, nodes, tables(board.rules))
    rng = random.Random(seed)
    margin = None if config.temperature <= 0 else int(config.temperature * 6)

    scored: list[tuple[int, int]] = [(0, m) for m in root_moves]
    order = list(root_moves)
    done = 0
    for depth in range(1, config.max_depth + 1):
        # The first two plies always finish: they are what sees wins and losses in one.
        searcher.abortable = depth > 2
        result, complete = searcher.root(order, depth, margin)
        if not complete:
            if result and margin is None:
                # Moves finished in the cut-short iteration are better informed than the last.
                scored = [result[0]] + [pair for pair in scored if pair[1] != result[0][1]]
            break
        scored = result
        done = depth
        order = [m for _, m in scored]
        if abs(scored[0][0]) > MATE_BOUND and depth >= 2:
            break  # a forced result is known; looking deeper changes nothing
        if len(order) == 1 and depth >= 2:
            break
        if deadline is not None:
            spent = time.perf_counter() - started
            if spent > (budget or 0.0) * 0.4:
                break
        if nodes is not None and searcher.nodes * 3 > nodes:
            break

    score, move = _pick(scored, config.temperature, rng)
    return SearchResult(
        move=Move.from_code(move),
        score=score,
        depth=done,
        nodes=searcher.nodes,
        elapsed=time.perf_counter() - started,
    )


def _pick(scored: list[tuple[int, int]], temperature: float, rng: random.Random) -> tuple[int, int]:
    """The best move, or with a temperature one drawn by softmax among those not losing at once.

    Only the first score is exact in a principal-variation search (the others are bounds, some
    from an earlier iteration), so without a temperature the first move is the choice.
    """
    best_score = scored[0][0]
    if temperature <= 0 or best_score > MATE_BOUND:
        return scored[0]
    candidates = [pair for pair in scored if pair[0] > -MATE_BOUND] or scored
    top = candidates[0][0]
    weights = [math.exp(max(-50.0, (s - top) / temperature)) for s, _ in candidates]
    return rng.choices(candidates, weights=weights)[0]


def think(
    ruleset: str,
    start_position: str,
    start_side: str | Side,
    moves: Sequence[str],
    level: int,
    time_limit: float | None = None,
    seed: int | None = None,
) -> str:
    """The computer's move as text (``d1-d3``), from plain values: the process-pool entry point.

    Rebuilds the game from its starting position, side to move and moves, then searches.
    """
    started = time.perf_counter()
    game = Game.from_position(start_position, to_move=Side(start_side), ruleset=ruleset)
    for move in moves:
        game.play(move)
    if time_limit is not None:
        time_limit = max(0.0, time_limit - (time.perf_counter() - started))
    return str(choose_move(game, level=level, time_limit=time_limit, seed=seed).move)
