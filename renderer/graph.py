"""The win-chance graph of an analysed set: ``render_win_chance`` (PNG bytes).

The attackers' chance runs left to right over the set's moves: below the line the board is the
attackers' colour, above it the defenders', so whoever holds more of the picture is ahead. The
moves the analysis marks (the worst of each side) are dots in the judgement's colour with their
move number and notation beside them, and ``??`` (blunder), ``?`` (mistake) or ``?!``
(inaccuracy) as in chess annotation.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine.analysis import Judgement, MoveReview
from engine.squares import Side
from renderer import drawing, theme
from renderer.scene import Players, side_label
from renderer.words import ENGLISH, Words

WIDTH = 720
HEIGHT = 360

MARKS: dict[Judgement, str] = {
    Judgement.BLUNDER: "??",
    Judgement.MISTAKE: "?",
    Judgement.INACCURACY: "?!",
}
COLOURS: dict[Judgement, theme.RGB] = {
    Judgement.BLUNDER: (206, 38, 30),
    Judgement.MISTAKE: (232, 128, 20),
    Judgement.INACCURACY: (226, 196, 40),
}
_PLOT_LINE: theme.RGB = (214, 160, 36)
_HALF_LINE: theme.RGB = (150, 130, 105)


@dataclass(frozen=True)
class _Box:
    left: int
    top: int
    right: int
    bottom: int

    def x(self, ply: int, plies: int) -> int:
        return self.left + round((self.right - self.left) * ply / max(1, plies))

    def y(self, chance: float) -> int:
        return self.bottom - round((self.bottom - self.top) * chance)


def render_win_chance(
    chances: Sequence[float],
    marked: Sequence[MoveReview] = (),
    *,
    attacker_name: str | None = None,
    defender_name: str | None = None,
    title: str | None = None,
    width: int = WIDTH,
    words: Words = ENGLISH,
) -> bytes:
    """A PNG of the attackers' chance before each move and after the last (``chances``).

    ``marked`` moves get a dot and a label; names go into the legend. The caption is in the
    language of ``words`` (English by default). Deterministic bytes.
    """
    players = Players(attacker_name, defender_name, words=words)
    with drawing.DRAWING_LOCK:
        image = _draw(chances, marked, players, title, width)
    out = io.BytesIO()
    image.quantize(64, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        out, "PNG", compress_level=6
    )
    return out.getvalue()


def _draw(
    chances: Sequence[float],
    marked: Sequence[MoveReview],
    players: Players,
    title: str | None,
    width: int,
) -> Image.Image:
    scale = width / WIDTH
    height = round(HEIGHT * scale)

    def px(value: float) -> int:
        return max(1, round(value * scale))

    image = Image.new("RGB", (width, height), theme.FRAME)
    draw = ImageDraw.Draw(image)
    big = theme.font(px(21), bold=True)
    small = theme.font(px(15))
    tiny = theme.font(px(13), bold=True)
    caption = px(56)
    box = _Box(px(52), caption + px(12), width - px(20), height - px(34))
    # The caption: a title and a legend of both sides' colours.
    draw.text(
        (px(18), px(10)),
        title or players.words._("Win chance"),
        font=big,
        fill=theme.CAPTION,
        anchor="lt",
    )
    legend_y = px(38)
    x = px(18)
    for side, colour in (
        (Side.ATTACKERS, theme.ATTACKER_BODY),
        (Side.DEFENDERS, theme.DEFENDER_BODY),
    ):
        swatch = px(12)
        draw.rectangle(
            (x, legend_y - swatch // 2, x + swatch, legend_y + swatch // 2),
            fill=colour,
            outline=theme.CAPTION_MUTED,
        )
        x += swatch + px(6)
        label = side_label(side, players)
        label = drawing.fit(draw, label, small, width // 2 - px(60))
        draw.text((x, legend_y), label, font=small, fill=theme.CAPTION_MUTED, anchor="lm")
        x += round(draw.textlength(label, font=small)) + px(22)
    # The plot: the defenders' colour above the line, the attackers' below.
    plies = len(chances) - 1
    draw.rectangle((box.left, box.top, box.right, box.bottom), fill=theme.DEFENDER_BODY)
    points = [(box.x(i, plies), box.y(chance)) for i, chance in enumerate(chances)]
    if len(points) == 1:
        points.append((box.right, points[0][1]))
    draw.polygon([(box.left, box.bottom), *points, (points[-1][0], box.bottom)], fill=(74, 70, 72))
    half = box.y(0.5)
    for x0 in range(box.left, box.right, px(10)):
        draw.line((x0, half, min(box.right, x0 + px(5)), half), fill=_HALF_LINE, width=px(1))
    draw.line(points, fill=_PLOT_LINE, width=px(3), joint="curve")
    draw.rectangle((box.left, box.top, box.right, box.bottom), outline=theme.FRAME_LINE, width=1)
    # Axes: 0, 50 and 100 % for the attackers; a move number every few moves.
    for chance, text in ((1.0, "100%"), (0.5, "50%"), (0.0, "0%")):
        draw.text(
            (box.left - px(6), box.y(chance)),
            text,
            font=small,
            fill=theme.COORDINATE,
            anchor="rm",
        )
    step = _tick_step(plies)
    for ply in range(0, plies + 1, step):
        draw.text(
            (box.x(ply, plies), box.bottom + px(6)),
            str(ply),
            font=small,
            fill=theme.COORDINATE,
            anchor="mt",
        )
    draw.text(
        (box.right, box.bottom + px(20)),
        players.words._("move"),
        font=small,
        fill=theme.CAPTION_MUTED,
        anchor="rt",
    )
    _marks(draw, box, chances, marked, tiny, px)
    return image


def _tick_step(plies: int) -> int:
    for step in (5, 10, 20, 50):
        if plies / step <= 12:
            return step
    return 100


def _marks(
    draw: ImageDraw.ImageDraw,
    box: _Box,
    chances: Sequence[float],
    marked: Sequence[MoveReview],
    face: theme.Font,
    px: Callable[[float], int],
) -> None:
    """A dot on the line after each marked move, and a label beside it that keeps clear of
    every dot and of the labels placed before (on a long set, marked moves a few plies apart
    sit a few pixels apart)."""
    plies = len(chances) - 1
    radius = px(6)
    shown = [
        review
        for review in sorted(marked, key=lambda r: r.ply)
        if review.judgement in MARKS and review.ply + 1 < len(chances)
    ]
    dots = [(box.x(r.ply + 1, plies), box.y(chances[r.ply + 1])) for r in shown]
    for review, (x, y) in zip(shown, dots, strict=True):
        draw.ellipse(
            (x - radius, y - radius, x + radius, y + radius),
            fill=COLOURS[review.judgement],
            outline="white",
        )
    taken = [(x - radius, y - radius, x + radius, y + radius) for x, y in dots]
    for review, (x, y) in zip(shown, dots, strict=True):
        colour = COLOURS[review.judgement]
        label = f"{review.number}. {review.move}{MARKS[review.judgement]}"
        w = round(draw.textlength(label, font=face)) + px(8)
        h = px(18)
        # Above the dot when there is room, else below; shifted away from what is placed.
        for offset in (-px(14) - h, px(14), -px(36) - h, px(36), -px(58) - h, px(58)):
            left = min(max(box.left + 2, x - w // 2), box.right - w - 2)
            top = min(max(box.top + 2, y + offset), box.bottom - h - 2)
            candidate = (left, top, left + w, top + h)
            if not any(_overlaps(candidate, other) for other in taken):
                break
        taken.append(candidate)
        draw.rounded_rectangle(candidate, radius=px(4), fill=theme.FRAME, outline=colour, width=2)
        draw.text(
            ((candidate[0] + candidate[2]) // 2, (candidate[1] + candidate[3]) // 2),
            label,
            font=face,
            fill=theme.CAPTION,
            anchor="mm",
        )


def _overlaps(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
