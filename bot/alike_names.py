"""Whether players' names read alike, and telling those that do apart by their usernames:
plain text, no Discord (the services name a game's players with it too)."""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

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


def skeleton(name: str) -> str:
    """``name`` as it reads, for comparing: compatibility forms folded (full-width letters),
    Cyrillic and Greek look-alikes of Latin letters made Latin (:data:`_LOOK_ALIKES`), case
    folded, what shows nothing dropped and runs of spaces made one."""
    folded = unicodedata.normalize("NFKC", name).translate(_LOOK_ALIKES).casefold()
    return " ".join("".join(c if c.isspace() or not _invisible(c) else "" for c in folded).split())


def alike(names: Mapping[int, str | None]) -> set[int]:
    """The users (keys of ``names``) whose name reads as another's there (:func:`skeleton`:
    case, look-alike letters and what shows nothing aside): "alex" and "Alex " read alike. A
    name never told (``None``) or showing nothing reads "a player", never told apart."""
    read = {uid: skeleton(name) for uid, name in names.items() if name and visible(name)}
    counts = Counter(read.values())
    return {uid for uid, skeleton in read.items() if counts[skeleton] > 1}


def cut(name: str, longest: int | None) -> str:
    """``name`` cut to ``longest`` characters if it is longer ("alexand…"), for a list or a
    message that would not fit Discord's limits otherwise."""
    return name if longest is None or len(name) <= longest else name[: longest - 1].rstrip() + "…"


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
    return {
        uid: f"{cut(name, longest)} (@{usernames[uid]})"
        if name and uid in twins and usernames.get(uid)
        else name
        for uid, name in names.items()
    }


class NamesToldApart(dict[int, str]):
    """Players' names (by user id) as one message shows them, those reading alike told apart
    (:func:`told_apart`), with the usernames that told them apart (:attr:`usernames`, none
    for a list where no two names read alike), which their mentions there carry too."""

    def __init__(self, names: Mapping[int, str], usernames: Mapping[int, str]) -> None:
        super().__init__(names)
        self.usernames: Mapping[int, str] = usernames
        """The usernames of those players whose names read alike (stored ones only)."""

    def shown_alike(self) -> dict[int, str]:
        """These names without the usernames that told them apart ("alex"): for a message
        that would not fit Discord's limits otherwise."""
        return {
            uid: name.removesuffix(f" (@{self.usernames[uid]})") if uid in self.usernames else name
            for uid, name in self.items()
        }


async def read_apart(
    names: Mapping[int, str], usernames: Callable[[list[int]], Awaitable[Mapping[int, str]]]
) -> NamesToldApart:
    """``names`` with those reading alike (:func:`alike`) told apart by their usernames
    ("alex (@alex_w)": :func:`told_apart`), which ``usernames`` reads (from the database)
    for those only: none is read when no two names read alike. What ``usernames`` raises
    goes through."""
    twins = alike(names)
    found = dict(await usernames(sorted(twins))) if twins else {}
    return NamesToldApart(told_apart(names, found), found)
