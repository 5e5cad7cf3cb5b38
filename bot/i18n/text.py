"""Messages that are said later, in the reader's language: :class:`Text`, made by ``_`` / ``n_``.

A ``Text`` holds an English message id (the sentence itself, with ``{name}`` placeholders) and
its parameters; nothing is translated until :meth:`Language.render` is given it. Services use it
for their refusals (the error handler renders them in the reader's language), flows for what
they post later. Parameters may themselves be a :class:`Phrase` — a ``Text``, or a slash
command as the reader's Discord names it (:mod:`bot.i18n.slash`) — said in the same language.

This module imports neither Discord nor Babel: the services and storage may use it.
"""

from __future__ import annotations

import gettext
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from bot.i18n.typed import as_shown
from engine import IllegalMoveError
from engine.errors import Echo

Mention = Callable[[str], str | None]
"""Discord's mention of a command by its full English name (``puzzle play``), or ``None`` while
its id is unknown (:func:`bot.i18n.mentions.mention`)."""


def no_mention(name: str) -> str | None:
    """No command can be mentioned (English text for logs and tests, or no ids known)."""
    return None


class Phrase(ABC):
    """Something said in the reader's language once it is known: a sentence, or a part of one
    filled into a placeholder."""

    @abstractmethod
    def render(
        self,
        translations: gettext.NullTranslations,
        number: Callable[[float], str] = str,
        mention: Mention = no_mention,
    ) -> str:
        """This phrase in the language of ``translations``; ``number`` writes a float in it,
        ``mention`` gives the commands Discord can mention."""


def fill(
    params: Iterable[tuple[str, object]],
    translations: gettext.NullTranslations,
    number: Callable[[float], str],
    mention: Mention,
) -> dict[str, object]:
    """The values of ``params`` for ``str.format``: a phrase said in the same language, a float
    written the language's way, what a player typed (:class:`engine.errors.Echo`) escaped to
    show as typed (:func:`bot.i18n.typed.as_shown`), anything else as it is."""
    values: dict[str, object] = {}
    for key, value in params:
        if isinstance(value, Phrase):
            values[key] = value.render(translations, number, mention)
        elif isinstance(value, float):
            values[key] = number(value)
        elif isinstance(value, Echo):
            values[key] = as_shown(value)
        else:
            values[key] = value
    return values


@dataclass(frozen=True)
class Text(Phrase):
    """A message to be said in some language later: ``_("{square} is empty.", square="d4")``."""

    msgid: str
    params: tuple[tuple[str, object], ...] = ()
    plural: str | None = None
    """The plural message id (``n_``); ``count`` chooses between the forms."""
    count: int = 1
    literal: bool = False
    """Said as it is in every language (a sentence from elsewhere, not from the catalogs)."""

    def render(
        self,
        translations: gettext.NullTranslations,
        number: Callable[[float], str] = str,
        mention: Mention = no_mention,
    ) -> str:
        """This message in the language of ``translations`` (its parameters too)."""
        if self.literal:
            template = self.msgid
        elif self.plural is None:
            template = translations.gettext(self.msgid)
        else:
            template = translations.ngettext(self.msgid, self.plural, self.count)
        return template.format(**fill(self.params, translations, number, mention))

    def __str__(self) -> str:
        """The English sentence (what logs and tests read)."""
        return self.render(gettext.NullTranslations())


@dataclass(frozen=True)
class Listing(Phrase):
    """Phrases said one after another, separated by commas: ``Tablut (9x9), Ard Rí``."""

    items: tuple[Phrase, ...]

    def render(
        self,
        translations: gettext.NullTranslations,
        number: Callable[[float], str] = str,
        mention: Mention = no_mention,
    ) -> str:
        """Each item in the language of ``translations``, in order."""
        return ", ".join(item.render(translations, number, mention) for item in self.items)


def _(msgid: str, /, **params: object) -> Text:
    """A message to translate later, with its ``{placeholders}``' values."""
    return Text(msgid, tuple(params.items()))


def n_(singular: str, plural: str, count: int, /, **params: object) -> Text:
    """A message with plural forms chosen by ``count`` (also the ``{count}`` placeholder)."""
    return Text(singular, tuple({"count": count, **params}.items()), plural, count)


def engine_sentence(error: IllegalMoveError) -> Text:
    """The engine's refusal as a message to translate (its template is a catalog message id)."""
    return Text(error.template, tuple(error.params.items()))


def verbatim(sentence: str) -> Text:
    """A sentence said as it is in every language (it does not come from the catalogs)."""
    return Text(sentence.replace("{", "{{").replace("}", "}}"), literal=True)


__all__ = [
    "Listing",
    "Mention",
    "Phrase",
    "Text",
    "_",
    "engine_sentence",
    "fill",
    "n_",
    "no_mention",
    "verbatim",
]
