"""The words a picture and its alt text use, in the caller's language.

The renderer writes English unless it is handed other ``Words``: any object with gettext-style
``_`` / ``n_`` / ``gettext`` methods. The bot passes its :class:`bot.i18n.Language` (the
catalogs there hold the renderer's sentences too: they are marked with ``words._("...")``, which
Babel extracts). The renderer itself imports no translation machinery.
"""

from __future__ import annotations

from typing import Protocol


class Words(Protocol):
    """How sentences are said: translated, then their ``{placeholders}`` filled in."""

    def _(self, msgid: str, /, **params: object) -> str:
        """``msgid`` said in this language, with its placeholders filled in."""
        ...

    def n_(self, singular: str, plural: str, count: int, /, **params: object) -> str:
        """The form for ``count`` (also the ``{count}`` placeholder)."""
        ...

    def gettext(self, msgid: str) -> str:
        """A message id marked elsewhere (a ruleset's title), without placeholders."""
        ...


class English:
    """The renderer's own language: the message ids as they are."""

    def _(self, msgid: str, /, **params: object) -> str:
        return msgid.format(**params)

    def n_(self, singular: str, plural: str, count: int, /, **params: object) -> str:
        return (singular if count == 1 else plural).format(count=count, **params)

    def gettext(self, msgid: str) -> str:
        return msgid


ENGLISH: Words = English()

__all__ = ["ENGLISH", "English", "Words"]
