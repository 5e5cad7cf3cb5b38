"""Players' names as the bot shows them: never as Markdown, never as a mention, never turning
the rest of the line around."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Protocol, TypeVar

import discord

from bot.i18n.directions import isolated, without_direction_controls
from bot.i18n.language import Language

ZERO_WIDTH_SPACE = "\u200b"

_MARKUP = re.compile(r"(?<=<)(?=[#/:]|a:|t:|id:)|(?<=:)(?=//)")
"""Where Discord reads more than text in a message: the ``<`` of a channel, command, emoji,
timestamp or server guide mention (``<#123…>``, ``</move:123…>``, ``<t:…>``), and the ``//``
after a link's scheme (``https://…``, linked and previewed). A zero-width space there leaves
the name as it reads and makes it plain text."""


_BLANK = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")
"""Letters and marks drawn as nothing: the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0),
favourites for a name that looks empty, the blank Braille pattern (U+2800), the combining
grapheme joiner (U+034F) and Khmer's invisible vowels (U+17B4, U+17B5)."""


def _invisible(char: str) -> bool:
    """Whether ``char`` shows nothing on its own: a space, a format character (a zero-width
    space, a joiner, a soft hyphen, a direction mark), a control, a variation selector, or a
    blank letter or mark (:data:`_BLANK`)."""
    if char.isspace() or char in _BLANK or "\ufe00" <= char <= "\ufe0f":
        return True
    return unicodedata.category(char) in {"Cf", "Cc", "Zs", "Zl", "Zp"}


def visible(name: str) -> bool:
    """Whether ``name`` shows anything: a name of zero-width spaces or Hangul fillers would
    read as nobody ("ㅤ accepted", "Head to head with ㅤ")."""
    return not all(map(_invisible, name))


_LOOK_ALIKES = str.maketrans(
    # Cyrillic аеорсухіјѕԁӏһԛԝү АВЕКМНОРСТУХІЈЅӀҮԚԜ, then Greek ινορυ ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ
    "аеорсухіјѕԁӏһԛԝүАВЕКМНОРСТУХІЈЅӀҮԚԜινορυΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "aeopcyxijsdlhqwyABEKMHOPCTYXIJSIYQWivopuABEZHIKMNOPTYX",
)
"""Cyrillic and Greek letters drawn as Latin ones, as the Latin letter: "Вrandubh" (a
Cyrillic В) reads as "Brandubh". Capitals are folded before case is (a Cyrillic В folds to
в, drawn as no Latin letter). Only true look-alikes, as a move's squares are read
(:data:`engine.squares.LOOK_ALIKES`): Greek α and κ, drawn apart from a and k, are not; and a
Cyrillic name reads as itself ("Вера" as "Bepa", no one's name but its own)."""


def _skeleton(name: str) -> str:
    """``name`` as it reads, for comparing: compatibility forms folded (full-width letters),
    Cyrillic and Greek look-alikes of Latin letters made Latin (:data:`_LOOK_ALIKES`), case
    folded, what shows nothing dropped and runs of spaces made one."""
    folded = unicodedata.normalize("NFKC", name).translate(_LOOK_ALIKES).casefold()
    return " ".join("".join(c if c.isspace() or not _invisible(c) else "" for c in folded).split())


def passes_for(name: str, mine: str) -> bool:
    """Whether ``name`` reads as ``mine`` (the bot's name), alone or with something in
    parentheses after it, as the computer is named in a game ("Brandubh (level 3)")."""
    shown, own = _skeleton(name), _skeleton(mine)
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


def alike(names: Mapping[int, str | None]) -> set[int]:
    """The users (keys of ``names``) whose name reads as another's there (:func:`_skeleton`:
    case, look-alike letters and what shows nothing aside): "alex" and "Alex " read alike. A
    name never told (``None``) or showing nothing reads "a player", never told apart."""
    read = {uid: _skeleton(name) for uid, name in names.items() if name and visible(name)}
    counts = Counter(read.values())
    return {uid for uid, skeleton in read.items() if counts[skeleton] > 1}


Name = TypeVar("Name", str, str | None)
"""A list's names: all known (``str``), or some never told (``None``, read "a player")."""


def told_apart(
    names: Mapping[int, Name],
    usernames: Mapping[int, str | None],
    longest: int | None = None,
) -> dict[int, Name]:
    """``names`` (by user id, the names one list shows), each that reads as another of them
    (:func:`alike`) followed by the user's username: "alex (@alex_w)" — its name cut to
    ``longest`` characters if given ("alexand… (@alex_w)"), for a list that would not fit
    Discord's limits otherwise. A unique name stays as it is, as does one whose username was
    never stored (a row from before usernames were)."""
    twins = alike(names)

    def cut(name: str) -> str:
        return name if longest is None or len(name) <= longest else name[: longest - 1] + "…"

    return {
        uid: f"{cut(name)} (@{usernames[uid]})"
        if name and uid in twins and usernames.get(uid)
        else name
        for uid, name in names.items()
    }


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
