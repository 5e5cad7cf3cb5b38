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

from bot.shards import Shards, parse_ids, spans
from bot.storage.database import is_postgresql
from engine.analysis import ANALYSIS_NODES

DEFAULT_API_BASE = "https://discord.com/api/v10"
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg/"
DEFAULT_DB = "brandubh.sqlite3"


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


def _seconds(environ: Mapping[str, str], name: str, default: timedelta) -> timedelta:
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:  # nan, inf and 1e300 are floats, but no duration (timedelta refuses them)
        value = float(raw)
        duration = timedelta(seconds=value)
    except (ValueError, OverflowError):
        raise ConfigError(f"{name} must be a number of seconds, not {raw!r}.") from None
    if value <= 0:
        raise ConfigError(f"{name} must be more than 0 seconds.")
    return duration


def _optional_seconds(environ: Mapping[str, str], name: str) -> timedelta | None:
    if not environ.get(name, "").strip():
        return None
    return _seconds(environ, name, timedelta(0))


def _guild_ids(raw: str) -> tuple[int, ...]:
    ids: list[int] = []
    for part in raw.replace(",", " ").split():
        if not part.isdecimal():
            raise ConfigError(f"DISCORD_GUILD_IDS must list server ids (numbers), not {part!r}.")
        ids.append(int(part))
    return tuple(ids)


MAX_BACKUP_HOURS = 8760


def _backup_interval(raw: str) -> timedelta | None:
    """BRANDUBH_BACKUP_HOURS: 24 by default, 0 for no backups, fractions allowed."""
    if not raw:
        return timedelta(hours=24)
    try:
        hours = float(raw)
    except ValueError:
        hours = math.nan
    if math.isnan(hours):
        message = f"BRANDUBH_BACKUP_HOURS must be a number of hours, not {raw!r}."
        raise ConfigError(message)
    if hours < 0:
        raise ConfigError("BRANDUBH_BACKUP_HOURS must be 0 (no backups) or more.")
    if hours > MAX_BACKUP_HOURS:  # inf too: the next backup's date must fit in a datetime
        raise ConfigError(
            f"BRANDUBH_BACKUP_HOURS must be at most {MAX_BACKUP_HOURS} (a year), not {raw!r}."
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
    if not count_raw.isdecimal() or int(count_raw) < 1:
        raise ConfigError(
            f"DISCORD_SHARD_COUNT must be a whole number of 1 or more, not {count_raw!r}."
        )
    count = int(count_raw)
    if not ids_raw:
        return count, None
    try:
        ids = parse_ids(ids_raw)
    except ValueError:
        raise ConfigError(
            f"DISCORD_SHARD_IDS must list shard ids such as 0-3 or 0,2, not {ids_raw!r}."
        ) from None
    outside = [shard for shard in ids if shard >= count]
    if outside:
        raise ConfigError(
            f"DISCORD_SHARD_IDS names shard {outside[0]}, but with DISCORD_SHARD_COUNT={count} "
            f"the shards are 0-{count - 1}."
        )
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
    workers_raw = env.get("BRANDUBH_AI_WORKERS", "").strip() or "0"
    if not workers_raw.isdecimal():
        raise ConfigError(f"BRANDUBH_AI_WORKERS must be a whole number, not {workers_raw!r}.")
    nodes_raw = env.get("BRANDUBH_ANALYSIS_NODES", "").strip() or str(ANALYSIS_NODES)
    if not nodes_raw.isdecimal() or int(nodes_raw) < 1000:
        raise ConfigError(
            f"BRANDUBH_ANALYSIS_NODES must be a whole number of at least 1000, not {nodes_raw!r}."
        )
    ai_nodes_raw = env.get("BRANDUBH_AI_NODES", "").strip()
    if ai_nodes_raw and (not ai_nodes_raw.isdecimal() or int(ai_nodes_raw) < 1):
        raise ConfigError(
            f"BRANDUBH_AI_NODES must be a whole number of at least 1, not {ai_nodes_raw!r}."
        )
    ready_timeout = _seconds(env, "BRANDUBH_GUILD_READY_TIMEOUT", timedelta(seconds=2))
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
        ai_time=_optional_seconds(env, "BRANDUBH_AI_SECONDS"),
        ai_nodes=int(ai_nodes_raw) if ai_nodes_raw else None,
        ai_workers=int(workers_raw),
        analysis_nodes=int(nodes_raw),
        timer_interval=_seconds(env, "BRANDUBH_TIMER_SECONDS", timedelta(seconds=5)),
        guild_ready_timeout=ready_timeout.total_seconds(),
        log_level=_log_level(env.get("BRANDUBH_LOG_LEVEL", "").strip()),
        backup_interval=backup_interval,
    )
