"""The win-chance graph: marked moves stay readable on a long set of a big board."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from engine import Move, Side
from engine.analysis import Judgement, MoveReview
from renderer import theme
from renderer.graph import (
    COLOURS,
    WIDTH,
    _overlaps,
    _place,
    legend_label,
    plot_box,
    render_win_chance,
)
from renderer.scene import Players


def _inaccuracy(ply: int, move: str) -> MoveReview:
    return MoveReview(
        ply=ply,
        move=Move.parse(move),
        side=Side.DEFENDERS if ply % 2 else Side.ATTACKERS,
        judgement=Judgement.INACCURACY,
        chance_before=0.5,
        chance_after=0.38,
        better=None,
    )


def test_no_label_hides_the_dot_of_a_neighbouring_move() -> None:
    """Moves 2, 3 and 4 of a 150-move 15x15 set all marked: every dot is still seen (a label
    placed for move 3 covered move 4's dot)."""
    chances = [0.33, 0.28, 0.38, 0.28, 0.38] + [0.35] * 146
    marked = [_inaccuracy(1, "f8-f7"), _inaccuracy(2, "h14-l14"), _inaccuracy(3, "k8-l8")]
    png = render_win_chance(chances, marked, attacker_name="Aoife", defender_name="Brian")
    with Image.open(io.BytesIO(png)) as picture:
        image = picture.convert("RGB")
    assert image.width == WIDTH
    box = plot_box(image.width, image.height)
    plies = len(chances) - 1
    colour = COLOURS[Judgement.INACCURACY]
    for review in marked:
        x, y = box.x(review.ply + 1, plies), box.y(chances[review.ply + 1])
        pixel = image.getpixel((x, y))
        assert isinstance(pixel, tuple)
        assert sum(abs(a - b) for a, b in zip(pixel, colour, strict=True)) < 40, (
            f"move {review.number}'s dot at {x},{y} is {pixel}"
        )


def test_labels_never_cover_one_another_while_there_is_room() -> None:
    """Six marked moves near the bottom of the plot, a few moves apart (as a game that the
    attackers lose early draws them): each label finds a place clear of every dot and of the
    labels placed before (move 15's label once covered move 9's)."""
    box = plot_box()
    dots = [(box.x(ply, 60), box.bottom - 2) for ply in (4, 8, 9, 15, 17, 20)]
    taken = [(x - 6, y - 6, x + 6, y + 6) for x, y in dots]
    for dot in dots:
        place = _place(box, dot, (120, 24), 10, taken)
        assert not any(_overlaps(place, other) for other in taken), (dot, place)
        assert box.left < place[0] < place[2] < box.right
        assert box.top < place[1] < place[3] < box.bottom
        taken.append(place)


def test_a_name_the_font_cannot_draw_leaves_no_boxes_in_the_legend() -> None:
    """Names in scripts the font lacks (CJK, Thai, an emoji) are said by their side in the
    legend, as on the board's caption, not drawn as empty boxes."""
    chances = [0.5, 0.45, 0.6, 0.3]
    unknown = render_win_chance(chances, attacker_name="漢字 🐉", defender_name="สมชาย")
    assert unknown == render_win_chance(chances)


def test_a_long_name_in_the_legend_is_cut_not_its_side() -> None:
    """A 32-letter name is cut with an ellipsis; "(attackers)" after it still shows."""
    face = theme.font(17)
    draw = ImageDraw.Draw(Image.new("RGB", (WIDTH, 40)))
    room = WIDTH // 2 - 60
    label = legend_label(draw, Side.ATTACKERS, Players(attacker_name="W" * 32), face, room)
    assert label.endswith("… (attackers)"), label
    assert draw.textlength(label, font=face) <= room


def test_a_long_title_stays_inside_the_picture() -> None:
    """A Spanish title of a game with a long number keeps clear of the picture's right edge
    (it ran past it)."""
    png = render_win_chance(
        [0.5, 0.45, 0.6, 0.3], title="Partida 1234567: probabilidad de victoria", width=360
    )
    with Image.open(io.BytesIO(png)) as picture:
        image = picture.convert("L")
    scale = 360 / WIDTH
    margin = round(18 * scale)
    band = image.crop((image.width - margin, 0, image.width, round(36 * scale)))
    assert band.getextrema()[1] < 150  # type: ignore[operator]


def test_a_short_sets_move_axis_is_numbered_to_its_last_move() -> None:
    """A set resigned after 3 moves: the move axis says 3 under its last point, not "0" alone
    (the numbers came every 5 moves)."""
    png = render_win_chance([0.33, 0.33, 0.34, 1.0])
    box = plot_box()
    with Image.open(io.BytesIO(png)) as opened:
        picture = opened.convert("RGB")
    under_last = picture.crop((box.right - 10, box.bottom + 4, box.right + 10, box.bottom + 22))
    colours = {colour for _, colour in under_last.getcolors(400) or []}
    assert colours - {theme.FRAME}, "no number under the last move"
