"""Composing one board picture: cached background, marks, pieces, caption.

Everything that does not change between moves (the frame, squares, coordinates and sprites) is
drawn once per ruleset and width and cached; a picture is a copy of the background with the
marks and pieces pasted on. Mapping it to the fixed palette and saving it as PNG bytes is
renderer/fixed_palette.py's.
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace

from PIL import Image, ImageDraw, ImageFont

from engine import Game, Move, Piece, Ruleset, Side, Square
from engine.squares import FILE_LETTERS
from renderer import sprites, theme
from renderer.scene import (
    Arrow,
    Scene,
    path_squares,
    set_label,
    short_ending,
    side_title,
)

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Layout:
    """Where everything goes in a picture of a ``size`` x ``size`` board ``width`` pixels wide."""

    size: int
    width: int
    scale: float
    caption: int
    cell: int
    left: int
    top: int

    @property
    def height(self) -> int:
        """The caption strip plus a square board area."""
        return self.caption + self.width

    def box(self, sq: Square) -> Box:
        """The pixel box of a square (x0, y0, x1, y1), rank 1 at the bottom."""
        file, rank = sq & 15, sq >> 4
        x0 = self.left + file * self.cell
        y0 = self.top + (self.size - 1 - rank) * self.cell
        return x0, y0, x0 + self.cell, y0 + self.cell

    def centre(self, sq: Square) -> tuple[int, int]:
        """The pixel at the centre of a square."""
        x0, y0, _, _ = self.box(sq)
        return x0 + self.cell // 2, y0 + self.cell // 2

    def px(self, base: float) -> int:
        """``base`` pixels at 560 px wide, scaled to this picture."""
        return max(1, round(base * self.scale))


@functools.lru_cache(maxsize=64)
def layout(size: int, width: int) -> Layout:
    """The layout of a ``size`` board ``width`` pixels wide (at least 240)."""
    if width < 240:
        raise ValueError(f"a board picture needs to be at least 240 px wide, not {width}")
    scale = width / theme.BASE_WIDTH
    gutter = round((30 if size < 10 else 38) * scale)
    cell = (width - 2 * gutter) // size
    caption = round(78 * scale)
    margin = (width - cell * size) // 2
    return Layout(size, width, scale, caption, cell, margin, caption + margin)


# ---------------------------------------------------------------------------- background


@functools.lru_cache(maxsize=32)
def background(ruleset: Ruleset, width: int) -> Image.Image:
    """Frame, squares, restricted and escape squares, and coordinates (RGB; do not modify)."""
    lay = layout(ruleset.size, width)
    n = ruleset.size
    image = Image.new("RGB", (width, lay.height), theme.FRAME)
    draw = ImageDraw.Draw(image)
    game = Game(ruleset)
    edge_escape = any(
        game.is_escape(sq) and sq not in game.corners for sq in game.squares if _on_edge(sq, n)
    )
    board_box = (lay.left, lay.top, lay.left + lay.cell * n, lay.top + lay.cell * n)
    rim = lay.px(5)
    draw.rectangle(
        (board_box[0] - rim, board_box[1] - rim, board_box[2] + rim - 1, board_box[3] + rim - 1),
        fill=theme.FRAME_LINE,
    )
    draw.line((0, lay.caption - 1, width, lay.caption - 1), fill=theme.FRAME_LINE, width=1)
    for sq in game.squares:
        x0, y0, x1, y1 = lay.box(sq)
        colour = theme.SQUARE_DARK if ((sq & 15) + (sq >> 4)) % 2 == 0 else theme.SQUARE_LIGHT
        if edge_escape and _on_edge(sq, n):
            colour = theme.ESCAPE_EDGE
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=colour)
        if game.is_restricted(sq):
            tile = sprites.restricted(lay.cell, throne=sq == game.throne)
            image.paste(tile, (x0, y0), tile)
    line = lay.px(1)
    for i in range(n + 1):
        x = lay.left + i * lay.cell
        y = lay.top + i * lay.cell
        draw.rectangle((x - line // 2, board_box[1], x + (line - 1) // 2, board_box[3]), theme.GRID)
        draw.rectangle((board_box[0], y - line // 2, board_box[2], y + (line - 1) // 2), theme.GRID)
    if edge_escape:
        # The king's goal: a darker lane of edge squares, set off by a double line.
        inner = lay.px(3)
        x0, y0 = lay.left + lay.cell, lay.top + lay.cell
        x1, y1 = lay.left + lay.cell * (n - 1), lay.top + lay.cell * (n - 1)
        draw.rectangle(
            (x0 - inner // 2, y0 - inner // 2, x1 + inner // 2, y1 + inner // 2),
            outline=theme.RESTRICTED_MARK,
            width=inner,
        )
    _coordinates(draw, lay)
    return image


def _on_edge(sq: Square, n: int) -> bool:
    return (sq & 15) in (0, n - 1) or (sq >> 4) in (0, n - 1)


def _coordinates(draw: ImageDraw.ImageDraw, lay: Layout) -> None:
    n = lay.size
    face = theme.font(lay.px(17 if n < 10 else 16), bold=True)
    end = lay.top + lay.cell * n
    right = lay.left + lay.cell * n
    gap = lay.px(5) + (lay.left - lay.px(5)) // 2
    for i in range(n):
        middle = lay.left + i * lay.cell + lay.cell // 2
        letter = FILE_LETTERS[i]
        draw.text((middle, end + gap), letter, font=face, fill=theme.COORDINATE, anchor="mm")
        draw.text((middle, lay.top - gap), letter, font=face, fill=theme.COORDINATE, anchor="mm")
        rank = str(n - i)
        y = lay.top + i * lay.cell + lay.cell // 2
        draw.text((lay.left - gap, y), rank, font=face, fill=theme.COORDINATE, anchor="mm")
        draw.text((right + gap, y), rank, font=face, fill=theme.COORDINATE, anchor="mm")


# ---------------------------------------------------------------------------- one picture


DRAWING_LOCK = threading.RLock()
"""FreeType faces (shared through the font cache) must not be used by two threads at once, and
the bot draws in worker threads: composing holds this lock. Palette mapping and PNG encoding,
the slower half, run outside it."""


def compose(scene: Scene, width: int) -> Image.Image:
    """The picture of ``scene`` in RGB."""
    with DRAWING_LOCK:
        return _compose(scene, width)


def _compose(scene: Scene, width: int) -> Image.Image:
    lay = layout(scene.size, width)
    image = background(scene.ruleset, width).copy()
    draw = ImageDraw.Draw(image)
    cell = lay.cell
    if scene.selected is not None:
        _tint(image, lay.box(scene.selected), theme.SELECTED, theme.SELECTED_AMOUNT)
    if scene.earlier_move is not None:
        frm, to = scene.earlier_move.from_square, scene.earlier_move.to_square
        _tint(image, lay.box(frm), theme.LAST_MOVE, 0.15)
        _tint(image, lay.box(to), theme.LAST_MOVE, 0.25)
        _trail(image, draw, lay, scene.earlier_move, theme.EARLIER_TRAIL, 0.6)
    if scene.last_move is not None:
        frm, to = scene.last_move.from_square, scene.last_move.to_square
        _tint(image, lay.box(frm), theme.LAST_MOVE, 0.45)
        _tint(image, lay.box(to), theme.LAST_MOVE, 0.60)
        _trail(image, draw, lay, scene.last_move)
    if scene.king is not None and (scene.king_in_danger or scene.escape_routes):
        _king_frame(draw, lay, scene.king, danger=scene.king_in_danger)
    for sq, kind in (*scene.earlier_captures, *scene.captures):
        _paste(image, sprites.ghost(kind, cell), lay.box(sq))
    for sq, kind in scene.pieces:
        _paste(image, sprites.piece(kind, cell), lay.box(sq))
    for sq in scene.targets:
        _paste(image, sprites.dot(cell, (*theme.TARGET, 110), 0.30), lay.box(sq))
    for sq in scene.escape_routes:
        _paste(image, sprites.ring(cell, (*theme.ESCAPE_ROUTE, 235), 0.46), lay.box(sq))
    for arrow in scene.arrows:
        _arrow(draw, lay, arrow)
    _caption(image, draw, lay, scene)
    return image


def _paste(image: Image.Image, sprite: Image.Image, box: Box) -> None:
    image.paste(sprite, box[:2], sprite)


def _tint(image: Image.Image, box: Box, colour: tuple[int, int, int], amount: float) -> None:
    region = image.crop(box)
    image.paste(Image.blend(region, Image.new("RGB", region.size, colour), amount), box[:2])


def _trail(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    lay: Layout,
    move: Move,
    colour: tuple[int, int, int] = theme.LAST_MOVE_TRAIL,
    scale: float = 1.0,
) -> None:
    """A band from the from-square's centre to the to-square's, under the moved piece
    (``scale`` < 1: thinner, for the older of two marked moves)."""
    (x0, y0), (x1, y1) = lay.centre(move.from_square), lay.centre(move.to_square)
    half = max(2, round(lay.cell * 0.055 * scale))
    band = (min(x0, x1) - half, min(y0, y1) - half, max(x0, x1) + half, max(y0, y1) + half)
    draw.rectangle(band, fill=colour)
    for sq in path_squares(move):
        _paste(image, sprites.dot(lay.cell, (*colour, 255), 0.22 * scale), lay.box(sq))
    _paste(image, sprites.dot(lay.cell, (*colour, 255), 0.30 * scale), lay.box(move.from_square))


def _arrow(draw: ImageDraw.ImageDraw, lay: Layout, arrow: Arrow) -> None:
    """A thick arrow from the move's from-square to its to-square, its head on the to-square."""
    colour = theme.ARROW_BETTER if arrow.better else theme.ARROW_PLAYED
    (x0, y0), (x1, y1) = lay.centre(arrow.move.from_square), lay.centre(arrow.move.to_square)
    length = max(1, abs(x1 - x0) + abs(y1 - y0))
    dx, dy = (x1 - x0) / length, (y1 - y0) / length
    head = lay.cell * 0.42
    half = max(3, round(lay.cell * 0.09))
    base_x, base_y = x1 - dx * head, y1 - dy * head
    # The shaft, then the head: a triangle whose tip is a little short of the square's centre.
    px, py = -dy, dx
    draw.polygon(
        [
            (x0 + px * half, y0 + py * half),
            (base_x + px * half, base_y + py * half),
            (base_x - px * half, base_y - py * half),
            (x0 - px * half, y0 - py * half),
        ],
        fill=colour,
    )
    wing = half * 2.6
    tip_x, tip_y = x1 + dx * lay.cell * 0.12, y1 + dy * lay.cell * 0.12
    draw.polygon(
        [
            (tip_x, tip_y),
            (base_x + px * wing, base_y + py * wing),
            (base_x - px * wing, base_y - py * wing),
        ],
        fill=colour,
    )


def _king_frame(draw: ImageDraw.ImageDraw, lay: Layout, king: Square, *, danger: bool) -> None:
    """A solid red frame when the king can be taken; blue corner brackets when he can escape."""
    x0, y0, x1, y1 = lay.box(king)
    width = max(3, round(lay.cell * 0.09))
    if danger:
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), outline=theme.DANGER, width=width)
        return
    arm = lay.cell * 3 // 10
    for cx, cy, dx, dy in ((x0, y0, 1, 1), (x1 - 1, y0, -1, 1), (x0, y1 - 1, 1, -1)):
        _bracket(draw, cx, cy, dx, dy, arm, width)
    _bracket(draw, x1 - 1, y1 - 1, -1, -1, arm, width)


def _bracket(
    draw: ImageDraw.ImageDraw, x: int, y: int, dx: int, dy: int, arm: int, width: int
) -> None:
    colour = theme.ESCAPE_ROUTE
    draw.rectangle(_norm(x, y, x + dx * arm, y + dy * (width - 1)), fill=colour)
    draw.rectangle(_norm(x, y, x + dx * (width - 1), y + dy * arm), fill=colour)


def _norm(x0: int, y0: int, x1: int, y1: int) -> Box:
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


# ---------------------------------------------------------------------------- caption


def headline(scene: Scene, *, side_word: bool = True) -> tuple[Side | None, str, str]:
    """The caption: the side whose piece is shown, the big line and the small line.

    When the big line names a player, the small line says their side ("Attackers · Move
    17"), unless ``side_word`` is false (the piece drawn beside the caption shows it too)."""
    players = scene.players
    words = players.words
    details: list[str] = []
    outcome = scene.outcome
    if outcome is not None:
        winner = outcome.winner
        if winner is None:
            big = words._("No winner")
        elif winner is players.you:
            big = words._("You win")
        else:
            name = players.name_of(winner)
            if name:
                big = words._("{name} wins", name=name)
            elif winner is Side.ATTACKERS:
                big = words._("Attackers win")
            else:
                big = words._("Defenders win")
        details.append(_capitalised(short_ending(outcome, words, left_server=scene.left_server)))
        if scene.ply == 0:  # Portuguese says 0 in the singular form: "0 lance"
            # Translators: a count of none, as your language says zero ("0 lances"), not the
            # singular form "{count} move" would give.
            details.append(words._("0 moves"))
        else:
            details.append(words.n_("{count} move", "{count} moves", scene.ply))
        side = winner
    else:
        side = scene.to_move
        name = players.name_of(side)
        if side is players.you:
            big = words._("Your move")
        elif name:
            big = words._("{name} to move", name=name)
        elif side is Side.ATTACKERS:
            big = words._("Attackers to move")
        else:
            big = words._("Defenders to move")
        if side_word and (side is players.you or name):
            details.append(side_title(side, words))
        details.append(words._("Move {number}", number=scene.move_number))
        if scene.king_in_danger:
            details.append(words._("King can be captured"))
        elif scene.escape_routes:
            details.append(words._("King can escape"))
    label = set_label(players)
    if label:
        details.append(label)
    if scene.note:
        return side, big, scene.note
    return side, big, " · ".join(details)


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def text_direction(face: theme.Font) -> str | None:
    """The caption's base direction: left to right, as every language of the captions is
    written, even when a player's name written right to left comes first ("שלום to move",
    not "to move שלום"). Only the text layout with bidi (Raqm) takes one; the basic layout
    draws every line left to right anyway."""
    return "ltr" if face.layout_engine == ImageFont.Layout.RAQM else None


def caption_text(
    draw: ImageDraw.ImageDraw, lay: Layout, scene: Scene
) -> tuple[Side | None, str, str]:
    """The caption as :func:`headline` says it, made to fit the strip: names the font cannot
    draw left out, a long name cut (never the words around it, "to move", "wins"), and the
    side's word left out of a small line too long with it (a Spanish "Atacantes · Jugada 17 ·
    El rey puede ser capturado · Manga 2 de 2" lost its set to an ellipsis)."""
    big_face = theme.font(lay.px(25), bold=True)
    scene = _renamed(scene, lambda name: drawable(name, big_face))
    side, big, small = headline(scene)
    room = caption_room(lay, side)
    if draw.textlength(big, font=big_face, direction=text_direction(big_face)) > room:
        scene = _names_cut_to_fit(draw, scene, big_face, room)
        side, big, small = headline(scene)
    small_face = theme.font(lay.px(16))
    if draw.textlength(small, font=small_face, direction=text_direction(small_face)) > room:
        small = headline(scene, side_word=False)[2]
    return side, big, small


def caption_room(lay: Layout, side: Side | None) -> int:
    """How wide the caption's lines may be, beside the piece of ``side`` (if any)."""
    pad = lay.px(18)
    icon = lay.px(46) + lay.px(12) if side is not None else 0
    return lay.width - pad - icon - pad


def _caption(image: Image.Image, draw: ImageDraw.ImageDraw, lay: Layout, scene: Scene) -> None:
    side, big, small = caption_text(draw, lay, scene)
    big_face = theme.font(lay.px(25), bold=True)
    small_face = theme.font(lay.px(16))
    icon = lay.px(46)
    pad = lay.px(18)
    x = pad
    if side is not None:
        kind = Piece.ATTACKER if side is Side.ATTACKERS else Piece.KING
        sprite = sprites.piece(kind, icon)
        image.paste(sprite, (x, (lay.caption - icon) // 2), sprite)
        x += icon + lay.px(12)
    room = caption_room(lay, side)
    middle = lay.caption // 2
    draw.text(
        (x, middle - lay.px(3)),
        fit(draw, big, big_face, room),
        font=big_face,
        fill=theme.CAPTION,
        anchor="ls",
        direction=text_direction(big_face),
    )
    draw.text(
        (x, middle + lay.px(7)),
        fit(draw, small, small_face, room),
        font=small_face,
        fill=theme.CAPTION_MUTED,
        anchor="lt",
        direction=text_direction(small_face),
    )


def _names_cut_to_fit(
    draw: ImageDraw.ImageDraw, scene: Scene, face: theme.Font, room: int
) -> Scene:
    """``scene`` with its players' names cut (with an ellipsis) until the big line of the
    caption fits in ``room`` pixels, or to one letter each. When both names end in a username
    telling them apart (:func:`_told_apart`), each username is kept whole, the name before it
    cut; where even one letter of it leaves no room, the username stands alone ("@alex_w"),
    cut in turn. One name alone ending so is cut as any other: it is the member's own free
    text ("Bob (@alice)"), never shown as someone's username alone."""
    players = scene.players
    told = all(
        _told_apart(name or "")[1] for name in (players.attacker_name, players.defender_name)
    )
    tries = (scene, _renamed(scene, _username_alone)) if told else (scene,)
    cut = scene
    for renamed in tries:
        players = renamed.players
        longest = max(len(players.attacker_name or ""), len(players.defender_name or ""))
        cut = renamed
        for keep in range(longest - 1, 0, -1):
            cut = _renamed(renamed, functools.partial(_cut, keep=keep, face=face, told=told))
            line = headline(cut)[1]
            if draw.textlength(line, font=face, direction=text_direction(face)) <= room:
                return cut
    return cut


_TOLD_APART = re.compile(r"(?P<name>.*\S)(?P<tag> \(@(?P<username>[^\s()@]+)\))")
"""A name told apart from another read alike by its username: "alex (@alex_w)"."""


def _told_apart(name: str) -> tuple[str, str]:
    """``name`` as its name and the username telling it apart ("alex", " (@alex_w)"), or
    itself and "" if none does."""
    found = _TOLD_APART.fullmatch(name)
    return (found["name"], found["tag"]) if found else (name, "")


def _username_alone(name: str | None) -> str | None:
    """The username telling ``name`` apart, alone ("@alex_w"), else ``name``."""
    found = None if name is None else _TOLD_APART.fullmatch(name)
    return f"@{found['username']}" if found else name


def _cut(name: str | None, keep: int, face: theme.Font, told: bool) -> str | None:
    """``name`` cut to its first ``keep`` letters, but (``told``: both names are told apart)
    a username telling it apart kept whole: "Alexandr… (@alex_w)"."""
    if name is None:
        return None
    head, tail = _told_apart(name) if told else (name, "")
    return name if len(head) <= keep else cut_short(head[:keep], face) + tail


RIGHT_TO_LEFT_MARK = "\u200f"


def cut_short(text: str, face: theme.Font) -> str:
    """``text``, the start of a longer one, with an ellipsis where it was cut: after its last
    letter, also when that letter is written right to left. The caption's line runs left to
    right, so an ellipsis between a name's Hebrew (or Arabic) letters and the caption's own
    words would take their direction, and show at the name's start ("אברהם… to move");
    a right-to-left mark after it keeps it at the cut, the name's left end."""
    short = text.rstrip() + "…"
    if text_direction(face) is not None and _ends_right_to_left(short):
        short += RIGHT_TO_LEFT_MARK
    return short


def _ends_right_to_left(text: str) -> bool:
    """Whether the last letter of ``text`` with a direction of its own is written right to
    left (Hebrew, Arabic)."""
    for char in reversed(text):
        direction = unicodedata.bidirectional(char)
        if direction in ("R", "AL"):
            return True
        if direction == "L":
            return False
    return False


def _renamed(scene: Scene, rename: Callable[[str | None], str | None]) -> Scene:
    """``scene`` with both players' names passed through ``rename``."""
    players = scene.players
    return replace(
        scene,
        players=replace(
            players,
            attacker_name=rename(players.attacker_name),
            defender_name=rename(players.defender_name),
        ),
    )


def drawable(name: str | None, face: theme.Font) -> str | None:
    """``name`` without the characters the font cannot draw (``None`` if nothing is left).

    A combining mark goes with the letter it sits on: left out with it (Thai or Devanagari
    vowel signs, whose letters the font lacks, would otherwise be drawn on dotted circles
    beside missing-glyph boxes)."""
    if name is None:
        return None
    kept: list[str] = []
    on_letter = False
    for char in name:
        mark = unicodedata.category(char).startswith("M")
        drawn = (on_letter or not mark) and _has_glyph(face, char)
        if drawn:
            kept.append(char)
        if not mark:
            on_letter = drawn and not char.isspace()
    return " ".join("".join(kept).split()) or None


@functools.lru_cache(maxsize=4096)
def _has_glyph(face: theme.Font, char: str) -> bool:
    if not char.isprintable():
        return False
    plain = theme.glyph_font(bold="bold" in (face.getname()[1] or "").lower())
    return _mask(plain, char) != _mask(plain, "\U0010fffd")


@functools.lru_cache(maxsize=4096)
def _mask(face: theme.Font, char: str) -> tuple[tuple[int, int], bytes]:
    mask = face.getmask(char)
    return mask.size, bytes(mask)


def fit(draw: ImageDraw.ImageDraw, text: str, face: theme.Font, room: int) -> str:
    """``text``, cut with an ellipsis if it is wider than ``room`` pixels."""
    direction = text_direction(face)
    if draw.textlength(text, font=face, direction=direction) <= room:
        return text
    while text and draw.textlength(text + "…", font=face, direction=direction) > room:
        text = text[:-1]
    return cut_short(text, face)
