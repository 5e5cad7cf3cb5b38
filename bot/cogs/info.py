"""/rules: the channel's ruleset, briefly, with a picture; /help: a first-timer's guide."""

from __future__ import annotations

import asyncio
import io

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import BrandubhBot
from bot.cogs.choices import RULESET_CHOICES
from bot.errors import permission_names
from bot.flow.posts import pictures_as_text
from bot.i18n import ENGLISH, Language, Text, _, command
from bot.i18n.audience import reader
from bot.locked_refusals import ANSWERS_PRIVATELY
from bot.rules_page import page_name, rules_page
from bot.services.domain import DEFAULT_RULESET
from bot.views.common import answer, within_deadline
from engine import Escape, Game, Move, Ruleset, get_ruleset, opening_step, square_name
from renderer import describe_rules_card, render_rules_card

_BASICS = _(
    "Attackers move first. Every piece moves like a chess rook, any distance along a rank or "
    "file, never jumping. Capture a piece by trapping it between two of yours on a rank or file "
    "(moving into a trap is safe). A move that repeats a position for the third time loses, and "
    "a player with no legal move loses."
)


def rules_text(ruleset_name: str, lang: Language = ENGLISH) -> str:
    """A few lines explaining ``ruleset_name`` to a newcomer."""
    rules = get_ruleset(ruleset_name)
    title = lang.gettext(rules.title)
    size = f"{rules.size}x{rules.size}"
    heading = title if size in title else f"{title} — {size}"
    if rules.escape is Escape.CORNERS:
        goal = lang._(
            "The defenders win when the king reaches a corner; the attackers win by capturing "
            "the king or surrounding every defender."
        )
    else:
        goal = lang._(
            "The defenders win when the king reaches any edge square; the attackers win by "
            "capturing the king or surrounding every defender."
        )
    return "\n".join(
        (
            f"**{heading}**",
            goal,
            lang.render(_BASICS),
            lang.gettext(rules.summary),
            lang._(
                "Play with {move_command} (for example {move_example_command}) or the **Move** "
                "button under a board. A match is two sets with sides swapped: two wins, or at "
                "one each the faster win, takes it.",
                move_command=command("move"),
                move_example_command=command("move", str(opening_step(rules))),
            ),
        )
    )


def rules_answer(
    ruleset_name: str, lang: Language = ENGLISH, *, card_as_text: discord.File | None = None
) -> str:
    """/rules' answer: :func:`rules_text` and that the rules page is attached; or, where I may
    not attach files, the rules with ``card_as_text``'s alt text in place of the picture and
    why the page is missing. It fits one message (``tests/test_rules_answer.py`` checks every
    preset in every language)."""
    if card_as_text is None:
        attached = lang._(
            "Every rule, with a diagram for each capture, is in the attached rules page."
        )
        return "\n".join((rules_text(ruleset_name, lang), attached))
    missing = lang._(
        "I can't attach the rules page and its pictures here: I need the {permission} "
        "permission in this channel.",
        permission=permission_names(["attach_files"], lang),
    )
    return "\n".join(
        (pictures_as_text(rules_text(ruleset_name, lang), [card_as_text], lang), missing)
    )


def destination_alone(rules: Ruleset, move: Move) -> bool:
    """Whether ``move``'s destination alone names it in ``rules``' opening position: no other
    piece of the attackers can go there (``c1`` in brandubh; none in Ard Rí, whose attackers
    reach every square they can reach two ways)."""
    reach = [step for step in Game(rules).legal_moves() if step.to_square == move.to_square]
    return reach == [move]


def move_paragraph(ruleset_name: str) -> Text:
    """/help's paragraph on moving, its example a first move of ``ruleset_name`` (the ruleset
    of the channel's game, else the server's default: brandubh's d1-c1 names an empty square
    on 15x15), and the square alone where only that piece can go there."""
    rules = get_ruleset(ruleset_name)
    step = opening_step(rules)
    if destination_alone(rules, step):
        return _(
            "**Move** in any of three ways: {move_example_command} (or just {destination} when "
            "only one of your pieces can go there); {move_command} and pick from the "
            "suggestions; or press **Move** under the newest board.",
            move_example_command=command("move", str(step)),
            destination=f"`{square_name(step.to_square)}`",
            move_command=command("move"),
        )
    return _(
        "**Move** in any of three ways: {move_example_command} (or just the destination when "
        "only one of your pieces can go there); {move_command} and pick from the suggestions; "
        "or press **Move** under the newest board.",
        move_example_command=command("move", str(step)),
        move_command=command("move"),
    )


CHALLENGE_EXAMPLE = command("challenge", opponent=_("@someone"))
"""A challenge of a member as a player types it."""

HELP_TEXT: tuple[Text | None, ...] = (
    _("**Brandubh for Discord: how to play**"),
    # Translators: each {..._command} is a slash command as the reader's Discord names it
    # (`/herausfordern gegner:@jemand`), filled in by the bot: never type a command's name.
    _(
        "**Start a game.** {challenge_command} posts a challenge with **Accept** (leave out the "
        "opponent and anyone may accept it); once accepted, the game gets a thread of its own, "
        "or stays in the channel where the server has threads off. "
        "Challenge me ({challenge_computer_command}) to play the computer at once. A match is "
        "two sets with sides swapped.",
        challenge_command=CHALLENGE_EXAMPLE,
        challenge_computer_command=command("challenge", opponent="@Brandubh", level="1-5"),
    ),
    None,  # the paragraph on moving, the ruleset's played here (:func:`move_paragraph`)
    _(
        "**Read the picture.** Attackers are dark with a pale ring, defenders ivory with a dot, "
        "the king wears a crown. The last move is tinted with its path and taken pieces stay as "
        "faint crossed-out marks; a red frame means the king can be captured next move, blue "
        "brackets that he has an open road to an escape square."
    ),
    _(
        "**Counting moves.** Every piece moved is one move, both sides together: move 9 is the "
        "ninth move of the set."
    ),
    _(
        "**In a game.** {board_command} shows the board again · {takeback_command} asks to take "
        "back your last move · {resign_command} gives up the set.",
        board_command=command("board"),
        takeback_command=command("takeback"),
        resign_command=command("resign"),
    ),
    _(
        "**Games and ratings.** {games_command} lists the games in progress and where they are · "
        "{stats_command} and {leaderboard_command} show ratings · {export_command} gives a "
        "match's record and a replay · {analyse_command} shows where a finished set turned.",
        games_command=command("games"),
        stats_command=command("stats"),
        leaderboard_command=command("leaderboard"),
        export_command=command("export"),
        analyse_command=command("analyse"),
    ),
    _(
        "**Learn.** {puzzle_command} gives you a puzzle: a forced win to find, and "
        "{puzzle_leaderboard_command} ranks this server's solvers · {rules_command} sums up this "
        "game's rules and attaches the full rules page.",
        puzzle_command=command("puzzle play"),
        puzzle_leaderboard_command=command("puzzle leaderboard"),
        rules_command=command("rules"),
    ),
    _(
        "**Admins** set the server's ruleset, time per move, channels and language with "
        "{settings_command}, and have a puzzle posted every day with {daily_command}.",
        settings_command=command("settings"),
        daily_command=command("puzzle daily"),
    ),
)
"""The /help guide, a paragraph per message (None: :func:`move_paragraph`'s place)."""


def help_text(lang: Language = ENGLISH, ruleset_name: str = DEFAULT_RULESET) -> str:
    """The /help guide in ``lang``, its example move one of ``ruleset_name``."""
    moving = move_paragraph(ruleset_name)
    return "\n".join(lang.render(moving if part is None else part) for part in HELP_TEXT)


class Info(commands.Cog):
    """Explaining the game."""

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot

    async def _ruleset_here(self, guild_id: int, channel_id: int) -> str:
        """The ruleset of the game in this channel, else the server's default."""
        active = await self.bot.services.games.in_channel(channel_id)
        if active is not None:
            return active.ruleset
        return (await self.bot.services.settings.get(guild_id)).default_ruleset

    @app_commands.command(name="rules", extras=ANSWERS_PRIVATELY)
    @app_commands.guild_only()
    @app_commands.describe(
        ruleset="Which rules (default: this channel's game's, else the server's)"
    )
    @app_commands.choices(ruleset=RULESET_CHOICES)
    async def rules(
        self, interaction: discord.Interaction[BrandubhBot], ruleset: str | None = None
    ) -> None:
        """How to play the ruleset of this channel's game (or of this server)."""
        assert interaction.channel_id is not None
        assert interaction.guild_id is not None
        # Two reads (this channel's game, the server's settings): deferred privately when slow.
        name = ruleset
        if name is None:
            name = await within_deadline(
                interaction,
                self._ruleset_here(interaction.guild_id, interaction.channel_id),
                ephemeral=True,
            )
        rules = get_ruleset(name)
        lang = reader(interaction)
        picture = await within_deadline(
            interaction, asyncio.to_thread(render_rules_card, rules, words=lang), ephemeral=True
        )
        card = discord.File(
            io.BytesIO(picture),
            filename="rules.png",
            description=describe_rules_card(rules, words=lang),
        )
        page = discord.File(
            io.BytesIO(rules_page(lang.tag)),
            filename=page_name(lang.tag),
            description=lang._("The full rules page: every rule, every board, the match."),
        )
        if interaction.app_permissions.attach_files:
            text = rules_answer(name, lang)
            files = [card, page]
        else:  # Discord refuses files in my answers here: the rules and the card in text, and why
            text = rules_answer(name, lang, card_as_text=card)
            files = []
        await answer(interaction, text, files=files, ephemeral=True)

    @app_commands.command(name="help", extras=ANSWERS_PRIVATELY)
    @app_commands.guild_only()
    async def help(self, interaction: discord.Interaction[BrandubhBot]) -> None:
        """A short guide: starting a game, moving, reading the picture, the commands."""
        assert interaction.channel_id is not None
        assert interaction.guild_id is not None
        # Two reads (this channel's game, the server's settings): deferred privately when slow.
        ruleset = await within_deadline(
            interaction,
            self._ruleset_here(interaction.guild_id, interaction.channel_id),
            ephemeral=True,
        )
        text = help_text(reader(interaction), ruleset)
        await answer(interaction, text, ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    """Load the cog (``load_extension``)."""
    assert isinstance(bot, BrandubhBot)
    await bot.add_cog(Info(bot))
