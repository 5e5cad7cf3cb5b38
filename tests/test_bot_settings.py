"""/settings as a server admin meets it: channels deleted under it, roles that cannot be
pinged, channels the bot cannot play in, the daily puzzle, and the lines in every language."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest

from bot.storage import settings as stored_settings
from tests.bot_harness import (
    Harness,
    challenge_id,
    eventually,
    running_bot,
    settled,
    waits_until_told,
)
from tests.discord_standin import DiscordStandin
from tests.discord_standin.model import MANAGE_GUILD, READ_MESSAGE_HISTORY

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a fresh server with #games, #lobby and #side, alice, bob, carol and an admin."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3") as harness:
        yield harness


async def allowed(table: Harness) -> frozenset[int]:
    """The channels the server's settings allow games in (empty: every channel)."""
    assert table.bot is not None
    return (await table.bot.services.settings.get(table.guild.id)).allowed_channel_ids


async def knows(table: Harness, channel_id: int) -> bool:
    """Whether the bot still has the channel (Discord's CHANNEL_DELETE may still be on its
    way)."""
    assert table.bot is not None
    return table.bot.get_channel(channel_id) is not None


async def may(table: Harness, channel_id: int, permission: str) -> bool:
    """Whether the bot sees itself given ``permission`` in the channel, once Discord's
    CHANNEL_UPDATE has reached it."""
    assert table.bot is not None
    channel = table.bot.get_channel(channel_id)
    assert isinstance(channel, discord.TextChannel)
    return bool(getattr(channel.permissions_for(channel.guild.me), permission))


async def test_a_deleted_allowed_channel_leaves_the_list_when_others_remain(
    table: Harness,
) -> None:
    """#games and #lobby are allowed; #lobby is deleted: only #games is left on the list (the
    admin could not pick the deleted channel to disallow it)."""
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.admin, "settings", {"allow": lobby})
    await table.reply_text(table.admin, "settings", {"allow": table.channel})
    await table.standin.delete_channel(lobby)
    await eventually(lambda: allowed(table), {table.channel.id})
    shown = await table.reply_text(table.admin, "settings")
    assert f"Games allowed in: <#{table.channel.id}>\n" in shown.content


async def test_the_only_allowed_channel_deleted_allows_games_nowhere_until_an_admin_acts(
    table: Harness,
) -> None:
    """#lobby, the only allowed channel, is deleted: it stays on the list (an empty list would
    open every channel), challenges are refused without sending anyone to it, /settings marks
    it deleted and says what to do, and allowing #games takes it off the list."""
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.admin, "settings", {"allow": lobby})
    await table.standin.delete_channel(lobby)
    await eventually(lambda: knows(table, lobby.id), False)
    assert await allowed(table) == {lobby.id}
    refused = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    assert refused.ephemeral
    assert refused.content == (
        "Games are allowed nowhere on this server until an admin allows a channel: the one "
        "they were allowed in was deleted."
    )
    shown = await table.reply_text(table.admin, "settings")
    assert (
        f"Games allowed in: <#{lobby.id}> (deleted)\n"
        "Games are allowed nowhere: the channel they were allowed in was deleted. Allow one "
        "with `allow`, or every channel with `everywhere`.\n"
    ) in shown.content
    table.admin.user.locale = "de"
    shown = await table.reply_text(table.admin, "settings")
    assert f"<#{lobby.id}> (gelöscht)" in shown.content
    table.admin.user.locale = "en-US"
    saved = await table.reply_text(table.admin, "settings", {"allow": table.channel})
    assert f"Games allowed in: <#{table.channel.id}>\n" in saved.content
    assert await allowed(table) == {table.channel.id}


async def test_an_allowed_channel_deleted_unseen_leaves_the_list_when_others_remain(
    table: Harness,
) -> None:
    """#lobby is deleted while the bot is stopped, #games stays: when the bot is back, #lobby
    leaves the list without an admin's /settings (no CHANNEL_DELETE ever reached it)."""
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.admin, "settings", {"allow": lobby})
    await table.reply_text(table.admin, "settings", {"allow": table.channel})
    await table.stop()
    await table.standin.delete_channel(lobby)
    await table.start()
    await eventually(lambda: allowed(table), {table.channel.id})
    shown = await table.reply_text(table.admin, "settings")
    assert f"Games allowed in: <#{table.channel.id}>\n" in shown.content


async def test_an_allowed_channel_deleted_while_the_bot_was_out_leaves_the_list_when_back(
    table: Harness,
) -> None:
    """The bot is kicked, #lobby is deleted while it is out (no CHANNEL_DELETE reaches it), and
    it is invited back: the server's GUILD_CREATE comes as a join, and #lobby leaves the list
    as at a start (before, only a server available was looked at: /settings kept it)."""
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.admin, "settings", {"allow": lobby})
    await table.reply_text(table.admin, "settings", {"allow": table.channel})
    await table.standin.remove_bot_from_guild(table.guild)
    await table.standin.delete_channel(lobby)
    await table.standin.invite_bot_back(table.guild)
    await eventually(lambda: allowed(table), {table.channel.id})
    shown = await table.reply_text(table.admin, "settings")
    assert f"Games allowed in: <#{table.channel.id}>\n" in shown.content


async def test_every_allowed_channel_deleted_unseen_is_spoken_of_in_the_plural(
    table: Harness,
) -> None:
    """#lobby and #side, the allowed channels, are deleted while the bot is away: refusals and
    /settings say the 2 channels were deleted (they said "the channel ... was deleted")."""
    lobby, side = table.guild.channel("lobby"), table.guild.channel("side")
    await table.reply_text(table.admin, "settings", {"allow": lobby})
    await table.reply_text(table.admin, "settings", {"allow": side})
    await table.stop()
    await table.standin.delete_channel(lobby)
    await table.standin.delete_channel(side)
    await table.start()
    assert await allowed(table) == {lobby.id, side.id}
    refused = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    assert refused.content == (
        "Games are allowed nowhere on this server until an admin allows a channel: the 2 they "
        "were allowed in were deleted."
    )
    shown = await table.reply_text(table.admin, "settings")
    assert (
        "\nGames are allowed nowhere: the 2 channels they were allowed in were deleted. Allow "
        "one with `allow`, or every channel with `everywhere`.\n"
    ) in shown.content
    table.admin.user.locale = "fr"
    shown = await table.reply_text(table.admin, "settings")
    assert "les 2 salons où elles l'étaient ont été supprimés" in shown.content


async def test_settings_warn_when_the_open_challenge_role_cannot_be_pinged(
    table: Harness,
) -> None:
    """The open-challenge role made unmentionable, then deleted: /settings says in one line
    why open challenges ping nobody (it only said so in the log)."""
    role = await table.standin.add_role(table.guild, "tafl", mentionable=True)
    saved = await table.reply_text(table.admin, "settings", {"open_challenge_role": role})
    assert saved.content.endswith(f"Open challenges ping: <@&{role.id}>")
    await table.standin.edit_role(role, mentionable=False)

    async def last_line() -> str:
        return (await table.reply_text(table.admin, "settings")).content.splitlines()[-1]

    await eventually(
        last_line,
        f"I cannot ping <@&{role.id}>: make it mentionable (Server Settings → Roles) or give me "
        "the Mention @everyone, @here, and All Roles permission.",
    )
    await table.standin.delete_role(role)
    await eventually(
        last_line,
        "The role pinged for open challenges was deleted: they ping nobody until you choose "
        "another with `open_challenge_role`.",
    )
    table.admin.user.locale = "fr"
    assert (await last_line()).startswith("Le rôle que mentionnent les défis ouverts à tous")


async def test_a_server_language_without_a_catalog_is_not_called_the_servers_own(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """The server speaks Italian, which I do not: /settings says English stands in for it,
    not that English is the server's own language."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", server_locale="it") as it:
        shown = await it.reply_text(it.admin, "settings")
        assert (
            "Public messages in: **English, as I do not speak the server's language (Discord's "
            "Community setting)**"
        ) in shown.content
        it.admin.user.locale = "es-ES"
        shown = await it.reply_text(it.admin, "settings")
        assert "**English, porque no hablo el idioma del servidor" in shown.content


async def test_where_games_are_played_reads_naturally_in_every_language(table: Harness) -> None:
    """The line on where games are played keeps its preposition with the place, so that each
    language can say it ("Os jogos acontecem: **no canal**", not "em: **o canal**")."""
    expected = {
        "en-US": ("Games are played: **in a thread per game**", "**in the channel**"),
        "de": ("Gespielt wird: **in einem Thread pro Partie**", "**im Kanal**"),
        "fr": ("Les parties se jouent : **dans un fil par partie**", "**dans le salon**"),
        "es-ES": ("Las partidas se juegan: **en un hilo por partida**", "**en el canal**"),
        "pt-BR": ("Os jogos acontecem: **em um tópico por jogo**", "**no canal**"),
    }
    await table.reply_text(table.admin, "settings", {"threads": "on"})
    for locale, (threads, _channel) in expected.items():
        table.admin.user.locale = locale
        assert threads in (await table.reply_text(table.admin, "settings")).content
    await table.reply_text(table.admin, "settings", {"threads": "off"})
    for locale, (threads, channel) in expected.items():
        table.admin.user.locale = locale
        line = threads.split("**")[0] + channel
        assert line in (await table.reply_text(table.admin, "settings")).content


async def test_allowing_a_channel_i_cannot_play_in_is_refused(table: Harness) -> None:
    """#lobby denies me Send Messages and Attach Files: /settings allow:#lobby is refused in
    one sentence naming them, and nothing is saved (it said "Settings saved." and every
    challenge there was then refused)."""
    lobby = table.guild.channel("lobby")
    await table.standin.set_overwrite(
        lobby, table.me, deny=discord.Permissions(send_messages=True, attach_files=True)
    )
    await eventually(lambda: may(table, lobby.id, "send_messages"), False)
    refused = await table.reply_text(table.admin, "settings", {"allow": lobby})
    assert refused.ephemeral
    assert refused.content == (
        f"I can't play in <#{lobby.id}>, so it stays off the list: I need the Send Messages "
        "and Attach Files permissions there."
    )
    assert await allowed(table) == frozenset()
    table.admin.user.locale = "de"
    refused = await table.reply_text(table.admin, "settings", {"allow": lobby})
    assert "Nachrichten senden und Dateien anhängen" in refused.content


async def test_with_threads_on_allowing_a_channel_without_thread_permissions_warns(
    table: Harness,
) -> None:
    """Threads are on and #lobby denies me Create Public Threads: allowing it is saved, with a
    line saying its games are played in the channel (as /challenge there does); it was
    refused."""
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.admin, "settings", {"threads": "on"})
    await table.standin.set_overwrite(
        lobby, table.me, deny=discord.Permissions(create_public_threads=True)
    )
    await eventually(lambda: may(table, lobby.id, "create_public_threads"), False)
    saved = await table.reply_text(table.admin, "settings", {"allow": lobby})
    assert saved.content.startswith(
        f"Settings saved.\nGames in <#{lobby.id}> are played in the channel itself: to give "
        "each its own thread I need the Create Public Threads permission there.\n"
    )
    assert await allowed(table) == {lobby.id}
    side = table.guild.channel("side")
    quiet = await table.reply_text(table.admin, "settings", {"allow": side, "threads": "off"})
    assert quiet.content.startswith("Settings saved.\nDefault ruleset:")


async def test_turning_threads_on_warns_of_allowed_channels_without_thread_permissions(
    table: Harness,
) -> None:
    """Threads are off; #lobby and #side are allowed, and #lobby denies me Create Public
    Threads. Turning threads on is saved with the line allowing #lobby would have given (it
    said nothing, and games there were still played in the channel); #side needs no line."""
    lobby, side = table.guild.channel("lobby"), table.guild.channel("side")
    await table.reply_text(table.admin, "settings", {"allow": lobby})
    await table.reply_text(table.admin, "settings", {"allow": side})
    await table.standin.set_overwrite(
        lobby, table.me, deny=discord.Permissions(create_public_threads=True)
    )
    await eventually(lambda: may(table, lobby.id, "create_public_threads"), False)
    saved = await table.reply_text(table.admin, "settings", {"threads": "on"})
    assert saved.content.startswith(
        f"Settings saved.\nGames in <#{lobby.id}> are played in the channel itself: to give "
        "each its own thread I need the Create Public Threads permission there.\nDefault "
    ), saved.content
    assert f"Games in <#{side.id}>" not in saved.content
    off = await table.reply_text(table.admin, "settings", {"threads": "off"})
    assert off.content.startswith("Settings saved.\nDefault ruleset:")


async def test_threads_on_given_with_a_change_while_on_adds_no_thread_lines(
    table: Harness,
) -> None:
    """Threads are on and #lobby, allowed, denies me Create Public Threads: threads:on given
    with a time per move saves the time without the line for #lobby (given when threads were
    turned on; it was added again for every allowed channel)."""
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.admin, "settings", {"allow": lobby, "threads": "on"})
    await table.standin.set_overwrite(
        lobby, table.me, deny=discord.Permissions(create_public_threads=True)
    )
    await eventually(lambda: may(table, lobby.id, "create_public_threads"), False)
    saved = await table.reply_text(table.admin, "settings", {"threads": "on", "time": 60})
    assert saved.content.startswith(
        "Settings saved.\nEach game already gets a thread of its own: nothing changed.\n"
        "Default ruleset:"
    ), saved.content


async def test_allowing_a_channel_while_another_admin_turns_threads_on_warns(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#lobby denies me Create Public Threads; odile turns threads on while ada allows #lobby:
    ada's answer has the line saying games in #lobby are played in the channel itself, as
    threads are on when her change is written (it was judged on the settings read before)."""
    lobby = table.guild.channel("lobby")
    odile = table.standin.add_member(table.guild, "odile", permissions=MANAGE_GUILD)
    await table.standin.set_overwrite(
        lobby, table.me, deny=discord.Permissions(create_public_threads=True)
    )
    await eventually(lambda: may(table, lobby.id, "create_public_threads"), False)
    entered, go_on = waits_until_told(monkeypatch, stored_settings, "save")
    first = await table.standin.slash(
        table.guild, table.channel, odile, "settings", {"threads": "on"}, wait=False
    )
    await entered.wait()  # odile's change is being written
    then = await table.standin.slash(
        table.guild, table.channel, table.admin, "settings", {"allow": lobby}, wait=False
    )
    await table.standin.wait_answered(then, timeout=10)  # deferred: waiting to write
    go_on.set()
    assert (await first.wait_original()).content.startswith("Settings saved.\nDefault ")
    saved = await then.wait_original()
    assert saved.content.startswith(
        f"Settings saved.\nGames in <#{lobby.id}> are played in the channel itself: to give "
        "each its own thread I need the Create Public Threads permission there.\n"
    ), saved.content


async def test_allowing_a_channel_another_admin_allowed_meanwhile_says_it_is_listed(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """odile allows #lobby; while it is written I lose Send Messages there, and ada allows
    #lobby too: she is told it is on the list already (she was told "I can't play in #lobby,
    so it stays off the list", judged on the settings read before odile's change)."""
    lobby = table.guild.channel("lobby")
    odile = table.standin.add_member(table.guild, "odile", permissions=MANAGE_GUILD)
    entered, go_on = waits_until_told(monkeypatch, stored_settings, "save")
    first = await table.standin.slash(
        table.guild, table.channel, odile, "settings", {"allow": lobby}, wait=False
    )
    await entered.wait()  # odile's change is being written
    await table.standin.set_overwrite(lobby, table.me, deny=discord.Permissions(send_messages=True))
    await eventually(lambda: may(table, lobby.id, "send_messages"), False)
    then = await table.standin.slash(
        table.guild, table.channel, table.admin, "settings", {"allow": lobby}, wait=False
    )
    await table.standin.wait_answered(then, timeout=10)  # deferred: waiting to write
    go_on.set()
    assert (await first.wait_original()).content.startswith("Settings saved.")
    told = await then.wait_original()
    assert told.ephemeral
    assert told.content == (
        f"<#{lobby.id}> is already one of the channels games are allowed in: nothing changed."
    )
    assert await allowed(table) == {lobby.id}


async def test_re_allowing_a_listed_channel_i_lost_says_it_is_listed(table: Harness) -> None:
    """#lobby is allowed, then denies me Send Messages: allowing it again says it is on the
    list already (it said #lobby "stays off the list" although it is on it)."""
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.admin, "settings", {"allow": lobby})
    await table.standin.set_overwrite(lobby, table.me, deny=discord.Permissions(send_messages=True))
    await eventually(lambda: may(table, lobby.id, "send_messages"), False)
    told = await table.reply_text(table.admin, "settings", {"allow": lobby})
    assert told.content == (
        f"<#{lobby.id}> is already one of the channels games are allowed in: nothing changed."
    )
    assert await allowed(table) == {lobby.id}


async def test_a_setting_already_in_force_is_refused_saying_nothing_changed(
    table: Harness,
) -> None:
    """allow: of a listed channel, everywhere: with no list, and threads: as they are, given
    alone, each say in one sentence that nothing changed (they showed the settings as if
    something had been done)."""
    lobby = table.guild.channel("lobby")
    cases: list[tuple[dict[str, object], str]] = [
        ({"everywhere": True}, "Games are already allowed in every channel: nothing changed."),
        ({"threads": "off"}, "Games are already played in their channel: nothing changed."),
    ]
    for options, sentence in cases:
        refused = await table.reply_text(table.admin, "settings", options)
        assert refused.ephemeral
        assert refused.content == sentence, options
    await table.reply_text(table.admin, "settings", {"allow": lobby, "threads": "on"})
    cases = [
        (
            {"allow": lobby},
            f"<#{lobby.id}> is already one of the channels games are allowed in: nothing changed.",
        ),
        ({"threads": "on"}, "Each game already gets a thread of its own: nothing changed."),
    ]
    for options, sentence in cases:
        refused = await table.reply_text(table.admin, "settings", options)
        assert refused.content == sentence, options
    assert table.bot is not None
    now = await table.bot.services.settings.get(table.guild.id)
    assert (now.allowed_channel_ids, now.threads) == (frozenset({lobby.id}), True)
    assert now.time_per_move == timedelta(days=1)


async def test_a_change_given_with_a_setting_already_in_force_is_saved(table: Harness) -> None:
    """threads:off as they are, everywhere: with no list, or allow: of a listed channel, given
    with a time per move: the time is saved ("Settings saved."), the rest stays as it was (the
    whole command was refused saying nothing changed, and the admin's change was lost)."""
    lobby = table.guild.channel("lobby")
    assert table.bot is not None
    settings = table.bot.services.settings
    cases: list[tuple[dict[str, object], timedelta]] = [
        ({"threads": "off", "time": 60}, timedelta(hours=1)),
        ({"everywhere": True, "time": 5}, timedelta(minutes=5)),
    ]
    for options, time in cases:
        saved = await table.reply_text(table.admin, "settings", options)
        assert saved.content.startswith("Settings saved.\n"), (options, saved.content)
        now = await settings.get(table.guild.id)
        assert (now.time_per_move, now.threads, now.allowed_channel_ids) == (
            time,
            False,
            frozenset(),
        )
    await table.reply_text(table.admin, "settings", {"allow": lobby})
    saved = await table.reply_text(table.admin, "settings", {"allow": lobby, "time": 12 * 60})
    assert saved.content.startswith("Settings saved.\n"), saved.content
    now = await settings.get(table.guild.id)
    assert (now.time_per_move, now.allowed_channel_ids) == (
        timedelta(hours=12),
        frozenset({lobby.id}),
    )


async def test_a_value_already_in_force_says_nothing_changed_not_settings_saved(
    table: Harness,
) -> None:
    """ruleset:, time:, language:, open_challenge_role: and no_open_challenge_role: given as
    they are each say in one sentence that nothing changed (they answered "Settings saved."
    though nothing had changed)."""
    role = await table.standin.add_role(table.guild, "tafl", mentionable=True)
    cases: list[tuple[dict[str, object], str]] = [
        (
            {"ruleset": "brandubh"},
            "The default ruleset is already **Brandubh (World Tafl Federation)**: nothing changed.",
        ),
        ({"time": 24 * 60}, "The time per move is already **1 day**: nothing changed."),
        (
            {"language": "server"},
            "Public messages already follow the server's own language: nothing changed.",
        ),
        ({"no_open_challenge_role": True}, "Open challenges already ping nobody: nothing changed."),
    ]
    for options, sentence in cases:
        told = await table.reply_text(table.admin, "settings", options)
        assert told.ephemeral
        assert told.content == sentence, options
    saved = await table.reply_text(
        table.admin, "settings", {"language": "de", "open_challenge_role": role}
    )
    assert saved.content.startswith("Settings saved.\nDefault ruleset:"), saved.content
    cases = [
        ({"language": "de"}, "Public messages are already in Deutsch: nothing changed."),
        (
            {"open_challenge_role": role},
            f"Open challenges already ping <@&{role.id}>: nothing changed.",
        ),
    ]
    for options, sentence in cases:
        told = await table.reply_text(table.admin, "settings", options)
        assert told.content == sentence, options


async def test_several_options_that_change_nothing_are_each_named(table: Harness) -> None:
    """time: and threads: as they are, and disallow: of a channel not on the list, given
    together: one line each says it changed nothing, in the admin's language, and nothing is
    saved."""
    lobby, side = table.guild.channel("lobby"), table.guild.channel("side")
    await table.reply_text(table.admin, "settings", {"allow": lobby})
    told = await table.reply_text(
        table.admin, "settings", {"time": 24 * 60, "disallow": side, "threads": "off"}
    )
    assert told.content == (
        "The time per move is already **1 day**: nothing changed.\n"
        f"<#{side.id}> is not one of the channels games are allowed in: nothing changed.\n"
        "Games are already played in their channel: nothing changed."
    )
    table.admin.user.locale = "fr"
    told = await table.reply_text(table.admin, "settings", {"ruleset": "brandubh"})
    assert told.content.endswith(" : rien n'a changé."), told.content
    assert await allowed(table) == {lobby.id}


async def test_disallowing_a_channel_not_listed_keeps_the_change_given_with_it(
    table: Harness,
) -> None:
    """#lobby is allowed; disallow:#side with time:1 hour saves the time and says #side
    changed nothing (the whole command was refused, and the admin's time was lost)."""
    lobby, side = table.guild.channel("lobby"), table.guild.channel("side")
    await table.reply_text(table.admin, "settings", {"allow": lobby})
    saved = await table.reply_text(table.admin, "settings", {"disallow": side, "time": 60})
    assert saved.content.startswith(
        f"Settings saved.\n<#{side.id}> is not one of the channels games are allowed in: "
        "nothing changed.\nDefault ruleset:"
    ), saved.content
    assert table.bot is not None
    now = await table.bot.services.settings.get(table.guild.id)
    assert (now.time_per_move, now.allowed_channel_ids) == (
        timedelta(hours=1),
        frozenset({lobby.id}),
    )


async def test_disallowing_a_channel_while_every_one_is_allowed_says_how_and_saves_the_rest(
    table: Harness,
) -> None:
    """With every channel allowed, disallow:#side with time:1 hour saves the time and says to
    list the allowed channels instead (the whole command was refused, the time lost)."""
    side = table.guild.channel("side")
    saved = await table.reply_text(table.admin, "settings", {"disallow": side, "time": 60})
    assert saved.content.startswith(
        f"Settings saved.\nGames are allowed in every channel, so <#{side.id}> stays open: list "
        "the channels games may use with `allow`, and every other channel is closed to them.\n"
        "Default ruleset:"
    ), saved.content
    assert table.bot is not None
    now = await table.bot.services.settings.get(table.guild.id)
    assert (now.time_per_move, now.allowed_channel_ids) == (timedelta(hours=1), frozenset())
    alone = await table.reply_text(table.admin, "settings", {"disallow": side})
    assert alone.content == (
        f"Games are allowed in every channel, so <#{side.id}> stays open: list the channels "
        "games may use with `allow`, and every other channel is closed to them."
    )


async def test_disallowing_a_channel_with_the_first_allowed_one_closes_it(table: Harness) -> None:
    """With every channel allowed, allow:#lobby disallow:#side allows #lobby alone, with no
    line about #side (the whole command was refused)."""
    lobby, side = table.guild.channel("lobby"), table.guild.channel("side")
    saved = await table.reply_text(table.admin, "settings", {"allow": lobby, "disallow": side})
    assert saved.content.startswith("Settings saved.\nDefault ruleset:"), saved.content
    assert await allowed(table) == frozenset({lobby.id})


async def test_conflicting_options_are_named_before_permissions(table: Harness) -> None:
    """allow:#lobby with everywhere: is refused for the conflict even where I cannot play (it
    named the missing permission instead)."""
    lobby = table.guild.channel("lobby")
    await table.standin.set_overwrite(lobby, table.me, deny=discord.Permissions(send_messages=True))
    await eventually(lambda: may(table, lobby.id, "send_messages"), False)
    refused = await table.reply_text(table.admin, "settings", {"allow": lobby, "everywhere": True})
    assert refused.content == (
        "Give `everywhere` alone to allow every channel, not with `allow` or `disallow`."
    )


async def test_the_daily_puzzle_hour_is_shown_in_each_readers_time_and_in_settings(
    table: Harness,
) -> None:
    """/puzzle daily and /settings show the daily puzzle's hour as a Discord time, which each
    reader sees in their own time zone, with the UTC hour beside it; /settings says when it is
    off (it did not mention the daily puzzle at all)."""
    shown = await table.reply_text(table.admin, "settings")
    assert "\nDaily puzzle: **off**\n" in shown.content
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": 18})
    assert table.bot is not None
    setting = await table.bot.services.puzzles.daily_setting(table.guild.id)
    assert setting is not None
    at = int(setting.next_post.timestamp())
    assert setting.next_post.hour == 18
    shown = await table.reply_text(table.admin, "puzzle daily")
    assert shown.content == (
        f"The daily puzzle is posted in <#{lobby.id}> every day at <t:{at}:t> (18:00 UTC); "
        f"next <t:{at}:R>."
    )
    shown = await table.reply_text(table.admin, "settings")
    assert f"\nDaily puzzle: in <#{lobby.id}>, every day at <t:{at}:t> (18:00 UTC)\n" in (
        shown.content
    )
    table.admin.user.locale = "pt-BR"
    shown = await table.reply_text(table.admin, "settings")
    assert f"\nProblema do dia: em <#{lobby.id}>, todo dia às <t:{at}:t> (18:00 UTC)\n" in (
        shown.content
    )


async def test_settings_say_when_i_may_no_longer_post_the_daily_puzzle(table: Harness) -> None:
    """An admin took Read Message History from the bot in #lobby after setting the daily
    puzzle there: /settings says under the daily puzzle's line that it cannot be posted,
    naming the permission (each post was refused, and nothing said so)."""
    lobby = table.guild.channel("lobby")
    await table.reply_text(table.admin, "puzzle daily", {"channel": lobby, "hour": 18})
    await table.standin.set_overwrite(lobby, table.me, deny=READ_MESSAGE_HISTORY)
    lines = (await table.reply_text(table.admin, "settings")).content.splitlines()
    [daily] = [n for n, line in enumerate(lines) if line.startswith("Daily puzzle: in ")]
    assert lines[daily + 1] == (
        f"I can't post the daily puzzle in <#{lobby.id}>: I need the Read Message History "
        "permission there."
    )


async def test_threads_on_where_i_lack_thread_permissions_in_many_channels_fits_one_message(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Eight channels are allowed and I may start threads in none of them (a permission
    missing server-wide): a German admin's ``threads:on`` is saved and answered with one line
    naming them all, not a line each (which passed Discord's 2,000 characters: an apology)."""
    names = [f"room-{number}" for number in range(8)]
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", channels=names) as table:
        rooms = [table.guild.channel(name) for name in names]
        for room in rooms:
            await table.reply_text(table.admin, "settings", {"allow": room})
        lacking = discord.Permissions(create_public_threads=True, send_messages_in_threads=True)
        for room in rooms:
            await table.standin.set_overwrite(room, table.me, deny=lacking)
        for room_id in [room.id for room in rooms]:
            await eventually(partial(may, table, room_id, "create_public_threads"), False)
        table.admin.user.locale = "de"
        saved = await table.reply_text(table.admin, "settings", {"threads": "on"})
        listed = ", ".join(f"<#{room.id}>" for room in rooms)
        assert saved.content.startswith(
            f"Einstellungen gespeichert.\nPartien in {listed} werden im jeweiligen Kanal selbst "
            "gespielt: Damit jede ihren eigenen Thread bekommt, brauche ich dort die "
            "Berechtigungen Öffentliche Threads erstellen und Nachrichten in Threads senden.\n"
        ), saved.content
        assert table.bot is not None
        assert (await table.bot.services.settings.get(table.guild.id)).threads


async def test_many_allowed_channels_are_counted_past_the_fifteenth(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """With 90 channels allowed, /settings and a /challenge refused elsewhere name the first
    15 and count the rest, within Discord's 2,000 characters (the whole list was an apology)."""
    names = [f"room-{number}" for number in range(91)]
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", channels=names) as table:
        assert table.bot is not None
        rooms = sorted(table.guild.channel(name).id for name in names[1:])
        await table.bot.services.settings.change(table.guild.id, allowed_channel_ids=rooms[:-1])
        first = ", ".join(f"<#{room}>" for room in rooms[:15])
        saved = await table.reply_text(
            table.admin, "settings", {"allow": table.guild.channel(names[-1])}
        )
        assert f"\nGames allowed in: {first} and 75 more\n" in saved.content, saved.content
        assert len(await allowed(table)) == 90
        refused = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
        assert refused.ephemeral
        assert refused.content == (
            f"Games are not allowed in this channel. Games are played in {first} and 75 more."
        )


async def test_a_challenge_in_a_channel_an_admin_disallows_lapses_and_holds_nobody(
    table: Harness,
) -> None:
    """alice challenges bob in #lobby; an admin allows games in #games only: the challenge in
    #lobby lapses (its message says why, without buttons) and alice can challenge bob in
    #games at once, rather than be told to wait for an answer that can never come."""
    lobby = table.guild.channel("lobby")
    posted = await table.reply_text(
        table.alice, "challenge", {"opponent": table.bob}, channel=lobby
    )
    assert posted.custom_ids(), posted.content
    await table.reply_text(table.admin, "settings", {"allow": table.channel})
    await table.standin.wait_until(lambda: "no longer allowed" in posted.content, timeout=5)
    assert posted.content.startswith(
        f"<@{table.alice.id}>'s challenge to <@{table.bob.id}> lapsed: games are no longer "
        "allowed in this channel."
    ), posted.content
    assert posted.custom_ids() == []
    again = await table.reply_text(table.alice, "challenge", {"opponent": table.bob})
    assert not again.ephemeral, again.content


async def test_a_lapse_discord_cannot_show_leaves_the_others_and_the_answer_alone(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An admin allows #games only; Discord is unreachable (a dropped connection, not an HTTP
    error) for the edit of alice's lapsed challenge in #lobby: carol's is still shown lapsed,
    and the admin reads only "Settings saved." (the error ended the lapses there and was
    answered as a failure of the saved command)."""
    lobby = table.guild.channel("lobby")
    first = await table.reply_text(table.alice, "challenge", {"opponent": table.bob}, channel=lobby)
    second = await table.reply_text(
        table.carol, "challenge", {"opponent": table.bob}, channel=lobby
    )
    real = discord.PartialMessage.edit

    async def dropped(self: discord.PartialMessage, **fields: Any) -> discord.Message:
        if self.id == first.id:
            raise aiohttp.ServerDisconnectedError()
        return await real(self, **fields)

    monkeypatch.setattr(discord.PartialMessage, "edit", dropped)
    record = await table.standin.slash(
        table.guild, table.channel, table.admin, "settings", {"allow": table.channel}
    )
    await table.standin.wait_until(lambda: "no longer allowed" in second.content, timeout=5)
    saved = await record.wait_original()
    assert saved.content.startswith("Settings saved.\n"), saved.content
    await settled(table)  # the command is done: an apology would have come
    assert record.followups == []
    assert saved.content.startswith("Settings saved.\n"), saved.content
    assert first.custom_ids(), "alice's message was edited after all"


async def test_a_channel_another_admin_allows_meanwhile_keeps_its_challenges(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One admin allows #games only; before the challenges elsewhere lapse, another allows
    #lobby too: alice's challenge waiting in #lobby stays open, as games are allowed there (it
    lapsed on the first admin's settings, its message saying games were no longer allowed)."""
    assert table.bot is not None
    lobby = table.guild.channel("lobby")
    posted = await table.reply_text(
        table.alice, "challenge", {"opponent": table.bob}, channel=lobby
    )
    entered, go_on = waits_until_told(
        monkeypatch, table.bot.services.challenges, "lapse_disallowed"
    )
    first = await table.standin.slash(
        table.guild, table.channel, table.admin, "settings", {"allow": table.channel}, wait=False
    )
    await entered.wait()
    await table.reply_text(table.admin, "settings", {"allow": lobby})
    go_on.set()
    await first.wait_original()
    await settled(table)  # both commands are done: a lapse would be shown
    assert posted.custom_ids(), posted.content
    accepted = await table.standin.click(
        posted, f"challenge:accept:{challenge_id(posted)}", table.bob
    )
    assert not (await accepted.wait_original()).ephemeral


async def test_a_challenge_in_a_thread_of_an_allowed_channel_stays_open(table: Harness) -> None:
    """An admin allows #games: a challenge waiting in a member's thread of #games stays open
    (games there are allowed), while one in #lobby lapses."""
    thread = await table.standin.start_member_thread(table.channel, "chat", table.alice)
    posted = await table.reply_text(
        table.alice, "challenge", {"opponent": table.bob}, channel=thread
    )
    lobby = table.guild.channel("lobby")
    other = await table.reply_text(table.carol, "challenge", {"opponent": table.bob}, channel=lobby)
    await table.reply_text(table.admin, "settings", {"allow": table.channel})
    await table.standin.wait_until(lambda: "no longer allowed" in other.content, timeout=5)
    assert posted.custom_ids(), posted.content


async def test_threads_turned_off_lapse_the_challenges_beside_a_game_in_the_channel(
    table: Harness,
) -> None:
    """alice and bob play in #games itself (threads were off); an admin turns threads on and
    carol challenges bob there, then threads go off again: carol's challenge, whose game would
    now be played in the busy channel, lapses at once, saying why, and carol may challenge bob
    in #lobby at once (it waited, unacceptable, holding the two of them until it expired)."""
    await table.challenge_accepted(table.alice, table.bob)
    await table.reply_text(table.admin, "settings", {"threads": "on"})
    posted = await table.reply_text(table.carol, "challenge", {"opponent": table.bob})
    assert posted.custom_ids(), posted.content
    await table.reply_text(table.admin, "settings", {"threads": "off"})
    await table.standin.wait_until(lambda: "lapsed" in posted.content, timeout=5)
    assert posted.content.startswith(
        f"<@{table.carol.id}>'s challenge to <@{table.bob.id}> lapsed: this channel is now "
        "busy with a game."
    ), posted.content
    assert posted.custom_ids() == []
    lobby = table.guild.channel("lobby")
    again = await table.reply_text(table.carol, "challenge", {"opponent": table.bob}, channel=lobby)
    assert not again.ephemeral, again.content
