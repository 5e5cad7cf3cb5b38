"""Odd input is a sentence, not a bug: forged ids, unknown commands, missing options, DMs."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.errors import MISSING_OPTIONS, UNKNOWN_COMMAND
from tests.bot_harness import Harness, move_button, running_bot
from tests.discord_standin import DiscordStandin, InteractionRecord, StoredMessage
from tests.discord_standin.command_options import find_command

pytest_plugins = ["tests.discord_standin.fixtures"]

HUGE = "9" * 31
"""An id of 31 digits: far beyond SQLite's 64-bit integers."""


@pytest.fixture
async def table(
    discord_standin: DiscordStandin, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> AsyncIterator[Harness]:
    """The bot with a game in progress; afterwards, nothing above WARNING, no traceback, and
    no warning from the bot's loggers but those odd input is logged with (ODD_INPUT_WARNINGS):
    a post Discord refused, say, is logged as a warning."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        caplog.set_level(logging.WARNING)
        yield harness
    # caplog.records holds only this teardown's records: the test's own are the call's.
    logged = [*caplog.get_records("call"), *caplog.records]
    loud = [r for r in logged if r.levelno > logging.WARNING or r.exc_info or unexpected(r)]
    assert loud == [], [r.getMessage() for r in loud]


ODD_INPUT_WARNINGS = {
    ("bot.client", "Unknown component id %r from user %s"),
    ("bot.errors", "Odd interaction from user %s: %s"),
}
"""The warnings (logger, message) the odd input these tests send is logged with: a forged or
unknown button id, an interaction refused in one sentence."""


def unexpected(record: logging.LogRecord) -> bool:
    """Whether ``record`` is a warning of the bot's other than odd input's."""
    ours = record.name == "bot" or record.name.startswith("bot.")
    return (
        ours
        and record.levelno >= logging.WARNING
        and ((record.name, record.msg) not in ODD_INPUT_WARNINGS)
    )


async def sentence(record: InteractionRecord) -> str:
    """The one ephemeral sentence the player saw."""
    assert record.answered
    message = await record.wait_original()
    assert message.ephemeral, message.content
    assert "\n" not in message.content, message.content
    assert message.content.endswith("."), message.content
    return message.content


async def board(table: Harness) -> StoredMessage:
    """A board with a Move button, in a game between alice and bob."""
    return await table.challenge_accepted(table.alice, table.bob)


async def test_huge_ids_in_buttons_and_offsets(table: Harness) -> None:
    """Button ids and page offsets of 31 digits are answered in one sentence."""
    message = await board(table)
    for custom_id in (
        f"move:{HUGE}",
        f"leaderboard:{table.guild.id}:{HUGE}:next",
        f"takeback:{HUGE}"[:100],
        f"resign-ask:{HUGE}",
    ):
        record = await table.standin.forged_click(message, custom_id, table.alice)
        assert await sentence(record), custom_id


async def test_unknown_button_ids_are_answered(table: Harness) -> None:
    """A button id the bot never made gets a sentence instead of no answer at all."""
    message = await board(table)
    for custom_id in ("nonsense", "move:", "games:1:2:3:sideways", "pick:1:2:from:x"):
        record = await table.standin.forged_click(message, custom_id, table.alice)
        assert await sentence(record) == (
            "That button is not one of mine (any more): use the newest message, or "
            f"{table.mention('games')}."
        )


async def test_unknown_command_and_missing_options(table: Harness) -> None:
    """A command the bot does not have, and /move without its move, are each one sentence."""
    assert await sentence(await table.slash(table.alice, "teleport")) == str(UNKNOWN_COMMAND)
    await board(table)
    synced = find_command(table.standin.recorder, None, "move")
    assert synced is not None
    data = {"id": synced["id"], "name": "move", "type": 1, "options": []}
    record = await table.standin.send_command_data(table.channel, table.alice, data)
    assert await sentence(record) == str(MISSING_OPTIONS)


async def test_server_commands_in_a_direct_message(table: Harness) -> None:
    """/board, /move and /challenge sent from a DM are refused in one sentence."""
    dm = table.standin.dm_channel(table.alice)
    for name, options in (("board", {}), ("move", {"move": "d1-b1"}), ("resign", {})):
        record = await table.standin.slash(None, dm, table.alice.user, name, options)
        assert "server channels" in await sentence(record)


async def test_buttons_from_another_server(table: Harness) -> None:
    """A game's Move button pressed in another server, and another server's leaderboard page,
    are refused and change nothing."""
    message = await board(table)
    other = table.standin.add_guild("Elsewhere", channels=["play"])
    mallory = table.standin.add_member(other, "mallory")
    await table.standin.bot_joins(other)
    await table.standin.announce_member(mallory)
    record = await table.standin.forged_click(
        message, move_button(message), mallory, channel=other.channel("play")
    )
    assert await sentence(record)
    record = await table.standin.forged_click(
        message, f"leaderboard:{other.id}:0:next", table.alice
    )
    assert "another server" in await sentence(record)
    assert table.bot is not None
    active = await table.bot.services.games.in_channel(table.channel.id)
    assert active is not None
    assert active.ply == 0


async def test_someone_who_left_the_server_is_named_not_dumped(table: Harness) -> None:
    """A member option given a user who is not in the server (left it) is refused with their
    name, never a Python object's text (/stats, which takes anyone, says so in its answer);
    a long move text is repeated cut short."""
    ghost = table.standin.add_user("ghost")
    for command in ("challenge", "games"):
        option = "opponent" if command == "challenge" else "player"
        record = await table.standin.slash(
            table.guild, table.channel, table.alice, command, {option: ghost}
        )
        assert await sentence(record) == "**ghost** is not a member of this server.", command
    record = await table.standin.slash(
        table.guild, table.channel, table.alice, "stats", {"player": ghost}
    )
    [embed] = (await record.wait_original()).embeds
    assert embed["description"].splitlines() == [
        "**ghost** is not a member of this server.",
        "No rated game of Brandubh (World Tafl Federation) finished yet.",
    ]
    await board(table)
    record = await table.standin.slash(
        table.guild, table.channel, table.alice, "move", {"move": "x" * 1900}
    )
    assert await sentence(record) == (
        "'" + "x" * 23 + "…' is not a move: write the piece's square and where it goes, like d1-c1."
    )


async def test_someone_who_left_named_like_me_is_named_by_username(table: Harness) -> None:
    """A user who left, whose global name passes for mine (the computer's name), is named by
    their username when a member option is given them, as everywhere else."""
    ghost = table.standin.add_user("ghost")
    ghost.global_name = f"{table.me.user.name} (level 3)"
    record = await table.slash(table.alice, "challenge", {"opponent": ghost})
    assert await sentence(record) == "**ghost** is not a member of this server."


async def test_stats_of_a_bot_are_refused(table: Harness) -> None:
    """/stats and /puzzle stats of a bot, another one or me, are refused in one sentence."""
    for member in (table.other_bot, table.me):
        name = f"**{member.nick or member.name}**"
        record = await table.slash(table.alice, "stats", {"player": member})
        assert await sentence(record) == f"{name} is a bot: bots have no rating or record."
        record = await table.slash(table.alice, "puzzle stats", {"player": member})
        assert await sentence(record) == f"{name} is a bot: bots have no puzzle record."


async def test_a_bot_named_like_me_is_refused_by_its_username(table: Harness) -> None:
    """/stats and /puzzle stats of another bot nicknamed as the computer is named in a game
    name it by its username, as everywhere else: not a name that passes for mine."""
    mimic = table.standin.add_member(
        table.guild,
        table.standin.world.add_user("mimic", bot=True),
        nick=f"{table.me.user.name} (level 3)",
    )
    record = await table.slash(table.alice, "stats", {"player": mimic})
    assert await sentence(record) == "**mimic** is a bot: bots have no rating or record."
    record = await table.slash(table.alice, "puzzle stats", {"player": mimic})
    assert await sentence(record) == "**mimic** is a bot: bots have no puzzle record."


async def test_a_server_name_all_markdown_still_titles_its_lists(table: Harness) -> None:
    """A Spanish server named with 100 underscores (escaped, 200 characters): /games of a
    player named with 32 and /leaderboard of a ruleset with a long name are answered, their
    titles cut to Discord's 256 characters (a longer title was refused: an apology)."""
    odd = table.standin.add_guild("_" * 100, channels=["play"])
    odd.preferred_locale = "es-ES"
    mallory = table.standin.add_member(odd, "_" * 32)
    await table.standin.bot_joins(odd)
    await table.standin.announce_member(mallory)
    play = odd.channel("play")
    for name, options in (
        ("games", {"player": mallory}),
        ("leaderboard", {"ruleset": "brandubh-historical"}),
    ):
        record = await table.standin.slash(odd, play, mallory, name, options)
        shown = await record.wait_original()
        [embed] = shown.embeds
        assert len(embed["title"]) == 256, embed["title"]
        assert embed["title"].endswith("…"), embed["title"]


async def test_names_of_32_characters_to_escape_fit_every_answer_in_german(
    table: Harness,
) -> None:
    """Two members of a German server named in 32 characters that all need escaping (written
    right to left, then backslashes) play a two-set match to its end: the boards, the set and
    match lines, /games, /leaderboard, /stats with its head to head and /export are answered
    within Discord's limits, which the stand-in holds them to (no apology, nothing logged: a
    refused post is a warning, which the fixture fails on)."""
    table.guild.preferred_locale = "de"
    long_name = "\u05d0" + "\\" * 31
    players = []
    for _ in range(2):
        member = table.standin.add_member(table.guild, long_name)
        member.user.locale = "de"
        await table.standin.announce_member(member)
        players.append(member)
    first, second = players
    await table.reply_text(table.admin, "settings", {"language": "de"})
    await table.challenge_accepted(first, second, sets=2)
    for attacker, defender in ((first, second), (second, first)):  # sides swap in set 2
        await table.move(attacker, "d1-b1")
        ask = await table.reply_text(defender, "resign")
        await table.standin.click(ask, ask.custom_ids()[0], defender)
        if attacker is first:
            await table.wait_board(lambda m: "Satz 2" in m.content)
            games = await table.reply_text(first, "games")
            assert games.embeds, games.content
    # The second set's line ends the match (1–1, drawn): posted, not refused.
    await table.standin.wait_for_message(
        table.channel, lambda m: "**Match unentschieden** (1–1)" in m.content
    )
    answers = [
        await table.reply_text(first, "leaderboard"),
        await table.reply_text(first, "stats", {"player": second}),
        await table.reply_text(first, "export"),
    ]
    for answer in answers:
        assert not answer.ephemeral, answer.content
    [stats] = answers[1].embeds
    assert any(field["name"].startswith("Direkter Vergleich") for field in stats["fields"]), stats
    assert len(answers[2].attachments) == 4, answers[2].content
