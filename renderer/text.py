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
from renderer.words import ENGLISH, Words

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
    words: Words = ENGLISH,
    you: Side | None = None,
    left_server: bool = False,
) -> str:
    """Alt text for the picture ``render_board`` draws with the same arguments (≤ 1024 chars).

    Whose turn or the result first, then the last move, the king's square and his prospects,
    then every piece by square, in the language of ``words``. ``width`` is accepted (and
    ignored) so both calls can share keyword arguments.
    """
    del width
    players = Players(attacker_name, defender_name, set_number, sets_total, words, you)
    return describe_scene(
        scene_of(game, players, highlight_from=highlight_from, left_server=left_server)
    )


def describe_scene(scene: Scene) -> str:
    """Alt text for one scene (also used for each frame's facts in tests)."""
    words = scene.players.words
    n = scene.size
    head = [
        words._(
            "{ruleset} board, {size}x{size}.", ruleset=words.gettext(scene.ruleset.title), size=n
        )
    ]
    label = set_label(scene.players)
    if scene.outcome is not None:
        head.append(result_sentence(scene))
        if scene.ply == 0:
            head.append(words._("No move was played."))
        else:
            head.append(
                words.n_("{count} move was played.", "{count} moves were played.", scene.ply)
            )
    elif scene.to_move is scene.players.you and scene.to_move is Side.ATTACKERS:
        head.append(words._("Your move (attackers), move {number}.", number=scene.move_number))
    elif scene.to_move is scene.players.you:
        head.append(words._("Your move (defenders), move {number}.", number=scene.move_number))
    elif scene.players.you is not None and scene.to_move is Side.ATTACKERS:
        head.append(
            words._("Your opponent's move (attackers), move {number}.", number=scene.move_number)
        )
    elif scene.players.you is not None:
        head.append(
            words._("Your opponent's move (defenders), move {number}.", number=scene.move_number)
        )
    elif scene.players.name_of(scene.to_move):
        head.append(
            words._(
                "{side} to move, move {number}.",
                side=side_label(scene.to_move, scene.players),
                number=scene.move_number,
            )
        )
    elif scene.to_move is Side.ATTACKERS:
        head.append(words._("Attackers to move, move {number}.", number=scene.move_number))
    else:
        head.append(words._("Defenders to move, move {number}.", number=scene.move_number))
    if label:
        head.append(f"{label}.")
    if scene.last_move is not None and scene.last_side is not None:
        head.append(_last_move_text(scene, words))
    head.append(_king_sentence(scene, words))
    if scene.selected is not None:
        square = _name(scene.selected)
        if scene.targets:
            head.append(
                words._(
                    "The piece on {square} can move to {squares}.",
                    square=square,
                    squares=squares_text(scene.targets, words),
                )
            )
        elif scene.piece_at(scene.selected) is None:
            head.append(words._("There is no piece on {square}.", square=square))
        else:
            head.append(words._("The piece on {square} cannot move.", square=square))
    attackers = [sq for sq, kind in scene.pieces if kind is Piece.ATTACKER]
    defenders = [sq for sq, kind in scene.pieces if kind is Piece.DEFENDER]
    text = " ".join(head + piece_lists(scene))
    if len(text) > ALT_TEXT_LIMIT:
        counts = words._(
            "{attackers} attackers and {defenders} defenders on the board.",
            attackers=len(attackers),
            defenders=len(defenders),
        )
        text = " ".join([*head, counts])
    if len(text) > ALT_TEXT_LIMIT:
        text = text[: ALT_TEXT_LIMIT - 1].rstrip() + "…"
    return text


def piece_lists(scene: Scene) -> list[str]:
    """``Attackers (8): d1, d2, …`` and ``Defenders (4): …``: every piece but the king, by side,
    in the order a reader goes through the board (rank 1 first, a to z)."""
    words = scene.players.words
    none = words._("none")
    attackers = [sq for sq, kind in scene.pieces if kind is Piece.ATTACKER]
    defenders = [sq for sq, kind in scene.pieces if kind is Piece.DEFENDER]
    return [
        words._(
            "Attackers ({count}): {squares}.",
            count=len(attackers),
            squares=", ".join(_name(sq) for sq in attackers) or none,
        ),
        words._(
            "Defenders ({count}): {squares}.",
            count=len(defenders),
            squares=", ".join(_name(sq) for sq in defenders) or none,
        ),
    ]


def _last_move_text(scene: Scene, words: Words) -> str:
    """ "Last move: attackers d1-b1, capturing a defender on b4." """
    move = str(scene.last_move)
    attackers = scene.last_side is Side.ATTACKERS
    if not scene.captures:
        if attackers:
            return words._("Last move: attackers {move}.", move=move)
        return words._("Last move: defenders {move}.", move=move)
    taken = _captures_text(scene, words)
    if attackers:
        return words._("Last move: attackers {move}, capturing {taken}.", move=move, taken=taken)
    return words._("Last move: defenders {move}, capturing {taken}.", move=move, taken=taken)


def _captures_text(scene: Scene, words: Words) -> str:
    """``the king on d7``, ``a defender on f7`` or ``attackers on c3 and e3``."""
    squares = [sq for sq, _ in scene.captures]
    kinds = {kind for _, kind in scene.captures}
    if Piece.KING in kinds:
        others = [sq for sq, kind in scene.captures if kind is not Piece.KING]
        king = _name(next(sq for sq, kind in scene.captures if kind is Piece.KING))
        if others:
            return words._(
                "the king on {square} and defenders on {squares}",
                square=king,
                squares=squares_text(others, words),
            )
        return words._("the king on {square}", square=king)
    if len(squares) == 1:
        if Piece.ATTACKER in kinds:
            return words._("an attacker on {square}", square=_name(squares[0]))
        return words._("a defender on {square}", square=_name(squares[0]))
    if Piece.ATTACKER in kinds:
        return words._("attackers on {squares}", squares=squares_text(squares, words))
    return words._("defenders on {squares}", squares=squares_text(squares, words))


def _king_sentence(scene: Scene, words: Words) -> str:
    if scene.king is None:
        return words._("The king has been captured.")
    square = _name(scene.king)
    routes = squares_text(scene.escape_routes, words)
    if scene.king_in_danger and scene.escape_routes:
        return words._(
            "The king is on {square} and can be captured next move and also has an open path "
            "to {squares}.",
            square=square,
            squares=routes,
        )
    if scene.king_in_danger:
        return words._("The king is on {square} and can be captured next move.", square=square)
    if scene.escape_routes:
        return words._(
            "The king is on {square} and has an open path to {squares}.",
            square=square,
            squares=routes,
        )
    return words._("The king is on {square}.", square=square)


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
