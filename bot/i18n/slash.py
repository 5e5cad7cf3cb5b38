"""Slash commands and their options as a message names them: as the reader's Discord does.

A German player's Discord lists ``/herausfordern gegner:``, not ``/challenge opponent:``; a
message that tells them what to type names what they see. So a message id never spells a
command or an option: it has a placeholder, filled with :func:`command` or :func:`option`, and
the reader's :class:`~bot.i18n.Language` writes it from the very catalog entries the command
tree is synced with (``msgctxt "slash command"`` and ``"command option"``, read through
:func:`localized_name` here and by :class:`~bot.i18n.commands.CatalogTranslator`). Translators
never type a command's name, and a message cannot name it otherwise than the menu does::

    _("{games_command} lists where the games are.", games_command=command("games"))
    _("Switch it on with {daily_command}.",
      daily_command=command("puzzle daily", channel=_("#somewhere")))
    _("Give {everywhere_option} alone.", everywhere_option=option("everywhere"))

say ``/games``, ``/puzzle daily channel:#somewhere`` and ``everywhere`` in English,
``/partien``, ``/rätsel täglich kanal:#irgendwo`` and ``überall`` in German, each in backticks.

A command named bare is Discord's mention of it once its id is known (:mod:`bot.i18n.mentions`;
a click puts it in the reader's message box), but only where the reader's language names it as
English does: Discord shows a mention by the name written in it, never the reader's localized
one (discord-api-docs issues 5518 and 7309), and a mention written with a localized name does
nothing when clicked. Elsewhere it is text, as the reader's menu lists it.

This module imports neither Discord nor Babel.
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.i18n.text import Mention, Phrase, fill, no_mention

COMMAND_NAME = "slash command"
"""The gettext context of command, group and subcommand names."""
OPTION_NAME = "command option"
"""The gettext context of option names."""

NAME_PATTERN = re.compile(r"^[-_'\w]{1,32}$")
"""Discord's name rule (``^[-_'\\p{L}\\p{N}...]{1,32}$``) for the scripts our languages use."""


def valid_name(name: str) -> bool:
    """Whether Discord accepts ``name`` as a command or option name (lowercase, no spaces)."""
    return bool(NAME_PATTERN.match(name)) and name == name.lower()


def localized_name(translations: gettext.NullTranslations, context: str, name: str) -> str | None:
    """The catalog's name for the command or option ``name`` (``context``: :data:`COMMAND_NAME`
    or :data:`OPTION_NAME`); ``None`` when it breaks Discord's rules, which then shows the
    English name (the translator leaves such a name out of the synced commands)."""
    translated = translations.pgettext(context, name)
    return translated if valid_name(translated) else None


def _shown(translations: gettext.NullTranslations, context: str, name: str) -> str:
    """``name`` as the reader's Discord shows it."""
    return localized_name(translations, context, name) or name


@dataclass(frozen=True)
class CommandName(Phrase):
    """A slash command as a player types it, in the reader's language: ``/move d1-d3``."""

    name: str
    """The full English name: ``games``, ``puzzle daily``."""
    typed: object = None
    """What is typed right after the command (its first option, unnamed): ``d1-d3``."""
    options: tuple[tuple[str, object], ...] = ()
    """Options by English name, with example values (a value may be a :class:`Phrase`)."""

    def render(
        self,
        translations: gettext.NullTranslations,
        number: Callable[[float], str] = str,
        mention: Mention = no_mention,
    ) -> str:
        shown = " ".join(_shown(translations, COMMAND_NAME, word) for word in self.name.split())
        if self.typed is None and not self.options and shown == self.name:
            mentioned = mention(self.name)
            if mentioned is not None:
                return mentioned
        words = [f"/{shown}"]
        if self.typed is not None:
            [(_, typed)] = fill([("", self.typed)], translations, number, mention).items()
            words.append(str(typed))
        values = fill(self.options, translations, number, mention)
        for key, value in values.items():
            words.append(f"{_shown(translations, OPTION_NAME, key)}:{value}")
        return "`" + " ".join(words) + "`"


@dataclass(frozen=True)
class OptionName(Phrase):
    """A command's option named alone, in the reader's language: ``everywhere``."""

    name: str
    """The English name."""

    def render(
        self,
        translations: gettext.NullTranslations,
        number: Callable[[float], str] = str,
        mention: Mention = no_mention,
    ) -> str:
        return f"`{_shown(translations, OPTION_NAME, self.name)}`"


def command(name: str, typed: object = None, /, **options: object) -> CommandName:
    """The slash command ``name`` (``"puzzle daily"``) for a placeholder, with what is typed
    after it and example options: ``command("challenge", opponent=_("@someone"))``."""
    return CommandName(name, typed, tuple(options.items()))


def option(name: str) -> OptionName:
    """The option ``name`` (English, as in the code) for a placeholder."""
    return OptionName(name)


__all__ = [
    "COMMAND_NAME",
    "NAME_PATTERN",
    "OPTION_NAME",
    "CommandName",
    "OptionName",
    "command",
    "localized_name",
    "option",
    "valid_name",
]
