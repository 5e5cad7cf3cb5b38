"""An operator's upgrade day: a server ran an older release (a database at schema N) with games
in progress, a board owed, a takeback asked, a challenge open, a puzzle begun and a two-set
match between its sets; the current bot starts on it, migrates it and every game goes on as
its players left it.

The older release's database is this bot's, stepped back to schema N (tests/older_schemas.py),
and the move the older bot stored last, whose board it never posted, is written through schema
N's own tables (its moves triggers owe the board).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.config import Settings
from bot.storage import Connection, Database, Dialect, schema_version
from bot.storage.announcements import GRACE_US
from bot.storage.times import to_us
from tests.bot_harness import Harness, challenge_id, timers_checked
from tests.conftest import postgres_database
from tests.discord_standin import DiscordStandin, FakeChannel, FakeMember, StoredMessage
from tests.older_schemas import step_back
from tests.postgres_server import PostgresServer

pytest_plugins = ["tests.discord_standin.fixtures"]

CHANNELS = ("games", "lobby", "side", "match")


class PostgresTable(Harness):
    """The bot on a PostgreSQL database, in a server of :data:`CHANNELS`."""

    def __init__(self, standin: DiscordStandin, tmp_path: Path, database_url: str) -> None:
        super().__init__(standin, tmp_path / "unused.sqlite3", channels=CHANNELS)
        self.database_url = database_url

    def settings(self) -> Settings:
        return replace(super().settings(), database_url=self.database_url)


@dataclass
class OldServer:
    """What the players left when the older release stopped."""

    board: StoredMessage
    """alice's first board in #games; bob's reply after it was stored, its board not posted."""
    set_id: int
    takeback: StoredMessage
    """carol's takeback request in #lobby, not answered yet."""
    challenge: StoredMessage
    """alice's challenge of carol in #side, open."""
    puzzle: StoredMessage
    """The puzzle carol began (her private message with its picker and Give up)."""
    ratings: list[tuple[Any, ...]]


def where(table: Harness) -> str:
    """The database the bot of ``table`` uses."""
    return table.database_url if isinstance(table, PostgresTable) else str(table.db_path)


async def rows(target: str, query: str) -> list[tuple[Any, ...]]:
    """The rows ``query`` reads from ``target``, which is not migrated by reading it."""
    database = await Database.open(target, target_version=0)
    try:
        async with database.snapshot() as db:
            return [tuple(row) for row in await db.fetch_all(query)]
    finally:
        await database.close()


async def accepted(
    table: Harness,
    challenger: FakeMember,
    opponent: FakeMember,
    channel: FakeChannel,
    **options: Any,
) -> StoredMessage:
    """A challenge in ``channel``, accepted; its first board."""
    reply = await table.reply_text(
        challenger, "challenge", {"opponent": opponent, **options}, channel=channel
    )
    await table.standin.click(reply, f"challenge:accept:{challenge_id(reply)}", opponent)
    return await table.wait_board(lambda m: m.created_at >= reply.created_at, channel=channel)


async def move(table: Harness, who: FakeMember, text: str, channel: FakeChannel) -> StoredMessage:
    """``who`` plays ``text`` with /move in ``channel``; the answer."""
    record = await table.slash(who, "move", {"move": text}, channel=channel)
    return await record.wait_original()


def board_set(message: StoredMessage) -> int:
    """The set a board's Move button names."""
    [button] = [c for c in message.custom_ids() if c.startswith("move:")]
    return int(button.split(":")[1])


async def older_move(db: Connection, set_id: int, player_id: int, now_us: int) -> None:
    """Store d3-a3 at ply 1 as the older release did: on SQLite the moves triggers advance the
    set and owe its board; on PostgreSQL (no triggers since schema 12) its statement did."""
    if db.dialect is Dialect.POSTGRESQL:
        await db.execute(
            "UPDATE sets SET ply = 2, to_move_id = attacker_id, deadline_us = ? + "
            "(SELECT time_per_move_us FROM matches m WHERE m.match_id = sets.match_id), "
            "reminder_us = ? + "
            "(SELECT time_per_move_us FROM matches m WHERE m.match_id = sets.match_id) / 2, "
            "reminded = 0 WHERE set_id = ?",
            (now_us, now_us, set_id),
        )
        await db.execute(
            "INSERT INTO announcements (set_id, ply, channel_id, created_us, next_try_us) "
            "SELECT set_id, 2, channel_id, ?, ? FROM sets WHERE set_id = ?",
            (now_us, now_us + GRACE_US, set_id),
        )
    await db.execute(
        "INSERT INTO moves (set_id, ply, notation, captures, player_id, played_us) "
        "VALUES (?, 1, 'd3-a3', '', ?, ?)",
        (set_id, player_id, now_us),
    )


async def played_on_an_older_release(table: Harness, version: int) -> OldServer:
    """Play on the current bot, stop it, step its database back to ``version`` and store bob's
    reply in #games as the older bot did before it was stopped (its board owed)."""
    games, lobby, side, match = (table.guild.channel(name) for name in CHANNELS)
    await table.start()
    try:
        await accepted(table, table.alice, table.bob, games)
        board = await move(table, table.alice, "d1-b1", games)
        set_id = board_set(board)
        await accepted(table, table.carol, table.bob, lobby)
        await move(table, table.carol, "d1-b1", lobby)
        takeback = await table.reply_text(table.carol, "takeback", channel=lobby)
        assert not takeback.ephemeral, takeback.content
        challenge = await table.reply_text(
            table.alice, "challenge", {"opponent": table.carol}, channel=side
        )
        await accepted(table, table.admin, table.bob, match, sets=2)
        puzzle = await table.reply_text(table.carol, "puzzle play", channel=side)
        assert puzzle.ephemeral, puzzle.content
        await move(table, table.admin, "d1-b1", match)
        await move(table, table.bob, "d3-a3", match)  # moved: set 1 is rated
        asked = await table.reply_text(table.admin, "resign", channel=match)
        [confirm] = [c for c in asked.custom_ids() if c.startswith("resign:")]
        await table.standin.click(asked, confirm, table.admin)
        await table.wait_board(lambda m: "set 2" in m.content.lower(), channel=match)
    finally:
        await table.stop()
    target = where(table)
    ratings = await rows(target, "SELECT * FROM ratings ORDER BY 1, 2, 3")
    assert len(ratings) == 2, ratings
    await step_back(target, version)
    old = await Database.open(target, target_version=version)
    try:
        assert await old.stored_version() == version
        async with old.transaction() as db:
            await older_move(db, set_id, table.bob.id, to_us(table.now))
    finally:
        await old.close()
    return OldServer(board, set_id, takeback, challenge, puzzle, ratings)


async def noted_live(table: Harness, board: StoredMessage) -> None:
    """Wait until the bot noted ``board`` as its channel's live board (just after posting it)."""
    query = f"SELECT 1 FROM live_boards WHERE message_id = {board.id}"
    for _ in range(200):
        if await rows(where(table), query):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"board {board.id} was never noted as live")


async def every_game_goes_on(table: Harness, old: OldServer) -> None:
    """The current bot on the older release's database: each game goes on as it was left."""
    games, lobby, side, match = (table.guild.channel(name) for name in CHANNELS)
    await table.start()
    try:
        # bob's reply gets its board, once, pinging alice.
        table.advance(timedelta(seconds=11))
        owed = await table.wait_board(lambda m: "d3-a3" in m.content, channel=games)
        assert f"<@{table.alice.id}>" in owed.content, owed.content
        await noted_live(table, owed)
        # The board the older release posted still answers: its Move links the owed board.
        pressed = await table.standin.forged_click(old.board, f"move:{old.set_id}", table.alice)
        shown = await pressed.wait_original()
        assert shown.ephemeral
        assert str(owed.id) in shown.content, shown.content
        # So does its Takeback, of the form before boards named their position.
        pressed = await table.standin.forged_click(old.board, f"takeback:{old.set_id}", table.bob)
        shown = await pressed.wait_original()
        assert shown.ephemeral
        assert str(owed.id) in shown.content, shown.content
        played = await move(table, table.alice, "b1-b2", games)
        assert "played b1-b2" in played.content, played.content
        # The takeback asked before the upgrade is answered after it.
        [accept] = [c for c in old.takeback.custom_ids() if c.endswith(":accept")]
        await table.standin.click(old.takeback, accept, table.bob)
        await table.wait_board(lambda m: "taken back" in m.content, channel=lobby)
        # The open challenge is accepted.
        await table.standin.click(
            old.challenge, f"challenge:accept:{challenge_id(old.challenge)}", table.carol
        )
        await table.wait_board(lambda m: m.created_at >= owed.created_at, channel=side)
        # The match's second set goes on: bob attacks in it.
        second = await move(table, table.bob, "d1-b1", match)
        assert "played d1-b1" in second.content, second.content
        # The puzzle carol began is still hers to give up.
        [give_up] = [c for c in old.puzzle.custom_ids() if c.endswith(":give-up")]
        pressed = await table.standin.click(old.puzzle, give_up, table.carol)
        over = await pressed.wait_original(lambda m: "gave up" in m.content)
        assert "**You gave up.** The solution: " in over.content, over.content
        # Reminders come at half time of the day per move.
        table.advance(timedelta(hours=13))
        await timers_checked(table)
        await table.standin.wait_for_message(games, lambda m: "reminder" in m.content)
        await table.standin.wait_for_message(match, lambda m: "reminder" in m.content)
    finally:
        await table.stop()
    boards = [m for m in table.public_messages(games) if "d3-a3" in m.content and m.attachments]
    assert len(boards) == 1, [m.content for m in boards]
    for channel in (games, lobby, side, match):
        texts = [m.content for m in table.public_messages(channel) if m.attachments]
        assert len(texts) == len(set(texts)), texts
    assert await rows(where(table), "SELECT * FROM ratings ORDER BY 1, 2, 3") == old.ratings
    database = await Database.open(where(table))
    try:
        assert await database.stored_version() == schema_version(database.dialect)
    finally:
        await database.close()


@pytest.mark.parametrize("version", [30, 38, 41, 42])
async def test_an_sqlite_server_upgraded_from_schema_n_plays_on(
    discord_standin: DiscordStandin, tmp_path: Path, version: int
) -> None:
    """A server of an older release (schema N, SQLite) upgraded with games in progress: the
    board owed is posted once, old buttons answer, takebacks, challenges, the second set,
    reminders go on, and the ratings are unchanged."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", channels=CHANNELS)
    old = await played_on_an_older_release(table, version)
    await every_game_goes_on(table, old)


async def test_a_postgresql_server_upgraded_from_schema_38_plays_on(
    discord_standin: DiscordStandin, postgres: PostgresServer | str, tmp_path: Path
) -> None:
    """The same upgrade from schema 38 on PostgreSQL."""
    table = PostgresTable(discord_standin, tmp_path, await postgres_database(postgres))
    old = await played_on_an_older_release(table, 38)
    await every_game_goes_on(table, old)


async def test_a_hold_the_older_release_stored_gives_its_time_back_after_the_upgrade(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """The older release (schema 30) held the server (it was unavailable) with bob to move,
    for three days, past his deadline, and was stopped for the upgrade: the server is back,
    the hold ends giving his clock the time, and he plays on rather than losing on time."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", channels=CHANNELS)
    await table.start()
    try:
        await table.challenge_accepted(table.alice, table.bob)
        await table.move(table.alice, "d1-b1")
    finally:
        await table.stop()
    await step_back(str(table.db_path), 30)
    old = await Database.open(str(table.db_path), target_version=30)
    try:
        async with old.transaction() as db:
            await db.execute(
                "INSERT INTO holds (kind, place_id, guild_id, shard_count, since_us) "
                "VALUES ('server', ?, ?, NULL, ?)",
                (table.guild.id, table.guild.id, to_us(table.now)),
            )
            # It ran on three days holding it, and was stopped just before the upgrade.
            await db.execute(
                "UPDATE timer_checks SET checked_us = ?",
                (to_us(table.now + timedelta(days=3)),),
            )
    finally:
        await old.close()
    table.advance(timedelta(days=3, seconds=5))
    await table.start()
    try:
        await timers_checked(table)
        for _ in range(200):
            if not await rows(str(table.db_path), "SELECT * FROM holds"):
                break
            await asyncio.sleep(0.05)
        assert await rows(str(table.db_path), "SELECT * FROM holds") == []
        played = await table.move(table.bob, "d3-a3")
        assert "played d3-a3" in played.content, played.content
    finally:
        await table.stop()
    assert not [
        m for m in table.public_messages() if "time" in m.content and "ran out" in m.content
    ]
