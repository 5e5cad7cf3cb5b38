"""The fast core: a board that makes and unmakes moves, finds captures and ends games.

Moves here are plain ints, ``from_square << 8 | to_square``, so that a search can push and pop
hundreds of thousands of them a second. :class:`engine.game.Game` wraps this with checked input,
records and notation; the computer opponent drives it directly.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.geometry import CELLS, Geometry, geometry
from engine.outcome import Outcome, Reason
from engine.rules import Ruleset
from engine.squares import Piece, Side, Square

EMPTY = 0
ATTACKER = 1
DEFENDER = 2
KING = 3
NO_KING = -1
"""``Board.king`` once the king is captured (or in a position without him)."""

_ATTACKERS_WIN = {r: Outcome(Side.ATTACKERS, r) for r in Reason}
_DEFENDERS_WIN = {r: Outcome(Side.DEFENDERS, r) for r in Reason}


class Board:
    """Pieces on squares, the side to move, Zobrist hash and repetition counts, with undo."""

    __slots__ = (
        "att_bb",
        "attackers",
        "cells",
        "counts",
        "def_bb",
        "defenders",
        "geo",
        "hash",
        "king",
        "outcome",
        "rules",
        "stack",
        "turn",
    )

    def __init__(
        self, rules: Ruleset, pieces: Mapping[Square, Piece], to_move: Side = Side.ATTACKERS
    ) -> None:
        self.rules = rules
        self.geo: Geometry = geometry(rules)
        self.cells = [EMPTY] * CELLS
        self.attackers: set[Square] = set()
        self.defenders: set[Square] = set()  # the king included
        self.king: Square = NO_KING
        self.att_bb = 0
        self.def_bb = 0
        z = self.geo.zobrist
        h = 0
        for sq, piece in sorted(pieces.items()):
            value = int(piece)
            self.cells[sq] = value
            h ^= z[value][sq]
            if value == ATTACKER:
                self.attackers.add(sq)
                self.att_bb |= 1 << sq
            else:
                self.defenders.add(sq)
                self.def_bb |= 1 << sq
                if value == KING:
                    self.king = sq
        self.turn = ATTACKER if to_move is Side.ATTACKERS else DEFENDER
        if self.turn == DEFENDER:
            h ^= self.geo.z_side
        self.hash = h
        self.counts: dict[int, int] = {h: 1}
        self.stack: list[tuple[int, int, list[tuple[Square, int]]]] = []
        """``(move, piece, captured)`` of every move played, for :meth:`pop`; an entry is never
        changed once pushed, so copies share them."""
        self.outcome: Outcome | None = None
        if self.king == NO_KING:
            # A position without a king is one after his capture (docs/rules.md §8).
            self.outcome = _ATTACKERS_WIN[Reason.KING_CAPTURED]
        elif self.geo.escape[self.king]:
            # The king already on an escape square has escaped (docs/rules.md §7).
            self.outcome = _DEFENDERS_WIN[Reason.KING_ESCAPED]
        elif not self.has_moves():
            self.outcome = self._loss_of_side_to_move(Reason.NO_MOVES)

    # ----------------------------------------------------------------- reading

    @property
    def to_move(self) -> Side:
        """The side whose turn it is."""
        return Side.ATTACKERS if self.turn == ATTACKER else Side.DEFENDERS

    def pieces(self) -> dict[Square, Piece]:
        """Every piece on the board, by square."""
        cells = self.cells
        return {sq: Piece(cells[sq]) for sq in self.geo.squares if cells[sq]}

    def copy(self) -> Board:
        """An independent board in the same state, with the same history."""
        other = Board.__new__(Board)
        other.rules = self.rules
        other.geo = self.geo
        other.cells = self.cells[:]
        other.attackers = set(self.attackers)
        other.defenders = set(self.defenders)
        other.king = self.king
        other.att_bb = self.att_bb
        other.def_bb = self.def_bb
        other.turn = self.turn
        other.hash = self.hash
        other.counts = dict(self.counts)
        other.stack = self.stack[:]
        other.outcome = self.outcome
        return other

    # ----------------------------------------------------------- move generation

    def moves(self) -> list[int]:
        """Every legal move of the side to move (empty once the game is over)."""
        if self.outcome is not None:
            return []
        cells = self.cells
        geo = self.geo
        rays = geo.rays
        restricted = geo.restricted
        blocks = geo.blocks
        out: list[int] = []
        append = out.append
        pieces = self.attackers if self.turn == ATTACKER else self.defenders
        for frm in pieces:
            base = frm << 8
            if cells[frm] == KING:
                for ray in rays[frm]:
                    for to in ray:
                        if cells[to]:
                            break
                        append(base | to)
            else:
                for ray in rays[frm]:
                    for to in ray:
                        if cells[to]:
                            break
                        if restricted[to]:
                            if blocks[to]:
                                break
                            continue
                        append(base | to)
        return out

    def moves_from(self, frm: Square) -> list[int]:
        """The legal moves of the piece on ``frm`` (empty if it cannot move now)."""
        return [m for m in self.moves() if m >> 8 == frm]

    def has_moves(self) -> bool:
        """Whether the side to move has any legal move at all."""
        cells = self.cells
        geo = self.geo
        restricted = geo.restricted
        blocks = geo.blocks
        pieces = self.attackers if self.turn == ATTACKER else self.defenders
        for frm in pieces:
            king = cells[frm] == KING
            for ray in geo.rays[frm]:
                for to in ray:
                    if cells[to]:
                        break
                    if king or not restricted[to]:
                        return True
                    if blocks[to]:
                        break
        return False

    # --------------------------------------------------------------- make/unmake

    def push(self, move: int) -> list[tuple[Square, int]]:
        """Play ``move`` (assumed legal, so the game is not over) and return the captured
        ``(square, piece)`` pairs."""
        frm = move >> 8
        to = move & 255
        cells = self.cells
        geo = self.geo
        rules = self.rules
        piece = cells[frm]
        cells[frm] = EMPTY
        cells[to] = piece
        zobrist = geo.zobrist
        zp = zobrist[piece]
        h = self.hash ^ zp[frm] ^ zp[to] ^ geo.z_side
        moved = (1 << frm) | (1 << to)
        captured: list[tuple[Square, int]] = []
        outcome: Outcome | None = None
        if piece == ATTACKER:
            self.attackers.discard(frm)
            self.attackers.add(to)
            self.att_bb ^= moved
            for n, f in geo.capture_pairs[to]:
                victim = cells[n]
                if victim == DEFENDER:
                    if f < 0:
                        continue
                    jaw = cells[f]
                    if (
                        jaw == ATTACKER
                        or (jaw == EMPTY and geo.hostile_to_defender[f])
                        or (
                            jaw == KING
                            and f == geo.throne
                            and rules.defender_captured_against_besieged_throne
                            and self._throne_besieged_except(n)
                        )
                    ):
                        captured.append((n, DEFENDER))
                elif victim == KING and self._king_falls(n, f):
                    captured.append((n, KING))
            for sq, victim in captured:
                cells[sq] = EMPTY
                h ^= zobrist[victim][sq]
                self.defenders.discard(sq)
                self.def_bb ^= 1 << sq
                if victim == KING:
                    self.king = NO_KING
                    outcome = _ATTACKERS_WIN[Reason.KING_CAPTURED]
            if outcome is None and self._encircled():
                outcome = _ATTACKERS_WIN[Reason.ENCIRCLED]
        else:
            self.defenders.discard(frm)
            self.defenders.add(to)
            self.def_bb ^= moved
            if piece == KING:
                self.king = to
            if piece != KING or rules.king_armed:
                for n, f in geo.capture_pairs[to]:
                    if cells[n] != ATTACKER or f < 0:
                        continue
                    jaw = cells[f]
                    if (
                        jaw == DEFENDER
                        or (jaw == KING and (rules.king_armed or f == geo.throne))
                        or (jaw == EMPTY and geo.hostile_to_attacker[f])
                    ):
                        captured.append((n, ATTACKER))
                for sq, _ in captured:
                    cells[sq] = EMPTY
                    h ^= zobrist[ATTACKER][sq]
                    self.attackers.discard(sq)
                    self.att_bb ^= 1 << sq
            if piece == KING and geo.escape[to]:
                outcome = _DEFENDERS_WIN[Reason.KING_ESCAPED]
            elif captured and not self.attackers and rules.defenders_win_by_capturing_all:
                outcome = _DEFENDERS_WIN[Reason.ALL_CAPTURED]
        self.stack.append((move, piece, captured))
        self.hash = h
        counts = self.counts
        seen = counts.get(h, 0) + 1
        counts[h] = seen
        self.turn = DEFENDER if self.turn == ATTACKER else ATTACKER
        if outcome is None:
            if seen >= 3:
                # docs/rules.md §9: the third occurrence loses for the player who made it.
                outcome = self._loss_of_side_to_move(Reason.REPETITION, mover=True)
            elif not self.has_moves():
                outcome = self._loss_of_side_to_move(Reason.NO_MOVES)
        self.outcome = outcome
        return captured

    def pop(self) -> tuple[int, int, list[tuple[Square, int]]]:
        """Take back the last move; return it as ``(move, piece, captured)``.

        A move is only ever played in a game that is not over, so taking it back reopens the
        game (a resignation or timeout after it goes too).
        """
        move, piece, captured = self.stack.pop()
        frm = move >> 8
        to = move & 255
        cells = self.cells
        h = self.hash
        counts = self.counts
        seen = counts[h] - 1
        if seen:
            counts[h] = seen
        else:
            del counts[h]
        zobrist = self.geo.zobrist
        zp = zobrist[piece]
        h ^= zp[frm] ^ zp[to] ^ self.geo.z_side
        cells[to] = EMPTY
        cells[frm] = piece
        moved = (1 << frm) | (1 << to)
        if piece == ATTACKER:
            self.attackers.discard(to)
            self.attackers.add(frm)
            self.att_bb ^= moved
            for sq, victim in captured:
                cells[sq] = victim
                h ^= zobrist[victim][sq]
                self.defenders.add(sq)
                self.def_bb |= 1 << sq
                if victim == KING:
                    self.king = sq
        else:
            self.defenders.discard(to)
            self.defenders.add(frm)
            self.def_bb ^= moved
            if piece == KING:
                self.king = frm
            for sq, _ in captured:
                cells[sq] = ATTACKER
                h ^= zobrist[ATTACKER][sq]
                self.attackers.add(sq)
                self.att_bb |= 1 << sq
        self.hash = h
        self.turn = DEFENDER if self.turn == ATTACKER else ATTACKER
        self.outcome = None
        return move, piece, captured

    def end(self, outcome: Outcome) -> None:
        """End the game from outside the rules (resignation, timeout, abort)."""
        self.outcome = outcome

    # ------------------------------------------------------------------ rules

    def repetitions_after(self, move: int) -> int:
        """How many times the position after ``move`` will have occurred, that move included."""
        self.push(move)
        seen = self.counts[self.hash]
        self.pop()
        return seen

    def _king_falls(self, king: Square, beyond: Square) -> bool:
        """Whether the attacker that just moved next to the king on ``king`` captures him."""
        geo = self.geo
        cells = self.cells
        if king == geo.throne:
            return all(cells[sq] == ATTACKER for sq in geo.neighbours[king])
        if geo.beside_throne[king] and self.rules.king_sides_beside_throne == 3:
            return all(cells[sq] == ATTACKER for sq in geo.neighbours[king] if sq != geo.throne)
        if beyond < 0:
            return False
        jaw = cells[beyond]
        return jaw == ATTACKER or (jaw == EMPTY and geo.hostile_to_king[beyond])

    def _throne_besieged_except(self, side_square: Square) -> bool:
        """Whether attackers stand on every side of the throne but ``side_square``."""
        geo = self.geo
        return all(
            self.cells[sq] == ATTACKER for sq in geo.neighbours[geo.throne] if sq != side_square
        )

    def _encircled(self) -> bool:
        """docs/rules.md §8: no defender can reach the edge through squares free of attackers."""
        geo = self.geo
        open_squares = geo.board_mask & ~self.att_bb
        reach = geo.edge_mask & open_squares
        defenders = self.def_bb
        while not reach & defenders:
            grown = (reach | reach << 1 | reach >> 1 | reach << 16 | reach >> 16) & open_squares
            if grown == reach:
                return True
            reach = grown
        return False

    def _loss_of_side_to_move(self, reason: Reason, *, mover: bool = False) -> Outcome:
        """The outcome in which the side to move (or, with ``mover``, the side that moved) loses."""
        loser_is_attacker = (self.turn == ATTACKER) != mover
        return (_DEFENDERS_WIN if loser_is_attacker else _ATTACKERS_WIN)[reason]

    # -------------------------------------------------------------- king status

    def king_escape_routes(self) -> list[Square]:
        """Escape squares the king could reach with his next move, in board order (none once
        the game is over)."""
        if self.outcome is not None:
            return []
        cells = self.cells
        escape = self.geo.escape
        routes = []
        for ray in self.geo.rays[self.king]:
            for to in ray:
                if cells[to]:
                    break
                if escape[to]:
                    routes.append(to)
        return sorted(routes)

    def king_in_danger(self) -> bool:
        """Whether the attackers could capture the king with one move if it were their turn
        (never once the game is over)."""
        if self.outcome is not None:
            return False
        board = self
        if self.turn != ATTACKER:
            board = self.copy()
            board.turn = ATTACKER
            board.hash ^= self.geo.z_side
        near = set(self.geo.neighbours[self.king])
        for move in board.moves():
            if move & 255 in near:
                captured = board.push(move)
                board.pop()
                if any(victim == KING for _, victim in captured):
                    return True
        return False
