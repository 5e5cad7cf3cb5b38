"""The REST half of the stand-in: login, command sync, interaction callbacks, webhooks, channels."""

from __future__ import annotations

import contextlib
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from aiohttp import web

from . import payloads
from .contract import Contract
from .faults import RestFaults
from .messages import REQUEST_TOO_LARGE, MessageFactory, MessageRejected, Upload, read_body
from .model import (
    ATTACH_FILES,
    CREATE_PUBLIC_THREADS,
    MANAGE_THREADS,
    PUBLIC_THREAD,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    FakeChannel,
    World,
    utc_now,
)
from .recorder import (
    AUTOCOMPLETE_RESULT,
    CHANNEL_MESSAGE,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE_MESSAGE,
    MODAL,
    UPDATE_MESSAGE,
    InteractionRecord,
    Recorder,
    RestCall,
    StoredMessage,
)

_log = logging.getLogger(__name__)

JSON = dict[str, Any]
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

API = "/api/v{version:\\d+}"
API_PREFIX = re.compile(r"^/api/v\d+")
MISSING_ACCESS = 50001
THREAD_ARCHIVED = 50083
"""JSON error code: "Tried to perform an operation on an archived thread, such as editing a
message or adding a user to the thread"."""
THREAD_LOCKED = 160005
"""JSON error code: "Thread is locked"."""
NONCE_WINDOW = timedelta(minutes=3)
"""How long a message's ``nonce`` with ``enforce_nonce`` is remembered ("the past few minutes"
in Discord's documentation of Create Message; three here, so nothing may count on more)."""

# Which callback types each interaction type accepts (2 command, 3 component, 4 autocomplete,
# 5 modal submit).
ALLOWED_CALLBACKS: dict[int, set[int]] = {
    2: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL},
    3: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE, MODAL},
    4: {AUTOCOMPLETE_RESULT},
    5: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE},
}


def json_response(data: Any, status: int = 200) -> web.Response:
    """A JSON response whose Content-Type is exactly ``application/json`` (discord.py checks)."""
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )


def error(status: int, code: int, message: str) -> web.Response:
    """A Discord-style error body."""
    return json_response({"message": message, "code": code}, status)


def _ephemeral(data: JSON) -> bool:
    """Whether a message's body asks for it to be ephemeral (flag 64)."""
    return bool(int(data.get("flags") or 0) & 64)


def _int(request: web.Request, key: str) -> int:
    try:
        return int(request.match_info[key])
    except ValueError:
        raise web.HTTPNotFound() from None


class RestApi:
    """aiohttp handlers for every REST route the stand-in understands."""

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

    def add_routes(self, app: web.Application) -> None:
        """Register the routes and the recording/auth middleware on ``app``."""
        app.middlewares.append(self._middleware)
        table: list[tuple[str, str, Handler]] = [
            ("GET", "/users/@me", self.get_me),
            ("GET", "/users/{user_id}", self.get_user),
            ("POST", "/users/@me/channels", self.open_dm),
            ("GET", "/oauth2/applications/@me", self.get_application),
            ("GET", "/applications/@me", self.get_application),
            ("GET", "/gateway", self.get_gateway),
            ("GET", "/gateway/bot", self.get_gateway),
            ("PUT", "/applications/{app_id}/commands", self.put_commands),
            ("GET", "/applications/{app_id}/commands", self.get_commands),
            ("PUT", "/applications/{app_id}/guilds/{guild_id}/commands", self.put_commands),
            ("GET", "/applications/{app_id}/guilds/{guild_id}/commands", self.get_commands),
            ("POST", "/interactions/{interaction_id}/{token}/callback", self.callback),
            ("POST", "/webhooks/{app_id}/{token}", self.followup),
            ("GET", "/webhooks/{app_id}/{token}/messages/{message_id}", self.webhook_message),
            ("PATCH", "/webhooks/{app_id}/{token}/messages/{message_id}", self.webhook_message),
            ("DELETE", "/webhooks/{app_id}/{token}/messages/{message_id}", self.webhook_message),
            ("GET", "/channels/{channel_id}", self.get_channel),
            ("PATCH", "/channels/{channel_id}", self.patch_channel),
            ("POST", "/channels/{channel_id}/threads", self.start_thread),
            ("POST", "/channels/{channel_id}/messages/{message_id}/threads", self.start_thread),
            ("POST", "/channels/{channel_id}/typing", self.typing),
            ("GET", "/channels/{channel_id}/messages", self.history),
            ("POST", "/channels/{channel_id}/messages", self.post_message),
            ("GET", "/channels/{channel_id}/messages/{message_id}", self.channel_message),
            ("PATCH", "/channels/{channel_id}/messages/{message_id}", self.channel_message),
            ("DELETE", "/channels/{channel_id}/messages/{message_id}", self.channel_message),
            ("GET", "/guilds/{guild_id}", self.get_guild),
            ("GET", "/guilds/{guild_id}/channels", self.get_guild_channels),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self.get_member),
        ]
        for method, path, handler in table:
            app.router.add_route(method, API + path, handler)
        app.router.add_get("/attachments/{attachment_id}/{filename}", self.attachment)

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        path = request.path
        needs_auth = path.startswith("/api/") and not any(
            part in path for part in ("/webhooks/", "/interactions/")
        )
        api_path = API_PREFIX.sub("", path) if path.startswith("/api/") else None
        fault = None
        if api_path is not None:
            await self._check_contract(request, api_path)
            fault = self.faults.find(request.method, api_path)
        if fault is not None and not fault.landed:
            response: web.StreamResponse = fault.response()
        elif request.match_info.http_exception is not None:
            self._recorder.unknown_requests.append(f"{request.method} {request.path_qs}")
            _log.warning("stand-in has no route for %s %s", request.method, request.path_qs)
            response = error(404, 0, "Unknown")
        elif needs_auth and request.headers.get("Authorization") != f"Bot {self._token}":
            response = error(401, 0, "401: Unauthorized")
        else:
            try:
                response = await handler(request)
            except MessageRejected as rejected:
                status = (
                    404
                    if rejected.code in (10003, 10008)
                    else 403
                    if rejected.code == MISSING_ACCESS
                    else 413
                    if rejected.code == REQUEST_TOO_LARGE
                    else 400
                )
                response = error(status, rejected.code, rejected.message)
            except web.HTTPException as exc:
                response = error(exc.status, 0, exc.text or exc.reason)
            if fault is not None:  # it took effect, but its answer is lost on the way
                response = fault.response()
        peer = request.transport.get_extra_info("peername") if request.transport else None
        port = peer[1] if isinstance(peer, tuple) and len(peer) >= 2 else None
        self._recorder.rest_log.append(
            RestCall(request.method, path, response.status, utc_now(), client_port=port)
        )
        self._recorder.notify()
        return response

    async def _check_contract(self, request: web.Request, api_path: str) -> None:
        """Record (and log) every way this request breaks Discord's published contract."""
        if self._contract is None:
            return
        body: Any = None
        if request.method in ("POST", "PUT", "PATCH") and request.can_read_body:
            try:
                body, _ = await read_body(request)
            except (ValueError, web.HTTPException) as unreadable:
                problem = f"{request.method} {api_path}: the body is unreadable ({unreadable})"
                self._recorder.contract_violations.append(problem)
                return
        problems = self._contract.violations(request.method, api_path, request.content_type, body)
        for problem in problems:
            _log.error("Discord's API contract broken: %s", problem)
        self._recorder.contract_violations.extend(problems)

    # -- identity ---------------------------------------------------------------------------

    async def get_me(self, request: web.Request) -> web.StreamResponse:
        """GET /users/@me — used by login."""
        return json_response(payloads.ready_user(self._world.bot_user))

    async def get_user(self, request: web.Request) -> web.StreamResponse:
        """GET /users/{id}."""
        user = self._world.users.get(_int(request, "user_id"))
        if user is None:
            return error(404, 10013, "Unknown User")
        return json_response(payloads.user(user))

    async def open_dm(self, request: web.Request) -> web.StreamResponse:
        """POST /users/@me/channels — the bot opens a DM."""
        body, _ = await read_body(request)
        user = self._world.users.get(int(body["recipient_id"]))
        if user is None:
            return error(404, 10013, "Unknown User")
        return json_response(payloads.channel(self._world.dm_channel(user)))

    async def get_application(self, request: web.Request) -> web.StreamResponse:
        """GET /oauth2/applications/@me — used by login."""
        world = self._world
        return json_response(
            payloads.application(
                application_id=world.application_id, name=world.bot_user.name, owner=world.owner
            )
        )

    async def get_gateway(self, request: web.Request) -> web.StreamResponse:
        """GET /gateway and /gateway/bot."""
        return json_response(
            {
                "url": self._gateway_url(),
                "shards": self._shards(),
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 1000,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        )

    # -- application commands -----------------------------------------------------------------

    async def put_commands(self, request: web.Request) -> web.StreamResponse:
        """Bulk overwrite of global or guild commands (what ``CommandTree.sync`` does)."""
        if _int(request, "app_id") != self._world.application_id:
            return error(403, 50001, "Missing Access")
        body, _ = await read_body(request)
        guild_id = int(request.match_info["guild_id"]) if "guild_id" in request.match_info else None
        if guild_id is not None and self._world.guild(guild_id) is None:
            return error(403, 50001, "Missing Access")
        previous = self._stored_commands(guild_id)
        old_ids = {(c["name"], c.get("type", 1)): c["id"] for c in previous}
        stored: list[JSON] = []
        for command in body:
            key = (command["name"], command.get("type", 1))
            stored.append(
                {
                    "description": "",
                    "options": [],
                    "default_member_permissions": None,
                    "nsfw": False,
                    "type": 1,
                    **command,
                    "id": old_ids.get(key) or str(self._world.snowflakes.next()),
                    "application_id": str(self._world.application_id),
                    "version": str(self._world.snowflakes.next()),
                    **({} if guild_id is None else {"guild_id": str(guild_id)}),
                }
            )
        if guild_id is None:
            self._recorder.global_commands = stored
        else:
            self._recorder.guild_commands[guild_id] = stored
        self._recorder.command_syncs += 1
        return json_response(stored)

    async def get_commands(self, request: web.Request) -> web.StreamResponse:
        """GET of global or guild commands."""
        guild_id = int(request.match_info["guild_id"]) if "guild_id" in request.match_info else None
        return json_response(self._stored_commands(guild_id))

    def _stored_commands(self, guild_id: int | None) -> list[JSON]:
        if guild_id is None:
            return self._recorder.global_commands
        return self._recorder.guild_commands.get(guild_id, [])

    # -- interactions ----------------------------------------------------------------------------

    async def callback(self, request: web.Request) -> web.StreamResponse:
        """POST /interactions/{id}/{token}/callback — the bot's first answer to an interaction."""
        record = self._recorder.interactions.get(_int(request, "interaction_id"))
        if record is None or record.token != request.match_info["token"]:
            return error(404, 10062, "Unknown interaction")
        arrived = time.perf_counter()
        body, uploads = await read_body(request)
        if record.response_type is not None:
            return error(400, 40060, "Interaction has already been acknowledged.")
        if self._deadline is not None and arrived - record.sent_clock > self._deadline:
            record.rejected = f"callback arrived {arrived - record.sent_clock:.2f}s after sending"
            return error(404, 10062, "Unknown interaction")
        kind = int(body["type"])
        if kind not in ALLOWED_CALLBACKS.get(record.type, set()):
            return error(400, 50035, f"callback type {kind} is invalid for this interaction")
        if self._answer_refused(record, uploads):
            return error(403, 50013, "Missing Permissions")
        data: JSON = body.get("data") or {}
        source = record.source_message
        if kind == UPDATE_MESSAGE and source is not None and not source.ephemeral:
            refused = await self._thread_refuses(source.channel, creates=False, answering=True)
        elif kind in (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE) and not _ephemeral(data):
            refused = await self._thread_refuses(record.channel, creates=True, answering=True)
        else:
            refused = None
        if refused is not None:
            return refused
        resource: JSON = {"type": kind}
        info: JSON = {"id": str(record.id), "type": record.type}
        if kind == CHANNEL_MESSAGE:
            message = self._messages.create(
                record.channel,
                data,
                uploads,
                interaction=record,
                message_type=20 if record.type == 2 else 0,
                allow_ephemeral=True,
            )
            record.original = self._recorder.add_message(message)
            resource["message"] = message.to_payload()
        elif kind == DEFERRED_CHANNEL_MESSAGE:
            flags = int(data.get("flags") or 0)
            placeholder = self._messages.loading(record.channel, record, flags)
            record.original = self._recorder.add_message(placeholder)
        elif kind == UPDATE_MESSAGE:
            target = record.source_message
            if target is None:
                return error(400, 50035, "UPDATE_MESSAGE needs a message to update")
            self._messages.edit(target, data, uploads)
            resource["message"] = target.to_payload()
        if record.original is not None and kind in (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE):
            info.update(
                response_message_id=str(record.original.id),
                response_message_loading=record.original.loading,
                response_message_ephemeral=record.original.ephemeral,
            )
        record.response_type = kind
        record.response_data = data
        record.answered_at = utc_now()
        record.answered_clock = arrived
        if kind not in (DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE):
            record.shown_clock = arrived
        self._recorder.notify()
        if request.query.get("with_response", "").lower() in ("1", "true"):
            return json_response({"interaction": info, "resource": resource})
        return web.Response(status=204)

    def _webhook_interaction(self, request: web.Request) -> InteractionRecord | None:
        record = self._recorder.interaction_by_token(request.match_info["token"])
        if record is None or _int(request, "app_id") != record.application_id:
            return None
        return record

    async def followup(self, request: web.Request) -> web.StreamResponse:
        """POST /webhooks/{app}/{token} — a followup; the first one after a defer fills it in."""
        record = self._webhook_interaction(request)
        if record is None or record.response_type is None:
            return error(404, 10015, "Unknown Webhook")
        body, uploads = await read_body(request)
        if self._answer_refused(record, uploads):
            return error(403, 50013, "Missing Permissions")
        original = record.original
        if original is not None and original.loading:  # the followup fills it in
            seen_by_all = not original.ephemeral
        else:
            seen_by_all = not _ephemeral(body)
        if seen_by_all and (
            refused := await self._thread_refuses(record.channel, creates=True, answering=True)
        ):
            return refused
        if (
            original is not None
            and original.loading
            and record.response_type == DEFERRED_CHANNEL_MESSAGE
        ):
            self._messages.edit(original, body, uploads)
            message = original
        else:
            message = self._messages.create(
                record.channel, body, uploads, interaction=record, allow_ephemeral=True
            )
            self._recorder.add_message(message)
        record.followups.append(message)
        self._recorder.notify()
        return json_response(message.to_payload())

    async def webhook_message(self, request: web.Request) -> web.StreamResponse:
        """GET/PATCH/DELETE of @original or a followup."""
        record = self._webhook_interaction(request)
        if record is None:
            return error(404, 10015, "Unknown Webhook")
        wanted = request.match_info["message_id"]
        candidates = [] if record.original is None else [record.original]
        candidates += record.followups
        if wanted == "@original":
            message = record.original
        else:
            message = next((m for m in candidates if str(m.id) == wanted), None)
        if message is None or message.deleted:
            return error(404, 10008, "Unknown Message")
        return await self._message_operation(request, message, answering=record)

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

    # -- channels and guilds ---------------------------------------------------------------------

    def _channel(self, request: web.Request) -> FakeChannel:
        """The channel of the request's path: 404 Unknown Channel (10003) if there is none (or
        it was deleted), 403 Missing Access (50001) in a guild the bot was removed from."""
        channel = self._world.channels.get(_int(request, "channel_id"))
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
        unarchived and the bot sent THREAD_UPDATE; a locked one: 50083); and without Manage
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
            if not creates or channel.locked:
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

    async def start_thread(self, request: web.Request) -> web.StreamResponse:
        """POST /channels/{id}/threads and /channels/{id}/messages/{id}/threads."""
        parent = self._channel(request)
        body, _ = await read_body(request)
        starter: StoredMessage | None = None
        if "message_id" in request.match_info:
            starter = self._recorder.messages.get(_int(request, "message_id"))
            if starter is None or starter.deleted or starter.channel is not parent:
                return error(404, 10008, "Unknown Message")
            if starter.thread is not None:
                return error(400, 160004, "A thread has already been created for this message")
        elif int(body.get("type") or PUBLIC_THREAD) != PUBLIC_THREAD:
            return error(400, 50035, "Invalid Form Body")
        if parent.guild is None or parent.is_thread:
            return error(400, 50024, "Cannot execute action on this channel type")
        if not self._bot_may(parent, CREATE_PUBLIC_THREADS):
            return error(403, 50013, "Missing Permissions")
        if self._world.thread_creation_error is not None:
            status, code, message = self._world.thread_creation_error
            return error(status, code, message)
        name = str(body.get("name") or "")
        if not 1 <= len(name) <= 100:
            return error(400, 50035, "Invalid Form Body")
        thread = self._world.add_thread(
            parent,
            name,
            self._world.bot_user,
            thread_id=None if starter is None else starter.id,
        )
        thread.auto_archive_duration = int(body.get("auto_archive_duration") or 1440)
        if starter is not None:
            starter.thread = thread
        data = payloads.thread(thread)
        await self._tell("THREAD_CREATE", {**data, "newly_created": True})
        self._recorder.notify()
        return json_response(data, 201)

    async def patch_channel(self, request: web.Request) -> web.StreamResponse:
        """PATCH /channels/{id}: for a thread, its name, archived and locked flags. Discord lets
        a thread's member unarchive it ("only requires the current user has already been added
        to the thread"); thread membership is not modelled, so the bot may unarchive any
        unlocked thread here (a locked one only if it started it, or has Manage Threads)."""
        channel = self._channel(request)
        body, _ = await read_body(request)
        if not channel.is_thread:
            return error(403, 50013, "Missing Permissions")
        manages = self._bot_may(channel, MANAGE_THREADS)
        if "locked" in body and not manages:
            return error(403, 50013, "Missing Permissions")
        # "If locked is true, then the user must have created the thread or have
        # MANAGE_THREADS" to unarchive it (Discord's Threads topic).
        started = channel.owner_id == self._world.bot_user.id
        if channel.locked and body.get("archived") is False and not (manages or started):
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

    async def get_channel(self, request: web.Request) -> web.StreamResponse:
        """GET /channels/{id}."""
        return json_response(payloads.channel(self._channel(request)))

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
        newest_first = list(reversed(found))[:limit]
        return json_response([m.to_payload() for m in newest_first])

    async def post_message(self, request: web.Request) -> web.StreamResponse:
        """POST /channels/{id}/messages — ``channel.send``."""
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
        message = self._recorder.messages.get(_int(request, "message_id"))
        if (
            message is None
            or message.deleted
            or message.ephemeral
            or message.channel.id != channel.id
        ):
            return error(404, 10008, "Unknown Message")
        return await self._message_operation(request, message)

    async def get_guild(self, request: web.Request) -> web.StreamResponse:
        """GET /guilds/{id}."""
        guild = self._world.guild(_int(request, "guild_id"))
        if guild is None:
            return error(404, 10004, "Unknown Guild")
        return json_response(payloads.guild_object(guild))

    async def get_guild_channels(self, request: web.Request) -> web.StreamResponse:
        """GET /guilds/{id}/channels."""
        guild = self._world.guild(_int(request, "guild_id"))
        if guild is None:
            return error(404, 10004, "Unknown Guild")
        return json_response([payloads.channel(c) for c in guild.channels])

    async def get_member(self, request: web.Request) -> web.StreamResponse:
        """GET /guilds/{id}/members/{user_id}."""
        guild = self._world.guild(_int(request, "guild_id"))
        if guild is None:
            return error(404, 10004, "Unknown Guild")
        member = guild.member(_int(request, "user_id"))
        if member is None:
            return error(404, 10007, "Unknown Member")
        return json_response(payloads.member(member))

    async def attachment(self, request: web.Request) -> web.StreamResponse:
        """The CDN: raw bytes of an uploaded attachment."""
        stored = self._recorder.attachments.get(_int(request, "attachment_id"))
        if stored is None:
            return error(404, 0, "Unknown attachment")
        return web.Response(
            body=stored.data, content_type=stored.content_type or "application/octet-stream"
        )
