"""Piece and marker sprites: drawn once per square size at 4x and scaled down (anti-aliased)."""

from __future__ import annotations

import functools

from PIL import Image, ImageDraw, ImageFilter

from engine import Piece
from renderer import theme

_SUPERSAMPLE = 4
# The crown, in units of the king's radius around his centre (x right, y down).
_CROWN = (
    (-0.56, 0.30),
    (-0.62, -0.34),
    (-0.30, -0.02),
    (0.0, -0.50),
    (0.30, -0.02),
    (0.62, -0.34),
    (0.56, 0.30),
)
_CROWN_JEWELS = ((-0.62, -0.36), (0.0, -0.53), (0.62, -0.36))


def _canvas(cell: int) -> tuple[Image.Image, ImageDraw.ImageDraw, float]:
    big = cell * _SUPERSAMPLE
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    return image, ImageDraw.Draw(image), big / 2


def _finish(image: Image.Image, cell: int) -> Image.Image:
    return image.resize((cell, cell), Image.Resampling.LANCZOS)


def _disc(
    draw: ImageDraw.ImageDraw, cx: float, cy: float, radius: float, fill: tuple[int, ...]
) -> None:
    draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=fill)


def _ring(
    draw: ImageDraw.ImageDraw,
    cx: float,
    cy: float,
    radius: float,
    width: float,
    fill: tuple[int, ...],
) -> None:
    draw.ellipse(
        (cx - radius, cy - radius, cx + radius, cy + radius), outline=fill, width=round(width)
    )


def _shadow(cell: int, radius: float) -> Image.Image:
    big = cell * _SUPERSAMPLE
    shadow = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(shadow)
    c = big / 2
    offset = 0.05 * big
    _disc(draw, c + offset * 0.3, c + offset, radius, (30, 18, 8, 120))
    return shadow.filter(ImageFilter.GaussianBlur(0.035 * big))


@functools.lru_cache(maxsize=64)
def piece(kind: Piece, cell: int) -> Image.Image:
    """An RGBA sprite of ``kind`` filling a ``cell`` x ``cell`` square, shadow included."""
    image, draw, c = _canvas(cell)
    big = c * 2
    radius = (0.44 if kind is Piece.KING else 0.40) * big
    image.alpha_composite(_shadow(cell, radius))
    if kind is Piece.ATTACKER:
        _disc(draw, c, c, radius, (*theme.ATTACKER_RIM, 255))
        _disc(draw, c, c, radius - 0.035 * big, (*theme.ATTACKER_BODY, 255))
        # A soft sheen on the upper half, then the attackers' own mark: a pale inner ring.
        sheen = 0.78 * radius
        draw.ellipse((c - sheen, c - radius * 0.9, c + sheen, c + 0.1 * radius), fill=(80, 80, 92))
        _disc(draw, c, c + 0.06 * radius, 0.80 * radius, (*theme.ATTACKER_BODY, 255))
        _ring(draw, c, c, 0.52 * radius, 0.06 * big, (*theme.ATTACKER_MARK, 255))
    elif kind is Piece.DEFENDER:
        _disc(draw, c, c, radius, (*theme.DEFENDER_RIM, 255))
        _disc(draw, c, c, radius - 0.03 * big, (*theme.DEFENDER_BODY, 255))
        # The defenders' own mark: a dark centre boss.
        _disc(draw, c, c, 0.26 * radius, (*theme.DEFENDER_MARK, 255))
    else:
        _disc(draw, c, c, radius, (*theme.DEFENDER_RIM, 255))
        _disc(draw, c, c, radius - 0.025 * big, (*theme.KING_RIM, 255))
        _disc(draw, c, c, radius - 0.07 * big, (*theme.DEFENDER_BODY, 255))
        crown_r = radius * 0.78
        points = [(c + x * crown_r, c + (y + 0.08) * crown_r) for x, y in _CROWN]
        line = max(2, round(0.028 * big))
        draw.polygon(points, fill=(*theme.CROWN, 255), outline=(*theme.CROWN_LINE, 255))
        draw.line([*points, points[0]], fill=(*theme.CROWN_LINE, 255), width=line, joint="curve")
        band_y = c + (0.30 + 0.08) * crown_r
        draw.line(
            (points[0][0], band_y - 0.14 * crown_r, points[-1][0], band_y - 0.14 * crown_r),
            fill=(*theme.CROWN_LINE, 255),
            width=line,
        )
        for x, y in _CROWN_JEWELS:
            jx, jy = c + x * crown_r, c + (y + 0.08) * crown_r
            _disc(draw, jx, jy, 0.11 * crown_r, (*theme.CROWN_LINE, 255))
            _disc(draw, jx, jy, 0.11 * crown_r - line, (*theme.CROWN, 255))
    return _finish(image, cell)


@functools.lru_cache(maxsize=64)
def ghost(kind: Piece, cell: int) -> Image.Image:
    """A faint copy of a captured piece, crossed out, for the square it was taken from."""
    sprite = piece(kind, cell).copy()
    alpha = sprite.getchannel("A").point(lambda a: a * 38 // 100)
    sprite.putalpha(alpha)
    image, draw, c = _canvas(cell)
    big = c * 2
    arm = 0.15 * big
    width = round(0.05 * big)
    colour = (*theme.CAPTURE_MARK, 235)
    draw.line((c - arm, c - arm, c + arm, c + arm), fill=colour, width=width)
    draw.line((c - arm, c + arm, c + arm, c - arm), fill=colour, width=width)
    sprite.alpha_composite(_finish(image, cell))
    return sprite


@functools.lru_cache(maxsize=64)
def dot(cell: int, colour: tuple[int, int, int, int], fraction: float) -> Image.Image:
    """A filled dot of ``fraction`` of the square's width (move-picker targets, the trail)."""
    image, draw, c = _canvas(cell)
    _disc(draw, c, c, fraction * c * 2 / 2, colour)
    return _finish(image, cell)


@functools.lru_cache(maxsize=64)
def ring(cell: int, colour: tuple[int, int, int, int], fraction: float) -> Image.Image:
    """A ring with a centre dot (an escape square the king can reach now)."""
    image, draw, c = _canvas(cell)
    big = c * 2
    halo = (255, 250, 235, 200)
    _ring(draw, c, c, fraction * big / 2 + 0.025 * big, 0.12 * big, halo)
    _disc(draw, c, c, 0.095 * big, halo)
    _ring(draw, c, c, fraction * big / 2, 0.07 * big, colour)
    _disc(draw, c, c, 0.07 * big, colour)
    return _finish(image, cell)


@functools.lru_cache(maxsize=16)
def restricted(cell: int, *, throne: bool) -> Image.Image:
    """A restricted square (throne or corner): darker wood, an inlaid border and a saltire."""
    image, draw, c = _canvas(cell)
    big = c * 2
    draw.rectangle((0, 0, big, big), fill=(*theme.RESTRICTED, 255))
    inset = 0.13 * big
    width = round(0.035 * big)
    mark = (*theme.RESTRICTED_MARK, 255)
    draw.rectangle((inset, inset, big - inset, big - inset), outline=mark, width=width)
    draw.line((inset, inset, big - inset, big - inset), fill=mark, width=width)
    draw.line((inset, big - inset, big - inset, inset), fill=mark, width=width)
    if throne:
        _disc(draw, c, c, 0.17 * big, mark)
        _disc(draw, c, c, 0.17 * big - width, (*theme.RESTRICTED, 255))
    return _finish(image, cell)


@functools.lru_cache(maxsize=16)
def square_tile(cell: int, colour: tuple[int, int, int]) -> Image.Image:
    """A plain square of ``colour`` with a thin grid-coloured border (legend icons)."""
    image, draw, c = _canvas(cell)
    big = c * 2
    draw.rectangle((0, 0, big - 1, big - 1), fill=(*colour, 255))
    draw.rectangle((0, 0, big - 1, big - 1), outline=(*theme.GRID, 255), width=_SUPERSAMPLE * 2)
    return _finish(image, cell)


@functools.lru_cache(maxsize=16)
def capture_diagram(cell: int) -> Image.Image:
    """Attacker, crossed-out defender, attacker in a row: custodial capture, as a legend icon."""
    image, draw, c = _canvas(cell)
    big = c * 2
    radius = big / 6.4
    for i, body, rim in (
        (-1, theme.ATTACKER_BODY, theme.ATTACKER_RIM),
        (0, theme.DEFENDER_BODY, theme.DEFENDER_RIM),
        (1, theme.ATTACKER_BODY, theme.ATTACKER_RIM),
    ):
        x = c + i * radius * 2.05
        _disc(draw, x, c, radius, (*rim, 255))
        _disc(draw, x, c, radius - 0.03 * big, (*body, 255))
    arm = radius * 0.7
    width = round(0.045 * big)
    colour = (*theme.CAPTURE_MARK, 255)
    draw.line((c - arm, c - arm, c + arm, c + arm), fill=colour, width=width)
    draw.line((c - arm, c + arm, c + arm, c - arm), fill=colour, width=width)
    return _finish(image, cell)
