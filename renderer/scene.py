"""What a picture of a game shows, read once from the engine so image and text always agree."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine import (
    Game,
    Move,
    MoveRecord,
    Outcome,
    Piece,
    Reason,
    Ruleset,
    Side,
    Square,
    parse_square,
    square_name,
)
from renderer.words import ENGLISH, Words


@dataclass(frozen=True)
class Players:
    """Display names and match context for the caption (all optional)."""

    attacker_name: str | None = None
    defender_name: str | None = None
    set_number: int | None = None
    sets_total: int | None = None
    words: Words = field(default=ENGLISH, compare=False)
    """The language of the caption and the alt text (English unless the caller says)."""
    you: Side | None = None
    """The side of the one the picture is for (a puzzle's solver): said "You win", "Your
    move" rather than by a name."""

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
    left_server: bool = False
    """The loser had left the server: the set was lost for it as on time (its ``outcome``
    says out of time), and the caption says why."""

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
    left_server: bool = False,
) -> Scene:
    """Read the picture's facts from ``game`` (``outcome`` overrides the game's, for replays).

    ``mark_earlier`` also marks the move before the last (and its captures). ``left_server``:
    a game lost on time was lost by a player who had left the server.
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
        left_server=left_server and final is not None and final.reason is Reason.TIMEOUT,
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


def side_title(side: Side, words: Words) -> str:
    """``Attackers`` / ``Defenders``, capitalised as a caption's word."""
    if side is Side.ATTACKERS:
        return words._("Attackers")
    return words._("Defenders")


def side_label(side: Side, players: Players) -> str:
    """``Alice (attackers)`` or ``Attackers`` when no name was given."""
    words = players.words
    name = players.name_of(side)
    if not name:
        return side_title(side, words)
    if side is Side.ATTACKERS:
        return words._("{name} (attackers)", name=name)
    return words._("{name} (defenders)", name=name)


def ending(outcome: Outcome, words: Words, *, left_server: bool = False) -> str:
    """How the game ended, as a clause: ``the king escaped`` (a caption capitalises it);
    ``left_server``: lost on time by a player who had left the server, and said so."""
    reason, winner = outcome.reason, outcome.winner
    attackers_lost = winner is Side.DEFENDERS
    if left_server and reason is Reason.TIMEOUT:
        if attackers_lost:
            return words._("the attackers left the server")
        return words._("the defenders left the server")
    if reason is Reason.KING_CAPTURED:
        return words._("the king was captured")
    if reason is Reason.KING_ESCAPED:
        return words._("the king escaped")
    if reason is Reason.ENCIRCLED:
        return words._("the attackers encircled the king and every defender")
    if reason is Reason.ALL_CAPTURED:
        return words._("every attacker was captured")
    if reason is Reason.REPETITION:
        if attackers_lost:
            return words._("the attackers repeated a position for the third time")
        return words._("the defenders repeated a position for the third time")
    if reason is Reason.NO_MOVES:
        if attackers_lost:
            return words._("the attackers had no legal move")
        return words._("the defenders had no legal move")
    if reason is Reason.RESIGNED:
        if attackers_lost:
            return words._("the attackers resigned")
        return words._("the defenders resigned")
    if reason is Reason.TIMEOUT:
        if attackers_lost:
            return words._("the attackers ran out of time")
        return words._("the defenders ran out of time")
    return words._("the game was aborted")


def short_ending(outcome: Outcome, words: Words, *, left_server: bool = False) -> str:
    """How the game ended in a few words, for the caption: ``king captured``
    (``left_server``: as :func:`ending`)."""
    reason = outcome.reason
    if left_server and reason is Reason.TIMEOUT:
        if outcome.winner is Side.DEFENDERS:
            return words._("attackers left the server")
        return words._("defenders left the server")
    if reason is Reason.KING_CAPTURED:
        return words._("king captured")
    if reason is Reason.KING_ESCAPED:
        return words._("king escaped")
    if reason is Reason.ENCIRCLED:
        return words._("encircled")
    if reason is Reason.ALL_CAPTURED:
        return words._("every attacker captured")
    if reason is Reason.REPETITION:
        return words._("third repetition")
    if reason is Reason.NO_MOVES:
        return words._("no legal move")
    if reason is Reason.RESIGNED:
        return words._("resigned")
    if reason is Reason.TIMEOUT:
        return words._("out of time")
    return words._("aborted")


def result_sentence(scene: Scene) -> str:
    """``Alice (defenders) wins: the king escaped.`` or, without names, ``The defenders win``."""
    outcome = scene.outcome
    if outcome is None:
        return ""
    words = scene.players.words
    how = ending(outcome, words, left_server=scene.left_server)
    winner = outcome.winner
    if winner is None:
        return words._("No winner: {how}.", how=how)
    if winner is scene.players.you:
        return words._("You win: {how}.", how=how)
    name = scene.players.name_of(winner)
    if name:
        return words._("{player} wins: {how}.", player=side_label(winner, scene.players), how=how)
    if winner is Side.ATTACKERS:
        return words._("The attackers win: {how}.", how=how)
    return words._("The defenders win: {how}.", how=how)


def set_label(players: Players) -> str | None:
    """``Set 1 of 2`` (or ``Set 3``) when the game is part of a match."""
    if players.set_number is None:
        return None
    words = players.words
    if players.sets_total:
        return words._(
            "Set {number} of {total}", number=players.set_number, total=players.sets_total
        )
    return words._("Set {number}", number=players.set_number)


def squares_text(squares: list[Square] | tuple[Square, ...], words: Words = ENGLISH) -> str:
    """``a1, b2 and c3``."""
    names = [square_name(sq) for sq in squares]
    if len(names) <= 1:
        return "".join(names)
    return words._("{squares} and {last}", squares=", ".join(names[:-1]), last=names[-1])
