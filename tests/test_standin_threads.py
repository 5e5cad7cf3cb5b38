"""The stand-in's threads as Discord's Threads topic describes them: an archived thread takes
no edits and no commands until someone writes there or presses a button (their client opens it
first); a locked one takes nothing from a bot without Manage Threads."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import discord
import pytest

from tests.discord_standin import DiscordStandin
from tests.discord_standin.model import (
    GUILD_ANNOUNCEMENT,
    MANAGE_THREADS,
    SEND_MESSAGES_IN_THREADS,
)
from tests.test_standin import Table, running

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
async def table(discord_standin: DiscordStandin) -> AsyncIterator[Table]:
    """A small connected bot (the stand-in's own test bot)."""
    async with running(discord_standin) as table:
        yield table


async def _shown(table: Table, channel_id: int) -> dict[str, Any]:
    """GET /channels/{id}, as Discord's JSON."""
    return dict(await table.bot.http.get_channel(channel_id))


def _content(text: str) -> discord.http.MultipartParameters:
    return discord.http.handle_message_parameters(content=text)


def _edit(channel_id: int, message_id: object) -> discord.http.Route:
    return discord.http.Route(
        "PATCH",
        "/channels/{channel_id}/messages/{message_id}",
        channel_id=channel_id,
        message_id=message_id,
    )


async def test_no_command_comes_from_an_archived_thread_until_someone_writes_there(
    table: Table,
) -> None:
    """ "Users cannot ... use application commands ... in archived threads": the stand-in sends
    none; a member's message there unarchives it and the bot is told."""
    thread = await table.standin.start_member_thread(table.channel, "chat", table.alice)
    await table.standin.edit_thread(thread, archived=True)
    with pytest.raises(ValueError, match="archived"):
        await table.standin.slash(
            table.guild, thread, table.alice, "challenge", {"opponent": table.bob}
        )
    await table.standin.member_writes(thread, table.alice)
    assert not thread.archived
    reply = await table.standin.slash(
        table.guild, thread, table.alice, "challenge", {"opponent": table.bob}
    )
    assert reply.message is not None


async def test_a_press_in_an_archived_thread_opens_it_first(table: Table) -> None:
    """The player's client unarchives the thread before it sends a press there, and the bot's
    edit of the message answers it; in a thread also locked the press is never sent."""
    thread = await table.standin.start_member_thread(table.channel, "chat", table.alice)
    reply = await table.standin.slash(
        table.guild, thread, table.alice, "challenge", {"opponent": table.bob}
    )
    assert reply.message is not None
    await table.standin.edit_thread(thread, archived=True)
    click = await table.standin.click(reply.message, "resign", table.bob)
    assert click.response_type == 7
    assert not thread.archived
    assert reply.message.content == "bob resigned"
    other = await table.standin.slash(
        table.guild, thread, table.alice, "challenge", {"opponent": table.bob}
    )
    assert other.message is not None
    await table.standin.edit_thread(thread, archived=True, locked=True)
    with pytest.raises(ValueError, match="locked"):
        await table.standin.click(other.message, "resign", table.bob)


async def test_a_locked_thread_takes_no_post_or_edit_from_a_bot_without_manage_threads(
    table: Table,
) -> None:
    """ "Users won't be able to create or update messages in locked threads" without Manage
    Threads: 403 160005 "Thread is locked" for both, until the bot's role has it."""
    thread = await table.standin.start_member_thread(table.channel, "chat", table.alice)
    posted = await table.bot.http.send_message(thread.id, params=_content("hello"))
    await table.standin.edit_thread(thread, locked=True)
    with pytest.raises(discord.Forbidden) as refused:
        await table.bot.http.send_message(thread.id, params=_content("again"))
    assert refused.value.code == 160005
    with pytest.raises(discord.Forbidden) as refused:
        await table.bot.http.request(_edit(thread.id, posted["id"]), json={"content": "edited"})
    assert refused.value.code == 160005
    bot_member = table.standin.world.bot_member(table.guild)
    await table.standin.edit_role(
        bot_member.roles[0], permissions=bot_member.roles[0].permissions | MANAGE_THREADS
    )
    await table.bot.http.request(_edit(thread.id, posted["id"]), json={"content": "edited"})
    await table.bot.http.send_message(thread.id, params=_content("again"))


async def test_only_its_creator_or_a_moderator_opens_a_locked_archived_thread(
    table: Table,
) -> None:
    """ "If locked is true, then the user must have created the thread or have
    MANAGE_THREADS": the bot may unarchive its own locked thread, not a member's."""
    theirs = await table.standin.start_member_thread(table.channel, "chat", table.alice)
    data = await table.bot.http.start_thread_without_message(
        table.channel.id, name="game", auto_archive_duration=10080, type=11
    )
    [mine] = [t for t in table.standin.world.threads_of(table.channel) if t.id == int(data["id"])]
    for thread in (theirs, mine):
        await table.standin.edit_thread(thread, archived=True, locked=True)
    with pytest.raises(discord.Forbidden):
        await table.bot.http.edit_channel(theirs.id, archived=False)
    await table.bot.http.edit_channel(mine.id, archived=False)
    assert theirs.archived
    assert not mine.archived


async def test_a_thread_is_opened_again_by_its_members_and_archived_by_its_creator(
    table: Table,
) -> None:
    """ "Editing a thread to set archived to false only requires the current user has already
    been added to the thread", and changing ``archived`` otherwise needs Manage Threads or
    the thread's creator: the bot, not in alice's thread, may not unarchive it (403 50013);
    its message there may (it may send there) and joins it (THREAD_MEMBERS_UPDATE: discord.py's
    ``Thread.me``); then it may unarchive the thread, but still not archive it."""
    thread = await table.standin.start_member_thread(table.channel, "chat", table.alice)
    await table.standin.edit_thread(thread, archived=True)
    with pytest.raises(discord.Forbidden) as refused:
        await table.bot.http.edit_channel(thread.id, archived=False)
    assert refused.value.code == 50013
    assert thread.archived
    await table.bot.http.send_message(thread.id, params=_content("hello"))
    assert not thread.archived
    assert table.standin.bot_user.id in thread.members

    def joined() -> bool:
        cached = table.bot.get_channel(thread.id)
        return isinstance(cached, discord.Thread) and cached.me is not None

    await table.standin.wait_until(joined, timeout=5)
    await table.standin.edit_thread(thread, archived=True)
    await table.bot.http.edit_channel(thread.id, archived=False)
    assert not thread.archived
    with pytest.raises(discord.Forbidden):
        await table.bot.http.edit_channel(thread.id, archived=True)
    assert not thread.archived


async def test_a_member_writes_only_where_they_may_send_and_joins_the_thread(
    table: Table,
) -> None:
    """A member's message unarchives a thread only if they may send there (Send Messages in
    Threads); it makes them a member of the thread."""
    thread = await table.standin.start_member_thread(table.channel, "chat", table.alice)
    await table.standin.edit_thread(thread, archived=True)
    await table.standin.set_overwrite(table.channel, table.bob, deny=SEND_MESSAGES_IN_THREADS)
    with pytest.raises(ValueError, match="may not write"):
        await table.standin.member_writes(thread, table.bob)
    assert thread.archived
    assert table.bob.id not in thread.members
    await table.standin.set_overwrite(table.channel, table.bob)
    await table.standin.member_writes(thread, table.bob)
    assert not thread.archived
    assert table.bob.id in thread.members


async def test_a_thread_locked_and_archived_refuses_a_post_or_edit_with_403_50083(
    table: Table,
) -> None:
    """On the channel routes Discord answers a thread locked and archived with 403 50083
    "Thread is archived", a post and an edit alike; one only archived refuses an edit with
    400 50083 and takes a post (which opens it)."""
    thread = await table.standin.start_member_thread(table.channel, "chat", table.alice)
    posted = await table.bot.http.send_message(thread.id, params=_content("hello"))
    await table.standin.edit_thread(thread, archived=True, locked=True)
    with pytest.raises(discord.Forbidden) as refused:
        await table.bot.http.send_message(thread.id, params=_content("again"))
    assert refused.value.code == 50083
    with pytest.raises(discord.Forbidden) as refused:
        await table.bot.http.request(_edit(thread.id, posted["id"]), json={"content": "edited"})
    assert refused.value.code == 50083
    await table.standin.edit_thread(thread, locked=False)
    with pytest.raises(discord.HTTPException) as failed:
        await table.bot.http.request(_edit(thread.id, posted["id"]), json={"content": "edited"})
    assert (failed.value.status, failed.value.code) == (400, 50083)
    await table.bot.http.send_message(thread.id, params=_content("again"))
    assert not thread.archived


async def test_thread_members_update_counts_members_up_to_50(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``member_count`` "stops counting at 50" (Discord's Threads topic): the thread object
    and the THREAD_MEMBERS_UPDATE adding the bot to a thread of 60 members both say 50."""
    thread = await table.standin.start_member_thread(table.channel, "crowd", table.alice)
    joined = table.standin.world.clock()
    thread.members.update({10_000 + n: joined for n in range(59)})
    sent: list[tuple[str, dict[str, Any]]] = []
    dispatch = table.standin.gateway.dispatch

    async def recorded(event: str, data: dict[str, Any]) -> None:
        sent.append((event, data))
        await dispatch(event, data)

    monkeypatch.setattr(table.standin.gateway, "dispatch", recorded)
    await table.standin.add_to_thread(thread, table.standin.bot_user, by=table.alice)
    [update] = [data for event, data in sent if event == "THREAD_MEMBERS_UPDATE"]
    assert len(thread.members) == 61
    assert update["member_count"] == 50
    assert (await _shown(table, thread.id))["member_count"] == 50


async def test_an_answer_in_a_locked_thread_is_refused_unless_only_its_reader_sees_it(
    table: Table,
) -> None:
    """In a thread locked (not archived) a visible answer is refused with 403 50083, as
    reported in discord/discord-api-docs#6884 and #7707; an ephemeral one goes through."""
    thread = await table.standin.start_member_thread(table.channel, "chat", table.alice)
    reply = await table.standin.slash(
        table.guild, thread, table.alice, "challenge", {"opponent": table.bob}
    )
    assert reply.message is not None
    await table.standin.edit_thread(thread, locked=True)
    hint = await table.standin.click(reply.message, "hint", table.bob)
    assert hint.answered
    resign = await table.standin.click(reply.message, "resign", table.bob, wait=False)
    callback = f"/interactions/{resign.id}/{resign.token}/callback"

    def refused() -> bool:
        return any(c.path.endswith(callback) and c.status == 403 for c in table.standin.rest_log)

    await table.standin.wait_until(refused, timeout=5)
    assert not resign.answered
    assert reply.message.content != "bob resigned"


async def test_a_thread_the_bot_joined_carries_its_thread_member_object(table: Table) -> None:
    """ "Getting a channel will return the thread member object for the current user as a
    property on the channel, if the current user is a member of the thread": the bot's own
    thread has ``member`` (and discord.py's ``Thread.me``), a member's thread it never joined
    has none."""
    mine = await table.bot.http.start_thread_without_message(
        table.channel.id, name="game", auto_archive_duration=10080, type=11
    )
    theirs = await table.standin.start_member_thread(table.channel, "chat", table.alice)
    shown = await _shown(table, int(mine["id"]))
    assert table.bot.user is not None
    assert shown["member"]["user_id"] == str(table.bot.user.id)
    assert "member" not in await _shown(table, theirs.id)
    fetched = await table.bot.fetch_channel(int(mine["id"]))
    assert isinstance(fetched, discord.Thread)
    assert fetched.me is not None


async def test_a_private_thread_is_hidden_from_a_bot_nobody_added(table: Table) -> None:
    """ "You must be invited to the thread to be able to view or participate in it, or be a
    moderator": the bot is not told of alice's private thread and is refused a look or a
    post there (403 Missing Access) until she adds it; then it is sent THREAD_CREATE with its
    thread member object, and may post."""
    thread = await table.standin.start_member_thread(
        table.channel, "secret", table.alice, private=True
    )
    assert table.bot.get_channel(thread.id) is None
    for call in (
        table.bot.http.get_channel(thread.id),
        table.bot.http.send_message(thread.id, params=_content("hello")),
    ):
        with pytest.raises(discord.Forbidden) as refused:
            await call
        assert refused.value.code == 50001
    with pytest.raises(ValueError, match="cannot see"):
        await table.standin.slash(
            table.guild, thread, table.bob, "challenge", {"opponent": table.alice}
        )
    await table.standin.add_to_thread(thread, table.bob, by=table.alice)
    await table.standin.add_to_thread(thread, table.standin.bot_user, by=table.alice)
    await table.standin.wait_until(lambda: table.bot.get_channel(thread.id) is not None, timeout=5)
    cached = table.bot.get_channel(thread.id)
    assert isinstance(cached, discord.Thread)
    assert cached.me is not None
    await table.bot.http.send_message(thread.id, params=_content("hello"))
    await table.standin.remove_from_thread(thread, table.standin.bot_user)
    with pytest.raises(discord.Forbidden):
        await table.bot.http.get_channel(thread.id)


async def test_a_moderator_bot_sees_private_threads_it_is_not_in(table: Table) -> None:
    """With Manage Threads the bot sees (and is told of) a private thread without being added."""
    bot_member = table.standin.world.bot_member(table.guild)
    await table.standin.edit_role(
        bot_member.roles[0], permissions=bot_member.roles[0].permissions | MANAGE_THREADS
    )
    thread = await table.standin.start_member_thread(
        table.channel, "secret", table.alice, private=True
    )
    shown = await _shown(table, thread.id)
    assert shown["type"] == 12
    assert "member" not in shown


async def test_a_threads_create_timestamp_is_when_it_was_made(table: Table) -> None:
    """``create_timestamp`` is the thread's creation, not its last archiving; a thread made
    before 2022-01-09 has none ("only populated for threads created after 2022-01-09")."""
    made = table.standin.world.clock()
    thread = await table.standin.start_member_thread(table.channel, "chat", table.alice)
    later = made + timedelta(days=3)
    table.standin.world.clock = lambda: later
    await table.standin.edit_thread(thread, archived=True)
    metadata = (await _shown(table, thread.id))["thread_metadata"]
    assert datetime.fromisoformat(metadata["create_timestamp"]) < later
    assert datetime.fromisoformat(metadata["archive_timestamp"]) == later
    thread.created_at = None
    old = await table.bot.fetch_channel(thread.id)
    assert isinstance(old, discord.Thread)
    assert old.created_at is None


async def test_a_thread_of_an_announcement_channel_is_an_announcement_thread(
    table: Table,
) -> None:
    """ "The type of thread created matches the type of the parent channel": a thread started
    in an announcement channel is type 10 (discord.py's ``news_thread``), by the bot or a
    member."""
    table.channel.type = GUILD_ANNOUNCEMENT
    data = await table.bot.http.start_thread_without_message(
        table.channel.id, name="game", auto_archive_duration=10080, type=11
    )
    assert data["type"] == 10
    theirs = await table.standin.start_member_thread(table.channel, "chat", table.alice)
    fetched = await table.bot.fetch_channel(theirs.id)
    assert isinstance(fetched, discord.Thread)
    assert fetched.type is discord.ChannelType.news_thread
