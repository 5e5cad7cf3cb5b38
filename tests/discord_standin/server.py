"""DiscordStandin: a local Discord (gateway + REST) that a real discord.py client can log in to.

Point discord.py at it before the client connects::

    discord.http.Route.BASE = standin.api_base                   # http://127.0.0.1:PORT/api/v10
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(standin.gateway_url)

(``with standin.discord_py_pointed_here():`` does both and undoes them.) READY's
``resume_gateway_url`` and GET /gateway/bot also point at 127.0.0.1, so reconnects and resumes
stay local. Build the client with a small ``guild_ready_timeout`` (e.g. ``0.1``): discord.py
waits that long after the last GUILD_CREATE before ``on_ready``, 2 seconds by default.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Any, Self

import discord
import yarl
from aiohttp import web

from .actions import PlayerActions
from .contract import load_contract
from .faults import Matcher, RestFault
from .gateway import Gateway
from .model import FakeChannel, FakeGuild, World
from .recorder import InteractionRecord, Recorder, RestCall, StoredMessage
from .rest import RestApi
from .world_changes import WorldChanges

_log = logging.getLogger(__name__)

JSON = dict[str, Any]


class DiscordStandin(PlayerActions, WorldChanges):
    """A fake Discord on 127.0.0.1 with helpers to play the part of the players.

    Use as ``async with DiscordStandin() as discord_fake:``. Add guilds and members before the
    bot connects (or announce them afterwards), change them as moderators would
    (``world_changes.py``), then drive the bot with :meth:`slash`, :meth:`autocomplete`,
    :meth:`click`, :meth:`select` and :meth:`submit_modal`, and inspect what it posted with
    :meth:`messages` and :attr:`interaction_log`.

    ``interaction_deadline`` is Discord's 3 seconds: a callback arriving later is refused with
    "Unknown interaction" (10062), as Discord does. Pass None to switch the check off.

    Every request is checked against Discord's published OpenAPI contract when its file is
    present (``contract.py``); :attr:`contract_violations` lists what broke it.
    """

    def __init__(
        self,
        *,
        bot_name: str = "Brandubh",
        token: str | None = None,
        interaction_deadline: float | None = 3.0,
        check_contract: bool = True,
    ) -> None:
        self.token = token or f"standin.{secrets.token_urlsafe(24)}"
        self.world = World(bot_name=bot_name)
        self.recorder = Recorder()
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self.gateway = Gateway(
            token=self.token,
            bot=self.world.bot_user,
            application_id=self.world.application_id,
            guilds=lambda: list(self.world.guilds),
            resume_url=lambda: self.gateway_url,
            on_change=self.recorder.notify,
        )
        self._rest = RestApi(
            world=self.world,
            recorder=self.recorder,
            token=self.token,
            base_url=lambda: self.base_url,
            gateway_url=lambda: self.gateway_url,
            interaction_deadline=interaction_deadline,
            dispatch=self.gateway.dispatch,
            shards=lambda: self.gateway.recommended_shards,
            contract=load_contract() if check_contract else None,
        )

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self) -> Self:
        """Listen on 127.0.0.1 on a free port."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self.gateway.handle)
        self._rest.add_routes(app)
        self._runner = web.AppRunner(
            app, handle_signals=False, access_log=None, shutdown_timeout=1.0
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._port = int(self._runner.addresses[0][1])
        _log.info("Discord stand-in listening on %s", self.base_url)
        return self

    async def close(self) -> None:
        """Close the gateway sockets and stop listening."""
        if self._runner is None:
            return
        await self.gateway.close()
        await self._runner.cleanup()
        self._runner = None

    async def __aenter__(self) -> Self:
        return await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        if self._port is None:
            raise RuntimeError("the stand-in is not started")
        return f"http://127.0.0.1:{self._port}"

    @property
    def api_base(self) -> str:
        """Value for ``discord.http.Route.BASE`` (and the ``DISCORD_API_BASE`` variable)."""
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        """Value for ``DiscordWebSocket.DEFAULT_GATEWAY`` (and ``DISCORD_GATEWAY_URL``)."""
        return f"ws://127.0.0.1:{self._port}/gateway"

    @property
    def env(self) -> dict[str, str]:
        """Environment variables the bot reads to find the stand-in."""
        return {
            "DISCORD_API_BASE": self.api_base,
            "DISCORD_GATEWAY_URL": self.gateway_url,
            "DISCORD_TOKEN": self.token,
        }

    @contextlib.contextmanager
    def discord_py_pointed_here(self) -> Iterator[None]:
        """Point discord.py's REST base and gateway at the stand-in; restore them afterwards."""
        old_base = discord.http.Route.BASE
        old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
        discord.http.Route.BASE = self.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        try:
            yield
        finally:
            discord.http.Route.BASE = old_base
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

    # -- Discord having a bad day -----------------------------------------------------------

    def fail_rest(
        self,
        status: int = 500,
        *,
        seconds: float,
        matching: Matcher | None = None,
        code: int = 0,
    ) -> RestFault:
        """Answer REST requests (those ``matching(method, path)``) with ``status`` (and the JSON
        error ``code``) for a while."""
        fault = RestFault(status, time.monotonic() + seconds, None, matching, code=code)
        return self._rest.faults.add(fault)

    def lose_answers(
        self, status: int = 502, *, requests: int = 1, matching: Matcher | None = None
    ) -> RestFault:
        """Let the next ``requests`` REST requests (those ``matching``) take effect, then answer
        ``status`` as if the answer was lost on the way back: a client that tries again would
        do the same thing twice unless Discord can tell (a message's ``enforce_nonce``)."""
        fault = RestFault(status, None, requests, matching, landed=True)
        return self._rest.faults.add(fault)

    def rate_limit(
        self,
        *,
        retry_after: float,
        requests: int = 1,
        matching: Matcher | None = None,
        is_global: bool = False,
    ) -> RestFault:
        """Answer the next ``requests`` REST requests with 429 and ``retry_after`` seconds."""
        fault = RestFault(429, None, requests, matching, retry_after, is_global)
        return self._rest.faults.add(fault)

    def end_faults(self) -> None:
        """End every REST fault window now (Discord recovered)."""
        self._rest.faults.clear()

    async def drop_gateway(self, *, refuse_for: float = 0.0, resumable: bool = True) -> None:
        """Cut the gateway connections without a close frame; refuse new ones for a while.

        Events meanwhile are kept and replayed when the bot resumes; with ``resumable=False``
        the sessions end (the bot came back too late): its RESUME is answered INVALID_SESSION,
        it identifies again, and what it missed is lost but for the state GUILD_CREATE
        carries. ``refuse_for=math.inf`` refuses them until :meth:`reopen_gateway`: a test
        that must act while the bot is cut off is not raced by the end of a fixed window."""
        await self.gateway.drop(refuse_for=refuse_for, resumable=resumable)

    async def drop_shard(
        self, shard_id: int, *, refuse_for: float = 0.0, resumable: bool = True
    ) -> None:
        """Cut shard ``shard_id``'s gateway connection alone; cut its reconnections for a
        while (the bot's other shards stay connected). Its events meanwhile are replayed on
        its RESUME, unless ``resumable=False`` ends its session (see :meth:`drop_gateway`)."""
        await self.gateway.drop_shard(shard_id, refuse_for=refuse_for, resumable=resumable)

    def reopen_gateway(self) -> None:
        """End the refusals of :meth:`drop_gateway` and :meth:`drop_shard` now: the bot's next
        try to connect is taken (discord.py waits a random, growing time between tries)."""
        self.gateway.refusing_until = 0.0
        self.gateway.refusing_shards.clear()

    @property
    def contract_violations(self) -> list[str]:
        """Requests that broke Discord's published API contract, one readable line each."""
        return self.recorder.contract_violations

    # -- waiting ----------------------------------------------------------------------------------

    async def wait_until(
        self, condition: Callable[[], bool], *, timeout: float = 15.0, waiting_for: str = "it"
    ) -> None:
        """Wait until ``condition()`` is true (re-checked whenever the bot does something)."""
        await self.recorder.wait_until(condition, timeout=timeout, waiting_for=waiting_for)

    @property
    def connected(self) -> bool:
        """Whether a bot is identified (or resumed) on the gateway right now."""
        return self.gateway.current is not None

    async def wait_shards_ready(self, *shard_ids: int, timeout: float = 10.0) -> None:
        """Wait until a connection of each of ``shard_ids`` has identified (or resumed)."""
        await self.wait_until(
            lambda: set(shard_ids) <= self.gateway.ready_shards(),
            timeout=timeout,
            waiting_for=f"shards {sorted(shard_ids)} to identify",
        )

    async def wait_ready(self, *, timeout: float = 10.0) -> None:
        """Wait until the bot has identified and been sent READY and every GUILD_CREATE."""
        await self.wait_until(
            lambda: self.connected, timeout=timeout, waiting_for="the bot to identify"
        )

    def synced_commands(self, guild: FakeGuild | None = None) -> list[JSON]:
        """The commands the bot last synced globally, or to ``guild``."""
        if guild is None:
            return list(self.recorder.global_commands)
        return list(self.recorder.guild_commands.get(guild.id, []))

    async def wait_synced(
        self, *names: str, guild: FakeGuild | None = None, timeout: float = 10.0
    ) -> list[JSON]:
        """Wait until the bot has synced commands (all of ``names``, if given) and return them."""

        def synced() -> bool:
            if guild is None and not self.recorder.command_syncs:
                return False
            if guild is not None and guild.id not in self.recorder.guild_commands:
                return False
            have = {c["name"] for c in self.synced_commands(guild)}
            return set(names) <= have

        scope = "globally" if guild is None else f"to {guild.name}"
        await self.wait_until(
            synced, timeout=timeout, waiting_for=f"commands {list(names)} synced {scope}"
        )
        return self.synced_commands(guild)

    async def wait_for_message(
        self,
        channel: FakeChannel,
        predicate: Callable[[StoredMessage], bool] | None = None,
        *,
        timeout: float = 15.0,
    ) -> StoredMessage:
        """Wait for a message in ``channel`` (matching ``predicate``) and return the newest."""

        def matches() -> list[StoredMessage]:
            found = self.messages(channel)
            return [m for m in found if predicate is None or predicate(m)]

        await self.wait_until(
            lambda: bool(matches()), timeout=timeout, waiting_for=f"a message in #{channel.name}"
        )
        return matches()[-1]

    # -- what the bot did ----------------------------------------------------------------------

    def messages(
        self, channel: FakeChannel, *, include_deleted: bool = False
    ) -> list[StoredMessage]:
        """Everything the bot posted in a channel (ephemeral answers too), oldest first."""
        return self.recorder.messages_in(channel, include_deleted=include_deleted)

    @property
    def interaction_log(self) -> list[InteractionRecord]:
        """Every interaction sent, with send/answer times and the bot's answers."""
        return self.recorder.interaction_log

    @property
    def unknown_requests(self) -> list[str]:
        """REST requests the stand-in had no route for (answered 404)."""
        return self.recorder.unknown_requests

    @property
    def rest_log(self) -> list[RestCall]:
        """Every REST request the bot made."""
        return self.recorder.rest_log
