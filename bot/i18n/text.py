"""Messages that are said later, in the reader's language: :class:`Text`, made by ``_`` / ``n_``.

A ``Text`` holds an English message id (the sentence itself, with ``{name}`` placeholders) and
its parameters; nothing is translated until :meth:`Language.render` is given it. Services use it
for their refusals (the error handler renders them in the reader's language), flows for what
they post later. Parameters may themselves be ``Text`` (rendered in the same language).

This module imports neither Discord nor Babel: the services and storage may use it.
"""

from __future__ import annotations

import gettext
from collections.abc import Callable
from dataclasses import dataclass

from engine import IllegalMoveError


@dataclass(frozen=True)
class Text:
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
        sentence: Callable[[str], str] = str,
    ) -> str:
        """This message in the language of ``translations`` (its parameters too).

        ``sentence`` rewrites each catalog sentence before its values are filled in (the
        commands it names become mentions, :mod:`bot.i18n.mentions`), so a value — a player's
        name, a server's — is never rewritten.
        """
        if self.literal:
            template = self.msgid
        elif self.plural is None:
            template = sentence(translations.gettext(self.msgid))
        else:
            template = sentence(translations.ngettext(self.msgid, self.plural, self.count))
        values: dict[str, object] = {}
        for key, value in self.params:
            if isinstance(value, Text):
                values[key] = value.render(translations, number, sentence)
            elif isinstance(value, float):
                values[key] = number(value)
            else:
                values[key] = value
        return template.format(**values)

    def __str__(self) -> str:
        """The English sentence (what logs and tests read)."""
        return self.render(gettext.NullTranslations())


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


__all__ = ["Text", "_", "engine_sentence", "n_", "verbatim"]
