"""The world changing while the bot runs: servers, channels, roles, members and threads that
moderators, members and Discord itself add, edit and remove, each told to the bot as Discord
tells it (or, where Discord does not, not)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import discord

from . import payloads
from .gateway import Gateway
from .model import (
    ATTACH_FILES,
    EMBED_LINKS,
    EVERYONE_PERMISSIONS,
    MANAGE_THREADS,
    MEMBER_OVERWRITE,
    ROLE_OVERWRITE,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeOverwrite,
    FakeRole,
    FakeUser,
    World,
)
from .recorder import Recorder, StoredMessage

JSON = dict[str, Any]
Permissions = int | discord.Permissions

DEFAULT_BOT_PERMISSIONS = EVERYONE_PERMISSIONS | EMBED_LINKS | ATTACH_FILES


def _bits(permissions: Permissions) -> int:
    return permissions.value if isinstance(permissions, discord.Permissions) else permissions


class WorldChanges:
    """Adds and changes guilds, channels, roles, members and threads, and tells the bot."""

    world: World
    recorder: Recorder
    gateway: Gateway

    @property
    def bot_user(self) -> FakeUser:
        """The bot's user (its id is also the application id)."""
        return self.world.bot_user

    def add_guild(
        self,
        name: str = "Tafl Club",
        channels: Sequence[str] = ("general",),
        *,
        bot_permissions: Permissions = DEFAULT_BOT_PERMISSIONS,
    ) -> FakeGuild:
        """Create a guild the bot is in; it is sent as GUILD_CREATE when the bot identifies."""
        return self.world.add_guild(name, list(channels), _bits(bot_permissions))

    def add_channel(self, guild: FakeGuild, name: str) -> FakeChannel:
        """Create another text channel."""
        return self.world.add_channel(guild, name)

    def add_user(self, name: str) -> FakeUser:
        """Create a user who is in no guild (useful for DMs)."""
        return self.world.add_user(name)

    def add_member(
        self,
        guild: FakeGuild,
        name: str | FakeUser,
        *,
        permissions: Permissions | None = None,
        nick: str | None = None,
    ) -> FakeMember:
        """Add a player to a guild; ``permissions`` adds a role holding them (ADMINISTRATOR ok)."""
        user = self.world.add_user(name) if isinstance(name, str) else name
        extra = None if permissions is None else _bits(permissions)
        return self.world.add_member(guild, user, extra, nick)

    def dm_channel(self, user: FakeUser | FakeMember) -> FakeChannel:
        """The bot's DM channel with a user."""
        return self.world.dm_channel(user.user if isinstance(user, FakeMember) else user)

    async def bot_joins(self, guild: FakeGuild) -> None:
        """The bot is invited to ``guild``, added (:meth:`add_guild`) after it connected: it is
        sent GUILD_CREATE without ``unavailable``, as for any server it joins (discord.py:
        ``on_guild_join``)."""
        await self.gateway.dispatch(
            "GUILD_CREATE", payloads.guild_create(guild, me=self.world.bot_user, joined=True)
        )

    async def guild_unavailable(self, guild: FakeGuild) -> None:
        """An outage of ``guild`` begins: the bot is sent GUILD_DELETE with ``unavailable:
        true`` (discord.py: ``on_guild_unavailable``), and until :meth:`guild_available` an
        IDENTIFY is answered with that too instead of the server's GUILD_CREATE."""
        guild.unavailable = True
        with contextlib.suppress(RuntimeError):  # no session: IDENTIFY will say it
            await self.gateway.dispatch("GUILD_DELETE", payloads.guild_unavailable(guild))

    async def guild_available(self, guild: FakeGuild) -> None:
        """The outage of ``guild`` ends: the bot is sent its GUILD_CREATE with ``unavailable:
        false``, as when "a Guild becomes available again" (discord.py:
        ``on_guild_available``)."""
        guild.unavailable = False
        with contextlib.suppress(RuntimeError):  # no session: IDENTIFY will send it
            await self.gateway.dispatch(
                "GUILD_CREATE", payloads.guild_create(guild, me=self.world.bot_user)
            )

    async def rename_guild(self, guild: FakeGuild, name: str) -> None:
        """An admin renames ``guild``; the bot is sent GUILD_UPDATE (the guild object, without
        GUILD_CREATE's members and channels), as Discord does."""
        guild.name = name
        with contextlib.suppress(RuntimeError):  # no session: GUILD_CREATE will carry it
            await self.gateway.dispatch("GUILD_UPDATE", payloads.guild_update(guild))

    async def add_role(self, guild: FakeGuild, name: str, *, mentionable: bool = True) -> FakeRole:
        """Create a role (for pings; it grants nothing); the bot is sent
        GUILD_ROLE_CREATE, as Discord does when an admin makes one."""
        role = self.world.add_role(guild, name, mentionable=mentionable)
        with contextlib.suppress(RuntimeError):  # no session: GUILD_CREATE will carry it
            await self.gateway.dispatch(
                "GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": payloads.role(guild, role)}
            )
        return role

    async def set_overwrite(
        self,
        channel: FakeChannel,
        target: FakeMember | FakeRole | FakeGuild,
        *,
        allow: Permissions = 0,
        deny: Permissions = 0,
        announce: bool = True,
    ) -> None:
        """Set a channel's permission overwrite for a member, a role or (a guild) @everyone.

        It replaces the target's earlier overwrite there; the bot is sent CHANNEL_UPDATE,
        as Discord does when a moderator edits a channel's permissions — unless ``announce``
        is false: then the bot misses it (its cache goes stale; an interaction's
        ``app_permissions`` still tell the truth).
        """
        if channel.guild is None or channel.is_thread:
            raise ValueError("overwrites belong to a guild text channel (threads follow theirs)")
        if isinstance(target, FakeMember):
            kind, target_id = MEMBER_OVERWRITE, target.id
        elif isinstance(target, FakeGuild):
            kind, target_id = ROLE_OVERWRITE, target.id  # @everyone's role id is the guild's
        else:
            kind, target_id = ROLE_OVERWRITE, target.id
        channel.overwrites = [
            o for o in channel.overwrites if (o.type, o.id) != (kind, target_id)
        ] + [FakeOverwrite(id=target_id, type=kind, allow=_bits(allow), deny=_bits(deny))]
        if not announce:
            return
        with contextlib.suppress(RuntimeError):  # no session: GUILD_CREATE will carry it
            await self.gateway.dispatch("CHANNEL_UPDATE", payloads.channel(channel))

    async def edit_role(
        self,
        role: FakeRole,
        *,
        permissions: Permissions | None = None,
        mentionable: bool | None = None,
    ) -> None:
        """An admin edits a role's server-wide permissions (the bot's own managed role too) or
        whether anyone may mention it; the bot is sent GUILD_ROLE_UPDATE, as Discord
        does."""
        guild = next(g for g in self.world.guilds if role in g.roles or role is g.everyone)
        if permissions is not None:
            role.permissions = _bits(permissions)
        if mentionable is not None:
            role.mentionable = mentionable
        with contextlib.suppress(RuntimeError):  # no session: GUILD_CREATE will carry it
            await self.gateway.dispatch(
                "GUILD_ROLE_UPDATE", {"guild_id": str(guild.id), "role": payloads.role(guild, role)}
            )

    async def delete_role(self, role: FakeRole) -> None:
        """An admin deletes a role: it leaves the server and its members, and the bot
        is sent GUILD_ROLE_DELETE (the guild's and the role's ids), as Discord does."""
        guild = next(g for g in self.world.guilds if role in g.roles)
        guild.roles.remove(role)
        for member in guild.members:
            if role in member.roles:
                member.roles.remove(role)
        with contextlib.suppress(RuntimeError):  # no session: GUILD_CREATE will lack it
            await self.gateway.dispatch(
                "GUILD_ROLE_DELETE", {"guild_id": str(guild.id), "role_id": str(role.id)}
            )

    async def give_role(self, member: FakeMember, role: FakeRole) -> None:
        """An admin gives ``member`` a role. Discord sends GUILD_MEMBER_UPDATE with the members
        intent only, except for the bot's own member, so the bot hears of its own."""
        member.roles.append(role)
        if member.user is self.world.bot_user:
            data = {**payloads.member(member), "guild_id": str(member.guild.id)}
            with contextlib.suppress(RuntimeError):
                await self.gateway.dispatch("GUILD_MEMBER_UPDATE", data)

    async def time_out(self, member: FakeMember, until: datetime | None) -> None:
        """A moderator times ``member`` out until ``until`` (None: lifts it). Discord sends
        GUILD_MEMBER_UPDATE with the members intent only, so the bot is not told; its member
        object (GET guild member) shows ``communication_disabled_until``."""
        member.communication_disabled_until = until

    async def start_member_thread(
        self,
        parent: FakeChannel,
        name: str,
        owner: FakeMember,
        *,
        private: bool = False,
        starter: StoredMessage | None = None,
    ) -> FakeChannel:
        """A member starts a thread in ``parent``: without a starter message, public (type 11;
        type 10 in an announcement channel) or private (type 12), or public from the message
        ``starter`` (the thread has its id); the bot is sent THREAD_CREATE, as Discord does
        for a thread it can see (a private one: once it is added to it, :meth:`add_to_thread`,
        unless it has Manage Threads)."""
        thread = self.world.add_thread(
            parent,
            name,
            owner.user,
            private=private,
            thread_id=None if starter is None else starter.id,
        )
        if starter is not None:
            starter.thread = thread
        if not self._bot_sees(thread):
            return thread
        data = {**payloads.thread(thread, me=self.world.bot_user), "newly_created": True}
        with contextlib.suppress(RuntimeError):
            await self.gateway.dispatch("THREAD_CREATE", data)
        return thread

    def _bot_sees(self, channel: FakeChannel) -> bool:
        """Whether the bot can see ``channel`` (a private thread: as a member or moderator)."""
        assert channel.guild is not None
        held = self.world.bot_member(channel.guild).effective_permissions_in(channel)
        return bool(held & VIEW_CHANNEL)

    async def add_to_thread(
        self, thread: FakeChannel, who: FakeMember | FakeUser, *, by: FakeMember
    ) -> None:
        """``by``, a member of ``thread``, adds ``who`` (a member, or the bot) to it (Discord's
        Add Thread Member, or a mention there). Discord's Threads topic: "A Thread Members
        Update Gateway Event is always sent when the current user is added to or removed from
        a thread", and "whenever a user is added to a private thread, the gateway also sends a
        Thread Create dispatch": the bot, added, is sent both (THREAD_CREATE with its thread
        member object); another member's joining it is told only with the members intent,
        which the bot does not ask for."""
        if not thread.is_thread or by.id not in thread.members:
            raise ValueError(f"{by.name} is not in #{thread.name}: they cannot add anyone")
        user = who.user if isinstance(who, FakeMember) else who
        if not self.world.join_thread(thread, user) or user is not self.world.bot_user:
            return
        with contextlib.suppress(RuntimeError):
            await self.gateway.dispatch("THREAD_CREATE", payloads.thread(thread, me=user))
            await self.gateway.dispatch(
                "THREAD_MEMBERS_UPDATE", payloads.thread_members_update(thread, added=user)
            )

    async def remove_from_thread(self, thread: FakeChannel, who: FakeMember | FakeUser) -> None:
        """A moderator removes ``who`` (a member, or the bot) from ``thread`` (Discord's Remove
        Thread Member): in a private thread they no longer see it. The bot, removed, is sent
        THREAD_MEMBERS_UPDATE naming it in ``removed_member_ids`` ("always sent when the
        current user is added to or removed from a thread")."""
        user = who.user if isinstance(who, FakeMember) else who
        if thread.members.pop(user.id, None) is None or user is not self.world.bot_user:
            return
        with contextlib.suppress(RuntimeError):
            await self.gateway.dispatch(
                "THREAD_MEMBERS_UPDATE", payloads.thread_members_update(thread, removed=user)
            )

    async def edit_thread(
        self,
        thread: FakeChannel,
        *,
        archived: bool | None = None,
        locked: bool | None = None,
        announce: bool = True,
    ) -> None:
        """A moderator archives, unarchives, locks or unlocks a thread; the bot is sent
        THREAD_UPDATE, as Discord does — unless ``announce`` is false: then the bot misses it
        (its cache goes stale; Discord's answers, and a refused post, still tell the truth),
        as during the server's outage (:meth:`guild_unavailable`)."""
        if not thread.is_thread:
            raise ValueError("only a thread is archived or locked")
        if archived is not None:
            thread.archived = archived
            thread.archived_at = self.world.clock()
        if locked is not None:
            thread.locked = locked
        if not announce:
            return
        with contextlib.suppress(RuntimeError):
            await self.gateway.dispatch("THREAD_UPDATE", payloads.thread(thread))

    async def member_writes(
        self, channel: FakeChannel, member: FakeMember, text: str | None = None
    ) -> None:
        """``member`` writes a message in ``channel`` (the bot does not ask for the
        GUILD_MESSAGES intent, so it is not told; with ``text`` it is kept, and shows in the
        channel's history, as a busy channel's talk does). They need Send Messages (in a
        thread: Send Messages in Threads, "SEND_MESSAGES has no effect in threads"), else the
        message is refused (ValueError). Discord's Threads topic: "Sending a message will
        automatically unarchive the thread, unless the thread has been locked by a moderator",
        and without Manage Threads nobody may "create ... messages in locked threads": in an
        archived thread the bot is sent THREAD_UPDATE; in a locked one (without Manage
        Threads) the message is refused (ValueError). Writing in a thread joins it ("You can
        join a thread by sending a message in it", Discord's Help Center)."""
        held = member.effective_permissions_in(channel)
        if not held & VIEW_CHANNEL:
            raise ValueError(f"{member.name} cannot see #{channel.name}")
        needed = SEND_MESSAGES_IN_THREADS if channel.is_thread else SEND_MESSAGES
        if not held & needed:
            raise ValueError(f"{member.name} may not write in #{channel.name}")
        if text is not None:
            message = StoredMessage(self.world.snowflakes.next(), channel, member.user, text)
            self.recorder.add_message(message)
        if not channel.is_thread:
            return
        if channel.locked and not held & MANAGE_THREADS:
            raise ValueError(f"#{channel.name} is locked: {member.name} may not write there")
        if channel.archived:
            await self.edit_thread(channel, archived=False)
        self.world.join_thread(channel, member.user)

    async def remove_member(self, member: FakeMember) -> None:
        """The member leaves the guild (or is kicked); the bot is sent
        GUILD_MEMBER_REMOVE (Discord sends it only with the members intent; discord.py ignores
        it otherwise)."""
        member.guild.members.remove(member)
        data = {"guild_id": str(member.guild.id), "user": payloads.user(member.user)}
        with contextlib.suppress(RuntimeError):
            await self.gateway.dispatch("GUILD_MEMBER_REMOVE", data)

    async def delete_channel(self, channel: FakeChannel) -> None:
        """A moderator deletes a text channel or a thread, as Discord documents it.

        The bot is sent THREAD_DELETE (the thread's id, guild_id, parent_id and type)
        for a thread, CHANNEL_DELETE (the channel object) for a channel. A channel's threads are
        deleted with it, and Discord sends no THREAD_DELETE for them. Every later REST call to
        any of them is answered 404 Unknown Channel (10003). During the server's outage
        (:meth:`guild_unavailable`) no event of it is sent: its GUILD_CREATE, when it is back,
        lacks the place.
        """
        guild = channel.guild
        if guild is None:
            raise ValueError("only a guild's channels and threads can be deleted")
        if channel.is_thread:
            assert channel.parent is not None
            event = "THREAD_DELETE"
            data: JSON = {
                "id": str(channel.id),
                "guild_id": str(guild.id),
                "parent_id": str(channel.parent.id),
                "type": channel.type,
            }
        else:
            event, data = "CHANNEL_DELETE", payloads.channel(channel)
        self.world.delete_channel(channel)
        with contextlib.suppress(RuntimeError):  # no session: the next GUILD_CREATE lacks it
            await self.gateway.dispatch(event, data)

    def delete_message(self, message: StoredMessage) -> None:
        """A moderator (Manage Messages) deletes one of the bot's messages: a board, a
        challenge, a match's result. Every later REST call to it is answered 404 Unknown
        Message (10008), and nobody can press its buttons. A thread started from it stays
        ("Original message was deleted"). Discord sends MESSAGE_DELETE only to a bot with the
        GUILD_MESSAGES intent ("Gateway Intents" in Discord's documentation), which the bot
        does not ask for, so the bot is not told."""
        if message.ephemeral:
            raise ValueError("only its reader can dismiss an ephemeral message")
        message.deleted = True
        self.recorder.notify()

    async def remove_bot_from_guild(self, guild: FakeGuild) -> None:
        """The bot is kicked from ``guild``: the bot is sent GUILD_DELETE without
        ``unavailable`` ("the user was removed from the guild"; with it, it would mean an
        outage). The guild is no longer sent when the bot identifies, and REST calls to its
        channels are answered 403 Missing Access (50001)."""
        self.world.remove_bot(guild)
        with contextlib.suppress(RuntimeError):  # no session: READY no longer lists it
            await self.gateway.dispatch("GUILD_DELETE", {"id": str(guild.id)})

    async def invite_bot_back(self, guild: FakeGuild) -> None:
        """An admin invites the bot back to ``guild`` it was removed from: it is a member again
        with its managed role, and the bot is sent GUILD_CREATE as for any server it
        joins: without ``unavailable``, which Discord sets only on a server coming back from
        an outage (or lazily loaded), so discord.py reports a join, not a server available."""
        role = next(r for r in guild.roles if r.managed and r.name == self.world.bot_user.name)
        guild.members.append(FakeMember(user=self.world.bot_user, guild=guild, roles=[role]))
        guild.unavailable = False
        self.world.guilds.append(guild)
        with contextlib.suppress(RuntimeError):  # no session: READY will list it
            await self.gateway.dispatch(
                "GUILD_CREATE", payloads.guild_create(guild, me=self.world.bot_user, joined=True)
            )

    async def announce_member(self, member: FakeMember) -> None:
        """Send GUILD_MEMBER_ADD for a member added after the bot connected."""
        data = {**payloads.member(member), "guild_id": str(member.guild.id)}
        await self.gateway.dispatch("GUILD_MEMBER_ADD", data)

    async def dispatch(self, event: str, data: JSON) -> None:
        """Send any raw gateway event to the bot."""
        await self.gateway.dispatch(event, data)

    async def request_reconnect(self) -> None:
        """Send op 7 RECONNECT; the bot reconnects and RESUMEs."""
        await self.gateway.request_reconnect()
