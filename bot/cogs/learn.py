"""Learning from the engine: /analyse a finished set, /puzzle play, stats, the server's
leaderboard and the daily puzzle."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import BrandubhBot
from bot.errors import (
    ChannelUse,
    daily_trouble,
    require_channel_permissions,
    require_permissions_in,
)
from bot.i18n import ENGLISH, Language, _, command, option
from bot.i18n.audience import reader
from bot.locked_refusals import ANSWERS_PRIVATELY
from bot.names import escaped, shown_name
from bot.services.errors import InvalidOption
from bot.services.puzzle_leaderboard import Period, SolverBoard
from bot.services.puzzles import PuzzleStats
from bot.views.common import answer, within_deadline
from bot.views.puzzle import DAILY_EXAMPLE, daily_stop_text, daily_time, daily_when
from bot.views.puzzle_board import NO_PINGS, PAGE_SIZE, solvers_embed, solvers_view
from engine.puzzles import Difficulty

DIFFICULTY_CHOICES = [
    app_commands.Choice(name="easy (win in 1)", value="easy"),
    app_commands.Choice(name="medium", value="medium"),
    app_commands.Choice(name="hard (long or well hidden)", value="hard"),
]

PERIOD_CHOICES = [
    app_commands.Choice(name="all time", value=Period.ALL_TIME.value),
    app_commands.Choice(name="last 30 days", value=Period.LAST_30_DAYS.value),
]


def stats_embed(stats: PuzzleStats, name: str, lang: Language = ENGLISH) -> discord.Embed:
    """A player's puzzle record."""
    embed = discord.Embed(title=lang._("{player}'s puzzles", player=escaped(name)))
    tried = stats.solved + stats.failed
    if not tried:
        embed.description = lang._(
            "No puzzle finished yet: {play_command} gives one.",
            play_command=command("puzzle play"),
        )
        return embed
    embed.add_field(
        name=lang._("Solved"),
        value=lang._(
            "{solved} of {tried} ({percent} %)",
            solved=stats.solved,
            tried=tried,
            percent=stats.solved * 100 // tried,
        ),
    )
    embed.add_field(
        name=lang._("Streak"),
        value=lang._("{streak} (best {best})", streak=stats.streak, best=stats.best_streak),
    )
    embed.add_field(name=lang._("Daily puzzles solved"), value=str(stats.daily_solved))
    if stats.hardest is not None:
        embed.add_field(
            name=lang._("Hardest solved"),
            value=lang.n_(
                "{puzzle}: win in {count} move, rating {rating}",
                "{puzzle}: win in {count} moves, rating {rating}",
                stats.hardest.moves,
                puzzle=stats.hardest.puzzle_id,
                rating=stats.hardest.rating,
            ),
            inline=False,
        )
    embed.set_footer(
        text=lang.n_(
            "{count} puzzle in the bank you have not seen yet",
            "{count} puzzles in the bank you have not seen yet",
            stats.left,
        )
    )
    return embed


class Learn(commands.Cog):
    """Post-game analysis and puzzles."""

    puzzle = app_commands.Group(
        name="puzzle",
        description="Brandubh puzzles: forced wins to find",
        guild_only=True,
        allowed_contexts=app_commands.AppCommandContext(guild=True),
    )

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot

    @app_commands.command(name="analyse")
    @app_commands.guild_only()
    @app_commands.describe(game="A finished game's number (default: this channel's latest set)")
    async def analyse(
        self,
        interaction: discord.Interaction[BrandubhBot],
        game: app_commands.Range[int, 1, 2**53 - 1] | None = None,
    ) -> None:
        """See where a finished set turned: a win-chance graph, the worst moves, better ones."""
        require_channel_permissions(interaction)
        await self.bot.analysis.analyse(interaction, game)

    @puzzle.command(name="play", extras=ANSWERS_PRIVATELY)
    @app_commands.describe(difficulty="How hard (default: the easiest you have not seen yet)")
    @app_commands.choices(difficulty=DIFFICULTY_CHOICES)
    async def play(
        self, interaction: discord.Interaction[BrandubhBot], difficulty: str | None = None
    ) -> None:
        """A puzzle just for you: find the forced win with the move picker."""
        chosen = Difficulty(difficulty) if difficulty is not None else None
        await self.bot.puzzles.play(interaction, chosen)

    @puzzle.command(name="stats")
    @app_commands.describe(player="Whose record (default: yours)")
    async def stats(
        self, interaction: discord.Interaction[BrandubhBot], player: discord.Member | None = None
    ) -> None:
        """Puzzles solved, the streak and the best streak."""
        if player is not None and player.bot:
            raise InvalidOption(
                _(
                    "{player} is a bot: bots have no puzzle record.",
                    player=f"**{escaped(shown_name(player, self.bot.user))}**",
                )
            )
        who = player or interaction.user
        guild_id = interaction.guild_id
        assert guild_id is not None  # the group is guild_only

        async def read() -> tuple[PuzzleStats, Language]:
            await self.bot.remember(who)
            record = await self.bot.services.puzzles.stats(who.id)
            # A public answer: in the server's language, as everything everyone sees.
            return record, await self.bot.flow.server_language(guild_id)

        # Deferred publicly when slow: nothing refuses after the read.
        record, lang = await within_deadline(interaction, read())
        await answer(
            interaction,
            embed=stats_embed(record, shown_name(who, self.bot.user), lang),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @puzzle.command(name="leaderboard")
    @app_commands.describe(period="Which puzzles count (default: all time)")
    @app_commands.choices(period=PERIOD_CHOICES)
    async def leaderboard(
        self, interaction: discord.Interaction[BrandubhBot], period: str | None = None
    ) -> None:
        """This server's best puzzle solvers: puzzles solved here, first tries only."""
        assert interaction.guild_id is not None  # the group is guild_only
        guild_id = interaction.guild_id
        await self.bot.remember(interaction.user)  # their own line names them

        async def read() -> tuple[SolverBoard, Language]:
            board = await self.bot.services.puzzles.leaderboard(
                guild_id,
                interaction.user.id,
                Period(period or Period.ALL_TIME.value),
                0,
                PAGE_SIZE,
            )
            # A public answer: in the server's language, as everything everyone sees.
            return board, await self.bot.flow.server_language(guild_id)

        # Deferred publicly when slow: nothing refuses after the reads.
        board, lang = await within_deadline(interaction, read())
        name = interaction.guild.name if interaction.guild else lang._("this server")
        await answer(
            interaction,
            embed=solvers_embed(board, name, lang),
            view=solvers_view(board, lang),
            allowed_mentions=NO_PINGS,
        )

    @puzzle.command(name="daily")
    @app_commands.checks.has_permissions(manage_guild=True)
    @app_commands.describe(
        channel="Post a puzzle in this channel every day",
        hour="At this hour, UTC (0-23; default 12, or the hour set before)",
        off="Stop the daily puzzle",
    )
    async def daily(
        self,
        interaction: discord.Interaction[BrandubhBot],
        channel: discord.TextChannel | None = None,
        hour: app_commands.Range[int, 0, 23] | None = None,
        off: bool = False,
    ) -> None:
        """(Manage Server) Show, switch on or off, or move the daily puzzle."""
        assert interaction.guild_id is not None
        service = self.bot.services.puzzles
        lang = reader(interaction)
        if off and (channel is not None or hour is not None):
            raise InvalidOption(
                _(
                    "Give {off_option} alone to stop the daily puzzle, or a channel and hour to "
                    "move it.",
                    off_option=option("off"),
                )
            )
        guild_id = interaction.guild_id
        # A read first, and a refusal maybe: deferred privately when slow, as the writes are.
        current = await within_deadline(
            interaction, service.daily_setting(guild_id), ephemeral=True
        )
        if off:
            # A slow write (another program holding the database) is deferred in time.
            was_on = await within_deadline(
                interaction, service.stop_daily(interaction.guild_id), ephemeral=True
            )
            text = (
                lang._("The daily puzzle is off.")
                if was_on
                else lang._("The daily puzzle was not on.")
            )
        elif channel is not None or hour is not None:
            if channel is not None:
                # The channel the post moves to must take it (a kept one is checked below).
                require_permissions_in(
                    interaction, channel.id, DAILY_PERMISSIONS, ChannelUse.DAILY_PUZZLE
                )
            elif current is not None:
                require_permissions_in(
                    interaction, current.channel_id, DAILY_PERMISSIONS, ChannelUse.DAILY_PUZZLE
                )
            setting = await within_deadline(
                interaction,
                service.set_daily(
                    interaction.guild_id, None if channel is None else channel.id, hour
                ),
                ephemeral=True,
            )
            if setting is None:
                raise InvalidOption(
                    _(
                        "The daily puzzle is off: to switch it on, give a channel too, like "
                        "{daily_command}.",
                        daily_command=DAILY_EXAMPLE,
                    )
                )
            text = lang._(
                "A puzzle will be posted in {channel} every day at {time} ({hour} UTC); the "
                "first {when}.",
                channel=f"<#{setting.channel_id}>",
                time=daily_time(setting),
                hour=f"{setting.hour:02d}:00",
                when=daily_when(setting),
            )
        elif current is None:
            stop = await within_deadline(
                interaction, service.why_daily_off(guild_id), ephemeral=True
            )
            text = (
                lang._(
                    "The daily puzzle is off: {daily_command} switches it on.",
                    daily_command=DAILY_EXAMPLE,
                )
                if stop is None
                else daily_stop_text(stop, lang)
            )
        else:
            text = lang._(
                "The daily puzzle is posted in {channel} every day at {time} ({hour} UTC); "
                "next {when}.",
                channel=f"<#{current.channel_id}>",
                time=daily_time(current),
                hour=f"{current.hour:02d}:00",
                when=daily_when(current),
            )
            trouble = daily_trouble(interaction, current.channel_id, lang)
            if trouble is not None:
                text += f"\n{trouble}"
        await answer(interaction, text, ephemeral=True)


DAILY_PERMISSIONS = ("view_channel", "send_messages", "attach_files", "read_message_history")
"""What the daily post needs: its board is a picture, and after a restart the channel's latest
messages are read so that a day is never posted twice."""


async def setup(bot: commands.Bot) -> None:
    """Load the cog (``load_extension``)."""
    assert isinstance(bot, BrandubhBot)
    await bot.add_cog(Learn(bot))
