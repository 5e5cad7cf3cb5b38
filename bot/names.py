"""Players' names as the bot shows them: never as Markdown, never as a mention, never turning
the rest of the line around."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol

import discord

from bot.alike_names import NamesToldApart, skeleton, told_apart, visible
from bot.i18n.directions import isolated, without_direction_controls
from bot.i18n.language import Language

ZERO_WIDTH_SPACE = "\u200b"

_MARKUP = re.compile(r"(?<=<)(?=[#/:]|a:|t:|id:)|(?<=:)(?=//)")
"""Where Discord reads more than text in a message: the ``<`` of a channel, command, emoji,
timestamp or server guide mention (``<#123…>``, ``</move:123…>``, ``<t:…>``), and the ``//``
after a link's scheme (``https://…``, linked and previewed). A zero-width space there leaves
the name as it reads and makes it plain text."""


def passes_for(name: str, mine: str) -> bool:
    """Whether ``name`` reads as ``mine`` (the bot's name), alone or with something in
    parentheses after it, as the computer is named in a game ("Brandubh (level 3)")."""
    shown, own = skeleton(name), skeleton(mine)
    rest = shown[len(own) :].lstrip()
    return bool(own) and shown.startswith(own) and (not rest or rest.startswith("("))


def _not_mine(name: str, user: discord.abc.User, me: discord.abc.User | None) -> str:
    """``name``, or ``user``'s username if ``name`` passes for ``me`` (:func:`passes_for`):
    a member nicknamed "Brandubh (level 3)" would otherwise play, rank and be exported as the
    computer."""
    if me is None or user.id == me.id:
        return name
    mine = {me.name} | ({me.global_name} if me.global_name else set())
    return user.name if any(passes_for(name, each) for each in mine) else name


def account_name(user: discord.abc.User, me: discord.abc.User | None = None) -> str:
    """The name of ``user``'s account, the same in every server: their global display name,
    else their username (a nickname belongs to one server) — the username too when the
    global name shows nothing (:func:`visible`; a username is letters, digits, ``_`` and
    ``.`` only) or passes for mine (``me``: :func:`passes_for`)."""
    shown = user.global_name
    return _not_mine(shown, user, me) if shown is not None and visible(shown) else user.name


def shown_name(user: discord.abc.User, me: discord.abc.User | None = None) -> str:
    """The name ``user`` goes by where they are: a member's nickname in their server, else
    :func:`account_name` — passing over a nickname that shows nothing or passes for mine
    (``me``), as over such a global name."""
    nick = user.nick if isinstance(user, discord.Member) else None
    if nick is None or not visible(nick) or _not_mine(nick, user, me) != nick:
        return account_name(user, me)
    return nick


def escaped(name: str) -> str:
    """A display name safe to show in a message: its Markdown, mentions, links and other
    Discord markup are inert, its direction controls (such as U+202E) are taken out, and a
    name written right to left is isolated, so the sentence around it keeps its own
    direction."""
    name = without_direction_controls(name)
    safe = discord.utils.escape_mentions(discord.utils.escape_markdown(name))
    return isolated(_MARKUP.sub(ZERO_WIDTH_SPACE, safe))


def player_name(name: str | None, lang: Language) -> str:
    """A player's stored ``name`` as a message shows it (:func:`escaped`); ``None``, a player
    the bot was never told the name of, is "a player" in ``lang`` — never a mention, which
    shows bare digits to a reader Discord does not show that member (one who left); nor is a
    name stored before names that show nothing were passed over (:func:`shown_name`)."""
    return escaped(name if name is not None and visible(name) else lang._("a player"))


def mention(user_id: int, names: NamesToldApart | None = None) -> str:
    """``user_id``'s mention ("<@1>"), followed by their username where ``names`` (a game's
    or a pair's, :class:`NamesToldApart`) told them apart by it: "<@1> (@alex\\_w)", so that
    two members both shown "@alex" read apart. The username is the stored one, never taken
    out of a display name (a member may be named "bob (@alice)")."""
    usernames = names.usernames if names is not None else {}
    username = usernames.get(user_id)
    return f"<@{user_id}>" if username is None else f"<@{user_id}> (@{escaped(username)})"


class Row(Protocol):
    """A list's row naming a user: a leaderboard's line."""

    @property
    def user_id(self) -> int: ...
    @property
    def display_name(self) -> str | None: ...
    @property
    def username(self) -> str | None: ...


def rows_told_apart(rows: Iterable[Row]) -> dict[int, str | None]:
    """The names of ``rows`` (by user id) as one list shows them: :func:`told_apart`."""
    listed = list(rows)
    return told_apart(
        {row.user_id: row.display_name for row in listed},
        {row.user_id: row.username for row in listed},
    )
