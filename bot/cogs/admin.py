"""Admin commands (Manage Server): /settings and /abort."""

from __future__ import annotations

from datetime import timedelta

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import BrandubhBot
from bot.cogs.choices import RULESET_CHOICES, TIME_CHOICES, GameChannel
from bot.cogs.settings_changes import allowed_after, newly_threaded, unchanged_by
from bot.errors import (
    ChannelUse,
    allowed_channel_needs,
    daily_trouble,
    deleted_channels,
    permission_names,
    permissions_missing,
    require_permissions_in,
)
from bot.flow.threads import played_where_asked
from bot.i18n import ENGLISH, Language, Text, _, command, language_for, languages, option
from bot.i18n import language as spoken
from bot.i18n.audience import reader
from bot.i18n.language import SOURCE_TAG
from bot.services.daily_puzzle import DailySetting, DailyStop
from bot.services.domain import ActiveGame, GuildSettings
from bot.services.errors import InvalidOption, NoGameHere, channel_listing
from bot.services.settings import FOLLOW_SERVER
from bot.views.challenge import time_per_move_text
from bot.views.common import answer, within_deadline
from bot.views.confirm import abort_prompt
from bot.views.puzzle import daily_stop_text, daily_time
from engine import get_ruleset


def settings_text(
    settings: GuildSettings,
    lang: Language = ENGLISH,
    public: Language = ENGLISH,
    *,
    gone: frozenset[int] = frozenset(),
    role_trouble: Text | None = None,
    unspoken: bool = False,
    daily: DailySetting | None = None,
    daily_refused: str | None = None,
    daily_stop: DailyStop | None = None,
) -> str:
    """The server's settings as an admin reads them (``public``: the language the server's
    public messages are in, followed or chosen; ``gone``: allowed channels Discord deleted;
    ``role_trouble``: why open challenges cannot ping their role, a line of its own;
    ``unspoken``: the server's own language is one I do not speak, so English stands in;
    ``daily``: where and when the daily puzzle is posted, None when it is off;
    ``daily_refused``: why it cannot be posted there, a line of its own; ``daily_stop``: why
    it is off when no admin switched it off, a line of its own)."""
    allowed = settings.allowed_channel_ids
    if allowed:
        where = lang.render(
            channel_listing(
                [
                    lang._("{channel} (deleted)", channel=f"<#{cid}>")
                    if cid in gone
                    else f"<#{cid}>"
                    for cid in sorted(allowed)
                ]
            )
        )
    else:
        where = lang._("every channel")
    played = lang._("in a thread per game") if settings.threads else lang._("in the channel")
    if settings.language is None and unspoken:
        speaks = lang._(
            "{language}, as I do not speak the server's language (Discord's Community setting)",
            language=public.name,
        )
    elif settings.language is None:
        speaks = lang._(
            "{language}, the server's own (Discord's Community setting)", language=public.name
        )
    else:
        speaks = spoken(settings.language).name
    role = settings.open_challenge_role_id
    pings = lang._("nobody") if role is None else f"<@&{role}>"
    return "\n".join(
        (
            lang._(
                "Default ruleset: **{ruleset}**",
                ruleset=lang.gettext(get_ruleset(settings.default_ruleset).title),
            ),
            lang._(
                "Time per move: **{time}**", time=time_per_move_text(settings.time_per_move, lang)
            ),
            lang._("Games allowed in: {channels}", channels=where),
            *(
                [
                    lang.n_(
                        "Games are allowed nowhere: the channel they were allowed in was "
                        "deleted. Allow one with {allow_option}, or every channel with "
                        "{everywhere_option}.",
                        "Games are allowed nowhere: the {count} channels they were allowed in "
                        "were deleted. Allow one with {allow_option}, or every channel with "
                        "{everywhere_option}.",
                        len(allowed),
                        allow_option=option("allow"),
                        everywhere_option=option("everywhere"),
                    )
                ]
                if allowed and allowed <= gone
                else []
            ),
            lang._("Games are played: **{where}**", where=played),
            lang._("Public messages in: **{language}**", language=speaks),
            lang._("Daily puzzle: **off**")
            if daily is None
            else lang._(
                "Daily puzzle: in {channel}, every day at {time} ({hour} UTC)",
                channel=f"<#{daily.channel_id}>",
                time=daily_time(daily),
                hour=f"{daily.hour:02d}:00",
            ),
            *([] if daily is None or daily_refused is None else [daily_refused]),
            *(
                []
                if daily is not None or daily_stop is None
                else [daily_stop_text(daily_stop, lang)]
            ),
            lang._("Open challenges ping: {role}", role=pings),
            *([] if role_trouble is None else [lang.render(role_trouble)]),
        )
    )


def language_choices() -> list[app_commands.Choice[str]]:
    """The server's own language, then every language the bot speaks, each named in itself
    (a name like "Deutsch" is the same in every language, so it is not translated)."""
    choices = [
        app_commands.Choice(
            name="the server's own language (as set in Discord)", value=FOLLOW_SERVER
        )
    ]
    for each in languages():
        name = app_commands.locale_str(each.name, verbatim=True)
        choices.append(app_commands.Choice(name=name, value=each.tag))
    return choices


THREAD_CHOICES = [
    app_commands.Choice(name="on (a thread per game)", value="on"),
    app_commands.Choice(name="off (play in the channel)", value="off"),
]


def check_pingable(role: discord.Role, mine: discord.Permissions | None) -> None:
    """Refuse a role that open challenges could not ping: @everyone (that is what a role
    avoids), one Discord manages (a bot's, an integration's, the boosters': nobody joins it to
    find games), or one neither mentionable nor pingable by me with my server-wide permissions
    (``mine``; Discord would show the mention and notify nobody). A channel that takes the
    permission from me is met when a challenge is posted there (it then names no role)."""
    if role.is_default():
        raise InvalidOption(
            _(
                "Choose a role, not @everyone: the role is there so that only those who want a "
                "game are pinged."
            )
        )
    if role.managed:
        raise InvalidOption(
            _(
                "Choose a role members can be given, not {role}: Discord manages it for a bot, "
                "an integration or the server's boosters.",
                role=f"<@&{role.id}>",
            )
        )
    if not (role.mentionable or (mine is not None and mine.mention_everyone)):
        raise InvalidOption(
            _(
                "I cannot ping {role}: make it mentionable (Server Settings → Roles) or give me "
                "the Mention @everyone, @here, and All Roles permission.",
                role=f"<@&{role.id}>",
            )
        )


def speaks_server_language(locale: discord.Locale | None) -> bool:
    """Whether I speak the server's own language (Discord's Community setting; English, or a
    language with a catalog): else its public messages fall back to English."""
    if locale is None:
        return True
    return (
        locale.value.lower().startswith(SOURCE_TAG) or language_for(locale.value).tag != SOURCE_TAG
    )


def role_trouble(interaction: discord.Interaction[BrandubhBot], role_id: int | None) -> Text | None:
    """Why open challenges cannot ping the server's role now (deleted, or neither mentionable
    nor pingable by me: :func:`check_pingable`), or None if they can (or it is not known: the
    server is not cached whole)."""
    if role_id is None or interaction.guild_id is None:
        return None
    guild = interaction.client.get_guild(interaction.guild_id)
    if guild is None or guild.unavailable:
        return None
    role = guild.get_role(role_id)
    if role is None:
        return _(
            "The role pinged for open challenges was deleted: they ping nobody until you "
            "choose another with {role_option}.",
            role_option=option("open_challenge_role"),
        )
    try:
        check_pingable(role, guild.me.guild_permissions if guild.me else None)
    except InvalidOption as refusal:
        return refusal.text
    return None


START_THREAD_PERMISSIONS = ("create_public_threads", "send_messages_in_threads")
"""And, with threads on, what starting a game's own thread needs (without them /challenge
plays the game in the channel: :func:`bot.flow.threads.may_open_threads`)."""


def no_thread_lines(
    interaction: discord.Interaction[BrandubhBot], channel_ids: list[int], lang: Language
) -> list[str]:
    """The lines saying games in ``channel_ids`` are played in the channel itself, as I lack a
    permission :data:`START_THREAD_PERMISSIONS` names there: one line for the channels that
    lack the same permissions (a line a channel would overflow the message when a permission
    is missing server-wide), none for a channel where I have them all, that is not known, or
    whose games never have a thread of their own (a voice chat, a forum's posts)."""
    by_lacking: dict[tuple[str, ...], list[int]] = {}
    for channel_id in channel_ids:
        if played_where_asked(interaction.guild, channel_id):  # a voice chat, a forum
            continue
        missing = permissions_missing(interaction, channel_id, START_THREAD_PERMISSIONS)
        if missing:
            by_lacking.setdefault(tuple(missing), []).append(channel_id)
    lines = []
    for lacking, ids in by_lacking.items():
        permissions = permission_names(list(lacking), lang)
        if len(ids) == 1:
            lines.append(
                lang.n_(
                    "Games in {channel} are played in the channel itself: to give each "
                    "its own thread I need the {permissions} permission there.",
                    "Games in {channel} are played in the channel itself: to give each "
                    "its own thread I need the {permissions} permissions there.",
                    len(lacking),
                    channel=f"<#{ids[0]}>",
                    permissions=permissions,
                )
            )
            continue
        lines.append(
            lang.n_(
                "Games in {channels} are played in those channels themselves: to give each "
                "its own thread I need the {permissions} permission there.",
                "Games in {channels} are played in those channels themselves: to give each "
                "its own thread I need the {permissions} permissions there.",
                len(lacking),
                channels=lang.render(channel_listing([f"<#{each}>" for each in ids])),
                permissions=permissions,
            )
        )
    return lines


class Admin(commands.Cog):
    """Server settings and stuck games."""

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot

    @app_commands.command(name="settings")
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.checks.has_permissions(manage_guild=True)
    @app_commands.describe(
        ruleset="Default ruleset for new challenges",
        time="Default time per move",
        allow="Allow games in this channel (once any is allowed, only those are)",
        disallow="Stop allowing games in this channel",
        everywhere="Allow games in every channel again",
        threads="on: each accepted challenge opens a thread for its game; off: play in the channel",
        language="The language of boards, announcements and threads (default: the server's own)",
        open_challenge_role="A role to ping for challenges open to anyone (no opponent given)",
        no_open_challenge_role="Stop pinging a role for challenges open to anyone",
    )
    @app_commands.choices(ruleset=RULESET_CHOICES)
    @app_commands.choices(time=TIME_CHOICES)
    @app_commands.choices(threads=THREAD_CHOICES)
    @app_commands.choices(language=language_choices())
    async def settings(
        self,
        interaction: discord.Interaction[BrandubhBot],
        ruleset: str | None = None,
        time: int | None = None,
        allow: GameChannel | None = None,
        disallow: GameChannel | None = None,
        everywhere: bool = False,
        threads: str | None = None,
        language: str | None = None,
        open_challenge_role: discord.Role | None = None,
        no_open_challenge_role: bool = False,
    ) -> None:
        """Show or change this server's Brandubh settings."""
        assert interaction.guild_id is not None
        if open_challenge_role is not None and no_open_challenge_role:
            raise InvalidOption(
                _(
                    "Give a role with {role_option} or stop it with {no_role_option}, not both "
                    "at once.",
                    role_option=option("open_challenge_role"),
                    no_role_option=option("no_open_challenge_role"),
                )
            )
        if open_challenge_role is not None:
            # Server-wide: a channel that takes the permission away is met when a challenge
            # is posted there.
            me = open_challenge_role.guild.me
            check_pingable(open_challenge_role, me.guild_permissions if me else None)
            if not (open_challenge_role.mentionable or interaction.permissions.mention_everyone):
                # Discord would not let the admin ping it: nor do I, on their word.
                raise InvalidOption(
                    _(
                        "You cannot ping {role} yourself, so I will not ping it for you: make "
                        "it mentionable (Server Settings → Roles) or ask an admin with the "
                        "Mention @everyone, @here, and All Roles permission to choose it.",
                        role=f"<@&{open_challenge_role.id}>",
                    )
                )
        services = self.bot.services.settings
        # A slow read (or write, below) is deferred privately in time: a refusal may follow.
        current = await within_deadline(
            interaction, services.get(interaction.guild_id), ephemeral=True
        )
        lang = reader(interaction)
        no_threads: list[str] = []
        given = (
            ruleset is not None
            or time is not None
            or allow is not None
            or disallow is not None
            or everywhere
            or threads is not None
            or language is not None
            or open_challenge_role is not None
            or no_open_challenge_role
        )
        changed = moved = unthreaded = False
        unchanged: list[str] = []
        if given:

            def change_channels(stored: frozenset[int]) -> frozenset[int]:
                """The same change made to the channels as stored when it is written: another
                admin's change written meanwhile is kept (and a refusal judged on it)."""
                channels = allowed_after(
                    stored,
                    allow=None if allow is None else allow.id,
                    disallow=None if disallow is None else disallow.id,
                    everywhere=everywhere,
                    gone=deleted_channels(interaction, stored),
                )
                if allow is not None and allow.id not in stored:
                    # Games there need what /challenge checks; a channel another admin
                    # allowed meanwhile is on the list already (nothing changed), one another
                    # disallowed meanwhile is checked.
                    require_permissions_in(
                        interaction, allow.id, allowed_channel_needs(allow), ChannelUse.GAMES
                    )
                return channels

            asked_channels = everywhere or allow is not None or disallow is not None
            changing = services.change(
                interaction.guild_id,
                default_ruleset=ruleset,
                time_per_move=timedelta(minutes=time) if time is not None else None,
                change_channels=change_channels if asked_channels else None,
                threads=None if threads is None else threads == "on",
                language=language,
                open_challenge_role_id=None
                if open_challenge_role is None
                else open_challenge_role.id,
                no_open_challenge_role=no_open_challenge_role,
            )
            # A slow write (another program holding the database) is deferred in time.
            change = await within_deadline(interaction, changing, ephemeral=True)
            current, changed = change.after, change.changed
            moved = change.before.allowed_channel_ids != change.after.allowed_channel_ids
            unthreaded = change.before.threads and not change.after.threads
            no_threads = no_thread_lines(
                interaction, newly_threaded(change, None if allow is None else allow.id), lang
            )
            # Judged on the settings the change met under the write's lock, not those read
            # above: what another admin changed meanwhile is what this command found.
            unchanged = unchanged_by(
                change.before,
                lang,
                ruleset=ruleset,
                time=time,
                allow=None if allow is None else allow.id,
                disallow=None if disallow is None else disallow.id,
                everywhere=everywhere,
                threads=threads,
                language=language,
                open_challenge_role=None if open_challenge_role is None else open_challenge_role.id,
                no_open_challenge_role=no_open_challenge_role,
            )
            if not changed:
                # Each option given says that it changed nothing; there is nothing to show.
                await answer(interaction, "\n".join(unchanged), ephemeral=True)
                return
        title = lang._("Settings saved.") if changed else lang._("This server's settings:")
        title = "\n".join((title, *unchanged, *no_threads))
        public, daily, stop = await within_deadline(
            interaction, self._shown_beside(interaction.guild_id), ephemeral=True
        )
        gone = deleted_channels(interaction, current.allowed_channel_ids)
        trouble = role_trouble(interaction, current.open_challenge_role_id)
        text = settings_text(
            current,
            lang,
            public,
            gone=gone,
            role_trouble=trouble,
            unspoken=not speaks_server_language(interaction.guild_locale),
            daily=daily,
            daily_refused=None
            if daily is None
            else daily_trouble(interaction, daily.channel_id, lang),
            daily_stop=stop,
        )
        await answer(interaction, f"{title}\n{text}", ephemeral=True)
        if moved and interaction.guild is not None:
            # Challenges waiting where games are no longer allowed lapse: nobody could accept
            # them, yet they would hold their members until they expired.
            await self.bot.flow.challenges.lapse_disallowed(interaction.guild)
        if unthreaded:
            # A challenge's game is now played in its channel: where one is played there
            # already, those waiting lapse, as a game's start there lapses them.
            await self.bot.flow.challenges.lapse_busy(interaction.guild_id)

    async def _shown_beside(
        self, guild_id: int
    ) -> tuple[Language, DailySetting | None, DailyStop | None]:
        """What ``/settings`` shows beside the settings: the server's language, its daily
        puzzle, and why that is off (if it is)."""
        puzzles = self.bot.services.puzzles
        public = await self.bot.flow.server_language(guild_id)
        daily = await puzzles.daily_setting(guild_id)
        stop = None if daily is not None else await puzzles.why_daily_off(guild_id)
        return public, daily, stop

    @app_commands.command(name="abort")
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.checks.has_permissions(manage_guild=True)
    @app_commands.describe(
        game="A game in progress anywhere in this server, by number (default: this channel's game)"
    )
    async def abort(
        self,
        interaction: discord.Interaction[BrandubhBot],
        game: app_commands.Range[int, 1, 2**53 - 1] | None = None,
    ) -> None:
        """Stop this channel's game, or any game by number, without a result (asks first)."""
        lang = reader(interaction)
        # Reads (the game, its players' names), a refusal maybe: deferred privately when slow.
        active, names = await within_deadline(
            interaction, self._game_to_abort(interaction, game, lang), ephemeral=True
        )
        here = active.channel_id == interaction.channel_id
        text, view = abort_prompt(active, names, here, lang)
        await answer(interaction, text, view=view, ephemeral=True)

    async def _game_to_abort(
        self, interaction: discord.Interaction[BrandubhBot], game: int | None, lang: Language
    ) -> tuple[ActiveGame, dict[int, str]]:
        """The game ``/abort`` names (this channel's without a number) and its players'
        names, or the refusal saying there is none."""
        assert interaction.channel_id is not None
        games = self.bot.services.games
        if game is None:
            active = await games.in_channel(interaction.channel_id)
            if active is None:
                raise NoGameHere(
                    _(
                        "There is no game in progress in this channel: to abort one played "
                        "elsewhere, give its number with {game_option} ({games_command} lists "
                        "them).",
                        game_option=option("game"),
                        games_command=command("games"),
                    )
                )
        else:
            try:
                active = await games.get(game)
            except NoGameHere:
                active = None
            if active is None or active.guild_id != interaction.guild_id:
                raise NoGameHere(
                    _("There is no game {game} in progress in this server.", game=game)
                )
        return active, await self.bot.flow.names_for(active, lang)


async def setup(bot: commands.Bot) -> None:
    """Load the cog (``load_extension``)."""
    assert isinstance(bot, BrandubhBot)
    await bot.add_cog(Admin(bot))
