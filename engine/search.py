"""The computer opponent: iterative deepening, its budget, and the choice of the move.

:func:`choose_move` is the engine's entry point; :func:`think` is the same thing as a plain,
picklable function of strings for a process pool. Each iteration searches every root move one
ply deeper with :class:`engine.alphabeta.Searcher` (the tree search itself: principal-variation
alpha-beta, transposition table, quiescence and the king's threats). Iterative deepening goes
on while the next iteration is expected to fit in the budget (from the time and nodes of the
last ones); a hard stop at 95 % of the budget ends any iteration cut short, the first included
(under a node limit alone the first two always finish, as they always did). The best move a
cut-short iteration finished is preferred to the last complete one's (at level 5; the levels
that choose by chance keep the last complete iteration's exact scores), and at every level the
moves it proved lost rank below every other (:func:`_after_cut`).

Levels 1 to 5 differ in how deep they may look, what share of the budget they use, and how much
they let chance choose among the moves the search found nearly as good as the best (a softmax
over scores). Levels 4 and 5 play the first plies of brandubh from an opening book the engine
wrote itself by deep searches (:mod:`engine.book`). Every level takes an immediate win and steps
out of an immediate loss when it can, whatever its search completed: before searching, each root
move is checked one move deep (:mod:`engine.immediate`), and the move played is a win at once if
the search found no win, else the best known among those that do not lose at once.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from engine.alphabeta import INFINITY, MATE, MATE_BOUND, MAX_PLY, REPEAT, Searcher
from engine.book import book_move
from engine.evaluation import tables
from engine.game import Game
from engine.immediate import Immediate, classify
from engine.moves import Move
from engine.squares import Side

__all__ = [
    "INFINITY",
    "LEVELS",
    "MATE",
    "MATE_BOUND",
    "REPEAT",
    "Level",
    "SearchResult",
    "choose_move",
    "think",
]


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
    budget: float | None = None
    """Seconds this level was given (its share of the caller's time), ``None`` under a node
    limit alone: ``elapsed / budget`` is the share of the budget used."""
    from_book: bool = False
    """The move came from the opening book (``score`` and ``depth`` are the book's)."""


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
    book: bool = False
    """Whether the level plays the opening book's move when the position is in it."""


LEVELS: dict[int, Level] = {
    # Each level's share of a caller's budget matches its share of the full-strength time.
    1: Level(max_depth=2, temperature=150.0, default_time=0.2, effort=0.1),
    2: Level(max_depth=2, temperature=40.0, default_time=0.3, effort=0.15),
    3: Level(max_depth=2, temperature=12.0, default_time=0.5, effort=0.25),
    4: Level(max_depth=4, temperature=8.0, default_time=1.0, effort=0.5, book=True),
    5: Level(max_depth=MAX_PLY - 16, temperature=0.0, default_time=2.0, book=True),
}


def choose_move(
    game: Game,
    *,
    level: int = 5,
    time_limit: float | None = None,
    nodes: int | None = None,
    seed: int | None = None,
    book: bool = True,
) -> SearchResult:
    """The computer's move in ``game`` at ``level`` (1 weakest to 5 full strength).

    ``time_limit`` is a hard budget in seconds; ``nodes`` a limit on positions searched. With
    neither, the level's own time is used; with ``nodes`` alone the search is deterministic.
    ``seed`` fixes the chance in the weaker levels' choices. Levels 4 and 5 play the opening
    book's move when the position is in it, unless ``book`` is false. Raises ``ValueError`` if
    the game is over or the side to move has no legal move.
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
    if config.book and book:
        entry = book_move(board)
        if entry is not None:
            return SearchResult(
                move=Move.from_code(entry.move),
                score=entry.score,
                depth=entry.depth,
                nodes=0,
                elapsed=time.perf_counter() - started,
                budget=None if time_limit is None else time_limit * config.effort,
                from_book=True,
            )
    budget = time_limit
    if budget is None and nodes is None:
        budget = config.default_time
    elif budget is not None:
        budget *= config.effort
    if nodes is not None:
        nodes = max(1, int(nodes * config.effort))
    # The hard stop: a little under the budget, so that unwinding and answering stay inside it.
    deadline = None if budget is None else started + budget * 0.95
    t = tables(board.rules)
    # What every level guarantees, known before the search and whatever it completes: the
    # moves that win at once, and those after which the opponent wins at once.
    immediate = classify(board.copy(), t, root_moves)  # a copy: pushing reorders its sets
    searcher = Searcher(board, deadline, nodes, t)
    rng = random.Random(seed)
    margin = None if config.temperature <= 0 else int(config.temperature * 6)

    scored: list[tuple[int, int]] = [(0, m) for m in root_moves]
    order = list(root_moves)
    done = 0
    costs: list[tuple[float, int]] = []
    """Seconds and nodes each completed iteration took."""
    for depth in range(1, config.max_depth + 1):
        # Time may cut any iteration short (the check above keeps the guarantees); a node limit
        # alone lets the first two finish, as it always did.
        searcher.node_abortable = depth > 2
        began, began_nodes = time.perf_counter(), searcher.nodes
        result, complete = searcher.root(order, depth, margin)
        if not complete:
            if result:
                # Levels 1-4 choose by chance among the exact scores of the last complete
                # iteration: from the cut-short one they take only what it proved lost.
                scored = _after_cut(result, scored, done, lead=margin is None)
            break
        costs.append((time.perf_counter() - began, searcher.nodes - began_nodes))
        scored = result
        done = depth
        order = [m for _, m in scored]
        if abs(scored[0][0]) > MATE_BOUND and depth >= 2:
            break  # a forced result is known; looking deeper changes nothing
        if len(order) == 1 and depth >= 2:
            break
        if not _next_fits(costs, started, budget, nodes, searcher.nodes):
            break
    score, move = _choose(scored, immediate, config.temperature, rng)
    return SearchResult(
        move=Move.from_code(move),
        score=score,
        depth=done,
        nodes=searcher.nodes,
        elapsed=time.perf_counter() - started,
        budget=budget,
    )


def _after_cut(
    result: list[tuple[int, int]],
    scored: list[tuple[int, int]],
    done: int,
    *,
    lead: bool = True,
) -> list[tuple[int, int]]:
    """The ``(score, move)`` ranking after an iteration cut short: ``result`` holds the moves it
    finished, best first, ``scored`` the last complete iteration's ranking (``done`` deep; with
    none, every root move).

    The best move the cut-short iteration finished comes first (unless ``lead`` is false, for
    the levels that choose by chance among exact scores of one depth; with none complete, every
    level takes the moves finished first): it is better informed than the last iteration (it is
    searched first, being the last iteration's best). Then the last iteration's other moves (or,
    with none complete, the other moves finished, then those not searched), and last the moves
    the cut-short iteration proved lost — never played while a move not known to lose is left,
    though the last iteration ranked them first: the deeper look found the loss and the time ran
    out before a way out was searched.
    """
    known = [pair for pair in result if pair[0] > -MATE_BOUND]
    lost = [pair for pair in result if pair[0] <= -MATE_BOUND]
    if done == 0:
        searched = {m for _, m in result}
        floor = known[-1][0] - 1 if known else 0
        return known + [(floor, m) for _, m in scored if m not in searched] + lost
    ahead = known[:1] if lead else []
    placed = {m for _, m in ahead} | {m for _, m in lost}
    return ahead + [pair for pair in scored if pair[1] not in placed] + lost


_NEXT_ITERATION_SHARE = 0.3
"""Start another iteration when at least this share of it is expected to fit in the budget: a
cut-short iteration still improves the move when it finds a better one (its first move is the
previous best)."""


def _next_fits(
    costs: list[tuple[float, int]],
    started: float,
    budget: float | None,
    node_limit: int | None,
    nodes: int,
) -> bool:
    """Whether the next iteration is expected to finish (its share of it) inside the budget.

    Its cost is the last iteration's times the growth from the one before (the effective
    branching factor), kept between 2 and 8.
    """
    last_time, last_nodes = costs[-1]
    growth = 4.0
    if len(costs) >= 2 and costs[-2][1] > 0:
        growth = min(8.0, max(2.0, last_nodes / costs[-2][1]))
    if budget is not None:
        spent = time.perf_counter() - started
        if spent + _NEXT_ITERATION_SHARE * growth * last_time > budget:
            return False
    return node_limit is None or nodes + _NEXT_ITERATION_SHARE * growth * last_nodes <= node_limit


def _choose(
    scored: list[tuple[int, int]],
    immediate: dict[int, Immediate],
    temperature: float,
    rng: random.Random,
) -> tuple[int, int]:
    """The move to play from the search's ``(score, move)`` pairs, best first, and the check of
    the moves one move deep: a win at once if the search (cut short) has not found one (it may
    have found a longer forced win, such as a king move opening two lines, before reaching the
    move that wins at once), else :func:`_pick` among the moves that do not lose at once (among
    all of them if every one does).

    After a complete second iteration the search knows all this itself and the check changes
    nothing; it matters when the time cut the first two short.
    """
    if scored[0][0] < MATE - 1:
        for _, move in scored:
            if immediate[move] is Immediate.WINS:
                return MATE - 1, move
    safe = [pair for pair in scored if immediate[pair[1]] is not Immediate.LOSES]
    return _pick(safe or scored, temperature, rng)


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
    nodes: int | None = None,
) -> str:
    """The computer's move as text (``d1-d3``), from plain values: the process-pool entry point.

    Rebuilds the game from its starting position, side to move and moves, then searches.
    ``nodes`` (then ``time_limit`` is None) bounds the search by positions instead of time: with
    ``seed`` too, the same position gives the same move on any machine, however loaded.
    """
    started = time.perf_counter()
    game = Game.from_position(start_position, to_move=Side(start_side), ruleset=ruleset)
    for move in moves:
        game.play(move)
    if time_limit is not None:
        time_limit = max(0.0, time_limit - (time.perf_counter() - started))
    return str(choose_move(game, level=level, time_limit=time_limit, nodes=nodes, seed=seed).move)
