"""Two shard processes sharing PostgreSQL: each drives its own servers; one dies and comes back.

Two real ``python -m bot`` processes (DISCORD_SHARD_COUNT=2, DISCORD_SHARD_IDS 0 and 1) talk
to one stand-in that delivers each server only to its shard's connection, and share one
PostgreSQL database. Games are played in a server of each shard; the shard-1 process is killed
(SIGKILL) in the middle of its game while shard 0 plays on, then started again: its game goes on
from the same move, and every board was posted exactly once.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
from pathlib import Path

from bot.__main__ import EXIT_IN_USE
from bot.services import Services
from tests.bot_processes import start_bot, stop_bots
from tests.conftest import postgres_database
from tests.discord_standin import DiscordStandin, FakeChannel, FakeGuild, FakeMember
from tests.postgres_server import PostgresServer
from tests.scale_processes import SHARDS, guild_of_each_shard, start_shard

pytest_plugins = ["tests.discord_standin.fixtures"]


class Table:
    """A server of one shard with two players and their game's thread."""

    def __init__(self, standin: DiscordStandin, guild: FakeGuild) -> None:
        self.standin = standin
        self.guild = guild
        self.attacker: FakeMember = standin.add_member(guild, f"alice-{guild.id % 1000}")
        self.defender: FakeMember = standin.add_member(guild, f"bob-{guild.id % 1000}")
        self.channel: FakeChannel = guild.channel("games")
        self.moves: list[str] = []

    async def open(self) -> None:
        """Challenge and accept: the game gets its thread."""
        asked = await self.standin.slash(
            self.guild, self.channel, self.attacker, "challenge", {"opponent": self.defender}
        )
        message = await asked.wait_original(timeout=20)
        accept = next(c for c in message.custom_ids() if c.startswith("challenge:accept:"))
        await self.standin.click(message, accept, self.defender, timeout=20)
        assert message.thread is not None, message.content
        self.channel = message.thread
        # The first board follows the answer to the press: a /move sent before it is out
        # would be answered first, and the boards counted before it came.
        await self.standin.wait_until(
            lambda: self.boards() == 1, timeout=20, waiting_for="the first board"
        )

    async def play(self, move: str) -> None:
        """The player to move plays ``move`` and the board comes back."""
        who = self.attacker if len(self.moves) % 2 == 0 else self.defender
        record = await self.standin.slash(
            self.guild, self.channel, who, "move", {"move": move}, timeout=20
        )
        answer = await record.wait_original(timeout=20)
        assert not answer.ephemeral, answer.content
        self.moves.append(move)

    def boards(self) -> int:
        """Board pictures the bot posted in the game's thread."""
        return sum(
            1
            for message in self.standin.messages(self.channel)
            if any(a.filename.endswith(".png") for a in message.attachments)
        )


async def test_two_shard_processes_share_postgresql_and_survive_a_kill(
    discord_standin: DiscordStandin, postgres: PostgresServer | str, tmp_path: Path
) -> None:
    """Games in both shards' servers; shard 1 killed mid-game and restarted: nothing lost or
    posted twice, and shard 0 never stopped."""
    database = await postgres_database(postgres)
    by_shard = await guild_of_each_shard(discord_standin, ["games"])
    tables = {shard: Table(discord_standin, guild) for shard, guild in by_shard.items()}
    processes = {
        shard: start_shard(discord_standin, database, shard, tmp_path / f"shard{shard}")
        for shard in range(SHARDS)
    }
    try:
        await discord_standin.wait_synced("challenge", "move", timeout=60)
        await discord_standin.wait_shards_ready(0, 1, timeout=60)
        for table in tables.values():
            await table.open()
        opening = ("d1-c1", "d3-a3", "c1-c3")
        for move in opening:
            for table in tables.values():
                await table.play(move)

        processes[1].send_signal(signal.SIGKILL)
        processes[1].wait(timeout=20)
        await tables[0].play("c4-c5")  # shard 0 plays on while shard 1 is down
        processes[1] = start_shard(discord_standin, database, 1, tmp_path / "shard1")
        await discord_standin.wait_shards_ready(0, 1, timeout=60)
        await tables[1].play("c4-c5")
        await tables[1].play("d2-d1")
        await asyncio.sleep(1.0)  # several timer checks: an outbox would post anything owed now

        services = await Services.open(database)
        try:
            for table in tables.values():
                game = await services.games.in_channel(table.channel.id)
                assert game is not None
                assert [str(r.move) for r in game.game.records] == table.moves
                # The first board, then one per move: none lost, none posted twice.
                assert table.boards() == 1 + len(table.moves)
        finally:
            await services.close()
    finally:
        stop_bots(processes.values())


def refused(
    standin: DiscordStandin, database: str, folder: Path, settings: dict[str, str]
) -> tuple[int, str]:
    """Start ``python -m bot`` with ``settings``; its exit code and the line it stopped with
    (it must stop within 30 s). Blocking: run it in a thread."""
    folder.mkdir(parents=True, exist_ok=True)
    log_path = folder / "bot.log"
    with log_path.open("wb") as log:
        process = start_bot(standin, database, folder, log=log, settings=settings)
    try:
        code = process.wait(30)
    except subprocess.TimeoutExpired:
        stop_bots([process])
        raise AssertionError("it kept running instead of being refused") from None
    said = [line for line in log_path.read_text().splitlines() if line.startswith("brandubh-bot:")]
    assert len(said) == 1, log_path.read_text()
    return code, said[0]


async def test_a_second_process_for_a_shard_already_run_is_refused(
    discord_standin: DiscordStandin, postgres: PostgresServer | str, tmp_path: Path
) -> None:
    """Shard 1 of 2 runs; another process for shard 1, and one for every shard, each exit 3
    with one line naming what is run already, while the first plays on (one killed leaves
    no claim behind: the test above starts shard 1 again after SIGKILL)."""
    database = await postgres_database(postgres)
    by_shard = await guild_of_each_shard(discord_standin, ["games"])
    table = Table(discord_standin, by_shard[1])
    first = start_shard(discord_standin, database, 1, tmp_path / "shard1")
    try:
        await discord_standin.wait_shards_ready(1, timeout=60)
        for index, (settings, what) in enumerate(
            (
                ({"DISCORD_SHARD_COUNT": "2", "DISCORD_SHARD_IDS": "1"}, "runs shard 1"),
                ({"DISCORD_SHARD_COUNT": "2"}, "runs another layout of the shards"),
            )
        ):
            code, line = await asyncio.to_thread(
                refused, discord_standin, database, tmp_path / f"again{index}", settings
            )
            assert code == EXIT_IN_USE, line
            assert what in line, line
            assert "shards 1 of 2" in line, line
        assert first.poll() is None, "the first process keeps running"
        await table.open()
        await table.play("d1-c1")
        assert table.boards() == 2  # the first board and the move's: posted once each
    finally:
        stop_bots([first])
