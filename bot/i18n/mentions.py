"""Slash commands named in messages become Discord's command mentions once their ids are known.

A message names a command as a player types it, in backticks: ``"`/games` lists where the games
are"``. Discord shows ``</games:ID>`` as the command itself, and a click puts it in the reader's
message box — in every language, whatever the command's localized name there (a German reader's
menu lists ``/partien``, not ``/games``). That needs the command's id, which only Discord knows:
the bot reads its global commands' ids at start-up (:func:`learn`), and from then on
:meth:`bot.i18n.Language.render` writes every command it knows this way. A command written with
options (``/move d1-d3``) stays text, since a mention cannot carry options; so does everything
while no ids are known (a development guild's commands have an id per guild).

This module imports neither Discord nor Babel.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_NAMED = re.compile(r"`/([a-z0-9_-]{1,32}(?: [a-z0-9_-]{1,32}){0,2})`")
"""A command in backticks: its name and up to two subcommand names, nothing else."""

_ids: dict[str, int] = {}
"""Each command's full name (``games``, ``puzzle play``) and its id."""


def learn(ids: Mapping[str, int]) -> None:
    """The commands that may be mentioned, by full name, with their ids (replaces the ones
    known before; empty: none)."""
    _ids.clear()
    _ids.update(ids)


def link(text: str) -> str:
    """``text`` with each known command in backticks written as Discord's mention of it."""
    if not _ids or "`/" not in text:
        return text
    return _NAMED.sub(_mention, text)


def _mention(match: re.Match[str]) -> str:
    name = match[1]
    command_id = _ids.get(name)
    return match[0] if command_id is None else f"</{name}:{command_id}>"
