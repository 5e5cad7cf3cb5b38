"""What a screen reader hears for the rules card and a replay, in the five languages."""

from __future__ import annotations

import pytest

from bot.i18n import language_for
from engine import RULESETS, Game
from renderer import ALT_TEXT_LIMIT, describe_replay, describe_rules_card

LANGUAGES = ("en-US", "de", "fr", "es-ES", "pt-BR")
KING_CAPTURED = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]

ROW = {
    # (the king on, the throne, the corners, the attackers, the defenders) as each language says
    "en-US": (
        "The king is on d4.",
        "The throne is d4.",
        "a1, g1, a7 and g7",
        "Attackers (8): d1, d2, a4, b4, f4, g4, d6, d7.",
        "Defenders (4): d3, c4, e4, d5.",
    ),
    "de": (
        "Der König steht auf d4.",
        "Der Thron ist d4.",
        "a1, g1, a7 und g7",
        "Angreifer (8): d1, d2, a4, b4, f4, g4, d6, d7.",
        "Verteidiger (4): d3, c4, e4, d5.",
    ),
    "fr": (
        "Le roi est en d4.",
        "Le trône est d4.",
        "a1, g1, a7 et g7",
        "Attaquants (8) : d1, d2, a4, b4, f4, g4, d6, d7.",
        "Défenseurs (4) : d3, c4, e4, d5.",
    ),
    "es-ES": (
        "El rey está en d4.",
        "El trono es d4.",
        "a1, g1, a7 y g7",
        "Atacantes (8): d1, d2, a4, b4, f4, g4, d6, d7.",
        "Defensores (4): d3, c4, e4, d5.",
    ),
    "pt-BR": (
        "O rei está em d4.",
        "O trono é d4.",
        "a1, g1, a7 e g7",
        "Atacantes (8): d1, d2, a4, b4, f4, g4, d6, d7.",
        "Defensores (4): d3, c4, e4, d5.",
    ),
}


@pytest.mark.parametrize("locale", LANGUAGES)
def test_the_rules_card_alt_text_says_where_every_piece_and_special_square_is(locale: str) -> None:
    """The rules card's alt text names the king's, the throne's and the corners' squares and
    every attacker and defender by square, in the reader's language."""
    text = describe_rules_card("brandubh", words=language_for(locale))
    for part in ROW[locale]:
        assert part in text, (part, text)


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_the_rules_card_alt_text_fits_discords_limit_untruncated(name: str) -> None:
    """Every ruleset's card, 15x15 too, is described whole within 1024 characters in every
    language: the legend's last sentence ends it."""
    for locale in LANGUAGES:
        words = language_for(locale)
        text = describe_rules_card(name, words=words)
        assert len(text) <= ALT_TEXT_LIMIT
        capture = words._("Capture: trap an enemy between two of yours in a line.")
        assert text.endswith(capture), text


RESULT = {
    "en-US": "alice (attackers) wins: the king was captured. 5 moves were played. Moves: ",
    "de": "alice (Angreifer) gewinnt: Der König wurde geschlagen. 5 Züge wurden gespielt. Züge: ",
    "fr": "alice (attaquants) gagne : le roi a été pris. 5 coups ont été joués. Coups : ",
    "es-ES": "Gana alice (atacantes): el rey fue capturado. Se hicieron 5 jugadas. Jugadas: ",
    "pt-BR": "alice (atacantes) vence: o rei foi capturado. 5 lances foram jogados. Lances: ",
}


@pytest.mark.parametrize("locale", LANGUAGES)
def test_a_replays_alt_text_gives_the_result_and_the_moves(locale: str) -> None:
    """A replay's alt text says who won and how, how many moves, and the moves in order."""
    game = Game.from_moves(KING_CAPTURED)
    text = describe_replay(
        game, attacker_name="alice", defender_name="bob", words=language_for(locale)
    )
    assert text == RESULT[locale] + "d1-b1, c4-c2, b4-b5, d4-b4, b1-b3."


def test_a_long_replays_move_list_is_cut_at_a_move_within_the_limit() -> None:
    """A game too long to list whole ends its list with "…" after a whole move, within
    ``limit``; its result and move count stay."""
    game = Game()
    while game.outcome is None:
        game.play(sorted(game.legal_moves(), key=str)[game.ply % 3])
    assert game.ply > 20
    text = describe_replay(game, words=language_for("de"), limit=200)
    assert len(text) <= 200
    assert f"{game.ply} Züge wurden gespielt." in text
    assert text.endswith(", ….")
    listed = text.split("Züge: ")[1].removesuffix(", ….").split(", ")
    assert listed == [str(record.move) for record in game.records][: len(listed)]
