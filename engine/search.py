"""The computer opponent: iterative-deepening alpha-beta search over the fast board.

:func:`choose_move` is the engine's entry point; :func:`think` is the same thing as a plain,
picklable function of strings for a process pool. The search is a negamax principal-variation
search with a Zobrist-keyed transposition table, move ordering (transposition-table move,
killer moves, history), late-move reductions for quiet moves, a threat extension at the
horizon (a position where the king can reach an escape square, or where the attackers can take
him, is never scored statically) and beyond it a quiescence search of captures and of the
king's threats (a king move opening a line to an escape square, which the attackers must block
or lose: the defenders' forcing plans that lie past the horizon). A score that depends
on the path (a third repetition, or a position met before, which costs the mover ``REPEAT``) is
never stored in the table, and a position met before is never scored from it. Iterative
deepening goes on while the next iteration is expected to fit in the budget (from the time and
nodes of the last ones); a hard stop at 95 % of the budget ends any iteration cut short, the
first included (under a node limit alone the first two always finish, as they always did). The
best move a cut-short iteration finished is preferred to the last complete one's (at level 5;
the levels that choose by chance keep the last complete iteration's exact scores), and at every
level the moves it proved lost rank below every other (:func:`_after_cut`).

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.board import ATTACKER, DEFENDER, Board
from engine.book import book_move
from engine.evaluation import Tables, capture_moves, evaluate, king_capturable, tables
from engine.game import Game
from engine.immediate import Immediate, classify
from engine.moves import Move
from engine.outcome import Reason
from engine.squares import Side

MATE = 100_000
"""A won position scores ``MATE - plies to the win``."""
MATE_BOUND = MATE - 1_000
INFINITY = MATE + 1
_EXACT, _LOWER, _UPPER = 0, 1, 2
_CHECK_EVERY = 127
"""The clock is read every 128 positions (a few milliseconds at most)."""
_MAX_PLY = 128
REPEAT = 20
"""What returning to a position seen before (in the game or the search) costs the mover: the
engine does not shuffle back and forth when it has anything better to do."""
_QUIESCENCE_PLIES = 4
"""Captures played out beyond the horizon, at most."""
_THREAT_PLIES = 2
"""King moves opening a line, each with the attackers' forced block, played out beyond the
horizon, at most."""


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
    5: Level(max_depth=_MAX_PLY - 16, temperature=0.0, default_time=2.0, book=True),
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
        self.node_abortable = False
        """Whether the node limit may cut the current iteration short (the time limit always
        may): under a node limit alone the first two iterations always finish, so that a node
        budget gives the same moves as before time could cut them short."""
        self.repetitions = 0
        """Third repetitions and returns to positions met before, met in the search so far."""
        self.quiescence_plies = 0
        self.threat_plies = 0
        """Captures played out beyond the horizon in the current iteration."""
        self.skip_lost_moves = True
        """Whether the moves that cannot answer a threat of a win on the next ply (the king's
        open line, a capture of the king) are scored as lost without being played (off only
        to test that this changes no score)."""

    # ------------------------------------------------------------------ budget

    def _check_budget(self) -> None:
        self.next_check = self.nodes + _CHECK_EVERY
        if self.node_limit is not None and self.nodes >= self.node_limit and self.node_abortable:
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
        # A win in one is a fact, at the horizon and before it; at the horizon a threat gets
        # one more ply, else the position is evaluated.
        turn = board.turn
        king = board.king
        occupied = board.att_bb | board.def_bb
        open_lines = 0
        lines = 0
        for mask in t.escape_lines[king]:
            if not occupied & mask:
                open_lines |= mask
                lines += 1
        danger = False  # defenders to move, and the attackers could take the king
        if turn == DEFENDER:
            if open_lines:
                return MATE - ply - 1
            if depth <= 0 and ply >= self.ext_limit:
                return self.quiesce(alpha, beta, ply, self.quiescence_plies, self.threat_plies)
            danger = king_capturable(board, t)
            if depth <= 0:
                if not danger:
                    return self.quiesce(alpha, beta, ply, self.quiescence_plies, self.threat_plies)
                depth = 1
        else:
            if king_capturable(board, t):
                return MATE - ply - 1
            if lines > 1 and ply < self.ext_limit and self.skip_lost_moves:
                # No move closes two lines, and none takes the king: he escapes next (what the
                # threat extension would find, so only where it would look).
                return -(MATE - ply - 2)
            if depth <= 0:
                if not open_lines or ply >= self.ext_limit:
                    return self.quiesce(alpha, beta, ply, self.quiescence_plies, self.threat_plies)
                depth = 1

        tt = self.tt
        key = board.hash
        entry = tt.get(key)
        tt_move = 0
        repetitions = self.repetitions
        if entry is not None:
            e_depth, e_flag, e_score, tt_move = entry
            # A position met before on this path may repeat into a loss the stored score
            # never saw: its score is not taken from the table.
            if e_depth >= depth and ply and board.counts[key] == 1:
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
        if (open_lines or danger) and self.skip_lost_moves:
            # A threat the side to move must answer at once, or lose on the next ply: the moves
            # that cannot answer it are scored so without being played (before this, most of
            # the positions in a search were such moves). The attackers facing one open line
            # (they cannot take the king, see above) must land on it. The defenders facing a
            # capture of the king must move him, land beside him or on a line an attacker
            # would come along to a square beside him, or capture (land beside an attacker).
            if open_lines:
                keep = open_lines
                mover = -1
            else:
                cells = board.cells
                rays = t.rays
                keep = t.around[king]
                for n in board.geo.neighbours[king]:
                    if not cells[n]:
                        for ray in rays[n]:
                            for to in ray:
                                if cells[to]:
                                    break
                                keep |= 1 << to
                a = board.att_bb
                keep |= (a << 1 | a >> 1 | a << 16 | a >> 16) & board.geo.board_mask
                mover = king
            saving = [m for m in moves if keep >> (m & 255) & 1 or m >> 8 == mover]
            if len(saving) < len(moves):
                best = -(MATE - ply - 2)
                for m in moves:
                    if not (keep >> (m & 255) & 1 or m >> 8 == mover):
                        best_move = m
                        break
                if best > alpha:
                    alpha = best
                moves = saving if alpha < beta else []
        push = board.push
        pop = board.pop
        child_ply = ply + 1
        counts = board.counts
        first = True
        for late, m in enumerate(moves, 1):
            captured = push(m)
            self.nodes += 1
            outcome = board.outcome
            if outcome is not None:
                won = (outcome.winner is Side.ATTACKERS) == (turn == ATTACKER)
                score = MATE - child_ply if won else -(MATE - child_ply)
                if outcome.reason is Reason.REPETITION:
                    self.repetitions += 1
            elif counts[board.hash] > 1:
                # Back to a position seen before: a step towards aimless shuffling, and a score
                # that depends on this path, so never stored.
                self.repetitions += 1
                score = -self.negamax(depth - 1, -beta - REPEAT, -alpha - REPEAT, child_ply)
                score -= REPEAT
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
        if self.repetitions == repetitions:
            tt[key] = (depth, flag, stored, best_move)
        else:
            # The score depends on this path's history (a repetition was met below): keep the
            # move for ordering, never the score.
            tt[key] = (-1, flag, stored, best_move)
        return best

    def quiesce(self, alpha: int, beta: int, ply: int, left: int, threats: int = 0) -> int:
        """The score once the captures the side to move may make have been played out, and,
        ``threats`` deep, the king's threats: a king move that opens a line to an escape square,
        which the attackers must block (:meth:`_answer_threat`). Standing pat is the side to
        move's choice, so only the defenders' forcing moves need searching; the attackers' own
        threats (a capture of the king) measured too dear, since the defenders have many
        answers to each."""
        board = self.board
        t = self.t
        if self.nodes >= self.next_check:
            self._check_budget()
        stand = evaluate(board, t, alpha, beta)
        if stand >= beta or left <= 0:
            return stand
        if stand > alpha:
            alpha = stand
        best = stand
        turn = board.turn
        push = board.push
        pop = board.pop
        for m in capture_moves(board, t):
            captured = push(m)
            self.nodes += 1
            if not captured:
                pop()
                continue
            outcome = board.outcome
            if outcome is not None:
                won = (outcome.winner is Side.ATTACKERS) == (turn == ATTACKER)
                score = MATE - ply - 1 if won else -(MATE - ply - 1)
            else:
                score = -self._quiet_horizon(-beta, -alpha, ply + 1, left - 1)
            pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        return best
        if threats > 0 and turn == DEFENDER:
            best = self._forcing(
                self._king_threats(), best, alpha, beta, ply, self._answer_threat, left, threats - 1
            )
        return best

    def _forcing(
        self,
        moves: list[int],
        best: int,
        alpha: int,
        beta: int,
        ply: int,
        reply: Callable[[int, int, int, int, int], int],
        left: int,
        threats: int,
    ) -> int:
        """Beyond the horizon, the best of ``best`` and the scores of ``moves`` (the king's
        threats, or the attackers' blocks), each answered by ``reply``."""
        board = self.board
        attackers_move = board.turn == ATTACKER
        push = board.push
        pop = board.pop
        for m in moves:
            push(m)
            self.nodes += 1
            outcome = board.outcome
            if outcome is not None:
                won = (outcome.winner is Side.ATTACKERS) == attackers_move
                score = MATE - ply - 1 if won else -(MATE - ply - 1)
            else:
                score = -reply(-beta, -alpha, ply + 1, left, threats)
            pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    def _king_threats(self) -> list[int]:
        """The king's moves that leave him an open line to an escape square (counted as if
        they captured nothing: the captures are tried before them)."""
        board = self.board
        cells = board.cells
        king = board.king
        escape_lines = self.t.escape_lines
        occupied = (board.att_bb | board.def_bb) & ~(1 << king)
        base = king << 8
        out = []
        for ray in self.t.rays[king]:
            for to in ray:
                if cells[to]:
                    break
                for mask in escape_lines[to]:
                    if not occupied & mask:
                        out.append(base | to)
                        break
        return out

    def _answer_threat(self, alpha: int, beta: int, ply: int, left: int, threats: int) -> int:
        """Beyond the horizon, the attackers facing an open line: block it or lose."""
        board = self.board
        t = self.t
        if king_capturable(board, t):
            return MATE - ply - 1
        occupied = board.att_bb | board.def_bb
        keep = 0
        for mask in t.escape_lines[board.king]:
            if not occupied & mask:
                if keep:
                    return -(MATE - ply - 2)
                keep = mask
        best = -(MATE - ply - 2)
        if best >= beta:
            return best
        blocks = [m for m in board.moves() if keep >> (m & 255) & 1]
        return self._forcing(blocks, best, alpha, beta, ply, self._quiet_horizon, left, threats)

    def _quiet_horizon(self, alpha: int, beta: int, ply: int, left: int, threats: int = 0) -> int:
        """A quiescence node that first looks for a win in one (escape or king capture)."""
        board = self.board
        t = self.t
        if board.turn == DEFENDER:
            occupied = board.att_bb | board.def_bb
            for mask in t.escape_lines[board.king]:
                if not occupied & mask:
                    return MATE - ply - 1
        elif king_capturable(board, t):
            return MATE - ply - 1
        return self.quiesce(alpha, beta, ply, left, threats)

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
        # The quiescence search starts with the third iteration (levels 1-3 never use it): the
        # first two were once never cut short and had to stay cheap, and running it earlier
        # measured no better on 15x15 (README, "Big boards").
        self.quiescence_plies = _QUIESCENCE_PLIES if depth > 2 else 0
        self.threat_plies = _THREAT_PLIES if depth > 2 else 0
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
                elif board.counts[board.hash] > 1:
                    score = -self.negamax(depth - 1, -INFINITY, INFINITY, 1) - REPEAT
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
    searcher = _Searcher(board, deadline, nodes, t)
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
