"""The bot's languages: gettext catalogs managed with Babel, and how a message is said in one.

How to write a string the players read (README, "Languages", says how catalogs are updated):

- When the language is known where the string is made (an answer to an interaction, a post
  for a server), say it at once: ``lang._("It is {player}'s turn.", player=name)``, or with a
  count, ``lang.n_("after {count} move", "after {count} moves", moves)``. ``lang`` is a
  :class:`Language`: :func:`bot.i18n.audience.reader` for what one person sees (the
  interaction's ``locale``), the server's language for public posts.
- When the sentence is made before anyone knows who reads it (a service's refusal, a value that
  travels), make a :class:`Text` with the module-level ``_()`` / ``n_()`` and render it later
  with ``lang.render(text)``; ``GameError`` takes one, and the error handler renders it.
- The message id is the English sentence with ``{named}`` placeholders (no f-strings inside
  ``_()``: Babel extracts only literal strings). Engine and renderer sentences are marked the
  same way (``N_`` in the engine; the renderer is handed a ``Language`` as its ``words``).
- Slash command names, descriptions, options and choices need nothing: the
  :class:`~bot.i18n.commands.CatalogTranslator` translates them, and the extractor finds them.
- A message that names a command or an option never spells it: a placeholder gets
  :func:`~bot.i18n.slash.command` or :func:`~bot.i18n.slash.option`, written in the reader's
  language with the names their Discord shows (``/partien`` for a German reader):
  ``_("{games_command} lists where the games are.", games_command=command("games"))``.
"""

from __future__ import annotations

from bot.i18n import mentions
from bot.i18n.language import ENGLISH, Language, language, language_for, languages
from bot.i18n.slash import command, option
from bot.i18n.text import Listing, Text, _, n_, verbatim

__all__ = [
    "ENGLISH",
    "Language",
    "Listing",
    "Text",
    "_",
    "command",
    "language",
    "language_for",
    "languages",
    "mentions",
    "n_",
    "option",
    "verbatim",
]
