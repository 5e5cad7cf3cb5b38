"""Sync slash commands only when they changed since the last sync.

Discord rate-limits command syncs, and syncing at every start-up is the classic way to hit that
limit. The payload discord.py would send is hashed per scope (global, or one development guild)
and the hashes are kept in a small JSON file next to the database; a scope is synced only when
its hash differs.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import discord
from discord import app_commands

from bot.unreachable import UNREACHABLE

_log = logging.getLogger(__name__)


async def commands_hash(
    tree: app_commands.CommandTree[Any], guild: discord.abc.Snowflake | None
) -> str:
    """A stable hash of the command payloads discord.py would sync for ``guild`` (or globally),
    translations included: a changed catalog is synced like a changed command."""
    commands = tree.get_commands(guild=guild)
    translator = tree.translator
    if translator is None:
        payload = [command.to_dict(tree) for command in commands]
    else:
        payload = [await command.get_translated_payload(tree, translator) for command in commands]
    payload.sort(key=lambda command: (str(command.get("type", 1)), str(command["name"])))
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def state_file_for(db_path: Path) -> Path:
    """Where the hashes of the last sync are kept: beside the database file."""
    return db_path.with_name(db_path.name + ".commands.json")


def _read_state(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        _log.warning("Ignoring unreadable command sync state in %s", path)
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(key): str(value) for key, value in data.items()}


def _write_state(path: Path, state: dict[str, str]) -> None:
    """Keep the hashes; a place the bot may not write (a read-only working directory) costs
    only a sync at the next start, so it is logged, not raised."""
    try:
        path.write_text(json.dumps(state, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    except OSError as error:
        _log.warning(
            "Could not keep the command sync state in %s (%s); the next start syncs again",
            path,
            error,
        )


async def sync_if_changed(
    tree: app_commands.CommandTree[Any],
    *,
    application_id: int,
    guild_ids: Sequence[int],
    state_file: Path,
) -> list[str]:
    """Sync the scopes whose commands changed; return the scopes synced (``global``, ``guild:N``).

    With ``guild_ids`` the global commands are copied to those guilds and synced there (fast to
    update while developing); otherwise they are synced globally. A scope Discord cannot take
    just now (a long rate limit: syncs have a daily one; a 5xx) keeps the commands synced
    before, and is synced at the next start.
    """
    state = _read_state(state_file)
    guilds: list[discord.abc.Snowflake | None]
    if guild_ids:
        guilds = [discord.Object(guild_id) for guild_id in guild_ids]
        for guild in guilds:
            assert guild is not None
            tree.copy_global_to(guild=guild)
    else:
        guilds = [None]
    synced: list[str] = []
    for guild in guilds:
        scope = "global" if guild is None else f"guild:{guild.id}"
        key = f"{application_id}:{scope}"
        digest = await commands_hash(tree, guild)
        if state.get(key) == digest:
            _log.info("Commands for %s unchanged; not syncing", scope)
            continue
        try:
            await tree.sync(guild=guild)
        except UNREACHABLE as error:  # the bot starts on the commands synced before
            _log.warning(
                "Could not sync the commands for %s (the next start tries): %r", scope, error
            )
            continue
        state[key] = digest
        _write_state(state_file, state)
        synced.append(scope)
        _log.info("Synced commands for %s", scope)
    return synced
