"""Puzzles: positions where the side to move has a unique forced win, proven by an exact search.

:class:`Solver` answers "can the side to move force a win within ``n`` of its own moves?" by an
AND/OR search over every legal move: the mover needs one move that wins, or after which every
reply leaves a win within ``n - 1``; a reply that ends the game in the opponent's favour, or
holds out, refutes. Results are remembered per position and ``n``; a node limit keeps hard
positions from running away (:class:`TooHard`). Without history (a puzzle starts from a bare
position) no third repetition can occur within the 7 plies of a win in 4, so the remembered
results are exact.

:func:`find_puzzle` proves a position is a puzzle: the shortest forced win takes ``n`` moves
(1 to 4), exactly one first move achieves it, and the main line is the mover's moves against the
longest defence. A :class:`Puzzle` prints as one line of the shipped bank and parses back.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass

from engine.board import ATTACKER, Board
from engine.game import Game
from engine.moves import Move
from engine.outcome import Outcome, Reason
from engine.rules import get_ruleset
from engine.squares import Side
from engine.translation import N_

MAX_MOVES = 4
"""The longest forced win a puzzle may ask for, in the solver's own moves."""
NODE_LIMIT = 400_000
"""Positions one proof may visit before the position counts as too hard to prove."""


REFUTATION_LIMIT = 150_000
"""Positions the search for a wrong move's refutation may visit (an answer within a couple of
seconds); past it the answer says only that the move is not the fastest win."""


class TooHard(Exception):
    """The proof needed more positions than its limit."""


class Difficulty(enum.Enum):
    """A puzzle's band of difficulty, by its rating."""

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"

    @classmethod
    def of(cls, rating: int) -> Difficulty:
        """The band ``rating`` falls in: below 1100 easy, below 1500 medium, else hard."""
        if rating < 1100:
            return cls.EASY
        if rating < 1500:
            return cls.MEDIUM
        return cls.HARD


@dataclass(frozen=True)
class Puzzle:
    """A proven puzzle: the position, who is to move, the win's length and its main line.

    ``solution`` alternates the solver's moves and the longest defence, starting and ending with
    the solver's (``2 * moves - 1`` moves). ``str()`` gives the bank's line
    ``id ruleset side moves rating alternatives position solution...``, and :meth:`parse` reads it.
    """

    ruleset: str
    position: str
    to_move: Side
    moves: int
    solution: tuple[Move, ...]
    rating: int
    alternatives: int
    """First moves other than the solution that look tempting (captures, king moves, moves
    next to the king): what makes the puzzle harder to see."""

    @property
    def puzzle_id(self) -> str:
        """A stable short id from the ruleset, position and side (``p`` and 8 hex digits)."""
        key = f"{self.ruleset} {self.position} {self.to_move.value}".encode()
        return "p" + hashlib.sha256(key).hexdigest()[:8]

    @property
    def difficulty(self) -> Difficulty:
        """Easy, medium or hard, by the rating."""
        return Difficulty.of(self.rating)

    def game(self) -> Game:
        """A fresh game at the puzzle's position, the solver to move."""
        return Game.from_position(self.position, to_move=self.to_move, ruleset=self.ruleset)

    def __str__(self) -> str:
        line = " ".join(str(move) for move in self.solution)
        return (
            f"{self.puzzle_id} {self.ruleset} {self.to_move.value} {self.moves} {self.rating} "
            f"{self.alternatives} {self.position} {line}"
        )

    @classmethod
    def parse(cls, text: str) -> Puzzle:
        """The puzzle of one bank line; ``ValueError`` if the line or its id is wrong."""
        fields = text.split()
        if len(fields) < 8:
            raise ValueError(f"A puzzle line needs at least 8 fields, not {len(fields)}.")
        puzzle_id, ruleset, side, moves, rating, alternatives, position, *line = fields
        size = get_ruleset(ruleset).size
        puzzle = cls(
            ruleset=ruleset,
            position=position,
            to_move=Side(side),
            moves=int(moves),
            solution=tuple(Move.parse(move, size) for move in line),
            rating=int(rating),
            alternatives=int(alternatives),
        )
        if puzzle.puzzle_id != puzzle_id:
            raise ValueError(f"Puzzle {puzzle_id} does not match its position.")
        if len(puzzle.solution) != 2 * puzzle.moves - 1:
            raise ValueError(f"Puzzle {puzzle_id} needs {2 * puzzle.moves - 1} solution moves.")
        return puzzle


class Solver:
    """Exact forced-win search on one board (which it changes and restores)."""

    def __init__(self, board: Board, node_limit: int = NODE_LIMIT) -> None:
        self.board = board
        self.node_limit = node_limit
        self.nodes = 0
        self._won: dict[int, int] = {}
        """Position hash → the fewest own moves known to force a win from it."""
        self._held: dict[int, int] = {}
        """Position hash → the most own moves known not to be enough."""
        self._killers: dict[int, int] = {}
        """Remaining moves → the last reply that refuted a move at that depth."""

    # ---------------------------------------------------------------- questions

    def wins_within(self, n: int) -> bool:
        """Whether the side to move can force a win within ``n`` of its own moves."""
        return n >= 1 and self._win(n)

    def distance(self, most: int = MAX_MOVES) -> int | None:
        """The fewest own moves the side to move needs to force a win (``None`` beyond
        ``most``)."""
        for n in range(1, most + 1):
            if self._win(n):
                return n
        return None

    def wins_within_after_reply(self, n: int) -> bool:
        """With the opponent to move: whether every reply leaves a win within ``n`` own moves
        for the side that just moved."""
        return self._every_reply_loses(n, 3 - self.board.turn)

    def winning_moves(self, n: int) -> list[int]:
        """Every move of the side to move that forces a win within ``n`` own moves."""
        return [move for move in sorted(self.board.moves()) if self.move_wins(move, n)]

    def move_wins(self, move: int, n: int) -> bool:
        """Whether ``move`` forces a win within ``n`` own moves (itself included)."""
        board = self.board
        mover = board.turn
        board.push(move)
        try:
            outcome = board.outcome
            if outcome is not None:
                return _winner_is(outcome.winner, mover)
            return n > 1 and self._every_reply_loses(n - 1, mover)
        finally:
            board.pop()

    def defence(self, n: int) -> int | None:
        """The reply (side to move is the defender) that holds out longest against a win within
        ``n`` of the opponent's moves; ``None`` if some reply escapes the forced win."""
        board = self.board
        attacker = 3 - board.turn
        best: tuple[int, int] | None = None
        for reply in sorted(board.moves()):
            board.push(reply)
            try:
                outcome = board.outcome
                if outcome is not None:
                    if not _winner_is(outcome.winner, attacker):
                        return None
                    length = 0
                else:
                    length = 0
                    for k in range(1, n + 1):
                        if self._win(k):
                            length = k
                            break
                    else:
                        return None
            finally:
                board.pop()
            if best is None or length > best[0]:
                best = (length, reply)
        return None if best is None else best[1]

    def refutation(self, n: int) -> int | None:
        """A reply after which the opponent (who just moved) cannot force a win within ``n``;
        ``None`` if every reply loses. Prefers a reply that wins at once."""
        board = self.board
        defender = board.turn
        holding: int | None = None
        for reply in self._ordered_replies():
            board.push(reply)
            try:
                outcome = board.outcome
                if outcome is not None:
                    if _winner_is(outcome.winner, defender):
                        return reply
                    continue
                if holding is None and not self._win(n):
                    holding = reply
            finally:
                board.pop()
        return holding

    # ---------------------------------------------------------------- search

    def _win(self, n: int) -> bool:
        board = self.board
        key = board.hash
        won = self._won.get(key)
        if won is not None and won <= n:
            return True
        held = self._held.get(key)
        if held is not None and held >= n:
            return False
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise TooHard(f"more than {self.node_limit:,} positions")
        mover = board.turn
        result = False
        for move in self._ordered_moves():
            board.push(move)
            outcome = board.outcome
            if outcome is not None:
                board.pop()
                if _winner_is(outcome.winner, mover):
                    result = True
                    break
                continue
            wins = n > 1 and self._every_reply_loses(n - 1, mover)
            board.pop()
            if wins:
                result = True
                break
        if result:
            self._won[key] = min(n, won) if won is not None else n
        else:
            self._held[key] = max(n, held) if held is not None else n
        return result

    def _every_reply_loses(self, n: int, mover: int) -> bool:
        """Whether every reply of the side to move lets ``mover`` win within ``n``."""
        board = self.board
        killer = self._killers.get(n)
        replies = board.moves()
        if killer is not None and killer in replies:
            replies.remove(killer)
            replies.insert(0, killer)
        for reply in replies:
            board.push(reply)
            outcome = board.outcome
            lost = _winner_is(outcome.winner, mover) if outcome is not None else self._win(n)
            board.pop()
            if not lost:
                self._killers[n] = reply
                return False
        return True

    def _ordered_moves(self) -> list[int]:
        """King moves and moves landing next to the king first: where wins come from."""
        board = self.board
        king = board.king
        near = _neighbours(king)
        moves = board.moves()
        if board.turn == ATTACKER:
            moves.sort(key=lambda m: (m & 255) not in near)
        else:
            moves.sort(key=lambda m: m >> 8 != king)
        return moves

    def _ordered_replies(self) -> list[int]:
        return sorted(self.board.moves())


def _neighbours(sq: int) -> set[int]:
    return {sq - 1, sq + 1, sq - 16, sq + 16}


def _winner_is(winner: Side | None, turn: int) -> bool:
    return winner is not None and (winner is Side.ATTACKERS) == (turn == ATTACKER)


def find_puzzle(game: Game, most: int = MAX_MOVES, node_limit: int = NODE_LIMIT) -> Puzzle | None:
    """The puzzle at ``game``'s position (history dropped), or ``None`` if it is not one.

    A puzzle needs a forced win for the side to move in ``most`` moves or fewer, and exactly one
    first move reaching it in the fewest. Raises :class:`TooHard` past ``node_limit``.
    """
    if game.outcome is not None:
        return None
    fresh = Game.from_position(game.position(), to_move=game.to_move, ruleset=game.ruleset)
    board = fresh.board
    solver = Solver(board, node_limit)
    n = solver.distance(most)
    if n is None:
        return None
    winners = solver.winning_moves(n)
    if len(winners) != 1:
        return None
    line = main_line(fresh, n, winners[0], solver)
    alternatives = tempting_moves(board, winners[0])
    return Puzzle(
        ruleset=fresh.ruleset.name,
        position=fresh.position(),
        to_move=fresh.to_move,
        moves=n,
        solution=tuple(line),
        rating=rating(n, alternatives),
        alternatives=alternatives,
    )


def verify(puzzle: Puzzle, node_limit: int = 5 * NODE_LIMIT) -> str | None:
    """Why ``puzzle`` is not a proven unique forced win in its ``moves`` (``None`` if it is):
    the shortest win takes exactly that many moves, only its first move reaches it, and its
    main line ends in the solver's win."""
    game = puzzle.game()
    solver = Solver(game.board, node_limit)
    if solver.distance(puzzle.moves) != puzzle.moves:
        return f"{puzzle.puzzle_id}: no forced win in exactly {puzzle.moves}"
    winners = solver.winning_moves(puzzle.moves)
    if winners != [puzzle.solution[0].code]:
        names = ", ".join(str(Move.from_code(m)) for m in winners)
        return f"{puzzle.puzzle_id}: the winning first moves are {names or 'none'}"
    for move in puzzle.solution:
        game.play(move)
    if game.outcome is None or game.outcome.winner is not puzzle.to_move:
        return f"{puzzle.puzzle_id}: the main line does not end in a win"
    return None


def main_line(game: Game, n: int, first: int, solver: Solver | None = None) -> list[Move]:
    """The solver's ``first`` move, then the longest defence and the quickest win, to the end."""
    board = game.board
    solver = solver or Solver(board)
    played: list[int] = []
    move = first
    left = n
    try:
        while True:
            board.push(move)
            played.append(move)
            if board.outcome is not None or left == 1:
                break
            reply = solver.defence(left - 1)
            if reply is None:
                raise ValueError("the defence escapes: not a forced win")
            board.push(reply)
            played.append(reply)
            left -= 1
            move = next(m for m in sorted(board.moves()) if solver.move_wins(m, left))
    finally:
        for _ in played:
            board.pop()
    return [Move.from_code(code) for code in played]


def tempting_moves(board: Board, solution: int) -> int:
    """First moves other than ``solution`` that catch the eye: captures, king moves and moves
    landing next to the king."""
    king = board.king
    near = _neighbours(king)
    count = 0
    for move in board.moves():
        if move == solution:
            continue
        captured = board.push(move)
        board.pop()
        if captured or move >> 8 == king or (move & 255) in near:
            count += 1
    return count


def rating(moves: int, alternatives: int) -> int:
    """A puzzle's difficulty: 800 for a win in one, 300 more per move, 15 per tempting move."""
    return 800 + 300 * (moves - 1) + 15 * alternatives


class Verdict(enum.Enum):
    """What a solver's move in a puzzle did."""

    SOLVED = "solved"
    """It won the game: the puzzle is solved."""
    CORRECT = "correct"
    """It keeps the forced win; the defence answers."""
    WRONG = "wrong"
    """It lets the win go (or is too slow)."""


@dataclass(frozen=True)
class Answer:
    """The verdict on one move, the defence's reply and, for a wrong move, why it fails.

    ``why`` is the reason as a sentence template marked with ``N_`` (``{move}``, ``{reply}`` and
    ``{outcome}`` placeholders), so the bot can say it in the player's language;
    :attr:`explanation` is the English sentence. Text form
    ``verdict|move|reply|winner:reason|why`` (``-`` for none), for a process pool.
    """

    verdict: Verdict
    reply: Move | None = None
    why: str = ""
    move: Move | None = None
    """The solver's move the reason is about."""
    outcome: Outcome | None = None
    """How the game ended, when the reason is that it ended."""

    @property
    def explanation(self) -> str:
        """Why the move fails, in English: "After a4-a1, the answer b2-b1 wins. ..."."""
        return self.why.format(move=self.move, reply=self.reply, outcome=self.outcome)

    def __str__(self) -> str:
        move = "-" if self.move is None else str(self.move)
        reply = "-" if self.reply is None else str(self.reply)
        outcome = "-"
        if self.outcome is not None:
            winner = "-" if self.outcome.winner is None else self.outcome.winner.value
            outcome = f"{winner}:{self.outcome.reason.value}"
        return f"{self.verdict.value}|{move}|{reply}|{outcome}|{self.why}"

    @classmethod
    def parse(cls, text: str) -> Answer:
        """The inverse of ``str()``."""
        verdict, move, reply, outcome, why = text.split("|", 4)
        ended = None
        if outcome != "-":
            winner, reason = outcome.split(":")
            ended = Outcome(None if winner == "-" else Side(winner), Reason(reason))
        return cls(
            Verdict(verdict),
            None if reply == "-" else Move.parse(reply),
            why,
            None if move == "-" else Move.parse(move),
            ended,
        )


def answer_move(bank_line: str, played: list[str], move: str) -> str:
    """Judge the solver's ``move`` after ``played`` (both sides' moves so far), as text.

    The move must be legal (``IllegalMoveError`` otherwise). A move of the main line is
    answered from it; any other move is proven: one that still forces the win in the moves left
    is correct too (the longest defence answers it), one that does not is wrong, with the reply
    that refutes it. The picklable entry point for a process pool.
    """
    puzzle = Puzzle.parse(bank_line)
    game = puzzle.game()
    for each in played:
        game.play(each)
    mover = game.to_move
    left = puzzle.moves - len(played) // 2
    record = game.play(move)
    chosen = record.move
    line = [*played, str(chosen)]
    if game.outcome is not None:
        if game.outcome.winner is mover:
            return str(Answer(Verdict.SOLVED))
        return str(
            Answer(Verdict.WRONG, None, N_("{move} loses at once. {outcome}"), chosen, game.outcome)
        )
    main = [str(m) for m in puzzle.solution]
    if line == main[: len(line)] and len(line) < len(main):
        return str(Answer(Verdict.CORRECT, puzzle.solution[len(line)]))
    board = game.board
    solver = Solver(board, 4 * NODE_LIMIT)
    # The first move is proven unique: any other is wrong without searching again.
    if left > 1 and played:
        try:
            holds = not solver.wins_within_after_reply(left - 1)
        except TooHard:
            holds = True
        if not holds:
            reply = solver.defence(left - 1)
            assert reply is not None
            return str(Answer(Verdict.CORRECT, Move.from_code(reply)))
    return str(_refuted(game, Solver(board, REFUTATION_LIMIT), chosen, left))


def _refuted(game: Game, solver: Solver, chosen: Move, left: int) -> Answer:
    """Why ``chosen`` (just played in ``game``) fails, with the opponent's best reply."""
    if left == 1:
        return Answer(Verdict.WRONG, None, N_("{move} does not end the game."), chosen)
    try:
        reply_code = solver.refutation(left - 1)
    except TooHard:
        reply_code = None
    if reply_code is None:
        return Answer(
            Verdict.WRONG, None, N_("{move} does not force the win in the moves left."), chosen
        )
    reply = Move.from_code(reply_code)
    after = game.copy()
    after.play(reply)
    if after.outcome is not None:
        return Answer(
            Verdict.WRONG,
            reply,
            N_("After {move}, the answer {reply} wins. {outcome}"),
            chosen,
            after.outcome,
        )
    return Answer(
        Verdict.WRONG,
        reply,
        N_("After {move}, the answer {reply} leaves no forced win in the moves left."),
        chosen,
    )
