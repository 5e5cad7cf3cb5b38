"""The /stats embed (bot/cogs/standings.py) within Discord's limits."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from bot.cogs.standings import game_line, stats_embed
from bot.i18n import language
from bot.services.domain import GameSummary, HeadToHead, LeaderboardPage, PlayerStats, Standing
from bot.views.common import EMBED_FIELD_LIMIT
from bot.views.leaderboard import leaderboard_embed
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
    """Five lines too long together for one embed field (a bot name of characters that need
    escaping) are spread over the fields they need, each within the limit, none left out, in
    every language."""
    games = tuple(lost_on_time(10**12 + n) for n in range(5))
    stats = PlayerStats(1, ALICE, "alice", None, games)
    name = "_*" * 100  # longer than Discord allows a name: the fields must hold whatever comes
    longest = max(
        sum(len(game_line(game, ALICE, name, language(tag))) + 1 for game in games)
        for tag in LANGUAGES
    )
    assert longest > EMBED_FIELD_LIMIT, "the five lines would not pass the limit uncut"
    for tag in LANGUAGES:
        embed = stats_embed(stats, None, ALICE, computer_name=name, lang=language(tag))
        for field in embed.fields:
            assert len(field.value or "") <= EMBED_FIELD_LIMIT, (tag, field.name)
        shown = "\n".join(field.value or "" for field in embed.fields)
        for game in games:
            assert f" {game.set_id}" in shown, (tag, game.set_id)


def test_five_recent_games_against_long_names_are_all_listed() -> None:
    """alice's five latest sets, each lost to a player of 32 characters to escape who left
    the server before moving (the line names them twice), are all listed, in order, in every
    language, the embed within Discord's 6,000 characters; none is dropped to fit a field."""
    bob = ALICE + 10
    games = tuple(
        dataclasses.replace(
            lost_on_time(10**12 + n),
            ruleset="hnefatafl-13",
            defender_id=bob,
            winner_id=bob,
            computer_id=None,
            computer_level=None,
            moves=300,
            left_server=True,
        )
        for n in range(5)
    )
    long_name = "\u05d0" + "\\" * 31  # right to left, then 31 characters Markdown escapes
    names = {ALICE: long_name, bob: long_name}
    stats = PlayerStats(1, ALICE, long_name, None, games, "brandubh", names)
    for tag in LANGUAGES:
        embed = stats_embed(stats, None, bob, lang=language(tag))
        values = [field.value or "" for field in embed.fields]
        assert all(len(value) <= EMBED_FIELD_LIMIT for value in values), tag
        listed = [line for value in values for line in value.splitlines()]
        assert [line.rsplit(" ", 1)[-1] for line in listed] == [
            str(game.set_id) for game in games
        ], tag
        assert len(embed) <= 6000, tag


def test_a_game_of_another_ruleset_is_named() -> None:
    """/stats of brandubh lists alice's recent games of every ruleset: one of Tablut says so,
    one of brandubh does not repeat the title above it."""
    tablut = dataclasses.replace(lost_on_time(7), ruleset="tablut")
    brandubh = lost_on_time(8)
    stats = PlayerStats(1, ALICE, "alice", None, (tablut, brandubh))
    embed = stats_embed(stats, None, ALICE)
    [recent] = [field.value or "" for field in embed.fields if field.name == "Recent games"]
    first, second = recent.splitlines()
    assert first.endswith(" · Tablut (9x9) · game 7"), first
    assert second.endswith(") · game 8"), second


def test_the_head_to_head_says_who_won_the_matches() -> None:
    """Under the sets, the head to head says how many matches each won (one won by nobody, as
    one of no-show sets, counted for neither)."""
    bob = ALICE + 2
    head = HeadToHead(1, (ALICE, bob), 4, (3, 1), 0, 2, (1, 0))
    stats = PlayerStats(1, bob, "bob", None, (), names={ALICE: "alice"})
    embed = stats_embed(stats, head, ALICE)
    [value] = [field.value for field in embed.fields if field.name == "Head to head with alice"]
    assert value == "alice won 3, bob won 1 (4 sets, 2 matches)\nMatches: alice won 1, bob won 0"


def test_the_head_to_head_of_a_match_nobody_played_shows_its_match() -> None:
    """A pair whose only finished match was of sets nobody played (0 sets counted) still
    reads their head to head, naming the match and that nobody won it; a set played of a
    match still going on shows it too; without either there is none."""
    bob = ALICE + 2
    stats = PlayerStats(1, bob, "bob", None, (), names={ALICE: "alice"})
    head = HeadToHead(1, (ALICE, bob), 0, (0, 0), 0, 1, (0, 0))
    embed = stats_embed(stats, head, ALICE)
    [value] = [field.value for field in embed.fields if field.name == "Head to head with alice"]
    assert value == "alice won 0, bob won 0 (0 sets, 1 match)\nMatches: alice won 0, bob won 0"
    going_on = HeadToHead(1, (ALICE, bob), 1, (1, 0), 0, 0, (0, 0))
    embed = stats_embed(stats, going_on, ALICE)
    [value] = [field.value for field in embed.fields if field.name == "Head to head with alice"]
    assert value == "alice won 1, bob won 0 (1 set, 0 matches)"
    never = HeadToHead(1, (ALICE, bob), 0, (0, 0), 0, 0, (0, 0))
    shown = [field.name for field in stats_embed(stats, never, ALICE).fields]
    assert "Head to head with alice" not in shown


def test_a_player_whose_name_was_never_told_is_a_player() -> None:
    """A player the bot was never told the name of is "a player" in the reader's language,
    in /stats' title and on /leaderboard, never an id."""
    german = language("de")
    embed = stats_embed(PlayerStats(1, ALICE, None, None, ()), None, ALICE, lang=german)
    assert embed.title is not None
    assert embed.title.startswith("ein Spieler ")
    row = Standing(1, ALICE, None, 1500.0, 350.0, 1, 1, 0, 0, 0)
    page = LeaderboardPage(1, 0, 10, 1, (row,), "brandubh")
    board = leaderboard_embed(page, "server", german)
    assert board.description is not None
    assert board.description.startswith("`  1.` **ein Spieler** — ")


def test_the_public_head_to_head_names_its_asker_not_you() -> None:
    """bob's /stats of alice, posted for all to read, names bob in the head to head (escaped,
    no mention): "you" would be whoever reads it (before, "Head to head with you")."""
    bob = ALICE + 2
    head = HeadToHead(1, (ALICE, bob), 2, (2, 0), 0, 1, (1, 0))
    stats = PlayerStats(1, ALICE, "alice", None, (), names={bob: "@everyone_bob*"})
    for tag in LANGUAGES:
        [field] = stats_embed(stats, head, bob, lang=language(tag)).fields
        shown = "@\u200beveryone\\_bob\\*"
        assert shown in (field.name or ""), (tag, field.name)
        assert shown in (field.value or ""), (tag, field.value)
        assert "alice" in (field.value or ""), (tag, field.value)
    [field] = stats_embed(stats, head, bob).fields
    assert field.name == "Head to head with @\u200beveryone\\_bob\\*"
    assert field.value == "@\u200beveryone\\_bob\\* won 0, alice won 2 (2 sets, 1 match)\n" + (
        "Matches: @\u200beveryone\\_bob\\* won 0, alice won 1"
    )
