"""What a picture of a game shows, read once from the engine so image and text always agree."""

from __future__ import annotations

from dataclasses import dataclass

from engine import (
    Game,
    Move,
    MoveRecord,
    Outcome,
    Piece,
    Ruleset,
    Side,
    Square,
    parse_square,
    square_name,
)


@dataclass(frozen=True)
class Players:
    """Display names and match context for the caption (all optional)."""

    attacker_name: str | None = None
    defender_name: str | None = None
    set_number: int | None = None
    sets_total: int | None = None

    def name_of(self, side: Side) -> str | None:
        """The display name playing ``side``, if given."""
        return self.attacker_name if side is Side.ATTACKERS else self.defender_name


@dataclass(frozen=True)
class Arrow:
    """A move drawn as an arrow: ``better`` in the analysis's green, else the played move's red."""

    move: Move
    better: bool = True


@dataclass(frozen=True)
class Scene:
    """Everything one board picture shows: position, last move, marks and the caption's facts."""

    ruleset: Ruleset
    pieces: tuple[tuple[Square, Piece], ...]
    to_move: Side
    ply: int
    outcome: Outcome | None
    last_move: Move | None
    last_side: Side | None
    captures: tuple[tuple[Square, Piece], ...]
    """Squares emptied by the last move, with the piece that stood there."""
    earlier_move: Move | None
    """The move before the last, when the picture marks both (a player's move and the reply)."""
    earlier_captures: tuple[tuple[Square, Piece], ...]
    king: Square | None
    king_in_danger: bool
    escape_routes: tuple[Square, ...]
    targets: tuple[Square, ...]
    """Legal destinations of the highlighted piece (the move picker)."""
    selected: Square | None
    players: Players
    arrows: tuple[Arrow, ...] = ()
    """Moves drawn as arrows over the pieces (an analysis's better move)."""
    note: str | None = None
    """Replaces the caption's small line (an analysis's comment on this position)."""

    @property
    def size(self) -> int:
        """Squares along one edge of the board."""
        return self.ruleset.size

    @property
    def move_number(self) -> int:
        """The number of the next move in the set, both sides' moves counted (move 1, 2, 3…).

        The bot counts moves this way everywhere (captions, set results, the match rule's
        "fewer moves"); only game records number turns of two moves.
        """
        return self.ply + 1

    def piece_at(self, sq: Square) -> Piece | None:
        """The piece on ``sq`` in this picture, or ``None``."""
        return dict(self.pieces).get(sq)


def scene_of(
    game: Game,
    players: Players,
    *,
    highlight_from: Square | str | None = None,
    outcome: Outcome | None = None,
    mark_earlier: bool = False,
) -> Scene:
    """Read the picture's facts from ``game`` (``outcome`` overrides the game's, for replays).

    ``mark_earlier`` also marks the move before the last (and its captures).
    """
    record = game.last_record
    final = outcome if outcome is not None else game.outcome
    king = game.king_square
    captures = _victims(record, king)
    earlier = game.records[-2] if mark_earlier and len(game.records) >= 2 else None
    selected: Square | None = None
    targets: tuple[Square, ...] = ()
    if highlight_from is not None and final is None:
        selected = _as_square(highlight_from, game.ruleset.size)
        targets = tuple(move.to_square for move in game.legal_moves_from(selected))
    over = final is not None
    return Scene(
        ruleset=game.ruleset,
        pieces=tuple(sorted(game.pieces().items())),
        to_move=game.to_move,
        ply=game.ply,
        outcome=final,
        last_move=record.move if record else None,
        last_side=record.side if record else None,
        captures=captures,
        earlier_move=earlier.move if earlier else None,
        earlier_captures=_victims(earlier, king),
        king=king,
        king_in_danger=False if over else game.king_in_danger(),
        escape_routes=() if over else tuple(game.king_escape_routes()),
        targets=targets,
        selected=selected,
        players=players,
    )


def _victims(record: MoveRecord | None, king: Square | None) -> tuple[tuple[Square, Piece], ...]:
    """The squares ``record`` emptied, with the piece that stood on each."""
    if record is None:
        return ()
    victims = []
    for sq in record.captures:
        if record.side is Side.ATTACKERS:
            victim = Piece.KING if king is None else Piece.DEFENDER
        else:
            victim = Piece.ATTACKER
        victims.append((sq, victim))
    return tuple(victims)


def _as_square(value: Square | str, size: int) -> Square:
    if isinstance(value, str):
        return parse_square(value, size)
    return value


def path_squares(move: Move) -> list[Square]:
    """The squares a move passed over, between its from- and to-square."""
    frm, to = move.from_square, move.to_square
    df = (to & 15) - (frm & 15)
    step = (1 if df > 0 else -1) if df else (16 if to > frm else -16)
    return list(range(frm + step, to, step))


def side_label(side: Side, players: Players) -> str:
    """``Alice (attackers)`` or ``Attackers`` when no name was given."""
    name = players.name_of(side)
    title = side.value.capitalize()
    return f"{name} ({side.value})" if name else title


def result_sentence(scene: Scene) -> str:
    """``Alice (defenders) wins: the king escaped.`` or the engine's sentence without names."""
    outcome = scene.outcome
    if outcome is None:
        return ""
    if outcome.winner is None:
        return str(outcome)
    name = scene.players.name_of(outcome.winner)
    if name:
        return f"{name} ({outcome.winner.value}) wins: {outcome.explanation}."
    return str(outcome)


def set_label(players: Players) -> str | None:
    """``Set 1 of 2`` (or ``Set 3``) when the game is part of a match."""
    if players.set_number is None:
        return None
    if players.sets_total:
        return f"Set {players.set_number} of {players.sets_total}"
    return f"Set {players.set_number}"


def squares_text(squares: list[Square] | tuple[Square, ...]) -> str:
    """``a1, b2 and c3``."""
    names = [square_name(sq) for sq in squares]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]
