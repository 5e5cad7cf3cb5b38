"""The languages the bot speaks: one compiled gettext catalog each, found in ``bot/locales``.

English is the source language (the message ids are the English sentences) and needs no
catalog. Every other language is ``bot/locales/<tag>/LC_MESSAGES/messages.mo``, with ``<tag>``
Babel's identifier (``pt_BR``, ``es``, ``fr``, ``de``): adding a language is adding a catalog.

A Discord locale (``pt-BR``, ``es-419``) is served by the catalog of the same tag, else by the
catalog of its language alone (``es`` serves ``es-ES`` and ``es-419``), else by another catalog
of its language (``pt_BR`` serves ``pt-PT``), else in English.
"""

from __future__ import annotations

import functools
import gettext
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from babel import Locale
from babel.lists import format_list
from babel.numbers import format_decimal
from babel.support import Translations

from bot.i18n.mentions import mention
from bot.i18n.text import Phrase, _, n_

LOCALES_DIR = Path(__file__).resolve().parent.parent / "locales"
"""Where the catalogs live: ``<tag>/LC_MESSAGES/messages.po`` and its compiled ``.mo``."""
DOMAIN = "messages"
SOURCE_TAG = "en"


@dataclass(frozen=True)
class Language:
    """One language: its Babel tag, its catalog, and how it writes numbers."""

    tag: str
    translations: gettext.NullTranslations

    @property
    def locale(self) -> Locale:
        """Babel's locale (plural rules, number symbols, the language's own name)."""
        return Locale.parse(self.tag)

    @property
    def name(self) -> str:
        """The language's name in itself: "English", "português (Brasil)", "Deutsch"."""
        name = self.locale.get_display_name(self.locale) or self.tag
        return name[:1].upper() + name[1:]

    @property
    def discord_code(self) -> str:
        """The tag as Discord writes locales: ``pt-BR``."""
        return self.tag.replace("_", "-")

    def number(self, value: float, *, decimals: int = 1) -> str:
        """``value`` written this language's way (``2.5`` in English, ``2,5`` in German)."""
        pattern = "#,##0" + ("." + "#" * decimals if decimals else "")
        return format_decimal(value, format=pattern, locale=self.locale)

    def joined(self, items: Sequence[str]) -> str:
        """``items`` as this language lists them: "A, B, and C", "A, B und C", "A, B e C"."""
        return format_list(list(items), locale=self.locale)

    def render(self, text: Phrase | str) -> str:
        """``text`` in this language (a plain ``str`` is already said and comes back as is),
        the commands it names as this language's Discord names them, or as their mentions
        (:mod:`bot.i18n.slash`)."""
        if isinstance(text, str):
            return text
        return text.render(self.translations, self.number, mention)

    def _(self, msgid: str, /, **params: object) -> str:
        """Translate ``msgid`` and fill in its ``{placeholders}``."""
        return self.render(_(msgid, **params))

    def n_(self, singular: str, plural: str, count: int, /, **params: object) -> str:
        """Translate the form of ``singular``/``plural`` for ``count`` (also ``{count}``)."""
        return self.render(n_(singular, plural, count, **params))

    def gettext(self, msgid: str) -> str:
        """Translate a message id marked elsewhere (a ruleset's title, marked ``N_`` in the
        engine), without placeholders."""
        return self.translations.gettext(msgid)

    def pgettext(self, context: str, msgid: str) -> str:
        """Translate ``msgid`` in ``context`` (slash-command names), without placeholders."""
        return self.translations.pgettext(context, msgid)


ENGLISH = Language(SOURCE_TAG, gettext.NullTranslations())


def catalog_tags() -> tuple[str, ...]:
    """The tags of the compiled catalogs shipped with the bot (English needs none)."""
    if not LOCALES_DIR.is_dir():
        return ()
    return tuple(
        sorted(
            path.name
            for path in LOCALES_DIR.iterdir()
            if (path / "LC_MESSAGES" / f"{DOMAIN}.mo").is_file()
        )
    )


@functools.cache
def language(tag: str) -> Language:
    """The language of catalog ``tag`` (``"en"``: English)."""
    if tag == SOURCE_TAG:
        return ENGLISH
    translations = Translations.load(str(LOCALES_DIR), [tag], DOMAIN)
    if not isinstance(translations, Translations):
        raise LookupError(f"no compiled catalog for {tag!r} in {LOCALES_DIR}")
    return Language(tag, translations)


def languages() -> tuple[Language, ...]:
    """Every language the bot speaks, English first."""
    return (ENGLISH, *(language(tag) for tag in catalog_tags()))


@functools.cache
def language_for(locale: str | None) -> Language:
    """The language for a Discord locale (``pt-BR``, ``es-419``, ``de``); English if none fits."""
    if not locale:
        return ENGLISH
    tag = locale.replace("-", "_")
    primary = tag.split("_")[0].lower()
    if primary == SOURCE_TAG:
        return ENGLISH
    tags = catalog_tags()
    if tag in tags:
        return language(tag)
    if primary in tags:
        return language(primary)
    for candidate in tags:
        if candidate.split("_")[0].lower() == primary:
            return language(candidate)
    return ENGLISH


__all__ = [
    "DOMAIN",
    "ENGLISH",
    "LOCALES_DIR",
    "Language",
    "catalog_tags",
    "language",
    "language_for",
    "languages",
]
