"""Display names in the bot's text: inert Markdown and mentions, and isolated when they could
turn the rest of the line around."""

from __future__ import annotations

from bot.flow.threads import thread_name
from bot.names import escaped


def test_a_plain_name_is_shown_as_it_is() -> None:
    """A left-to-right name without Markdown comes back unchanged."""
    assert escaped("alice") == "alice"


def test_markdown_and_mentions_are_inert() -> None:
    """Bold, a user mention and @everyone come back escaped."""
    shown = escaped("**x** <@123456789012345678> @everyone")
    assert "**" not in shown.replace("\\*\\*", "")
    assert "@everyone" not in shown
    assert "<@123456789012345678>" not in shown


def test_direction_controls_are_taken_out() -> None:
    """A name holding U+202E (right-to-left override), or a pop isolate that would close the
    isolate around it early, loses those controls: the words after it keep their direction."""
    assert escaped("abc\u202egnp") == "abcgnp"
    assert escaped("\u2069\u202eevil") == "evil"
    assert escaped("\u2069\u202eסוף") == "\u2068סוף\u2069"


def test_a_name_in_a_right_to_left_script_is_isolated() -> None:
    """An Arabic or Hebrew name is isolated too (its direction would otherwise pull in the
    punctuation that follows it)."""
    assert escaped("سارة") == "\u2068سارة\u2069"
    assert escaped("דנה") == "\u2068דנה\u2069"


def test_a_thread_name_loses_direction_controls_too() -> None:
    """The thread of a game between such names reads left to right after them."""
    assert thread_name("\u202eevil", "bob", "brandubh").startswith("evil vs bob · ")
