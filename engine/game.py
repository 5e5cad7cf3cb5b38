"""A game of tafl: checked moves with reasons for refusals, history, undo and the result."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from functools import lru_cache

from engine.board import KING, NO_KING, Board
from engine.errors import N_, IllegalMoveError, PositionError
from engine.geometry import geometry
from engine.layout import format_position, parse_position
from engine.moves import DESTINATION, Move, MoveRecord, move_for_code, square_label
from engine.outcome import Outcome, Reason
from engine.rules import RULESETS, Ruleset, get_ruleset
from engine.squares import (
    Piece,
    Side,
    Square,
    as_typed,
    parse_square,
    square_file,
    square_name,
    square_rank,
)

_ARTICLE = {Piece.ATTACKER: "an attacker", Piece.DEFENDER: "a defender", Piece.KING: "the king"}
_PIECES = (None, Piece.ATTACKER, Piece.DEFENDER, Piece.KING)
"""The piece for a board cell's int (faster than calling the enum)."""

# Whole sentences per piece and side (not a noun slotted into one sentence), so that every
# language can say them with its own grammar.
_WRONG_SIDE = {
    Piece.ATTACKER: N_("{square} holds an attacker, and it is the defenders' turn."),
    Piece.DEFENDER: N_("{square} holds a defender, and it is the attackers' turn."),
    Piece.KING: N_("{square} holds the king, and it is the attackers' turn."),
}
_TAKEN = {
    Piece.ATTACKER: N_("{square} is taken by an attacker."),
    Piece.DEFENDER: N_("{square} is taken by a defender."),
    Piece.KING: N_("{square} is taken by the king."),
}
_IN_THE_WAY = {
    Piece.ATTACKER: N_("{square} is in the way: it holds an attacker."),
    Piece.DEFENDER: N_("{square} is in the way: it holds a defender."),
    Piece.KING: N_("{square} is in the way: it holds the king."),
}
_NONE_CAN_REACH = {
    Side.ATTACKERS: N_("None of the attackers can move to {square}."),
    Side.DEFENDERS: N_("None of the defenders can move to {square}."),
}
_SEVERAL_CAN_REACH = {
    Side.ATTACKERS: N_("{count} of the attackers can move to {square}: write {moves} or {last}."),
    Side.DEFENDERS: N_("{count} of the defenders can move to {square}: write {moves} or {last}."),
}


class Game:
    """A game from a starting position, with its moves, the side to move and the outcome.

    Two games are equal when they have the same ruleset, starting position and side, moves and
    outcome; ``repr()`` is code that rebuilds the game, moves included.

    >>> game = Game()
    >>> record = game.play("d2-c2")
    >>> str(record), game.to_move
    ('d2-c2', <Side.DEFENDERS: 'defenders'>)
    >>> game
    Game.from_moves(['d2-c2'], ruleset='brandubh')
    >>> game == Game.from_moves(["d2-c2"]), game == Game()
    (True, False)
    """

    def __init__(self, ruleset: str | Ruleset = "brandubh") -> None:
        rules = get_ruleset(ruleset)
        self._setup(rules, rules.layout, Side.ATTACKERS)

    @classmethod
    def from_position(
        cls,
        position: str,
        to_move: Side = Side.ATTACKERS,
        ruleset: str | Ruleset = "brandubh",
        moves: Iterable[str | Move] = (),
        *,
        ended: Outcome | None = None,
    ) -> Game:
        """A game that starts from an OpenTafl position string with ``to_move`` to play, then
        ``moves`` (each checked) and ``ended`` as in :meth:`from_moves`."""
        game = cls.__new__(cls)
        game._setup(get_ruleset(ruleset), position, to_move)
        game._replay(moves, ended)
        return game

    @classmethod
    def from_moves(
        cls,
        moves: Iterable[str | Move],
        ruleset: str | Ruleset = "brandubh",
        *,
        ended: Outcome | None = None,
    ) -> Game:
        """A game from the starting layout with ``moves`` played (each checked).

        ``ended`` is the outcome of a resignation, time-out or abort after the last move.
        """
        game = cls(ruleset)
        game._replay(moves, ended)
        return game

    def _replay(self, moves: Iterable[str | Move], ended: Outcome | None) -> None:
        for move in moves:
            self.play(move)
        if ended is not None:
            if not ended.reason.from_outside:
                raise ValueError(
                    f"A game ends by {ended.reason.value} through its moves, not by saying so."
                )
            self._end(ended)

    def _setup(self, rules: Ruleset, position: str, to_move: Side) -> None:
        size, pieces = parse_position(position)
        if size != rules.size:
            raise PositionError(
                f"The position is {size}x{size}, but {rules.name} is played on "
                f"{rules.size}x{rules.size}."
            )
        geo = geometry(rules)
        for sq, piece in sorted(pieces.items()):
            if geo.restricted[sq] and piece is not Piece.KING:
                kind = "the throne" if sq == geo.throne else "a corner"
                raise PositionError(
                    f"{square_name(sq)} is {kind}: {_ARTICLE[piece]} cannot stand there."
                )
        self.ruleset = rules
        self.starting_position = format_position(size, pieces)
        self.starting_side = to_move
        self._board = Board(rules, pieces, to_move)
        self._records: list[MoveRecord] = []
        self._listed: tuple[int, list[int]] | None = None
        """The position's hash and its sorted move codes when legal_moves() last ran."""

    # ------------------------------------------------------------------ state

    @property
    def board(self) -> Board:
        """The fast board underneath (for the computer opponent; treat as read-only)."""
        return self._board

    @property
    def to_move(self) -> Side:
        """The side whose turn it is."""
        return self._board.to_move

    @property
    def outcome(self) -> Outcome | None:
        """``None`` while the game goes on, else who won and why."""
        return self._board.outcome

    @property
    def ply(self) -> int:
        """How many moves (of both sides) have been played."""
        return len(self._records)

    @property
    def move_number(self) -> int:
        """The turn number of the next move, as game records count it."""
        return self.ply // 2 + 1

    @property
    def records(self) -> tuple[MoveRecord, ...]:
        """Every move played, in order."""
        return tuple(self._records)

    @property
    def last_record(self) -> MoveRecord | None:
        """The last move played, or ``None`` at the start."""
        return self._records[-1] if self._records else None

    @property
    def king_square(self) -> Square | None:
        """Where the king stands (``None`` once captured)."""
        return self._board.king if self._board.king != NO_KING else None

    def position(self) -> str:
        """The current position as an OpenTafl position string."""
        return format_position(self.ruleset.size, self._board.pieces())

    def pieces(self) -> dict[Square, Piece]:
        """Every piece on the board, by square."""
        return self._board.pieces()

    def piece_at(self, square: Square) -> Piece | None:
        """The piece on ``square``, or ``None``."""
        value = self._board.cells[square] if 0 <= square < len(self._board.cells) else 0
        return Piece(value) if value else None

    def is_restricted(self, square: Square) -> bool:
        """Whether ``square`` is the throne or a restricted corner."""
        return self._on_board(square) and self._board.geo.restricted[square]

    @property
    def throne(self) -> Square | None:
        """The throne square, if this ruleset has one."""
        return self._board.geo.throne if self._board.geo.throne >= 0 else None

    @property
    def squares(self) -> tuple[Square, ...]:
        """Every square of the board, rank 1 first, ``a`` first in each rank."""
        return self._board.geo.squares

    @property
    def corners(self) -> frozenset[Square]:
        """The restricted corner squares (empty when corners are ordinary squares)."""
        return self._board.geo.corners

    def is_escape(self, square: Square) -> bool:
        """Whether the king wins by reaching ``square``."""
        return self._on_board(square) and self._board.geo.escape[square]

    def _on_board(self, square: Square) -> bool:
        on_board = self._board.geo.on_board
        return 0 <= square < len(on_board) and on_board[square]

    def king_escape_routes(self) -> list[Square]:
        """Escape squares the king could reach with one move."""
        return self._board.king_escape_routes()

    def king_in_danger(self) -> bool:
        """Whether the attackers could capture the king with their next move."""
        return self._board.king_in_danger()

    def repetition_count(self) -> int:
        """How many times the current position (with the same side to move) has occurred."""
        return self._board.counts[self._board.hash]

    # ------------------------------------------------------------------ moves

    def legal_moves(self) -> list[Move]:
        """Every legal move of the side to move, sorted (empty once the game is over)."""
        board = self._board
        codes = sorted(board.moves())
        self._listed = (board.hash, codes)
        return list(map(move_for_code, codes))

    def legal_moves_from(self, square: Square) -> list[Move]:
        """The legal moves of the piece on ``square``."""
        return list(map(move_for_code, sorted(self._board.moves_from(square))))

    def is_legal(self, move: Move | str) -> bool:
        """Whether ``move`` could be played now."""
        try:
            self._check(move)
        except IllegalMoveError:
            return False
        return True

    def parse_move(self, text: str) -> Move:
        """Read a move typed by a person, for this board's size (not yet checked for legality).

        A destination alone (``b5``) stands for the one legal move of the side to move that
        ends there; with none or several, the error says so and lists the candidates.
        """
        alone = DESTINATION.match(as_typed(text))
        if alone is None:
            return Move.parse(text, self.ruleset.size, example=str(opening_step(self.ruleset)))
        to = parse_square(alone["to"], self.ruleset.size)
        candidates = [move for move in self.legal_moves() if move.to_square == to]
        if len(candidates) == 1:
            return candidates[0]
        name = square_name(to)
        if not candidates:
            raise IllegalMoveError(_NONE_CAN_REACH[self.to_move], square=name)
        raise IllegalMoveError(
            _SEVERAL_CAN_REACH[self.to_move],
            count=len(candidates),
            square=name,
            moves=", ".join(str(move) for move in candidates[:-1]),
            last=str(candidates[-1]),
        )

    def play(self, move: Move | str) -> MoveRecord:
        """Play a move (a :class:`Move` or text such as ``d1-d3``) and return its record.

        Raises :class:`IllegalMoveError` with a sentence that names the square or the rule.
        """
        checked = self._check(move)
        board = self._board
        side = board.to_move
        piece = _PIECES[board.cells[checked.from_square]]
        assert piece is not None
        captured = board.push(checked.code)
        captures = tuple(sorted([sq for sq, _ in captured]))
        # Positional arguments: this runs for every move a caller plays.
        record = MoveRecord(len(self._records), side, piece, checked, captures)
        self._records.append(record)
        return record

    def undo(self) -> MoveRecord:
        """Take back the last move (and any resignation or timeout after it)."""
        if not self._records:
            raise IllegalMoveError(N_("There is no move to take back."))
        self._board.pop()
        return self._records.pop()

    def would_repeat(self, move: Move | str) -> bool:
        """Whether ``move`` would make a position occur for the third time (losing the game)."""
        checked = self._check(move)
        return self._board.repetitions_after(checked.code) >= 3

    def _check(self, move: Move | str) -> Move:
        """``move`` as a legal :class:`Move`, or an ``IllegalMoveError`` that says why not."""
        board = self._board
        if board.outcome is not None:
            raise IllegalMoveError(N_("The game is over. {outcome}"), outcome=str(board.outcome))
        if isinstance(move, str):
            move = self.parse_move(move)
        listed = self._listed
        if listed is not None and listed[0] == board.hash:
            # The position legal_moves() listed (the same pieces and side to move): a listed
            # move needs no second check.
            codes = listed[1]
            index = bisect_left(codes, move.code)
            if index < len(codes) and codes[index] == move.code:
                return move
        frm = move.from_square
        to = move.to_square
        geo = board.geo
        for sq in (frm, to):
            if not (0 <= sq < len(geo.on_board) and geo.on_board[sq]):
                raise IllegalMoveError(
                    N_("{square} is not on the {size}x{size} board."),
                    square=square_label(sq),
                    size=geo.size,
                )
        cells = board.cells
        if not cells[frm]:
            raise IllegalMoveError(N_("There is no piece on {square}."), square=square_name(frm))
        piece = Piece(cells[frm])
        if piece.side is not board.to_move:
            raise IllegalMoveError(_WRONG_SIDE[piece], square=square_name(frm))
        if frm == to:
            raise IllegalMoveError(N_("A move must leave {square}."), square=square_name(frm))
        df = (to & 15) - (frm & 15)
        dr = (to >> 4) - (frm >> 4)
        if df and dr:
            raise IllegalMoveError(
                N_(
                    "{start} to {end} is not a straight line: pieces move like a rook, along a "
                    "rank or a file."
                ),
                start=square_name(frm),
                end=square_name(to),
            )
        step = _sign(df) + 16 * _sign(dr)
        sq = frm + step
        while True:
            if cells[sq]:
                sentences = _TAKEN if sq == to else _IN_THE_WAY
                raise IllegalMoveError(sentences[Piece(cells[sq])], square=square_name(sq))
            if sq == to:
                break
            if geo.blocks[sq] and piece is not Piece.KING:
                raise IllegalMoveError(
                    N_("{square} is the throne: only the king may pass over it."),
                    square=square_name(sq),
                )
            sq += step
        if geo.restricted[to] and cells[frm] != KING:
            sentence = (
                N_("{square} is the throne: only the king may stop there.")
                if to == geo.throne
                else N_("{square} is a corner: only the king may stop there.")
            )
            raise IllegalMoveError(sentence, square=square_name(to))
        return move

    # ----------------------------------------------------------- ending a game

    def resign(self, side: Side) -> Outcome:
        """``side`` resigns; the other side wins."""
        return self._end(Outcome(side.opponent, Reason.RESIGNED))

    def time_out(self, side: Side) -> Outcome:
        """``side`` ran out of time; the other side wins."""
        return self._end(Outcome(side.opponent, Reason.TIMEOUT))

    def abort(self) -> Outcome:
        """Stop the game with no winner."""
        return self._end(Outcome(None, Reason.ABORTED))

    def _end(self, outcome: Outcome) -> Outcome:
        if self._board.outcome is not None:
            raise IllegalMoveError(
                N_("The game is already over. {outcome}"), outcome=str(self._board.outcome)
            )
        self._board.end(outcome)
        return outcome

    # ------------------------------------------------------------------- misc

    def copy(self) -> Game:
        """An independent copy with the same history."""
        other = Game.__new__(Game)
        other.ruleset = self.ruleset
        other.starting_position = self.starting_position
        other.starting_side = self.starting_side
        other._board = self._board.copy()
        other._records = list(self._records)
        other._listed = self._listed
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return (
            self.ruleset == other.ruleset
            and self.starting_position == other.starting_position
            and self.starting_side is other.starting_side
            and self._records == other._records
            and self.outcome == other.outcome
        )

    __hash__ = None  # type: ignore[assignment]  # a game changes as it is played

    def __repr__(self) -> str:
        """Code that rebuilds this game: ruleset, start, moves and any resignation, timeout or
        abort (evaluate it with the names of :mod:`engine` in scope)."""
        rules = self.ruleset
        ruleset = repr(rules.name) if RULESETS.get(rules.name) == rules else repr(rules)
        moves = [str(record.move) for record in self._records]
        outcome = self.outcome
        ended = ""
        if outcome is not None and outcome.reason.from_outside:
            winner = f"Side.{outcome.winner.name}" if outcome.winner else "None"
            ended = f", ended=Outcome({winner}, Reason.{outcome.reason.name})"
        standard = format_position(*parse_position(rules.layout))
        if self.starting_position == standard and self.starting_side is Side.ATTACKERS:
            if not moves and not ended:
                return f"Game({ruleset})"
            return f"Game.from_moves({moves!r}, ruleset={ruleset}{ended})"
        text = (
            f"Game.from_position({self.starting_position!r}, "
            f"to_move=Side.{self.starting_side.name}, ruleset={ruleset}"
        )
        if moves:
            text += f", moves={moves!r}"
        return text + ended + ")"


def _sign(n: int) -> int:
    """1, 0 or -1: the direction of ``n``."""
    return (n > 0) - (n < 0)


@lru_cache(maxsize=16)  # the built-in rulesets and a few records' own: each record may bring one
def opening_step(rules: Ruleset) -> Move:
    """A first move the attackers may play in ``rules``, one square long: ``d1-c1`` in brandubh,
    ``e1-d1`` on 13x13 and 15x15 (whose d1 is empty), the example a player is shown of a move.

    A record's own rules may set up a start with no such move: their first move is shown then,
    or, where the attackers cannot move at all (the defenders to play first), brandubh's
    ``d1-c1``, the text of a move all the same."""
    moves = Game(rules).legal_moves()
    for move in moves:
        files = abs(square_file(move.from_square) - square_file(move.to_square))
        ranks = abs(square_rank(move.from_square) - square_rank(move.to_square))
        if files + ranks == 1:
            return move
    return moves[0] if moves else Move.parse("d1-c1")
