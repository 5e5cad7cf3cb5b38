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
from dataclasses import dataclass, replace

from PIL import Image, ImageDraw

from engine.analysis import Judgement, MoveReview
from engine.squares import Side
from renderer import drawing, theme
from renderer.scene import Players, side_label
from renderer.words import ENGLISH, Words

WIDTH = 560
HEIGHT = 330
"""The default size: Discord shows a picture at most about 550 pixels wide on a desktop and
360 on a phone, so the text is drawn big enough to read at either (at 360, the smallest is
about 10 pixels high)."""

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
PLOT_LINE: theme.RGB = (214, 160, 36)
"""The colour of a graph's course (the win chance; a rating): gold, read on either theme."""
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
    return graph_png(image)


def graph_png(image: Image.Image) -> bytes:
    """A graph's PNG: its few colours in a palette of 64, deterministic bytes."""
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
    image, draw, px = graph_canvas(width)
    height = image.height
    small = theme.font(px(17))
    tiny = theme.font(px(16), bold=True)
    box = plot_box(width, height)
    # The caption: a title and a legend of both sides' colours.
    draw_title(draw, title or players.words._("Win chance"), width)
    legend_y = px(44)
    x = px(18)
    for side, colour in (
        (Side.ATTACKERS, theme.ATTACKER_BODY),
        (Side.DEFENDERS, theme.DEFENDER_BODY),
    ):
        swatch = px(14)
        draw.rectangle(
            (x, legend_y - swatch // 2, x + swatch, legend_y + swatch // 2),
            fill=colour,
            outline=theme.CAPTION_MUTED,
        )
        x += swatch + px(6)
        label = legend_label(draw, side, players, small, width // 2 - px(60))
        direction = drawing.text_direction(small)  # a name written right to left comes first
        draw.text(
            (x, legend_y),
            label,
            font=small,
            fill=theme.CAPTION_MUTED,
            anchor="lm",
            direction=direction,
        )
        x += round(draw.textlength(label, font=small, direction=direction)) + px(22)
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
    draw.line(points, fill=PLOT_LINE, width=px(3), joint="curve")
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
        (box.right, box.bottom + px(24)),
        players.words._("move"),
        font=small,
        fill=theme.CAPTION_MUTED,
        anchor="rt",
    )
    _marks(draw, box, chances, marked, tiny, px)
    return image


def graph_canvas(
    width: int,
) -> tuple[Image.Image, ImageDraw.ImageDraw, Callable[[float], int]]:
    """A blank graph ``width`` pixels wide (the height in proportion) on the frame's colour,
    a pen on it, and the size in pixels of a length given at the default width."""
    scale = width / WIDTH

    def px(value: float) -> int:
        return max(1, round(value * scale))

    image = Image.new("RGB", (width, round(HEIGHT * scale)), theme.FRAME)
    return image, ImageDraw.Draw(image), px


def draw_title(draw: ImageDraw.ImageDraw, title: str, width: int) -> None:
    """A graph's title across its top, set smaller (:func:`title_face`) or cut to fit."""
    scale = width / WIDTH
    room = width - 2 * max(1, round(18 * scale))
    big = title_face(draw, title, room, scale)
    draw.text(
        (max(1, round(18 * scale)), max(1, round(10 * scale))),
        drawing.fit(draw, title, big, room),
        font=big,
        fill=theme.CAPTION,
        anchor="lt",
    )


def title_face(draw: ImageDraw.ImageDraw, title: str, room: int, scale: float) -> theme.Font:
    """The title's face: set smaller, down to three quarters, where the title is wider than
    ``room`` (a Spanish "Partida 123456: probabilidad de victoria" ran past the picture)."""
    points = 24
    face = theme.font(max(1, round(points * scale)), bold=True)
    while points > 18 and draw.textlength(title, font=face) > room:
        points -= 1
        face = theme.font(max(1, round(points * scale)), bold=True)
    return face


def legend_label(
    draw: ImageDraw.ImageDraw, side: Side, players: Players, face: theme.Font, room: int
) -> str:
    """``Alice (attackers)`` for the legend, at most ``room`` pixels wide: without the
    characters the font cannot draw (no empty boxes) and, when too long, with the name cut
    rather than the side's word."""
    name = drawing.drawable(players.name_of(side), face)
    shown = replace(players, attacker_name=name, defender_name=name)
    label = side_label(side, shown)
    direction = drawing.text_direction(face)
    keep = len(name or "")
    while name and keep > 1 and draw.textlength(label, font=face, direction=direction) > room:
        keep -= 1
        cut = drawing.cut_short(name[:keep], face)
        label = side_label(side, replace(players, attacker_name=cut, defender_name=cut))
    return drawing.fit(draw, label, face, room)


def plot_box(width: int = WIDTH, height: int = HEIGHT) -> _Box:
    """Where the plot lies in a graph of this size (its caption above, the axes' numbers to
    the left and below)."""
    scale = width / WIDTH
    return _Box(
        round(58 * scale),
        round(76 * scale),
        width - max(1, round(16 * scale)),
        height - round(46 * scale),
    )


def _tick_step(plies: int) -> int:
    # From one move on: a set of a few moves (a quick resignation) had its axis say "0" alone.
    for step in (1, 2, 5, 10, 20, 50):
        if plies / step <= 10:
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
    labels = [f"{r.number}. {r.move}{MARKS[r.judgement]}" for r in shown]
    taken = [(x - radius, y - radius, x + radius, y + radius) for x, y in dots]
    places: list[tuple[int, int, int, int]] = []
    for label, dot in zip(labels, dots, strict=True):
        size = (round(draw.textlength(label, font=face)) + px(10), px(24))
        places.append(_place(box, dot, size, px(10), taken))
        taken.append(places[-1])
    # A label pushed away from its dot by the others is tied to it by a thin line, drawn
    # first so that no dot or label is crossed out by it.
    for review, (x, y), place in zip(shown, dots, places, strict=True):
        near_x = min(max(x, place[0]), place[2])
        near_y = min(max(y, place[1]), place[3])
        if abs(near_x - x) + abs(near_y - y) > px(24):
            draw.line((x, y, near_x, near_y), fill=COLOURS[review.judgement], width=px(2))
    for review, (x, y) in zip(shown, dots, strict=True):
        draw.ellipse(
            (x - radius, y - radius, x + radius, y + radius),
            fill=COLOURS[review.judgement],
            outline="white",
        )
    for review, label, place in zip(shown, labels, places, strict=True):
        colour = COLOURS[review.judgement]
        draw.rounded_rectangle(place, radius=px(4), fill=theme.FRAME, outline=colour, width=2)
        draw.text(
            ((place[0] + place[2]) // 2, (place[1] + place[3]) // 2),
            label,
            font=face,
            fill=theme.CAPTION,
            anchor="mm",
        )


def _place(
    box: _Box,
    dot: tuple[int, int],
    size: tuple[int, int],
    gap: int,
    taken: Sequence[tuple[int, int, int, int]],
) -> tuple[int, int, int, int]:
    """Where a label of ``size`` goes for the dot at ``dot``: the nearest place to it, above
    then below, centred on it or to either side, that covers no dot and no label placed
    before; where every place would, the one that covers least."""
    x, y = dot
    w, h = size
    step = h + gap // 2
    places: list[tuple[int, int, int, int]] = []
    for k in range((box.bottom - box.top) // step + 1):
        for top in (y - gap - h - k * step, y + gap + k * step):
            for left in (x - w // 2, x - w + gap, x - gap):
                left = min(max(box.left + 2, left), box.right - w - 2)
                top = min(max(box.top + 2, top), box.bottom - h - 2)
                places.append((left, top, left + w, top + h))
    for place in places:
        if not any(_overlaps(place, other) for other in taken):
            return place
    return min(places, key=lambda place: sum(_overlap(place, other) for other in taken))


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> int:
    return max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))


def _overlaps(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
