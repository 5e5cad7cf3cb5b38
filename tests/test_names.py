"""Display names in the bot's text: inert Markdown and mentions, isolated when they could turn
the rest of the line around, and a member's name in one server never shown in another."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

from bot.alike_names import visible
from bot.flow.threads import thread_name
from bot.name_cache import NAMES_KEPT, NameCache
from bot.names import escaped, passes_for
from tests.bot_harness import challenge_id, running_bot
from tests.discord_standin import DiscordStandin

pytest_plugins = ["tests.discord_standin.fixtures"]


def test_a_plain_name_is_shown_as_it_is() -> None:
    """A left-to-right name without Markdown comes back unchanged."""
    assert escaped("alice") == "alice"


def test_markdown_and_mentions_are_inert() -> None:
    """Bold, a user mention and @everyone come back escaped."""
    shown = escaped("**x** <@123456789012345678> @everyone")
    assert "**" not in shown.replace("\\*\\*", "")
    assert "@everyone" not in shown
    assert "<@123456789012345678>" not in shown


def test_links_and_other_discord_markup_are_inert() -> None:
    """A channel, command or timestamp mention and a link in a name stay text: no "#rules"
    link, clickable command, date or link preview in the bot's message, where the name is
    shown as it reads (a zero-width space after the ``<`` and the scheme's colon)."""
    for name in ("<#123456789012345678>", "</abort:123456789012345678>", "<t:0:R>", "<id:guide>"):
        assert escaped(name) == "<\u200b" + name[1:]
    assert escaped("<a:x:123456789012345678>") == "<\u200ba:x:123456789012345678>"
    assert escaped("https://e.vil/x") == "https:\u200b//e.vil/x"
    assert escaped("<3 a:b") == "<3 a:b"


def test_direction_controls_are_taken_out() -> None:
    """A name holding U+202E (right-to-left override), or a pop isolate that would close the
    isolate around it early, loses those controls: the words after it keep their direction."""
    assert escaped("abc\u202egnp") == "abcgnp"
    assert escaped("\u2069\u202eevil") == "evil"
    assert escaped("\u2069\u202eסוף") == "\u2068סוף\u2069"


def test_a_name_in_a_right_to_left_script_is_isolated() -> None:
    """An Arabic or Hebrew name is isolated too (its direction would otherwise pull in the
    punctuation that follows it)."""
    assert escaped("سارة") == "\u2068سارة\u2069"
    assert escaped("דנה") == "\u2068דנה\u2069"


def test_a_thread_name_loses_direction_controls_too() -> None:
    """The thread of a game between such names reads left to right after them."""
    assert thread_name("\u202eevil", "bob", "brandubh").startswith("evil vs bob · ")


def test_a_name_of_invisible_characters_shows_nothing() -> None:
    """Zero-width spaces, a Hangul filler, a blank Braille pattern or spaces show nothing; a
    letter among them does."""
    for name in ("\u200b\u200b", "\u3164", "\u2800 \u115f", "\u2060\ufeff\u00ad", " "):
        assert not visible(name), repr(name)
    assert visible("\u200bx\u3164")
    assert visible("סוף")


async def test_a_name_that_shows_nothing_is_passed_over_for_the_username(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Members nicknamed "ㅤ" (a Hangul filler) and "​​" (zero-width spaces, their
    global name blank too) play: the lines, the board's alt text, /stats and /leaderboard call
    them by their usernames, never by a name that reads as nobody ("ㅤ accepted")."""
    standin = discord_standin
    async with running_bot(standin, tmp_path / "bot.sqlite3") as table:
        blank = standin.add_member(table.guild, "blank.user", nick="\u3164")
        hidden = standin.add_member(table.guild, "hidden_user", nick="\u200b\u200b")
        hidden.user.global_name = "\u2800"
        board = await table.challenge_accepted(blank, hidden, sets=1)
        played = await table.move(blank, "d1-b1")
        stats = await table.reply_text(table.carol, "stats", {"player": hidden})
        leaderboard = await table.reply_text(table.carol, "leaderboard")
        accepted = [m.content for m in table.public_messages() if " accepted: " in m.content]
        shown = {
            "the accept line": accepted[0],
            "the move line": played.content,
            "the alt text": board.attachments[0].description or "",
            "/stats": str(stats.embeds[0]),
            "/leaderboard": leaderboard.embeds[0]["description"],
        }
        for where, text in shown.items():
            assert "\u3164" not in text, f"{where}: {text!r}"
            assert "\u200b\u200b" not in text, f"{where}: {text!r}"
        assert accepted[0].startswith("hidden\\_user accepted: "), accepted[0]
        assert played.content.startswith("**blank.user** (attackers) played d1-b1."), played.content
        assert "blank.user" in shown["the alt text"]
        assert stats.embeds[0]["title"].startswith("hidden\\_user at "), stats.embeds[0]


def test_a_name_passes_for_mine_alone_or_with_a_level() -> None:
    """ "brandubh", "Ｂｒａｎｄｕｂｈ (level 3)" and "Brandubh\u200b(Stufe 5)" pass for
    Brandubh, the computer's name; "Brandubh fan", "Bran" and a name that only begins with
    parentheses ("(he/him) alice") do not."""
    for name in ("brandubh", "Ｂｒａｎｄｕｂｈ (level 3)", "Brandubh\u200b(Stufe 5)", " Brandubh "):
        assert passes_for(name, "Brandubh"), name
    for name in ("Brandubh fan", "Bran", "alice (level 3)", "(he/him) alice", "(AFK)"):
        assert not passes_for(name, "Brandubh"), name


def test_a_name_in_cyrillic_or_greek_look_alikes_passes_for_mine() -> None:
    """ "Вrandubh" (a Cyrillic В), "Brаndubh" (a Cyrillic а), "ΒRΑΝDUΒΗ (level 3)" (Greek
    capitals) and "brandubһ" (a Cyrillic һ) pass for Brandubh; "Вера", "Βeta", "Вrandubh
    fan" and "Brαndubh" (a Greek α, drawn apart) do not, and a Cyrillic name passes for
    itself alone."""
    for name in ("Вrandubh", "Brаndubh", "ΒRΑΝDUΒΗ (level 3)", "brandubһ", "Βrandυbh"):
        assert passes_for(name, "Brandubh"), name
    for name in ("Вера", "Βeta", "Вrandubh fan", "Вrandubhа", "Brαndubh"):
        assert not passes_for(name, "Brandubh"), name
    assert passes_for("Вера", "Вера")
    assert not passes_for("Вера", "Вероника")


async def test_a_member_named_like_the_computer_is_named_by_username(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """A member nicknamed "Brandubh (level 3)", my name and the computer's level, plays alice:
    their move line, the rating line, /leaderboard, /export and /puzzle stats call them by
    their username, so their moves and rating never pass for the computer's."""
    standin = discord_standin
    async with running_bot(standin, tmp_path / "bot.sqlite3") as table:
        impostor = standin.add_member(table.guild, "impostor", nick="Brandubh (level 3)")
        impostor.user.global_name = "brandubh"
        await table.challenge_accepted(impostor, table.alice, sets=1)
        played = await table.move(impostor, "d1-b1")
        for ply, move in enumerate(["c4-c2", "b4-b5", "d4-b4", "b1-b3"]):
            ended = await table.move(table.alice if ply % 2 == 0 else impostor, move)
        leaderboard = await table.reply_text(table.carol, "leaderboard")
        exported = await table.reply_text(table.carol, "export")
        puzzles = await table.reply_text(table.carol, "puzzle stats", {"player": impostor})
        shown = {
            "/puzzle stats": str(puzzles.embeds[0]),
            "the move line": played.content,
            "the set's end": ended.content,
            "/leaderboard": leaderboard.embeds[0]["description"],
            "/export's picture": exported.attachments[-1].description or "",
        }
        for where, text in shown.items():
            assert "Brandubh (level" not in text, f"{where}: {text}"
            assert "impostor" in text, f"{where}: {text}"
        assert played.content.startswith("**impostor** (attackers) played d1-b1.")


async def test_a_nickname_from_another_server_is_shown_only_there(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """alice's nickname on a second server names her there, never on Tafl Club: its /games,
    board, /export, the end of her game there and its /leaderboard still call her alice."""
    standin = discord_standin
    async with running_bot(standin, tmp_path / "bot.sqlite3") as table:
        await table.challenge_accepted(table.alice, table.bob, sets=1, time=60)
        await table.move(table.alice, "d1-b1")
        await table.move(table.bob, "c4-c2")
        other = standin.add_guild("Other Club", channels=["chat"])
        ali = standin.add_member(other, table.alice.user, nick="Ali in Other Club")
        dave = standin.add_member(other, "dave")
        await standin.bot_joins(other)
        chat = other.channel("chat")
        asked = await (
            await standin.slash(other, chat, ali, "challenge", {"opponent": dave})
        ).wait_original()
        await standin.click(asked, f"challenge:accept:{challenge_id(asked)}", dave)
        there = await (await standin.slash(other, chat, dave, "games", {})).wait_original()
        assert "**Ali in Other Club**" in there.embeds[0]["description"]

        games = await table.reply_text(table.carol, "games")
        board = await table.reply_text(table.carol, "board")
        exported = await (await table.slash(table.carol, "export")).wait_followup()
        table.advance(timedelta(minutes=61))
        over = await table.wait_board(lambda m: "ran out of time" in m.content)
        leaderboard = await table.reply_text(table.carol, "leaderboard")
        shown = {
            "/games": games.embeds[0]["description"],
            "the board": board.attachments[0].description or "",
            "/export": exported.attachments[0].data.decode(),
            "the end of the game": over.content,
            "/leaderboard": leaderboard.embeds[0]["description"],
        }
        for where, text in shown.items():
            assert "Ali" not in text, f"{where}: {text}"
            assert "alice" in text, f"{where}: {text}"


async def test_a_member_never_seen_is_named_in_the_servers_language(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """A player the bot has no name for is "ein Spieler" in a German server, in /games and on
    the board's picture, never the English "a player"."""
    db_path = tmp_path / "bot.sqlite3"
    async with running_bot(discord_standin, db_path) as table:
        await table.reply_text(table.admin, "settings", {"language": "de"})
        await table.challenge_accepted(table.alice, table.bob, sets=1)
        await table.stop()
        with sqlite3.connect(db_path) as raw:  # bob's names lost (no foreign keys checked here)
            raw.execute("DELETE FROM member_names WHERE user_id = ?", (table.bob.id,))
            raw.execute("DELETE FROM players WHERE user_id = ?", (table.bob.id,))
        raw.close()
        await table.start()
        board = await table.move(table.alice, "d1-b1")
        games = await table.reply_text(table.carol, "games")
        shown = {
            "the board": board.attachments[0].description or "",
            "/games": games.embeds[0]["description"],
        }
        for where, text in shown.items():
            assert "ein Spieler" in text, f"{where}: {text}"
            assert "a player" not in text, f"{where}: {text}"


def test_the_names_cache_forgets_the_least_recently_used_name_once_full() -> None:
    """A cache of two names keeps the two last read or written: a third forgets the one
    neither read nor written since."""
    cache = NameCache(size=2)
    cache.put((1, 10), "alice")
    cache.put((None, 11), "bob")
    assert cache.get((1, 10)) == "alice"
    cache.put((1, 12), "carol")
    assert len(cache) == 2
    assert (None, 11) not in cache
    assert cache.get((1, 10)) == "alice"
    assert cache.get((1, 12)) == "carol"
    assert NameCache().size == NAMES_KEPT == 100_000


async def test_a_name_the_full_cache_forgot_is_read_again(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """With room for two names, ali ("Ali the Bold" here), bob and carol play and look
    each other up: the bot keeps two names, no more, and /games still calls ali by their
    nickname here, read again from the database, not "a player" nor her account's name."""
    standin = discord_standin
    async with running_bot(standin, tmp_path / "bot.sqlite3") as table:
        assert table.bot is not None
        table.bot._names = NameCache(size=2)
        table.bot._stored = NameCache(size=2)
        alice = standin.add_member(table.guild, "ali", nick="Ali the Bold")
        await table.challenge_accepted(alice, table.bob, sets=1)
        await table.move(alice, "d1-b1")
        await table.reply_text(table.carol, "stats", {"player": table.bob})
        assert len(table.bot._names) <= 2
        assert len(table.bot._stored) <= 2
        assert (table.guild.id, alice.id) not in table.bot._names
        games = await table.reply_text(table.carol, "games")
        assert "**Ali the Bold**" in games.embeds[0]["description"], games.embeds[0]
        assert (table.guild.id, alice.id) in table.bot._names
