"""A challenge open to anyone, end to end: /challenge without an opponent, taken by whoever
presses Accept first, in its own thread like any game."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import discord
import pytest

from bot.flow.challenges import ChallengeFlow
from bot.i18n import Language
from bot.services.domain import Challenge
from bot.views import common
from tests.bot_harness import Harness, challenge_id, running_bot
from tests.discord_standin import DiscordStandin, FakeMember, StoredMessage
from tests.discord_standin.model import MANAGE_GUILD, MENTION_EVERYONE
from tests.discord_standin.recorder import DEFERRED_CHANNEL_MESSAGE as DEFERRED
from tests.discord_standin.recorder import InteractionRecord
from tests.discord_standin.world_changes import DEFAULT_BOT_PERMISSIONS

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot in a server that plays each game in a thread (the bot's default)."""
    async with running_bot(discord_standin, tmp_path / "bot.sqlite3", threads=True) as harness:
        yield harness


async def open_challenge(table: Harness, **options: object) -> StoredMessage:
    """Alice asks the channel for a game (one set); returns the public challenge."""
    reply = await table.reply_text(table.alice, "challenge", {"sets": 1, **options})
    assert not reply.ephemeral, reply.content
    return reply


async def test_anyone_may_take_an_open_challenge_and_it_pings_nobody(table: Harness) -> None:
    """The challenge names no opponent and pings nobody; it has Accept and Withdraw only; the
    challenger cannot take it; the first to accept plays, in a thread named for both."""
    message = await open_challenge(table, side="defenders")
    alice = table.alice.mention
    assert message.content.startswith(
        f"{alice} is looking for an opponent: **Brandubh (World Tafl Federation)**, a single "
        f"set, {alice} plays the defenders, 1 day per move. Anyone may accept.\n"
        "The challenge expires <t:"
    )
    assert message.pinged_user_ids() == set()
    number = challenge_id(message)
    assert message.custom_ids() == [f"challenge:accept:{number}", f"challenge:withdraw:{number}"]

    own = await table.standin.click(message, f"challenge:accept:{number}", table.alice)
    refusal = await own.wait_original()
    assert refusal.ephemeral
    assert refusal.content == (
        "You cannot accept your own challenge: withdraw it if you no longer want to play."
    )
    assert message.components, "the challenge lost its buttons"

    taken = await table.standin.click(message, f"challenge:accept:{number}", table.carol)
    assert taken.answered
    assert message.thread is not None
    assert message.thread.name == "alice vs carol · Brandubh (World Tafl Federation)"
    board = await table.wait_board(channel=message.thread)
    assert f"<@{table.carol.id}>" in board.content  # carol attacks and moves first
    assert board.pinged_user_ids() == {table.alice.id, table.carol.id}  # alice learns who took it
    assert message.components == []
    assert f"<#{message.thread.id}>" in message.content


async def test_two_members_pressing_accept_together_start_one_game(table: Harness) -> None:
    """Bob and Carol take the same open challenge at once: one game, one thread, and the other
    is told it is no longer open."""
    message = await open_challenge(table)
    number = challenge_id(message)
    presses = await asyncio.gather(
        table.standin.click(message, f"challenge:accept:{number}", table.bob, wait=False),
        table.standin.click(message, f"challenge:accept:{number}", table.carol, wait=False),
    )
    for press in presses:
        await table.standin.wait_answered(press, timeout=10)
    thread = message.thread
    assert thread is not None
    await table.wait_board(channel=thread)
    answers = [await press.wait_original() for press in presses]
    refused = [a for a in answers if a.ephemeral]
    assert [a.content for a in refused] == ["That challenge is no longer open."]
    assert len(table.standin.world.threads_of(table.channel)) == 1


async def test_one_open_challenge_at_a_time_and_it_expires_saying_so(table: Harness) -> None:
    """A second open challenge is refused with a link to the first; after ten minutes the first
    says nobody accepted it, and a new one may be posted."""
    first = await open_challenge(table)
    first_id = challenge_id(first)
    second = await table.reply_text(table.alice, "challenge", {})
    assert second.ephemeral
    link = f"https://discord.com/channels/{table.guild.id}/{table.channel.id}/{first.id}"
    assert second.content == (
        f"Your open challenge is still waiting for someone to accept it ({link}): withdraw it "
        "first to post another."
    )
    table.advance(timedelta(minutes=10))
    await table.standin.wait_until(lambda: first.components == [], timeout=5)
    assert first.content == f"{table.alice.mention}'s open challenge expired: nobody accepted it."
    again = await open_challenge(table)
    assert challenge_id(again) != first_id


async def test_a_level_needs_me_as_the_opponent(table: Harness) -> None:
    """`level` without an opponent is refused (it is only for games against the computer)."""
    reply = await table.reply_text(table.alice, "challenge", {"level": 3})
    assert reply.ephemeral
    assert reply.content == (
        "A level is only for games against me: leave it out when you challenge a member."
    )
    assert table.public_messages() == []


@pytest.mark.parametrize(
    ("locale", "posted", "expired"),
    [
        (
            "de",
            "{a} sucht jemanden für eine Partie: **Brandubh (World Tafl Federation)**, ein "
            "einzelner Satz, {a} spielt die Angreifer, 1 Tag pro Zug. Wer will, kann "
            "annehmen.",
            "Die offene Herausforderung von {a} ist abgelaufen: Niemand hat sie angenommen.",
        ),
        (
            "fr",
            "{a} cherche un adversaire : **Brandubh (World Tafl Federation)**, une seule manche, "
            "{a} joue avec les attaquants, 1 jour par coup. Tout le monde peut accepter.",
            "Le défi ouvert lancé par {a} a expiré : personne ne l'a accepté.",
        ),
    ],
)
async def test_an_open_challenge_reads_in_the_server_language(
    discord_standin: DiscordStandin, tmp_path: Path, locale: str, posted: str, expired: str
) -> None:
    """The open challenge and its expiry, as a German or French server reads them."""
    async with running_bot(
        discord_standin, tmp_path / "bot.sqlite3", threads=True, server_locale=locale
    ) as table:
        message = await open_challenge(table)
        alice = table.alice.mention
        assert message.content.split("\n")[0] == posted.format(a=alice)
        table.advance(timedelta(minutes=10))
        await table.standin.wait_until(lambda: message.components == [], timeout=5)
        assert message.content == expired.format(a=alice)


async def test_a_server_role_is_pinged_for_open_challenges_and_only_for_them(
    table: Harness,
) -> None:
    """An admin picks a role for open challenges: they ping it (nobody else), a direct
    challenge does not, and the admin can stop it."""
    players = await table.standin.add_role(table.guild, "Tafl players", mentionable=True)
    saved = await table.reply_text(table.admin, "settings", {"open_challenge_role": players})
    assert saved.ephemeral
    assert f"Open challenges ping: <@&{players.id}>" in saved.content.split("\n")

    message = await open_challenge(table)
    assert message.content.startswith(f"<@&{players.id}> {table.alice.mention} is looking for")
    assert message.pinged_role_ids() == {players.id}
    assert message.pinged_user_ids() == set()
    direct = await table.reply_text(table.carol, "challenge", {"opponent": table.bob})
    assert direct.pinged_role_ids() == set()
    assert direct.pinged_user_ids() == {table.bob.id}

    stopped = await table.reply_text(table.admin, "settings", {"no_open_challenge_role": True})
    assert "Open challenges ping: nobody" in stopped.content.split("\n")
    again = await table.reply_text(table.bob, "challenge", {})
    assert not again.ephemeral
    assert again.content.startswith(f"{table.bob.mention} is looking for")
    assert again.pinged_role_ids() == set()


async def test_a_role_open_challenges_could_not_ping_is_refused(table: Harness) -> None:
    """@everyone, or a role that is not mentionable while I may not ping every role, is refused
    with the reason, and the setting stays as it was."""
    quiet = await table.standin.add_role(table.guild, "quiet", mentionable=False)
    refused = await table.reply_text(table.admin, "settings", {"open_challenge_role": quiet})
    assert refused.ephemeral
    assert refused.content == (
        f"I cannot ping <@&{quiet.id}>: make it mentionable (Server Settings → Roles) or give me "
        "the Mention @everyone, @here, and All Roles permission."
    )
    everyone = await table.reply_text(
        table.admin, "settings", {"open_challenge_role": table.guild.everyone}
    )
    assert everyone.content == (
        "Choose a role, not @everyone: the role is there so that only those who want a game "
        "are pinged."
    )
    shown = await table.reply_text(table.admin, "settings", {})
    assert "Open challenges ping: nobody" in shown.content.split("\n")
    message = await open_challenge(table)
    assert message.pinged_role_ids() == set()


async def test_games_lists_the_challenges_waiting_for_an_opponent(table: Harness) -> None:
    """/games shows each open challenge with a link to accept it, until someone has; with a
    player given, only theirs."""
    message = await open_challenge(table, time=60)
    number = challenge_id(message)
    listing = await table.reply_text(table.bob, "games")
    [field] = listing.embeds[0]["fields"]
    assert field["name"] == "Waiting for an opponent"
    link = f"https://discord.com/channels/{table.guild.id}/{table.channel.id}/{message.id}"
    assert field["value"].startswith(
        "**alice** · Brandubh (World Tafl Federation) · a single set · 1 h per move · expires <t:"
    )
    assert field["value"].endswith(f":R> · [accept it there]({link})")
    assert listing.pinged_user_ids() == set()
    theirs = await table.reply_text(table.bob, "games", {"player": table.carol})
    assert "fields" not in theirs.embeds[0] or theirs.embeds[0]["fields"] == []

    await table.standin.click(message, f"challenge:accept:{number}", table.carol)
    listing = await table.reply_text(table.bob, "games")
    assert listing.embeds[0].get("fields", []) == []
    assert listing.embeds[0]["description"].startswith("**alice** (attackers) vs **carol**")


async def test_games_counts_the_open_challenges_it_does_not_list(table: Harness) -> None:
    """Seven members ask for a game: /games lists the oldest that fit and says how many more
    wait (it listed four, the fifth too long for the field, and said nothing of three)."""
    for n in range(7):
        member = table.standin.add_member(table.guild, f"seeker{n}")
        posted = await table.reply_text(member, "challenge", {"sets": 1})
        assert not posted.ephemeral, posted.content
    listing = await table.reply_text(table.carol, "games")
    [field] = listing.embeds[0]["fields"]
    *listed, more = field["value"].splitlines()
    assert [line.split(" · ")[0] for line in listed] == [
        f"**seeker{n}**" for n in range(len(listed))
    ]
    assert more == f"…and {7 - len(listed)} more in this server's channels."


async def test_all_waiting_challenges_shows_every_one_a_page_at_a_time(table: Harness) -> None:
    """Twelve members ask for a game: /games lists the five oldest, and its **All waiting
    challenges** shows carol alone challenges 1–10 of 12, then Next the last two, Previous
    the first ten again (before, the sixth on could be seen nowhere)."""
    for n in range(12):
        member = table.standin.add_member(table.guild, f"seeker{n:02d}")
        posted = await table.reply_text(member, "challenge", {"sets": 1})
        assert not posted.ephemeral, posted.content
    listing = await table.reply_text(table.carol, "games")
    [show_all] = listing.custom_ids()
    assert show_all == f"waiting:{table.guild.id}:0:all"
    private = await (await table.standin.click(listing, show_all, table.carol)).wait_original()
    assert private.ephemeral

    def seekers() -> list[str]:
        lines = private.embeds[0]["description"].splitlines()
        return [line.split(" · ")[0] for line in lines]

    assert private.embeds[0]["title"] == "Waiting for an opponent — Tafl Club"
    assert private.embeds[0]["footer"]["text"] == "Challenges 1–10 of 12"
    assert seekers() == [f"**seeker{n:02d}**" for n in range(10)]
    earlier, later = private.custom_ids()
    await table.standin.click(private, later, table.carol)
    assert private.embeds[0]["footer"]["text"] == "Challenges 11–12 of 12"
    assert seekers() == ["**seeker10**", "**seeker11**"]
    earlier, later = private.custom_ids()
    await table.standin.click(private, earlier, table.carol)
    assert private.embeds[0]["footer"]["text"] == "Challenges 1–10 of 12"


async def test_a_games_lists_button_naming_another_server_is_refused(table: Harness) -> None:
    """/games's buttons, their ids naming another server, are refused in one sentence pointing
    to /games here, whether **All waiting challenges** or a page of the games."""
    for n in range(6):
        member = table.standin.add_member(table.guild, f"seeker{n:02d}")
        await table.reply_text(member, "challenge", {"sets": 1})
    listing = await table.reply_text(table.carol, "games")
    other = table.guild.id + 1
    for forged in (f"waiting:{other}:0:all", f"games:{other}:0:10:next"):
        record = await table.standin.forged_click(listing, forged, table.carol)
        refused = await record.wait_original()
        assert refused.ephemeral
        assert refused.content.startswith("That list belongs to another server: use </games:")


async def test_games_counts_the_open_challenges_too_long_to_list(table: Harness) -> None:
    """Five members with the longest names Markdown doubles ask for a game: those whose lines
    pass the field's 1024 characters are counted below the others (they were left out)."""
    for n in range(5):
        member = table.standin.add_member(table.guild, f"s{n}" + "*_" * 15)
        posted = await table.reply_text(member, "challenge", {"sets": 1})
        assert not posted.ephemeral, posted.content
    listing = await table.reply_text(table.carol, "games")
    [field] = listing.embeds[0]["fields"]
    assert len(field["value"]) <= 1024
    *listed, more = field["value"].splitlines()
    assert more == f"…and {5 - len(listed)} more in this server's channels."


async def test_a_late_second_accept_does_not_push_the_game_out_of_the_first_ones_thread(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob presses Accept first and Discord makes his thread, but its answer reaches the bot
    late; Carol's press meets Discord's "a thread has already been created for this message":
    she is told the challenge is no longer open, and bob's game is played in his thread."""
    original = ChallengeFlow._open_thread
    bob = table.bob.id

    async def slow_for_bob(
        flow: ChallengeFlow, message: discord.Message, challenge: Challenge, lang: Language
    ) -> tuple[discord.Thread | None, str | None]:
        made = await original(flow, message, challenge, lang)
        if challenge.opponent_id == bob:
            await asyncio.sleep(0.5)  # Discord's answer to bob's thread creation is slow
        return made

    monkeypatch.setattr(ChallengeFlow, "_open_thread", slow_for_bob)
    message = await open_challenge(table)
    number = challenge_id(message)
    first = await table.standin.click(message, f"challenge:accept:{number}", table.bob, wait=False)
    await table.standin.wait_until(lambda: message.thread is not None, timeout=5)
    second = await table.standin.click(
        message, f"challenge:accept:{number}", table.carol, wait=False
    )
    for press in (first, second):
        await table.standin.wait_answered(press, timeout=10)
    late = await second.wait_original()
    assert late.ephemeral
    assert late.content == "That challenge is no longer open."
    thread = message.thread
    assert thread is not None
    assert thread.name == "alice vs bob · Brandubh (World Tafl Federation)"
    board = await table.wait_board(channel=thread)
    assert not thread.archived
    assert board.channel is thread
    assert [m for m in table.public_messages() if m.attachments] == []


async def test_a_role_i_may_not_ping_in_a_channel_is_not_named_there(
    discord_standin: DiscordStandin, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The role is not mentionable but I may mention every role in the server, and so may the
    admin who chooses it, so /settings takes it; a channel that denies me that permission gets
    open challenges that name no role (a mention nobody hears would mislead), and the log says
    why."""
    async with running_bot(
        discord_standin,
        tmp_path / "bot.sqlite3",
        threads=True,
        bot_permissions=DEFAULT_BOT_PERMISSIONS | MENTION_EVERYONE,
    ) as table:
        standin = table.standin
        await standin.set_overwrite(table.channel, table.me, deny=MENTION_EVERYONE)
        quiet = await standin.add_role(table.guild, "Tafl players", mentionable=False)
        side = table.guild.channel("side")
        admin = standin.add_member(table.guild, "moe", permissions=MANAGE_GUILD | MENTION_EVERYONE)
        saved = await table.reply_text(
            admin, "settings", {"open_challenge_role": quiet}, channel=table.channel
        )
        assert saved.content.startswith("Settings saved."), saved.content
        here = await open_challenge(table)
        assert here.content.startswith(f"{table.alice.mention} is looking for")
        assert here.pinged_role_ids() == set()
        assert "Cannot ping the open challenge role" in caplog.text
        there = await table.reply_text(table.bob, "challenge", {"sets": 1}, channel=side)
        assert there.content.startswith(f"<@&{quiet.id}> {table.bob.mention} is looking for")
        assert there.pinged_role_ids() == {quiet.id}


async def test_a_role_the_admin_may_not_ping_is_not_pinged_for_them(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """An admin who may not ping a role that is not mentionable cannot make me ping it for
    every open challenge, though I may: one sentence says why, and nothing is saved."""
    async with running_bot(
        discord_standin,
        tmp_path / "bot.sqlite3",
        bot_permissions=DEFAULT_BOT_PERMISSIONS | MENTION_EVERYONE,
    ) as table:
        quiet = await table.standin.add_role(table.guild, "Tafl players", mentionable=False)
        refused = await table.reply_text(table.admin, "settings", {"open_challenge_role": quiet})
        assert refused.ephemeral
        assert refused.content == (
            f"You cannot ping <@&{quiet.id}> yourself, so I will not ping it for you: make it "
            "mentionable (Server Settings → Roles) or ask an admin with the Mention @everyone, "
            "@here, and All Roles permission to choose it."
        )
        assert refused.pinged_role_ids() == set()
        shown = await table.reply_text(table.admin, "settings")
        assert f"<@&{quiet.id}>" not in shown.content
        posted = await open_challenge(table)
        assert posted.pinged_role_ids() == set()
        table.admin.user.locale = "de"
        again = await table.reply_text(table.admin, "settings", {"open_challenge_role": quiet})
        assert again.content.startswith(f"Du kannst <@&{quiet.id}> selbst nicht")


async def test_games_finds_a_members_open_challenge_behind_five_older_ones(
    table: Harness,
) -> None:
    """/games player:alice lists alice's open challenge even when five older ones by others
    fill the list without the filter."""
    for name in ("dan", "eve", "fay", "gus", "hal"):
        member = table.standin.add_member(table.guild, name)
        await table.standin.announce_member(member)
        await table.reply_text(member, "challenge", {"sets": 1})
    mine = await open_challenge(table)
    listing = await table.reply_text(table.bob, "games", {"player": table.alice})
    [field] = listing.embeds[0]["fields"]
    assert field["value"].startswith("**alice** · ")
    assert str(mine.id) in field["value"]


async def test_giving_and_stopping_the_role_at_once_is_refused(table: Harness) -> None:
    """open_challenge_role and no_open_challenge_role together contradict each other: one
    sentence, and the setting stays as it was."""
    players = await table.standin.add_role(table.guild, "Tafl players", mentionable=True)
    await table.reply_text(table.admin, "settings", {"open_challenge_role": players})
    both = await table.reply_text(
        table.admin, "settings", {"open_challenge_role": players, "no_open_challenge_role": True}
    )
    assert both.ephemeral
    assert both.content == (
        "Give a role with `open_challenge_role` or stop it with `no_open_challenge_role`, not "
        "both at once."
    )
    shown = await table.reply_text(table.admin, "settings", {})
    assert f"Open challenges ping: <@&{players.id}>" in shown.content.split("\n")


async def test_a_deferred_open_challenge_pings_only_whom_its_answer_allows(
    table: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Slow storage makes /challenge defer (privately: it could still be refused) and then
    post the challenge apart: that post notifies as the bot allowed (the role, not the
    challenger named in it), and the edits that follow (the expiry) notify nobody."""
    monkeypatch.setattr(common, "ANSWER_BEFORE", 0.0)  # every answer is deferred first
    players = await table.standin.add_role(table.guild, "Tafl players", mentionable=True)
    await table.reply_text(table.admin, "settings", {"open_challenge_role": players})
    asked = await table.slash(table.alice, "challenge", {"sets": 1})
    assert asked.response_type == DEFERRED
    assert asked.ephemeral
    message = await table.standin.wait_for_message(
        table.channel, lambda m: not m.ephemeral and "looking for an opponent" in m.content
    )
    assert message.pinged_user_ids() == set()
    assert message.pinged_role_ids() == {players.id}
    table.advance(timedelta(minutes=10))
    await table.standin.wait_until(lambda: message.components == [], timeout=5)
    assert message.pinged_user_ids() == set()


async def test_a_role_discord_manages_is_refused(table: Harness) -> None:
    """My own role (or any bot's, an integration's, the boosters') is not one members take to
    hear of games: refused, naming it."""
    [mine] = table.standin.world.bot_member(table.guild).roles
    refused = await table.reply_text(table.admin, "settings", {"open_challenge_role": mine})
    assert refused.ephemeral
    assert refused.content == (
        f"Choose a role members can be given, not <@&{mine.id}>: Discord manages it for a bot, "
        "an integration or the server's boosters."
    )


@dataclass(frozen=True)
class Posted:
    """A challenge message as it was posted (before a withdrawal edits it)."""

    content: str
    roles: set[int]


async def test_a_members_open_challenges_ping_the_role_once_in_15_minutes_across_a_restart(
    discord_standin: DiscordStandin, tmp_path: Path
) -> None:
    """Alice posts an open challenge (the role is pinged), withdraws it and posts again: the
    second goes out without the role, and she is told privately until when; the pause holds
    across a restart; after 15 minutes the role is pinged again; bob's first pings it (four
    role pings in a few seconds were possible)."""
    table = Harness(discord_standin, tmp_path / "bot.sqlite3", threads=True)
    await table.start()
    try:
        players = await table.standin.add_role(table.guild, "Tafl players", mentionable=True)
        await table.reply_text(table.admin, "settings", {"open_challenge_role": players})

        async def post_and_withdraw(who: FakeMember) -> tuple[Posted, InteractionRecord]:
            """Post an open challenge as ``who`` and withdraw it: what it said and pinged."""
            record = await table.slash(who, "challenge", {"sets": 1})
            posted = await record.wait_original()
            assert not posted.ephemeral, posted.content
            seen = Posted(posted.content, posted.pinged_role_ids())
            await table.standin.click(posted, f"challenge:withdraw:{challenge_id(posted)}", who)
            return seen, record

        first, record = await post_and_withdraw(table.alice)
        assert first.roles == {players.id}
        assert record.followups == []
        pinged_at = table.now
        table.advance(timedelta(minutes=5))
        second, record = await post_and_withdraw(table.alice)
        assert second.roles == set()
        assert second.content.startswith(f"{table.alice.mention} is looking for")
        note = await record.wait_followup()
        again_at = int((pinged_at + timedelta(minutes=15)).timestamp())
        assert note.ephemeral
        assert note.content == (
            f"Your challenge is posted without pinging <@&{players.id}>: your open challenges "
            f"ping it at most once every 15 minutes (next <t:{again_at}:R>)."
        )
        assert note.pinged_role_ids() == set()
        bobs, _record = await post_and_withdraw(table.bob)
        assert bobs.roles == {players.id}

        await table.stop()
        await table.start()
        table.advance(timedelta(minutes=5))
        third, record = await post_and_withdraw(table.alice)
        assert third.roles == set()
        table.alice.user.locale = "de"
        table.advance(timedelta(minutes=1))
        _fourth, record = await post_and_withdraw(table.alice)
        assert (await record.wait_followup()).content.startswith(
            f"Deine Herausforderung ist ohne Ping an <@&{players.id}> gepostet"
        )
        table.advance(timedelta(minutes=5))
        fifth, _record = await post_and_withdraw(table.alice)
        assert fifth.roles == {players.id}
    finally:
        await table.stop()
