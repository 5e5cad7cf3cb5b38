"""What changes in a server that the game flow must hear of: permissions given back, and a
game's place gone (a channel or thread deleted, the bot removed from the server).

The bot runs with the guilds intent only, which brings these events. A thread deleted with its
channel comes as the channel's deletion (Discord sends no THREAD_DELETE for it; discord.py
reports the threads it knew of as deleted too). What a deletion does is in bot/flow/vanished.py.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord.ext import commands

from bot.client import BrandubhBot
from bot.flow.locked_threads import locked_threads
from bot.flow.until_stored import until_stored
from bot.flow.vanished import Gone
from bot.my_permissions import may_post
from bot.outage_places import OutagePlaces
from bot.thread_locks import closed_to_players, manages_threads

_log = logging.getLogger(__name__)


class ServerChanges(commands.Cog):
    """Gateway events of the ``guilds`` intent (and the bot's own member) that games care about,
    and the gateway's own comings and goings (the clocks stand still while it is down).

    A deleted channel or thread, or the bot's removal, aborts the games there. A board Discord
    refused (no permission, a locked thread) waits up to an hour before it is tried again; when
    an admin may just have given the permission back — a channel's overwrites, a role, the
    bot's roles or a thread changed, or the server's channels came anew (a change missed while
    the bot's session was lost) — it is tried at the next check. A game's thread a
    moderator locked where I lack Manage Threads holds its clocks (bot/flow/locked_threads.py),
    so the same changes may begin or end such holds.
    """

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot
        self._retrying: set[int] = set()
        """Servers whose refused boards are being made due again (:meth:`_maybe_allowed`)."""
        self._was_ready = False
        """Whether this process has been ready once: a server's channels coming anew after
        that (its session lost) may hide a permission given back; at start-up, refused posts
        keep their pause unless one is seen given back (each start would otherwise try every
        server's at once)."""
        self._shards_ready: set[int] = set()
        """Shards ready once in this process: a READY of theirs after that follows a lost
        session (:meth:`on_shard_ready`)."""
        self._listed: dict[int, set[int]] = {}
        """The servers each shard's READY listed, as they come since it connected."""
        self._outage_places = OutagePlaces()
        """What the cache held of each server in an outage when it began."""

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Ready (at start-up, and again after identifying anew): servers listed from now on
        come anew after a lost session."""
        self._was_ready = True

    def _maybe_allowed(self, guild_id: int | None, what: str) -> None:
        """Refused boards (and daily puzzle post) of ``guild_id`` are tried at the next check,
        in the background:
        Discord tells of the change once, so a busy database is waited out
        (:func:`until_stored`) rather than the event dropped. One server's changes in a burst
        (channels or roles reordered: an event each) share one write while it is waited for."""
        if guild_id is None or guild_id in self._retrying:
            return
        _log.debug("%s changed in server %s: refused boards are tried again", what, guild_id)
        self._retrying.add(guild_id)
        services = self.bot.services

        async def retry() -> None:  # again whole if the second write waits: both are idempotent
            await services.announcements.retry_refused(guild_id)
            await services.puzzles.retry_refused(guild_id)

        task = until_stored(self.bot, f"refused boards of server {guild_id} tried again", retry)
        task.add_done_callback(lambda _: self._retrying.discard(guild_id))

    async def _locks_weighed(
        self, guild: discord.Guild, channel: discord.abc.GuildChannel | None = None
    ) -> None:
        """My Manage Threads may have changed in ``guild`` — only in ``channel`` (and its
        channels, a category's) when the event was its own: what the interactions told of the
        others stands (``Holds.told``). Each active thread of it the cache
        holds is held, or no longer held, as it is now closed to its players or not (a locked
        thread where I just lost Manage Threads holds its game's clocks from now; one where I
        gained it is playable again, its time given back). Archived threads are not in the
        cache: locked and archived, they are held whatever my permissions. Whether the threads
        newly closed have games is one read for all of them (most locked threads have none,
        and every role, channel or own-member change weighs them all)."""
        holds = self.bot.timers.holds
        changed_here = guild.channels if channel is None else [channel, *_within(channel)]
        holds.forget_told(place.id for place in changed_here)  # the cache is as fresh there
        changed = [
            thread
            for thread in locked_threads(guild)
            if holds.closed(thread) is not holds.thread_held(thread.id)
        ]
        closing = [thread.id for thread in changed if not holds.thread_held(thread.id)]
        in_play = await holds.in_play(closing) if closing else {}
        for thread in changed:
            async with holds.in_turn(thread.id):  # as it is now, not before a change heard since
                closed = holds.closed(thread)
                if closed and not holds.thread_held(thread.id):
                    if in_play is None or thread.id in in_play:
                        await holds.thread_closed(thread.id, guild_id=guild.id)
                elif not closed and holds.thread_held(thread.id):
                    await holds.thread_opened(thread.id)

    @commands.Cog.listener()
    async def on_guild_channel_update(
        self, before: discord.abc.GuildChannel, after: discord.abc.GuildChannel
    ) -> None:
        """A channel's permission overwrites may have changed."""
        self._maybe_allowed(after.guild.id, "A channel")
        await self._locks_weighed(after.guild, after)

    @commands.Cog.listener()
    async def on_raw_thread_update(self, payload: discord.RawThreadUpdateEvent) -> None:
        """A thread may have been locked, unlocked, archived or unarchived: one closed to its
        players (locked and archived, or locked where I lack Manage Threads) holds its game's
        clock still until it is not (bot/holds.py)."""
        metadata = payload.data.get("thread_metadata") or {}
        closed = closed_to_players(
            locked=bool(metadata.get("locked")),
            archived=bool(metadata.get("archived")),
            i_manage_threads=manages_threads(
                self.bot, payload.parent_id, self.bot.timers.holds.told
            ),
        )
        self.bot.locks_seen.forget(payload.thread_id)  # the event is fresher
        holds = self.bot.timers.holds
        async with holds.in_turn(payload.thread_id):  # in the order Discord sent them
            if closed:
                await holds.thread_locked(payload.thread_id, payload.guild_id)
            else:
                await holds.thread_opened(payload.thread_id)
        self._maybe_allowed(payload.guild_id, "A thread")

    @commands.Cog.listener()
    async def on_thread_remove(self, thread: discord.Thread) -> None:
        """I was removed from ``thread`` (THREAD_MEMBERS_UPDATE naming me): discord.py keeps my
        thread member, so a private thread I was removed from would still count me in, and a
        game could start there (bot/flow/threads.py ``require_thread_member``)."""
        thread.me = None

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction[BrandubhBot]) -> None:
        """An interaction came: its word on my Manage Threads, told once it is answered or
        refused, is as of now (``Holds.heard``)."""
        self.bot.timers.holds.heard(interaction.extras)

    @commands.Cog.listener()
    async def on_app_command_completion(
        self,
        interaction: discord.Interaction[BrandubhBot],
        command: discord.app_commands.Command[Any, Any, Any] | discord.app_commands.ContextMenu,
    ) -> None:
        """A command was answered: from a held thread, for all to see, it may end the hold."""
        if not command.extras.get("answers_privately", False):
            await self._played(interaction)

    @commands.Cog.listener()
    async def on_component_completion(self, interaction: discord.Interaction[BrandubhBot]) -> None:
        """A button or select that may answer for all to see was answered (bot/views/common.py
        ``guarded``)."""
        await self._played(interaction)

    async def _played(self, interaction: discord.Interaction[BrandubhBot]) -> None:
        """``interaction`` was answered, not refused as locked for me (bot/locked_refusals.py
        ``locked_for_me``): a held thread it came from ends its hold if Discord's word shows it
        open (``Holds.answered_in``)."""
        channel = interaction.channel
        if not isinstance(channel, discord.Thread):
            return
        manages = interaction.app_permissions.manage_threads
        await self.bot.timers.holds.answered_in(channel, manages, interaction.extras)

    @commands.Cog.listener()
    async def on_guild_role_update(self, before: discord.Role, after: discord.Role) -> None:
        """A role's permissions may have changed: mine, if it is one of my roles (or
        @everyone's); another's says nothing of my Manage Threads."""
        self._maybe_allowed(after.guild.id, "A role")
        me = after.guild.me
        if after.is_default() or me is None or after in me.roles:
            await self._locks_weighed(after.guild)

    @commands.Cog.listener()
    async def on_guild_role_delete(self, role: discord.Role) -> None:
        """A role of mine may have been deleted, and Manage Threads with it."""
        await self._locks_weighed(role.guild)

    @commands.Cog.listener()
    async def on_member_update(self, before: discord.Member, after: discord.Member) -> None:
        """The bot's own roles may have changed (Discord sends the bot's own member updates
        without the members intent)."""
        if self.bot.user is not None and after.id == self.bot.user.id:
            self._maybe_allowed(after.guild.id, "My roles")
            await self._locks_weighed(after.guild)

    @commands.Cog.listener()
    async def on_shard_disconnect(self, shard_id: int) -> None:
        """Discord's gateway dropped a shard: no interaction reaches me from its servers, so
        the clocks stand still until it is back (bot/holds.py)."""
        await self.bot.timers.holds.shard_down(shard_id)

    @commands.Cog.listener()
    async def on_shard_resumed(self, shard_id: int) -> None:
        """A dropped shard resumed its session."""
        await self.bot.timers.holds.shard_up(shard_id)

    @commands.Cog.listener()
    async def on_shard_connect(self, shard_id: int) -> None:
        """A shard identified anew (its session could not be resumed), or for the first time."""
        self._listed[shard_id] = set()  # before its servers come (discord.py's order)
        await self.bot.timers.holds.shard_up(shard_id)

    @commands.Cog.listener()
    async def on_shard_ready(self, shard_id: int) -> None:
        """A shard's servers came after its READY. After a lost session (not at start-up,
        where the timers do it), the servers it no longer lists are weighed as at start-up
        (``VanishedFlow.servers_left``): the bot removed from one meanwhile, its GUILD_DELETE
        lost with the session, its games are aborted, not left to run to their deadline.
        discord.py keeps the servers it knew in its cache, so the ones listed are counted as
        they come (:meth:`_note_listed`)."""
        listed = self._listed.pop(shard_id, set())
        if shard_id not in self._shards_ready:
            self._shards_ready.add(shard_id)
            return
        until_stored(
            self.bot,
            f"servers left while shard {shard_id}'s session was lost",
            lambda: self.bot.flow.vanished.servers_left(shard_id=shard_id, listed=listed),
        )

    def _note_listed(self, guild: discord.Guild) -> None:
        """``guild`` came in its shard's READY (or joined since), available or in an outage."""
        listed = self._listed.get(guild.shard_id)
        if listed is not None:
            listed.add(guild.id)

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """A channel was deleted, and with it the threads in it, an archived member's thread
        too (``VanishedFlow.channel_deleted``), and its place among the channels games are
        allowed in, unless it was the only one."""
        until_stored(
            self.bot,
            f"channel {channel.id} deleted",
            lambda: self.bot.flow.vanished.channel_deleted(channel.guild, channel.id),
        )
        until_stored(
            self.bot,
            f"allowed channel {channel.id} deleted",
            lambda: self._disallow_deleted(channel.guild.id, channel.id),
        )

    async def _disallow_deleted(self, guild_id: int, channel_id: int) -> None:
        if await self.bot.services.settings.channel_deleted(guild_id, channel_id):
            _log.info("Deleted channel %s is no longer allowed in server %s", channel_id, guild_id)

    @commands.Cog.listener()
    async def on_guild_unavailable(self, guild: discord.Guild) -> None:
        """Discord says the server is in an outage: nobody loses on time there meanwhile. One
        in a shard's fresh READY comes so, not as a GUILD_CREATE: it is listed there, not
        weighed as left (:meth:`on_shard_ready`), as a start keeps it."""
        self._note_listed(guild)
        self._outage_places.outage_began(guild)
        await self.bot.timers.holds.server_unavailable(guild.id)

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        """The server's channels are known again (at start-up, after an outage, or after a
        session the gateway could not resume): allowed channels deleted meanwhile, which no
        CHANNEL_DELETE reached me for, leave the list as a deletion seen would take them off —
        when one allowed channel is still there (with all gone, the list stays, and /settings
        and refusals say they were deleted); the games of channels and threads deleted
        meanwhile are aborted (``VanishedFlow.channels_unseen``); refused boards are tried at
        the next check, as a permission given back meanwhile sent me no CHANNEL_UPDATE — at
        start-up only where one is seen back (:meth:`_given_back_while_away`). The channels and
        threads its GUILD_CREATE lacks after an outage leave discord.py's cache first
        (bot/outage_places.py), so those deleted meanwhile are seen missing."""
        stale = self._outage_places.outage_ended(guild)
        if stale:
            _log.info("Server %s is back without %s place(s) it had", guild.id, len(stale))
        self._note_listed(guild)
        if self._was_ready:
            self._maybe_allowed(guild.id, "The channel list")
        else:
            until_stored(
                self.bot,
                f"refused boards of server {guild.id} weighed",
                lambda: self._given_back_while_away(guild),
            )
        await self.bot.timers.holds.server_available(guild.id)  # after an outage: its time back
        await self._locks_weighed(guild)  # locked while I was away or it was unavailable
        self._deletions_unseen(guild)

    async def _given_back_while_away(self, guild: discord.Guild) -> None:
        """At start-up: ``guild``'s refused boards (and daily post) are tried at the next check
        if I may now post in a channel where one waits (a permission given back while I was
        stopped, which sent me no CHANNEL_UPDATE), instead of waiting out their pause, up to an
        hour. Only then: a start does not try every server's refused posts at once, most still
        refused (each refusal counts against Discord's limit on invalid requests)."""
        services = self.bot.services
        waiting = await services.announcements.refused_channels(guild.id)
        waiting += await services.puzzles.refused_channels(guild.id)  # its daily post's too
        if any(may_post(self.bot, channel_id) for channel_id in waiting):
            self._maybe_allowed(guild.id, "A permission given back while I was away")

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        """A server joined, or listed anew in a GUILD_CREATE that discord.py reports as a join
        (one without ``unavailable``, after the gateway connected anew): its threads locked
        meanwhile sent me no THREAD_UPDATE, nor a permission given back its CHANNEL_UPDATE; nor
        its channels and threads deleted meanwhile their deletions (the bot removed while its
        session was lost, its GUILD_DELETE lost too, and invited back since: its games there
        were never aborted)."""
        self._note_listed(guild)
        self._maybe_allowed(guild.id, "The channel list")
        await self._locks_weighed(guild)
        self._deletions_unseen(guild)

    def _deletions_unseen(self, guild: discord.Guild) -> None:
        """``guild``'s channels came anew: allowed channels, and games' channels and threads,
        deleted while no CHANNEL_DELETE or THREAD_DELETE reached me are handled as if one had
        (in the background, a busy database waited out)."""
        until_stored(
            self.bot,
            f"allowed channels of server {guild.id} checked",
            lambda: self._disallow_deleted_unseen(guild),
        )
        until_stored(  # deleted while I was away, or while my session was lost
            self.bot,
            f"game channels of server {guild.id} checked",
            lambda: self.bot.flow.vanished.channels_unseen(guild),
        )

    async def _disallow_deleted_unseen(self, guild: discord.Guild) -> None:
        allowed = (await self.bot.services.settings.get(guild.id)).allowed_channel_ids
        gone = sorted(channel for channel in allowed if guild.get_channel(channel) is None)
        if len(gone) < len(allowed):
            for channel_id in gone:
                await self._disallow_deleted(guild.id, channel_id)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A thread was deleted (raw: whether or not discord.py had it cached)."""
        until_stored(
            self.bot,
            f"thread {payload.thread_id} deleted",
            lambda: self.bot.flow.vanished.channel_gone(payload.thread_id, Gone.DELETED),
        )

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot was removed from a server, or the server was deleted (not an outage: that
        is ``on_guild_unavailable``)."""
        self._outage_places.forget(guild.id)
        await self.bot.timers.holds.server_left(guild.id)  # a hold of its outage ends with it
        until_stored(
            self.bot,
            f"removed from server {guild.id}",
            lambda: self.bot.flow.vanished.guild_gone(guild.id),
        )


def _within(channel: discord.abc.GuildChannel) -> list[discord.abc.GuildChannel]:
    """The channels of ``channel`` if it is a category (whose permissions they may follow)."""
    return list(channel.channels) if isinstance(channel, discord.CategoryChannel) else []


async def setup(bot: commands.Bot) -> None:
    """Load the cog (``load_extension``)."""
    assert isinstance(bot, BrandubhBot)
    await bot.add_cog(ServerChanges(bot))
