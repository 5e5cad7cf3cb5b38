"""/games and /help, end to end: finding the games in progress, and a first-timer's guide."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest

from bot.cogs.info import help_text
from bot.i18n import language_for, languages, mentions
from engine import RULESETS, Game
from tests.bot_harness import Harness, challenge_id, eventually, running_bot
from tests.discord_standin import DiscordStandin, FakeChannel, StoredMessage
from tests.discord_standin.model import VIEW_CHANNEL

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a server that plays each game in a thread."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as harness:
        yield harness


async def start_game(table: Harness, challenger_name: str, opponent_name: str) -> int:
    """Two new members play a game in a thread of #games; returns the thread's id."""
    challenger = table.standin.add_member(table.guild, challenger_name)
    opponent = table.standin.add_member(table.guild, opponent_name)
    line = await table.reply_text(challenger, "challenge", {"opponent": opponent})
    await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", opponent)
    assert line.thread is not None
    return line.thread.id


def turner(listing: StoredMessage, direction: str) -> str:
    """The custom_id of the /games list's Next (``direction`` "next") or Previous ("prev")."""
    return next(c for c in listing.custom_ids() if c.split(":")[4] == direction)


async def test_games_lists_each_game_with_a_link_and_pages(table: Harness) -> None:
    """Twelve games: the first page lists ten with their threads; Next shows the other two."""
    threads = [await start_game(table, f"a{n}", f"b{n}") for n in range(12)]
    listing = await table.reply_text(table.carol, "games")
    embed = listing.embeds[0]
    assert embed["footer"]["text"] == "Games 1–10 of 12"
    first = embed["description"].splitlines()[0]
    assert first == (
        "**a0** (attackers) vs **b0** (defenders) · Brandubh (World Tafl Federation) · "
        f"set 1 of 2 · move 1 · a0 to move · <#{threads[0]}>"
    )
    assert listing.pinged_user_ids() == set()
    next_id = turner(listing, "next")
    await table.standin.click(listing, next_id, table.carol)
    assert listing.embeds[0]["footer"]["text"] == "Games 11–12 of 12"
    assert f"<#{threads[11]}>" in listing.embeds[0]["description"]


async def resign_in(table: Harness, thread_id: int, name: str) -> None:
    """``name`` resigns the set being played in the thread ``thread_id``, confirmed."""
    [member] = [m for m in table.guild.members if m.name == name]
    thread = table.standin.world.channels[thread_id]
    asked = await table.reply_text(member, "resign", channel=thread)
    assert asked.ephemeral, asked.content
    pressed = await table.standin.click(asked, asked.custom_ids()[0], member)
    assert pressed.answered


async def end_match(table: Harness, thread_id: int) -> None:
    """An admin aborts the match played in the thread ``thread_id``."""
    thread = table.standin.world.channels[thread_id]
    await table.abort(table.admin, channel=thread)


async def test_next_after_a_game_on_the_page_ended_shows_the_game_after_it(
    table: Harness,
) -> None:
    """Twelve matches, carol reads games 1–10; the first one ends: Next shows games 11 and 12
    (it skipped game 11, which had moved up to page 1 after she read it)."""
    threads = [await start_game(table, f"a{n}", f"b{n}") for n in range(12)]
    listing = await table.reply_text(table.carol, "games")
    await end_match(table, threads[0])
    next_id = turner(listing, "next")
    await table.standin.click(listing, next_id, table.carol)
    embed = listing.embeds[0]
    assert f"<#{threads[10]}>" in embed["description"]
    assert f"<#{threads[11]}>" in embed["description"]
    assert embed["footer"]["text"] == "Games 10–11 of 11"


async def test_a_match_going_on_to_set_2_keeps_its_place_in_games(table: Harness) -> None:
    """Twelve two-set matches, carol reads games 1–10; the second goes on to set 2: Next shows
    games 11 and 12, not the second match again (set 2 was listed last, as a new game)."""
    threads = [await start_game(table, f"a{n}", f"b{n}") for n in range(12)]
    listing = await table.reply_text(table.carol, "games")
    await resign_in(table, threads[1], "a1")
    next_id = turner(listing, "next")
    await table.standin.click(listing, next_id, table.carol)
    embed = listing.embeds[0]
    assert f"<#{threads[1]}>" not in embed["description"]
    assert f"<#{threads[10]}>" in embed["description"]
    assert f"<#{threads[11]}>" in embed["description"]
    assert embed["footer"]["text"] == "Games 11–12 of 12"


async def test_previous_after_games_before_the_page_ended_shows_the_games_before_it(
    table: Harness,
) -> None:
    """carol reads games 21–22 of 22; three games of page 1 end: Previous shows the ten games
    before game 21 of before, from "Games 8–17 of 19" (it showed games 14–23 of before, by
    offset, skipping three); Previous again shows the first page."""
    threads = [await start_game(table, f"a{n}", f"b{n}") for n in range(22)]
    listing = await table.reply_text(table.carol, "games")
    for _ in range(2):
        await table.standin.click(listing, turner(listing, "next"), table.carol)
    assert listing.embeds[0]["footer"]["text"] == "Games 21–22 of 22"
    for thread in threads[:3]:
        await end_match(table, thread)
    await table.standin.click(listing, turner(listing, "prev"), table.carol)
    embed = listing.embeds[0]
    assert embed["footer"]["text"] == "Games 8–17 of 19"
    assert f"<#{threads[10]}>" in embed["description"]
    assert f"<#{threads[19]}>" in embed["description"]
    await table.standin.click(listing, turner(listing, "prev"), table.carol)
    embed = listing.embeds[0]
    assert embed["footer"]["text"] == "Games 1–10 of 19"
    assert f"<#{threads[3]}>" in embed["description"]


async def test_a_list_posted_before_the_games_anchors_turns_by_offset(table: Harness) -> None:
    """A /games list posted by an earlier version carries Next as the offset of the page to
    show, no match: pressed now it still shows games 11–12 of 12."""
    threads = [await start_game(table, f"a{n}", f"b{n}") for n in range(12)]
    listing = await table.reply_text(table.carol, "games")
    old_next = f"games:{table.guild.id}:0:10:next"
    pressed = await table.standin.forged_click(listing, old_next, table.carol)
    assert pressed.answered
    embed = listing.embeds[0]
    assert embed["footer"]["text"] == "Games 11–12 of 12"
    assert f"<#{threads[11]}>" in embed["description"]


async def test_games_filters_by_player(table: Harness) -> None:
    """/games player:@x lists only x's games."""
    await start_game(table, "ann", "ben")
    await start_game(table, "cat", "dan")
    [cat] = [m for m in table.guild.members if m.name == "cat"]
    listing = await table.reply_text(table.alice, "games", {"player": cat})
    [line] = listing.embeds[0]["description"].splitlines()
    assert line.startswith("**cat** (attackers) vs **dan** (defenders)")
    assert listing.embeds[0]["title"].startswith("Games in progress of cat")


async def test_games_of_a_player_who_never_played_names_them(table: Harness) -> None:
    """/games player:@carol, who has never played here, is titled with her name."""
    listing = await table.reply_text(table.alice, "games", {"player": table.carol})
    assert listing.embeds[0]["title"].startswith("Games in progress of carol")


async def test_games_names_the_computer_with_its_level(table: Harness) -> None:
    """A game against the computer is listed with its level, as its board names it."""
    await table.slash(table.alice, "challenge", {"opponent": table.me, "level": 4})
    assert table.bot is not None
    games = table.bot.services.games

    async def in_progress() -> int:
        return len(await games.active())

    await eventually(in_progress, 1)
    listing = await table.reply_text(table.carol, "games")
    [line] = listing.embeds[0]["description"].splitlines()
    assert line.startswith(f"**alice** (attackers) vs **{table.me.name} (level 4)** (defenders)")


async def test_games_says_so_when_nothing_is_being_played(table: Harness) -> None:
    """With no game in progress /games says how to start one."""
    listing = await table.reply_text(table.alice, "games")
    assert listing.embeds[0]["description"] == (
        f"No game in progress. Start one with {table.mention('challenge')}."
    )


HELP_COMMANDS = (
    "challenge",
    "move",
    "board",
    "takeback",
    "resign",
    "games",
    "stats",
    "leaderboard",
    "export",
    "analyse",
    "puzzle play",
    "puzzle leaderboard",
    "puzzle daily",
    "rules",
    "settings",
)
"""What /help tells a newcomer about: playing, the game, ratings, learning, and (admins) the
server's settings and the daily puzzle."""


async def test_help_is_a_private_guide(table: Harness) -> None:
    """/help answers privately with the guide: how to start, the three ways to move, and every
    command a newcomer needs, each named once (a click on one puts it in the message box)."""
    reply = await table.reply_text(table.alice, "help")
    assert reply.ephemeral
    assert reply.content == help_text()
    for words in (
        "`/challenge opponent:@someone`",
        "`/challenge opponent:@Brandubh level:1-5`",
        "`/move d1-c1`",
        "press **Move**",
        "move 9",
    ):
        assert words in reply.content
    for command in HELP_COMMANDS:
        if command not in ("challenge", "move"):  # named with options above
            assert reply.content.count(table.mention(command)) == 1, command
    assert table.mention("move") in reply.content  # "/move and pick from the suggestions"
    assert len(reply.content) <= 2000


async def test_help_gives_an_example_move_of_the_servers_ruleset(table: Harness) -> None:
    """Where the server plays 15x15 by default, /help's example is `/move e1-d1` and `d1` alone
    (d1 is empty there: brandubh's d1-c1 would be refused); in Ard Rí, where two pieces reach
    c1 and every square any first move reaches, "the destination" stands for the square;
    both are first moves there."""
    await table.reply_text(table.admin, "settings", {"ruleset": "hnefatafl-15"})
    reply = await table.reply_text(table.alice, "help")
    assert reply.content == help_text(ruleset_name="hnefatafl-15")
    assert "`/move e1-d1` (or just `d1` when only one" in reply.content
    assert "d1-c1" not in reply.content
    await table.reply_text(table.admin, "settings", {"ruleset": "ard-ri"})
    reply = await table.reply_text(table.alice, "help")
    assert "`/move c1-b1` (or just the destination when only one" in reply.content
    for name in ("hnefatafl-15", "ard-ri", "brandubh"):
        [example] = re.findall(r"`/move (\S+)`", help_text(ruleset_name=name))
        assert Game(name).is_legal(example), (name, example)


async def test_help_in_a_games_channel_gives_an_example_move_of_its_ruleset(
    table: Harness,
) -> None:
    """Where a 15x15 game is played in a brandubh server, /help asked in its thread gives
    `/move e1-d1`, as /rules gives that game's rules: brandubh's d1-c1 names an empty square
    there."""
    line = await table.reply_text(
        table.alice, "challenge", {"opponent": table.bob, "ruleset": "hnefatafl-15"}
    )
    await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", table.bob)
    assert line.thread is not None
    reply = await table.reply_text(table.alice, "help", channel=line.thread)
    assert "`/move e1-d1` (or just `d1` when only one" in reply.content
    assert "d1-c1" not in reply.content


ENGLISH_COMMAND = re.compile(r"</|(?<![\w/])/(\w+)")
"""A mention (its name is English in every language), or a command as written: its first word."""


async def test_help_names_the_commands_as_the_readers_discord_lists_them(table: Harness) -> None:
    """A German, French, Spanish or Brazilian reader's /help names each command as their Discord
    lists it (`/herausfordern gegner:@jemand`, the synced name_localizations), never in English,
    and never as a mention (Discord shows a mention by its English name)."""
    for locale in ("de", "fr", "es-ES", "pt-BR"):
        table.alice.user.locale = locale
        reply = await table.reply_text(table.alice, "help")
        assert reply.content == help_text(language_for(locale))
        challenge = table.shown_name("challenge", locale)
        opponent = table.shown_option("challenge", "opponent", locale)
        level = table.shown_option("challenge", "level", locale)
        assert challenge != "challenge"
        assert f"`/{challenge} {opponent}:@" in reply.content
        assert f"`/{challenge} {opponent}:@Brandubh {level}:1-5`" in reply.content
        assert f"`/{table.shown_name('move', locale)} d1-c1`" in reply.content
        for command in HELP_COMMANDS:
            assert f"`/{table.shown_name(command, locale)}" in reply.content, (locale, command)
        english = {
            c["name"]
            for c in table.standin.synced_commands()
            if table.shown_name(c["name"], locale) != c["name"]
        }
        named = ENGLISH_COMMAND.findall(reply.content)
        assert "" not in named, f"a mention in {locale}"
        assert set(named) & english == set(), locale
        assert "opponent:" not in reply.content
        assert len(reply.content) <= 2000


def test_help_fits_one_message_in_every_language() -> None:
    """Discord takes at most 2000 characters: /help fits in every language and for every
    server's ruleset, with every command
    it names bare written as a mention with a 20-digit id (ids grow; English gets mentions)."""
    mentions.learn({command: 10**19 for command in HELP_COMMANDS})  # forgotten after the test
    for language in languages():
        for name in RULESETS:  # the example move is the server's ruleset's
            assert len(help_text(language, name)) <= 2000, (language.tag, name)
    assert "</games:10000000000000000000>" in help_text()


def test_help_names_the_buttons_as_they_read_in_every_language() -> None:
    """/help names the challenge's Accept button and the board's Move button by their labels
    in every language (the move paragraph's heading, "**Mueve**" in Spanish, is a verb of its
    own; the button it names reads "**Mover**")."""
    for language in languages():
        guide = help_text(language)
        for label in ("Accept", "Move"):  # bot/views/challenge.py, bot/views/picker.py
            assert f"**{language._(label)}**" in guide, (language.tag, label)


async def test_no_game_here_points_at_games(table: Harness) -> None:
    """/board in a channel without a game says where the games are."""
    reply = await table.reply_text(table.alice, "board")
    assert reply.content == (
        f"There is no game in progress in this channel: {table.mention('games')} lists where the"
        " games are."
    )


async def test_games_in_a_private_channel_are_listed_only_inside_it(table: Harness) -> None:
    """A game and an open challenge in a channel @everyone cannot see are left out of /games
    asked anywhere else (the list is public), counted out too, and listed inside it."""
    standin, guild = table.standin, table.guild
    staff = guild.channel("side")
    view = discord.Permissions(view_channel=True)
    await standin.set_overwrite(staff, guild, deny=view)
    for member in (table.admin, table.carol, table.me):
        await standin.set_overwrite(staff, member, allow=view)
    line = await table.reply_text(
        table.admin, "challenge", {"opponent": table.carol}, channel=staff
    )
    await standin.click(line, f"challenge:accept:{challenge_id(line)}", table.carol)
    assert line.thread is not None
    waiting = await table.reply_text(table.carol, "challenge", {}, channel=staff)
    assert not waiting.ephemeral
    public_game = await start_game(table, "ann", "ben")

    outside = (await table.reply_text(table.bob, "games")).embeds[0]
    assert outside["description"].splitlines() == [
        "**ann** (attackers) vs **ben** (defenders) · Brandubh (World Tafl Federation) · "
        f"set 1 of 2 · move 1 · ann to move · <#{public_game}>"
    ]
    assert outside.get("fields", []) == []

    inside = (await table.reply_text(table.admin, "games", channel=staff)).embeds[0]
    assert f"<#{line.thread.id}>" in inside["description"]
    assert f"<#{public_game}>" in inside["description"]
    [field] = inside["fields"]
    assert field["value"].startswith("**carol** · ")
    in_thread = (await table.reply_text(table.carol, "games", channel=line.thread)).embeds[0]
    assert f"<#{line.thread.id}>" in in_thread["description"]


ATTACKERS_WIN = ["d1-b1", "c4-c2", "b4-b5", "d4-b4", "b1-b3"]
"""Five moves after which the attackers capture the king against the throne's neighbour."""


async def game_in_member_thread(
    table: Harness, parent_name: str, *, private: bool = False, bot_added: bool = True
) -> FakeChannel:
    """alice starts a thread of #``parent_name`` herself and challenges bob inside it; the
    game is played there (a thread has no threads). A ``private`` one: she adds bob and the
    bot to it (a game starts in no private thread the bot is not in), and unless
    ``bot_added`` a moderator then removes the bot (it sees the thread only through the
    interactions from it). Returns the thread."""
    thread = await table.standin.start_member_thread(
        table.guild.channel(parent_name), "our game", table.alice, private=private
    )
    if private:
        await table.standin.add_to_thread(thread, table.bob, by=table.alice)
        await table.standin.add_to_thread(thread, table.standin.bot_user, by=table.alice)
    line = await table.reply_text(
        table.alice, "challenge", {"opponent": table.bob, "sets": 1}, channel=thread
    )
    await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", table.bob)
    await table.wait_board(channel=thread)
    if private and not bot_added:
        await table.standin.remove_from_thread(thread, table.standin.bot_user)
    return thread


async def test_a_game_in_a_private_thread_is_listed_and_exported_only_inside_it(
    table: Harness,
) -> None:
    """alice and bob play in a private thread of #games: carol's /games in #lobby does not list
    it, and once it is over her /export of it there is refused (both gave it out)."""
    thread = await game_in_member_thread(table, "games", private=True)
    lobby = table.guild.channel("lobby")
    listed = await table.reply_text(table.carol, "games", channel=lobby)
    assert f"<#{thread.id}>" not in str(listed.embeds[0].get("description"))
    inside = await table.reply_text(table.alice, "games", channel=thread)
    assert f"<#{thread.id}>" in str(inside.embeds[0].get("description"))
    for ply, text in enumerate(ATTACKERS_WIN):
        who = table.alice if ply % 2 == 0 else table.bob
        await table.reply_text(who, "move", {"move": text}, channel=thread)
    refused = await table.reply_text(table.carol, "export", {"game": 1}, channel=lobby)
    assert refused.ephemeral
    assert "not everyone here can see" in refused.content


async def test_a_game_in_a_private_thread_the_bot_is_not_in_is_never_given_out(
    table: Harness,
) -> None:
    """alice and bob play in a private thread of #games a moderator removed the bot from, and
    the bot restarts (Discord no longer tells it of the thread nor lets it look: 403): carol's
    /games in #lobby does not list it, and her /export of it there is refused as out of the
    bot's sight."""
    thread = await game_in_member_thread(table, "games", private=True, bot_added=False)
    await table.restart()
    lobby = table.guild.channel("lobby")
    listed = await table.reply_text(table.carol, "games", channel=lobby)
    assert f"<#{thread.id}>" not in str(listed.embeds[0].get("description"))
    for ply, text in enumerate(ATTACKERS_WIN):
        who = table.alice if ply % 2 == 0 else table.bob
        await table.reply_text(who, "move", {"move": text}, channel=thread)
    refused = await table.reply_text(table.carol, "export", {"game": 1}, channel=lobby)
    assert refused.ephemeral
    assert "Discord does not let me see" in refused.content
    assert "no longer" not in refused.content  # not since it started


async def test_a_game_in_an_archived_thread_of_a_private_channel_stays_unlisted(
    table: Harness,
) -> None:
    """alice and bob play in a thread alice started in the private #side: carol's /games in
    #lobby hides it, also once the thread is archived (the bot then no longer knows where the
    thread is; it was listed)."""
    side = table.guild.channel("side")
    await table.standin.set_overwrite(side, table.guild, deny=VIEW_CHANNEL)
    for member in (table.alice, table.bob, table.me):
        await table.standin.set_overwrite(side, member, allow=VIEW_CHANNEL)
    thread = await game_in_member_thread(table, "side")
    lobby = table.guild.channel("lobby")
    before = await table.reply_text(table.carol, "games", channel=lobby)
    assert f"<#{thread.id}>" not in str(before.embeds[0].get("description"))
    await table.standin.edit_thread(thread, archived=True)
    after = await table.reply_text(table.carol, "games", channel=lobby)
    assert f"<#{thread.id}>" not in str(after.embeds[0].get("description"))


async def test_a_game_whose_bot_made_thread_is_archived_is_still_listed(table: Harness) -> None:
    """A game's own thread (started by the bot in the public #games) is archived while the game
    goes on: the bot no longer has it in hand, but knows its channel, so /games elsewhere
    still lists it."""
    thread_id = await start_game(table, "ann", "ben")
    thread = table.standin.world.channels[thread_id]
    await table.standin.edit_thread(thread, archived=True)
    listed = await table.reply_text(table.carol, "games", channel=table.guild.channel("lobby"))
    assert f"<#{thread_id}>" in str(listed.embeds[0].get("description"))
