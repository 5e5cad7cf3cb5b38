"""What a player typed, repeated in a refusal, is shown as typed: never as Discord Markdown, a
mention or a link."""

from __future__ import annotations

import pytest

from bot.i18n.text import engine_sentence
from bot.i18n.typed import ZERO_WIDTH_SPACE, as_shown
from bot.services.errors import InvalidOption
from bot.services.settings import check_ruleset
from engine import IllegalMoveError, Move


def test_plain_text_is_shown_unchanged() -> None:
    """Text without markup (a move, a word, digits) comes back as it is."""
    for text in ("d1-d3", "move my king", "12 d3", "d1 to d3"):
        assert as_shown(text) == text


def test_a_typed_backslash_stays_visible() -> None:
    """``\\*a4\\*`` typed is shown with its backslashes, not as ``*a4*``."""
    assert as_shown(r"\*a4\*") == r"\\\*a4\\\*"


@pytest.mark.parametrize(
    ("typed", "shown"),
    [
        ("# d1", r"\# d1"),
        ("-# d1", r"\-# d1"),
        ("> d1", r"\> d1"),
        ("- d1", r"\- d1"),
        ("1. d1", r"1\. d1"),
        ("d1\n## d3", "d1\n\\## d3"),
    ],
)
def test_markup_at_a_line_start_is_escaped(typed: str, shown: str) -> None:
    """A heading, subtext, quote or list at the start of a line is shown as its characters."""
    assert as_shown(typed) == shown


def test_pings_mentions_and_links_are_inert() -> None:
    """``@everyone``, a user mention, a masked link and a bare link come back as text."""
    assert as_shown("@everyone") == "@" + ZERO_WIDTH_SPACE + "everyone"
    assert as_shown("<@123456789012345678>").startswith("\\<@")
    assert as_shown("[d1](https://e.vil)") == "\\[d1](https:" + ZERO_WIDTH_SPACE + "//e.vil)"


def test_right_to_left_text_is_isolated_as_names_are() -> None:
    """Hebrew or Arabic typed is set between U+2068 and U+2069 (its direction would pull in the
    quote after it), and its direction controls are taken out; left-to-right text is not."""
    assert as_shown("שלום") == "\u2068שלום\u2069"
    assert as_shown("d1 سلام") == "\u2068d1 سلام\u2069"
    assert as_shown("\u2069\u202eסוף") == "\u2068סוף\u2069"
    assert as_shown("d1\u202e-d3") == "d1-d3"


def test_a_move_typed_right_to_left_is_repeated_isolated() -> None:
    """A Hebrew move's refusal repeats it isolated, so its quotes stay around it."""
    with pytest.raises(IllegalMoveError) as info:
        Move.parse("ד1-ד3", 7)
    shown = str(engine_sentence(info.value))
    assert shown.startswith("'\u2068ד1-ד3\u2069' is not a move"), shown


def test_an_engine_refusal_keeps_the_plain_text_and_shows_it_escaped() -> None:
    """The engine's English sentence repeats the text as typed; the bot's escapes it."""
    with pytest.raises(IllegalMoveError) as info:
        Move.parse("**a4**", 7)
    assert str(info.value).startswith("'**a4**' is not a move")
    assert str(engine_sentence(info.value)).startswith(r"'\*\*a4\*\*' is not a move")


def test_a_service_refusal_shows_a_typed_name_escaped() -> None:
    """A ruleset name typed with Markdown is repeated escaped in the services' refusal."""
    with pytest.raises(InvalidOption) as info:
        check_ruleset("||brandubh||")
    assert str(info.value.text).startswith(r"There is no ruleset called '\|\|brandubh\|\|'")
