"""The same position in words: alt text for screen readers, and a monospace text board."""

from __future__ import annotations

from engine import Game, Piece, Side, Square, square
from engine.squares import FILE_LETTERS
from renderer.scene import (
    Players,
    Scene,
    result_sentence,
    scene_of,
    set_label,
    side_label,
    squares_text,
)

ALT_TEXT_LIMIT = 1024
"""Discord's limit on an attachment's description."""

_SYMBOL = {Piece.ATTACKER: "A", Piece.DEFENDER: "D", Piece.KING: "K"}


def describe_board(
    game: Game,
    *,
    attacker_name: str | None = None,
    defender_name: str | None = None,
    set_number: int | None = None,
    sets_total: int | None = None,
    highlight_from: Square | str | None = None,
    width: int | None = None,
) -> str:
    """Alt text for the picture ``render_board`` draws with the same arguments (≤ 1024 chars).

    Whose turn or the result first, then the last move, the king's square and his prospects,
    then every piece by square. ``width`` is accepted (and ignored) so both calls can share
    keyword arguments.
    """
    del width
    players = Players(attacker_name, defender_name, set_number, sets_total)
    return describe_scene(scene_of(game, players, highlight_from=highlight_from))


def describe_scene(scene: Scene) -> str:
    """Alt text for one scene (also used for each frame's facts in tests)."""
    n = scene.size
    head = [f"{scene.ruleset.title} board, {n}x{n}."]
    label = set_label(scene.players)
    if scene.outcome is not None:
        head.append(result_sentence(scene))
        head.append(f"{scene.ply} moves were played.")
    else:
        head.append(
            f"{side_label(scene.to_move, scene.players)} to move, move {scene.move_number}."
        )
    if label:
        head.append(f"{label}.")
    if scene.last_move is not None and scene.last_side is not None:
        text = f"Last move: {scene.last_side.value} {scene.last_move}"
        if scene.captures:
            text += ", capturing " + _captures_text(scene)
        head.append(text + ".")
    head.append(_king_sentence(scene))
    if scene.selected is not None:
        if scene.targets:
            head.append(
                f"The piece on {_name(scene.selected)} can move to {squares_text(scene.targets)}."
            )
        elif scene.piece_at(scene.selected) is None:
            head.append(f"There is no piece on {_name(scene.selected)}.")
        else:
            head.append(f"The piece on {_name(scene.selected)} cannot move.")
    attackers = [sq for sq, kind in scene.pieces if kind is Piece.ATTACKER]
    defenders = [sq for sq, kind in scene.pieces if kind is Piece.DEFENDER]
    lists = [
        f"Attackers ({len(attackers)}): {', '.join(_name(sq) for sq in attackers) or 'none'}.",
        f"Defenders ({len(defenders)}): {', '.join(_name(sq) for sq in defenders) or 'none'}.",
    ]
    text = " ".join(head + lists)
    if len(text) > ALT_TEXT_LIMIT:
        text = " ".join(
            [*head, f"{len(attackers)} attackers and {len(defenders)} defenders on the board."]
        )
    if len(text) > ALT_TEXT_LIMIT:
        text = text[: ALT_TEXT_LIMIT - 1].rstrip() + "…"
    return text


def _captures_text(scene: Scene) -> str:
    """``the king on d7``, ``a defender on f7`` or ``attackers on c3 and e3``."""
    squares = [sq for sq, _ in scene.captures]
    kinds = {kind for _, kind in scene.captures}
    if Piece.KING in kinds:
        others = [sq for sq, kind in scene.captures if kind is not Piece.KING]
        king = next(sq for sq, kind in scene.captures if kind is Piece.KING)
        text = f"the king on {_name(king)}"
        return text + (f" and defenders on {squares_text(others)}" if others else "")
    word = "attacker" if Piece.ATTACKER in kinds else "defender"
    if len(squares) == 1:
        return f"{'an' if word == 'attacker' else 'a'} {word} on {_name(squares[0])}"
    return f"{word}s on {squares_text(squares)}"


def _king_sentence(scene: Scene) -> str:
    if scene.king is None:
        return "The king has been captured."
    text = f"The king is on {_name(scene.king)}"
    if scene.king_in_danger:
        text += " and can be captured next move"
    if scene.escape_routes:
        joint = " and also" if scene.king_in_danger else " and"
        text += f"{joint} has an open path to {squares_text(scene.escape_routes)}"
    return text + "."


def _name(sq: Square) -> str:
    return f"{FILE_LETTERS[sq & 15]}{(sq >> 4) + 1}"


def text_board(game: Game) -> str:
    """A compact monospace board (rank 1 at the bottom) and a status line.

    ``A`` attacker, ``D`` defender, ``K`` king, ``#`` an empty throne or corner, ``.`` empty.
    """
    scene = scene_of(game, Players())
    n = scene.size
    pieces = dict(scene.pieces)
    digits = len(str(n))
    lines = []
    for rank in range(n - 1, -1, -1):
        cells = []
        for file in range(n):
            sq = square(file, rank)
            kind = pieces.get(sq)
            if kind is not None:
                cells.append(_SYMBOL[kind])
            else:
                cells.append("#" if game.is_restricted(sq) else ".")
        lines.append(f"{rank + 1:>{digits}} " + " ".join(cells))
    lines.append(" " * digits + " " + " ".join(FILE_LETTERS[:n]))
    lines.append(_status(scene))
    return "\n".join(lines)


def _status(scene: Scene) -> str:
    if scene.outcome is not None:
        return str(scene.outcome)
    side = "Attackers (A)" if scene.to_move is Side.ATTACKERS else "Defenders (D, K)"
    text = f"{side} to move, move {scene.move_number}"
    if scene.last_move is not None:
        text += f"; last move {scene.last_move}"
    return text + "."
