"""Real processes for the tests of running at scale: ``python -m bot`` shard processes and
``python -m bot.ai_worker`` processes against the stand-in and the throwaway PostgreSQL, and
which process a REST request came from."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from tests.bot_processes import clean_env, start_bot, stop_bots
from tests.discord_standin import DiscordStandin, FakeGuild

SHARDS = 2


def start_shard(
    standin: DiscordStandin,
    database: str,
    shard: int,
    folder: Path,
    extra: Mapping[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    """``python -m bot`` running one shard of two, against the stand-in and PostgreSQL."""
    settings = {"BRANDUBH_TIMER_SECONDS": "0.2", **(extra or {})}
    return start_bot(standin, database, folder, shard=(shard, SHARDS), settings=settings)


async def guild_of_each_shard(standin: DiscordStandin, channels: list[str]) -> dict[int, FakeGuild]:
    """A new server in each of the ``SHARDS`` shards (``(guild_id >> 22) % SHARDS``)."""
    standin.gateway.recommended_shards = SHARDS
    by_shard: dict[int, FakeGuild] = {}
    for index in range(200):
        guild = standin.add_guild(f"Club {index}", channels=channels)
        by_shard.setdefault((guild.id >> 22) % SHARDS, guild)
        if len(by_shard) == SHARDS:
            return by_shard
        await asyncio.sleep(0.002)  # the next snowflake's timestamp moves on
    raise AssertionError(f"no server of each shard in 200 tries: {sorted(by_shard)}")


class Workers:
    """``python -m bot.ai_worker`` processes (one search at a time each) with their logs.

    ``heartbeat`` is the worker's ``--heartbeat`` (None: its default, the documented 10 s).
    """

    def __init__(self, database: str, folder: Path, heartbeat: float | None = None) -> None:
        self.database = database
        self.folder = folder
        self.heartbeat = heartbeat
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self) -> subprocess.Popen[bytes]:
        env = clean_env("BRANDUBH_")
        env["BRANDUBH_LOG_LEVEL"] = "INFO"
        args = ["--database", self.database, "--processes", "1"]
        if self.heartbeat is not None:
            args += ["--heartbeat", str(self.heartbeat)]
        log = self.folder / f"worker{len(self.processes)}.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "bot.ai_worker", *args],
                cwd=self.folder,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        self.processes.append(process)
        return process

    def log(self, index: int) -> str:
        return (self.folder / f"worker{index}.log").read_text()

    def jobs(self, index: int) -> int:
        """Jobs worker ``index`` answered."""
        return self.log(index).count(" Job ")

    async def logged(self, total: int) -> None:
        """Wait until the workers' logs name ``total`` answered jobs in all: a worker logs a
        job just after storing its move, so the bot may take the move, post it and stop before
        the line is written (on a busy machine)."""
        give_up = time.monotonic() + 15
        while sum(self.jobs(index) for index in range(len(self.processes))) < total:
            if time.monotonic() > give_up:
                logs = [self.log(index) for index in range(len(self.processes))]
                raise AssertionError(f"fewer than {total} jobs logged after 15 s: {logs}")
            await asyncio.sleep(0.05)

    def answered(self, index: int, job_id: int) -> bool:
        """Whether worker ``index`` stored its move for job ``job_id``."""
        return f" Job {job_id}: " in self.log(index)

    def queue_manager(self, index: int) -> str:
        """Worker ``index``'s pgqueuer queue manager id (from its first line)."""
        found = re.search(r"taking jobs from .* \(queue manager ([0-9a-f-]+)\)", self.log(index))
        assert found is not None, self.log(index)
        return found.group(1)

    async def ready(self) -> None:
        """Wait until every started worker is taking jobs."""
        deadline = time.monotonic() + 30
        for index in range(len(self.processes)):
            while "taking jobs" not in self.log(index):
                assert time.monotonic() < deadline, self.log(index)
                await asyncio.sleep(0.05)

    def stop(self) -> None:
        stop_bots(self.processes)


def tcp_ports(pid: int) -> set[int]:
    """The local ports of the IPv4 TCP sockets process ``pid`` holds open (Linux ``/proc``)."""
    inodes: set[str] = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    ports: set[int] = set()
    for line in Path(f"/proc/{pid}/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[9] in inodes:
            ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports
