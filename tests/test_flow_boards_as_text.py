"""Boards shown as text where I may not attach files: the alt text fits one message."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import discord
import pytest

from bot.flow.posts import MESSAGE_LIMIT, describe_move, pictures_as_text, turn_line
from bot.i18n import Language, languages
from bot.services.domain import ActiveGame
from engine import RULESETS, Game
from renderer import ALT_TEXT_LIMIT, describe_board

LONGEST_NAME = "_*" * 16
"""A 32-character display name (Discord's longest) that escaping doubles."""


def set_two(ruleset: str) -> ActiveGame:
    """Set 2 of 2 in ``ruleset``, a few moves in."""
    game = Game(ruleset)
    for _ in range(3):
        game.play(next(iter(game.legal_moves())))
    now = datetime(2026, 11, 27, tzinfo=UTC)
    return ActiveGame(
        set_id=1,
        match_id=1,
        guild_id=1,
        channel_id=1,
        set_number=2,
        sets_total=2,
        ruleset=ruleset,
        attacker_id=10**18,
        defender_id=10**18 + 1,
        time_per_move=timedelta(days=1),
        deadline=now,
        reminder_at=now,
        started_at=now,
        game=game,
    )


def picture(active: ActiveGame, lang: Language) -> discord.File:
    """A board's file as a board post makes it: its alt text is the description."""
    alt = describe_board(
        active.game,
        attacker_name=LONGEST_NAME,
        defender_name=LONGEST_NAME,
        set_number=active.set_number,
        sets_total=active.sets_total,
        words=lang,
    )
    return discord.File(io.BytesIO(b""), filename="board.png", description=alt[:ALT_TEXT_LIMIT])


def post_text(active: ActiveGame, lang: Language) -> str:
    """A move's post: what was played, and whose turn it is."""
    last = active.game.last_record
    assert last is not None
    return describe_move(last, LONGEST_NAME, lang) + "\n" + turn_line(active, lang)


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_two_boards_as_text_fit_one_message_in_every_preset_and_language(ruleset: str) -> None:
    """A set's last board and the next set's first, shown as text in one answer (the longest
    case, at a set change), keep both alt texts and stay within Discord's 2000 characters,
    15x15 included, with the longest names."""
    active = set_two(ruleset)
    for lang in languages():
        content = post_text(active, lang) + "\n" + post_text(active, lang)
        files = [picture(active, lang), picture(active, lang)]
        shown = pictures_as_text(content, files, lang)
        assert len(shown) <= MESSAGE_LIMIT, (lang.tag, len(shown))
        for file in files:
            assert f"\n> {file.description}" in shown


def test_a_board_too_long_as_text_says_so_and_points_to_board() -> None:
    """Were the alt texts too long for one message, one line says so and names /board."""
    lang = languages()[0]
    long = discord.File(io.BytesIO(b""), filename="board.png", description="x" * ALT_TEXT_LIMIT)
    shown = pictures_as_text("A move was played.", [long, long], lang)
    assert shown.startswith("A move was played.\nThe board is too long to show as text here: ")
    assert "/board" in shown
    assert "xxx" not in shown
