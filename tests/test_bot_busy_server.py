"""A big busy server: hundreds of games, challenges and rated players, through the stand-in.

The games, challenges and ratings are stored through the services and the storage layer in the
bot's own SQLite file; everything read back is what the bot posted.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from pathlib import Path

import pytest

from bot.storage import players
from bot.timers import REMINDERS_AT_ONCE_PER_SERVER
from tests.bot_harness import Harness, running_bot
from tests.discord_standin import DiscordStandin, FakeChannel, FakeMember, StoredMessage

pytest_plugins = ["tests.discord_standin.fixtures"]

GAMES = 200
"""Games (or challenges) falling due in one timers' check."""

PROVISIONAL = 300.0
ESTABLISHED = 60.0
"""Rating deviations: above and below the provisional line (bot/ratings.py, 110)."""


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a fresh server, each game played in its channel."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


@pytest.fixture
async def tables(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a server with 100 channels ``table-0`` to ``table-99`` it knows from the
    start (channels made later are not in its cache)."""
    channels = ["games", *(f"table-{index}" for index in range(100))]
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", channels=channels) as table:
        yield table


async def many_games(table: Harness, count: int) -> list[FakeChannel]:
    """``count`` matches of an hour a move between new members, each in a channel of its own
    (the server's ``table-N`` if it has it), stored through the services as a challenge and
    its Accept store them; in the order begun."""
    assert table.bot is not None
    services = table.bot.services
    channels = []
    known = {channel.name: channel for channel in table.guild.channels}
    for index in range(count):
        name = f"table-{index}"
        channel = known.get(name) or table.standin.add_channel(table.guild, name)
        first = table.standin.add_member(table.guild, f"first{index}")
        second = table.standin.add_member(table.guild, f"second{index}")
        challenge = await services.challenges.create(
            table.guild.id, channel.id, first.id, second.id, time_per_move=timedelta(hours=1)
        )
        await services.challenges.accept(challenge.challenge_id, second.id)
        channels.append(channel)
    return channels


def posted_in(table: Harness, channels: list[FakeChannel], text: str) -> int:
    """How many of ``channels`` have a message of the bot's containing ``text``."""
    return sum(
        1
        for channel in channels
        if any(text in message.content for message in table.public_messages(channel))
    )


async def pages(table: Harness, message: StoredMessage, reader: FakeMember) -> list[str]:
    """The description of each page of a paged list, pressing Next until it is disabled."""
    shown = []
    while True:
        shown.append(str(message.embeds[0]["description"]))
        buttons = [b for row in message.components for b in row["components"]]
        [later] = [b for b in buttons if "next" in str(b.get("custom_id", "")).split(":")] or [None]
        if later is None or later.get("disabled"):
            return shown
        await table.standin.click(message, str(later["custom_id"]), reader)


async def test_two_hundred_reminders_due_at_once_all_follow_a_global_rate_limit(
    table: Harness,
) -> None:
    """200 games reach half time together and Discord holds all requests back three times on
    the way: every player to move is reminded once, within the one check."""
    channels = await many_games(table, GAMES)
    limited = table.standin.rate_limit(
        retry_after=1,
        requests=3,
        is_global=True,
        matching=lambda method, path: method == "POST" and path.endswith("/messages"),
    )
    table.advance(timedelta(minutes=31))
    await table.checks_run(1)
    assert limited.hits == 3
    assert posted_in(table, channels, "reminder") == GAMES
    await table.checks_run(1)
    reminders = [m for c in channels for m in table.public_messages(c) if "reminder" in m.content]
    assert len(reminders) == GAMES


def posting_in(channel: FakeChannel) -> Callable[[str, str], bool]:
    """Whether a request posts a message in ``channel``."""
    posts = f"/channels/{channel.id}/messages"
    return lambda method, path: method == "POST" and path == posts


async def test_reminders_due_together_in_a_server_go_out_a_few_at_a_time(table: Harness) -> None:
    """12 reminders fall due in one server, each channel's post held back a second (a 429):
    they are posted a few at a time, their waits overlapping, never more than
    REMINDERS_AT_ONCE_PER_SERVER at once. One after another, 100 such reminders kept the last
    waiting minutes (measured: 100 at 2 s each, 200 s; now about 50 s)."""
    channels = await many_games(table, 12)
    tries: dict[str, list[float]] = {}

    def noted(method: str, path: str) -> bool:
        if method == "POST" and path.endswith("/messages"):
            tries.setdefault(path, []).append(time.monotonic())
        return False  # only notes when each post was tried

    table.standin.fail_rest(seconds=3600, matching=noted)
    for channel in channels:
        table.standin.rate_limit(retry_after=1, matching=posting_in(channel))
    table.advance(timedelta(minutes=31))
    await table.checks_run(1)
    assert posted_in(table, channels, "reminder") == 12
    waits = [(times[0], times[1]) for times in tries.values()]  # the 429, the try after it
    assert len(waits) == 12
    at_once = max(sum(1 for began, ended in waits if began <= at < ended) for at, _ in waits)
    assert 2 <= at_once <= REMINDERS_AT_ONCE_PER_SERVER


async def test_reminders_due_behind_a_rate_limit_on_member_lookups_wait_for_it_once(
    table: Harness,
) -> None:
    """Before each reminder the bot asks Discord whether the players are still members; with
    those lookups held back 2 s each (a rate limit), the 100 reminders due still go out in one
    check that asks a few times, not once or twice a reminder (each waiting 1 s for nothing:
    a check of minutes, everything after it waiting)."""
    channels = await many_games(table, 100)
    limited = table.standin.rate_limit(
        retry_after=2,
        requests=1000,
        matching=lambda method, path: method == "GET" and "/members/" in path,
    )
    table.advance(timedelta(minutes=31))
    await table.checks_run(1)
    assert posted_in(table, channels, "reminder") == 100
    assert 1 <= limited.hits < 10


async def test_two_hundred_games_out_of_time_at_once_all_end_in_one_check(
    table: Harness,
) -> None:
    """200 games run out of time together: each set's end and the next set are posted."""
    channels = await many_games(table, GAMES)
    table.advance(timedelta(minutes=61))
    await table.checks_run(1)
    assert posted_in(table, channels, "the attackers ran out of time") == GAMES
    assert posted_in(table, channels, "**Set 2 begins.**") == GAMES


async def test_games_out_of_time_behind_a_rate_limit_on_member_lookups_end_once_it_lifts(
    tables: Harness,
) -> None:
    """Before a game is lost on time the bot asks Discord whether its player is shut out of
    the channel; with those lookups held back 2 s each, the 100 games due wait (Discord cannot
    say) after a check that asks a few times, not once a game; asked again a minute after the
    limit lifted, all 100 end."""
    channels = await many_games(tables, 100)
    limited = tables.standin.rate_limit(
        retry_after=2,
        requests=1000,
        matching=lambda method, path: method == "GET" and "/members/" in path,
    )
    tables.advance(timedelta(minutes=61))
    await tables.checks_run(1)
    assert 1 <= limited.hits < 10
    assert posted_in(tables, channels, "ran out of time") == 0
    tables.standin.end_faults()
    tables.advance(timedelta(minutes=1))
    await tables.checks_run(1)
    assert posted_in(tables, channels, "ran out of time") == 100


async def test_two_hundred_challenges_expiring_at_once_all_say_so(table: Harness) -> None:
    """200 posted challenges expire together: each post says so after one check."""
    posts = []
    for index in range(GAMES):
        channel = table.standin.add_channel(table.guild, f"table-{index}")
        first = table.standin.add_member(table.guild, f"first{index}")
        second = table.standin.add_member(table.guild, f"second{index}")
        options = {"opponent": second}
        posts.append(await table.reply_text(first, "challenge", options, channel=channel))
    table.advance(timedelta(minutes=11))
    await table.checks_run(1)
    assert sum("expired without an answer" in post.content for post in posts) == GAMES


async def test_games_of_a_busy_server_page_through_every_game_once_in_order(
    table: Harness,
) -> None:
    """300 games: Next through 30 pages shows each game once, in the order they began."""
    channels = await many_games(table, 300)
    listing = await table.reply_text(table.carol, "games")
    shown = await pages(table, listing, table.carol)
    assert len(shown) == 30
    assert listing.embeds[0]["footer"]["text"] == "Games 291–300 of 300"
    linked = [int(found) for page in shown for found in re.findall(r"<#(\d+)>", page)]
    assert linked == [channel.id for channel in channels]


async def test_fifty_moves_at_once_in_fifty_channels_each_get_their_board_once(
    table: Harness,
) -> None:
    """A /move in each of 50 games at the same moment: every one is answered (most deferred
    privately, the process being busy), its board posted once in its channel, and each
    private "thinking…" taken away."""
    channels = await many_games(table, 50)
    members = {member.name: member for member in table.guild.members}
    moves = await asyncio.gather(
        *(
            table.slash(members[f"first{index}"], "move", {"move": "d1-b1"}, channel=channel)
            for index, channel in enumerate(channels)
        )
    )
    assert all(move.answered for move in moves)

    def settled() -> bool:
        return all(
            move.original is not None and (move.original.deleted or not move.original.loading)
            for move in moves
        )

    await table.standin.wait_until(settled, timeout=30, waiting_for="every move's answer")
    for index, channel in enumerate(channels):
        played = f"**first{index}** (attackers) played d1-b1."
        boards = [m for m in table.public_messages(channel) if m.content.startswith(played)]
        assert len(boards) == 1, channel.name
        assert boards[0].attachments, channel.name
    assert not [m.content for c in channels for m in table.standin.messages(c) if m.ephemeral]


async def rated(table: Harness, ratings: dict[int, tuple[float, float]]) -> None:
    """Players rated in the server's Brandubh pool (user id: rating and deviation), each named
    ``**_0042_**`` (their id's last four digits) padded with Markdown to Discord's 32
    characters, stored through the storage layer."""
    assert table.bot is not None
    async with table.bot.services.database.transaction() as db:
        for user_id, (rating, deviation) in ratings.items():
            name = f"**_{user_id % 10_000:04d}_**".ljust(32, "*")
            await players.upsert(db, user_id, name, table.now)
            await db.execute(
                "INSERT INTO ratings (guild_id, ruleset, user_id, rating, deviation, "
                "volatility, games, wins, losses, draws, matches_won, updated_us) "
                "VALUES (?, 'brandubh', ?, ?, ?, 0.06, 300, 150, 149, 1, 70, 0)",
                (table.guild.id, user_id, rating, deviation),
            )


LINE = re.compile(r"`\s*(\d+)\.` \*\*\\\*\\\*\\_(\d{4})\\_")
"""A leaderboard line's rank and its player's four digits (their name escaped)."""


async def test_a_thousand_players_page_through_in_rank_order_ties_shared(table: Harness) -> None:
    """1000 rated players, many shown alike (ties across pages), a sixth provisional: the 100
    pages list each once, in the leaderboard's order, each ranked one more than the players
    shown above their rating."""
    ratings = {
        10_000 + index: (
            1475 + (index * 37 % 200) / 4,
            PROVISIONAL if index % 6 == 0 else ESTABLISHED,
        )
        for index in range(1000)
    }
    await rated(table, ratings)
    board = await table.reply_text(table.carol, "leaderboard")
    shown = await pages(table, board, table.carol)
    assert len(shown) == 100
    lines = [line for page in shown for line in page.splitlines()]
    found = [LINE.match(line) for line in lines]
    ranked = [(int(m[1]), 10_000 + int(m[2])) for m in found if m is not None]
    assert len(ranked) == len(lines) == 1000

    def key(user_id: int) -> tuple[bool, int]:
        rating, deviation = ratings[user_id]
        return deviation > ESTABLISHED, -round(rating)

    assert [user for _, user in ranked] == sorted(
        ratings, key=lambda user: (key(user), -ratings[user][0], user)
    )
    for rank, user in ranked:
        assert rank == 1 + sum(key(other) < key(user) for other in ratings), user


async def test_the_leaderboard_shows_the_askers_line_below_a_page_without_them(
    table: Harness,
) -> None:
    """alice is 25th of 30: page 1 ends with her own line, as /puzzle leaderboard's does, and
    still after anyone turns to page 2; page 3, which lists her, shows her once."""
    others = {20_000 + index: (1600.0 - 2 * index, ESTABLISHED) for index in range(29)}
    await rated(table, others | {table.alice.id: (1553.0, ESTABLISHED)})
    board = await table.reply_text(table.alice, "leaderboard")
    mine = f"`{25:>3}.` **" + r"\*\*\_" + f"{table.alice.id % 10_000:04d}"
    first = str(board.embeds[0]["description"]).splitlines()
    assert len(first) == 12
    assert first[-2] == "…"
    assert first[-1].startswith(mine)
    [later] = [c for c in board.custom_ids() if ":next" in c]
    await table.standin.click(board, later, table.carol)
    second = str(board.embeds[0]["description"]).splitlines()
    assert len(second) == 12
    assert second[-1].startswith(mine)
    [later] = [c for c in board.custom_ids() if ":next" in c]
    await table.standin.click(board, later, table.bob)
    third = str(board.embeds[0]["description"]).splitlines()
    assert "…" not in third
    assert sum(line.startswith(mine) for line in third) == 1
