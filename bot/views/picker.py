"""The Move button under every board and the ephemeral picker it opens: a piece, then where to.

Ids live in the ``custom_id`` (``DynamicItem``), so a board posted before a restart still works.
Discord allows 25 options per select, so long lists are split over several selects.
"""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Self

import discord

from bot.i18n import ENGLISH, Language, Text, _
from bot.i18n.audience import reader
from bot.services.challenges import message_link
from bot.services.domain import ActiveGame
from bot.services.errors import (
    ForeignButton,
    GameError,
    NoGameHere,
    NotAPlayer,
    NotYourTurn,
    OldBoard,
    StaleGameError,
)
from bot.views.common import (
    GameButton,
    GuardedItem,
    answer,
    bot_of,
    update_message,
    within_deadline,
)
from bot.views.id_numbers import ID, PLY
from engine import Game, Piece, Side, parse_square, square_name
from renderer import describe_board, render_board

OPTIONS_PER_SELECT = 25
"""Discord's limit on a select's options."""
ACTION_ROWS = 5
"""Discord's limit on a message's action rows; a select takes one of its own."""


def chunks(
    items: list[discord.SelectOption], *, rows: int = ACTION_ROWS
) -> list[list[discord.SelectOption]]:
    """``items`` split into lists of at most 25 options, one a select, at most ``rows`` of
    them: all 5 of a message's rows for a game's picker (selects alone), one fewer where a
    button needs a row of its own (a puzzle's Give up)."""
    parts = [items[i : i + OPTIONS_PER_SELECT] for i in range(0, len(items), OPTIONS_PER_SELECT)]
    return parts[:rows]


def spans(parts: list[list[discord.SelectOption]]) -> list[str]:
    """For options split over several selects, the first and last square each lists (``a5–o7``;
    a destination ``o12-a12`` counts as ``a12``), for its placeholder; none for a single one."""
    if len(parts) < 2:
        return [""] * len(parts)
    return [f"{part[0].value.split('-')[-1]}–{part[-1].value.split('-')[-1]}" for part in parts]


async def board_over(
    interaction: discord.Interaction[Any], set_id: int, active: ActiveGame | None
) -> GameError:
    """The refusal of a press on a board of set ``set_id``, which is no longer played here (the
    channel's game is ``active``): while its match goes on in the next set, which set the board
    is from and where that set is played (a link to its newest board, if one is known); else
    that its game (a one-set match) or its match is over. A set still played elsewhere is no
    board of this channel's: the button was forged (or garbled)."""
    bot = bot_of(interaction)
    try:
        end = await bot.services.games.ended(set_id)
    except NoGameHere:
        end = None
    if end is None and await _played(interaction, set_id):
        return ForeignButton()
    if end is None or end.game.sets_total == 1:
        return NoGameHere(_("This board belongs to a game that is over."))
    if active is None or active.match_id != end.game.match_id:
        return NoGameHere(_("This board belongs to a match that is over."))
    numbers = {"number": end.game.set_number, "next": active.set_number}
    live = await bot.services.boards.live_board(active.channel_id)
    if live is None or (interaction.message is not None and live == interaction.message.id):
        return NoGameHere(
            _(
                "This board is from set {number}, which is over: set {next} is played on the "
                "newest board.",
                **numbers,
            )
        )
    guild = interaction.guild_id if interaction.guild_id is not None else "@me"
    return NoGameHere(
        _(
            "This board is from set {number}, which is over: set {next} is played on the "
            "newest board, {link}",
            link=message_link(guild, active.channel_id, live),
            **numbers,
        )
    )


async def _played(interaction: discord.Interaction[Any], set_id: int) -> bool:
    """Whether set ``set_id`` is being played (anywhere)."""
    try:
        await bot_of(interaction).services.games.get(set_id)
    except NoGameHere:
        return False
    return True


async def game_of_board(interaction: discord.Interaction[Any], set_id: int) -> ActiveGame:
    """The channel's game if it is still set ``set_id``, the set of the pressed board; else
    the refusal saying that set is over (:func:`board_over`)."""
    assert interaction.channel_id is not None
    active = await bot_of(interaction).services.games.in_channel(interaction.channel_id)
    if active is None or active.set_id != set_id:
        raise await board_over(interaction, set_id, active)
    return active


async def current_game(interaction: discord.Interaction[Any], set_id: int) -> ActiveGame:
    """The channel's game if it is ``set_id`` and the user is to move in it, else a GameError."""
    active = await game_of_board(interaction, set_id)
    if active.side_of(interaction.user.id) is None:
        raise NotAPlayer()
    if active.player_to_move != interaction.user.id:
        raise NotYourTurn(active.player_to_move, computer=active.computer_to_move)
    return active


async def board_game(
    interaction: discord.Interaction[Any],
    set_id: int,
    game: Callable[[discord.Interaction[Any], int], Awaitable[ActiveGame]],
) -> ActiveGame:
    """A press on the board of set ``set_id``: refused if that board is old
    (:func:`refuse_old_board`), else the game ``game`` finds (:func:`game_of_board`, or
    :func:`current_game` for the player to move)."""
    await refuse_old_board(interaction, set_id)
    return await game(interaction, set_id)


async def refuse_old_board(interaction: discord.Interaction[Any], set_id: int) -> None:
    """A button on a board that is no longer the game's newest answers where the live one is."""
    bot = bot_of(interaction)
    channel_id = interaction.channel_id
    if interaction.message is None or channel_id is None:
        return
    live = await bot.services.boards.live_board(channel_id)
    if live is None or live == interaction.message.id:
        return
    await game_of_board(interaction, set_id)
    guild = interaction.guild_id if interaction.guild_id is not None else "@me"
    raise OldBoard(message_link(guild, channel_id, live))


PIECE_NAMES = {Piece.ATTACKER: _("attacker"), Piece.DEFENDER: _("defender"), Piece.KING: _("king")}


def piece_options(game: Game, lang: Language = ENGLISH) -> list[discord.SelectOption]:
    """One option per piece of the side to move that has a legal move."""
    counts: dict[int, int] = {}
    for move in game.legal_moves():
        counts[move.from_square] = counts.get(move.from_square, 0) + 1
    options = []
    for sq in sorted(counts, key=lambda s: (s & 15, s >> 4)):
        piece = game.piece_at(sq)
        name = square_name(sq)
        moves = counts[sq]
        kind = lang.render(PIECE_NAMES[piece]) if piece is not None else ""
        options.append(
            discord.SelectOption(
                label=f"{name} {kind}",
                value=name,
                description=lang.n_("{count} move", "{count} moves", moves),
            )
        )
    return options


def destination_options(
    game: Game, from_name: str, lang: Language = ENGLISH
) -> list[discord.SelectOption]:
    """One option per legal destination of the piece on ``from_name``."""
    frm = parse_square(from_name, game.ruleset.size)
    options = []
    for move in game.legal_moves_from(frm):
        label = str(move)
        probe = game.copy()
        record = probe.play(move)
        notes = []
        if record.captures:
            taken = ", ".join(square_name(sq) for sq in record.captures)
            notes.append(lang._("captures {squares}", squares=taken))
        if probe.outcome is not None:
            notes.append(lang._("ends the game"))
        options.append(
            discord.SelectOption(label=label, value=label, description="; ".join(notes) or None)
        )
    return options


class MoveButton(GameButton, template=r"move:(?P<game>" + ID + ")"):
    """ "Move" under a board: opens the picker for the player to move."""

    prefix = "move"
    button_label = _("Move")
    button_style = discord.ButtonStyle.primary

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        # Reads (the live board, the game), a refusal maybe: deferred privately when slow.
        active = await within_deadline(
            interaction, board_game(interaction, self.set_id, current_game), ephemeral=True
        )
        lang = reader(interaction)
        view = discord.ui.View(timeout=None)
        parts = chunks(piece_options(active.game, lang))
        for index, (options, span) in enumerate(zip(parts, spans(parts), strict=True)):
            view.add_item(
                PickPiece(
                    active.set_id,
                    active.ply,
                    index,
                    options,
                    lang,
                    stamp=active.moves_stamp,
                    span=span,
                )
            )
        if active.to_move is Side.ATTACKERS:
            question = lang._("Which piece do you move as the attackers?")
        else:
            question = lang._("Which piece do you move as the defenders?")
        await answer(interaction, question, view=view, ephemeral=True)


class StepSelect(GuardedItem[discord.ui.Select[Any]], template=r"(?!)"):
    """A select of a two-step move picker (a piece, then where to). Its ``custom_id`` is
    ``<prefix>:<owner>:<ply>:from|to:<index>``: what it was made for (a game, a puzzle attempt),
    the ply (a picker made before a move is stale) and which chunk of options it shows. Its
    placeholder names the squares it spans when given ``span`` (:func:`spans`): a game's picker
    does where its options are split over several selects (a puzzle's, on 7x7, never is).

    Subclasses set ``prefix``, give a ``template`` with the groups ``owner``, ``ply`` and
    ``index``, and implement :meth:`handle`.
    """

    prefix: ClassVar[str]
    step: ClassVar[str] = "from"
    placeholders: ClassVar[tuple[Text, Text]] = (_("Choose a piece"), _("More pieces"))

    def __init__(
        self,
        owner: int,
        ply: int,
        index: int = 0,
        options: list[discord.SelectOption] | None = None,
        lang: Language = ENGLISH,
        *,
        stamp: str = "",
        span: str = "",
    ) -> None:
        first, more = self.placeholders
        at = f"{ply}.{stamp}" if stamp else str(ply)
        placeholder = lang.render(first if index == 0 else more)
        super().__init__(
            discord.ui.Select(
                custom_id=f"{self.prefix}:{owner}:{at}:{self.step}:{index}",
                placeholder=f"{placeholder} ({span})" if span else placeholder,
                options=options or [discord.SelectOption(label="-", value="-")],
            )
        )
        self.owner = owner
        self.ply = ply
        self.stamp = stamp
        """The moves the picker was opened on (:attr:`ActiveGame.moves_stamp`), if it says."""

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        stamp = match.groupdict().get("stamp") or ""
        return cls(int(match["owner"]), int(match["ply"]), int(match["index"]), stamp=stamp)


class PickerSelect(StepSelect, template=r"(?!)"):
    """A select of a game's picker: its owner is the game (the set's id)."""

    prefix = "pick"

    @property
    def set_id(self) -> int:
        """The game this picker was opened for."""
        return self.owner

    async def _unchanged_game(self, interaction: discord.Interaction[Any]) -> ActiveGame:
        """The game this picker was opened for, refused if a move was played since."""
        active = await current_game(interaction, self.set_id)
        if active.ply != self.ply or active.moves_stamp != self.stamp:
            raise StaleGameError(
                _("The board changed since you opened the picker: press Move again.")
            )
        return active

    async def _unchanged_or_played(self, interaction: discord.Interaction[Any]) -> ActiveGame | str:
        """The game this picker was opened for (:meth:`_unchanged_game`), or, if it moved on,
        the move the presser played at this picker's ply (``d1-b1``); its refusal if neither.
        Reads, deferred as an update of the picker when slow (:func:`within_deadline`): the
        picker is edited, or a refusal follows privately, either way."""

        async def read() -> ActiveGame | str:
            try:
                return await self._unchanged_game(interaction)
            except GameError:
                played = await played_at(interaction, self.set_id, self.ply)
                if played is None:
                    raise
                return played

        return await within_deadline(interaction, read(), thinking=False)

    async def _retire(self, interaction: discord.Interaction[Any], played: str) -> None:
        """Replace this picker, whose move ``played`` is played (its own answer lost: Discord
        took it too late, or the press that played it came from another picker), by the line
        saying so, its selects gone: a press on it would otherwise be refused as if the move
        were still to make ("not your turn"), and the player left thinking it lost."""
        lang = reader(interaction)
        await update_message(
            interaction, lang._("You played {move} already.", move=played), attachments=[]
        )


class PickPiece(
    PickerSelect,
    template=(
        r"pick:(?P<owner>" + ID + r"):(?P<ply>" + PLY + r")\.(?P<stamp>[0-9a-f]{8})"
        r":from:(?P<index>\d)"
    ),
):
    """The picker's first step: which piece. Shows the board with its moves highlighted."""

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        active = await self._unchanged_or_played(interaction)
        if isinstance(active, str):  # the presser played this ply's move already
            await self._retire(interaction, active)
            return
        [from_name] = self.item.values
        lang = reader(interaction)
        options = destination_options(active.game, from_name, lang)
        view = discord.ui.View(timeout=None)
        parts = chunks(options)
        for index, (chunk, span) in enumerate(zip(parts, spans(parts), strict=True)):
            view.add_item(
                PickDestination(
                    active.set_id,
                    active.ply,
                    index,
                    chunk,
                    lang,
                    stamp=active.moves_stamp,
                    span=span,
                )
            )
        pictures: list[discord.File] = []
        # Where I may not attach files, Discord refuses the picture even in this answer: the
        # destinations to choose from are listed anyway.
        if interaction.app_permissions.attach_files:
            frm = parse_square(from_name, active.game.ruleset.size)
            # A drawing behind others' is deferred in time, as a slow read is. Only the player
            # to move opens a picker: its picture and alt text say "Your move".
            png = await within_deadline(
                interaction,
                asyncio.to_thread(
                    render_board,
                    active.game,
                    highlight_from=frm,
                    words=lang,
                    you=active.game.to_move,
                ),
                thinking=False,
            )
            description = describe_board(
                active.game, highlight_from=frm, words=lang, you=active.game.to_move
            )
            pictures.append(
                discord.File(io.BytesIO(png), filename="choices.png", description=description)
            )
        await update_message(
            interaction,
            lang._("Where does {square} go?", square=from_name),
            view=view,
            attachments=pictures,
        )


class PickDestination(
    PickerSelect,
    template=(
        r"pick:(?P<owner>" + ID + r"):(?P<ply>" + PLY + r")\.(?P<stamp>[0-9a-f]{8})"
        r":to:(?P<index>\d)"
    ),
):
    """The picker's second step: where to. Choosing plays the move."""

    step = "to"
    placeholders = (_("Choose where it goes"), _("More destinations"))

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        [move_text] = self.item.values
        played = await self._unchanged_or_played(interaction)
        if played == move_text:  # a double click: the other press played it
            raise StaleGameError(_("You played {move} already.", move=played))
        if isinstance(played, str):
            await self._retire(interaction, played)
            return
        try:
            await bot_of(interaction).flow.play_move(interaction, move_text, expected_ply=self.ply)
        except (StaleGameError, NotYourTurn):
            # A double click: the other press of this square played it (while this one was on
            # its way, or before it was handled: then it is the opponent's turn).
            refusal = await within_deadline(
                interaction,
                played_already(interaction, self.set_id, self.ply, move_text),
                thinking=False,
            )
            if refusal is None:
                raise
            raise refusal from None


async def played_already(
    interaction: discord.Interaction[Any], set_id: int, ply: int, move_text: str
) -> StaleGameError | None:
    """The refusal of a press that finds ``move_text`` played at ``ply`` of game ``set_id`` by
    the same player (their other press of the same square): it was played; None otherwise."""
    if await played_at(interaction, set_id, ply) != move_text:
        return None
    return StaleGameError(_("You played {move} already.", move=move_text))


async def played_at(interaction: discord.Interaction[Any], set_id: int, ply: int) -> str | None:
    """The move the presser played at ``ply`` of game ``set_id`` (``d1-b1``), if they did."""
    games = bot_of(interaction).services.games
    try:
        try:
            active = await games.get(set_id)
        except NoGameHere:
            active = (await games.ended(set_id)).game  # that move may have ended the set
    except NoGameHere:
        return None
    records = active.game.records
    if len(records) <= ply or active.player_of(records[ply].side) != interaction.user.id:
        return None
    return str(records[ply].move)
