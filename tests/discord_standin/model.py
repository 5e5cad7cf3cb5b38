"""The small world the stand-in pretends Discord holds: users, guilds, channels and members."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

DISCORD_EPOCH_MS = 1_420_070_400_000

# Permission bits, named as Discord names them.
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
ADD_REACTIONS = 1 << 6
USE_EXTERNAL_EMOJIS = 1 << 18
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
SEND_MESSAGES_IN_THREADS = 1 << 38
ADMINISTRATOR = 1 << 3
MANAGE_GUILD = 1 << 5
MENTION_EVERYONE = 1 << 17
SEND_TTS_MESSAGES = 1 << 12
"""Discord's "Mention @everyone, @here, and All Roles"."""

EVERYONE_PERMISSIONS = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | ADD_REACTIONS
    | USE_EXTERNAL_EMOJIS
    | USE_APPLICATION_COMMANDS
    | CREATE_PUBLIC_THREADS
    | SEND_MESSAGES_IN_THREADS
)
ALL_PERMISSIONS = (1 << 53) - 1

GUILD_TEXT = 0
DM = 1
GUILD_VOICE = 2
GUILD_ANNOUNCEMENT = 5
GUILD_STAGE_VOICE = 13
GUILD_FORUM = 15
GUILD_MEDIA = 16
"""Channels a test may turn a text channel into (``channel.type = GUILD_VOICE``): commands
come from a voice or stage channel's text chat, an announcement channel, and a forum's or a
media channel's posts (a media channel is "similar to a GUILD_FORUM", Discord's Channel
types: it holds only threads)."""
THREADLESS = (GUILD_VOICE, GUILD_STAGE_VOICE)
"""Channels Discord starts no thread in: a voice or stage channel's chat."""
ANNOUNCEMENT_THREAD = 10
"""The public thread of an announcement channel ("The type of thread created matches the type
of the parent channel", Discord's Threads topic)."""
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
"""A thread only its members (and those with Manage Threads) see ("You must be invited to the
thread to be able to view or participate in it, or be a moderator", Discord's Threads topic)."""
THREAD_TYPES = (ANNOUNCEMENT_THREAD, PUBLIC_THREAD, PRIVATE_THREAD)

ROLE_OVERWRITE = 0
MEMBER_OVERWRITE = 1


class Snowflakes:
    """Hands out unique, increasing Discord-style ids whose timestamp part is the current time."""

    def __init__(self) -> None:
        self._last = 0
        self._sequence = itertools.count()

    def next(self) -> int:
        """Return a fresh snowflake, strictly greater than every earlier one."""
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        candidate = (ms << 22) | (next(self._sequence) & 0xFFF)
        self._last = max(candidate, self._last + 1)
        return self._last


def utc_now() -> datetime:
    """Return the current time as a timezone-aware UTC datetime."""
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """Format a datetime the way Discord does in JSON."""
    return moment.isoformat()


@dataclass(eq=False)
class FakeUser:
    """A Discord user account (a player, or the bot itself)."""

    id: int
    name: str
    bot: bool = False
    global_name: str | None = None
    locale: str = "en-US"
    """The language chosen in the user's Discord client (sent as ``locale`` on interactions)."""

    @property
    def mention(self) -> str:
        """The text Discord uses to mention this user."""
        return f"<@{self.id}>"


@dataclass(eq=False)
class FakeRole:
    """A guild role; the role whose id equals the guild id is @everyone."""

    id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False
    mentionable: bool = False
    """Whether anyone may ping it (else only members with Mention @everyone, @here and All
    Roles)."""


@dataclass(eq=False)
class FakeOverwrite:
    """A channel's permission overwrite for a role (``@everyone``'s id is the guild's) or member."""

    id: int
    type: int
    """ROLE_OVERWRITE or MEMBER_OVERWRITE."""
    allow: int = 0
    deny: int = 0


@dataclass(eq=False)
class FakeChannel:
    """A guild text channel, or a DM channel when ``guild`` is None."""

    id: int
    name: str
    guild: FakeGuild | None
    type: int = GUILD_TEXT
    position: int = 0
    recipient: FakeUser | None = None
    parent: FakeChannel | None = None
    """For a thread: the text channel it belongs to."""
    owner_id: int | None = None
    """For a thread: who created it."""
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    archived_at: datetime = field(default_factory=utc_now)
    created_at: datetime | None = None
    """For a thread: when it was created (None for one made before 2022-01-09, of which Discord
    gives no ``create_timestamp``)."""
    members: dict[int, datetime] = field(default_factory=dict)
    """For a thread: who joined it (user id → when), as Discord tracks thread membership: its
    creator, whoever posted in it, and those a member added."""
    overwrites: list[FakeOverwrite] = field(default_factory=list)
    """Permission overwrites (a thread has none of its own: it follows its parent's)."""

    @property
    def is_thread(self) -> bool:
        """Whether this channel is a thread."""
        return self.type in THREAD_TYPES


@dataclass(eq=False)
class FakeMember:
    """A user's membership in one guild, with the permissions they hold there."""

    user: FakeUser
    guild: FakeGuild
    roles: list[FakeRole] = field(default_factory=list)
    nick: str | None = None
    joined_at: datetime = field(default_factory=utc_now)
    communication_disabled_until: datetime | None = None
    """Until when a moderator timed them out (None: not timed out); the member object carries
    it, and Discord takes no command or press from them until then."""

    @property
    def id(self) -> int:
        """The member's user id."""
        return self.user.id

    @property
    def name(self) -> str:
        """The member's user name."""
        return self.user.name

    @property
    def mention(self) -> str:
        """The text Discord uses to mention this member."""
        return self.user.mention

    @property
    def permissions(self) -> int:
        """Guild-wide permissions: @everyone's plus those of every role held."""
        value = self.guild.everyone.permissions
        for role in self.roles:
            value |= role.permissions
        return ALL_PERMISSIONS if value & ADMINISTRATOR else value

    def effective_permissions_in(self, channel: FakeChannel) -> int:
        """What the member can actually do in a channel: :meth:`permissions_in` less Discord's
        implicit denials — nothing without View Channel, nothing in a private thread they are
        not a member of (without Manage Threads), and in a text channel without Send
        Messages no Mention @everyone, Send TTS, Attach Files or Embed Links either."""
        value = self.permissions_in(channel)
        if not value & VIEW_CHANNEL:
            return 0
        if (
            channel.type == PRIVATE_THREAD
            and self.id not in channel.members
            and not value & MANAGE_THREADS
        ):
            return 0  # a private thread: only its members and moderators see it
        if not channel.is_thread and not value & SEND_MESSAGES:
            value &= ~(MENTION_EVERYONE | SEND_TTS_MESSAGES | ATTACH_FILES | EMBED_LINKS)
        return value

    def permissions_in(self, channel: FakeChannel) -> int:
        """Permissions in a channel, computed as Discord documents it ("Permission Overwrites").

        The owner and administrators hold every permission; otherwise the guild-wide
        permissions, then the channel's @everyone overwrite, then the member's roles'
        overwrites together (denies before allows), then the member's own overwrite. A thread
        takes its parent's overwrites.
        """
        base = self.permissions
        if self.id == self.guild.owner_id or base & ADMINISTRATOR:
            return ALL_PERMISSIONS
        where = channel.parent if channel.parent is not None else channel
        roles = {role.id for role in self.roles}
        value = base
        for overwrite in where.overwrites:
            if overwrite.type == ROLE_OVERWRITE and overwrite.id == self.guild.id:
                value = (value & ~overwrite.deny) | overwrite.allow
        allow = deny = 0
        for overwrite in where.overwrites:
            if overwrite.type == ROLE_OVERWRITE and overwrite.id in roles:
                allow |= overwrite.allow
                deny |= overwrite.deny
        value = (value & ~deny) | allow
        for overwrite in where.overwrites:
            if overwrite.type == MEMBER_OVERWRITE and overwrite.id == self.id:
                value = (value & ~overwrite.deny) | overwrite.allow
        return value


@dataclass(eq=False)
class FakeGuild:
    """A guild (server) with its channels, roles and members."""

    id: int
    name: str
    owner_id: int
    everyone: FakeRole
    roles: list[FakeRole] = field(default_factory=list)
    channels: list[FakeChannel] = field(default_factory=list)
    threads: list[FakeChannel] = field(default_factory=list)
    members: list[FakeMember] = field(default_factory=list)
    created_at: datetime = field(default_factory=utc_now)
    preferred_locale: str = "en-US"
    """The server's language (Server Settings → Community), sent as ``guild_locale``."""
    attachment_size_limit: int = 10 * 1024 * 1024
    """The largest file anyone may upload here, in bytes: 10 MiB unless the server is boosted
    (sent with every interaction as ``attachment_size_limit``; a larger upload is refused)."""
    unavailable: bool = False
    """In an outage: READY lists it unavailable and IDENTIFY is answered with its GUILD_DELETE
    (``unavailable: true``) instead of its GUILD_CREATE."""

    def channel(self, name: str) -> FakeChannel:
        """Return the channel with this name."""
        for channel in self.channels:
            if channel.name == name:
                return channel
        raise LookupError(f"guild {self.name!r} has no channel named {name!r}")

    def member(self, user_id: int) -> FakeMember | None:
        """Return the member with this user id, if they are in the guild."""
        for member in self.members:
            if member.id == user_id:
                return member
        return None


class World:
    """Every user, guild and channel the stand-in knows about, looked up by id."""

    def __init__(self, *, bot_name: str) -> None:
        self.snowflakes = Snowflakes()
        self.application_id = self.snowflakes.next()
        self.bot_user = FakeUser(id=self.application_id, name=bot_name, bot=True)
        self.owner = FakeUser(id=self.snowflakes.next(), name="owner")
        self.users: dict[int, FakeUser] = {u.id: u for u in (self.bot_user, self.owner)}
        self.guilds: list[FakeGuild] = []
        self.channels: dict[int, FakeChannel] = {}
        self.thread_creation_error: tuple[int, int, str] | None = None
        """When set, (status, code, message) answers every thread creation (Discord refusing)."""
        self.clock: Callable[[], datetime] = utc_now
        """Discord's time, as it dates a thread's archiving (a test's harness sets it to the
        bot's clock, which it moves forward)."""
        self.token_clock: Callable[[], datetime] = utc_now
        """The time an interaction's token ages by: real time, as interactions are dated (a
        test moves it on to play out a wait past the token's 15 minutes)."""

    def add_user(self, name: str, *, bot: bool = False) -> FakeUser:
        """Create a user account."""
        user = FakeUser(id=self.snowflakes.next(), name=name, bot=bot)
        self.users[user.id] = user
        return user

    def add_guild(self, name: str, channel_names: list[str], bot_permissions: int) -> FakeGuild:
        """Create a guild with text channels; the bot joins it with its own managed role."""
        guild_id = self.snowflakes.next()
        everyone = FakeRole(id=guild_id, name="@everyone", permissions=EVERYONE_PERMISSIONS)
        guild = FakeGuild(id=guild_id, name=name, owner_id=self.owner.id, everyone=everyone)
        self.guilds.append(guild)
        for name_ in channel_names:
            self.add_channel(guild, name_)
        bot_role = FakeRole(
            id=self.snowflakes.next(),
            name=self.bot_user.name,
            permissions=bot_permissions,
            position=1,
            managed=True,
        )
        guild.roles.append(bot_role)
        guild.members.append(FakeMember(user=self.bot_user, guild=guild, roles=[bot_role]))
        return guild

    def add_channel(self, guild: FakeGuild, name: str) -> FakeChannel:
        """Create a text channel in a guild."""
        channel = FakeChannel(
            id=self.snowflakes.next(), name=name, guild=guild, position=len(guild.channels)
        )
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        return channel

    def add_member(
        self, guild: FakeGuild, user: FakeUser, permissions: int | None, nick: str | None
    ) -> FakeMember:
        """Put a user in a guild; extra ``permissions`` come from a role made just for them."""
        roles: list[FakeRole] = []
        if permissions is not None:
            role = FakeRole(
                id=self.snowflakes.next(),
                name=f"{user.name}'s role",
                permissions=permissions,
                position=len(guild.roles) + 1,
            )
            guild.roles.append(role)
            roles.append(role)
        member = FakeMember(user=user, guild=guild, roles=roles, nick=nick)
        guild.members.append(member)
        return member

    def add_thread(
        self,
        parent: FakeChannel,
        name: str,
        owner: FakeUser,
        *,
        thread_id: int | None = None,
        private: bool = False,
    ) -> FakeChannel:
        """Create a public thread in ``parent`` (from a message: the thread has its id; in an
        announcement channel an announcement thread), or a private one (``private``). Its
        creator is its first member."""
        assert parent.guild is not None
        assert not parent.is_thread
        if private:
            kind = PRIVATE_THREAD
        else:
            kind = ANNOUNCEMENT_THREAD if parent.type == GUILD_ANNOUNCEMENT else PUBLIC_THREAD
        now = self.clock()
        thread = FakeChannel(
            id=thread_id if thread_id is not None else self.snowflakes.next(),
            name=name,
            guild=parent.guild,
            type=kind,
            parent=parent,
            owner_id=owner.id,
            archived_at=now,
            created_at=now,
            members={owner.id: now},
        )
        self.channels[thread.id] = thread
        parent.guild.threads.append(thread)
        return thread

    def join_thread(self, thread: FakeChannel, user: FakeUser) -> bool:
        """``user`` joins ``thread`` (if not already a member); whether they were new to it."""
        if user.id in thread.members:
            return False
        thread.members[user.id] = self.clock()
        return True

    def threads_of(self, parent: FakeChannel) -> list[FakeChannel]:
        """Every thread created in ``parent``."""
        return [c for c in self.channels.values() if c.parent is parent]

    def delete_channel(self, channel: FakeChannel) -> None:
        """Delete a guild channel or thread; a channel's threads go with it."""
        guild = channel.guild
        assert guild is not None, "only a guild's channels and threads are deleted"
        for gone in (channel, *self.threads_of(channel)):
            del self.channels[gone.id]
            if gone in guild.threads:
                guild.threads.remove(gone)
        if channel in guild.channels:
            guild.channels.remove(channel)

    def remove_bot(self, guild: FakeGuild) -> None:
        """The bot is removed from ``guild`` (kicked): it is no longer one of its guilds. Its
        channels still exist, for its members."""
        guild.members.remove(self.bot_member(guild))
        self.guilds.remove(guild)

    def add_role(self, guild: FakeGuild, name: str, *, mentionable: bool) -> FakeRole:
        """Create a role that grants no permissions (a role for pings, say)."""
        role = FakeRole(
            id=self.snowflakes.next(),
            name=name,
            permissions=0,
            position=len(guild.roles) + 1,
            mentionable=mentionable,
        )
        guild.roles.append(role)
        return role

    def role(self, role_id: int) -> tuple[FakeGuild, FakeRole] | None:
        """The role with this id (@everyone's is its guild's), and its guild."""
        for guild in self.guilds:
            for role in (guild.everyone, *guild.roles):
                if role.id == role_id:
                    return guild, role
        return None

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The bot's DM channel with a user, created on first use."""
        for channel in self.channels.values():
            if channel.type == DM and channel.recipient is user:
                return channel
        channel = FakeChannel(
            id=self.snowflakes.next(), name=f"dm-{user.name}", guild=None, type=DM, recipient=user
        )
        self.channels[channel.id] = channel
        return channel

    def guild(self, guild_id: int) -> FakeGuild | None:
        """The guild with this id."""
        for guild in self.guilds:
            if guild.id == guild_id:
                return guild
        return None

    def bot_member(self, guild: FakeGuild) -> FakeMember:
        """The bot's own membership in a guild."""
        member = guild.member(self.bot_user.id)
        assert member is not None, f"the bot is not in {guild.name} (it was removed)"
        return member

    def bot_is_in(self, guild: FakeGuild) -> bool:
        """Whether the bot is (still) a member of ``guild``."""
        return guild.member(self.bot_user.id) is not None
