"""The pictures in other languages: German captions fit their strip, alt text is translated."""

from __future__ import annotations

import io
import itertools
from dataclasses import replace

import pytest
from PIL import Image, ImageDraw

from bot.i18n import language_for
from engine import RULESETS, Game, Outcome, Reason, Side
from renderer import describe_board, drawing, render_board, render_rules_card, theme
from renderer.drawing import _names_cut_to_fit, fit, headline, layout
from renderer.scene import Players, Scene, scene_of

LANGUAGES = ("en-US", "pt-BR", "es-ES", "fr", "de")
ENDINGS = [
    Outcome(winner, reason)
    for winner, reason in itertools.product(Side, Reason)
    if reason is not Reason.ABORTED
] + [Outcome(None, Reason.ABORTED)]


def _captions(locale: str) -> list[tuple[Side | None, str, str]]:
    """Every caption a 7x7 board can carry: each ending, each side to move with each mark."""
    words = language_for(locale)
    return [headline(scene) for scene in _scenes(Players(set_number=2, sets_total=2, words=words))]


def _scenes(players: Players) -> list[Scene]:
    """Every scene with a caption of its own on a 7x7 board, for ``players``."""
    base = scene_of(Game(), players)
    scenes: list[Scene] = [replace(base, outcome=ending, ply=188) for ending in ENDINGS]
    scenes += [  # lost by a player who left the server (recorded as lost on time)
        replace(base, outcome=Outcome(winner, Reason.TIMEOUT), ply=188, left_server=True)
        for winner in Side
    ]
    for side, danger, routes in itertools.product(Side, (False, True), (False, True)):
        scenes.append(
            replace(
                base,
                to_move=side,
                ply=199,
                king_in_danger=danger,
                escape_routes=(base.king,) if routes and base.king is not None else (),
            )
        )
    return scenes


@pytest.mark.parametrize("locale", LANGUAGES)
def test_the_longest_caption_fits_the_strip(locale: str) -> None:
    """No caption line is cut short at the default width (the longest translation of each)."""
    width = theme.default_width(7)
    lay = layout(7, width)
    draw = ImageDraw.Draw(Image.new("RGB", (width, lay.caption)))
    big_face = theme.font(lay.px(25), bold=True)
    small_face = theme.font(lay.px(16))
    pad, icon = lay.px(18), lay.px(46)
    for side, big, small in _captions(locale):
        x = pad + (icon + lay.px(12) if side is not None else 0)
        room = width - x - pad
        assert fit(draw, big, big_face, room) == big, f"{locale}: {big!r} is cut"
        assert fit(draw, small, small_face, room) == small, f"{locale}: {small!r} is cut"


@pytest.mark.parametrize("width", [360, theme.default_width(7)], ids=["phone", "default"])
@pytest.mark.parametrize("locale", LANGUAGES)
def test_the_small_line_with_names_keeps_the_set(locale: str, width: int) -> None:
    """With players' names (the side's word joins the small line) the small line is not cut:
    "Set 2 of 2" is still shown, at a phone's width too."""
    lay = layout(7, width)
    draw = ImageDraw.Draw(Image.new("RGB", (width, lay.caption)))
    small_face = theme.font(lay.px(16))
    words = language_for(locale)
    label = words._("Set {number} of {total}", number=2, total=2)
    for you in (None, Side.ATTACKERS, Side.DEFENDERS):
        players = Players("A" * 32, "D" * 32, 2, 2, words, you)
        for scene in _scenes(players):
            side, _big, small = drawing.caption_text(draw, lay, scene)
            room = drawing.caption_room(lay, side)
            assert fit(draw, small, small_face, room) == small, f"{locale}: {small!r} is cut"
            assert small.endswith(label), small


def test_german_caption_is_drawn_in_german() -> None:
    """The German picture differs from the English one, and its alt text is German."""
    game = Game.from_moves(["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"])
    german = language_for("de")
    png = render_board(game, set_number=2, sets_total=2, words=german)
    assert png != render_board(game, set_number=2, sets_total=2)
    with Image.open(io.BytesIO(png)) as image:
        assert image.size[0] == theme.default_width(7)
    alt = describe_board(game, set_number=2, sets_total=2, words=german)
    assert alt.startswith("Brett für Brandubh (World Tafl Federation), 7x7.")
    assert "Die Angreifer gewinnen: Der König wurde geschlagen." in alt
    assert "Satz 2 von 2." in alt


def test_rules_card_in_portuguese() -> None:
    """The rules card draws its legend in the requested language (a different picture)."""
    portuguese = language_for("pt-BR")
    assert render_rules_card("brandubh", words=portuguese) != render_rules_card("brandubh")


def test_alt_text_names_no_english_words_in_portuguese() -> None:
    """A Portuguese alt text of a board in play carries no English sentence."""
    game = Game.from_moves(["d1-b1", "c4-c2"])
    alt = describe_board(
        game, attacker_name="Ana", defender_name="Bia", words=language_for("pt-BR")
    )
    assert "Vez de Ana (atacantes), lance 3." in alt
    for english in ("move", "board", "king", "Last", "Attackers", "Defenders"):
        assert english not in alt, alt


@pytest.mark.parametrize("locale", LANGUAGES)
def test_rules_card_legend_fits(locale: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every line of every ruleset's card is drawn uncut, on its own board's width (the 15x15
    card cut "Capture: trap an enemy between two of yours in a li…")."""
    cut: list[str] = []

    def watched_fit(draw: ImageDraw.ImageDraw, text: str, face: theme.Font, room: int) -> str:
        shown = fit(draw, text, face, room)
        if shown != text:
            cut.append(text)
        return shown

    monkeypatch.setattr(drawing, "fit", watched_fit)
    for name in RULESETS:
        render_rules_card(name, words=language_for(locale))
        assert not cut, f"{locale}, {name}: {cut} cut"


@pytest.mark.parametrize("locale", LANGUAGES)
def test_a_long_name_is_cut_but_never_the_verb(locale: str) -> None:
    """With 32-character names (Discord's longest) the caption cuts the name, keeping "to
    move" and "wins" (an attack run saw "Maximiliane Schwarzenberger…" with "gewinnt" gone)."""
    words = language_for(locale)
    width = theme.default_width(7)
    lay = layout(7, width)
    draw = ImageDraw.Draw(Image.new("RGB", (width, lay.caption)))
    big_face = theme.font(lay.px(25), bold=True)
    room = width - lay.px(18) - lay.px(46) - lay.px(12) - lay.px(18)
    name = "Maximiliane Schwarzenberger-Hoh"
    players = Players(attacker_name=name, defender_name=name, words=words)
    base = scene_of(Game(), players)
    for scene in (base, replace(base, outcome=Outcome(Side.ATTACKERS, Reason.KING_CAPTURED))):
        whole = headline(scene)[1]
        assert draw.textlength(whole, font=big_face) > room, "the name must be too long here"
        cut = headline(_names_cut_to_fit(draw, scene, big_face, room))[1]
        assert draw.textlength(cut, font=big_face) <= room
        words_around = [part.strip() for part in whole.split(name) if part.strip()]
        assert words_around
        assert all(part in cut for part in words_around), (locale, cut)
        assert "…" in cut


@pytest.mark.parametrize(
    ("locale", "small", "alt"),
    [
        ("en-US", "Defenders left the server", "carol (attackers) wins: the defenders left the"),
        ("de", "Verteidiger: Server verlassen", "carol (Angreifer) gewinnt: Die Verteidiger haben"),
        ("fr", "Défenseurs hors du serveur", "les défenseurs ont quitté le serveur."),
        ("es-ES", "El rival dejó el servidor", "los defensores han dejado el servidor."),
        ("pt-BR", "Defensores saíram do servidor", "os defensores saíram do servidor."),
    ],
)
def test_a_set_lost_by_leaving_the_server_says_so_not_out_of_time(
    locale: str, small: str, alt: str
) -> None:
    """bob (defending) left the server after carol's first move, and the set is recorded as
    lost on time: the caption and the alt text say he left, not that his time ran out."""
    words = language_for(locale)
    game = Game.from_moves(["d1-b1"])
    game.time_out(Side.DEFENDERS)
    players = Players("carol", "bob", 1, 2, words)
    line = headline(scene_of(game, players, left_server=True))[2]
    assert line.startswith(f"{small} · "), line
    assert line != headline(scene_of(game, players))[2]
    text = describe_board(
        game,
        attacker_name="carol",
        defender_name="bob",
        set_number=1,
        sets_total=2,
        words=words,
        left_server=True,
    )
    assert alt in text, text
    left = render_board(game, attacker_name="carol", words=words, left_server=True)
    assert left != render_board(game, attacker_name="carol", words=words)
