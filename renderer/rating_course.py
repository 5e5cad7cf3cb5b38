"""A player's rating over their rated sets in one ruleset: ``render_rating_course`` (PNG bytes)
and ``describe_rating_course`` (its alt text).

The rating after each set runs left to right, one point a set; a point while the rating was
still provisional is hollow, an established one filled (the legend says which), and the current
rating is written beside the last point. The picture uses the win-chance graph's frame, fonts
and sizes (``renderer.graph``), so it reads on Discord's dark and light themes alike.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from renderer import drawing, theme
from renderer.graph import PLOT_LINE, WIDTH, draw_title, graph_canvas, graph_png
from renderer.words import ENGLISH, Words

_PLOT: theme.RGB = (64, 47, 36)
_GRID: theme.RGB = (98, 74, 54)
_STEPS = (10, 20, 25, 50, 100, 200, 250, 500, 1000)
_SET_STEPS = (1, 2, 5, 10, 20, 25, 50, 100)
_LOW_MARGIN = 0.04
"""The least share of the plot's height below the lowest rating (its dot clear of the frame)."""


@dataclass(frozen=True)
class RatedSet:
    """The rating after one rated set, and whether it was still provisional then."""

    rating: float
    provisional: bool


@dataclass(frozen=True)
class _Box:
    left: int
    top: int
    right: int
    bottom: int
    low: int
    high: int

    def x(self, index: int, count: int) -> int:
        return self.left + round((self.right - self.left) * index / max(1, count - 1))

    def y(self, rating: float) -> int:
        share = (rating - self.low) / (self.high - self.low)
        return self.bottom - round((self.bottom - self.top) * share)


def rating_range(ratings: Sequence[float]) -> tuple[int, int, int]:
    """The plot's lowest and highest rating and the step of its grid lines: round numbers
    around every rating, at least 100 points apart (a course of a few points is not drawn as a
    cliff), with four to eight lines between."""
    low, high = min(ratings), max(ratings)
    middle = (low + high) / 2
    low, high = min(low, middle - 50), max(high, middle + 50)
    span = high - low
    step = next((s for s in _STEPS if span / s <= 6), _STEPS[-1])
    return math.floor(low / step) * step, math.ceil(high / step) * step, step


def set_labels(first_set: int, count: int) -> list[int]:
    """The set numbers written along the bottom of a course of ``count`` sets from the
    ``first_set``-th: the first and the last, and the round numbers between (a step of 1, 2,
    5, 10, 20… for at most eight of them) not within half a step of either."""
    last = first_set + count - 1
    step = next((s for s in _SET_STEPS if (count - 1) / s <= 8), _SET_STEPS[-1])
    between = range(math.ceil(first_set / step) * step, last, step)
    round_ones = [n for n in between if n - first_set >= step / 2 and last - n >= step / 2]
    return sorted({first_set, *round_ones, last})


def shown(rating: float) -> int:
    """The whole number a rating is written as (1662.31 is 1662), as the bot writes it."""
    return round(rating)


def describe_rating_course(
    course: Sequence[RatedSet], *, words: Words = ENGLISH, first_set: int = 1
) -> str:
    """Alt text for :func:`render_rating_course`'s picture, one line: where the rating went
    from and to, over how many sets, and its highest."""
    ratings = [point.rating for point in course]
    given = {
        "start": shown(ratings[0]),
        "end": shown(ratings[-1]),
        "highest": shown(max(ratings)),
    }
    if first_set > 1:  # the picture shows the last of more sets
        return words.n_(
            "Rating from {start} to {end} over the last {count} rated set, highest {highest}.",
            "Rating from {start} to {end} over the last {count} rated sets, highest {highest}.",
            len(ratings),
            **given,
        )
    return words.n_(
        "Rating from {start} to {end} over {count} rated set, highest {highest}.",
        "Rating from {start} to {end} over {count} rated sets, highest {highest}.",
        len(ratings),
        **given,
    )


def render_rating_course(
    course: Sequence[RatedSet],
    *,
    title: str | None = None,
    first_set: int = 1,
    width: int = WIDTH,
    words: Words = ENGLISH,
) -> bytes:
    """A PNG of the rating after each of ``course``'s sets (at least one), the first of them
    the player's ``first_set``-th rated set (the axis counts from it). Deterministic bytes."""
    if not course:
        raise ValueError("a rating course needs at least one rated set")
    with drawing.DRAWING_LOCK:
        image = _draw(course, title or words._("Rating"), first_set, width, words)
    return graph_png(image)


def _draw(
    course: Sequence[RatedSet], title: str, first_set: int, width: int, words: Words
) -> Image.Image:
    image, draw, px = graph_canvas(width)
    height = image.height
    small = theme.font(px(17))
    bold = theme.font(px(17), bold=True)
    draw_title(draw, title, width)
    # The legend: a filled dot for an established rating, a hollow one for a provisional.
    legend_y = px(44)
    x = px(18)
    for hollow, label in ((False, words._("established")), (True, words._("provisional"))):
        _dot(draw, (x + px(7), legend_y), px(6), hollow, px(2))
        x += px(20)
        draw.text((x, legend_y), label, font=small, fill=theme.CAPTION_MUTED, anchor="lm")
        x += round(draw.textlength(label, font=small)) + px(22)
    ratings = [point.rating for point in course]
    low, high, step = rating_range(ratings)
    # Room for the current rating's tag in the top fifth above the latest points (the tag's
    # width, left of the last point), where it covers none of them when beside the last does.
    latest = max(ratings[-max(2, math.ceil(len(ratings) / 5)) :])
    while (high - latest) / (high - low) < 0.2:
        high += step
    if (min(ratings) - low) / (high - low) < _LOW_MARGIN:  # on the bottom line: half hidden
        low -= step
    box = _Box(px(62), px(76), width - px(22), height - px(46), low, high)
    draw.rectangle((box.left, box.top, box.right, box.bottom), fill=_PLOT)
    for rating in range(low, high + 1, step):
        y = box.y(rating)
        draw.line((box.left, y, box.right, y), fill=_GRID, width=1)
        draw.text(
            (box.left - px(6), y), str(rating), font=small, fill=theme.COORDINATE, anchor="rm"
        )
    draw.rectangle((box.left, box.top, box.right, box.bottom), outline=theme.FRAME_LINE, width=1)
    # The sets along the bottom, numbered as the player's rated sets.
    count = len(course)
    for number in set_labels(first_set, count):
        draw.text(
            (box.x(number - first_set, count), box.bottom + px(6)),
            str(number),
            font=small,
            fill=theme.COORDINATE,
            anchor="mt",
        )
    draw.text(
        (box.right, box.bottom + px(24)),
        words._("rated sets"),
        font=small,
        fill=theme.CAPTION_MUTED,
        anchor="rt",
    )
    points = [(box.x(i, count), box.y(r)) for i, r in enumerate(ratings)]
    if len(points) > 1:
        draw.line(points, fill=PLOT_LINE, width=px(3), joint="curve")
    # Dots as big as the room between them allows: 100 sets leave about 5 pixels each.
    gap = (box.right - box.left) / max(1, count - 1)
    radius = max(px(2.5), min(px(6), round(gap * 0.4)))
    for point, centre in zip(course, points, strict=True):
        _dot(draw, centre, radius, point.provisional, max(1, min(px(2), radius // 2)))
    _current(draw, box, points, course[-1], bold, px)
    return image


def _dot(
    draw: ImageDraw.ImageDraw, centre: tuple[int, int], radius: int, hollow: bool, ring: int
) -> None:
    x, y = centre
    draw.ellipse(
        (x - radius, y - radius, x + radius, y + radius),
        fill=_PLOT if hollow else PLOT_LINE,
        outline=theme.CAPTION if hollow else PLOT_LINE,
        width=ring if hollow else 1,
    )


def _current(
    draw: ImageDraw.ImageDraw,
    box: _Box,
    points: Sequence[tuple[int, int]],
    last: RatedSet,
    face: theme.Font,
    px: Callable[[float], int],
) -> None:
    """The current rating in a tag left of the last point (it sits at the right edge): above
    it, else below it, else at the plot's top, the first place that covers no point or line of
    the course (a course falling to its last point runs through the place above it)."""
    text = f"{shown(last.rating)}{'?' if last.provisional else ''}"
    w = round(draw.textlength(text, font=face)) + px(12)
    h = px(24)
    x, y = points[-1]
    left = max(box.left + px(2), x - w - px(8))
    places = [y - h - px(8), y + px(8), box.top + px(2)]
    inside = [top for top in places if box.top < top and top + h < box.bottom]
    clear = [top for top in inside if not _crosses(points, left, top, w, h, px(7))]
    top = (clear or inside or places)[0]
    draw.rounded_rectangle(
        (left, top, left + w, top + h), radius=px(4), fill=theme.FRAME, outline=PLOT_LINE, width=2
    )
    draw.text((left + w // 2, top + h // 2), text, font=face, fill=theme.CAPTION, anchor="mm")


def _crosses(
    points: Sequence[tuple[int, int]], left: int, top: int, w: int, h: int, margin: int
) -> bool:
    """Whether the course's line (or a dot on it) passes within ``margin`` of the box."""
    x0, x1, y0, y1 = left - margin, left + w + margin, top - margin, top + h + margin
    for (ax, ay), (bx, by) in list(itertools.pairwise(points)) or [(points[0], points[0])]:
        lo, hi = max(x0, min(ax, bx)), min(x1, max(ax, bx))
        if lo > hi:
            continue
        ends = [ay, by] if ax == bx else [ay + (by - ay) * (t - ax) / (bx - ax) for t in (lo, hi)]
        if min(ends) <= y1 and max(ends) >= y0:
            return True
    return False
