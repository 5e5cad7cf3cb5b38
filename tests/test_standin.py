"""The Discord stand-in against a real discord.py bot: login, sync, slash, buttons, files."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands
from PIL import Image

from tests.discord_standin import (
    DiscordStandin,
    FakeChannel,
    FakeGuild,
    FakeMember,
    InteractionNotAnswered,
)
from tests.discord_standin.messages import (
    MessageRejected,
    validate_autocomplete,
    validate_commands,
    validate_modal,
)
from tests.discord_standin.model import (
    ATTACH_FILES,
    MENTION_EVERYONE,
    SEND_MESSAGES,
    VIEW_CHANNEL,
    FakeOverwrite,
    World,
)

pytest_plugins = ["tests.discord_standin.fixtures"]

pytestmark = [
    pytest.mark.filterwarnings("error::ResourceWarning"),
    pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning"),
]

MOVES = ["d1-d2", "d1-d3", "c4-c1", "e4-e7"]


def board_png() -> bytes:
    """A small PNG standing in for a rendered board."""
    image = Image.new("RGB", (70, 70), (200, 170, 110))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


class GameView(discord.ui.View):
    """Two buttons under a challenge, like the real bot's game message (persistent: no timeout)."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Resign", custom_id="resign", style=discord.ButtonStyle.danger)
    async def resign(
        self, interaction: discord.Interaction, button: discord.ui.Button[GameView]
    ) -> None:
        await interaction.response.edit_message(
            content=f"{interaction.user.name} resigned", view=None
        )

    @discord.ui.button(label="Hint", custom_id="hint")
    async def hint(
        self, interaction: discord.Interaction, button: discord.ui.Button[GameView]
    ) -> None:
        await interaction.response.send_message("Try d1-d3", ephemeral=True)


def build_bot(guild_id: int, seen: dict[str, Any]) -> commands.Bot:
    """A tiny bot with guild commands exercising every kind of answer; ``seen`` is its diary."""
    bot = commands.Bot(
        command_prefix=commands.when_mentioned,
        intents=discord.Intents.default(),
        guild_ready_timeout=0.05,
    )
    guild = discord.Object(guild_id)

    @bot.tree.command(guild=guild)
    @app_commands.describe(opponent="Who to play", sets="How many sets")
    async def challenge(
        interaction: discord.Interaction, opponent: discord.Member, sets: int = 1
    ) -> None:
        """Challenge someone to Brandubh."""
        seen["opponent_permissions"] = opponent.resolved_permissions
        seen["own_permissions"] = interaction.permissions
        seen["app_permissions"] = interaction.app_permissions
        seen["challenge"] = await interaction.response.send_message(
            f"{interaction.user.mention} challenges {opponent.mention} to {sets} set(s)",
            file=discord.File(io.BytesIO(board_png()), filename="board.png"),
            view=GameView(),
        )

    @bot.tree.command(guild=guild)
    async def move(interaction: discord.Interaction, move: str) -> None:
        """Make a move."""
        await interaction.response.send_message(f"You played {move}")

    @move.autocomplete("move")
    async def move_choices(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=m, value=m) for m in MOVES if m.startswith(current)]

    @bot.tree.command(guild=guild)
    async def think(interaction: discord.Interaction) -> None:
        """Answer slowly: defer, then follow up with a board."""
        await interaction.response.defer(thinking=True)
        await asyncio.sleep(0.05)
        await interaction.followup.send(
            "Here is the board", file=discord.File(io.BytesIO(board_png()), filename="b.png")
        )
        seen["think"] = await interaction.original_response()

    @bot.tree.command(guild=guild)
    async def whisper(interaction: discord.Interaction) -> None:
        """Defer privately, follow up twice (neither flagged private), delete the answer."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        await interaction.followup.send("Only you see this")
        await interaction.followup.send("Everyone sees this")
        await interaction.delete_original_response()

    @bot.tree.command(guild=guild)
    async def blurt(interaction: discord.Interaction) -> None:
        """Defer publicly, then follow up flagged private."""
        await interaction.response.defer(thinking=True)
        await interaction.followup.send("Everyone sees this too", ephemeral=True)

    @bot.tree.command(guild=guild)
    async def rules(interaction: discord.Interaction) -> None:
        """Explain the rules privately."""
        await interaction.response.send_message("The king escapes to a corner", ephemeral=True)

    @bot.tree.command(guild=guild)
    async def announce(interaction: discord.Interaction) -> None:
        """Post in the channel, then edit that post."""
        await interaction.response.send_message("Announcing", ephemeral=True)
        assert isinstance(interaction.channel, discord.TextChannel)
        posted = await interaction.channel.send("A game starts")
        await posted.edit(content="A game started")

    @bot.tree.command(guild=guild)
    async def dawdle(interaction: discord.Interaction) -> None:
        """Answer too late."""
        await asyncio.sleep(0.4)
        with contextlib.suppress(discord.NotFound):
            await interaction.response.send_message("Sorry I'm late")

    async def setup_hook() -> None:
        await bot.tree.sync(guild=guild)

    bot.setup_hook = setup_hook  # type: ignore[method-assign]
    return bot


class Table:
    """A guild with two players and a running bot."""

    def __init__(self, standin: DiscordStandin) -> None:
        self.standin = standin
        self.guild: FakeGuild = standin.add_guild("Tafl Club", channels=["general", "games"])
        self.channel: FakeChannel = self.guild.channel("games")
        self.alice: FakeMember = standin.add_member(self.guild, "alice")
        self.bob: FakeMember = standin.add_member(self.guild, "bob")
        self.seen: dict[str, Any] = {}
        self.bot = build_bot(self.guild.id, self.seen)


@contextlib.asynccontextmanager
async def running(standin: DiscordStandin) -> AsyncIterator[Table]:
    """Start the bot against the stand-in; close it cleanly afterwards."""
    table = Table(standin)
    task = asyncio.create_task(table.bot.start(standin.token))
    try:
        ready = asyncio.ensure_future(standin.wait_synced("challenge", guild=table.guild))
        await asyncio.wait({task, ready}, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            ready.cancel()
            await task
        await ready
        await standin.wait_ready()
        await asyncio.wait_for(table.bot.wait_until_ready(), 5)
        yield table
    finally:
        await table.bot.close()
        await task


@pytest.fixture
async def table(
    discord_standin: DiscordStandin, caplog: pytest.LogCaptureFixture
) -> AsyncIterator[Table]:
    """A connected bot; afterwards, no task is left pending and nothing was logged as lost."""
    async with running(discord_standin) as table:
        yield table
    gc.collect()
    leftovers = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    assert leftovers == []
    destroyed = [r for r in caplog.records if "Task was destroyed" in r.getMessage()]
    assert destroyed == []
    assert discord_standin.unknown_requests == []


async def test_bot_logs_in_and_syncs_guild_commands(table: Table) -> None:
    """The bot logs in as the stand-in's bot user and syncs its guild commands."""
    synced = {c["name"] for c in table.standin.synced_commands(table.guild)}
    assert synced == {
        "challenge",
        "move",
        "think",
        "whisper",
        "blurt",
        "rules",
        "announce",
        "dawdle",
    }
    assert table.bot.user is not None
    assert table.bot.user.id == table.standin.bot_user.id
    guild = table.bot.get_guild(table.guild.id)
    assert guild is not None
    assert guild.get_channel(table.channel.id) is not None


async def test_channel_overwrites_shape_the_permissions_discord_sends(table: Table) -> None:
    """Overwrites as Discord computes them: @everyone, then the roles together, then the member;
    interactions carry each member's result in their channel, and the bot's cache is told."""
    standin, guild, games = table.standin, table.guild, table.channel
    view = discord.Permissions(view_channel=True)
    await standin.set_overwrite(games, guild, deny=view)  # a private channel...
    carol = standin.add_member(guild, "carol", permissions=discord.Permissions(send_messages=True))
    await standin.announce_member(carol)
    await standin.set_overwrite(games, carol.roles[0], allow=view)  # ...carol's role may see
    await standin.set_overwrite(games, table.alice, allow=view)
    bot_member = guild.member(standin.bot_user.id)
    assert bot_member is not None
    await standin.set_overwrite(games, bot_member, allow=view)

    await standin.slash(table.guild, games, table.alice, "challenge", {"opponent": table.bob})
    assert table.seen["opponent_permissions"].view_channel is False  # bob: @everyone's deny
    assert table.seen["own_permissions"].view_channel is True  # alice: her own allow
    assert table.seen["app_permissions"].view_channel is True
    await standin.slash(table.guild, games, table.alice, "challenge", {"opponent": carol})
    assert table.seen["opponent_permissions"].view_channel is True  # her role's allow
    general = guild.channel("general")
    await standin.slash(table.guild, general, table.alice, "challenge", {"opponent": table.bob})
    assert table.seen["opponent_permissions"].view_channel is True  # no overwrite there

    await standin.set_overwrite(games, carol, deny=view)  # the member's own overwrite wins
    await standin.slash(table.guild, games, table.alice, "challenge", {"opponent": carol})
    assert table.seen["opponent_permissions"].view_channel is False
    # The gateway is ordered: each CHANNEL_UPDATE reached the bot before the interaction after it.
    channel = table.bot.get_channel(games.id)
    assert isinstance(channel, discord.TextChannel)
    assert channel.overwrites_for(channel.guild.default_role).view_channel is False
    assert channel.overwrites_for(discord.Object(carol.id)).view_channel is False
    assert channel.overwrites_for(discord.Object(table.alice.id)).view_channel is True


async def test_slash_reply_carries_png_and_buttons(table: Table) -> None:
    """/challenge answers with the opponent mentioned, a decodable PNG and two buttons."""
    reply = await table.standin.slash(
        table.guild, table.channel, table.alice, "challenge", {"opponent": table.bob, "sets": 2}
    )
    assert reply.response_type == 4
    message = reply.message
    assert message is not None
    assert message.content == f"<@{table.alice.id}> challenges <@{table.bob.id}> to 2 set(s)"
    [attachment] = message.attachments
    assert attachment.filename == "board.png"
    assert attachment.content_type == "image/png"
    assert Image.open(io.BytesIO(attachment.data)).size == (70, 70)
    assert message.custom_ids() == ["resign", "hint"]
    assert table.standin.messages(table.channel) == [message]


async def test_bot_sees_the_message_its_answer_created(table: Table) -> None:
    """discord.py parses the callback response: same message id, attachment readable locally."""
    reply = await table.standin.slash(
        table.guild, table.channel, table.alice, "challenge", {"opponent": table.bob}
    )
    assert reply.message is not None
    callback: discord.InteractionCallbackResponse[commands.Bot] = table.seen["challenge"]
    assert callback.message_id == reply.message.id
    assert isinstance(callback.resource, discord.InteractionMessage)
    [attachment] = callback.resource.attachments
    assert attachment.url.startswith(table.standin.base_url)
    assert await attachment.read() == reply.message.attachments[0].data


async def test_button_click_edits_the_message(table: Table) -> None:
    """Pressing Resign reaches the view and the bot edits the message it is on."""
    reply = await table.standin.slash(
        table.guild, table.channel, table.alice, "challenge", {"opponent": table.bob}
    )
    assert reply.message is not None
    click = await table.standin.click(reply.message, "resign", table.bob)
    assert click.response_type == 7
    assert reply.message.content == "bob resigned"
    assert reply.message.components == []
    assert reply.message.edit_count == 1


async def test_button_answer_can_be_ephemeral(table: Table) -> None:
    """Pressing Hint gives the presser a message only they can see."""
    reply = await table.standin.slash(
        table.guild, table.channel, table.alice, "challenge", {"opponent": table.bob}
    )
    assert reply.message is not None
    hint = await table.standin.click(reply.message, "hint", table.bob)
    assert hint.response_type == 4
    assert hint.message is not None
    assert hint.message.ephemeral
    assert hint.message.content == "Try d1-d3"


async def test_autocomplete_round_trip(table: Table) -> None:
    """Typing part of a move returns the bot's matching choices."""
    choices = await table.standin.autocomplete(
        table.guild, table.channel, table.alice, "move", focused="move", value="d1"
    )
    assert [c["value"] for c in choices] == ["d1-d2", "d1-d3"]


async def test_deferred_answer_is_filled_by_followup(table: Table) -> None:
    """A deferred answer shows as loading until the followup replaces it."""
    reply = await table.standin.slash(table.guild, table.channel, table.alice, "think")
    assert reply.response_type == 5
    followup = await reply.wait_followup()
    assert followup is reply.message
    assert not followup.loading
    assert followup.content == "Here is the board"
    assert followup.attachments[0].data.startswith(b"\x89PNG")
    await table.standin.wait_until(lambda: "think" in table.seen, waiting_for="original_response")
    assert table.seen["think"].id == followup.id
    assert table.seen["think"].content == "Here is the board"


async def test_an_interactions_token_answers_for_15_minutes(table: Table) -> None:
    """As on Discord, an interaction's token is refused (401 Invalid Webhook Token) once its
    15 minutes are over: no edit of the answer, no followup."""
    reply = await table.standin.slash(table.guild, table.channel, table.alice, "think")
    shown = await reply.wait_followup()
    webhook = discord.Webhook.partial(reply.application_id, reply.token, client=table.bot)
    await webhook.edit_message(shown.id, content="Still here")
    sent = reply.sent_at
    table.standin.world.token_clock = lambda: sent + timedelta(minutes=15)
    for late in (
        webhook.edit_message(shown.id, content="Too late"),
        webhook.send("Too late"),
    ):
        with pytest.raises(discord.HTTPException) as refused:
            await late
        assert (refused.value.status, refused.value.code) == (401, 50027)
    assert shown.content == "Still here"


async def test_a_deferrals_visibility_is_its_first_followups(table: Table) -> None:
    """As on Discord, the first followup fills the deferred answer in and keeps the
    deferral's visibility whatever its own flag; later followups are messages of their own;
    a private answer can be deleted."""
    private = await table.standin.slash(table.guild, table.channel, table.alice, "whisper")
    first, second = await private.wait_followups(2)
    assert first is private.message
    assert first.ephemeral
    assert first.content == "Only you see this"
    assert not second.ephemeral
    assert second.content == "Everyone sees this"
    await table.standin.wait_until(lambda: first.deleted, waiting_for="the private answer to go")
    public = await table.standin.slash(table.guild, table.channel, table.alice, "blurt")
    [filled] = await public.wait_followups(1)
    assert filled is public.message
    assert not filled.ephemeral
    assert filled.content == "Everyone sees this too"


async def test_ephemeral_flag_is_recorded(table: Table) -> None:
    """/rules answers with flag 64 set."""
    reply = await table.standin.slash(table.guild, table.channel, table.alice, "rules")
    assert reply.ephemeral
    assert reply.message is not None
    assert reply.message.flags & 64


async def test_channel_messages_are_posted_and_edited(table: Table) -> None:
    """channel.send and Message.edit reach the channel's message list."""
    await table.standin.slash(table.guild, table.channel, table.alice, "announce")
    posted = await table.standin.wait_for_message(
        table.channel, lambda m: m.content == "A game started"
    )
    assert posted.edited_at is not None
    assert not posted.ephemeral
    assert posted.author is table.standin.bot_user


async def test_interaction_log_times_the_answer(table: Table) -> None:
    """Each interaction records when it was sent and how long the bot took."""
    reply = await table.standin.slash(table.guild, table.channel, table.alice, "rules")
    assert table.standin.interaction_log == [reply]
    assert reply.response_time is not None
    assert reply.answered_at is not None
    assert reply.answered_at >= reply.sent_at


async def test_late_answer_is_refused() -> None:
    """A callback after the deadline is refused and reported as unanswered."""
    async with DiscordStandin(interaction_deadline=0.2) as standin:
        with standin.discord_py_pointed_here():
            async with running(standin) as late:
                with pytest.raises(InteractionNotAnswered, match="too late"):
                    await standin.slash(late.guild, late.channel, late.alice, "dawdle")


async def test_reconnect_resumes_the_session(table: Table) -> None:
    """After op 7 the bot resumes and keeps answering."""
    await table.standin.request_reconnect()
    await table.standin.wait_until(
        lambda: table.standin.gateway.resume_count == 1, waiting_for="a RESUME"
    )
    reply = await table.standin.slash(table.guild, table.channel, table.alice, "rules")
    assert reply.answered


async def test_unknown_routes_answer_404_and_are_recorded(discord_standin: DiscordStandin) -> None:
    """A REST call the stand-in does not know fails loudly instead of passing silently."""
    async with running(discord_standin) as table:
        with pytest.raises(discord.NotFound):
            await table.bot.http.request(discord.http.Route("GET", "/voice/regions"))
    assert discord_standin.unknown_requests == ["GET /api/v10/voice/regions"]


async def test_clicking_a_missing_button_is_a_test_error(table: Table) -> None:
    """The stand-in refuses to press a button the message does not have."""
    reply = await table.standin.slash(
        table.guild, table.channel, table.alice, "challenge", {"opponent": table.bob}
    )
    assert reply.message is not None
    with pytest.raises(LookupError, match="resign"):
        await table.standin.click(reply.message, "draw", table.bob)


async def test_the_bots_managed_role_is_tagged_with_its_id(table: Table) -> None:
    """discord.py finds the bot's own role (``Guild.self_role``) by the role's ``bot_id`` tag."""
    guild = table.bot.get_guild(table.guild.id)
    assert guild is not None
    assert guild.self_role is not None
    assert guild.self_role.is_bot_managed()


async def test_role_edits_and_the_bots_new_roles_reach_its_cache(table: Table) -> None:
    """GUILD_ROLE_UPDATE and the bot's own GUILD_MEMBER_UPDATE arrive as Discord sends them:
    discord.py's cache shows the role's new permissions and the bot's new role."""
    standin, guild = table.standin, table.guild
    bot_member = guild.member(standin.bot_user.id)
    assert bot_member is not None
    host = await standin.add_role(guild, "Game host")
    await standin.edit_role(host, permissions=discord.Permissions(manage_threads=True))
    await standin.give_role(bot_member, host)
    await standin.give_role(table.alice, host)  # no members intent: the bot is not told
    await standin.slash(guild, table.channel, table.alice, "challenge", {"opponent": table.bob})
    cached = table.bot.get_guild(guild.id)
    assert cached is not None
    role = cached.get_role(host.id)
    assert role is not None
    assert role.permissions.manage_threads
    assert cached.me.get_role(host.id) is not None
    assert cached.me.guild_permissions.manage_threads


def test_discords_implicit_permissions_take_away_what_a_channel_makes_pointless() -> None:
    """Without View Channel nothing counts; without Send Messages in a text channel neither do
    Attach Files, Embed Links nor Mention @everyone (Discord's "implicit permissions")."""
    world = World(bot_name="Brandubh")
    guild = world.add_guild("g", ["games", "quiet"], bot_permissions=MENTION_EVERYONE)
    bot = world.bot_member(guild)
    games, quiet = guild.channel("games"), guild.channel("quiet")
    assert bot.effective_permissions_in(games) & (ATTACH_FILES | MENTION_EVERYONE) == (
        ATTACH_FILES | MENTION_EVERYONE
    )
    quiet.overwrites.append(FakeOverwrite(id=guild.id, type=0, deny=SEND_MESSAGES))
    assert bot.permissions_in(quiet) & ATTACH_FILES  # what an interaction would carry
    assert not bot.effective_permissions_in(quiet) & (ATTACH_FILES | MENTION_EVERYONE)
    quiet.overwrites.append(FakeOverwrite(id=guild.id, type=0, deny=VIEW_CHANNEL))
    assert bot.effective_permissions_in(quiet) == 0


async def test_a_channel_the_bot_or_a_member_cannot_see_behaves_as_on_discord(
    table: Table,
) -> None:
    """Where the bot may not view, posting and editing answer 403 Missing Access (50001); a
    member who cannot see the channel is not notified by a mention there, and no interaction
    of theirs comes from it."""
    standin, guild = table.standin, table.guild
    general = guild.channel("general")
    me = standin.world.bot_member(guild)
    channel = table.bot.get_partial_messageable(general.id)
    posted = await channel.send("A game starts")
    await standin.set_overwrite(general, me, deny=VIEW_CHANNEL)
    with pytest.raises(discord.Forbidden) as refused:
        await channel.send("again")
    assert refused.value.code == 50001
    with pytest.raises(discord.Forbidden) as refused:
        await posted.edit(content="A game started")
    assert refused.value.code == 50001

    await standin.set_overwrite(general, me, allow=VIEW_CHANNEL)
    await standin.set_overwrite(general, table.bob, deny=VIEW_CHANNEL)
    sent = await channel.send(f"{table.alice.mention} and {table.bob.mention}, your game")
    assert standin.recorder.messages[sent.id].pinged_user_ids() == {table.alice.id}
    with pytest.raises(ValueError, match="cannot see"):
        await standin.slash(guild, general, table.bob, "rules")


async def test_an_interactions_answers_need_no_send_messages(table: Table) -> None:
    """As on Discord, an interaction's answer and its followups come through where the bot may
    not send messages (they carry the interaction's own permissions), while a post of the
    bot's own there is refused 403 Missing Permissions (50013). The bot relies on it to let a
    game go on when an admin takes Send Messages away."""
    standin, guild = table.standin, table.guild
    me = standin.world.bot_member(guild)
    await standin.set_overwrite(table.channel, me, deny=SEND_MESSAGES)
    answered = await standin.slash(
        guild, table.channel, table.alice, "challenge", {"opponent": table.bob}
    )
    assert answered.message is not None
    assert answered.message.attachments
    deferred = await standin.slash(guild, table.channel, table.alice, "think")
    followup = await deferred.wait_followup()
    assert followup.attachments
    channel = table.bot.get_partial_messageable(table.channel.id)
    with pytest.raises(discord.Forbidden) as refused:
        await channel.send("A game starts")
    assert refused.value.code == 50013


async def test_an_interactions_answers_with_files_need_attach_files(table: Table) -> None:
    """Discord checks Attach Files on an interaction's answers: where the bot's
    ``app_permissions`` lack it, a response or a followup that carries a file is refused 403
    Missing Permissions (50013), while an answer without files comes through."""
    standin, guild = table.standin, table.guild
    me = standin.world.bot_member(guild)
    await standin.set_overwrite(table.channel, me, deny=ATTACH_FILES)
    await standin.slash(
        guild, table.channel, table.alice, "challenge", {"opponent": table.bob}, wait=False
    )
    await _soon(lambda: "app_permissions" in table.seen, "the challenge")
    assert not table.seen["app_permissions"].attach_files
    deferred = await standin.slash(guild, table.channel, table.alice, "think")
    await _soon(lambda: len(_refused_answers(table)) == 2, "both answers refused")
    assert [call.status for call in _refused_answers(table)] == [403, 403]
    assert deferred.followups == []
    plain = await standin.slash(guild, table.channel, table.alice, "rules")
    assert plain.message is not None
    assert plain.message.content == "The king escapes to a corner"


def _refused_answers(table: Table) -> list[Any]:
    """The interaction answers (callbacks, followups) the stand-in refused with 403."""
    return [
        call
        for call in table.standin.rest_log
        if call.status == 403 and ("/interactions/" in call.path or "/webhooks/" in call.path)
    ]


async def _soon(condition: Callable[[], bool], what: str) -> None:
    """Wait (a few seconds at most) until the bot has seen what ``condition`` looks for."""
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the bot never saw {what}")


async def _thread_of(table: Table) -> tuple[discord.Thread, FakeChannel]:
    """A public thread the bot starts in #games, as discord.py and the stand-in hold it."""
    games = table.bot.get_channel(table.channel.id)
    assert isinstance(games, discord.TextChannel)
    thread = await games.create_thread(name="alice vs bob", type=discord.ChannelType.public_thread)
    return thread, table.standin.world.channels[thread.id]


async def test_a_deleted_thread_is_announced_and_then_unknown(table: Table) -> None:
    """Deleting a thread sends THREAD_DELETE with its parent; a post to it afterwards is
    answered 404 Unknown Channel (10003)."""
    deleted: list[discord.RawThreadDeleteEvent] = []

    async def on_raw_thread_delete(payload: discord.RawThreadDeleteEvent) -> None:
        deleted.append(payload)

    table.bot.add_listener(on_raw_thread_delete)
    thread, fake = await _thread_of(table)
    await table.standin.delete_channel(fake)
    await _soon(lambda: bool(deleted), "THREAD_DELETE")
    [payload] = deleted
    assert (payload.thread_id, payload.parent_id, payload.guild_id) == (
        thread.id,
        table.channel.id,
        table.guild.id,
    )
    with pytest.raises(discord.NotFound) as refused:
        await thread.send("still there?")
    assert refused.value.code == 10003


async def test_a_deleted_channel_takes_its_threads_without_thread_delete(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deleting a channel sends CHANNEL_DELETE only (Discord sends no THREAD_DELETE for the
    threads deleted with it); the channel and its threads answer 404 Unknown Channel."""
    standin = table.standin
    sent: list[str] = []
    real = standin.gateway.dispatch

    async def recorded(event: str, data: dict[str, Any]) -> None:
        sent.append(event)
        await real(event, data)

    monkeypatch.setattr(standin.gateway, "dispatch", recorded)
    removed: list[int] = []

    async def on_guild_channel_delete(channel: discord.abc.GuildChannel) -> None:
        removed.append(channel.id)

    table.bot.add_listener(on_guild_channel_delete)
    thread, _ = await _thread_of(table)
    sent.clear()
    await standin.delete_channel(table.channel)
    await _soon(lambda: removed == [table.channel.id], "CHANNEL_DELETE")
    assert sent == ["CHANNEL_DELETE"]
    for channel_id in (table.channel.id, thread.id):
        with pytest.raises(discord.NotFound) as refused:
            await table.bot.get_partial_messageable(channel_id).send("still there?")
        assert refused.value.code == 10003


async def test_a_bot_removed_from_a_guild_is_told_so_and_loses_its_channels(
    table: Table,
) -> None:
    """Kicking the bot sends GUILD_DELETE without ``unavailable`` (not an outage): discord.py
    reports the guild removed, and the guild's channels answer 403 Missing Access (50001)."""
    seen: list[str] = []

    async def on_guild_remove(guild: discord.Guild) -> None:
        seen.append("removed")

    async def on_guild_unavailable(guild: discord.Guild) -> None:
        seen.append("unavailable")

    table.bot.add_listener(on_guild_remove)
    table.bot.add_listener(on_guild_unavailable)
    await table.standin.remove_bot_from_guild(table.guild)
    await _soon(lambda: bool(seen), "GUILD_DELETE")
    assert seen == ["removed"]
    assert table.bot.get_guild(table.guild.id) is None
    with pytest.raises(discord.Forbidden) as refused:
        await table.bot.get_partial_messageable(table.channel.id).send("still here?")
    assert refused.value.code == 50001


async def test_an_upload_past_the_servers_limit_is_refused(table: Table) -> None:
    """A file larger than the server's upload limit is refused (413, 40005) and nothing is
    posted; interactions there carry that limit."""
    table.guild.attachment_size_limit = 100
    channel = table.bot.get_channel(table.channel.id)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.HTTPException) as refused:
        await channel.send(file=discord.File(io.BytesIO(board_png()), filename="b.png"))
    assert (refused.value.status, refused.value.code) == (413, 40005)
    assert table.standin.messages(table.channel) == []
    await table.standin.slash(table.guild, table.channel, table.alice, "rules")
    assert table.standin.interaction_log[-1].payload["attachment_size_limit"] == 100


async def test_a_message_past_discords_limits_is_refused_as_discord_words_it(table: Table) -> None:
    """Content past 2000 characters, an embed's title past 256, an attachment's description
    past 1024 and a nonce past 25 are each refused with 400 and 50035 "Invalid Form Body",
    the field named as Discord names it, and nothing is posted."""
    channel = table.bot.get_channel(table.channel.id)
    assert isinstance(channel, discord.TextChannel)
    png = board_png()
    attempts: list[tuple[dict[str, Any], str]] = [
        ({"content": "x" * 2001}, "In content: Must be 2000 or fewer in length."),
        (
            {"embed": discord.Embed(title="t" * 257)},
            "In embeds.0.title: Must be 256 or fewer in length.",
        ),
        (
            {"file": discord.File(io.BytesIO(png), filename="b.png", description="d" * 1025)},
            "In attachments.0.description: Must be 1024 or fewer in length.",
        ),
        ({"content": "hi", "nonce": "n" * 26}, "In nonce: Must be 25 or fewer in length."),
    ]
    for fields, said in attempts:
        with pytest.raises(discord.HTTPException) as refused:
            await channel.send(**fields)
        assert (refused.value.status, refused.value.code) == (400, 50035)
        assert refused.value.text == f"Invalid Form Body\n{said}"
    await channel.send("x" * 2000, nonce="n" * 25)  # at the limits: taken
    assert [m.content for m in table.standin.messages(table.channel)] == ["x" * 2000]
    table.standin.contract_violations.clear()  # broken on purpose: the fixture must not fail


async def test_an_embed_field_with_an_empty_name_or_value_is_refused(table: Table) -> None:
    """An embed field with an empty name, or an empty value, is refused (400, 50035, "This
    field is required", the field named) and nothing is posted; a zero-width space (as /stats'
    continued recent games are named) is taken."""
    channel = table.bot.get_channel(table.channel.id)
    assert isinstance(channel, discord.TextChannel)
    for name, value, said in (
        ("", "d1-d3", "In embeds.0.fields.0.name: This field is required"),
        ("Recent games", "", "In embeds.0.fields.0.value: This field is required"),
    ):
        embed = discord.Embed(title="Stats").add_field(name=name, value=value)
        with pytest.raises(discord.HTTPException) as refused:
            await channel.send(embed=embed)
        assert (refused.value.status, refused.value.code) == (400, 50035)
        assert refused.value.text == f"Invalid Form Body\n{said}"
    assert table.standin.messages(table.channel) == []
    await channel.send(embed=discord.Embed(title="Stats").add_field(name="\u200b", value="d1-d3"))
    assert len(table.standin.messages(table.channel)) == 1
    table.standin.contract_violations.clear()  # broken on purpose: the fixture must not fail


async def test_a_select_of_no_option_or_of_26_is_refused(table: Table) -> None:
    """A select holds 1 to 25 options: none, or 26, is refused (50035, the select's options
    named); 25 are taken."""
    channel = table.bot.get_channel(table.channel.id)
    assert isinstance(channel, discord.TextChannel)
    for count in (0, 26):
        view = discord.ui.View(timeout=None)
        view.add_item(discord.ui.Select(custom_id="pick", options=_options(count)))
        with pytest.raises(discord.HTTPException) as refused:
            await channel.send("Pick one", view=view)
        assert refused.value.text == (
            "Invalid Form Body\nIn components.0.components.0.options: "
            "Must be between 1 and 25 in length."
        )
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Select(custom_id="pick", options=_options(25)))
    await channel.send("Pick one", view=view)
    assert len(table.standin.messages(table.channel)) == 1
    table.standin.contract_violations.clear()  # broken on purpose: the fixture must not fail


def _options(count: int) -> list[discord.SelectOption]:
    return [discord.SelectOption(label=f"d{n}") for n in range(count)]


async def test_a_thread_name_past_100_characters_is_refused(table: Table) -> None:
    """A thread named in 101 characters is refused (400, 50035, "In name"), at its start or
    on a rename; 100 are taken."""
    channel = table.bot.get_channel(table.channel.id)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.HTTPException) as refused:
        await channel.create_thread(name="n" * 101, type=discord.ChannelType.public_thread)
    assert (refused.value.code, refused.value.text) == (
        50035,
        "Invalid Form Body\nIn name: Must be between 1 and 100 in length.",
    )
    thread = await channel.create_thread(name="n" * 100, type=discord.ChannelType.public_thread)
    with pytest.raises(discord.HTTPException) as renamed:
        await thread.edit(name="m" * 101)
    assert renamed.value.code == 50035
    assert table.standin.world.channels[thread.id].name == "n" * 100
    table.standin.contract_violations.clear()  # broken on purpose: the fixture must not fail


def test_an_autocomplete_answer_or_modal_past_discords_limits_is_refused() -> None:
    """An autocomplete answer of 26 choices or a choice named in 101 characters, and a modal
    titled in 46 or with a text input's label of 46, are refused as Discord refuses them
    (50035, the field named); at the limits they are taken."""
    choice = {"name": "d1-d2", "value": "d1-d2"}
    refusals: list[tuple[Callable[[dict[str, Any]], None], dict[str, Any], str]] = [
        (validate_autocomplete, {"choices": [choice] * 26}, "data.choices"),
        (
            validate_autocomplete,
            {"choices": [{"name": "n" * 101, "value": "v"}]},
            "data.choices.0.name",
        ),
        (validate_modal, {"title": "t" * 46, "custom_id": "m", "components": []}, "data.title"),
        (
            validate_modal,
            {"title": "t", "custom_id": "m", "components": [_row(label="l" * 46)]},
            "data.components.0.components.0.label",
        ),
    ]
    for check, data, field in refusals:
        with pytest.raises(MessageRejected) as refused:
            check(data)
        assert (refused.value.code, refused.value.message) == (50035, "Invalid Form Body")
        assert _field_named(refused.value.errors) == field
    validate_autocomplete({"choices": [choice] * 24 + [{"name": "n" * 100, "value": "v"}]})
    validate_modal({"title": "t" * 45, "custom_id": "m", "components": [_row(label="l" * 45)]})


def test_commands_past_discords_limits_are_refused_at_their_sync() -> None:
    """A command sync Discord would refuse is refused, the field named: an option's German
    description of 101 characters, a name with a capital or a space, 26 choices, a choice's
    French name of 101; one within every limit (100, 32, 25) is taken."""

    def command(**option: Any) -> dict[str, Any]:
        return {
            "name": "challenge",
            "description": "Challenge someone",
            "options": [{"type": 3, "name": "ruleset", "description": "Which rules", **option}],
        }

    choice = {"name": "Brandubh", "value": "brandubh"}
    refusals = [
        (
            command(description_localizations={"de": "d" * 101}),
            "0.options.0.description_localizations.de",
        ),
        (command(name_localizations={"fr": "Règles"}), "0.options.0.name_localizations.fr"),
        (command(name="two words"), "0.options.0.name"),
        (command(choices=[choice] * 26), "0.options.0.choices"),
        (
            command(choices=[{**choice, "name_localizations": {"fr": "n" * 101}}]),
            "0.options.0.choices.0.name_localizations.fr",
        ),
    ]
    for body, field in refusals:
        with pytest.raises(MessageRejected) as refused:
            validate_commands([body])
        assert (refused.value.code, refused.value.message) == (50035, "Invalid Form Body")
        assert _field_named(refused.value.errors) == field, body
    validate_commands(
        [
            command(
                name="r" * 32,
                description_localizations={"de": "d" * 100},
                choices=[{**choice, "name_localizations": {"fr": "n" * 100}}] * 25,
            ),
            {"type": 3, "name": "Show Board", "description": ""},  # a message command
        ]
    )


def _row(**text_input: str) -> dict[str, Any]:
    """A modal's action row holding one text input."""
    return {"type": 1, "components": [{"type": 4, "custom_id": "i", "style": 1, **text_input}]}


def _field_named(errors: dict[str, Any] | None) -> str:
    """The dotted path of the one field a Discord ``errors`` object refuses."""
    path: list[str] = []
    while errors is not None and "_errors" not in errors:
        ((key, errors),) = errors.items()
        path.append(key)
    return ".".join(path)


async def test_a_server_in_an_outage_sends_no_event_until_its_guild_create(table: Table) -> None:
    """While a server is unavailable Discord sends none of its events: a moderator's change
    there (here a permission overwrite on #games) reaches the bot only in the GUILD_CREATE
    that ends the outage, which carries the channel as it is then."""
    seen: list[str] = []

    async def on_guild_channel_update(before: Any, after: Any) -> None:
        seen.append("CHANNEL_UPDATE")

    async def on_guild_available(guild: discord.Guild) -> None:
        seen.append("GUILD_CREATE")

    table.bot.add_listener(on_guild_channel_update)
    table.bot.add_listener(on_guild_available)
    await table.standin.guild_unavailable(table.guild)
    guild = table.bot.get_guild(table.guild.id)
    assert guild is not None
    await _soon(lambda: guild.unavailable, "the outage")
    await table.standin.set_overwrite(table.channel, table.alice, deny=VIEW_CHANNEL)
    await table.standin.guild_available(table.guild)
    await _soon(lambda: bool(seen), "the server back")
    assert seen == ["GUILD_CREATE"]
    channel = table.bot.get_channel(table.channel.id)
    assert isinstance(channel, discord.TextChannel)
    assert channel.overwrites_for(discord.Object(table.alice.id)).view_channel is False
