"""Run the real bot against the Discord stand-in: a server, players, and helpers to play.

``Harness`` starts :class:`bot.client.BrandubhBot` (unmodified) on a temporary database with the
stand-in's endpoints, and can stop and start it again on the same database (a restart).
Tests wait on what the bot did (``checks_run``, ``timer_rounds``, :func:`settled`, a message
or a stored state), not for a time.
"""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from PIL import Image

from bot.client import BrandubhBot
from bot.config import Settings
from bot.errors import APOLOGY
from bot.storage.times import to_us
from bot.timers import Timers
from tests.discord_standin import (
    DiscordStandin,
    FakeChannel,
    FakeGuild,
    FakeMember,
    InteractionRecord,
    StoredMessage,
)
from tests.discord_standin.gateway import GatewaySession
from tests.discord_standin.model import MANAGE_GUILD

JSON = dict[str, Any]

AI_NODES_IN_TESTS = 1000
"""The computer's search per move in the tests, in positions (level 5; the others their share):
its moves are the same in every run, however loaded the machine."""

ANALYSIS_NODES_IN_TESTS = 20_000
"""/analyse's search budget per position in the tests (the default is twice that)."""


class Harness:
    """A guild with players and a running bot."""

    def __init__(
        self,
        standin: DiscordStandin,
        db_path: Path,
        *,
        channels: Sequence[str] = ("games", "lobby", "side"),
        ai_seconds: float = 0.05,
        ai_nodes: int | None = AI_NODES_IN_TESTS,
        bot_permissions: int | None = None,
        dev_guild: bool = False,
        threads: bool = False,
        server_locale: str = "en-US",
    ) -> None:
        self.standin = standin
        self.threads = threads
        """Whether the server plays each game in a thread (the bot's default) or in the channel.

        Most tests play in the channel, where the flow is easiest to follow; thread tests opt in.
        """
        self.db_path = db_path
        if bot_permissions is None:
            self.guild: FakeGuild = standin.add_guild("Tafl Club", channels=list(channels))
        else:
            self.guild = standin.add_guild(
                "Tafl Club", channels=list(channels), bot_permissions=bot_permissions
            )
        self.guild.preferred_locale = server_locale  # Discord's Community setting
        self.channel: FakeChannel = self.guild.channel(channels[0])
        self.alice: FakeMember = standin.add_member(self.guild, "alice")
        self.bob: FakeMember = standin.add_member(self.guild, "bob")
        self.carol: FakeMember = standin.add_member(self.guild, "carol")
        self.admin: FakeMember = standin.add_member(self.guild, "ada", permissions=MANAGE_GUILD)
        self.other_bot: FakeMember = standin.add_member(
            self.guild, standin.world.add_user("otherbot", bot=True)
        )
        self.ai_seconds = ai_seconds
        self.ai_nodes = ai_nodes
        """The computer's search bound in positions: its moves are then the same in every run,
        however loaded the machine (a test that needs it to think for a time passes None)."""
        self.dev_guild = dev_guild
        self.expect_apology = False
        """Set by a test that provokes an unexpected error on purpose."""
        """Sync commands to this guild only (DISCORD_GUILD_IDS), not globally."""
        self.now = datetime.now(UTC)
        """The bot's clock: tests move it forward to make deadlines fall due."""
        standin.world.clock = lambda: self.now  # Discord dates a thread's archiving by it
        self.kept_aged = 0.0
        """Seconds the bot's monotonic clock is ahead of the real one (:meth:`age_kept`)."""
        self.bot: BrandubhBot | None = None
        self._task: asyncio.Task[None] | None = None
        self._checks: TimerChecks | None = None

    @property
    def me(self) -> FakeMember:
        """The bot's own member in the guild (challenge it to play the computer)."""
        member = self.guild.member(self.standin.bot_user.id)
        assert member is not None
        return member

    def mention(self, command: str) -> str:
        """How the bot's messages name ``command`` (``games``, ``puzzle play``): Discord's
        mention of it, with the id the stand-in gave its global command when the bot synced."""
        [found] = [
            c for c in self.standin.recorder.global_commands if c["name"] == command.split()[0]
        ]
        return f"</{command}:{found['id']}>"

    def _synced(self, command: str) -> list[JSON]:
        """The synced command and the group and subcommand of ``command`` (``puzzle daily``)."""
        words = command.split()
        [node] = [c for c in self.standin.synced_commands() if c["name"] == words[0]]
        chain = [node]
        for word in words[1:]:
            [node] = [o for o in node.get("options", []) if o["name"] == word and o["type"] <= 2]
            chain.append(node)
        return chain

    def shown_name(self, command: str, locale: str) -> str:
        """``command`` (``puzzle daily``) as a ``locale`` reader's Discord lists it
        (``rätsel täglich``): the synced commands' ``name_localizations``, else the name."""
        return " ".join(
            str((part.get("name_localizations") or {}).get(locale, part["name"]))
            for part in self._synced(command)
        )

    def shown_option(self, command: str, option: str, locale: str) -> str:
        """The option ``option`` of ``command`` as a ``locale`` reader's Discord names it."""
        [found] = [o for o in self._synced(command)[-1].get("options", []) if o["name"] == option]
        return str((found.get("name_localizations") or {}).get(locale, found["name"]))

    def settings(self) -> Settings:
        """Settings as the environment would give them, pointed at the stand-in."""
        return Settings(
            token=self.standin.token,
            db_path=self.db_path,
            api_base=self.standin.api_base,
            gateway_url=self.standin.gateway_url,
            ai_time=timedelta(seconds=self.ai_seconds),
            ai_nodes=self.ai_nodes,
            ai_workers=2,
            analysis_nodes=ANALYSIS_NODES_IN_TESTS,
            timer_interval=timedelta(seconds=0.05),
            guild_ready_timeout=0.05,
            guild_ids=(self.guild.id,) if self.dev_guild else (),
        )

    async def start(self) -> BrandubhBot:
        """Start the bot and wait until its commands are known and it is ready."""
        settings = self.settings()
        settings.apply_endpoints()
        bot = BrandubhBot(settings, clock=lambda: self.now, monotonic=self.monotonic)
        self.bot = bot
        self._task = asyncio.create_task(bot.start(settings.token))
        ready = asyncio.ensure_future(self._ready(bot))
        await asyncio.wait({self._task, ready}, return_when=asyncio.FIRST_COMPLETED)
        if not ready.done():
            ready.cancel()
            await self._task  # raises what made the bot stop
            raise AssertionError("the bot stopped before it was ready")
        await ready
        self._checks = TimerChecks(bot.timers)
        if not self.threads:
            await bot.services.settings.change(self.guild.id, threads=False)
        return bot

    async def _ready(self, bot: BrandubhBot) -> None:
        scope = self.guild if self.dev_guild else None
        await self.standin.wait_synced("challenge", "move", guild=scope, timeout=20)
        await self.standin.wait_ready(timeout=20)
        await asyncio.wait_for(bot.wait_until_ready(), 20)

    async def stop(self) -> None:
        """Close the bot (as on shutdown) and wait for it to finish; no answer was an apology."""
        if self.bot is not None:
            await self.bot.close()
        if self._task is not None:
            await self._task
        self.bot = None
        self._task = None
        self._checks = None
        apologies = [
            m.content for m in self.standin.recorder.messages.values() if str(APOLOGY) in m.content
        ]
        if not self.expect_apology:
            assert apologies == [], "the bot hit an unexpected error (see the log)"

    async def restart(self) -> BrandubhBot:
        """Stop the bot and start a new one on the same database."""
        await self.stop()
        return await self.start()

    def advance(self, duration: timedelta) -> None:
        """Move the bot's clock forward by ``duration``."""
        self.now += duration

    def monotonic(self) -> float:
        """The bot's monotonic clock (seconds), which ages what its services keep in memory:
        the real one, ahead by what :meth:`age_kept` added."""
        return time.monotonic() + self.kept_aged

    def age_kept(self, seconds: float) -> None:
        """Move the bot's monotonic clock forward by ``seconds``: what it keeps in memory (a
        server's settings, ``KEEP_SECONDS``; Discord's word that a thread is locked,
        ``LOCK_SEEN_FOR``) is that much older."""
        self.kept_aged += seconds

    async def checks_run(self, count: int = 1) -> None:
        """Wait until the bot's timers have run ``count`` whole checks begun after this call
        (each at the harness's time then: move the clock first). The clock does not move."""
        assert self._checks is not None, "the bot is not running"
        await self._checks.ended(count)

    async def timer_rounds(self, count: int = 1) -> None:
        """Wait until the timers' loop has gone round ``count`` times from now, checking or,
        while the gateway is down, not (a check then would end games on time)."""
        assert self._checks is not None, "the bot is not running"
        await self._checks.rounds_ended(count)

    # -- playing ----------------------------------------------------------------------------

    async def slash(
        self,
        who: FakeMember,
        name: str,
        options: dict[str, Any] | None = None,
        *,
        channel: FakeChannel | None = None,
    ) -> InteractionRecord:
        """Run a slash command as ``who`` and wait for the bot's first answer."""
        return await self.standin.slash(
            self.guild, channel or self.channel, who, name, options or {}
        )

    async def reply_text(
        self,
        who: FakeMember,
        name: str,
        options: dict[str, Any] | None = None,
        *,
        channel: FakeChannel | None = None,
    ) -> StoredMessage:
        """Run a slash command and return the message the player finally sees."""
        record = await self.slash(who, name, options, channel=channel)
        return await record.wait_original()

    async def abort(
        self,
        admin: FakeMember,
        options: dict[str, Any] | None = None,
        *,
        channel: FakeChannel | None = None,
        game_channel: FakeChannel | None = None,
    ) -> StoredMessage:
        """/abort in ``channel`` (with ``options``), confirmed on its private question; return
        the aborted board, posted in the game's channel (``game_channel``, by default the
        same)."""
        asked = await self.reply_text(admin, "abort", options, channel=channel)
        assert asked.ephemeral, asked.content
        [confirm] = [c for c in asked.custom_ids() if c.startswith("abort:")]
        started = asked.created_at
        await self.standin.click(asked, confirm, admin)
        return await self.wait_board(
            lambda m: " aborted the " in m.content and m.created_at >= started,
            channel=game_channel or channel,
        )

    async def challenge_accepted(
        self, challenger: FakeMember, opponent: FakeMember, **options: Any
    ) -> StoredMessage:
        """Challenge and accept; return the first board message."""
        reply = await self.reply_text(challenger, "challenge", {"opponent": opponent, **options})
        accept = await self.standin.click(
            reply, f"challenge:accept:{challenge_id(reply)}", opponent
        )
        assert accept.answered
        return await self.wait_board(lambda m: m.created_at >= reply.created_at)

    async def move(self, who: FakeMember, text: str) -> StoredMessage:
        """Play ``text`` with /move and return the bot's answer message."""
        record = await self.slash(who, "move", {"move": text})
        return await record.wait_original()

    async def picked(
        self, board: StoredMessage, who: FakeMember, piece: str = "d1"
    ) -> StoredMessage:
        """``who`` presses Move on ``board`` and chooses the piece on ``piece`` in the picker:
        its second step, which offers where that piece can go."""
        opened = await self.standin.click(board, move_button(board), who)
        picker = await opened.wait_original()
        [pieces] = picker.custom_ids()
        chosen = await self.standin.select(picker, pieces, who, [piece])
        return await chosen.wait_original()

    async def wait_board(
        self, predicate: Any = None, *, channel: FakeChannel | None = None, timeout: float = 20
    ) -> StoredMessage:
        """The newest public message with a board picture (matching ``predicate``)."""

        def is_board(message: StoredMessage) -> bool:
            if message.ephemeral or not any(
                a.filename.endswith(".png") for a in message.attachments
            ):
                return False
            return predicate is None or bool(predicate(message))

        return await self.standin.wait_for_message(
            channel or self.channel, is_board, timeout=timeout
        )

    def public_messages(self, channel: FakeChannel | None = None) -> list[StoredMessage]:
        """Everything the bot posted publicly in the channel, oldest first."""
        return [m for m in self.standin.messages(channel or self.channel) if not m.ephemeral]

    def thread_line(self, thread: FakeChannel) -> StoredMessage:
        """The line in its parent channel that ``thread`` was started from."""
        assert thread.parent is not None, f"#{thread.name} is not a thread"
        [line] = [m for m in self.public_messages(thread.parent) if m.thread is thread]
        return line


class PostgresHarness(Harness):
    """The bot on a PostgreSQL database."""

    def __init__(self, standin: DiscordStandin, tmp_path: Path, database_url: str) -> None:
        super().__init__(standin, tmp_path / "unused.sqlite3")
        self.database_url = database_url

    def settings(self) -> Settings:
        return replace(super().settings(), database_url=self.database_url)


class TimerChecks:
    """Counts the checks of the bot's timers as they end, for a test to wait on them instead
    of sleeping: the bot's ``Timers.check`` is wrapped, unchanged."""

    def __init__(self, timers: Timers) -> None:
        self.begun = 0
        self.done = 0
        self.rounds = 0
        """Rounds of the timers' loop begun: it asks whether the gateway is down, then checks
        (or, if it is, does not) and sleeps."""
        self._counted = asyncio.Event()
        check = timers.check

        async def counted(now: datetime) -> None:
            self.begun += 1
            try:
                await check(now)
            finally:
                self.done += 1
                self._count()

        timers.check = counted  # type: ignore[method-assign]
        all_down = timers.holds.all_down

        def asked() -> bool:
            if asyncio.current_task() is timers._task:  # the loop's question, once a round
                self.rounds += 1
                self._count()
            return all_down()

        timers.holds.all_down = asked  # type: ignore[method-assign]

    def _count(self) -> None:
        self._counted.set()
        self._counted = asyncio.Event()

    async def _until(self, counted: Callable[[], bool], what: str, timeout: float) -> None:
        try:
            async with asyncio.timeout(timeout):
                while not counted():
                    await self._counted.wait()
        except TimeoutError:
            raise AssertionError(f"{what} not run after {timeout} s") from None

    async def ended(self, count: int) -> None:
        """Wait until ``count`` checks begun from now have ended (one in progress does not
        count: it may have read the clock before the test moved it)."""
        wanted = self.begun + count
        timeout = 20.0 + count * 0.5  # a check runs every 0.05 s, slower on a loaded machine
        await self._until(lambda: self.done >= wanted, f"{count} timer checks", timeout)

    async def rounds_ended(self, count: int) -> None:
        """Wait until ``count`` rounds of the timers' loop begun from now have ended (the
        next has begun): while the gateway is down, rounds that skipped their check."""
        wanted = self.rounds + count + 1
        timeout = 20.0 + count * 0.5
        await self._until(lambda: self.rounds >= wanted, f"{count} rounds of the timers", timeout)


HANDLER_TASKS = ("CommandTree-invoker", "discord-ui-", "discord.py: on_")
"""Names discord.py gives the tasks of slash commands, component callbacks and event
listeners (the bot's own cogs' listeners too)."""


LISTENER_TASKS = ("discord.py: on_",)
"""Names discord.py gives the tasks of event listeners alone."""


async def settled(
    table: Harness, *, tasks_named: tuple[str, ...] = HANDLER_TASKS, timeout: float = 20.0
) -> None:
    """Wait until the bot has read every gateway event the stand-in has sent it so far
    (interactions and server changes: each of its shards is connected on the stand-in's newest
    session for it, and has read that session's sequence) and every command, component
    callback and listener discord.py started has finished — so that what the bot would do
    about them is done, and a test may assert it did nothing. Called while the gateway is down
    (after ``reopen_gateway()``, before the bot is back), it waits for the bot to come back.
    Background work they spawned (the outbox, a computer's turn) may still run; with
    ``tasks_named=LISTENER_TASKS``, so may commands and components (one a test holds). All
    of it within ``timeout`` seconds, else an AssertionError says what was still waited for."""
    bot = table.bot
    assert bot is not None, "the bot is not running"
    loop = asyncio.get_running_loop()
    give_up = loop.time() + timeout
    while (behind := _shards_behind(bot, table.standin)) is not None:
        if loop.time() > give_up:
            raise AssertionError(
                f"the bot has not read every gateway event after {timeout} s: {behind}"
            )
        await asyncio.sleep(0.05)
    this = asyncio.current_task()
    while True:
        running = [
            task
            for task in asyncio.all_tasks()
            if task is not this and not task.done() and task.get_name().startswith(tasks_named)
        ]
        if not running:
            return
        left = give_up - loop.time()
        if left <= 0:
            names = sorted({task.get_name() for task in running})
            raise AssertionError(f"handlers still running after {timeout} s: {names}")
        await asyncio.wait(running, timeout=left)


def challenge_id(message: StoredMessage) -> str:
    """The challenge id in the Accept button's custom_id."""
    for custom_id in message.custom_ids():
        if custom_id.startswith("challenge:accept:"):
            return custom_id.rsplit(":", 1)[1]
    raise LookupError(f"no Accept button on message {message.id}: {message.custom_ids()}")


async def board_thread_game(
    table: Harness,
    *,
    challenger: FakeMember | None = None,
    opponent: FakeMember | None = None,
    channel: FakeChannel | None = None,
    opening: Sequence[str] = (),
    **options: object,
) -> tuple[StoredMessage, FakeChannel]:
    """alice challenges bob (or ``challenger`` challenges ``opponent``) in #games (or
    ``channel``) to one set of a day a move (``options`` change the challenge's options), the
    opponent accepts, and the two play the ``opening`` moves in turn in the game's thread: its
    newest board and the thread (the line it started from: ``table.thread_line(thread)``)."""
    challenger = challenger or table.alice
    opponent = opponent or table.bob
    line = await table.reply_text(
        challenger,
        "challenge",
        {"opponent": opponent, "sets": 1, "time": 1440, **options},
        channel=channel,
    )
    pressed = await table.standin.click(line, f"challenge:accept:{challenge_id(line)}", opponent)
    assert pressed.answered
    assert line.thread is not None, f"no thread from message {line.id}: {line.content}"
    board = await table.wait_board(channel=line.thread)
    for ply, text in enumerate(opening):
        who = challenger if ply % 2 == 0 else opponent
        board = await table.reply_text(who, "move", {"move": text}, channel=line.thread)
        assert not board.ephemeral, board.content
    return board, line.thread


def move_button(message: StoredMessage) -> str:
    """The custom_id of the Move button under a board."""
    for custom_id in message.custom_ids():
        if custom_id.startswith("move:"):
            return custom_id
    raise LookupError(f"no Move button on message {message.id}: {message.custom_ids()}")


def png_size(message: StoredMessage) -> tuple[int, int]:
    """The decoded size of the message's PNG attachment (it must decode)."""
    [picture] = [a for a in message.attachments if a.filename.endswith(".png")]
    with Image.open(io.BytesIO(picture.data)) as image:
        image.load()
        return image.size


async def timers_noted(table: Harness) -> None:
    """Wait until a check of the bot's timers begun at the harness's time or later has noted
    its time (timer_checks; a check notes it when 10 s have passed since the last note): a
    restart from now gives back the time since then, not since an earlier note. The clock
    does not move."""
    bot = table.bot
    assert bot is not None, "the bot is not running"

    async def noted() -> bool:
        async with bot.services.database.snapshot() as db:
            row = await db.fetch_one("SELECT max(checked_us) FROM timer_checks")
        return row is not None and row[0] is not None and int(str(row[0])) >= to_us(table.now)

    await eventually(noted, True)


async def timers_checked(table: Harness) -> None:
    """Wait until the bot's timers have run a whole check begun at the harness's time or
    later (what a check does — time-outs, sweeps — is done): a check notes its time
    (timer_checks, every 10 s) as it goes, and the note seen first may be one begun before,
    so the third note, 22 s on, comes after a whole such check. The clock moves on 33 s."""
    for _ in range(3):
        await timers_noted(table)
        table.advance(timedelta(seconds=11))


async def eventually(
    probe: Callable[[], Awaitable[object]], wanted: object, *, timeout: float = 20.0
) -> None:
    """Wait until ``probe()`` gives ``wanted`` (the bot works in the background), looking
    every 0.05 s for up to ``timeout`` seconds (a bound in time, not in tries: on a loaded
    machine each probe, a database read, is slower)."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + timeout
    while True:
        seen = await probe()
        if seen == wanted:
            return
        if loop.time() > give_up:
            raise AssertionError(f"wanted {wanted!r}, still {seen!r} after {timeout} s")
        await asyncio.sleep(0.05)


def _shards_behind(bot: BrandubhBot, standin: DiscordStandin) -> str | None:
    """Why the bot may not have read everything the stand-in sent it (a shard of it not
    connected, on an older session than the stand-in's newest, or behind its sequence), or
    None if it has. A shard's newest session is the one that counts: one it left (a fresh
    IDENTIFY after a lost session) is never connected again, and the old websocket's sequence
    says nothing of the new session's."""
    newest: dict[int, GatewaySession] = {}
    for opened in standin.gateway.sessions.values():  # oldest first
        shard_id, count = opened.shard or (0, 1)
        if count == bot.shard_count:  # not of a run with another shard count
            newest[shard_id] = opened
    for shard_id in sorted(bot.shards):
        if (session := newest.get(shard_id)) is None:
            return f"shard {shard_id} has not identified"
        if not session.connected:
            return f"shard {shard_id} is not connected (session {session.id})"
        websocket = bot._get_websocket(shard_id=shard_id)  # no public way to it
        if websocket.session_id != session.id:
            return (
                f"shard {shard_id} reads session {websocket.session_id}, not the stand-in's "
                f"newest, {session.id}"
            )
        if (websocket.sequence or 0) < session.sequence:
            return f"shard {shard_id} has read {websocket.sequence} of {session.sequence} events"
    return None


async def reconnected(standin: DiscordStandin, connections: int) -> None:
    """Wait until the bot has connected to the gateway again (an IDENTIFY or a RESUME) after
    ``connections`` (:func:`gateway_connections` before a drop). discord.py waits a random,
    growing time between refused tries (its ExponentialBackoff: up to 2, then 4, then 8 s…),
    so a second's refusal can take ten to get past; what the bot does once back is then
    timed on its own."""
    await until(lambda: gateway_connections(standin) > connections, timeout=60)


def gateway_connections(standin: DiscordStandin) -> int:
    """How many times the bot has identified or resumed on the stand-in's gateway."""
    return standin.gateway.identify_count + standin.gateway.resume_count


async def until(condition: Callable[[], bool], *, timeout: float = 20.0) -> None:
    """Wait until ``condition()`` holds of the bot's own state, looking every 0.05 s (the
    stand-in's ``wait_until`` looks again only when Discord sees something happen)."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + timeout
    while not condition():
        if loop.time() > give_up:
            raise AssertionError(f"still not so after {timeout} s")
        await asyncio.sleep(0.05)


def next_drawing_waits(
    monkeypatch: pytest.MonkeyPatch, module: ModuleType
) -> tuple[asyncio.Event, asyncio.Event]:
    """The next board ``module`` draws (its ``board_post``) waits: returns ``(drawing, go_on)``
    — ``drawing`` is set once that board is being drawn, and it is drawn once ``go_on`` is set.
    Only that one waits: the boards drawn meanwhile (another move's, the outbox's) do not."""
    drawing, go_on = asyncio.Event(), asyncio.Event()
    draw = module.board_post

    async def drawn_when_told(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(module, "board_post", draw)
        drawing.set()
        await go_on.wait()
        return await draw(*args, **kwargs)

    monkeypatch.setattr(module, "board_post", drawn_when_told)
    return drawing, go_on


def waits_until_told(
    monkeypatch: pytest.MonkeyPatch, owner: object, name: str
) -> tuple[asyncio.Event, asyncio.Event]:
    """``owner.name`` (a coroutine function, a service's method) waits before it runs:
    returns ``(entered, go_on)`` — ``entered`` is set once it is called, and it runs once
    ``go_on`` is set (every call, until then)."""
    entered, go_on = asyncio.Event(), asyncio.Event()
    real = getattr(owner, name)

    async def slowed(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        await go_on.wait()
        return await real(*args, **kwargs)

    monkeypatch.setattr(owner, name, slowed)
    return entered, go_on


@asynccontextmanager
async def running_bot(
    standin: DiscordStandin, db_path: Path, **options: Any
) -> AsyncIterator[Harness]:
    """A started bot in a fresh guild; stopped cleanly afterwards."""
    harness = Harness(standin, db_path, **options)
    await harness.start()
    try:
        yield harness
    finally:
        await harness.stop()
