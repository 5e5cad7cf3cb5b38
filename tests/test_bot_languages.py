"""The bot in the players' languages, end to end through the stand-in."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.i18n.commands import DESCRIPTION_LIMIT, valid_name
from tests.bot_harness import Harness, running_bot
from tests.discord_standin import DiscordStandin

pytest_plugins = ["tests.discord_standin.fixtures"]

JSON = dict[str, Any]
DISCORD_LOCALES = ("pt-BR", "es-ES", "es-419", "fr", "de")
"""Discord's locales for the five languages (English is the commands' own text)."""


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot running in a fresh (English-speaking) server."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


async def test_a_brazilian_players_refusal_is_in_portuguese(table: Harness) -> None:
    """A pt-BR player's /move without a game is refused in Portuguese, only to them."""
    table.alice.user.locale = "pt-BR"
    message = await (await table.slash(table.alice, "move", {"move": "d1-d3"})).wait_original()
    assert message.ephemeral
    assert message.content == (
        "Não há jogo em andamento neste canal: `/games` mostra onde estão os jogos."
    )


async def test_the_engines_refusal_is_in_the_readers_language(table: Harness) -> None:
    """The engine's reason (a piece in the way) reaches a pt-BR player in Portuguese."""
    await table.challenge_accepted(table.alice, table.bob)
    table.alice.user.locale = "pt-BR"
    message = await (await table.slash(table.alice, "move", {"move": "d1-d3"})).wait_original()
    assert message.ephemeral
    assert message.content == "d2 está no caminho: há um atacante ali."
    table.alice.user.locale = "de"
    message = await (await table.slash(table.alice, "move", {"move": "d1-d3"})).wait_original()
    assert message.content == "d2 ist im Weg: Dort steht ein Angreifer."


def _localized(command: JSON) -> Iterator[tuple[str, JSON]]:
    """Every localizable part of a synced command: (where, part), options and choices too."""
    name = command["name"]
    yield f"/{name}", command
    for option in command.get("options", []):
        yield f"/{name} {option['name']}", option
        for choice in option.get("choices", []):
            yield f"/{name} {option['name']}={choice['value']}", choice


async def test_synced_commands_carry_all_five_languages(table: Harness) -> None:
    """Every command, option and choice is localized for each language, within Discord's rules:
    command and option names lowercase without spaces, texts at most 100 characters."""
    commands = table.standin.synced_commands()
    assert commands
    for command in commands:
        for where, part in _localized(command):
            names = part.get("name_localizations") or {}
            is_choice = "value" in part
            for locale in DISCORD_LOCALES:
                assert names.get(locale), f"{where}: no {locale} name"
            for locale, name in names.items():
                if is_choice:
                    assert len(name) <= DESCRIPTION_LIMIT, f"{where} ({locale}): {name!r}"
                else:
                    assert valid_name(name), f"{where} ({locale}): {name!r}"
            if is_choice:
                continue
            descriptions = part.get("description_localizations") or {}
            for locale in DISCORD_LOCALES:
                assert descriptions.get(locale), f"{where}: no {locale} description"
            for locale, description in descriptions.items():
                assert len(description) <= DESCRIPTION_LIMIT, f"{where} ({locale})"


async def test_localized_names_are_unique_within_a_command(table: Harness) -> None:
    """Two options of one command never share a name in any language (Discord refuses that)."""
    for command in table.standin.synced_commands():
        for locale in DISCORD_LOCALES:
            names = [option["name_localizations"][locale] for option in command.get("options", [])]
            assert len(names) == len(set(names)), f"/{command['name']} in {locale}: {names}"
    for locale in DISCORD_LOCALES:
        names = [c["name_localizations"][locale] for c in table.standin.synced_commands()]
        assert len(names) == len(set(names)), locale
