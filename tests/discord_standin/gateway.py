"""The gateway websocket: HELLO, heartbeats, IDENTIFY → READY → GUILD_CREATE, RESUME, dispatch.

Sharding as Discord documents it: IDENTIFY may carry ``shard: [shard_id, num_shards]``; that
connection then receives only the guilds with ``(guild_id >> 22) % num_shards == shard_id``
(in READY, as GUILD_CREATE, and every guild event and interaction after), and events without a
guild (DMs) go to shard 0. An invalid shard is closed with 4010, as Discord does.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
import zlib
from collections.abc import Callable
from typing import Any

from aiohttp import WSMsgType, web

from . import payloads
from .model import FakeGuild, FakeUser

_log = logging.getLogger(__name__)

JSON = dict[str, Any]

DISPATCH = 0
HEARTBEAT = 1
IDENTIFY = 2
PRESENCE_UPDATE = 3
RESUME = 6
RECONNECT = 7
REQUEST_GUILD_MEMBERS = 8
INVALID_SESSION = 9
HELLO = 10
HEARTBEAT_ACK = 11

AUTHENTICATION_FAILED = 4004
INVALID_SHARD = 4010
HEARTBEAT_INTERVAL_MS = 41_250


class GatewayConnection:
    """One websocket from the bot, with its own zlib stream and sequence number."""

    def __init__(
        self, socket: web.WebSocketResponse, *, compress: bool, request: web.Request
    ) -> None:
        self.socket = socket
        self.request = request
        self._compressor = zlib.compressobj() if compress else None
        self._send_lock = asyncio.Lock()
        self.sequence = 0
        self.session_id: str | None = None
        self.identify: JSON | None = None

    @property
    def shard(self) -> tuple[int, int] | None:
        """``(shard_id, num_shards)`` from IDENTIFY, or None for an unsharded connection."""
        shard = (self.identify or {}).get("shard")
        if not isinstance(shard, list) or len(shard) != 2:
            return None
        return int(shard[0]), int(shard[1])

    def serves(self, guild_id: int | None) -> bool:
        """Whether Discord sends this connection the events of ``guild_id`` (None: no guild)."""
        shard = self.shard
        if shard is None:
            return True
        shard_id, count = shard
        if guild_id is None:
            return shard_id == 0
        return (guild_id >> 22) % count == shard_id

    @property
    def ready(self) -> bool:
        """Whether this connection has identified (or resumed) and can receive dispatches."""
        return self.session_id is not None and not self.socket.closed

    async def send(self, op: int, data: Any, event: str | None = None) -> None:
        """Send one gateway frame, zlib-stream compressed if the client asked for it."""
        async with self._send_lock:
            frame: JSON = {"op": op, "d": data, "s": None, "t": event}
            if op == DISPATCH:
                self.sequence += 1
                frame["s"] = self.sequence
            text = json.dumps(frame)
            if self._compressor is None:
                await self.socket.send_str(text)
                return
            chunk = self._compressor.compress(text.encode())
            chunk += self._compressor.flush(zlib.Z_SYNC_FLUSH)
            await self.socket.send_bytes(chunk)


class Gateway:
    """Serves /gateway and pushes events to whichever connection is currently identified."""

    def __init__(
        self,
        *,
        token: str,
        bot: FakeUser,
        application_id: int,
        guilds: Callable[[], list[FakeGuild]],
        resume_url: Callable[[], str],
        on_change: Callable[[], None],
    ) -> None:
        self._token = token
        self._bot = bot
        self._application_id = application_id
        self._guilds = guilds
        self._resume_url = resume_url
        self._on_change = on_change
        self.connections: list[GatewayConnection] = []
        self.sessions: dict[str, int] = {}
        self.identify_count = 0
        self.resume_count = 0
        self.last_identify: JSON | None = None
        self.refusing_until = 0.0
        """Until this ``time.monotonic()``, new gateway connections are refused (an outage)."""
        self.recommended_shards = 1
        """What GET /gateway/bot recommends (``shards``)."""
        self.refusing_shards: dict[int, float] = {}
        """Shards whose IDENTIFY or RESUME is cut off until this ``time.monotonic()`` (an
        outage of their connections alone)."""
        self._session_identify: dict[str, JSON] = {}
        """The IDENTIFY of each session: a RESUME does not name its shard, but is the same."""

    @property
    def current(self) -> GatewayConnection | None:
        """The newest connection that is ready for dispatches."""
        for connection in reversed(self.connections):
            if connection.ready:
                return connection
        return None

    def connection_for(self, guild_id: int | None) -> GatewayConnection | None:
        """The newest ready connection whose shard receives ``guild_id``'s events."""
        for connection in reversed(self.connections):
            if connection.ready and connection.serves(guild_id):
                return connection
        return None

    def ready_shards(self) -> set[int]:
        """The shard ids with a ready connection (0 for an unsharded one)."""
        return {
            (connection.shard or (0, 1))[0] for connection in self.connections if connection.ready
        }

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        """aiohttp handler for the gateway websocket."""
        compression = request.query.get("compress")
        if compression not in (None, "zlib-stream"):
            raise web.HTTPBadRequest(text=f"stand-in only speaks zlib-stream, not {compression}")
        if time.monotonic() < self.refusing_until:
            raise web.HTTPServiceUnavailable(text="the gateway is down (stand-in outage)")
        if request.query.get("encoding", "json") != "json":
            raise web.HTTPBadRequest(text="stand-in only speaks JSON encoding")
        socket = web.WebSocketResponse(max_msg_size=0)
        await socket.prepare(request)
        connection = GatewayConnection(
            socket, compress=compression == "zlib-stream", request=request
        )
        self.connections.append(connection)
        try:
            await connection.send(HELLO, {"heartbeat_interval": HEARTBEAT_INTERVAL_MS})
            async for message in socket:
                if message.type is WSMsgType.TEXT:
                    await self._received(connection, json.loads(message.data))
                elif message.type is WSMsgType.ERROR:
                    _log.warning("gateway socket error: %s", socket.exception())
        finally:
            self.connections.remove(connection)
            self._on_change()
        return socket

    async def _received(self, connection: GatewayConnection, frame: JSON) -> None:
        op = frame.get("op")
        data = frame.get("d")
        fields: JSON = data if isinstance(data, dict) else {}
        if op == HEARTBEAT:
            await connection.send(HEARTBEAT_ACK, None)
        elif op == IDENTIFY:
            await self._identify(connection, fields)
        elif op == RESUME:
            await self._resume(connection, fields)
        elif op == REQUEST_GUILD_MEMBERS:
            await self._send_members(connection, fields)
        elif op == PRESENCE_UPDATE:
            _log.debug("bot presence update: %s", data)
        else:
            _log.warning("stand-in gateway ignored op %s: %s", op, data)

    def _cut_if_refusing(self, connection: GatewayConnection, shard_id: int) -> bool:
        """Cut ``connection`` (no close frame) if ``shard_id``'s connections are refused now."""
        if time.monotonic() >= self.refusing_shards.get(shard_id, 0.0):
            return False
        transport = connection.request.transport
        if transport is not None:
            transport.abort()
        return True

    async def _identify(self, connection: GatewayConnection, data: JSON) -> None:
        if data.get("token") != self._token:
            await connection.socket.close(
                code=AUTHENTICATION_FAILED, message=b"Authentication failed."
            )
            return
        shard = data.get("shard")
        if shard is not None and not (
            isinstance(shard, list)
            and len(shard) == 2
            and all(isinstance(part, int) for part in shard)
            and 0 <= shard[0] < shard[1]
        ):
            await connection.socket.close(code=INVALID_SHARD, message=b"Invalid shard.")
            return
        if self._cut_if_refusing(connection, shard[0] if isinstance(shard, list) else 0):
            return
        self.identify_count += 1
        self.last_identify = data
        session_id = secrets.token_hex(16)
        connection.identify = data
        guilds = [guild for guild in self._guilds() if connection.serves(guild.id)]
        ready = payloads.ready(
            bot=self._bot,
            application_id=self._application_id,
            session_id=session_id,
            resume_gateway_url=self._resume_url(),
            guilds=guilds,
            shard=data.get("shard"),
        )
        await connection.send(DISPATCH, ready, "READY")
        for guild in guilds:
            await connection.send(DISPATCH, payloads.guild_create(guild), "GUILD_CREATE")
        connection.session_id = session_id
        self.sessions[session_id] = connection.sequence
        self._session_identify[session_id] = data
        self._on_change()

    async def _resume(self, connection: GatewayConnection, data: JSON) -> None:
        session_id = data.get("session_id")
        if data.get("token") != self._token or session_id not in self.sessions:
            await connection.send(INVALID_SESSION, False)
            return
        connection.identify = self._session_identify.get(str(session_id))
        if self._cut_if_refusing(connection, (connection.shard or (0, 1))[0]):
            return
        self.resume_count += 1
        connection.sequence = max(self.sessions[session_id], data.get("seq") or 0)
        await connection.send(DISPATCH, {}, "RESUMED")
        connection.session_id = session_id
        self._on_change()

    async def _send_members(self, connection: GatewayConnection, data: JSON) -> None:
        guild_id = int(data["guild_id"])
        wanted = {int(u) for u in data.get("user_ids") or []}
        for guild in self._guilds():
            if guild.id != guild_id:
                continue
            members = [m for m in guild.members if not wanted or m.id in wanted]
            chunk: JSON = {
                "guild_id": str(guild_id),
                "members": [payloads.member(m) for m in members],
                "chunk_index": 0,
                "chunk_count": 1,
                "presences": [],
            }
            if "nonce" in data:
                chunk["nonce"] = data["nonce"]
            await connection.send(DISPATCH, chunk, "GUILD_MEMBERS_CHUNK")

    async def dispatch(self, event: str, data: JSON) -> None:
        """Send a DISPATCH event to the connection of the shard its guild belongs to."""
        raw = data.get("guild_id")
        if raw is None and event in ("GUILD_CREATE", "GUILD_UPDATE", "GUILD_DELETE"):
            raw = data.get("id")
        guild_id = None if raw is None else int(raw)
        connection = self.connection_for(guild_id)
        if connection is None:
            where = "" if guild_id is None else f" of guild {guild_id}"
            raise RuntimeError(
                f"cannot dispatch {event}: no bot connection serves the shard{where}"
            )
        await connection.send(DISPATCH, data, event)
        if connection.session_id is not None:
            self.sessions[connection.session_id] = connection.sequence

    async def request_reconnect(self) -> None:
        """Ask the bot to reconnect (op 7), as Discord does during maintenance."""
        connection = self.current
        if connection is None:
            raise RuntimeError("cannot ask for a reconnect: the bot is not connected")
        await connection.send(RECONNECT, None)

    async def drop(self, *, refuse_for: float = 0.0) -> None:
        """Cut every connection as a network failure would (no close frame, so discord.py
        reconnects and resumes) and refuse new ones for ``refuse_for`` seconds."""
        self.refusing_until = time.monotonic() + refuse_for
        for connection in list(self.connections):
            transport = connection.request.transport
            if transport is not None:
                transport.abort()
        self._on_change()

    async def drop_shard(self, shard_id: int, *, refuse_for: float = 0.0) -> None:
        """Cut the connections of shard ``shard_id`` alone as a network failure would, and cut
        its IDENTIFY or RESUME again for ``refuse_for`` seconds (the other shards go on)."""
        self.refusing_shards[shard_id] = time.monotonic() + refuse_for
        for connection in list(self.connections):
            if (connection.shard or (0, 1))[0] == shard_id:
                transport = connection.request.transport
                if transport is not None:
                    transport.abort()
        self._on_change()

    async def close(self) -> None:
        """Close every open websocket (the bot sees the gateway going away)."""
        for connection in list(self.connections):
            await connection.socket.close(code=1001, message=b"stand-in shutting down")
