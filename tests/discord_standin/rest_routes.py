"""What every group of the stand-in's REST routes shares: the world and recorder they act on,
Discord's error bodies, and the refusals several routes make alike (the bot's permissions,
archived and locked threads, files in an interaction's answer)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from . import payloads
from .contract import Contract
from .faults import RestFaults
from .messages import MessageFactory, MessageRejected, Upload, read_body
from .model import ATTACH_FILES, MANAGE_THREADS, FakeChannel, World
from .recorder import InteractionRecord, Recorder, StoredMessage

JSON = dict[str, Any]

MISSING_ACCESS = 50001
THREAD_ARCHIVED = 50083
"""JSON error code: "Tried to perform an operation on an archived thread, such as editing a
message or adding a user to the thread"."""
THREAD_LOCKED = 160005
"""JSON error code: "Thread is locked"."""


def json_response(data: Any, status: int = 200) -> web.Response:
    """A JSON response whose Content-Type is exactly ``application/json`` (discord.py checks)."""
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )


def error(status: int, code: int, message: str, errors: JSON | None = None) -> web.Response:
    """A Discord-style error body (with ``errors`` naming the fields of an invalid form)."""
    body: JSON = {"message": message, "code": code}
    if errors is not None:
        body["errors"] = errors
    return json_response(body, status)


def path_int(request: web.Request, key: str) -> int:
    """The whole number ``key`` of the request's path (404 if it is not one)."""
    try:
        return int(request.match_info[key])
    except ValueError:
        raise web.HTTPNotFound() from None


class RestRoutes:
    """The state every route group works on, and the checks they share."""

    def __init__(
        self,
        *,
        world: World,
        recorder: Recorder,
        token: str,
        base_url: Callable[[], str],
        gateway_url: Callable[[], str],
        interaction_deadline: float | None,
        dispatch: Callable[[str, JSON], Awaitable[None]] | None = None,
        shards: Callable[[], int] = lambda: 1,
        contract: Contract | None = None,
        faults: RestFaults | None = None,
    ) -> None:
        self._contract = contract
        self.faults = faults or RestFaults()
        self._world = world
        self._recorder = recorder
        self._token = token
        self._dispatch = dispatch
        self._gateway_url = gateway_url
        self._shards = shards
        self._deadline = interaction_deadline
        self._messages = MessageFactory(
            snowflakes=world.snowflakes, author=world.bot_user, base_url=base_url
        )

    def _channel(self, request: web.Request) -> FakeChannel:
        """The channel of the request's path: 404 Unknown Channel (10003) if there is none (or
        it was deleted), 403 Missing Access (50001) in a guild the bot was removed from."""
        channel = self._world.channels.get(path_int(request, "channel_id"))
        if channel is None:
            raise MessageRejected(10003, "Unknown Channel")
        if channel.guild is not None and not self._world.bot_is_in(channel.guild):
            raise MessageRejected(MISSING_ACCESS, "Missing Access")
        return channel

    def _answer_refused(self, record: InteractionRecord, uploads: dict[int, Upload]) -> bool:
        """Whether an interaction's answer (callback, followup, edit of one) carrying files is
        refused: Discord checks Attach Files on them against the bot's permissions in the
        interaction's channel (a thread: its parent's overwrites), as its ``app_permissions``
        show them. Send Messages is not needed for an interaction's answer."""
        channel = record.channel
        if not uploads or channel.guild is None or not self._world.bot_is_in(channel.guild):
            return False
        held = self._world.bot_member(channel.guild).permissions_in(channel)
        return not held & ATTACH_FILES

    def _bot_may(self, channel: FakeChannel, permission: int) -> bool:
        if channel.guild is None:
            return True
        held = self._world.bot_member(channel.guild).effective_permissions_in(channel)
        return held & permission == permission

    async def _thread_refuses(
        self, channel: FakeChannel, *, creates: bool, answering: bool = False
    ) -> web.Response | None:
        """Whether (and how) Discord refuses the bot a new message (``creates``) or an edit of
        one in ``channel``, as its Threads topic says: "Users cannot edit messages ... in
        archived threads" (400 50083); "Sending a message will automatically unarchive the
        thread, unless the thread has been locked by a moderator" (here the thread is
        unarchived and the bot sent THREAD_UPDATE). A thread locked and archived refuses a
        message and an edit alike with 403 50083 "Thread is archived", as Discord answers on
        its channel routes (discord/discord-api-docs#5517, #6884); and without Manage
        Threads "Users won't be able to create or update messages in locked threads" (403
        160005 "Thread is locked"). An interaction's visible answer (``answering``) is held to
        the same rules: the documentation says nothing of them, so the stand-in takes the
        stricter reading (an answer that edits a message is an edit, one that posts is a
        message); in a locked thread it is refused with 403 50083 "Thread is archived", as
        reported in discord/discord-api-docs#6884 and #7707; an ephemeral one, which nobody
        else sees in the thread, is not refused (#7707: Discord shows answers in a locked
        thread privately where it lets them through at all)."""
        if not channel.is_thread:
            return None
        if channel.archived:
            if channel.locked:
                return error(403, THREAD_ARCHIVED, "Thread is archived")
            if not creates:
                return error(400, THREAD_ARCHIVED, "Thread is archived")
            channel.archived = False
            channel.archived_at = self._world.clock()
            await self._tell("THREAD_UPDATE", payloads.thread(channel))
        elif channel.locked and not self._bot_may(channel, MANAGE_THREADS):
            if answering:
                return error(403, THREAD_ARCHIVED, "Thread is archived")
            return error(403, THREAD_LOCKED, "Thread is locked")
        return None

    async def _tell(self, event: str, data: JSON) -> None:
        """Dispatch a gateway event to the bot, if it is connected."""
        if self._dispatch is not None:
            # No session: Discord would include the thread in the next GUILD_CREATE instead.
            with contextlib.suppress(RuntimeError):
                await self._dispatch(event, data)

    async def _message_operation(
        self,
        request: web.Request,
        message: StoredMessage,
        *,
        answering: InteractionRecord | None = None,
    ) -> web.StreamResponse:
        if request.method == "PATCH":
            if not message.ephemeral:
                refused = await self._thread_refuses(
                    message.channel, creates=False, answering=answering is not None
                )
                if refused is not None:
                    return refused
            body, uploads = await read_body(request)
            if answering is not None and self._answer_refused(answering, uploads):
                return error(403, 50013, "Missing Permissions")
            self._messages.edit(message, body, uploads)
        elif request.method == "DELETE":
            message.deleted = True
            self._recorder.notify()
            return web.Response(status=204)
        self._recorder.notify()
        return json_response(message.to_payload())
