"""A picture for ``/rules``: the starting position and a legend of pieces and special squares."""

from __future__ import annotations

from PIL import Image, ImageDraw

from engine import Escape, Game, Piece, Ruleset, get_ruleset, square_name
from renderer import drawing, fixed_palette, sprites, theme
from renderer.scene import Players, scene_of, squares_text
from renderer.text import ALT_TEXT_LIMIT, piece_lists
from renderer.words import ENGLISH, Words


def legend(ruleset: Ruleset, game: Game, words: Words = ENGLISH) -> list[tuple[str, str]]:
    """(icon, sentence) rows; the icon names a sprite."""
    counts = {kind: 0 for kind in Piece}
    for kind in game.pieces().values():
        counts[kind] += 1
    if ruleset.escape is Escape.CORNERS:
        goal = words._("The king wins by reaching a corner.")
    else:
        goal = words._("The king wins by reaching any edge square.")
    rows = [
        (
            "attacker",
            words._(
                "Attackers ({count}): move first; capture the king.",
                count=counts[Piece.ATTACKER],
            ),
        ),
        (
            "defender",
            words._(
                "Defenders ({count}): clear the way for the king.",
                count=counts[Piece.DEFENDER],
            ),
        ),
        ("king", goal),
    ]
    if ruleset.throne and ruleset.corners_restricted:
        rows.append(("restricted", words._("Throne and corners: only the king may stop there.")))
    elif ruleset.throne:
        rows.append(("restricted", words._("The throne (centre): only the king may stop there.")))
    if ruleset.escape is Escape.EDGE:
        rows.append(("edge", words._("Edge squares: the king escapes on any of them.")))
    rows.append(("capture", words._("Capture: trap an enemy between two of yours in a line.")))
    return rows


def describe_rules_card(ruleset: str | Ruleset = "brandubh", *, words: Words = ENGLISH) -> str:
    """Alt text for :func:`render_rules_card`'s picture (≤ 1024 chars): the board, where the
    king, every attacker and defender and the special squares stand, then the legend."""
    rules = get_ruleset(ruleset)
    game = Game(rules)
    scene = scene_of(game, Players(words=words))
    parts = [
        words._(
            "The starting position of {ruleset}, with its special squares.",
            ruleset=words.gettext(rules.title),
        )
    ]
    if scene.king is not None:
        parts.append(words._("The king is on {square}.", square=square_name(scene.king)))
    parts += piece_lists(scene)
    if game.throne is not None:
        parts.append(words._("The throne is {square}.", square=square_name(game.throne)))
    if game.corners:
        parts.append(
            words._("The corners are {squares}.", squares=squares_text(sorted(game.corners), words))
        )
    parts += [sentence for _, sentence in legend(rules, game, words)[2:]]
    return " ".join(parts)[:ALT_TEXT_LIMIT]


def render_rules_card(
    ruleset: str | Ruleset = "brandubh", *, width: int | None = None, words: Words = ENGLISH
) -> bytes:
    """A PNG: the ruleset's starting position with a legend and its summary underneath, in the
    language of ``words`` (English by default)."""
    rules = get_ruleset(ruleset)
    with drawing.DRAWING_LOCK:
        card = _draw_card(rules, width, words)
    image = card.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    return fixed_palette.png_bytes(image)


def _draw_card(rules: Ruleset, width: int | None, words: Words) -> Image.Image:
    game = Game(rules)
    size = width if width is not None else theme.default_width(rules.size)
    board = drawing.compose(scene_of(game, Players(words=words)), size)
    lay = drawing.layout(rules.size, size)
    draw = ImageDraw.Draw(board)
    draw.rectangle((0, 0, size, lay.caption - 2), fill=theme.FRAME)
    title = words.gettext(rules.title)
    # A long title ("Brandubh (regras históricas do hnefatafl)") is set smaller, not cut.
    points = 25
    title_face = theme.font(lay.px(points), bold=True)
    while points > 18 and draw.textlength(title, font=title_face) > size - 2 * lay.px(18):
        points -= 1
        title_face = theme.font(lay.px(points), bold=True)
    small_face = theme.font(lay.px(16))
    pad = lay.px(18)
    room = size - 2 * pad
    middle = lay.caption // 2
    draw.text(
        (pad, middle - lay.px(3)),
        drawing.fit(draw, title, title_face, room),
        font=title_face,
        fill=theme.CAPTION,
        anchor="ls",
    )
    draw.text(
        (pad, middle + lay.px(7)),
        words._("{size}x{size} · the rules at a glance", size=rules.size),
        font=small_face,
        fill=theme.CAPTION_MUTED,
        anchor="lt",
    )

    icon = lay.px(40)
    text_face = theme.font(lay.px(17))
    line_height = lay.px(24)
    gap = lay.px(10)
    beside = room - icon - lay.px(12)
    # Each row of the legend beside its icon, on two lines where one is too short (a German
    # sentence, or a big board's card, where it used to be cut off with an ellipsis).
    rows = [
        (name, _wrap(draw, sentence, text_face, beside))
        for name, sentence in legend(rules, game, words)
    ]
    heights = [max(icon, len(lines) * line_height) for _, lines in rows]
    # The summary as legible as the legend above it (at a phone's 360 px, grey 16 px text on
    # the brown frame was the hardest to read of the card).
    summary = _wrap(draw, words.gettext(rules.summary), text_face, room)
    extra = pad + sum(heights) + gap * len(rows) + pad // 2 + len(summary) * line_height + pad
    card = Image.new("RGB", (size, lay.height + extra), theme.FRAME)
    card.paste(board, (0, 0))
    draw = ImageDraw.Draw(card)
    y = lay.height + pad // 2
    for (name, lines), height in zip(rows, heights, strict=True):
        sprite = _icon(name, icon)
        card.paste(sprite, (pad, y + (height - icon) // 2), sprite)
        top = y + height // 2 - len(lines) * line_height // 2
        for number, line in enumerate(lines):
            draw.text(
                (pad + icon + lay.px(12), top + number * line_height + line_height // 2),
                drawing.fit(draw, line, text_face, beside),
                font=text_face,
                fill=theme.CAPTION,
                anchor="lm",
            )
        y += height + gap
    y += pad // 2
    for line in summary:
        draw.text((pad, y), line, font=text_face, fill=theme.CAPTION, anchor="la")
        y += line_height
    return card


def _icon(name: str, size: int) -> Image.Image:
    if name == "attacker":
        return sprites.piece(Piece.ATTACKER, size)
    if name == "defender":
        return sprites.piece(Piece.DEFENDER, size)
    if name == "king":
        return sprites.piece(Piece.KING, size)
    if name == "restricted":
        return sprites.restricted(size, throne=False)
    if name == "edge":
        return sprites.square_tile(size, theme.ESCAPE_EDGE)
    return sprites.capture_diagram(size)


def _wrap(draw: ImageDraw.ImageDraw, text: str, face: theme.Font, room: int) -> list[str]:
    """``text`` broken into lines at most ``room`` pixels wide."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}".strip()
        if line and draw.textlength(candidate, font=face) > room:
            lines.append(line)
            line = word
        else:
            line = candidate
    if line:
        lines.append(line)
    return lines
