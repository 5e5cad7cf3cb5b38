"""JSON payloads shaped the way Discord sends them, built from the stand-in's world model."""

from __future__ import annotations

from typing import Any

from .model import (
    DM,
    GUILD_STAGE_VOICE,
    GUILD_VOICE,
    PRIVATE_THREAD,
    VIEW_CHANNEL,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeRole,
    FakeUser,
    iso,
)

JSON = dict[str, Any]

ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
THREAD_MEMBER_COUNT_CAP = 50
"""A thread's ``member_count`` "stops counting at 50" (Discord's Threads topic), in the
thread object and in Thread Members Update alike."""
GUILD_CONTEXT = 0
BOT_DM_CONTEXT = 1


def user(who: FakeUser) -> JSON:
    """A user object."""
    return {
        "id": str(who.id),
        "username": who.name,
        "discriminator": "0",
        "global_name": who.global_name,
        "avatar": None,
        "banner": None,
        "accent_color": None,
        "bot": who.bot,
        "system": False,
        "public_flags": 0,
        "flags": 0,
    }


def ready_user(who: FakeUser) -> JSON:
    """The bot's own user object, as READY and GET /users/@me carry it."""
    return {**user(who), "verified": True, "mfa_enabled": False, "email": None, "locale": "en-US"}


def role(guild: FakeGuild, what: FakeRole) -> JSON:
    """A role object."""
    payload: JSON = {
        "id": str(what.id),
        "name": what.name,
        "permissions": str(what.permissions),
        "position": what.position,
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
        "hoist": False,
        "managed": what.managed,
        "mentionable": what.mentionable,
        "icon": None,
        "unicode_emoji": None,
        "flags": 0,
    }
    if what.managed:
        # A bot's own role: Discord tags it with that bot's user id.
        holders = [m.id for m in guild.members if m.user.bot and what in m.roles]
        if holders:
            payload["tags"] = {"bot_id": str(holders[0])}
    return payload


def thread(
    where: FakeChannel, *, me: FakeUser | None = None, in_guild_create: bool = False
) -> JSON:
    """A thread channel object (type 10 in an announcement channel, 11, or 12 for a private
    thread) with its metadata. ``me``: the user it is sent to, whose thread member object it
    carries as ``member`` where they joined the thread — Discord's Threads topic: "getting a
    channel will return the thread member object for the current user as a property on the
    channel, if the current user is a member of the thread", and so do Guild Create's threads
    (``in_guild_create``: without the member's ``id`` and ``user_id``, as Discord omits them
    there) and Thread Create. ``create_timestamp`` is "only populated for threads created after
    2022-01-09"."""
    assert where.guild is not None
    assert where.parent is not None
    metadata: JSON = {
        "archived": where.archived,
        "auto_archive_duration": where.auto_archive_duration,
        "archive_timestamp": iso(where.archived_at),
        "locked": where.locked,
    }
    if where.created_at is not None:
        metadata["create_timestamp"] = iso(where.created_at)
    if where.type == PRIVATE_THREAD:
        metadata["invitable"] = True
    payload: JSON = {
        "id": str(where.id),
        "type": where.type,
        "guild_id": str(where.guild.id),
        "parent_id": str(where.parent.id),
        "owner_id": str(where.owner_id),
        "name": where.name,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "message_count": 0,
        "member_count": member_count(where),
        "flags": 0,
        "total_message_sent": 0,
        "thread_metadata": metadata,
    }
    if me is not None and me.id in where.members:
        payload["member"] = thread_member(where, me, in_guild_create=in_guild_create)
    return payload


def member_count(where: FakeChannel) -> int:
    """Thread ``where``'s ``member_count``: its members, counted up to 50 at most."""
    return min(len(where.members), THREAD_MEMBER_COUNT_CAP)


def thread_members_update(
    where: FakeChannel, *, added: FakeUser | None = None, removed: FakeUser | None = None
) -> JSON:
    """A Thread Members Update event for thread ``where``: ``added`` joined it (with their
    thread member object) or ``removed`` left it; its ``member_count`` is capped as the
    thread's (:func:`member_count`)."""
    assert where.guild is not None
    payload: JSON = {
        "id": str(where.id),
        "guild_id": str(where.guild.id),
        "member_count": member_count(where),
    }
    if added is not None:
        payload["added_members"] = [thread_member(where, added)]
    if removed is not None:
        payload["removed_member_ids"] = [str(removed.id)]
    return payload


def thread_member(where: FakeChannel, who: FakeUser, *, in_guild_create: bool = False) -> JSON:
    """A thread member object: ``who``'s membership of thread ``where`` (Guild Create's omits
    the thread's and the user's ids)."""
    payload: JSON = {"join_timestamp": iso(where.members[who.id]), "flags": 0}
    if not in_guild_create:
        payload.update(id=str(where.id), user_id=str(who.id))
    return payload


def channel(where: FakeChannel, *, me: FakeUser | None = None) -> JSON:
    """A channel object: a guild text channel, a thread (with ``me``'s thread member object:
    :func:`thread`) or a DM channel."""
    if where.type == DM:
        recipients = [user(where.recipient)] if where.recipient is not None else []
        return {
            "id": str(where.id),
            "type": DM,
            "recipients": recipients,
            "last_message_id": None,
            "flags": 0,
        }
    assert where.guild is not None
    if where.parent is not None:
        return thread(where, me=me)
    return {
        "id": str(where.id),
        "type": where.type,
        "guild_id": str(where.guild.id),
        "name": where.name,
        "position": where.position,
        "topic": None,
        "nsfw": False,
        "parent_id": None,
        "permission_overwrites": [
            {
                "id": str(o.id),
                "type": o.type,
                "allow": str(o.allow),
                "deny": str(o.deny),
            }
            for o in where.overwrites
        ],
        "rate_limit_per_user": 0,
        "last_message_id": None,
        "flags": 0,
        **_kind_fields(where.type),
    }


def _kind_fields(kind: int) -> JSON:
    """The fields a voice or stage channel (their text chat takes commands too) carries."""
    if kind in (GUILD_VOICE, GUILD_STAGE_VOICE):
        return {"bitrate": 64000, "user_limit": 0, "rtc_region": None}
    return {}


def member(who: FakeMember, *, channel_for_permissions: FakeChannel | None = None) -> JSON:
    """A guild member object, with the user inside and, for interactions, the permissions the
    member holds in the interaction's channel (``channel_for_permissions``)."""
    payload: JSON = {
        "user": user(who.user),
        "roles": [str(r.id) for r in who.roles],
        "nick": who.nick,
        "avatar": None,
        "banner": None,
        "joined_at": iso(who.joined_at),
        "premium_since": None,
        "deaf": False,
        "mute": False,
        "flags": 0,
        "pending": False,
        "communication_disabled_until": (
            None
            if who.communication_disabled_until is None
            else iso(who.communication_disabled_until)
        ),
    }
    if channel_for_permissions is not None:
        payload["permissions"] = str(who.permissions_in(channel_for_permissions))
    return payload


def guild_create(guild: FakeGuild, *, me: FakeUser, joined: bool = False) -> JSON:
    """A full GUILD_CREATE payload: channels, roles and every member, so no chunking is needed.

    Discord sends GUILD_CREATE "to lazily load and backfill information for all unavailable
    guilds sent in the Ready event", when "a Guild becomes available again" after an outage,
    and when "the current user joins a new Guild" (Gateway Events, Guild Create). The first two
    carry ``unavailable: false``; a join (``joined``) carries no ``unavailable`` at all, which
    is how libraries tell them apart (discord.py reports ``guild_available`` for the one,
    ``guild_join`` for the other; twilight's ``GuildCreateSource`` likewise)."""
    payload = guild_object(guild, me=me)
    if not joined:
        payload["unavailable"] = False
    return payload


def guild_unavailable(guild: FakeGuild) -> JSON:
    """The unavailable guild object of an outage (GUILD_DELETE with ``unavailable: true``);
    without ``unavailable`` it would say the bot was removed from the server."""
    return {"id": str(guild.id), "unavailable": True}


def guild_object(guild: FakeGuild, *, me: FakeUser) -> JSON:
    """The guild object with GUILD_CREATE's extra fields (members, channels, threads), as
    GET /guilds/{id} answers it too (without ``unavailable``), for ``me`` (the bot): its
    threads are "all active threads in the guild, that the current user is able to view",
    each with ``me``'s thread member object where it joined (Discord's Threads topic)."""
    return {
        **guild_update(guild),
        "joined_at": iso(guild.created_at),
        "large": False,
        "member_count": len(guild.members),
        "members": [member(m) for m in guild.members],
        "channels": [channel(c) for c in guild.channels],
        "threads": [
            thread(t, me=me, in_guild_create=True)
            for t in guild.threads
            if not t.archived and _sees(guild, me, t)
        ],
        "presences": [],
        "voice_states": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
    }


def _sees(guild: FakeGuild, who: FakeUser, where: FakeChannel) -> bool:
    """Whether ``who``, a member of ``guild``, can see channel or thread ``where``."""
    member = guild.member(who.id)
    return member is not None and bool(member.effective_permissions_in(where) & VIEW_CHANNEL)


def guild_update(guild: FakeGuild) -> JSON:
    """The guild object alone, without GUILD_CREATE's extra fields, as GUILD_UPDATE carries it
    ("Sent when a guild is updated. The inner payload is a guild object")."""
    return {
        "id": str(guild.id),
        "name": guild.name,
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "banner": None,
        "description": None,
        "owner_id": str(guild.owner_id),
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "mfa_level": 0,
        "nsfw_level": 0,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "preferred_locale": guild.preferred_locale,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "public_updates_channel_id": None,
        "safety_alerts_channel_id": None,
        "features": [],
        "roles": [role(guild, r) for r in [guild.everyone, *guild.roles]],
        "emojis": [],
        "stickers": [],
        "premium_progress_bar_enabled": False,
    }


def ready(
    *,
    bot: FakeUser,
    application_id: int,
    session_id: str,
    resume_gateway_url: str,
    guilds: list[FakeGuild],
    shard: list[int] | None,
) -> JSON:
    """The READY payload: who the bot is and which guilds will follow as GUILD_CREATE."""
    payload: JSON = {
        "v": 10,
        "user": ready_user(bot),
        "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
        "session_id": session_id,
        "session_type": "normal",
        "resume_gateway_url": resume_gateway_url,
        "application": {"id": str(application_id), "flags": 0},
        "private_channels": [],
        "relationships": [],
        "presences": [],
        "guild_join_requests": [],
        "user_settings": {},
        "geo_ordered_rtc_regions": [],
        "_trace": ["discord-standin"],
    }
    if shard is not None:
        payload["shard"] = shard
    return payload


def application(*, application_id: int, name: str, owner: FakeUser) -> JSON:
    """The GET /oauth2/applications/@me payload."""
    return {
        "id": str(application_id),
        "name": name,
        "icon": None,
        "description": "",
        "summary": "",
        "bot_public": True,
        "bot_require_code_grant": False,
        "verify_key": "0" * 64,
        "owner": user(owner),
        "team": None,
        "flags": 0,
        "tags": [],
        "redirect_uris": [],
        "interactions_endpoint_url": None,
        "approximate_guild_count": 0,
        "integration_types_config": {"0": {}},
    }


def interaction(
    *,
    interaction_id: int,
    interaction_type: int,
    token: str,
    application_id: int,
    where: FakeChannel,
    who: FakeMember | FakeUser,
    app_permissions: int,
    data: JSON,
    message: JSON | None = None,
) -> JSON:
    """An INTERACTION_CREATE payload with every field discord.py's Interaction reads."""
    payload: JSON = {
        "id": str(interaction_id),
        "type": interaction_type,
        "token": token,
        "application_id": str(application_id),
        "version": 1,
        "attachment_size_limit": (
            ATTACHMENT_SIZE_LIMIT if where.guild is None else where.guild.attachment_size_limit
        ),
        "channel_id": str(where.id),
        "channel": channel(where),
        "app_permissions": str(app_permissions),
        # Discord sends the invoking user's client language on every interaction but PING.
        "locale": (who.user if isinstance(who, FakeMember) else who).locale,
        "entitlements": [],
        "entitlement_sku_ids": [],
        "data": data,
    }
    if isinstance(who, FakeMember):
        guild = who.guild
        payload.update(
            guild_id=str(guild.id),
            guild={"id": str(guild.id), "locale": guild.preferred_locale, "features": []},
            guild_locale=guild.preferred_locale,
            member=member(who, channel_for_permissions=where),
            authorizing_integration_owners={"0": str(guild.id)},
            context=GUILD_CONTEXT,
        )
    else:
        payload.update(
            user=user(who),
            authorizing_integration_owners={"0": str(who.id)},
            context=BOT_DM_CONTEXT,
        )
    if message is not None:
        payload["message"] = message
    return payload
