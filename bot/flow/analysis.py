"""/analyse: score every position of a finished set in the process pool, then post the review.

The reply is deferred at once; while the engine works the deferred message shows how far it got
("Analysing… 40 %"), edited at most every PROGRESS_STEP of the way, not per position. Positions
are searched one at a time, each taking a worker in turn with the computer's moves, so a long
analysis never holds up a game against the computer. The scores are stored: asking again reads
them and only draws the pictures. Two requests for the same set share one analysis.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.flow.posts import NO_PINGS
from bot.names import escaped
from bot.services.analysis import SetToAnalyse
from bot.views.common import within_deadline
from engine import Side
from engine.analysis import GameReview, MoveReview, PositionScore, evaluate_position
from renderer.graph import MARKS, render_win_chance
from renderer.replay import Annotation, render_replay

if TYPE_CHECKING:
    from bot.client import BrandubhBot

_log = logging.getLogger(__name__)

PROGRESS_STEP = 0.2
"""The deferred reply is edited each time another fifth of the positions is done."""
MARKED_PER_SIDE = 3
REPLAY_WIDTH = 420
"""The annotated replay's width: small enough for a phone and a light GIF."""

Progress = Callable[[float], Awaitable[None]]


class AnalysisFlow:
    """Analysing sets for /analyse."""

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot
        self._running: dict[int, asyncio.Future[GameReview]] = {}

    async def analyse(self, interaction: discord.Interaction[Any], game_id: int | None) -> None:
        """Answer /analyse: defer, choose the set, analyse (or read) it, post the review."""
        assert interaction.guild_id is not None
        # Choosing is a quick read: a refusal is answered privately before anything is deferred.
        chosen = await within_deadline(
            interaction,
            self.bot.services.analyses.choose(
                interaction.guild_id,
                game_id=game_id,
                channel_id=None if game_id is not None else interaction.channel_id,
            ),
        )
        if not interaction.response.is_done():
            await interaction.response.defer(thinking=True)

        async def progress(done: float) -> None:
            try:
                await interaction.edit_original_response(
                    content=f"Analysing game {chosen.game_id}… {round(done * 100)} %"
                )
            except discord.HTTPException as error:
                _log.info("Could not show the analysis's progress: %s", error)

        review = await self.review(chosen, progress)
        text = review_text(chosen, review)
        graph, replay = await asyncio.to_thread(_pictures, chosen, review)
        files = [
            discord.File(
                io.BytesIO(graph),
                filename=f"analysis-{chosen.game_id}.png",
                description=graph_alt_text(chosen, review),
            ),
            discord.File(
                io.BytesIO(replay),
                filename=f"analysis-{chosen.game_id}.gif",
                description=f"A replay of game {chosen.game_id}; before each marked move the "
                "played move is a red arrow and the better move a green one.",
            ),
        ]
        await interaction.edit_original_response(
            content=text, attachments=files, allowed_mentions=NO_PINGS
        )

    async def review(self, chosen: SetToAnalyse, progress: Progress | None = None) -> GameReview:
        """The review of ``chosen``: stored, shared with a running analysis, or made now."""
        nodes = chosen.nodes(self.bot.settings.analysis_nodes)
        stored = await self.bot.services.analyses.stored(chosen, nodes)
        if stored is not None:
            return stored
        running = self._running.get(chosen.game_id)
        if running is not None:
            return await asyncio.shield(running)
        task = asyncio.ensure_future(self._search(chosen, nodes, progress))
        self._running[chosen.game_id] = task
        try:
            return await asyncio.shield(task)
        finally:
            if task.done():
                self._running.pop(chosen.game_id, None)
            else:
                task.add_done_callback(lambda _: self._running.pop(chosen.game_id, None))

    async def _search(
        self, chosen: SetToAnalyse, nodes: int, progress: Progress | None
    ) -> GameReview:
        game = chosen.game
        moves = [str(record.move) for record in game.records]
        total = game.ply + 1
        scores: list[PositionScore] = []
        shown = 0.0
        if progress is not None:
            await progress(0.0)
        for ply in range(total):
            text = await self.bot.engine.run(
                evaluate_position,
                game.ruleset.name,
                game.starting_position,
                game.starting_side.value,
                moves[:ply],
                nodes,
            )
            scores.append(PositionScore.parse(text))
            done = len(scores) / total
            if progress is not None and done < 1.0 and done - shown >= PROGRESS_STEP:
                shown = done
                await progress(done)
        return await self.bot.services.analyses.store(chosen, nodes, scores)


def _pictures(chosen: SetToAnalyse, review: GameReview) -> tuple[bytes, bytes]:
    """The win-chance graph and the annotated replay (in a worker thread)."""
    marked = marked_moves(review)
    graph = render_win_chance(
        review.chances,
        marked,
        attacker_name=chosen.attacker_name or None,
        defender_name=chosen.defender_name or None,
        title=f"Game {chosen.game_id}: win chance",
    )
    annotations = [
        Annotation(
            ply=each.ply,
            played=each.move,
            better=each.better,
            note=f"Move {each.number}: {each.move}{MARKS[each.judgement]}"
            + (f", better {each.better}" if each.better is not None else ""),
        )
        for each in marked
    ]
    replay = render_replay(
        chosen.game,
        attacker_name=chosen.attacker_name or None,
        defender_name=chosen.defender_name or None,
        set_number=chosen.set_number if chosen.sets_total > 1 else None,
        sets_total=chosen.sets_total if chosen.sets_total > 1 else None,
        width=REPLAY_WIDTH,
        annotations=annotations,
    )
    return graph, replay


def marked_moves(review: GameReview) -> list[MoveReview]:
    """The moves the pictures mark: each side's three costliest, in the order played."""
    marked = review.worst(Side.ATTACKERS, MARKED_PER_SIDE) + review.worst(
        Side.DEFENDERS, MARKED_PER_SIDE
    )
    return sorted(marked, key=lambda each: each.ply)


def review_text(chosen: SetToAnalyse, review: GameReview) -> str:
    """The reply: which set, how it ended, and each side's biggest mistakes with better moves."""
    game = chosen.game
    names = {
        Side.ATTACKERS: escaped(chosen.attacker_name or "Attackers"),
        Side.DEFENDERS: escaped(chosen.defender_name or "Defenders"),
    }
    set_part = f", set {chosen.set_number} of {chosen.sets_total}" if chosen.sets_total > 1 else ""
    ending = f"{chosen.outcome} " if chosen.outcome is not None else ""
    lines = [
        f"**Analysis of game {chosen.game_id}**{set_part}: {names[Side.ATTACKERS]} (attackers) "
        f"vs {names[Side.DEFENDERS]} (defenders). {ending}After {game.ply} moves.",
    ]
    for side in (Side.ATTACKERS, Side.DEFENDERS):
        worst = review.worst(side, MARKED_PER_SIDE)
        counts = review.counts(side)
        tally = ", ".join(
            f"{counts[judgement]} {judgement.label}{'s' if counts[judgement] != 1 else ''}"
            for judgement in sorted(MARKS, reverse=True)
        )
        lines.append(f"**{names[side]}** ({side.value}): {tally}.")
        if not worst:
            lines.append("- No move lost more than 10 % of a win: well played.")
        for each in worst:
            lines.append(f"- {_capitalised(each.describe())}")
    lines.append(
        "The graph shows the attackers' chance of winning after each move; the replay shows, "
        "before each marked move, the move played (red) and the better move (green)."
    )
    return "\n".join(lines)


def graph_alt_text(chosen: SetToAnalyse, review: GameReview) -> str:
    """Alt text of the graph: the chance at the start, the end and the marked turns."""
    start = round(review.chances[0] * 100)
    end = round(review.chances[-1] * 100)
    marked = "; ".join(
        f"move {each.number} {each.move} {each.judgement.label}" for each in marked_moves(review)
    )
    text = (
        f"Game {chosen.game_id}: the attackers' chance of winning, {start} % at the start and "
        f"{end} % at the end."
    )
    return (text + (f" Marked: {marked}." if marked else ""))[:1024]


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]
