"""Computer games of two shard processes, played by two worker processes; one worker is
SIGKILLed mid-search and its job completes on the other (issue 15's end-to-end test).

One throwaway PostgreSQL database, one stand-in, two ``python -m bot`` processes (shards 0 and
1 of 2) and two ``python -m bot.ai_worker --processes 1`` processes with the heartbeat the README
documents (10 s). A player in a server of each shard challenges the computer and plays it in the
game's thread. While a worker searches shard 1's move (its job ``picked`` by that worker's queue
manager in pgqueuer's table), it is killed; the move comes from the other worker, is posted once
in the right thread by shard 1's process, and both games play on. Every computer answer is timed
against its level's time, plus the README's retry allowance for the killed job.
"""

from __future__ import annotations

import asyncio
import logging
import re
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import asyncpg

from bot.ai_queue import ENTRYPOINT, MoveRequest
from bot.services import Services
from engine import Game
from engine.book import book_move
from engine.search import LEVELS, choose_move
from tests.bot_processes import stop_bots
from tests.conftest import postgres_database
from tests.discord_standin import DiscordStandin, FakeChannel, FakeGuild, FakeMember
from tests.discord_standin.command_options import OptionValue
from tests.discord_standin.recorder import RestCall, StoredMessage
from tests.postgres_server import PostgresServer
from tests.scale_processes import Workers, guild_of_each_shard, start_shard, tcp_ports

pytest_plugins = ["tests.discord_standin.fixtures"]

_log = logging.getLogger(__name__)

LEVEL = {0: 2, 1: 5}
"""The computer's level in each shard's game (each level's own time: 0.3 s and 2 s)."""
KILLED_IN = 1
"""The shard whose game's search is killed."""
POSTING = 3.0
"""Seconds beyond the level's time for the queue, the database, drawing and posting the board
(every process of the test shares 2 busy cores)."""
RETRY = 15.0
"""README: a job whose worker fell silent for 10 s is picked up again, by a worker that looks
for one every 5 s while idle."""
ROUNDS_AFTER_KILL = 2
PLAYED = re.compile(r"\) played ([a-g][1-7]-[a-g][1-7])")


def is_board(message: StoredMessage) -> bool:
    return any(a.filename.endswith(".png") for a in message.attachments)


class ComputerGame:
    """A player in a server of one shard playing the computer (attackers) in a thread."""

    def __init__(
        self,
        standin: DiscordStandin,
        guild: FakeGuild,
        shard: int,
        services: Services,
        shards: dict[int, subprocess.Popen[bytes]],
    ) -> None:
        self.standin = standin
        self.guild = guild
        self.shard = shard
        self.level = LEVEL[shard]
        self.services = services
        self.shards = shards
        self.player: FakeMember = standin.add_member(guild, f"dana-{shard}")
        self.thread: FakeChannel = guild.channel("games")
        self.answers: list[float] = []
        """Seconds each computer move took to be posted, from the moment it was asked for."""
        self.killed_answer: float | None = None

    @property
    def level_time(self) -> float:
        return LEVELS[self.level].default_time

    async def open(self) -> None:
        """Challenge the computer as the defenders: its thread opens and the computer moves."""
        me = self.guild.member(self.standin.bot_user.id)
        assert me is not None
        options: dict[str, OptionValue] = {"opponent": me, "level": self.level, "side": "defenders"}
        asked = await self.standin.slash(
            self.guild, self.thread, self.player, "challenge", options, timeout=20
        )
        line = await asked.wait_original(timeout=20)
        started = time.monotonic()
        await self.wait(lambda: line.thread is not None, 20)  # started from the answer
        assert line.thread is not None
        self.thread = line.thread
        await self.wait(lambda: self.boards_asking() >= 1)
        self.answers.append(time.monotonic() - started)
        newest = [m for m in self.standin.messages(self.thread) if is_board(m)][-1]
        assert "(attackers) played" in newest.content, newest.content
        await self.check_sender("POST", f"/channels/{self.thread.id}/messages")

    def boards_asking(self) -> int:
        """Boards in the thread that ask the player to move."""
        return sum(
            1
            for m in self.standin.messages(self.thread)
            if is_board(m) and f"<@{self.player.id}>, your move" in m.content
        )

    async def wait(self, condition: Callable[[], bool], seconds: float = 60) -> None:
        await self.standin.wait_until(
            condition, timeout=seconds, waiting_for=f"shard {self.shard}'s game"
        )

    async def position(self) -> Game:
        """The game as the database has it."""
        active = await self.services.games.in_channel(self.thread.id)
        assert active is not None
        return active.game

    async def next_move(self) -> tuple[str, list[str], bool]:
        """The player's next move (a weak one that does not end the game), the moves after it,
        and whether the computer's answer will be searched (not taken from the book)."""
        game = await self.position()
        choice = str(choose_move(game, level=1, seed=game.ply).move)
        for move in [choice, *sorted(str(m) for m in game.legal_moves())]:
            game.play(move)
            if game.outcome is None:
                moves = [str(r.move) for r in game.records]
                return move, moves, book_move(game.board) is None
            game.undo()
        raise AssertionError("every move of the player ends the game")

    async def play_round(self, move: str, *, retried: bool = False) -> None:
        """The player moves; the computer's board replaces the "thinking" line. ``retried``: the
        worker searching this move is killed and another takes the job again."""
        record = await self.standin.slash(
            self.guild, self.thread, self.player, "move", {"move": move}, timeout=20
        )
        line = await record.wait_original(timeout=20)
        asked = time.monotonic()
        assert not line.ephemeral, line.content
        assert "I am thinking" in line.content, line.content
        await self.wait(lambda: line.edit_count > 0)
        took = time.monotonic() - asked
        assert is_board(line), line.content
        assert f"<@{self.player.id}>, your move" in line.content, line.content
        await self.check_sender("PATCH", f"/channels/{self.thread.id}/messages/{line.id}")
        if retried:
            self.killed_answer = took
        else:
            self.answers.append(took)

    async def check_sender(self, method: str, path: str) -> None:
        """The newest such request came from this game's shard process, not the other one."""

        def sent() -> RestCall | None:
            calls = [
                c
                for c in self.standin.rest_log
                if c.method == method and c.path.endswith(path) and c.status == 200
            ]
            return calls[-1] if calls else None

        await self.wait(lambda: sent() is not None, 10)
        call = sent()
        assert call is not None
        assert call.client_port is not None
        owner, other = self.shards[self.shard], self.shards[1 - self.shard]
        assert call.client_port in tcp_ports(owner.pid), (self.shard, call)
        assert call.client_port not in tcp_ports(other.pid), (self.shard, call)

    async def check_thread(self) -> list[str]:
        """The moves in the database are the moves posted in the thread, in order, each board
        once; the computer's moves returned."""
        game = await self.position()
        stored = [str(r.move) for r in game.records]
        posted = [m for m in self.standin.messages(self.thread) if not m.ephemeral]
        assert [move for m in posted for move in PLAYED.findall(m.content)] == stored
        rounds = len(stored) // 2
        # The opening board, the computer's first move, then one board a round: the answer to
        # the player's /move, its "thinking" line edited into the board.
        assert sum(1 for m in posted if is_board(m)) == 2 + rounds
        answers = [m for m in posted if m.interaction is not None]
        assert len(answers) == rounds
        assert all(is_board(m) for m in answers)
        return stored[0::2]


async def kill_mid_search(database: str, workers: Workers, moves: list[str]) -> tuple[int, int]:
    """SIGKILL the worker whose queue manager holds the job for the position after ``moves``
    (picked, so its search is under way); the job's id and the worker's index."""
    connection = await asyncpg.connect(database)
    try:
        deadline = time.monotonic() + 30
        while True:
            rows = await connection.fetch(
                "SELECT id, queue_manager_id, payload FROM pgqueuer"
                " WHERE status = 'picked' AND entrypoint = $1",
                ENTRYPOINT,
            )
            for row in rows:
                if list(MoveRequest.decode(row["payload"]).moves) != moves:
                    continue
                holder = str(row["queue_manager_id"])
                index = next(
                    i for i in range(len(workers.processes)) if workers.queue_manager(i) == holder
                )
                workers.processes[index].send_signal(signal.SIGKILL)
                workers.processes[index].wait()
                return int(row["id"]), index
            assert time.monotonic() < deadline, "the job was never picked"
            await asyncio.sleep(0.02)
    finally:
        await connection.close()


async def test_a_killed_workers_job_completes_on_the_other_and_shards_play_on(
    discord_standin: DiscordStandin, postgres: PostgresServer | str, tmp_path: Path
) -> None:
    """Two shards' computer games on two workers; one worker killed mid-search: its job
    completes on the other, posted once in the right thread; every answer in time."""
    database = await postgres_database(postgres)
    guilds = await guild_of_each_shard(discord_standin, ["games"])
    workers = Workers(database, tmp_path)  # the documented heartbeat: 10 s
    shards: dict[int, subprocess.Popen[bytes]] = {}
    services: Services | None = None
    try:
        workers.start()
        workers.start()
        for shard in guilds:
            shards[shard] = start_shard(discord_standin, database, shard, tmp_path / f"s{shard}")
        await discord_standin.wait_synced("challenge", "move", timeout=60)
        await discord_standin.wait_shards_ready(0, 1, timeout=60)
        await workers.ready()
        services = await Services.open(database)
        games = {
            shard: ComputerGame(discord_standin, guild, shard, services, shards)
            for shard, guild in guilds.items()
        }
        await asyncio.gather(*(game.open() for game in games.values()))

        # Rounds in both games at once until shard 1's computer has to search (out of book):
        # that round's search is the one killed.
        killed: tuple[int, int] | None = None
        for _ in range(6):
            plans = {shard: await game.next_move() for shard, game in games.items()}
            move, moves, searched = plans[KILLED_IN]
            other = games[1 - KILLED_IN].play_round(plans[1 - KILLED_IN][0])
            if not searched:
                await asyncio.gather(other, games[KILLED_IN].play_round(move))
                continue
            killed, _, _ = await asyncio.gather(
                kill_mid_search(database, workers, moves),
                other,
                games[KILLED_IN].play_round(move, retried=True),
            )
            break
        assert killed is not None, "shard 1's computer never left its opening book"
        job_id, dead = killed
        alive = 1 - dead
        # Killed mid-search: the dead worker never stored the move; the other did, once.
        assert not workers.answered(dead, job_id), workers.log(dead)
        assert workers.log(alive).count(f" Job {job_id}: ") == 1, workers.log(alive)

        # The dead worker is started again (as its service manager would) once its job is
        # done, and both games play on.
        workers.start()
        await workers.ready()
        for _ in range(ROUNDS_AFTER_KILL):
            plans = {shard: await game.next_move() for shard, game in games.items()}
            await asyncio.gather(
                *(games[shard].play_round(plan[0]) for shard, plan in plans.items())
            )

        for game in games.values():
            _log.info(
                "shard %d, level %d: answers in %s s; the killed search's in %s s",
                game.shard,
                game.level,
                ", ".join(f"{took:.2f}" for took in game.answers),
                "-" if game.killed_answer is None else f"{game.killed_answer:.2f}",
            )
            for took in game.answers:
                assert took < game.level_time + POSTING, (game.shard, game.answers)
        killed_game = games[KILLED_IN]
        assert killed_game.killed_answer is not None
        assert killed_game.killed_answer < killed_game.level_time + RETRY + POSTING

        # Nothing doubled or lost: every computer move stored is posted once in its own thread,
        # and each was one job answered once.
        computer_moves = sum([len(await game.check_thread()) for game in games.values()], 0)
        await workers.logged(computer_moves)
        answered = sum(workers.jobs(index) for index in range(len(workers.processes)))
        assert answered == computer_moves, [workers.log(i) for i in range(3)]
        connection = await asyncpg.connect(database)
        try:
            assert await connection.fetchval("SELECT count(*) FROM pgqueuer") == 0
        finally:
            await connection.close()
    finally:
        if services is not None:
            await services.close()
        stop_bots(shards.values())
        workers.stop()
