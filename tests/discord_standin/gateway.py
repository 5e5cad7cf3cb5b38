"""The gateway websocket: HELLO, heartbeats, IDENTIFY → READY → GUILD_CREATE, RESUME, dispatch.

Sessions as Discord documents them ("Resuming" in its Gateway documentation): every dispatch
belongs to the session that IDENTIFY opened and carries that session's next sequence number
``s``. A connection cut without a close frame (or closed with a code other than 1000/1001)
leaves its session resumable, and the dispatches meant for it meanwhile are kept. A RESUME
with the session's id and the last ``seq`` the client received is answered with every kept
dispatch after that ``seq``, in order, "finishing with a Resumed event to signal event replay
has finished". A session closed with 1000 or 1001 ("your session will be invalidated"), one
the test expires (:meth:`Gateway.drop` with ``resumable=False``: the app "won't reconnect in
time to Resume"), or one resumed after a dispatch it missed is no longer kept (see
:data:`KEPT_DISPATCHES`), is answered INVALID_SESSION (``d: false``): what it missed is lost,
and the client identifies again and is sent the state anew in GUILD_CREATE.

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
from dataclasses import dataclass, field
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


KEPT_DISPATCHES = 1000
"""How many of a session's newest dispatches the stand-in keeps for a RESUME to replay (a test
may lower :attr:`Gateway.kept_dispatches`). Discord keeps a bounded buffer but publishes no
size, only that a client that cannot "reconnect in time to Resume" gets INVALID_SESSION: the
number is the stand-in's choice, large enough that only a test lowering it resumes too late."""

_SENT_IN_OUTAGES = ("GUILD_CREATE", "GUILD_DELETE", "INTERACTION_CREATE")
"""The events of a server in an outage that :meth:`Gateway.dispatch` still sends: "the guild
is unavailable ... until the GUILD_CREATE" (Gateway Events, Guild Delete); the GUILD_CREATE
and a GUILD_DELETE themselves are how its outage ends or the bot leaves it, and an interaction
in one is a test's own doing."""

SESSION_INVALIDATING_CLOSES = (1000, 1001)
"""Close codes from the client that end its session ("When you close the connection to the
gateway with close code 1000 or 1001, your session will be invalidated")."""


@dataclass
class GatewaySession:
    """One session opened by IDENTIFY: its sequence and every dispatch sent or kept for it."""

    id: str
    identify: JSON
    sequence: int = 0
    resumable: bool = True
    connection: GatewayConnection | None = None
    """The connection receiving its dispatches now (None while it is disconnected)."""
    sent: list[tuple[int, str, JSON]] = field(default_factory=list)
    """``(s, event, data)`` of the newest dispatches of the session but its RESUMEDs (at most
    :attr:`Gateway.kept_dispatches`), for a RESUME to replay."""
    forgotten: int = 0
    """The ``s`` of the newest dispatch no longer kept: a RESUME from an older ``seq`` missed
    it and is answered INVALID_SESSION."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held while a dispatch is numbered and sent, and while a RESUME replays: a dispatch
    during the replay follows it, in order."""

    @property
    def shard(self) -> tuple[int, int] | None:
        """``(shard_id, num_shards)`` from IDENTIFY, or None for an unsharded session."""
        shard = self.identify.get("shard")
        if not isinstance(shard, list) or len(shard) != 2:
            return None
        return int(shard[0]), int(shard[1])

    def serves(self, guild_id: int | None) -> bool:
        """Whether Discord sends this session the events of ``guild_id`` (None: no guild)."""
        if self.shard is None:
            return True
        shard_id, count = self.shard
        if guild_id is None:
            return shard_id == 0
        return (guild_id >> 22) % count == shard_id

    @property
    def connected(self) -> bool:
        """Whether a ready connection receives the session's dispatches now."""
        return self.connection is not None and self.connection.ready


class GatewayConnection:
    """One websocket from the bot, with its own zlib stream; its dispatches are numbered by
    the session it identified or resumed."""

    def __init__(
        self, socket: web.WebSocketResponse, *, compress: bool, request: web.Request
    ) -> None:
        self.socket = socket
        self.request = request
        self._compressor = zlib.compressobj() if compress else None
        self._send_lock = asyncio.Lock()
        self.session: GatewaySession | None = None
        """The session this connection identified or resumed (None until then)."""
        self.resuming: GatewaySession | None = None
        """The session this connection asked to resume, while its RESUME waits."""

    @property
    def shard(self) -> tuple[int, int] | None:
        """Its session's ``(shard_id, num_shards)`` (the one it asked to resume, while the
        RESUME waits), or None for an unsharded session (or before it identified or resumed)."""
        session = self.session or self.resuming
        return None if session is None else session.shard

    @property
    def ready(self) -> bool:
        """Whether this connection has identified (or resumed) and can receive dispatches."""
        return self.session is not None and not self.socket.closed

    async def send(
        self, op: int, data: Any, event: str | None = None, seq: int | None = None
    ) -> None:
        """Send one gateway frame (``seq``: a dispatch's sequence number), zlib-stream
        compressed if the client asked for it."""
        async with self._send_lock:
            frame: JSON = {"op": op, "d": data, "s": seq, "t": event}
            text = json.dumps(frame)
            if self._compressor is None:
                await self.socket.send_str(text)
                return
            chunk = self._compressor.compress(text.encode())
            chunk += self._compressor.flush(zlib.Z_SYNC_FLUSH)
            await self.socket.send_bytes(chunk)


class Gateway:
    """Serves /gateway and pushes events to the session (and its connection) of their shard."""

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
        self.sessions: dict[str, GatewaySession] = {}
        """Every session opened by IDENTIFY, oldest first (ended ones are not resumable)."""
        self.identify_count = 0
        self.resume_count = 0
        """RESUMEs answered with a replay (not those answered INVALID_SESSION)."""
        self.kept_dispatches = KEPT_DISPATCHES
        """How many of a session's newest dispatches are kept for a RESUME."""
        self.replayed: list[tuple[int, str]] = []
        """``(s, event)`` of every dispatch a RESUME replayed, in the order sent."""
        self.last_identify: JSON | None = None
        self.refusing_until = 0.0
        """Until this ``time.monotonic()``, new gateway connections are refused (an outage)."""
        self.recommended_shards = 1
        """What GET /gateway/bot recommends (``shards``)."""
        self.resumes_wait: asyncio.Event | None = None
        """While set to an Event that is not set, a RESUME is answered only once it is (a
        slow gateway): a test makes changes while the bot is cut off, knowing it will resume.
        discord.py's AutoShardedClient identifies anew if its RESUME's connection fails, so a
        refused connection (``refuse_for``) loses the session's events instead."""
        self.refusing_shards: dict[int, float] = {}
        """Shards whose IDENTIFY or RESUME is cut off until this ``time.monotonic()`` (an
        outage of their connections alone)."""

    @property
    def current(self) -> GatewayConnection | None:
        """The newest connection that is ready for dispatches."""
        for connection in reversed(self.connections):
            if connection.ready:
                return connection
        return None

    def session_for(self, guild_id: int | None) -> GatewaySession | None:
        """The session that receives ``guild_id``'s events: the newest connected one of its
        shard, else the newest resumable one (disconnected: its dispatches are kept)."""
        serving = [s for s in self.sessions.values() if s.resumable and s.serves(guild_id)]
        for session in reversed(serving):
            if session.connected:
                return session
        return serving[-1] if serving else None

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
            session = connection.session
            if session is not None and session.connection is connection:
                session.connection = None
                if socket.close_code in SESSION_INVALIDATING_CLOSES:
                    session.resumable = False
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
        session = GatewaySession(id=secrets.token_hex(16), identify=data)
        guilds = [guild for guild in self._guilds() if session.serves(guild.id)]
        ready = payloads.ready(
            bot=self._bot,
            application_id=self._application_id,
            session_id=session.id,
            resume_gateway_url=self._resume_url(),
            guilds=guilds,
            shard=data.get("shard"),
        )
        async with session.lock:
            connection.session = session
            session.connection = connection
            self.sessions[session.id] = session
            await self._send(session, "READY", ready)
            for guild in guilds:  # an outage's servers: GUILD_DELETE, as Discord documents
                if guild.unavailable:
                    await self._send(session, "GUILD_DELETE", payloads.guild_unavailable(guild))
                else:
                    await self._send(
                        session, "GUILD_CREATE", payloads.guild_create(guild, me=self._bot)
                    )
        self._on_change()

    async def _resume(self, connection: GatewayConnection, data: JSON) -> None:
        session = self.sessions.get(str(data.get("session_id")))
        if data.get("token") != self._token or session is None or not session.resumable:
            await connection.send(INVALID_SESSION, False)
            return
        if self._cut_if_refusing(connection, (session.shard or (0, 1))[0]):
            return
        connection.resuming = session
        if self.resumes_wait is not None:
            await self.resumes_wait.wait()
        after = data.get("seq") or 0
        async with session.lock:  # nothing is sent, or forgotten, while it is weighed
            if after < session.forgotten:  # too late: a dispatch it missed is no longer kept
                session.resumable = False
            if not session.resumable:  # (or it ended while its RESUME waited)
                await connection.send(INVALID_SESSION, False)
                return
            self.resume_count += 1
            if session.connection is not None and session.connection is not connection:
                transport = session.connection.request.transport
                if transport is not None:  # the session's older connection is superseded
                    transport.abort()
            connection.session = session
            session.connection = connection
            for seq, event, payload in session.sent:
                if seq > after:
                    try:
                        await connection.send(DISPATCH, payload, event, seq)
                    except ConnectionResetError:  # cut mid-replay: the next RESUME replays it
                        session.connection = None
                        return
                    self.replayed.append((seq, event))
            await self._send(session, "RESUMED", {}, replayable=False)
        self._on_change()

    async def _send(
        self, session: GatewaySession, event: str, data: JSON, *, replayable: bool = True
    ) -> None:
        """Number a dispatch in ``session``, keep it for a RESUME (but a RESUMED, which ends
        one replay, not the next; the oldest kept goes once more than ``kept_dispatches`` are)
        and send it if the session is connected (the caller holds ``session.lock``)."""
        session.sequence += 1
        if replayable:
            session.sent.append((session.sequence, event, data))
            while len(session.sent) > self.kept_dispatches:
                session.forgotten = session.sent.pop(0)[0]
        connection = session.connection
        if connection is not None and connection.ready:
            try:
                await connection.send(DISPATCH, data, event, session.sequence)
            except ConnectionResetError:  # cut meanwhile: kept, a RESUME replays it
                session.connection = None

    async def _send_members(self, connection: GatewayConnection, data: JSON) -> None:
        guild_id = int(data["guild_id"])
        wanted = {int(u) for u in data.get("user_ids") or []}
        session = connection.session
        if session is None:
            return
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
            async with session.lock:
                await self._send(session, "GUILD_MEMBERS_CHUNK", chunk)

    async def dispatch(self, event: str, data: JSON) -> None:
        """Send a DISPATCH event to the session of the shard its guild belongs to: at once if
        it is connected, or kept for its RESUME if it is disconnected but resumable. With no
        session to receive it (the bot never identified, or its session ended) it raises
        RuntimeError: Discord sends such state in the next GUILD_CREATE instead. An event of
        a server in an outage (GUILD_DELETE ``unavailable: true``) is not sent at all: Discord
        sends none until its GUILD_CREATE, which carries the server as it is then — save the
        GUILD_CREATE and GUILD_DELETE themselves, and interactions (a test's own doing)."""
        raw = data.get("guild_id")
        if raw is None and event in ("GUILD_CREATE", "GUILD_UPDATE", "GUILD_DELETE"):
            raw = data.get("id")
        guild_id = None if raw is None else int(raw)
        if event not in _SENT_IN_OUTAGES and guild_id in self._unavailable():
            return
        session = self.session_for(guild_id)
        if session is None:
            where = "" if guild_id is None else f" of guild {guild_id}"
            raise RuntimeError(f"cannot dispatch {event}: no bot session serves the shard{where}")
        async with session.lock:
            await self._send(session, event, data)

    def _unavailable(self) -> set[int]:
        """The servers in an outage."""
        return {guild.id for guild in self._guilds() if guild.unavailable}

    async def request_reconnect(self) -> None:
        """Ask the bot to reconnect (op 7), as Discord does during maintenance."""
        connection = self.current
        if connection is None:
            raise RuntimeError("cannot ask for a reconnect: the bot is not connected")
        await connection.send(RECONNECT, None)

    def _cut(self, shard_id: int | None, *, resumable: bool) -> None:
        for connection in list(self.connections):
            if shard_id is not None and (connection.shard or (0, 1))[0] != shard_id:
                continue
            session = connection.session
            if session is not None and session.connection is connection:
                session.connection = None  # what follows is kept for its RESUME
                session.resumable = session.resumable and resumable
            transport = connection.request.transport
            if transport is not None:
                transport.abort()
        if not resumable:
            for session in self.sessions.values():
                if shard_id is None or (session.shard or (0, 1))[0] == shard_id:
                    session.resumable = False
        self._on_change()

    async def drop(self, *, refuse_for: float = 0.0, resumable: bool = True) -> None:
        """Cut every connection as a network failure would (no close frame, so discord.py
        reconnects and resumes) and refuse new ones for ``refuse_for`` seconds. With
        ``resumable=False`` the sessions end too, as when a client does not come back in time:
        its RESUME is answered INVALID_SESSION and what it missed is lost."""
        self.refusing_until = time.monotonic() + refuse_for
        self._cut(None, resumable=resumable)

    async def drop_shard(
        self, shard_id: int, *, refuse_for: float = 0.0, resumable: bool = True
    ) -> None:
        """Cut the connections of shard ``shard_id`` alone as a network failure would, and cut
        its IDENTIFY or RESUME again for ``refuse_for`` seconds (the other shards go on);
        ``resumable=False`` ends its session too, as for :meth:`drop`."""
        self.refusing_shards[shard_id] = time.monotonic() + refuse_for
        self._cut(shard_id, resumable=resumable)

    async def close(self) -> None:
        """Close every open websocket (the bot sees the gateway going away)."""
        for connection in list(self.connections):
            await connection.socket.close(code=1001, message=b"stand-in shutting down")
