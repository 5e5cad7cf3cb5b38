"""The fixed palette every picture of a ruleset shares, and the PNG bytes of a picture.

The theme's flat colours and tinted squares are in the palette exactly, the rest is the median
cut of sample pictures that use every mark (:func:`palette`); a picture is mapped to it
(:func:`to_palette`) and saved with cheap compression (:func:`png_bytes`).
"""

from __future__ import annotations

import functools
import io
from dataclasses import replace

from PIL import Image

from engine import Game, Move, Piece, Ruleset
from renderer import theme
from renderer.drawing import compose, layout
from renderer.png import palette_png
from renderer.scene import Players, Scene, scene_of


@functools.lru_cache(maxsize=32)
def palette(ruleset: Ruleset, width: int) -> Image.Image:
    """A fixed palette (255 colours, one index left free) for every picture of this ruleset.

    The flat colours of the theme, and the tinted squares, are in it exactly; the rest is the
    median cut of sample pictures that use every mark, so all pictures and every frame of a
    replay share one palette: fast to map, and small GIFs (the free index lets frames use
    transparency for the unchanged pixels).
    """
    exact = _flat_colours()
    samples = [compose(scene, width) for scene in _sample_scenes(ruleset)]
    lay = layout(ruleset.size, width)
    sheet = Image.new("RGB", (width * len(samples), lay.height))
    for i, sample in enumerate(samples):
        sheet.paste(sample, (i * width, 0))
    cut = sheet.quantize(255 - len(exact), method=Image.Quantize.MEDIANCUT)
    rest = cut.getpalette() or []
    colours = [c for rgb in exact for c in rgb] + rest[: 3 * (255 - len(exact))]
    result = Image.new("P", (1, 1))
    result.putpalette(colours)
    return result


def _flat_colours() -> list[tuple[int, int, int]]:
    """Theme colours and the tints of every kind of square, each once, in a fixed order."""
    squares = [
        theme.SQUARE_LIGHT,
        theme.SQUARE_DARK,
        theme.RESTRICTED,
        theme.ESCAPE_EDGE,
    ]
    tints = [
        (theme.SELECTED, theme.SELECTED_AMOUNT),
        (theme.LAST_MOVE, 0.45),
        (theme.LAST_MOVE, 0.60),
        (theme.LAST_MOVE, 0.15),
        (theme.LAST_MOVE, 0.25),
    ]
    colours = [
        theme.FRAME,
        theme.FRAME_LINE,
        theme.COORDINATE,
        theme.CAPTION,
        theme.CAPTION_MUTED,
        theme.GRID,
        theme.RESTRICTED_MARK,
        *squares,
        theme.ATTACKER_BODY,
        theme.ATTACKER_RIM,
        theme.ATTACKER_MARK,
        theme.DEFENDER_BODY,
        theme.DEFENDER_RIM,
        theme.DEFENDER_MARK,
        theme.KING_RIM,
        theme.CROWN,
        theme.CROWN_LINE,
        theme.LAST_MOVE_TRAIL,
        theme.EARLIER_TRAIL,
        theme.CAPTURE_MARK,
        theme.DANGER,
        theme.ESCAPE_ROUTE,
        theme.ARROW_BETTER,
        theme.ARROW_PLAYED,
    ]
    for colour, amount in tints:
        for base in squares:
            colours.append(_blend(base, colour, amount))
    unique: list[tuple[int, int, int]] = []
    for colour in colours:
        if colour not in unique:
            unique.append(colour)
    return unique


def _blend(
    base: tuple[int, int, int], colour: tuple[int, int, int], amount: float
) -> tuple[int, int, int]:
    """What ``Image.blend`` makes of one pixel."""
    mixed = Image.blend(Image.new("RGB", (1, 1), base), Image.new("RGB", (1, 1), colour), amount)
    r, g, b = mixed.getpixel((0, 0))  # type: ignore[misc]
    return int(r), int(g), int(b)


def _sample_scenes(ruleset: Ruleset) -> list[Scene]:
    game = Game(ruleset)
    base = scene_of(game, Players("Attacker name", "Defender name", 1, 2))
    n = ruleset.size
    pieces = dict(base.pieces)
    free = [sq for sq in game.squares if sq not in pieces and not game.is_restricted(sq)]
    kinds = (Piece.ATTACKER, Piece.DEFENDER, Piece.KING)
    marked = free[: n * 2]
    scenes = []
    for danger in (True, False):
        king = next(sq for sq, kind in base.pieces if kind is Piece.KING)
        scenes.append(
            replace(
                base,
                last_move=Move(free[0], free[1]) if free[1] - free[0] == 1 else None,
                captures=tuple((sq, kinds[i % 3]) for i, sq in enumerate(marked[2:8])),
                pieces=base.pieces + tuple((sq, kinds[i % 3]) for i, sq in enumerate(marked[8:])),
                king_in_danger=danger,
                escape_routes=tuple(free[-3:]),
                targets=tuple(free[-6:-3]),
                selected=king,
            )
        )
    return scenes


def to_palette(image: Image.Image, ruleset: Ruleset) -> Image.Image:
    """``image`` mapped to the ruleset's fixed palette (no dithering: flat colours stay flat)."""
    return image.quantize(palette=palette(ruleset, image.width), dither=Image.Dither.NONE)


def png_bytes(image: Image.Image) -> bytes:
    """PNG bytes of a palette image, with a fast compression level, bands of rows met before
    not compressed again (:mod:`renderer.png`)."""
    encoded = palette_png(image)
    if encoded is not None:
        return encoded
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=3)
    return out.getvalue()
