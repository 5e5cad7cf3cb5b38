"""/leaderboard (paged) and /stats."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Mapping
from dataclasses import replace

import discord
from discord import app_commands
from discord.ext import commands

from bot.alike_names import told_apart
from bot.client import BrandubhBot
from bot.cogs.choices import RULESET_CHOICES
from bot.flow.posts import side_name
from bot.i18n import ENGLISH, Language, _
from bot.names import ZERO_WIDTH_SPACE, escaped, player_name, shown_name
from bot.services.domain import GameSummary, HeadToHead, LeaderboardPage, PlayerStats
from bot.services.errors import InvalidOption
from bot.views.common import answer, within_deadline
from bot.views.games import field_values
from bot.views.leaderboard import (
    PAGE_SIZE,
    leaderboard_embed,
    leaderboard_view,
    matches_won_text,
    rating_text,
)
from engine import Reason, Side, get_ruleset
from renderer.rating_course import describe_rating_course, render_rating_course

_REASONS = {
    Reason.KING_CAPTURED: _("king captured"),
    Reason.KING_ESCAPED: _("king escaped"),
    Reason.ENCIRCLED: _("encircled"),
    Reason.REPETITION: _("third repetition"),
    Reason.NO_MOVES: _("no legal move"),
    Reason.ALL_CAPTURED: _("every attacker captured"),
    Reason.RESIGNED: _("resigned"),
    Reason.TIMEOUT: _("out of time"),
    Reason.ABORTED: _("aborted"),
}


def moves_text(moves: int, lang: Language = ENGLISH) -> str:
    """``1 move``, ``23 moves``; ``0 moves`` a message of its own (Portuguese says 0 in the
    singular form, where a count of none reads in the plural: "0 lances")."""
    if moves == 0:
        # Translators: a count of none, as your language says zero ("0 lances"), not the
        # singular form "{count} move" would give.
        return lang._("0 moves")
    return lang.n_("{count} move", "{count} moves", moves)


def game_line(
    game: GameSummary,
    user_id: int,
    computer_name: str = "Brandubh",
    lang: Language = ENGLISH,
    ruleset: str | None = None,
    names: Mapping[int, str | None] | None = None,
) -> str:
    """ "Won as attackers vs bob in 23 moves (king captured) · game 12", naming the game's
    ruleset when it is not ``ruleset`` (the one the list is about), and the players by their
    stored ``names`` (one who left the server too, whom a mention would show as ``<@123…>``)."""
    side = side_name(Side.ATTACKERS if game.attacker_id == user_id else Side.DEFENDERS, lang)
    opponent = game.defender_id if game.attacker_id == user_id else game.attacker_id

    def name(player_id: int) -> str:
        return player_name((names or {}).get(player_id), lang)

    if game.computer_id == opponent:
        against = lang._(
            "{name} (level {level})", name=escaped(computer_name), level=game.computer_level or 3
        )
    else:
        against = name(opponent)
    if game.outcome is None:
        result = lang._("In progress")
    elif game.winner_id is None:
        result = lang._("No result")
    else:
        result = lang._("Won") if game.winner_id == user_id else lang._("Lost")
    line = lang._(
        "{result} as {side} vs {opponent} in {moves}",
        result=result,
        side=side,
        opponent=against,
        moves=moves_text(game.moves, lang),
    )
    if game.outcome is not None:
        loser = opponent if game.winner_id == user_id else user_id
        if game.left_server:
            reason = lang._("{player} left the server", player=name(loser))
        else:
            reason = lang.render(_REASONS[game.outcome.reason])
        if game.no_show and game.computer_id is None:  # games against me are never rated
            reason = lang._(
                "{reason}; unrated: {player} never moved",
                reason=reason,
                player=name(loser),
            )
        line += f" ({reason})"
    if ruleset is not None and game.ruleset != ruleset:
        line += " · " + lang.gettext(get_ruleset(game.ruleset).title)
    # The number /export and /analyse take: ``game:12``.
    return line + " · " + lang._("game {game}", game=game.set_id)


def stats_embed(
    stats: PlayerStats,
    head: HeadToHead | None,
    viewer_id: int,
    computer_name: str = "Brandubh",
    lang: Language = ENGLISH,
    *,
    member: bool = True,
) -> discord.Embed:
    """A player's rating, record, recent games and head-to-head with the viewer (named from
    ``stats.names``, as the embed is public); of one not a ``member`` of the server, saying so
    (that they left it, if they played in it)."""
    title = lang.gettext(get_ruleset(stats.ruleset).title)
    shown_games = stats.recent_games[:5]
    listed = {stats.user_id} | {
        p for game in shown_games for p in (game.attacker_id, game.defender_id)
    }
    if head is not None and (head.games or head.matches):
        listed.add(viewer_id)
    # Two players named alike in the embed ("alex won 2, alex won 1") are told apart.
    names = told_apart(
        {
            uid: stats.display_name if uid == stats.user_id else stats.names.get(uid)
            for uid in listed
        },
        stats.usernames,
    )
    player = player_name(names[stats.user_id], lang)
    embed = discord.Embed(title=lang._("{player} at {ruleset}", player=player, ruleset=title))
    notes: list[str] = []
    if not member and (stats.standing is not None or stats.recent_games):
        notes.append(lang._("{player} has left this server.", player=f"**{player}**"))
    elif not member:
        notes.append(lang._("{player} is not a member of this server.", player=f"**{player}**"))
    row = stats.standing
    if row is None:
        notes.append(lang._("No rated game of {ruleset} finished yet.", ruleset=title))
    if notes:
        embed.description = "\n".join(notes)
    if row is not None:
        embed.add_field(name=lang._("Rating"), value=rating_text(row.rating, row.deviation))
        embed.add_field(name=lang._("Rank"), value=f"#{row.rank}")
        if row.draws:
            record = lang._(
                "{wins} won, {losses} lost, {draws} drawn",
                wins=row.wins,
                losses=row.losses,
                draws=row.draws,
            )
        else:
            record = lang._("{wins} won, {losses} lost", wins=row.wins, losses=row.losses)
        embed.add_field(
            name=lang._("Record"),
            value=lang._(
                "{record}; {matches}",
                record=record,
                matches=matches_won_text(row.matches_won, lang),
            ),
            inline=False,
        )
    if stats.recent_games:
        lines = (
            game_line(game, stats.user_id, computer_name, lang, stats.ruleset, names)
            for game in shown_games
        )
        first, *more = field_values(lines)
        embed.add_field(name=lang._("Recent games"), value=first, inline=False)
        for value in more:  # the list goes on, under no heading of its own
            embed.add_field(name=ZERO_WIDTH_SPACE, value=value, inline=False)
    # Shown once the two played a set or finished a match, even one of sets nobody played
    # (0 sets): they met.
    if head is not None and (head.games or head.matches):
        # The embed is public: "you" would be whoever reads it, so the asker is named.
        asker = player_name(names.get(viewer_id), lang)
        mine = head.player_ids.index(viewer_id)
        theirs = 1 - mine
        if head.draws:
            score = lang._(
                "{asker} won {mine}, {player} won {theirs}, {draws} drawn",
                asker=asker,
                player=player,
                mine=head.wins[mine],
                theirs=head.wins[theirs],
                draws=head.draws,
            )
        else:
            score = lang._(
                "{asker} won {mine}, {player} won {theirs}",
                asker=asker,
                player=player,
                mine=head.wins[mine],
                theirs=head.wins[theirs],
            )
        sets = lang.n_("{count} set", "{count} sets", head.games)
        if not head.games:  # Portuguese says 0 in the singular form: "0 set"
            # Translators: a count of none, as your language says zero ("0 sets" in
            # Portuguese too), not the singular form "{count} set" would give.
            sets = lang._("0 sets")
        matches = lang.n_("{count} match", "{count} matches", head.matches)
        if not head.matches:
            # Translators: a count of none, as your language says zero ("0 partidas").
            matches = lang._("0 matches")
        value = f"{score} ({sets}, {matches})"
        if head.matches:
            value += "\n" + lang._(
                "Matches: {asker} won {mine}, {player} won {theirs}",
                asker=asker,
                player=player,
                mine=head.matches_won[mine],
                theirs=head.matches_won[theirs],
            )
        embed.add_field(
            name=lang._("Head to head with {asker}", asker=asker), value=value, inline=False
        )
    return embed


def course_picture(stats: PlayerStats, lang: Language = ENGLISH) -> discord.File:
    """The picture of ``stats``' rating over their last rated sets, with its alt text (a
    one-line description of the course). Drawn off the event loop."""
    first_set = stats.rated_sets - len(stats.course) + 1
    title = lang._("Rating at {ruleset}", ruleset=lang.gettext(get_ruleset(stats.ruleset).title))
    picture = render_rating_course(stats.course, title=title, first_set=first_set, words=lang)
    return discord.File(
        io.BytesIO(picture),
        filename="rating.png",
        description=describe_rating_course(stats.course, words=lang, first_set=first_set),
    )


def with_names(
    stats: PlayerStats, given: Mapping[int, discord.abc.User], me: discord.abc.User | None
) -> PlayerStats:
    """``stats`` with the names Discord gave of ``given`` users (a member's name in the
    server, else the account's) for those it has no stored name of; a stored name stays (one
    who left the server is named as the bot kept them there; none that passes for ``me``), and
    their usernames as Discord gave them (current, where a stored one may not be yet)."""
    names = {user_id: shown_name(user, me) for user_id, user in given.items()} | dict(stats.names)
    usernames = dict(stats.usernames) | {user_id: user.name for user_id, user in given.items()}
    shown = stats.display_name or names.get(stats.user_id)
    return replace(stats, display_name=shown, names=names, usernames=usernames)


class Standings(commands.Cog):
    """Ratings and records."""

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot

    @app_commands.command(name="leaderboard")
    @app_commands.guild_only()
    @app_commands.describe(ruleset="Which ratings (default: the server's ruleset)")
    @app_commands.choices(ruleset=RULESET_CHOICES)
    async def leaderboard(
        self, interaction: discord.Interaction[BrandubhBot], ruleset: str | None = None
    ) -> None:
        """This server's best players, for one ruleset (each ruleset has its own ratings)."""
        guild_id = interaction.guild_id
        assert guild_id is not None

        async def read() -> tuple[LeaderboardPage, Language]:
            pool = ruleset or await self._default_ruleset(guild_id)
            page = await self.bot.services.standings.leaderboard(
                guild_id, 0, PAGE_SIZE, ruleset=pool, viewer_id=interaction.user.id
            )
            return page, await self.bot.flow.server_language(guild_id)

        # A slow database (a long read, another program's write lock) is deferred in time:
        # nothing here refuses after the read, so the deferral is public, like the answer.
        page, lang = await within_deadline(interaction, read())
        name = interaction.guild.name if interaction.guild else lang._("this server")
        view = leaderboard_view(page, lang)
        await answer(
            interaction,
            embed=leaderboard_embed(page, name, lang),
            view=view if view is not None else None,
        )

    @app_commands.command(name="stats")
    @app_commands.guild_only()
    @app_commands.describe(
        player="Whose record to show (default: yours)",
        ruleset="Which rating (default: the server's ruleset)",
    )
    @app_commands.choices(ruleset=RULESET_CHOICES)
    async def stats(
        self,
        interaction: discord.Interaction[BrandubhBot],
        # A user, not only a member: one who left the server is still on the leaderboard.
        player: discord.Member | discord.User | None = None,
        ruleset: str | None = None,
    ) -> None:
        """Rating, record, recent games and head-to-head."""
        guild_id = interaction.guild_id
        assert guild_id is not None
        if player is not None and player.bot:
            raise InvalidOption(
                _(
                    "{player} is a bot: bots have no rating or record.",
                    player=f"**{escaped(shown_name(player, self.bot.user))}**",
                )
            )
        who = player or interaction.user
        standings = self.bot.services.standings

        async def read() -> tuple[PlayerStats, HeadToHead | None, Language]:
            await self.bot.remember(interaction.user)
            if player is not None:
                await self.bot.remember(player)
            pool = ruleset or await self._default_ruleset(guild_id)
            stats = await standings.player_stats(guild_id, who.id, ruleset=pool)
            head = None
            if who.id != interaction.user.id:
                head = await standings.head_to_head(guild_id, interaction.user.id, who.id)
            # A public answer: in the server's language, as everything everyone sees.
            return stats, head, await self.bot.flow.server_language(guild_id)

        # Deferred publicly when slow, as /leaderboard: nothing refuses after the read.
        stats, head, lang = await within_deadline(interaction, read())
        # Discord gave the asker's and the player's names with the command: they name whoever
        # the bot has no name stored for yet (remember's write may still be waiting).
        stats = with_names(
            stats, {interaction.user.id: interaction.user, who.id: who}, self.bot.user
        )
        me = shown_name(self.bot.user) if self.bot.user else "Brandubh"
        embed = stats_embed(
            stats, head, interaction.user.id, me, lang, member=isinstance(who, discord.Member)
        )
        files: list[discord.File] = []
        # The rating's course from two rated sets on, where I may attach it (else the embed
        # goes alone: its rating field says where the rating stands).
        if len(stats.course) >= 2 and interaction.app_permissions.attach_files:
            picture = await within_deadline(
                interaction, asyncio.to_thread(course_picture, stats, lang)
            )
            files.append(picture)
            embed.set_image(url=f"attachment://{picture.filename}")
        await answer(
            interaction,
            embed=embed,
            files=files,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def _default_ruleset(self, guild_id: int) -> str:
        return (await self.bot.services.settings.get(guild_id)).default_ruleset


async def setup(bot: commands.Bot) -> None:
    """Load the cog (``load_extension``)."""
    assert isinstance(bot, BrandubhBot)
    await bot.add_cog(Standings(bot))
