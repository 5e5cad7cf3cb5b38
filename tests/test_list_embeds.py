"""/games (with its challenges waiting for an opponent), the whole waiting list and
/leaderboard at their fullest — ten entries a page, every name 32 characters that all need
escaping, the longest ruleset title, a server name of 100 such characters — within Discord's
limits in every language, as the stand-in checks an embed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.i18n import language
from bot.services.domain import (
    Challenge,
    GameInProgress,
    GamesPage,
    LeaderboardPage,
    Standing,
    WaitingChallenges,
)
from bot.views.games import games_embed
from bot.views.leaderboard import leaderboard_embed
from bot.views.waiting import waiting_embed
from engine import RULESETS, Side
from tests.discord_standin.messages import MAX_EMBEDS_TOTAL, validate_embed

LANGUAGES = ("en", "de", "fr", "es", "pt_BR")
ID = 1_576_502_256_558_145_540
"""A snowflake of 19 digits, as ids are now."""
LONG_NAME = "\u05d0" + "\\" * 31
"""32 characters escaped to 64, written right to left (isolated: two more)."""
SERVER = "\\" * 100
NOW = datetime(2026, 11, 29, tzinfo=UTC)


def longest_ruleset(tag: str) -> str:
    """The ruleset whose title is longest in the language ``tag``."""
    lang = language(tag)
    return max(RULESETS, key=lambda name: len(lang.gettext(RULESETS[name].title)))


def checked(embed: Any) -> int:
    """The embed's characters, as Discord counts them; the stand-in refuses it past a limit."""
    total = validate_embed(0, embed.to_dict())
    assert total <= MAX_EMBEDS_TOTAL
    return total


@pytest.mark.parametrize("tag", LANGUAGES)
def test_a_full_page_of_games_and_waiting_challenges_fits(tag: str) -> None:
    """A /games page of ten two-set matches at move 300 (half against the computer, named at
    length too), its player named, with ten challenges waiting below and the line saying some
    games are left out, is an embed Discord takes, every game on it listed."""
    ruleset = longest_ruleset(tag)
    names = {ID + n: LONG_NAME for n in range(40)}
    games = tuple(
        GameInProgress(
            set_id=ID + n,
            match_id=ID + n,
            channel_id=ID + n,
            ruleset=ruleset,
            set_number=2,
            sets_total=2,
            attacker_id=ID + n,
            defender_id=ID + 20 + n,
            ply=299,
            to_move_id=ID + n,
            computer_id=ID + 20 + n if n % 2 else None,
            computer_level=5,
        )
        for n in range(10)
    )
    page = GamesPage(ID, ID, offset=50, limit=10, total=60, games=games)
    waiting = WaitingChallenges(challenges=waiting_challenges(ruleset), total=200)
    embed, _ = games_embed(page, names, SERVER, language(tag), waiting, unanswered=True)
    checked(embed)
    assert all(f"<#{game.channel_id}>" in (embed.description or "") for game in games)


@pytest.mark.parametrize("tag", LANGUAGES)
def test_a_full_page_of_the_waiting_list_shows_all_ten(tag: str) -> None:
    """A page of the whole waiting list (of 200) shows its ten challenges, within the limits."""
    challenges = waiting_challenges(longest_ruleset(tag))
    waiting = WaitingChallenges(challenges=challenges, total=200, offset=100)
    names = {ID + n: LONG_NAME for n in range(10)}
    embed, shown = waiting_embed(waiting, names, SERVER, language(tag))
    checked(embed)
    assert shown == 10


@pytest.mark.parametrize("tag", LANGUAGES)
def test_a_full_leaderboard_page_with_the_askers_line_fits(tag: str) -> None:
    """A /leaderboard page of ten players, and the asker's own line below it, fits."""
    rows = tuple(
        Standing(
            rank=100_000 + n,
            user_id=ID + n,
            display_name=LONG_NAME,
            rating=1234.5,
            deviation=200.0,
            games=99_999,
            wins=99_999,
            losses=99_999,
            draws=99_999,
            matches_won=99_999,
        )
        for n in range(11)
    )
    page = LeaderboardPage(
        ID,
        offset=99_999,
        limit=10,
        total=1_000_000,
        rows=rows[:10],
        ruleset=longest_ruleset(tag),
        viewer_id=ID + 10,
        viewer=rows[10],
    )
    embed = leaderboard_embed(page, SERVER, language(tag))
    checked(embed)
    assert (embed.description or "").count("\n") == 11


def waiting_challenges(ruleset: str) -> tuple[Challenge, ...]:
    """Ten challenges open to anyone, of two sets and a week a move."""
    return tuple(
        Challenge(
            challenge_id=ID + n,
            guild_id=ID,
            channel_id=ID + n,
            challenger_id=ID + n,
            opponent_id=None,
            ruleset=ruleset,
            sets_total=2,
            challenger_side=Side.DEFENDERS,
            time_per_move=timedelta(days=6, hours=23, minutes=59),
            created_at=NOW,
            expires_at=NOW,
            message_id=ID + n,
        )
        for n in range(10)
    )
