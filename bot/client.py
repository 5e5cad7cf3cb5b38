"""The bot: a ``commands.Bot`` that opens the services, registers cogs and buttons, and syncs."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import errors, sync
from bot.ai_pool import AIPool, ComputerOpponent
from bot.ai_queue import QueuedComputer
from bot.alike_names import NamesToldApart, alike, read_apart, told_apart
from bot.channel_waits import ChannelWaits, global_limit_trace
from bot.config import Settings
from bot.flow import GameFlow
from bot.flow.analysis import AnalysisFlow
from bot.flow.puzzles import PuzzleFlow
from bot.i18n import mentions
from bot.i18n.audience import reader
from bot.i18n.commands import CatalogTranslator
from bot.name_cache import NameCache
from bot.names import account_name, shown_name
from bot.services import Services
from bot.services.clock import Clock, utc_now
from bot.storage import backups
from bot.storage.errors import StorageError
from bot.thread_locks import LocksSeen
from bot.timers import Timers
from bot.unreachable import UNREACHABLE
from bot.views import DYNAMIC_ITEMS
from bot.views.common import locked_by_discords_word, within_deadline

_log = logging.getLogger(__name__)

FIRST_BACKUP = timedelta(minutes=10)
"""When the first backup is taken after starting with none (later ones follow the interval)."""

LONGEST_RATE_LIMIT_WAIT = timedelta(seconds=30)
"""The longest 429 ``retry_after`` a request waits out before trying again (the least
discord.py takes); a longer one is tried again at a later check, or by the outbox."""

REMEMBER_WAIT = 0.25
"""Seconds an answer waits for a member's name to be stored before going on without it."""

_INTERACTION_TASKS = ("CommandTree-invoker", "discord-ui-")
"""Names discord.py gives the tasks running slash commands and component callbacks."""


COGS = (
    "bot.cogs.challenge",
    "bot.cogs.play",
    "bot.cogs.lobby",
    "bot.cogs.info",
    "bot.cogs.standings",
    "bot.cogs.admin",
    "bot.cogs.learn",
    "bot.cogs.server_changes",
)


def _custom_ids(components: Sequence[Any]) -> set[str]:
    """Every ``custom_id`` in a message's components (rows, buttons, selects, containers)."""
    found: set[str] = set()
    for component in components:
        custom_id = getattr(component, "custom_id", None)
        if custom_id:
            found.add(str(custom_id))
        found |= _custom_ids(getattr(component, "children", []))
    return found


class BrandubhBot(commands.AutoShardedBot):
    """Brandubh for Discord. ``services`` and ``ai`` exist once ``setup_hook`` has run.

    An ``AutoShardedBot``: it runs the shards the settings name (DISCORD_SHARD_COUNT and
    DISCORD_SHARD_IDS), or as many as Discord recommends, each its own gateway connection.
    """

    services: Services
    ai: ComputerOpponent
    """Where the computer opponent's moves come from (this process or the worker queue)."""
    engine: AIPool
    """This process's engine workers, for the analyses and puzzles it answers itself."""

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Clock = utc_now,
        monotonic: Callable[[], float] = time.monotonic,
        services: Services | None = None,
    ) -> None:
        # Only guild events: everything else arrives with the interactions themselves.
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            guild_ready_timeout=settings.guild_ready_timeout,
            shard_count=settings.shard_count,
            # None (every shard) is discord.py's default, though its annotation only says list.
            shard_ids=list(settings.shard_ids) if settings.shard_ids else None,  # type: ignore[arg-type]
            # Nobody is pinged unless a message names whom it may ping (the player to move, the
            # challenged member): a display name like "<@someone>" can never ping through us.
            allowed_mentions=discord.AllowedMentions.none(),
            # Commands for the servers that installed me only: an owner who turns on User
            # Install in the Developer Portal would otherwise offer every command, by default,
            # as a member's own app in servers I am not in, where I can neither post nor see.
            allowed_installs=app_commands.AppInstallationType(guild=True, user=False),
            # A request Discord asks to wait longer for raises RateLimited (an outage to the
            # flow: bot/unreachable.py) rather than sleeping: the timers' check posts one thing
            # after another, and one channel's ten-minute wait would hold every game's clock.
            max_ratelimit_timeout=LONGEST_RATE_LIMIT_WAIT.total_seconds(),
            # Which long 429 was Discord's global limit, not one channel's (bot/channel_waits).
            http_trace=global_limit_trace(),
        )
        self.settings = settings
        self.clock = clock
        """The current time (tests pass a clock they can move forward)."""
        self.monotonic = monotonic
        """The clock (seconds) that ages what the services keep in memory, such as a server's
        settings, and Discord's word that a thread is locked (tests pass one they can move
        forward)."""
        self.channel_waits = ChannelWaits(clock)
        """Discord's long waits in each channel, kept by every post and edit there."""
        self.channel_waits.guard(self.http)
        self.flow = GameFlow(self)
        """The game's flow: moves, the computer's turns, set ends, and what is posted."""
        self.analysis = AnalysisFlow(self)
        """/analyse: the engine's review of a finished set."""
        self.puzzles = PuzzleFlow(self)
        """/puzzle and the daily puzzle."""
        self.locks_seen = LocksSeen(monotonic)
        """Threads Discord just showed locked, not asked about again for a few seconds."""
        self._background: set[asyncio.Task[Any]] = set()
        self._stored = NameCache()
        """The names this process stored, by (server, user); server None: the account's own.
        One forgotten (the cache is full) is only stored again when its member next shows up."""
        self._usernames = NameCache()
        """The usernames this process stored, by (None, user): a username is the account's."""
        self._names = NameCache()
        """Names as shown in each server (None: outside any), by (server, user): those stored,
        and those looked up. A server's names are stored and read by the process that runs its
        shard (its interactions and timers), so they stay current with several processes. One
        forgotten (the cache is full) is read again from the database when next shown."""
        self._closing: asyncio.Future[None] | None = None
        if services is not None:
            self.services = services  # opened (and checked) before connecting to Discord

    async def setup_hook(self) -> None:
        """Open the database, start the pool and timers, register buttons and commands."""
        if getattr(self, "services", None) is None:
            self.services = await Services.open(
                self.settings.database,
                clock=self.clock,
                shards=self.settings.shards,
                monotonic=self.monotonic,
            )
        if self.user is not None:  # records and stats name the computer by the bot's name
            await self.services.players.remember(
                self.user.id, self.user.name, username=self.user.name
            )
        # Before any /analyse: a claim this process's earlier run died with refuses nobody.
        dropped = await self.services.analyses.drop_dead_claims()
        if dropped:
            _log.info("Dropped %d analysis claim(s) an earlier run left", dropped)
        self.engine = AIPool(
            workers=self.settings.ai_workers,
            time_per_move=self.settings.ai_time,
            nodes=self.settings.ai_nodes,
        )
        self.ai = await self._computer_opponent()
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        for cog in COGS:
            await self.load_extension(cog)
        errors.install(self.tree)
        await self.tree.set_translator(CatalogTranslator())
        assert self.application_id is not None
        if self.settings.shards.runs_first:  # one process syncs the commands, not each
            await sync.sync_if_changed(
                self.tree,
                application_id=self.application_id,
                guild_ids=self.settings.guild_ids,
                state_file=sync.state_file_for(self.settings.db_path),
            )
        await self._learn_command_ids()
        self.timers = Timers(self)
        await self.timers.resume_clocks()  # before any interaction can meet a clock
        self.timers.start()
        # PostgreSQL is backed up by its own tools (pg_dump, replicas): see the README.
        if self.settings.backup_interval is not None and self.settings.database_url is None:
            self.spawn(self._take_backups(self.settings.backup_interval), name="backups")

    async def _learn_command_ids(self) -> None:
        """Read the global commands' ids, so that messages mention the commands they name
        (:mod:`bot.i18n.mentions`). Commands synced to development guilds have an id per guild:
        those messages name them as text, as they do if Discord cannot be asked."""
        if self.settings.guild_ids:
            mentions.learn({})
            return
        try:
            fetched = await self.tree.fetch_commands()
        except (discord.HTTPException, *UNREACHABLE) as error:  # a long rate limit too
            _log.warning("Could not read the commands' ids (%s): messages name them as text", error)
            mentions.learn({})
            return
        roots = {
            command.name: command.id
            for command in fetched
            if command.type is discord.AppCommandType.chat_input
        }
        mentions.learn(
            {
                command.qualified_name: roots[command.qualified_name.split()[0]]
                for command in self.tree.walk_commands()
                if isinstance(command, app_commands.Command)
                and command.qualified_name.split()[0] in roots
            }
        )

    async def _computer_opponent(self) -> ComputerOpponent:
        """On PostgreSQL the computer's moves are jobs for ``python -m bot.ai_worker`` processes
        (any machine); on SQLite a pool of this process's own worker processes."""
        if self.settings.database_url is None:
            return self.engine  # one pool: moves and analyses take its workers in turn
        queued = QueuedComputer(
            self.settings.database_url,
            time_per_move=self.settings.ai_time,
            nodes=self.settings.ai_nodes,
        )
        await queued.start()
        return queued

    async def _take_backups(self, interval: timedelta) -> None:
        """A backup every ``interval`` (the first FIRST_BACKUP after a start without any)."""
        db_path = self.settings.db_path
        while True:
            taken = backups.backups(db_path)
            if taken:
                due = backups.taken_at(taken[-1]) + interval
            else:
                due = datetime.now(UTC) + min(interval, FIRST_BACKUP)
            await asyncio.sleep(max(0.0, (due - datetime.now(UTC)).total_seconds()))
            try:
                made = await asyncio.to_thread(backups.take_backup, db_path, datetime.now(UTC))
            except (sqlite3.Error, OSError) as error:
                _log.warning("Could not back up %s: %s; trying again later", db_path, error)
                await asyncio.sleep(min(interval, FIRST_BACKUP).total_seconds())
            else:
                _log.info("Backed up the database to %s", made)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Note when ``interaction`` reached me (:func:`errors.reached`); answer a button or
        select that nothing here handles (a forged or long-gone id)."""
        errors.reached(interaction)
        if interaction.type is not discord.InteractionType.component:
            return
        data: Any = interaction.data or {}
        custom_id = str(data.get("custom_id", ""))
        if self._handles_component(int(data.get("component_type", 0)), custom_id, interaction):
            return
        _log.warning("Unknown component id %r from user %s", custom_id[:100], interaction.user.id)
        with contextlib.suppress(discord.HTTPException):
            await interaction.response.send_message(
                reader(interaction).render(errors.UNKNOWN_BUTTON), ephemeral=True
            )

    def _handles_component(
        self, component_type: int, custom_id: str, interaction: discord.Interaction[Any]
    ) -> bool:
        """Whether discord.py's view store dispatches this component to one of our items
        (the same lookups as its ``dispatch_view``: dynamic templates, then views by message)."""
        store = self._connection._view_store
        on_message = interaction.message is not None and custom_id in _custom_ids(
            interaction.message.components
        )
        if on_message and any(t.fullmatch(custom_id) for t in store._dynamic_items):
            return True
        key = (component_type, custom_id)
        message_id = interaction.message.id if interaction.message is not None else None
        return key in store._views.get(message_id, {}) or key in store._views.get(None, {})

    async def came(self, interaction: discord.Interaction[Any]) -> None:
        """A command or press (``interaction``) came: if it is from a player shut out of its
        channel, whose clock is held, they can play after all, and their time is given back
        before it goes on (bot/player_holds.py ``came``). That is a write, which a slow
        database makes wait: deferred in time (:func:`within_deadline`), a command privately
        (its answer, if public, is then posted apart), a press without a message (its message
        is then edited, or a followup sent). An autocomplete, which cannot be deferred, does
        not give the time back: the command it completes does."""
        if interaction.type is discord.InteractionType.autocomplete:
            return
        came = self.timers.holds.came(interaction.channel_id, interaction.user.id)
        await within_deadline(interaction, came, ephemeral=True, thinking=False)

    async def locked_for_me(self, interaction: discord.Interaction[Any]) -> bool:
        """Whether ``interaction`` came from a thread locked for me, on Discord's word, asked
        in time (bot/views/common.py ``locked_by_discords_word``)."""
        return await locked_by_discords_word(interaction)

    async def remember(self, user: discord.abc.User) -> None:
        """Keep ``user``'s names (for boards and the leaderboard): their account's own name
        and, for a member of a server, their display name in that server (a nickname there is
        shown there only).

        The names are stored by a write that may wait for a busy database: an answer waits for
        it at most REMEMBER_WAIT seconds, then it goes on in the background.
        """
        account = account_name(user, self.user)
        guild_id = user.guild.id if isinstance(user, discord.Member) else None
        member_name = shown_name(user, self.user) if guild_id is not None else None
        names: dict[tuple[int | None, int], str] = {(None, user.id): account}
        if member_name is not None:
            names[guild_id, user.id] = member_name
        if self._usernames.get((None, user.id)) == user.name and all(
            self._stored.get(key) == name for key, name in names.items()
        ):
            return
        for key, name in names.items():
            self._stored.put(key, name)
            self._names.put(key, name)
        self._usernames.put((None, user.id), user.name)
        write = self.spawn(
            self._store_names(user.id, account, guild_id, member_name, user.name),
            name=f"remember-{user.id}",
        )
        await asyncio.wait({write}, timeout=REMEMBER_WAIT)

    async def _store_names(
        self,
        user_id: int,
        account: str,
        guild_id: int | None,
        member_name: str | None,
        username: str,
    ) -> None:
        try:
            await self.services.players.remember(
                user_id, account, guild_id=guild_id, member_name=member_name, username=username
            )
        except StorageError as error:
            if self._usernames.get((None, user_id)) == username:
                self._usernames.forget((None, user_id))
            for key, name in (((None, user_id), account), ((guild_id, user_id), member_name)):
                if name is not None and self._stored.get(key) == name:
                    self._stored.forget(key)  # stored next time the member shows up
            _log.warning("Could not store the names of user %s: %s", user_id, error)

    async def display_names(
        self, guild_id: int | None, *user_ids: int, or_remembered: bool = False
    ) -> dict[int, str]:
        """Display names for ``user_ids`` as shown in the server ``guild_id`` (``None``:
        outside any server): remembered ones, else from the database — a member's name in that
        server, else their account's own name, never a name from another server. A user never
        seen is left out: the caller names them in its reader's language ("a player").

        Raises StorageError if the database cannot read them; ``or_remembered``: the
        remembered ones only then (logged), for a caller with something stored already to
        tell, whose player must not read that it could not be saved."""
        shown: dict[int, str] = {}
        for uid in user_ids:
            name = self._names.get((guild_id, uid))
            if name is not None:
                shown[uid] = name
        missing = [uid for uid in user_ids if uid not in shown]
        if missing:
            try:
                found = await self.services.players.names(guild_id, missing)
            except StorageError as error:
                if not or_remembered:
                    raise
                _log.warning("Names of users %s unread, not shown: %s", missing, error)
                found = {}
            for user_id, name in found.items():
                self._names.put((guild_id, user_id), name)
                shown[user_id] = name
        if self.user is not None and self.user.id in user_ids and self.user.id not in shown:
            shown[self.user.id] = shown_name(self.user)
            self._names.put((guild_id, self.user.id), shown[self.user.id])
        return {uid: shown[uid] for uid in user_ids if uid in shown}

    async def names_told_apart(
        self, names: Mapping[int, str], *, or_as_shown: bool = False
    ) -> NamesToldApart:
        """``names`` (one list's or one game's, as :meth:`display_names` gives them), those
        reading alike told apart by their stored usernames ("alex (@alex_w)":
        :func:`read_apart`), which are read only then.

        Raises StorageError if the database cannot read the usernames; ``or_as_shown``:
        ``names`` as they are then (logged), for a caller with something stored already to
        tell, or whose post must not be lost over a name."""
        try:
            return await read_apart(names, self.services.players.usernames)
        except StorageError as error:
            if not or_as_shown:
                raise
            _log.warning("Usernames of %s unread, names shown alike: %s", sorted(names), error)
            return NamesToldApart(names, {})

    def names_in_hand(self, guild_id: int | None, *user_ids: int | None) -> NamesToldApart:
        """The names of ``user_ids`` in ``guild_id`` this process holds (no read: those not
        held, and ``None``, an open challenge's opponent, are left out), two reading alike told
        apart by the usernames it stored for them (:meth:`remember`), for a message whose game
        or challenge is stored already and must not wait."""
        names = {
            uid: name
            for uid in user_ids
            if uid is not None and (name := self._names.get((guild_id, uid))) is not None
        }
        held = {
            uid: username
            for uid in alike(names)
            if (username := self._usernames.get((None, uid))) is not None
        }
        return NamesToldApart(told_apart(names, held), held)

    def spawn(self, coroutine: Coroutine[Any, Any, Any], *, name: str) -> asyncio.Task[Any]:
        """Run ``coroutine`` in the background; its errors are logged, close() cancels it."""
        task = asyncio.create_task(coroutine, name=name)
        self._background.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            _log.error("Background task %s failed", task.get_name(), exc_info=task.exception())

    def spawn_close(self) -> None:
        """Begin a clean shutdown (from a signal handler)."""
        _log.info("Shutting down")
        if self._closing is None:
            self._closing = asyncio.ensure_future(self._shut_down())

    async def _drain_interactions(self, grace: float = 5.0) -> None:
        """Let interaction handlers that are running finish (bounded), so none is cut off."""
        running = [
            task
            for task in asyncio.all_tasks()
            if task is not asyncio.current_task()
            and task.get_name().startswith(_INTERACTION_TASKS)
            and not task.done()
        ]
        if running:
            _, pending = await asyncio.wait(running, timeout=grace)
            for task in pending:
                task.cancel()

    async def close(self) -> None:
        """Stop timers and computer games, let answers finish, disconnect, close the database.

        Safe to call more than once, also concurrently: every call waits for the same shutdown.
        """
        if self._closing is None:
            self._closing = asyncio.ensure_future(self._shut_down())
        await asyncio.shield(self._closing)

    async def _shut_down(self) -> None:
        timers = getattr(self, "timers", None)
        if timers is not None:
            await timers.stop()
        await self._drain_interactions()
        for task in list(self._background):
            task.cancel()
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)
        ai = getattr(self, "ai", None)
        if ai is not None:
            await ai.close()
        engine = getattr(self, "engine", None)
        if engine is not None and engine is not ai:
            await engine.close()
        services = getattr(self, "services", None)
        await super().close()
        if services is not None:
            await services.close()
