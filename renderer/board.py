"""The board picture after a move: ``render_board`` (PNG bytes)."""

from __future__ import annotations

from engine import Game, Side, Square
from renderer import drawing, fixed_palette, theme
from renderer.scene import Players, scene_of
from renderer.words import ENGLISH, Words


def render_board(
    game: Game,
    *,
    attacker_name: str | None = None,
    defender_name: str | None = None,
    set_number: int | None = None,
    sets_total: int | None = None,
    highlight_from: Square | str | None = None,
    width: int | None = None,
    mark_earlier: bool = False,
    words: Words = ENGLISH,
    you: Side | None = None,
    left_server: bool = False,
) -> bytes:
    """A PNG of the game's position, last move, captures, king marks and caption.

    ``highlight_from`` (a square, or its name such as ``"d2"``) marks the legal destinations of
    the piece standing there, for a move picker. ``mark_earlier`` marks the move before the
    last one too (a player's move and the computer's reply, in one picture). ``width``
    defaults to 560 px for 7x7 and a little more for larger boards. The same arguments always
    give the same bytes. The caption is in the language of ``words`` (English by default);
    ``you`` is the side of the one it is drawn for (a puzzle's solver: "You win", "Your move").
    ``left_server``: a game lost on time was lost by a player who had left the server (the
    caption says so, not "Out of time").
    """
    players = Players(attacker_name, defender_name, set_number, sets_total, words, you)
    scene = scene_of(
        game,
        players,
        highlight_from=highlight_from,
        mark_earlier=mark_earlier,
        left_server=left_server,
    )
    size = width if width is not None else theme.default_width(game.ruleset.size)
    image = drawing.compose(scene, size)
    return fixed_palette.png_bytes(fixed_palette.to_palette(image, game.ruleset))
