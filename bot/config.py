"""The bot's settings, read from the environment (and a ``.env`` file) once at start-up."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import discord
import yarl

from bot.ai_pool import MAX_WORKERS
from bot.shards import ShardOutside, Shards, parse_ids, spans
from bot.storage.database import is_postgresql
from engine.analysis import ANALYSIS_NODES

DEFAULT_API_BASE = "https://discord.com/api/v10"
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg/"
DEFAULT_DB = "brandubh.sqlite3"

# Each numeric setting's range (the README's settings table): past it a setting is no longer a
# choice but a slip (10**30 shards, a million processes), or a duration whose deadlines no
# longer fit in a datetime.
MAX_SHARDS = 1000
"""DISCORD_SHARD_COUNT: at most this many shards (Discord's 2,500 servers each: 2.5 million)."""
MAX_SNOWFLAKE = 2**63 - 1
"""DISCORD_GUILD_IDS: Discord's ids are 64-bit; the database keeps them as signed BIGINTs."""
AI_SECONDS = (0.01, 60.0)
"""BRANDUBH_AI_SECONDS: a computer move's seconds at level 5 (a job unanswered for 2 minutes
is asked again)."""
MAX_AI_NODES = 10_000_000
"""BRANDUBH_AI_NODES: a level-5 move's positions (about a minute's search)."""
ANALYSIS_NODES_RANGE = (1000, 1_000_000)
"""BRANDUBH_ANALYSIS_NODES: positions searched per position of an analysis."""
TIMER_SECONDS = (0.05, 60.0)
"""BRANDUBH_TIMER_SECONDS: how often due deadlines are looked for."""
GUILD_READY_SECONDS = (0.01, 60.0)
"""BRANDUBH_GUILD_READY_TIMEOUT: seconds discord.py waits for the servers after READY."""
BACKUP_HOURS = (0.1, 8760.0)
"""BRANDUBH_BACKUP_HOURS, besides 0 (never): from 6 minutes to a year."""


class ConfigError(Exception):
    """A setting is missing or unreadable; ``str()`` is one line for the operator."""


@dataclass(frozen=True)
class Settings:
    """Everything the bot reads from its environment."""

    token: str = field(repr=False)
    """DISCORD_TOKEN: the bot token (never logged, hence ``repr=False``)."""
    db_path: Path = Path(DEFAULT_DB)
    """BRANDUBH_DB as an SQLite file (the default backend)."""
    database_url: str | None = field(default=None, repr=False)
    """BRANDUBH_DB as a ``postgresql://`` URL (it may hold a password, hence ``repr=False``)."""
    shard_count: int | None = None
    """DISCORD_SHARD_COUNT: Discord's shards in all; None: as many as Discord recommends."""
    shard_ids: tuple[int, ...] | None = None
    """DISCORD_SHARD_IDS: the shards this process runs; None: every shard."""
    api_base: str = DEFAULT_API_BASE
    gateway_url: str = DEFAULT_GATEWAY_URL
    guild_ids: tuple[int, ...] = ()
    """Sync commands to these guilds only (development); empty means globally."""
    ai_time: timedelta | None = None
    """How long the computer may think about one move; None: each level's own time."""
    ai_nodes: int | None = None
    """BRANDUBH_AI_NODES: positions the computer searches per move at level 5 (the lower levels
    their share), instead of a time; its moves are then repeatable: the same game, the same
    move, however loaded the machine (the tests; reproducing a reported game)."""
    ai_workers: int = 0
    """Processes for the computer opponent; 0 means one per CPU core."""
    analysis_nodes: int = ANALYSIS_NODES
    """BRANDUBH_ANALYSIS_NODES: positions the analysis's search visits per position of a set."""
    timer_interval: timedelta = timedelta(seconds=5)
    """How often due deadlines (move timers, challenge expiry) are checked."""
    guild_ready_timeout: float = 2.0
    """Seconds discord.py waits for guilds after READY (tests lower it)."""
    log_level: str = "INFO"
    backup_interval: timedelta | None = timedelta(hours=24)
    """BRANDUBH_BACKUP_HOURS: how often a backup copy of the database is taken; None: never."""

    @property
    def database(self) -> str:
        """What the services open: the PostgreSQL URL, or the SQLite file's path."""
        return self.database_url or str(self.db_path)

    @property
    def shards(self) -> Shards:
        """The shards this process runs (every shard of one when not sharded)."""
        if self.shard_count is None:
            return Shards()
        return Shards(self.shard_count, self.shard_ids or tuple(range(self.shard_count)))

    def apply_endpoints(self) -> None:
        """Point discord.py's REST base and gateway at the configured addresses."""
        discord.http.Route.BASE = self.api_base.rstrip("/")
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)


def _seconds(
    environ: Mapping[str, str], name: str, default: timedelta, bounds: tuple[float, float]
) -> timedelta:
    """A number of seconds within ``bounds`` (nan, inf, 1e13 and 1e-300 are not)."""
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    low, high = bounds
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not low <= value <= high:  # nan too
        raise ConfigError(
            f"{name} must be a number of seconds from {low:g} to {high:g}, not {raw!r}."
        )
    return timedelta(seconds=value)


def _optional_seconds(
    environ: Mapping[str, str], name: str, bounds: tuple[float, float]
) -> timedelta | None:
    if not environ.get(name, "").strip():
        return None
    return _seconds(environ, name, timedelta(0), bounds)


def _whole(environ: Mapping[str, str], name: str, low: int, high: int) -> int | None:
    """A whole number from ``low`` to ``high``; None when unset."""
    raw = environ.get(name, "").strip()
    if not raw:
        return None
    # A 5,000-digit value is refused here, before int() would raise on its length.
    digits = raw.lstrip("0") or "0"
    value = int(digits) if digits.isdecimal() and len(digits) <= len(str(high)) else None
    if value is None or not low <= value <= high:
        raise ConfigError(f"{name} must be a whole number from {low} to {high}, not {raw!r}.")
    return value


def _guild_ids(raw: str) -> tuple[int, ...]:
    ids: list[int] = []
    for part in raw.replace(",", " ").split():
        digits = part.lstrip("0")
        value = int(digits) if digits.isdecimal() and len(digits) <= 19 else 0
        if not 1 <= value <= MAX_SNOWFLAKE:
            raise ConfigError(
                f"DISCORD_GUILD_IDS must list server ids (numbers from 1 to {MAX_SNOWFLAKE}), "
                f"not {part!r}."
            )
        ids.append(value)
    return tuple(ids)


def _backup_interval(raw: str) -> timedelta | None:
    """BRANDUBH_BACKUP_HOURS: 24 by default, 0 for no backups, fractions allowed."""
    low, high = BACKUP_HOURS
    if not raw:
        return timedelta(hours=24)
    try:
        hours = float(raw)
    except ValueError:
        hours = math.nan
    if hours != 0 and not low <= hours <= high:  # nan and inf too
        # The next backup's date must fit in a datetime; 1e-300 hours would be no pause at all.
        raise ConfigError(
            f"BRANDUBH_BACKUP_HOURS must be 0 (no backups) or a number of hours from {low:g} "
            f"to {high:g} (a year), not {raw!r}."
        )
    return None if hours == 0 else timedelta(hours=hours)


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def _log_level(raw: str) -> str:
    """BRANDUBH_LOG_LEVEL: one of Python's level names, any case; INFO by default."""
    level = raw.upper() or "INFO"
    if level not in LOG_LEVELS:
        raise ConfigError(
            f"BRANDUBH_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {raw!r}."
        )
    return level


def _address(environ: Mapping[str, str], name: str, default: str, schemes: tuple[str, ...]) -> str:
    """A Discord endpoint setting: an absolute URL with one of ``schemes``."""
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        url = yarl.URL(raw)
    except ValueError:
        url = None
    if url is None or url.scheme not in schemes or not url.host:
        wanted = " or ".join(f"{scheme}://" for scheme in schemes)
        raise ConfigError(f"{name} must be an address starting with {wanted}, not {raw!r}.")
    return raw


def _shards(env: Mapping[str, str], postgresql: bool) -> tuple[int | None, tuple[int, ...] | None]:
    """DISCORD_SHARD_COUNT and DISCORD_SHARD_IDS, checked against each other and the database."""
    count_raw = env.get("DISCORD_SHARD_COUNT", "").strip()
    ids_raw = env.get("DISCORD_SHARD_IDS", "").strip()
    if not count_raw:
        if ids_raw:
            raise ConfigError("DISCORD_SHARD_IDS needs DISCORD_SHARD_COUNT (the shards in all).")
        return None, None
    count = _whole(env, "DISCORD_SHARD_COUNT", 1, MAX_SHARDS)
    assert count is not None  # count_raw is not empty
    if not ids_raw:
        return count, None
    try:
        ids = parse_ids(ids_raw, count)
    except ShardOutside as outside:
        raise ConfigError(
            f"DISCORD_SHARD_IDS names shard {outside.shard}, but with DISCORD_SHARD_COUNT={count} "
            f"the shards are 0-{count - 1}."
        ) from None
    except ValueError:
        raise ConfigError(
            f"DISCORD_SHARD_IDS must list shard ids such as 0-3 or 0,2, not {ids_raw!r}."
        ) from None
    missing = tuple(shard for shard in range(count) if shard not in ids)
    if missing and not postgresql:
        raise ConfigError(
            f"SQLite cannot be shared by several bot processes, and DISCORD_SHARD_IDS={ids_raw} "
            f"leaves shards {spans(missing)} to another: set BRANDUBH_DB to a postgresql:// URL."
        )
    return count, ids


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Read the settings from ``environ`` (default: ``os.environ``); raise ConfigError if wrong."""
    env = os.environ if environ is None else environ
    token = env.get("DISCORD_TOKEN", "").strip()
    if not token:
        raise ConfigError(
            "DISCORD_TOKEN is not set: put the bot token in the environment or in .env "
            "(see .env.example)."
        )
    workers = _whole(env, "BRANDUBH_AI_WORKERS", 0, MAX_WORKERS)
    analysis_nodes = _whole(env, "BRANDUBH_ANALYSIS_NODES", *ANALYSIS_NODES_RANGE)
    ai_nodes = _whole(env, "BRANDUBH_AI_NODES", 1, MAX_AI_NODES)
    ready_timeout = _seconds(
        env, "BRANDUBH_GUILD_READY_TIMEOUT", timedelta(seconds=2), GUILD_READY_SECONDS
    )
    backup_interval = _backup_interval(env.get("BRANDUBH_BACKUP_HOURS", "").strip())
    database = env.get("BRANDUBH_DB", "").strip() or DEFAULT_DB
    postgresql = is_postgresql(database)
    shard_count, shard_ids = _shards(env, postgresql)
    return Settings(
        token=token,
        db_path=Path(DEFAULT_DB if postgresql else database),
        database_url=database if postgresql else None,
        shard_count=shard_count,
        shard_ids=shard_ids,
        api_base=_address(env, "DISCORD_API_BASE", DEFAULT_API_BASE, ("https", "http")),
        gateway_url=_address(env, "DISCORD_GATEWAY_URL", DEFAULT_GATEWAY_URL, ("wss", "ws")),
        guild_ids=_guild_ids(env.get("DISCORD_GUILD_IDS", "")),
        ai_time=_optional_seconds(env, "BRANDUBH_AI_SECONDS", AI_SECONDS),
        ai_nodes=ai_nodes,
        ai_workers=workers or 0,
        analysis_nodes=ANALYSIS_NODES if analysis_nodes is None else analysis_nodes,
        timer_interval=_seconds(env, "BRANDUBH_TIMER_SECONDS", timedelta(seconds=5), TIMER_SECONDS),
        guild_ready_timeout=ready_timeout.total_seconds(),
        log_level=_log_level(env.get("BRANDUBH_LOG_LEVEL", "").strip()),
        backup_interval=backup_interval,
    )
