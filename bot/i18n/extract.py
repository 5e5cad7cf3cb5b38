"""A Babel extractor for the slash commands: their names, descriptions, options and choices.

Command descriptions are docstrings and option texts live in decorators, where no ``_()`` can
reach them; this extractor imports each cog module and walks the commands discord.py built, the
very strings it will hand to :class:`~bot.i18n.commands.CatalogTranslator`. It also extracts
the module's ``_()`` / ``n_()`` calls like Babel's Python extractor, because a file is read by
one extractor only. It is named in ``pyproject.toml`` (``[tool.babel]``) for ``bot/cogs/*.py``.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import IO, Any, cast

from babel.messages.extract import extract_python
from discord import app_commands
from discord.ext import commands

from bot.i18n.commands import COMMAND_NAME, OPTION_NAME

Extracted = tuple[int, str, str | tuple[str, ...], list[str]]

NAME_COMMENT = "Discord: lowercase, no spaces, at most 32 characters."
DESCRIPTION_COMMENT = "Discord: at most 100 characters."


def _module_name(path: str) -> str:
    relative = Path(path).resolve().relative_to(Path.cwd().resolve())
    return ".".join(relative.with_suffix("").parts)


def _line(command: app_commands.Command[Any, ..., Any] | app_commands.Group) -> int:
    target = command.callback if isinstance(command, app_commands.Command) else type(command)
    try:
        return inspect.getsourcelines(target)[1]
    except (OSError, TypeError):
        return 1


def _walk(
    command: app_commands.Command[Any, ..., Any] | app_commands.Group,
) -> Iterator[Extracted]:
    line = _line(command)
    yield line, "pgettext", (COMMAND_NAME, command.name), [NAME_COMMENT]
    yield line, "gettext", command.description, [DESCRIPTION_COMMENT]
    if isinstance(command, app_commands.Group):
        for child in command.commands:
            yield from _walk(child)
        return
    for parameter in command.parameters:
        yield line, "pgettext", (OPTION_NAME, parameter.name), [NAME_COMMENT]
        yield line, "gettext", parameter.description, [DESCRIPTION_COMMENT]
        for choice in parameter.choices:
            locale_name = getattr(choice, "_locale_name", None)
            if locale_name is not None and locale_name.extras.get("verbatim"):
                continue  # a language's own name, never translated
            yield line, "gettext", choice.name, [DESCRIPTION_COMMENT]


def extract_commands(
    fileobj: IO[bytes],
    keywords: Mapping[str, Any],
    comment_tags: Collection[str],
    options: dict[str, Any],
) -> Iterator[Extracted]:
    """Babel extraction method: the file's ``_()`` calls, then its cogs' command strings."""
    # At run time extract_python yields (line, function, messages, comments), as a custom
    # extractor must; Babel's annotation of it says otherwise, hence the cast.
    python: Any = extract_python
    yield from cast(Iterator[Extracted], python(fileobj, keywords, comment_tags, options))
    module = importlib.import_module(_module_name(fileobj.name))
    for _, cog in inspect.getmembers(module, inspect.isclass):
        if not issubclass(cog, commands.Cog) or cog.__module__ != module.__name__:
            continue
        for command in cog.__cog_app_commands__:
            yield from _walk(command)


__all__ = ["extract_commands"]
