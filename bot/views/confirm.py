"""Buttons that confirm a step someone might regret: a losing repetition, resigning a set, an
admin aborting a game."""

from __future__ import annotations

import re
from collections.abc import Callable, Coroutine
from typing import Any

import discord
from discord import app_commands

from bot.alike_names import NamesToldApart
from bot.i18n import ENGLISH, Language, Text, _, command
from bot.i18n.audience import reader
from bot.locked_refusals import Ended, locked_refusal, refused_as_locked
from bot.names import escaped, mention
from bot.services.domain import ActiveGame, SetEnd
from bot.services.errors import NoGameHere, NotAPlayer, StaleGameError
from bot.views.common import (
    GameButton,
    GuardedItem,
    answer,
    bot_of,
    update_message,
    within_deadline,
)
from bot.views.id_numbers import ID, PLY
from bot.views.picker import board_game, game_of_board


class ConfirmRepetition(
    GuardedItem[discord.ui.Button[Any]],
    template=(
        r"repeat:(?P<game>" + ID + r"):(?P<ply>" + PLY + r")\.(?P<stamp>[0-9a-f]{8}):"
        r"(?P<move>[a-o]\d{1,2}-[a-o]\d{1,2})"
    ),
):
    """ "Play it anyway": plays a move that repeats a position for the third time (and loses)."""

    def __init__(
        self, set_id: int, ply: int, stamp: str, move_text: str, lang: Language = ENGLISH
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=lang._("Play {move} anyway", move=move_text),
                style=discord.ButtonStyle.danger,
                custom_id=f"repeat:{set_id}:{ply}.{stamp}:{move_text}",
            )
        )
        self.set_id = set_id
        self.ply = ply
        self.stamp = stamp
        """The moves the warning was given on (:attr:`ActiveGame.moves_stamp`)."""
        self.move_text = move_text

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ConfirmRepetition:
        return cls(int(match["game"]), int(match["ply"]), match["stamp"], match["move"])

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        # A read first: deferred as an update of the warning when slow, as the move's own
        # write is (the warning is then edited, or a refusal follows privately).
        active = await within_deadline(
            interaction, game_of_board(interaction, self.set_id), thinking=False
        )
        if active.ply != self.ply or active.moves_stamp != self.stamp:
            raise StaleGameError(_("The board changed since the warning: nothing was played."))
        await bot.flow.play_move(interaction, self.move_text, confirm=True, expected_ply=self.ply)


async def end_confirmed(
    interaction: discord.Interaction[Any],
    ending: Coroutine[Any, Any, SetEnd],
    done: Callable[[Language, SetEnd], str],
    ended: Ended,
    *,
    reason: Text | None = None,
    here: bool = True,
) -> None:
    """A confirmed resignation or abort (``ended``): store ``ending``, say ``done`` in place
    of the question, and post the set's end with ``reason`` (as the press's answer when the
    game is ``here``, else in the game's channel).

    A slow write (another program holding the database) is deferred in time; if even the
    deferral fails, the stored end is announced all the same. Its answer refused as locked
    (a thread whose lock the cache missed), the player reads that the set's end stands and
    its board, owed, is posted once the thread is unlocked.
    """
    flow = bot_of(interaction).flow

    async def announce(end: SetEnd) -> None:
        await flow.set_ends.announce_apart(end, reason_line=reason)

    with flow.outbox.posting() as claim:
        end = await within_deadline(interaction, ending, thinking=False, unanswered=announce)
        # Its final board is ours to post from now on: an edit of the question slower than
        # the outbox's grace would otherwise have it posted twice.
        claim(end.game.set_id, end.game.ply)
        try:
            await update_message(interaction, done(reader(interaction), end))
        finally:  # stored: the set's end is announced, and the game goes on, whatever the edit
            if here:
                try:
                    await flow.set_ends.announce(end, interaction=interaction, reason_line=reason)
                except discord.Forbidden as refused:
                    if not refused_as_locked(interaction, refused):
                        raise
                    raise await locked_refusal(
                        interaction,
                        on_discords_word=True,
                        ended=ended,
                        match_over=end.match_end is not None,
                    ) from refused
            else:
                await flow.set_ends.announce_apart(end, reason_line=reason)


def resign_prompt(active: ActiveGame, lang: Language = ENGLISH) -> tuple[str, discord.ui.View]:
    """The private question before resigning, with its confirming button."""
    view = discord.ui.View(timeout=None)
    button = ConfirmResign(active.set_id, lang)
    if active.sets_total == 1:  # a one-set match speaks of one game
        button.item.label = lang._("Resign the game")
    view.add_item(button)
    if active.set_number < active.sets_total:
        question = lang._(
            "Resign set {number}? You lose this set. The match goes on with set 2.",
            number=active.set_number,
        )
    elif active.sets_total > 1:
        question = lang._("Resign set {number}? You lose this set.", number=active.set_number)
    else:
        question = lang._("Resign the game? You lose it.")
    return question, view


class ResignButton(GameButton, template=r"resign-ask:(?P<game>" + ID + ")"):
    """Under the board: resign the set (asks first, privately)."""

    prefix = "resign-ask"
    button_label = _("Resign")
    button_style = discord.ButtonStyle.danger

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        # Reads (the live board, the game), a refusal maybe: deferred privately when slow.
        active = await within_deadline(
            interaction, board_game(interaction, self.set_id, game_of_board), ephemeral=True
        )
        if active.side_of(interaction.user.id) is None:
            raise NotAPlayer()
        text, view = resign_prompt(active, reader(interaction))
        await answer(interaction, text, view=view, ephemeral=True)


class ConfirmResign(GameButton, template=r"resign:(?P<game>" + ID + ")"):
    """ "Resign this set" ("Resign the game" in a one-set match): the player loses the current
    set (the match goes on to set 2)."""

    prefix = "resign"
    button_label = _("Resign this set")
    button_style = discord.ButtonStyle.danger

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        # No refusal where I may not post: the set's end is this press's answer, which Discord
        # delivers without Send Messages or Attach Files (what follows waits in the outbox).
        # A question of a set that is over says so, and where the match goes on. The read
        # is deferred in time when slow, as the write below is.
        await within_deadline(interaction, game_of_board(interaction, self.set_id), thinking=False)
        assert interaction.channel_id is not None
        resigned = bot.services.games.resign(
            interaction.channel_id, interaction.user.id, set_id=self.set_id
        )

        def done(lang: Language, end: SetEnd) -> str:
            if end.game.sets_total == 1:
                return lang._("You resigned the game.")
            return lang._("You resigned this set.")

        await end_confirmed(interaction, resigned, done, Ended.RESIGNED)


def abort_prompt(
    active: ActiveGame, names: dict[int, str], here: bool, lang: Language = ENGLISH
) -> tuple[str, discord.ui.View]:
    """The private question before an admin aborts ``active`` (``here``: in the channel the
    command came from), with its confirming button."""
    view = discord.ui.View(timeout=None)
    button = ConfirmAbort(active.set_id, lang)
    first, second = (
        escaped(names.get(player, str(player))) for player in active.players_in_match_order
    )
    if active.sets_total == 1:
        button.item.label = lang._("Abort the game")
        question = lang._(
            "Abort game {game}, **{attacker}** against **{defender}**? It ends without a "
            "result and is unrated.",
            attacker=first,
            defender=second,
            game=active.set_id,
        )
    else:
        # The players in set 1's order in either set, so set 2's question names them alike.
        question = lang._(
            "Abort the match of **{first}** against **{second}** (game {game}, set "
            "{number} of 2)? It ends without a match result, and this set is unrated.",
            first=first,
            second=second,
            game=active.set_id,
            number=active.set_number,
        )
    if not here:
        question += " " + lang._("It is played in {channel}.", channel=f"<#{active.channel_id}>")
    view.add_item(button)
    return question, view


def aborted_line(
    active: ActiveGame,
    admin_id: int,
    computer_name: str = "Brandubh",
    names: NamesToldApart | None = None,
) -> Text:
    """ "@admin aborted the match of @alice and @bob.": the players are named, so the post
    notifies them (an admin may abort a game from anywhere, in a correspondence game), with
    their usernames where ``names`` told them apart by them (:func:`mention`: "@alex (@alex_w)
    and @alex (@alex.k)"); the computer (``computer_name``: my name in the server) by its name
    and level, as every other line names it, not by a mention of me."""

    def named(player: int) -> str | Text:
        if player != active.computer_id:
            return mention(player, names)
        level = _("{name} (level {level})", name=computer_name, level=active.computer_level or 3)
        return Text("**{name}**", (("name", level),), literal=True)

    first, second = (named(player) for player in active.players_in_match_order)
    players = {"player": mention(admin_id, names), "first": first, "second": second}
    if active.sets_total == 1:
        return _("{player} aborted the game of {first} and {second}.", **players)
    return _("{player} aborted the match of {first} and {second}.", **players)


async def computer_name(bot: Any, active: ActiveGame) -> str:
    """My name in ``active``'s server, escaped, as its lines name the computer."""
    if active.computer_id is None:
        return "Brandubh"
    names = await bot.display_names(active.guild_id, active.computer_id)
    return escaped(names.get(active.computer_id, "Brandubh"))


class ConfirmAbort(GameButton, template=r"abort:(?P<game>" + ID + ")"):
    """ "Abort the match" ("Abort the game" in a one-set match): an admin ends the set without
    a result, and its match with it."""

    prefix = "abort"
    button_label = _("Abort the match")
    button_style = discord.ButtonStyle.danger

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        if not interaction.permissions.manage_guild:
            raise app_commands.MissingPermissions(["manage_guild"])
        bot = bot_of(interaction)
        # Reads (the game, my name in it): deferred in time when slow, as the write below is.
        active, me, names = await within_deadline(
            interaction, self._game(interaction), thinking=False
        )

        def done(lang: Language, end: SetEnd) -> str:
            if end.game.sets_total == 1:
                return lang._("You aborted the game.")
            return lang._("You aborted the match.")

        await end_confirmed(
            interaction,
            bot.services.games.abort(active.channel_id, set_id=self.set_id, by=interaction.user.id),
            done,
            Ended.ABORTED_GAME if active.sets_total == 1 else Ended.ABORTED_MATCH,
            reason=aborted_line(active, interaction.user.id, me, names),
            here=interaction.channel_id == active.channel_id,
        )

    async def _game(
        self, interaction: discord.Interaction[Any]
    ) -> tuple[ActiveGame, str, NamesToldApart]:
        """The set this question is about, still played in this server, my name in it
        (escaped) and its players' names (two alike told apart: :meth:`GameFlow.names_for`);
        else the refusal saying it is over."""
        bot = bot_of(interaction)
        try:
            active = await bot.services.games.get(self.set_id)
        except NoGameHere:
            raise await self._over(interaction) from None
        if active.guild_id != interaction.guild_id:
            raise NoGameHere(_("That game is over."))
        return active, await computer_name(bot, active), await bot.flow.names_for(active)

    async def _over(self, interaction: discord.Interaction[Any]) -> NoGameHere:
        """The refusal of a press whose set is no longer played: the game (a one-set match) or
        the match is over, or, when the match may go on in set 2, to ask again for that set."""
        try:
            end = await bot_of(interaction).services.games.ended(self.set_id)
        except NoGameHere:
            end = None
        if end is not None and end.game.sets_total == 1:
            return NoGameHere(_("That game is over."))
        if end is not None and end.match_end is not None:
            return NoGameHere(_("That match is over."))
        return NoGameHere(
            _(
                "That set is over: if its match goes on, ask {abort_command} again.",
                abort_command=command("abort"),
            )
        )
