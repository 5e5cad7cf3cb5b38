"""A server that just invited the bot: the kinds of channel its games may be kept to."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.bot_harness import Harness, challenge_id
from tests.discord_standin import DiscordStandin
from tests.discord_standin.model import (
    GUILD_FORUM,
    GUILD_MEDIA,
    GUILD_VOICE,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
)

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def server(discord_standin: DiscordStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    """A server with a text channel, a forum, a media channel and a voice channel; games in
    threads (the bot's default)."""
    harness = Harness(
        discord_standin,
        tmp_path / "bot.sqlite3",
        channels=("games", "forum", "media", "voice"),
        threads=True,
    )
    harness.guild.channel("forum").type = GUILD_FORUM
    harness.guild.channel("media").type = GUILD_MEDIA
    harness.guild.channel("voice").type = GUILD_VOICE
    await harness.start()
    try:
        yield harness
    finally:
        await harness.stop()


async def test_a_forum_can_be_allowed_for_games_in_its_posts(server: Harness) -> None:
    """With games kept to #games, a challenge in a forum's post is refused; an admin can then
    allow the forum (before, allow: offered no forum), and the challenge is posted there."""
    forum = server.guild.channel("forum")
    post = await server.standin.start_member_thread(forum, "Brandubh night", server.alice)
    await server.reply_text(server.admin, "settings", {"allow": server.guild.channel("games")})
    challenge = {"opponent": server.bob}
    refused = await server.reply_text(server.alice, "challenge", challenge, channel=post)
    assert refused.ephemeral
    assert "not allowed" in refused.content, refused.content
    saved = await server.reply_text(server.admin, "settings", {"allow": forum})
    assert saved.content.startswith("Settings saved."), saved.content
    assert "in the channel itself" not in saved.content, saved.content
    posted = await server.reply_text(server.alice, "challenge", challenge, channel=post)
    assert not posted.ephemeral, posted.content


async def test_a_media_channels_post_plays_its_game_in_the_post(server: Harness) -> None:
    """With games allowed everywhere, a challenge in a media channel's post (its posts are
    threads, as a forum's) is posted there and its game played in the post. allow: does not
    offer media channels (the README says why). Pins what works."""
    media = server.guild.channel("media")
    post = await server.standin.start_member_thread(media, "Brandubh night", server.alice)
    posted = await server.reply_text(
        server.alice, "challenge", {"opponent": server.bob}, channel=post
    )
    assert not posted.ephemeral, posted.content
    record = await server.standin.click(
        posted, f"challenge:accept:{challenge_id(posted)}", server.bob
    )
    await record.wait_original()
    board = await server.wait_board(channel=post)
    assert f"<@{server.bob.id}>" in board.content or f"<@{server.alice.id}>" in board.content


async def test_a_voice_channel_can_be_allowed_for_games_in_its_chat(server: Harness) -> None:
    """A voice channel's chat can be allowed too, without a line asking for thread
    permissions it could never use (its games are played in the chat)."""
    voice = server.guild.channel("voice")
    await server.reply_text(server.admin, "settings", {"allow": server.guild.channel("games")})
    saved = await server.reply_text(server.admin, "settings", {"allow": voice})
    assert saved.content.startswith("Settings saved."), saved.content
    assert "in the channel itself" not in saved.content, saved.content
    posted = await server.reply_text(
        server.alice, "challenge", {"opponent": server.bob}, channel=voice
    )
    assert not posted.ephemeral, posted.content


async def test_a_forum_whose_posts_i_cannot_write_in_stays_off_the_list(server: Harness) -> None:
    """Allowing a forum where I lack Send Messages in Threads (its posts are threads) is
    refused in one sentence naming it, and the list is unchanged."""
    forum = server.guild.channel("forum")
    await server.standin.set_overwrite(forum, server.me, deny=SEND_MESSAGES_IN_THREADS)
    refused = await server.reply_text(server.admin, "settings", {"allow": forum})
    assert refused.content == (
        f"I can't play in <#{forum.id}>, so it stays off the list: I need the Send Messages "
        "in Threads permission there."
    )
    shown = await server.reply_text(server.admin, "settings")
    assert "Games allowed in: every channel" in shown.content, shown.content


async def test_an_accept_in_a_voice_chat_needs_its_challenger_to_see_it(server: Harness) -> None:
    """carol's challenge in a voice channel's chat, accepted after a moderator hid the channel
    from her, is refused as in a text channel (before, the game began where she could not
    play it)."""
    voice = server.guild.channel("voice")
    challenge = await server.reply_text(
        server.carol, "challenge", {"opponent": server.bob}, channel=voice
    )
    assert not challenge.ephemeral, challenge.content
    await server.standin.set_overwrite(voice, server.carol, deny=VIEW_CHANNEL)
    record = await server.standin.click(
        challenge, f"challenge:accept:{challenge_id(challenge)}", server.bob
    )
    refused = await record.wait_original()
    assert refused.ephemeral
    assert refused.content == (
        f"<@{server.carol.id}> can no longer see this channel, so they could not play: this "
        "challenge cannot be accepted here."
    )
    assert not any(m.attachments for m in server.public_messages(voice))


async def test_no_game_starts_in_a_private_thread_i_am_not_in(server: Harness) -> None:
    """/challenge in a private thread nobody added me to is refused in one sentence saying
    why (before, the game began there, and its reminders and results on time were refused
    by Discord and lost); once alice adds me, the challenge is posted."""
    games = server.guild.channel("games")
    secret = await server.standin.start_member_thread(games, "secret", server.alice, private=True)
    await server.standin.add_to_thread(secret, server.carol, by=server.alice)
    challenge = {"opponent": server.carol}
    refused = await server.reply_text(server.alice, "challenge", challenge, channel=secret)
    assert refused.ephemeral
    assert refused.content == (
        "I am not a member of this private thread, so nothing I post on my own (reminders, "
        "results on time) would reach it: add me to the thread, or start the game in another "
        "channel."
    )
    against_me = await server.reply_text(
        server.alice, "challenge", {"opponent": server.me}, channel=secret
    )
    assert against_me.content == refused.content
    await server.standin.add_to_thread(secret, server.me, by=server.alice)
    posted = await server.reply_text(server.alice, "challenge", challenge, channel=secret)
    assert not posted.ephemeral, posted.content


async def test_no_game_starts_in_a_private_thread_i_was_removed_from(server: Harness) -> None:
    """A private thread alice added me to, and a moderator then removed me from, takes no
    game: the same sentence (before, discord.py still counted me in and the game began)."""
    games = server.guild.channel("games")
    secret = await server.standin.start_member_thread(games, "secret", server.alice, private=True)
    await server.standin.add_to_thread(secret, server.carol, by=server.alice)
    await server.standin.add_to_thread(secret, server.me, by=server.alice)
    await server.standin.wait_until(lambda: _thread_me(server, secret.id) is not None, timeout=5)
    await server.standin.remove_from_thread(secret, server.me)
    await server.standin.wait_until(lambda: _thread_me(server, secret.id) is None, timeout=5)
    refused = await server.reply_text(
        server.alice, "challenge", {"opponent": server.carol}, channel=secret
    )
    assert refused.ephemeral, refused.content
    assert refused.content.startswith("I am not a member of this private thread"), refused.content


def _thread_me(server: Harness, thread_id: int) -> object:
    """My thread member of ``thread_id`` as discord.py has it (None: not in it)."""
    assert server.bot is not None
    known = server.bot.get_channel(thread_id)
    return getattr(known, "me", None)


async def test_a_game_starts_in_a_private_thread_i_am_in_after_it_was_archived(
    server: Harness,
) -> None:
    """A private thread alice added me to, archived and opened again by her message (Discord's
    THREAD_UPDATE then carries no thread member: discord.py no longer knows I am in it), takes
    her challenge: Discord, asked, shows me a member (before, it was refused as a thread I am
    not in, untrue)."""
    games = server.guild.channel("games")
    ours = await server.standin.start_member_thread(games, "ours", server.alice, private=True)
    await server.standin.add_to_thread(ours, server.carol, by=server.alice)
    await server.standin.add_to_thread(ours, server.me, by=server.alice)
    await server.standin.edit_thread(ours, archived=True)
    await server.standin.member_writes(ours, server.alice)
    challenge = {"opponent": server.carol}
    posted = await server.reply_text(server.alice, "challenge", challenge, channel=ours)
    assert not posted.ephemeral, posted.content
