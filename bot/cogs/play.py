"""Playing: /move (with autocomplete), /board, /resign, /export."""

from __future__ import annotations

import asyncio
import io
import re

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import BrandubhBot
from bot.errors import require_channel_permissions
from bot.flow.no_game_here import no_game_here
from bot.flow.uploads import ATTACHMENTS_PER_MESSAGE, Draw, fit_pictures, picture_budget
from bot.i18n import Language
from bot.i18n.audience import reader
from bot.names import escaped
from bot.services.domain import ActiveGame, GameExport, MatchExport
from bot.services.errors import NotAPlayer
from bot.services.records import AT_LEVEL
from bot.views.common import ANSWER_BEFORE, answer, within_deadline
from bot.views.confirm import resign_prompt
from bot.views.public_places import hidden_for
from engine import Side
from engine.moves import ARROWS, DASHES
from engine.squares import as_typed
from renderer import ALT_TEXT_LIMIT, describe_replay, render_replay

MAX_CHOICES = 25
_SEPARATORS = re.compile(r"\s+|[" + DASHES + ARROWS + r"]|to|(?<=[\d\s])t$")
"""What /move reads between two squares (engine.moves): spaces, a dash of any kind, an arrow
(``>``, ``->``, ``→``) or to (and a ``t`` typed after a square: the ``to`` being typed)."""


_KING_PREFIX = re.compile(r"^\s*k(?=\s*[a-o](?:\d|$))")
"""The optional ``k`` /move reads before a king's move (``k d4-d2``); never the k file's own
letter (``k4``)."""


def squash(text: str) -> str:
    """``D1 - d3`` → ``d1d3``, ``d1 to d3`` and ``k d1-d3`` too: what autocomplete compares,
    ignoring case, the king's prefix, the separators /move accepts and full-width characters
    (so it never offers a move for text /move would refuse, nor none for text it reads)."""
    return _SEPARATORS.sub("", _KING_PREFIX.sub("", as_typed(text).lower()))


MOVE_TEXT_LIMIT = 40
"""The longest /move text Discord lets a player send (``d1 to d3 xd4`` is 12 characters)."""


class Play(commands.Cog):
    """Moves and the board."""

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot

    @app_commands.command(name="move")
    @app_commands.guild_only()
    @app_commands.describe(move="Your move: the piece's square, a dash, then the square it goes to")
    async def move(
        self,
        interaction: discord.Interaction[BrandubhBot],
        move: app_commands.Range[str, 1, MOVE_TEXT_LIMIT],
    ) -> None:
        """Play a move in this channel's game."""
        await self.bot.flow.play_move(interaction, move)

    @move.autocomplete("move")
    async def move_choices(
        self, interaction: discord.Interaction[BrandubhBot], current: str
    ) -> list[app_commands.Choice[str]]:
        """The legal moves starting with what was typed, for the player to move only."""
        if interaction.channel_id is None:
            return []
        # An autocomplete cannot be deferred: Discord takes its choices within 3 s of its
        # creation or never. A read still waiting (behind others) when another interaction
        # would be deferred gives up, and no choices come in time rather than none at all.
        age = (discord.utils.utcnow() - interaction.created_at).total_seconds()
        try:
            active = await asyncio.wait_for(
                self.bot.services.games.in_channel(interaction.channel_id),
                max(0.0, ANSWER_BEFORE - age),
            )
        except TimeoutError:
            return []
        if active is None or active.player_to_move != interaction.user.id:
            return []
        typed = squash(current)
        choices = []
        for legal in active.game.legal_moves():
            text = str(legal)
            if squash(text).startswith(typed):
                choices.append(app_commands.Choice(name=text, value=text))
                if len(choices) == MAX_CHOICES:
                    break
        return choices

    @app_commands.command(name="board")
    @app_commands.guild_only()
    async def board(self, interaction: discord.Interaction[BrandubhBot]) -> None:
        """Show the current board of this channel's game."""
        # No refusal where I may not post: the board is this command's answer, which Discord
        # delivers without Send Messages or Attach Files.
        active = await within_deadline(interaction, self._game_here(interaction), ephemeral=True)
        await self.bot.flow.show_board(interaction, active)

    async def _game_here(self, interaction: discord.Interaction[BrandubhBot]) -> ActiveGame:
        """The game in progress in the interaction's channel, or the refusal saying where."""
        assert interaction.channel_id is not None
        active = await self.bot.services.games.in_channel(interaction.channel_id)
        if active is None:
            raise await no_game_here(self.bot, interaction)
        return active

    @app_commands.command(name="resign")
    @app_commands.guild_only()
    async def resign(self, interaction: discord.Interaction[BrandubhBot]) -> None:
        """Resign the current set (you will be asked to confirm; the match goes on)."""
        # A read first (and a refusal maybe): deferred privately when slow.
        active = await within_deadline(interaction, self._game_here(interaction), ephemeral=True)
        if active.side_of(interaction.user.id) is None:
            raise NotAPlayer()
        text, view = resign_prompt(active, reader(interaction))
        await answer(interaction, text, view=view, ephemeral=True)

    @app_commands.command(name="takeback")
    @app_commands.guild_only()
    async def takeback(self, interaction: discord.Interaction[BrandubhBot]) -> None:
        """Ask to take back your last move (your opponent accepts or declines; I always agree)."""
        await self.bot.flow.takebacks.ask(interaction)

    @app_commands.command(name="export")
    @app_commands.guild_only()
    @app_commands.describe(game="A finished game's number (default: this channel's latest match)")
    async def export(
        self,
        interaction: discord.Interaction[BrandubhBot],
        game: app_commands.Range[int, 1, 2**53 - 1] | None = None,
    ) -> None:
        """Get a whole match as OpenTafl records and an animated replay of each set."""
        require_channel_permissions(interaction)
        assert interaction.channel_id is not None
        assert interaction.guild_id is not None
        # Reading the match is quick: a refusal is answered privately before anything is
        # deferred (a deferral's first follow-up takes its visibility), or after a private
        # deferral if the read is slow (the files are then posted apart).
        guild_id = interaction.guild_id

        async def chosen() -> MatchExport:
            # Read for the channel, in the server's language (names included).
            words = await self.bot.flow.server_language(guild_id)
            # Who may see the game's place may be asked of Discord: inside the deadline too.
            return await self.bot.services.records.export_match(
                guild_id,
                set_id=game,
                channel_id=None if game is not None else interaction.channel_id,
                hidden=await hidden_for(interaction, game),
                unnamed=words._("a player"),
                at_level=words.gettext(AT_LEVEL),
            )

        exported = await within_deadline(interaction, chosen(), ephemeral=True)
        if not interaction.response.is_done():
            await interaction.response.defer(thinking=True)
        lang = await self.bot.flow.server_language(interaction.guild_id)
        match = exported.match_id
        # One record per file: OpenTafl opens one game a file. A set without moves has no
        # replay to show. At most two sets: 4 files, within Discord's 10 a message.
        records = {one.set_number: one.record.encode() for one in exported.sets}
        replayed = [one for one in exported.sets if one.game.records]

        def drawing(one: GameExport) -> Draw:
            two_sets = one.sets_total > 1

            def draw(width: int | None) -> bytes:
                return render_replay(
                    one.game,
                    attacker_name=one.attacker_name or None,
                    defender_name=one.defender_name or None,
                    set_number=one.set_number if two_sets else None,
                    sets_total=one.sets_total if two_sets else None,
                    width=width,
                    words=lang,
                    left_server=one.left_by is not None,
                )

            return draw

        replays = await asyncio.to_thread(
            fit_pictures,
            [drawing(one) for one in replayed],
            picture_budget(interaction.filesize_limit, *records.values()),
        )
        files = [
            discord.File(
                io.BytesIO(records[one.set_number]), filename=export_file_name(one, match, "txt")
            )
            for one in exported.sets
        ]
        drawn = dict(zip((one.set_number for one in replayed), replays, strict=True))
        left_out = []
        for one in exported.sets:
            replay = drawn.get(one.set_number)
            if replay is None:
                left_out.append(no_replay_line(one, lang))
                continue
            files.append(
                discord.File(
                    io.BytesIO(replay),
                    filename=export_file_name(one, match, "gif"),
                    description=replay_description(one, lang),
                )
            )
        assert len(files) <= ATTACHMENTS_PER_MESSAGE
        heading = export_heading(exported, lang)
        await answer(interaction, "\n".join([heading, *left_out]), files=files)


def export_heading(exported: MatchExport, lang: Language) -> str:
    """What /export's files are: a one-set match's game, or a match's sets, one file each."""
    games = ", ".join(str(one.set_id) for one in exported.sets)
    if all(one.sets_total == 1 for one in exported.sets):
        return lang._("Game {game} in OpenTafl notation.", game=games)
    return lang.n_(
        "Match {match} in OpenTafl notation, one file per set (game {games}).",
        "Match {match} in OpenTafl notation, one file per set (games {games}).",
        len(exported.sets),
        match=exported.match_id,
        games=games,
    )


def export_file_name(one: GameExport, match: int, extension: str) -> str:
    """The name of a set's /export file, as its heading names it: a one-set match's
    ``game-12.txt`` (the game's number), a set of two ``match-7-set-1.txt``."""
    if one.sets_total == 1:
        return f"game-{one.set_id}.{extension}"
    return f"match-{match}-set-{one.set_number}.{extension}"


def replay_description(one: GameExport, lang: Language) -> str:
    """The alt text of a set's replay GIF: what it is, then its result and its moves."""
    if one.sets_total == 1:
        head = lang._("An animation of game {game}, one frame per move.", game=one.set_id)
    else:
        head = lang._(
            "An animation of set {number} (game {game}), one frame per move.",
            number=one.set_number,
            game=one.set_id,
        )
    moves = describe_replay(
        one.game,
        attacker_name=one.attacker_name or None,
        defender_name=one.defender_name or None,
        words=lang,
        left_server=one.left_by is not None,
        limit=ALT_TEXT_LIMIT - len(head) - 1,
    )
    return f"{head} {moves}"


def no_replay_line(one: GameExport, lang: Language) -> str:
    """Why a set has no replay in /export's message: no moves (not played, when a player had
    left the server before it began), or too large to post."""
    if one.not_played and one.left_by is not None:
        gone = one.attacker_name if one.left_by is Side.ATTACKERS else one.defender_name
        if one.sets_total == 1:
            return lang._(
                "The game was not played: **{player}** had left the server, so it has no replay.",
                player=escaped(gone),
            )
        return lang._(
            "Set {number} was not played: **{player}** had left the server, so it has no replay.",
            number=one.set_number,
            player=escaped(gone),
        )
    if not one.game.records and one.sets_total == 1:
        return lang._("The game has no moves, so it has no replay.")
    if not one.game.records:
        return lang._("Set {number} has no moves, so it has no replay.", number=one.set_number)
    if one.sets_total == 1:
        return lang._(
            "The replay of the game is too large to post here; the record has every move."
        )
    return lang._(
        "The replay of set {number} is too large to post here; the record has every move.",
        number=one.set_number,
    )


async def setup(bot: commands.Bot) -> None:
    """Load the cog (``load_extension``)."""
    assert isinstance(bot, BrandubhBot)
    await bot.add_cog(Play(bot))


__all__ = ["Play", "squash"]
