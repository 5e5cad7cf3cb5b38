"""``python -m bot`` in processes of its own against the Discord stand-in (tests and benchmarks).

The bot runs exactly as deployed: its settings come from the environment, here the stand-in's
addresses and token, the database (an SQLite file or a PostgreSQL URL) and, for a shard
process, ``DISCORD_SHARD_COUNT`` and ``DISCORD_SHARD_IDS``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO

from tests.discord_standin import DiscordStandin

ROOT = Path(__file__).resolve().parent.parent


def clean_env(*prefixes: str) -> dict[str, str]:
    """This environment without the variables starting with ``prefixes``, importing this tree."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    env["PYTHONPATH"] = str(ROOT)
    return env


def bot_env(standin: DiscordStandin, database: str, **extra: str) -> dict[str, str]:
    """The environment of a bot process on ``database``, pointed at the stand-in; ``extra``
    adds or overrides variables (``BRANDUBH_TIMER_SECONDS="0.2"``)."""
    env = clean_env("DISCORD_", "BRANDUBH_")
    env.update(standin.env)
    env.update(
        {
            "BRANDUBH_DB": database,
            "BRANDUBH_GUILD_READY_TIMEOUT": "0.1",
            "BRANDUBH_LOG_LEVEL": "WARNING",
        }
    )
    env.update(extra)
    return env


def start_bot(
    standin: DiscordStandin,
    database: str,
    folder: Path,
    *,
    shard: tuple[int, int] | None = None,
    log: IO[bytes] | None = None,
    settings: Mapping[str, str] | None = None,
    command: Sequence[str] = ("-m", "bot"),
) -> subprocess.Popen[bytes]:
    """Start ``python -m bot`` in ``folder`` (created if missing); ``shard`` is
    ``(shard_id, shard_count)`` for a process running that one shard; ``log`` takes its
    output (standard output and error; by default this process's own); ``settings`` adds or
    overrides environment variables; ``command`` replaces ``-m bot`` (a wrapper that runs it,
    such as ``benchmarks.profiled_bot``)."""
    extra = dict(settings or {})
    if shard is not None:
        shard_id, count = shard
        extra = {"DISCORD_SHARD_COUNT": str(count), "DISCORD_SHARD_IDS": str(shard_id), **extra}
    folder.mkdir(parents=True, exist_ok=True)
    env = bot_env(standin, database, **extra)
    return subprocess.Popen([sys.executable, *command], cwd=folder, env=env, stdout=log, stderr=log)


def stop_bots(processes: Iterable[subprocess.Popen[bytes]], *, timeout: float = 20) -> None:
    """SIGTERM every process still running, wait for each, and SIGKILL any that lingers."""
    running = [process for process in processes if process.poll() is None]
    for process in running:
        process.send_signal(signal.SIGTERM)
    for process in running:
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
