"""Slash commands in every language: discord.py's ``app_commands.Translator`` over the catalogs.

discord.py wraps every command, option and choice string in ``locale_str`` and asks the
translator for each of Discord's locales when it syncs; the answers become the commands'
``name_localizations`` and ``description_localizations``. Names are translated in a message
context of their own (:data:`NAME_CONTEXTS`), because Discord holds names to stricter rules than
descriptions: lowercase, no spaces, at most 32 characters (:func:`valid_name`). A string made
with ``locale_str(text, verbatim=True)`` (a language's own name) is the same in every language.
Messages name the commands from the same catalog entries (:mod:`bot.i18n.slash`).
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Location

from bot.i18n.language import ENGLISH, language_for
from bot.i18n.slash import COMMAND_NAME, OPTION_NAME, localized_name, valid_name

_log = logging.getLogger(__name__)

NAME_CONTEXTS = {
    Location.command_name: COMMAND_NAME,
    Location.group_name: COMMAND_NAME,
    Location.parameter_name: OPTION_NAME,
}
"""The gettext context of each kind of name (descriptions and choices have none)."""

DESCRIPTION_LIMIT = 100
CHOICE_NAME_LIMIT = 100


class CatalogTranslator(app_commands.Translator):
    """Translates the command tree from the message catalogs (English is the source)."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if string.extras.get("verbatim"):
            return string.message  # a language's own name: the same in every language
        language = language_for(locale.value)
        if language is ENGLISH:
            return None
        name_context = NAME_CONTEXTS.get(context.location)
        if name_context is not None:
            translated = localized_name(language.translations, name_context, string.message)
            if translated is None:
                _log.warning(
                    "Ignoring %s name %r for %s",
                    language.tag,
                    language.pgettext(name_context, string.message),
                    locale,
                )
            return translated
        translated = language.translations.gettext(string.message)
        limit = CHOICE_NAME_LIMIT if context.location is Location.choice_name else DESCRIPTION_LIMIT
        if len(translated) > limit:
            _log.warning("Ignoring %s text over %d characters: %r", language.tag, limit, translated)
            return None
        return translated


__all__ = ["COMMAND_NAME", "NAME_CONTEXTS", "OPTION_NAME", "CatalogTranslator", "valid_name"]
