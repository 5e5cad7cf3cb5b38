"""The /stats embed (bot/cogs/standings.py) within Discord's limits."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.cogs.standings import game_line, stats_embed
from bot.i18n import language
from bot.services.domain import GameSummary, PlayerStats
from bot.views.games import EMBED_FIELD_LIMIT
from engine import Outcome, Reason, Side

ALICE, COMPUTER = 1_234_567_890_123_456_789, 1_234_567_890_123_456_790
STARTED = datetime(2026, 11, 27, tzinfo=UTC)
LANGUAGES = ("en", "de", "fr", "es", "pt_BR")


def lost_on_time(set_id: int) -> GameSummary:
    """alice's set against the computer, lost on time before her first move (unrated)."""
    return GameSummary(
        set_id=set_id,
        match_id=set_id,
        set_number=1,
        ruleset="brandubh",
        attacker_id=ALICE,
        defender_id=COMPUTER,
        outcome=Outcome(Side.DEFENDERS, Reason.TIMEOUT),
        winner_id=COMPUTER,
        moves=0,
        started_at=STARTED,
        finished_at=STARTED,
        rated=False,
        computer_id=COMPUTER,
        computer_level=5,
        no_show=True,
    )


def test_recent_games_never_pass_discords_field_limit() -> None:
    """Five lines too long together (a bot name of characters that need escaping) are cut to
    what fits in one embed field, in every language."""
    games = tuple(lost_on_time(10**12 + n) for n in range(5))
    stats = PlayerStats(1, ALICE, "alice", None, games)
    name = "_*" * 100  # longer than Discord allows a name: the cut must hold whatever comes
    longest = max(
        sum(len(game_line(game, ALICE, name, language(tag))) + 1 for game in games)
        for tag in LANGUAGES
    )
    assert longest > EMBED_FIELD_LIMIT, "the five lines would not pass the limit uncut"
    for tag in LANGUAGES:
        embed = stats_embed(stats, None, ALICE, computer_name=name, lang=language(tag))
        for field in embed.fields:
            assert len(field.value or "") <= EMBED_FIELD_LIMIT, (tag, field.name)
        assert any(str(10**12) in (field.value or "") for field in embed.fields), tag
