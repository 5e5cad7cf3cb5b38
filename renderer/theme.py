"""Colours, proportions and fonts of the board pictures.

One dark walnut frame around a light wooden board, so the picture reads the same on Discord's
light and dark themes. Attackers are near-black, defenders ivory, and every mark that uses colour
also has its own shape (rings, frames, dots), for colour-blind players.
"""

from __future__ import annotations

import functools
import io
from importlib import resources

from PIL import ImageFont

RGB = tuple[int, int, int]
Font = ImageFont.FreeTypeFont

FRAME: RGB = (49, 35, 26)
FRAME_LINE: RGB = (92, 66, 45)
COORDINATE: RGB = (238, 222, 190)
CAPTION: RGB = (246, 236, 214)
CAPTION_MUTED: RGB = (196, 176, 146)

SQUARE_LIGHT: RGB = (231, 203, 156)
SQUARE_DARK: RGB = (222, 191, 141)
GRID: RGB = (156, 118, 78)
RESTRICTED: RGB = (178, 128, 79)
RESTRICTED_MARK: RGB = (118, 78, 44)
ESCAPE_EDGE: RGB = (200, 163, 108)

ATTACKER_BODY: RGB = (38, 38, 44)
ATTACKER_RIM: RGB = (12, 12, 15)
ATTACKER_MARK: RGB = (150, 150, 162)
DEFENDER_BODY: RGB = (250, 245, 232)
DEFENDER_RIM: RGB = (60, 48, 36)
DEFENDER_MARK: RGB = (120, 104, 84)
KING_RIM: RGB = (150, 104, 20)
CROWN: RGB = (214, 160, 36)
CROWN_LINE: RGB = (74, 50, 12)

LAST_MOVE: RGB = (246, 214, 72)
LAST_MOVE_TRAIL: RGB = (214, 150, 30)
EARLIER_TRAIL: RGB = (178, 150, 112)
"""The move before the last one (a player's move under the computer's reply): an older,
paler trail, so the reply's golden one stands out."""
CAPTURE_MARK: RGB = (190, 40, 32)
DANGER: RGB = (214, 40, 32)
ESCAPE_ROUTE: RGB = (30, 110, 215)
SELECTED: RGB = (0, 112, 106)
SELECTED_AMOUNT = 0.78
"""The chosen piece's square: a deep teal, blended this strongly, darker than every other square
so it shows at phone width and to colour-blind eyes (where its hue fades, its darkness stays)."""
TARGET: RGB = (36, 28, 20)
ARROW_BETTER: RGB = (38, 150, 70)
ARROW_PLAYED: RGB = (200, 44, 36)

BASE_WIDTH = 560
"""Proportions below are in pixels at this width and scale with the picture."""


def default_width(size: int) -> int:
    """The picture's width for a ``size`` x ``size`` board: 560 px for 7x7, wider for more."""
    return BASE_WIDTH + max(0, size - 7) * 20


@functools.lru_cache(maxsize=32)
def font(pixels: int, *, bold: bool = False) -> ImageFont.FreeTypeFont:
    """DejaVu Sans (vendored under ``renderer/fonts``) at ``pixels`` high."""
    return ImageFont.truetype(io.BytesIO(_font_file(bold)), pixels)


@functools.lru_cache(maxsize=2)
def glyph_font(*, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The same face with Pillow's basic text layout, which draws each character on its own:
    one the font lacks shows as the missing-glyph box, also a combining mark (the full layout
    draws a lone mark on a dotted circle, which hides that the font has no such mark). For
    telling which characters the font can draw, never for drawing."""
    return ImageFont.truetype(
        io.BytesIO(_font_file(bold)), 25, layout_engine=ImageFont.Layout.BASIC
    )


def _font_file(bold: bool) -> bytes:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return resources.files("renderer").joinpath("fonts", name).read_bytes()
