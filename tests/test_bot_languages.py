"""The bot in the players' languages, end to end through the stand-in."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.i18n.commands import DESCRIPTION_LIMIT, valid_name
from tests.bot_harness import Harness, running_bot
from tests.discord_standin import DiscordStandin, StoredMessage

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
    """A pt-BR player's /move without a game is refused in Portuguese, only to them, naming
    /games as their Discord lists it (not as its mention, which Discord shows in English)."""
    table.alice.user.locale = "pt-BR"
    message = await (await table.slash(table.alice, "move", {"move": "d1-d3"})).wait_original()
    assert message.ephemeral
    games = table.shown_name("games", "pt-BR")
    assert games != "games"
    assert message.content == (
        f"Não há jogo em andamento neste canal: `/{games}` mostra onde estão os jogos."
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


async def test_the_move_option_describes_a_move_true_on_every_board(table: Harness) -> None:
    """/move's option has one description per language for every server, whatever its board: it
    names the form of a move and no move itself (d1-c1 moves an empty square on 15x15)."""
    [move] = [c for c in table.standin.synced_commands() if c["name"] == "move"]
    [option] = move["options"]
    texts = [option["description"], *option["description_localizations"].values()]
    assert len(texts) == 1 + len(DISCORD_LOCALES)
    for text in texts:
        assert not re.search(r"[a-z]\d", text), text


async def test_localized_names_are_unique_within_a_command(table: Harness) -> None:
    """Two options of one command never share a name in any language (Discord refuses that)."""
    for command in table.standin.synced_commands():
        for locale in DISCORD_LOCALES:
            names = [option["name_localizations"][locale] for option in command.get("options", [])]
            assert len(names) == len(set(names)), f"/{command['name']} in {locale}: {names}"
    for locale in DISCORD_LOCALES:
        names = [c["name_localizations"][locale] for c in table.standin.synced_commands()]
        assert len(names) == len(set(names)), locale


ATTACKERS_WIN = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]
DEFENDERS_WIN = ["d1-b1", "d3-a3", "d2-a2", "d4-d1", "b1-c1", "d1-g1"]
ENGLISH_WORDS = re.compile(
    r"\b(move|moves|your|wins|win|attackers|defenders|begins|played|capturing|match|"
    r"game|board|king|turn|time|runs|out|over|swapped|Last|to)\b",
    re.IGNORECASE,
)
"""English words that would betray an untranslated sentence (names and squares aside; "set"
and "rating" are Brazilian Portuguese too)."""


def _texts(message: StoredMessage) -> list[str]:
    """Everything a reader sees in a message: text, embeds, button labels, alt texts."""
    texts = [message.content]
    for embed in message.embeds:
        texts += [str(embed.get("title", "")), str(embed.get("description", ""))]
        texts += [str(embed.get("footer", {}).get("text", ""))]
    texts += [a.description or "" for a in message.attachments]
    for row in message.components:
        texts += [str(c.get("label", "")) for c in row.get("components", [])]
    return [text for text in texts if text]


def _labels(message: StoredMessage) -> set[str]:
    """The labels of a message's buttons."""
    return {str(c.get("label")) for row in message.components for c in row.get("components", [])}


def _english_in(text: str) -> list[str]:
    # Names, mentions, squares, timestamps and the ruleset's proper name are not sentences.
    plain = re.sub(r"<[@#t][^>]*>|\*\*[a-z]+\*\*|World Tafl Federation", "", text)
    return ENGLISH_WORDS.findall(plain)


async def play_set(table: Harness, moves: list[str], attacker: Any, defender: Any) -> None:
    """Play ``moves`` alternately through /move; every board answers in Portuguese."""
    for ply, text in enumerate(moves):
        who = attacker if ply % 2 == 0 else defender
        reply = await table.move(who, text)
        assert not reply.ephemeral, reply.content
        assert f"jogou {text}" in reply.content, reply.content


async def test_a_portuguese_server_plays_a_whole_match_in_portuguese(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """A pt-BR server: challenge, two sets, the result and the leaderboard, all in Portuguese."""
    async with running_bot(
        discord_standin, tmp_path / "bot.sqlite3", server_locale="pt-BR"
    ) as table:
        for member in (table.alice, table.bob, table.carol):
            member.user.locale = "pt-BR"
        first = await table.challenge_accepted(table.alice, table.bob)
        live_labels = _labels(first)  # the buttons leave a board once the next one is posted
        assert "Começa **Brandubh (World Tafl Federation)**." in first.content
        assert f"<@{table.alice.id}>, sua vez com os atacantes" in first.content
        await play_set(table, ATTACKERS_WIN, table.alice, table.bob)
        second = await table.wait_board(lambda m: "Começa o set 2." in m.content)
        assert f"<@{table.bob.id}>, sua vez com os atacantes" in second.content
        await play_set(table, DEFENDERS_WIN, table.bob, table.alice)
        ending = "\n".join(m.content for m in table.public_messages()[-2:])
        assert f"**Fim da partida:** <@{table.alice.id}> vence a partida por 2–0" in ending
        leaderboard = await table.reply_text(table.carol, "leaderboard")
        [embed] = leaderboard.embeds
        assert embed["title"].startswith("Classificação de Brandubh")
        messages = [*table.public_messages(), leaderboard]
        assert len(messages) >= 12
        for message in messages:
            for text in _texts(message):
                assert _english_in(text) == [], f"English in: {text!r}"
        assert live_labels == {"Jogar", "Voltar lance", "Abandonar"}
        assert "Revanche" in set().union(*(_labels(m) for m in messages))
        alt = [a.description for m in messages for a in m.attachments if a.description]
        assert alt
        assert all(text.startswith("Tabuleiro de Brandubh") for text in alt)


async def test_settings_language_overrides_the_servers(table: Harness) -> None:
    """An admin sets the public language to German: the next board is German; back to the
    server's own, English again (the server here speaks English)."""
    reply = await table.reply_text(table.admin, "settings", {"language": "de"})
    assert reply.ephemeral
    assert "Public messages in: **Deutsch**" in reply.content
    assert "Default ruleset: **Brandubh (World Tafl Federation)**" in reply.content
    board = await table.challenge_accepted(table.alice, table.bob)
    assert "**Brandubh (World Tafl Federation)** beginnt." in board.content
    assert f"<@{table.alice.id}>, du bist als Angreifer am Zug" in board.content
    reply = await table.reply_text(table.admin, "settings", {"language": "server"})
    assert "Public messages in: **English, the server's own (Discord's" in reply.content
    answer = await table.move(table.alice, "d1-b1")
    assert "(attackers) played d1-b1." in answer.content


async def test_public_stats_are_in_the_servers_language(table: Harness) -> None:
    """/stats and /puzzle stats answer in the channel, so in the server's language (German
    here), whatever the asker's own."""
    await table.reply_text(table.admin, "settings", {"language": "de"})
    table.alice.user.locale = "pt-BR"
    stats = await table.reply_text(table.alice, "stats")
    assert not stats.ephemeral
    [embed] = stats.embeds
    assert embed["title"] == "alice in Brandubh (World Tafl Federation)"
    assert (
        embed["description"]
        == "Noch keine gewertete Partie in Brandubh (World Tafl Federation) beendet."
    )
    puzzles = await table.reply_text(table.alice, "puzzle stats")
    assert not puzzles.ephemeral
    [embed] = puzzles.embeds
    assert embed["title"] == "Rätsel von alice"
    assert embed["description"] == (
        f"Noch kein Rätsel beendet: `/{table.shown_name('puzzle play', 'de')}` gibt dir eins."
    )


async def test_a_german_analysis_names_the_computer_with_its_level_in_german(
    table: Harness,
) -> None:
    """/analyse of a game against the computer in a German server names it "Brandubh (Stufe 1)"
    as the boards do, where it said "Brandubh (level 1)" in English."""
    await table.reply_text(table.admin, "settings", {"language": "de"})
    start = await table.slash(
        table.alice, "challenge", {"opponent": table.me, "level": 1, "sets": 1}
    )
    await start.wait_original()
    await table.move(table.alice, "d1-b1")
    await table.wait_board(lambda m: "(Stufe 1)** (Verteidiger) zog" in m.content)
    asked = await table.reply_text(table.alice, "resign")
    [confirm] = [c for c in asked.custom_ids() if c.startswith("resign:")]
    await table.standin.click(asked, confirm, table.alice)
    await table.wait_board(lambda m: "gewinnt die Partie" in m.content)
    review = await (await table.slash(table.carol, "analyse")).wait_original(
        lambda m: bool(m.attachments), timeout=60
    )
    assert "alice (Angreifer) gegen Brandubh (Stufe 1) (Verteidiger)." in review.content
    assert "level" not in review.content
