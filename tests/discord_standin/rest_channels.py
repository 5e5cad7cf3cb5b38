"""The stand-in's REST routes for channels, threads and guilds: reading a channel, starting
and editing a thread, reading a guild, its channels and a member."""

from __future__ import annotations

from aiohttp import web

from . import payloads
from .messages import form_errors, read_body
from .model import (
    ANNOUNCEMENT_THREAD,
    CREATE_PUBLIC_THREADS,
    MANAGE_THREADS,
    PUBLIC_THREAD,
    THREADLESS,
    VIEW_CHANNEL,
)
from .recorder import StoredMessage
from .rest_routes import (
    MISSING_ACCESS,
    THREAD_ARCHIVED,
    RestRoutes,
    error,
    json_response,
    path_int,
)

THREAD_NAME_LIMIT = 100


def _bad_thread_name() -> web.Response:
    """Discord's answer to a thread's name outside 1 to 100 characters."""
    message = f"Must be between 1 and {THREAD_NAME_LIMIT} in length."
    errors = form_errors("name", "BASE_TYPE_BAD_LENGTH", message)
    return error(400, 50035, "Invalid Form Body", errors)


class ChannelRoutes(RestRoutes):
    """/channels/{id}, its threads, and /guilds/{id}[/channels, /members/{id}]."""

    async def start_thread(self, request: web.Request) -> web.StreamResponse:
        """POST /channels/{id}/threads and /channels/{id}/messages/{id}/threads."""
        parent = self._channel(request)
        body, _ = await read_body(request)
        starter: StoredMessage | None = None
        if "message_id" in request.match_info:
            starter = self._recorder.messages.get(path_int(request, "message_id"))
            if starter is None or starter.deleted or starter.channel is not parent:
                return error(404, 10008, "Unknown Message")
            if starter.thread is not None:
                return error(400, 160004, "A thread has already been created for this message")
        elif int(body.get("type") or PUBLIC_THREAD) not in (PUBLIC_THREAD, ANNOUNCEMENT_THREAD):
            return error(400, 50035, "Invalid Form Body")
        if parent.guild is None or parent.is_thread or parent.type in THREADLESS:
            return error(400, 50024, "Cannot execute action on this channel type")
        if not self._bot_may(parent, CREATE_PUBLIC_THREADS):
            return error(403, 50013, "Missing Permissions")
        if self._world.thread_creation_error is not None:
            status, code, message = self._world.thread_creation_error
            return error(status, code, message)
        name = str(body.get("name") or "")
        if not 1 <= len(name) <= THREAD_NAME_LIMIT:
            return _bad_thread_name()
        thread = self._world.add_thread(
            parent,
            name,
            self._world.bot_user,
            thread_id=None if starter is None else starter.id,
        )
        thread.auto_archive_duration = int(body.get("auto_archive_duration") or 1440)
        if starter is not None:
            starter.thread = thread
        data = payloads.thread(thread, me=self._world.bot_user)
        await self._tell("THREAD_CREATE", {**data, "newly_created": True})
        self._recorder.notify()
        return json_response(data, 201)

    async def patch_channel(self, request: web.Request) -> web.StreamResponse:
        """PATCH /channels/{id}: for a thread, its name, archived and locked flags, as Discord's
        Threads topic ("Editing & Deleting Threads") allows them: setting ``archived`` to false
        "only requires the current user has already been added to the thread" (a member, or
        its creator, or with Manage Threads); "If locked is true, then the user must have
        created the thread or have MANAGE_THREADS"; any other change of ``name`` or
        ``archived`` "requires MANAGE_THREADS or that the current user is the thread
        creator", and one of ``locked`` Manage Threads. A refusal is 403 Missing Permissions
        (50013)."""
        channel = self._channel(request)
        body, _ = await read_body(request)
        if not channel.is_thread:
            return error(403, 50013, "Missing Permissions")
        if not self._bot_may(channel, VIEW_CHANNEL):
            return error(403, MISSING_ACCESS, "Missing Access")
        manages = self._bot_may(channel, MANAGE_THREADS)
        started = channel.owner_id == self._world.bot_user.id
        joined = self._world.bot_user.id in channel.members
        may_edit = manages or started
        if "locked" in body and not manages:
            return error(403, 50013, "Missing Permissions")
        if "name" in body and not may_edit:
            return error(403, 50013, "Missing Permissions")
        if "name" in body and not 1 <= len(str(body["name"] or "")) <= THREAD_NAME_LIMIT:
            return _bad_thread_name()
        opens = body.get("archived") is False and not channel.locked
        if "archived" in body and not (may_edit or (opens and joined)):
            return error(403, 50013, "Missing Permissions")
        if "name" in body:
            channel.name = str(body["name"])
        if "archived" in body:
            channel.archived = bool(body["archived"])
            channel.archived_at = self._world.clock()
        if "locked" in body:
            channel.locked = bool(body["locked"])
        data = payloads.thread(channel)
        await self._tell("THREAD_UPDATE", data)
        self._recorder.notify()
        return json_response(data)

    async def join_thread(self, request: web.Request) -> web.StreamResponse:
        """PUT /channels/{id}/thread-members/@me: the bot joins a thread it may see (Discord's
        Join Thread: "Also requires the thread is not archived", else 400 50083; "Fires a
        Thread Members Update and a Thread Create Gateway event"), 204. Anything else is
        refused: a channel that is no thread 400 50024, one the bot may not see 403 50001."""
        channel = self._channel(request)
        if not channel.is_thread:
            return error(400, 50024, "Cannot execute action on this channel type")
        if not self._bot_may(channel, VIEW_CHANNEL):
            return error(403, MISSING_ACCESS, "Missing Access")
        if channel.archived:
            return error(400, THREAD_ARCHIVED, "Thread is archived")
        me = self._world.bot_user
        if self._world.join_thread(channel, me):
            await self._tell("THREAD_CREATE", payloads.thread(channel, me=me))
            await self._tell(
                "THREAD_MEMBERS_UPDATE", payloads.thread_members_update(channel, added=me)
            )
        self._recorder.notify()
        return web.Response(status=204)

    async def get_channel(self, request: web.Request) -> web.StreamResponse:
        """GET /channels/{id}: the channel object, a thread's (archived too) with its
        ``thread_metadata`` and, where the bot joined it, the bot's thread member object
        (``member``); 404 Unknown Channel (10003) once it is deleted, and 403 Missing
        Access (50001) where the bot may not see it (a thread: its channel), as Discord
        answers a bot without View Channel (a private thread: one the bot is not a member of,
        without Manage Threads)."""
        channel = self._channel(request)
        if not self._bot_may(channel, VIEW_CHANNEL):
            return error(403, MISSING_ACCESS, "Missing Access")
        return json_response(payloads.channel(channel, me=self._world.bot_user))

    async def get_guild(self, request: web.Request) -> web.StreamResponse:
        """GET /guilds/{id}."""
        guild = self._world.guild(path_int(request, "guild_id"))
        if guild is None:
            return error(404, 10004, "Unknown Guild")
        return json_response(payloads.guild_object(guild, me=self._world.bot_user))

    async def get_guild_channels(self, request: web.Request) -> web.StreamResponse:
        """GET /guilds/{id}/channels."""
        guild = self._world.guild(path_int(request, "guild_id"))
        if guild is None:
            return error(404, 10004, "Unknown Guild")
        return json_response([payloads.channel(c) for c in guild.channels])

    async def get_member(self, request: web.Request) -> web.StreamResponse:
        """GET /guilds/{id}/members/{user_id}."""
        guild = self._world.guild(path_int(request, "guild_id"))
        if guild is None:
            return error(404, 10004, "Unknown Guild")
        member = guild.member(path_int(request, "user_id"))
        if member is None:
            return error(404, 10007, "Unknown Member")
        return json_response(payloads.member(member))
