"""Discord's mentions of the bot's slash commands, once their ids are known.

Discord shows ``</games:ID>`` as the command itself, and a click puts it in the reader's message
box. That needs the command's id, which only Discord knows: the bot reads its global commands'
ids at start-up (:func:`learn`), and from then on a command a message names bare
(:func:`bot.i18n.slash.command`) is written as its mention, where the reader's language names it
as English does (:mod:`bot.i18n.slash` says why only there). A command written with options
(``/move d1-d3``) stays text, since a mention cannot carry options; so does every command while
no ids are known (a development guild's commands have an id per guild).

This module imports neither Discord nor Babel.
"""

from __future__ import annotations

from collections.abc import Mapping

_ids: dict[str, int] = {}
"""Each command's full name (``games``, ``puzzle play``) and its id."""


def learn(ids: Mapping[str, int]) -> None:
    """The commands that may be mentioned, by full name, with their ids (replaces the ones
    known before; empty: none)."""
    _ids.clear()
    _ids.update(ids)


def mention(name: str) -> str | None:
    """Discord's mention of the command ``name`` (its full English name, ``puzzle play``), or
    ``None`` while its id is unknown."""
    command_id = _ids.get(name)
    return None if command_id is None else f"</{name}:{command_id}>"


__all__ = ["learn", "mention"]
