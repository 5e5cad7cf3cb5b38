"""The REST half of the stand-in: every route, the recording and authorising middleware,
Discord's API contract checked on each request, login and command sync. The routes for
interactions, messages and channels live in modules of their own."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from . import payloads
from .messages import REQUEST_TOO_LARGE, MessageRejected, read_body, validate_commands
from .model import utc_now
from .recorder import RestCall
from .rest_channels import ChannelRoutes
from .rest_interactions import InteractionRoutes
from .rest_messages import MessageRoutes
from .rest_routes import JSON, MISSING_ACCESS, error, json_response, path_int

_log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

API = "/api/v{version:\\d+}"
API_PREFIX = re.compile(r"^/api/v\d+")


class RestApi(InteractionRoutes, MessageRoutes, ChannelRoutes):
    """aiohttp handlers for every REST route the stand-in understands."""

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
            ("PUT", "/channels/{channel_id}/thread-members/@me", self.join_thread),
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
                response = error(status, rejected.code, rejected.message, rejected.errors)
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
        user = self._world.users.get(path_int(request, "user_id"))
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
        if path_int(request, "app_id") != self._world.application_id:
            return error(403, 50001, "Missing Access")
        body, _ = await read_body(request)
        guild_id = int(request.match_info["guild_id"]) if "guild_id" in request.match_info else None
        if guild_id is not None and self._world.guild(guild_id) is None:
            return error(403, 50001, "Missing Access")
        validate_commands(body)
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
