"""The stand-in's REST routes for a channel's messages: history, posting (with its nonce),
reading, editing and deleting one, typing, and the CDN's attachments."""

from __future__ import annotations

from datetime import timedelta

from aiohttp import web

from . import payloads
from .messages import read_body
from .model import (
    ATTACH_FILES,
    EMBED_LINKS,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    utc_now,
)
from .rest_routes import RestRoutes, error, json_response, path_int

NONCE_WINDOW = timedelta(minutes=3)
"""How long a message's ``nonce`` with ``enforce_nonce`` is remembered ("the past few minutes"
in Discord's documentation of Create Message; three here, so nothing may count on more)."""


class MessageRoutes(RestRoutes):
    """/channels/{id}/messages[/{id}], /channels/{id}/typing and /attachments/{id}/{name}."""

    async def typing(self, request: web.Request) -> web.StreamResponse:
        """POST /channels/{id}/typing."""
        self._channel(request)
        return web.Response(status=204)

    async def history(self, request: web.Request) -> web.StreamResponse:
        """GET /channels/{id}/messages — newest first, honouring ``limit``/``before``/``after``."""
        channel = self._channel(request)
        found = [
            m for m in self._recorder.messages_in(channel, include_deleted=False) if not m.ephemeral
        ]
        if "before" in request.query:
            found = [m for m in found if m.id < int(request.query["before"])]
        if "after" in request.query:
            found = [m for m in found if m.id > int(request.query["after"])]
        limit = int(request.query.get("limit", 50))
        if "after" in request.query and "before" not in request.query:
            # As Discord: the ``limit`` messages right after it (still newest first), so a
            # client pages forward through a busy channel.
            found = found[:limit]
        newest_first = list(reversed(found))[:limit]
        return json_response([m.to_payload() for m in newest_first])

    async def post_message(self, request: web.Request) -> web.StreamResponse:
        """POST /channels/{id}/messages — ``channel.send``. In a thread the bot is not a member
        of, its message joins it ("You can join a thread by sending a message in it",
        Discord's Help Center): it is sent THREAD_MEMBERS_UPDATE adding it."""
        channel = self._channel(request)
        body, uploads = await read_body(request)
        if not self._bot_may(channel, VIEW_CHANNEL):
            return error(403, 50001, "Missing Access")
        needed = SEND_MESSAGES_IN_THREADS if channel.is_thread else SEND_MESSAGES
        if not self._bot_may(channel, needed):
            return error(403, 50013, "Missing Permissions")
        if (refused := await self._thread_refuses(channel, creates=True)) is not None:
            return refused
        if uploads and not self._bot_may(channel, ATTACH_FILES):
            return error(403, 50013, "Missing Permissions")
        if body.get("embeds") and not self._bot_may(channel, EMBED_LINKS):
            # Without Embed Links a message's embeds are dropped without a word (an answer to
            # an interaction keeps them: Discord's changelog of 2022-06-29 leaves Embed Links
            # out of the bot's permissions there); one left with nothing is refused.
            body = {**body, "embeds": []}
            if not (body.get("content") or uploads or body.get("components")):
                return error(403, 50013, "Missing Permissions")
        if body.get("message_reference") and not self._bot_may(channel, READ_MESSAGE_HISTORY):
            # A reply needs Read Message History (JSON error code 160002).
            return error(403, 160002, "Cannot reply without permission to read message history")
        if body.get("enforce_nonce") and body.get("nonce") is not None:
            # "If another message was created by the same author with the same nonce [in the
            # past few minutes], that message will be returned and no new message created."
            # One deleted since is not made again: Discord answers 404 Unknown Message (its
            # developers call that intentional; discord.py's send documents the NotFound).
            recent = utc_now() - NONCE_WINDOW
            for earlier in reversed(self._recorder.messages.values()):
                if earlier.created_at < recent:
                    break
                if earlier.nonce == str(body["nonce"]):
                    if earlier.deleted:
                        return error(404, 10008, "Unknown Message")
                    return json_response(earlier.to_payload())
        message = self._messages.create(channel, body, uploads)
        self._recorder.add_message(message)
        if channel.is_thread and self._world.join_thread(channel, self._world.bot_user):
            # Posting in a thread joins it; "A Thread Members Update Gateway Event is always
            # sent when the current user is added to or removed from a thread".
            update = payloads.thread_members_update(channel, added=self._world.bot_user)
            await self._tell("THREAD_MEMBERS_UPDATE", update)
        return json_response(message.to_payload())

    async def channel_message(self, request: web.Request) -> web.StreamResponse:
        """GET/PATCH/DELETE /channels/{id}/messages/{id} (the channel must be visible to the
        bot: Discord answers 50001 Missing Access otherwise). A GET also needs Read Message
        History ("Get Channel Message": "requires the VIEW_CHANNEL and READ_MESSAGE_HISTORY
        permissions")."""
        channel = self._channel(request)
        if not self._bot_may(channel, VIEW_CHANNEL):
            return error(403, 50001, "Missing Access")
        if request.method == "GET" and not self._bot_may(channel, READ_MESSAGE_HISTORY):
            return error(403, 50001, "Missing Access")
        message = self._recorder.messages.get(path_int(request, "message_id"))
        if (
            message is None
            or message.deleted
            or message.ephemeral
            or message.channel.id != channel.id
        ):
            return error(404, 10008, "Unknown Message")
        return await self._message_operation(request, message)

    async def attachment(self, request: web.Request) -> web.StreamResponse:
        """The CDN: raw bytes of an uploaded attachment."""
        stored = self._recorder.attachments.get(path_int(request, "attachment_id"))
        if stored is None:
            return error(404, 0, "Unknown attachment")
        return web.Response(
            body=stored.data, content_type=stored.content_type or "application/octet-stream"
        )
