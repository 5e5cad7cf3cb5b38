"""The public board post: picture with alt text, last move, whose turn with a mention, Move button.

Rendering runs in a worker thread (``asyncio.to_thread``): Pillow never runs on the event loop.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Mapping
from dataclasses import dataclass

import discord

from bot.names import escaped
from bot.services.domain import ActiveGame, MatchEnd, RatingChange, SetEnd
from bot.views.confirm import ResignButton
from bot.views.picker import MoveButton
from bot.views.takeback import TakebackButton
from engine import MoveRecord, Side, square_name
from renderer import ALT_TEXT_LIMIT, describe_board, render_board

NO_PINGS = discord.AllowedMentions.none()
"""Allowed mentions of a message that notifies nobody."""


def or_missing(view: discord.ui.View | None) -> discord.ui.View:
    """``view``, or discord.py's MISSING (no components) when there is none."""
    return view if view is not None else discord.utils.MISSING


def pinging(user_ids: tuple[int, ...] | list[int]) -> discord.AllowedMentions:
    """Allowed mentions that notify exactly ``user_ids`` (no one else, no roles, no @everyone)."""
    return discord.AllowedMentions(
        everyone=False,
        roles=False,
        users=[discord.Object(user_id) for user_id in user_ids],
        replied_user=False,
    )


@dataclass(frozen=True)
class BoardPost:
    """Everything a board message carries; ``send_kwargs()`` gives discord.py's arguments."""

    content: str
    png: bytes
    alt_text: str
    view: discord.ui.View | None
    pings: tuple[int, ...] = ()
    """Whom the post may notify: the player to move (never the computer, never a spectator)."""

    def allowed_mentions(self) -> discord.AllowedMentions:
        """discord.py's allowed_mentions naming exactly :attr:`pings`."""
        return pinging(self.pings)

    def file(self, filename: str = "board.png") -> discord.File:
        """A fresh discord.File (a File can be sent once)."""
        return discord.File(
            io.BytesIO(self.png), filename=filename, description=self.alt_text[:ALT_TEXT_LIMIT]
        )


def side_name(side: Side) -> str:
    """``attackers`` / ``defenders``, as players say it."""
    return side.value


def describe_move(record: MoveRecord, mover_name: str) -> str:
    """ "**alice** (attackers) played d1-d3, capturing c4." """
    text = f"**{escaped(mover_name)}** ({side_name(record.side)}) played {record.move}"
    if record.captures:
        taken = ", ".join(square_name(sq) for sq in record.captures)
        text += f", capturing {taken}"
    return text + "."


def set_label(active: ActiveGame) -> str:
    """ "Set 1 of 2" (or nothing for a one-set match)."""
    if active.sets_total <= 1:
        return ""
    return f"Set {active.set_number} of {active.sets_total}"


def turn_line(active: ActiveGame) -> str:
    """Whose turn it is, mentioning them, with the time left as a Discord timestamp."""
    to_move = active.player_to_move
    parts = [p for p in (set_label(active), f"move {active.ply + 1}") if p]
    where = " · ".join(parts)
    if active.computer_to_move:
        return f"{where} · I am thinking as the {side_name(active.to_move)}…"
    deadline = int(active.deadline.timestamp())
    return (
        f"{where} · <@{to_move}>, your move as the {side_name(active.to_move)} "
        f"(time runs out <t:{deadline}:R>)."
    )


async def board_post(
    active: ActiveGame,
    names: Mapping[int, str],
    *,
    headline: str = "",
    with_turn: bool = True,
    mark_earlier: bool = False,
) -> BoardPost:
    """The post showing ``active``'s board, rendered in a worker thread."""
    game = active.game
    attacker = names.get(active.attacker_id, "attackers")
    defender = names.get(active.defender_id, "defenders")

    def draw() -> tuple[bytes, str]:
        png = render_board(
            game,
            attacker_name=attacker,
            defender_name=defender,
            set_number=active.set_number,
            sets_total=active.sets_total,
            mark_earlier=mark_earlier,
        )
        alt = describe_board(
            game,
            attacker_name=attacker,
            defender_name=defender,
            set_number=active.set_number,
            sets_total=active.sets_total,
        )
        return png, alt

    png, alt = await asyncio.to_thread(draw)
    with_turn = with_turn and game.outcome is None
    lines = [line for line in (headline, turn_line(active) if with_turn else "") if line]
    view: discord.ui.View | None = None
    if with_turn:
        view = discord.ui.View(timeout=None)
        view.add_item(MoveButton(active.game_id))
        view.add_item(TakebackButton(active.game_id))
        view.add_item(ResignButton(active.game_id))
    pings = (active.player_to_move,) if with_turn and not active.computer_to_move else ()
    return BoardPost(content="\n".join(lines), png=png, alt_text=alt, view=view, pings=pings)


def set_end_text(end: SetEnd, names: Mapping[int, str]) -> str:
    """The announcement of a finished set, and of the match if it is over."""
    active = end.game
    label = set_label(active) or "The game"
    moves = f"{end.moves} move" if end.moves == 1 else f"{end.moves} moves"
    lines = [f"**{label} is over** after {moves}. {end.outcome}"]
    if end.winner_id is not None:
        lines.append(f"<@{end.winner_id}> wins the {'set' if active.sets_total > 1 else 'game'}.")
    if end.match_end is not None:
        lines.append(match_end_text(end.match_end, names))
        if end.rating_changes:
            lines.append(rating_text(end.rating_changes, names))
    elif end.next_game is not None:
        nxt = end.next_game
        lines.append(
            f"Set {nxt.set_number} starts with sides swapped: <@{nxt.attacker_id}> attacks, "
            f"<@{nxt.defender_id}> defends."
        )
        if end.rating_changes:
            lines.append(rating_text(end.rating_changes, names))
    return "\n".join(lines)


_MATCH_REASONS = {
    "more_wins": "with more sets won",
    "fewer_moves": "with one set each, by winning their set in fewer moves",
    "equal_moves": "one set each, won in the same number of moves",
    "no_wins": "no set had a winner",
}


def match_end_text(end: MatchEnd, names: Mapping[int, str]) -> str:
    """ "**Match over:** alice wins 2–0 ..." per docs/rules.md §11."""
    if end.aborted or end.result is None or end.reason is None:
        return "**Match aborted:** it ends without a match result, and the aborted set is unrated."
    first, second = end.player_ids
    wins = end.result.wins
    if end.winner_id == second:
        first, second = second, first
    score = f"{wins.get(first, 0)}–{wins.get(second, 0)}"
    how = _MATCH_REASONS.get(end.reason.value, end.reason.value.replace("_", " "))
    if end.winner_id is None:
        return f"**Match drawn** ({score}): {how}."
    return f"**Match over:** <@{end.winner_id}> wins the match {score}, {how}."


def rating_text(changes: tuple[RatingChange, ...], names: Mapping[int, str]) -> str:
    """ "Ratings: alice 1500 → 1662 (+162), bob 1500 → 1338 (−162)"."""
    parts = []
    for change in changes:
        name = escaped(names.get(change.user_id, "a player"))
        delta = round(change.delta)
        sign = "+" if delta >= 0 else "−"
        parts.append(
            f"{name} {change.rating_before:.0f} → {change.rating_after:.0f} ({sign}{abs(delta)})"
        )
    return "Ratings: " + ", ".join(parts) + "."
