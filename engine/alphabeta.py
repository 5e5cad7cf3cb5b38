"""The tree search under the computer opponent: one alpha-beta search over the fast board.

:class:`Searcher` searches the root moves one depth at a time (:meth:`Searcher.root`); the
iterations, the budget and the choice among the moves are :mod:`engine.search`'s. It is a
negamax principal-variation search with a Zobrist-keyed transposition table, move ordering
(transposition-table move, killer moves, history), late-move reductions for quiet moves, a
threat extension at the horizon (a position where the king can reach an escape square, or where
the attackers can take him, is never scored statically) and beyond it a quiescence search of
captures and of the king's threats (a king move opening a line to an escape square, which the
attackers must block or lose: the defenders' forcing plans that lie past the horizon). A score
that depends on the path (a third repetition, or a position met before, which costs the mover
``REPEAT``) is never stored in the table, and a position met before is never scored from it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from engine.board import ATTACKER, DEFENDER, Board
from engine.evaluation import Tables, capture_moves, evaluate, king_capturable
from engine.outcome import Outcome, Reason
from engine.squares import Side

MATE = 100_000
"""A won position scores ``MATE - plies to the win``."""
MATE_BOUND = MATE - 1_000
INFINITY = MATE + 1
_EXACT, _LOWER, _UPPER = 0, 1, 2
_CHECK_EVERY = 127
"""The clock is read every 128 positions (a few milliseconds at most)."""
MAX_PLY = 128
REPEAT = 20
"""What returning to a position seen before (in the game or the search) costs the mover: the
engine does not shuffle back and forth when it has anything better to do."""
_QUIESCENCE_PLIES = 4
"""Captures played out beyond the horizon, at most."""
_THREAT_PLIES = 2
"""King moves opening a line, each with the attackers' forced block, played out beyond the
horizon, at most."""


def _finished(outcome: Outcome, attackers_moved: bool, plies: int) -> int:
    """The score of a game that the move ``plies`` from the root finished, for the side that
    made it: ``MATE - plies`` for a win, its negative for a loss."""
    won = (outcome.winner is Side.ATTACKERS) == attackers_moved
    return MATE - plies if won else -(MATE - plies)


class _Stop(Exception):
    """The time or node budget ran out in the middle of an iteration."""


class Searcher:
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
        self.killers = [[0, 0] for _ in range(MAX_PLY + 8)]
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
                score = _finished(outcome, turn == ATTACKER, child_ply)
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
                score = _finished(outcome, turn == ATTACKER, ply + 1)
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
                score = _finished(outcome, attackers_move, ply + 1)
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
                    score = _finished(outcome, turn == ATTACKER, 1)
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
