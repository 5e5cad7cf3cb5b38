"""Board pictures as players see them: decoded PNGs checked pixel by pixel.

Positions list rank 1 first (OpenTafl): ``t`` attacker, ``T`` defender, ``K`` king.
"""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image

from engine import RULESETS, Game, Piece, Side, parse_square
from renderer import render_board, render_rules_card, theme
from renderer.drawing import Layout, layout

RGB = tuple[int, int, int]

CAPTURE = [
    "f4-f6",
    "d5-g5",
    "d6-c6",
    "d3-b3",
    "b4-b6",
    "g5-g6",
    "c6-d6",
    "e4-e7",
    "g4-f4",
    "e7-f7",
    "f6-f5",
    "c4-c2",
    "d7-e7",
]
"""Ends with d7-e7, an attacker's move that captures the defender on f7."""

# King on e5, an attacker on d5; attackers to move. With an attacker on f7 he falls to f7-f5.
KING_IN_DANGER = "/7/7/7/7/3tK2/7/5t1/"
KING_SAFE = "/7/7/7/7/3tK2/6t/7/"
# King on a3: a2 and a1 are empty, so he can run to the corner a1 (an attacker on a5 bars a7).
KING_CAN_ESCAPE = "/7/7/K6/7/t6/3t3/7/"


def decode(png: bytes) -> Image.Image:
    """The picture in RGB, after checking it is a PNG."""
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    return image.convert("RGB")


def where(game: Game, width: int | None = None) -> Layout:
    """The layout the renderer uses for ``game`` at its default (or given) width."""
    return layout(game.ruleset.size, width or (560 + max(0, game.ruleset.size - 7) * 20))


def centre(image: Image.Image, lay: Layout, name: str) -> RGB:
    """The colour at the centre of the square called ``name``."""
    x, y = lay.centre(parse_square(name))
    r, g, b = image.getpixel((x, y))  # type: ignore[misc]
    return r, g, b


def near_edge(image: Image.Image, lay: Layout, name: str, inset: int = 3) -> RGB:
    """The colour just inside the left edge of the square called ``name``, halfway up."""
    x0, y0, _, y1 = lay.box(parse_square(name))
    r, g, b = image.getpixel((x0 + inset, (y0 + y1) // 2))  # type: ignore[misc]
    return r, g, b


def is_dark(colour: RGB) -> bool:
    """An attacker's body."""
    return max(colour) < 90


def is_ivory(colour: RGB) -> bool:
    """A defender's or the king's body."""
    return min(colour) > 215


def offset(image: Image.Image, lay: Layout, name: str, fraction: float) -> RGB:
    """The colour ``fraction`` of a square's width right of the square's centre."""
    x, y = lay.centre(parse_square(name))
    r, g, b = image.getpixel((x + round(lay.cell * fraction), y))  # type: ignore[misc]
    return r, g, b


def test_default_board_is_a_560_px_wide_palette_png() -> None:
    """The default 7x7 picture is a 560 px wide palette PNG with a caption strip above the board."""
    image = Image.open(io.BytesIO(render_board(Game())))
    assert (image.format, image.mode) == ("PNG", "P")
    assert image.size == (560, where(Game()).height)
    assert image.height > image.width


def test_width_option_sets_the_picture_width() -> None:
    """``width=`` gives a picture of that width, for smaller or larger boards."""
    assert decode(render_board(Game(), width=360)).width == 360
    assert decode(render_board(Game(), width=900)).width == 900


def test_start_position_pieces_have_their_colours() -> None:
    """At the start, attackers are dark, defenders and king light, empty squares neither."""
    game = Game()
    image, lay = decode(render_board(game)), where(game)
    for name in ("d1", "d2", "a4", "b4", "f4", "g4", "d6", "d7"):
        assert is_dark(centre(image, lay, name)), name
    for name in ("d3", "c4", "e4", "d5"):
        assert is_ivory(offset(image, lay, name, 0.28)), name
    for name in ("b2", "c6", "f5", "e3"):
        colour = centre(image, lay, name)
        assert not is_dark(colour), name
        assert not is_ivory(colour), name


def test_king_wears_a_gold_crown() -> None:
    """The king's centre is gold (his crown), unlike a defender's."""
    game = Game()
    image, lay = decode(render_board(game)), where(game)
    r, g, b = centre(image, lay, "d4")
    assert r > 180
    assert g > 120
    assert b < 90
    r, g, b = centre(image, lay, "d3")
    assert not (r > 180 and g > 120 and b < 90)


def test_rank_one_is_at_the_bottom() -> None:
    """After d2-c2 the attacker is drawn on c2, near the bottom, and d2 is empty."""
    game = Game.from_moves(["d2-c2"])
    image, lay = decode(render_board(game)), where(game)
    assert is_dark(centre(image, lay, "c2"))
    assert not is_dark(centre(image, lay, "c6"))
    assert lay.centre(parse_square("c2"))[1] > lay.centre(parse_square("c6"))[1]


def test_last_move_marks_only_its_own_squares() -> None:
    """Against the same position without history, only the last move's squares look different."""
    game = Game.from_moves(["d2-b2"])
    fresh = Game.from_position(game.position(), to_move=game.to_move)
    marked, plain = decode(render_board(game)), decode(render_board(fresh))
    lay = where(game)
    changed = {
        name
        for name in (f"{f}{r}" for f in "abcdefg" for r in range(1, 8))
        if marked.crop(lay.box(parse_square(name))).tobytes()
        != plain.crop(lay.box(parse_square(name))).tobytes()
    }
    assert changed == {"d2", "c2", "b2"}


def test_last_move_path_is_drawn_through_the_squares_passed() -> None:
    """The trail of d2-b2 crosses c2 in the move's amber."""
    game = Game.from_moves(["d2-b2"])
    r, g, b = centre(decode(render_board(game)), where(game), "c2")
    assert r > 190
    assert 120 < g < 190
    assert b < 90


def test_captured_piece_is_a_faint_crossed_out_marker() -> None:
    """The defender taken on f7 leaves a red cross there; no piece stands on f7."""
    game = Game.from_moves(CAPTURE)
    assert game.last_record is not None
    assert [str(game.last_record.move), game.piece_at(parse_square("f7"))] == ["d7-e7", None]
    image, lay = decode(render_board(game)), where(game)
    r, g, b = centre(image, lay, "f7")
    assert r > 150
    assert g < 110
    assert b < 110
    assert not is_ivory(offset(image, lay, "f7", 0.28))


def test_no_capture_marker_without_a_capture() -> None:
    """A move that captures nothing leaves no red cross anywhere on the board."""
    game = Game.from_moves(CAPTURE[:-1])
    image, lay = decode(render_board(game)), where(game)
    for name in ("f7", "e7", "d7"):
        r, g, b = centre(image, lay, name)
        assert not (r > 150 and g < 110 and b < 110), name


def test_king_square_is_framed_red_when_he_can_be_captured() -> None:
    """With f7-f5 threatening him, the king's square has a red frame."""
    game = Game.from_position(KING_IN_DANGER, to_move=Side.ATTACKERS)
    assert game.king_in_danger()
    r, g, b = near_edge(decode(render_board(game)), where(game), "e5")
    assert r > 180
    assert g < 80
    assert b < 80


def test_king_square_is_not_framed_when_safe() -> None:
    """Without a capturing move, the king's square has no red frame."""
    game = Game.from_position(KING_SAFE, to_move=Side.ATTACKERS)
    assert not game.king_in_danger()
    r, g, b = near_edge(decode(render_board(game)), where(game), "e5")
    assert not (r > 180 and g < 80 and b < 80)


def test_open_path_to_a_corner_is_marked_blue() -> None:
    """A king who can reach a1 has blue corner brackets and a blue ring on a1."""
    game = Game.from_position(KING_CAN_ESCAPE, to_move=Side.DEFENDERS)
    assert game.king_escape_routes() == [parse_square("a1")]
    image, lay = decode(render_board(game)), where(game)
    x0, y0, _, _ = lay.box(parse_square("a3"))
    r, _, b = image.getpixel((x0 + 2, y0 + 2))  # type: ignore[misc]
    assert b > 150
    assert r < 100
    ring = offset(image, lay, "a1", 0.23)
    assert ring[2] > 150
    assert ring[0] < 100


def test_highlight_marks_exactly_the_legal_destinations() -> None:
    """``highlight_from`` changes the piece's square and its legal destinations, nothing else."""
    game = Game()
    lay = where(game)
    picked = decode(render_board(game, highlight_from="d2"))
    plain = decode(render_board(game))
    expected = {"d2"} | {str(move)[3:] for move in game.legal_moves_from(parse_square("d2"))}
    changed = {
        name
        for name in (f"{f}{r}" for f in "abcdefg" for r in range(1, 8))
        if picked.crop(lay.box(parse_square(name))).tobytes()
        != plain.crop(lay.box(parse_square(name))).tobytes()
    }
    assert changed == expected == {"d2", "a2", "b2", "c2", "e2", "f2", "g2"}


def _luminance(rgb: RGB) -> float:
    """WCAG's relative luminance of an sRGB colour."""
    channels = [c / 255 for c in rgb]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(one: RGB, other: RGB) -> float:
    light, dark = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize(
    ("moves", "square", "least"),
    [((), "d2", 2.5), ((), "d1", 2.5), (("d2-c2", "d3-d2", "c2-c3"), "d4", 1.5)],
)
def test_the_chosen_square_is_much_darker_than_itself_unchosen(
    moves: tuple[str, ...], square: str, least: float
) -> None:
    """The chosen piece's square differs in lightness, not only in hue, from its plain self: it
    shows at phone width and to colour-blind eyes; the king's throne, darker, a little less."""
    game = Game.from_moves(list(moves))
    lay = where(game)
    x0, y0, _, _ = lay.box(parse_square(square))
    corner = (x0 + 3, y0 + 3)  # off the piece and the grid line
    picked = decode(render_board(game, highlight_from=square)).getpixel(corner)
    plain = decode(render_board(game)).getpixel(corner)
    assert _contrast(picked, plain) >= least  # type: ignore[arg-type]


def test_names_and_set_change_only_the_caption() -> None:
    """Player names and the set number are drawn in the caption strip, not on the board."""
    game = Game.from_moves(["d2-c2"])
    lay = where(game)
    named = decode(render_board(game, attacker_name="Aoife", defender_name="Brian", set_number=1))
    plain = decode(render_board(game))
    board = (0, lay.caption, lay.width, lay.height)
    caption = (0, 0, lay.width, lay.caption)
    assert named.crop(board).tobytes() == plain.crop(board).tobytes()
    assert named.crop(caption).tobytes() != plain.crop(caption).tobytes()


def test_caption_shows_whose_turn_by_their_piece() -> None:
    """The caption's piece icon is dark when attackers are to move and light for defenders."""
    before, after = Game(), Game.from_moves(["d2-c2"])
    lay = where(before)
    icon_centre = (lay.px(18) + lay.px(46) // 2, lay.caption // 2)
    attackers_turn = decode(render_board(before)).getpixel(icon_centre)
    defenders_turn = decode(render_board(after)).getpixel(icon_centre)
    assert is_dark(attackers_turn)  # type: ignore[arg-type]
    assert not is_dark(defenders_turn)  # type: ignore[arg-type]


def test_long_names_keep_the_picture_size() -> None:
    """Very long or non-Latin display names are cut to fit; the picture keeps its size."""
    game = Game()
    image = decode(render_board(game, attacker_name="Ω" * 32, defender_name="Ælfrēd " * 6))
    assert image.size == (560, where(game).height)


def test_restricted_squares_are_drawn_apart_from_plain_squares() -> None:
    """The throne's and corners' wood differs from that of plain squares beside them."""
    game = Game.from_position("/7/7/7/7/7/7/7/")
    image, lay = decode(render_board(game)), where(game)
    plain = {near_edge(image, lay, name, 8) for name in ("b1", "c4", "f7")}
    for name in ("a1", "g1", "a7", "g7", "d4"):
        assert near_edge(image, lay, name, 8) not in plain, name


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_preset_renders_its_starting_pieces(name: str) -> None:
    """Each preset's start is drawn at its size with every piece on its square, dark or light."""
    game = Game(name)
    image, lay = decode(render_board(game)), where(game)
    assert image.size == (lay.width, lay.height)
    for sq, piece in game.pieces().items():
        x, y = lay.centre(sq)
        if piece is Piece.ATTACKER:
            assert is_dark(image.getpixel((x, y))), sq  # type: ignore[arg-type]
        elif piece is Piece.DEFENDER:
            colour = image.getpixel((x + round(lay.cell * 0.28), y))
            assert is_ivory(colour), sq  # type: ignore[arg-type]


def test_edge_escape_boards_mark_the_edge() -> None:
    """On boards where the king escapes on any edge square, edge squares look unlike the inside."""
    game = Game.from_position("/7/7/7/7/7/7/7/", ruleset="ard-ri")
    image, lay = decode(render_board(game)), where(game)
    inside = {centre(image, lay, name) for name in ("b2", "c3", "d3", "c2")}
    for name in ("a3", "c1", "g5", "e7"):
        assert centre(image, lay, name) not in inside, name


def test_same_input_gives_the_same_bytes() -> None:
    """Rendering is deterministic, also after other pictures were drawn in between."""
    game = Game.from_moves(CAPTURE)
    first = render_board(game, attacker_name="Aoife", highlight_from="f5")
    render_board(Game("hnefatafl"))
    assert render_board(game, attacker_name="Aoife", highlight_from="f5") == first


def test_finished_game_caption_differs_from_a_game_in_progress() -> None:
    """After a resignation the caption announces the result instead of whose turn it is."""
    game = Game.from_moves(["d2-c2"])
    before = decode(render_board(game))
    game.resign(Side.DEFENDERS)
    after = decode(render_board(game))
    lay = where(game)
    caption = (0, 0, lay.width, lay.caption)
    assert before.crop(caption).tobytes() != after.crop(caption).tobytes()


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_rules_card_is_a_png_for_every_preset(name: str) -> None:
    """The /rules picture decodes, is as wide as the board picture, and taller."""
    game = Game(name)
    image = decode(render_rules_card(name))
    assert image.width == where(game).width
    assert image.height > where(game).height


def test_names_the_font_cannot_draw_fall_back_to_the_side() -> None:
    """A display name in a script the font lacks draws the side's name, not empty boxes."""
    game = Game()
    lay = where(game)
    caption = (0, 0, lay.width, lay.caption)
    unknown = decode(render_board(game, attacker_name="漢字"))
    plain = decode(render_board(game))
    assert unknown.crop(caption).tobytes() == plain.crop(caption).tobytes()


@pytest.mark.parametrize(
    "name",
    ["สมชาย ใจดี", "अमित शर्मा", "漢\u0301字"],
    ids=["thai", "devanagari", "mark-on-a-missing-letter"],
)
def test_marks_of_letters_the_font_cannot_draw_go_with_them(name: str) -> None:
    """A name whose letters the font lacks, with combining vowel signs or accents on them,
    draws the side's name: not the marks on dotted circles beside empty boxes."""
    game = Game()
    lay = where(game)
    caption = (0, 0, lay.width, lay.caption)
    unknown = decode(render_board(game, attacker_name=name))
    plain = decode(render_board(game))
    assert unknown.crop(caption).tobytes() == plain.crop(caption).tobytes()


def test_worker_threads_draw_the_same_pictures() -> None:
    """Pictures drawn in parallel worker threads (as the bot does) equal those drawn in turn."""
    games = [Game.from_moves(CAPTURE[:ply]) for ply in range(len(CAPTURE) + 1)]
    alone = [render_board(game, attacker_name="Aoife") for game in games]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda game: render_board(game, attacker_name="Aoife"), games))
    assert together == alone


def _ink_columns(image: Image.Image, lay: Layout) -> list[int]:
    """The columns of the caption's big line (above its baseline) that hold its bright text."""
    band = image.convert("L").crop((0, 0, lay.width, lay.caption // 2))
    return [
        x
        for x in range(band.width)
        if any(int(band.getpixel((x, y))) > 200 for y in range(band.height))  # type: ignore[arg-type]
    ]


@pytest.mark.parametrize("name", ["שלום", "محمد"], ids=["hebrew", "arabic"])
def test_a_name_written_right_to_left_keeps_the_caption_reading_left_to_right(name: str) -> None:
    """ "שלום to move": the name first, then the caption's own words, as for any name — not the
    words first because the name's letters turned the whole line right to left."""
    game = Game()
    lay = where(game)
    face = theme.font(lay.px(25), bold=True)
    words = round(face.getlength("to move"))

    def tail(name: str, shift: int = 0) -> list[bool]:
        """The ink of the last ``words`` columns of the caption's big line."""
        image = decode(render_board(game, attacker_name=name))
        end = _ink_columns(image, lay)[-1] + shift
        band = image.convert("L").crop((end - words + 1, 0, end + 1, lay.caption // 2))
        return [
            int(band.getpixel((x, y))) > 128  # type: ignore[arg-type]
            for y in range(band.height)
            for x in range(band.width)
        ]

    latin = tail("Bo")
    # The same words, to a pixel (the name's width may round the line's end either way).
    differing = min(
        sum(a != b for a, b in zip(tail(name, shift), latin, strict=True)) for shift in (-1, 0, 1)
    )
    assert differing / len(latin) < 0.02


def test_a_name_written_right_to_left_cut_short_shows_its_ellipsis_where_it_was_cut() -> None:
    """A long Hebrew name cut on a phone-width caption ends with its ellipsis at its left, where
    its letters stop, not between its first word and "to move" (as if its start were cut)."""
    game = Game()
    lay = where(game, 360)
    name = "אברהם אבינו בן תרח מאור כשדים"
    image = decode(render_board(game, attacker_name=name, width=360)).convert("L")
    left = lay.px(18) + lay.px(46) + lay.px(12)  # where the caption's text begins
    baseline = lay.caption // 2 - lay.px(3)
    band = image.crop((left, 0, lay.width, baseline + 1))
    inked = [
        [y for y in range(band.height) if int(band.getpixel((x, y))) > 200]  # type: ignore[arg-type]
        for x in range(band.width)
    ]
    first = next(x for x, ink in enumerate(inked) if ink)
    # The leftmost ink is the ellipsis's first dot: low, by the baseline, not a letter's top.
    assert min(inked[first]) > baseline - lay.px(6), (first, min(inked[first]), baseline)
