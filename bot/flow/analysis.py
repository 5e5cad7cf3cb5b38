"""/analyse: score every position of a finished set in the process pool, then post the review.

The reply is deferred at once; while the engine works the deferred message shows how far it got
("Analysing… 40 %"), edited at most every PROGRESS_STEP of the way, not per position. Positions
are searched one at a time, each taking a worker behind the computer's moves and the puzzles'
answers, so no number of analyses holds up a game against the computer. The scores are stored:
asking again reads them and only draws the pictures. Two requests for the same set share one
analysis.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from bot.ai_pool import PoolClosed
from bot.errors import permission_names, refused_permissions
from bot.flow.marked_moves import annotation_note, marked_moves
from bot.flow.outbox import unknown_message
from bot.flow.posts import NO_PINGS
from bot.flow.review_texts import graph_alt_text, replay_alt_text, review_text
from bot.flow.threads import edit_answer_reopening, edit_reopening
from bot.flow.uploads import fit_pictures, picture_budget
from bot.i18n import Language, _, command
from bot.services.analysis import SetToAnalyse
from bot.services.errors import GameError
from bot.services.records import AT_LEVEL
from bot.storage.errors import StorageError
from bot.views.common import answer, deferred_privately, within_deadline
from bot.views.public_places import hidden_for
from engine.analysis import GameReview, PositionScore, evaluate_position, judge_game
from renderer.graph import render_win_chance
from renderer.replay import Annotation, render_replay

if TYPE_CHECKING:
    from bot.client import BrandubhBot

_log = logging.getLogger(__name__)

INVALID_WEBHOOK_TOKEN = 50027
"""Discord's code refusing an interaction's token past its 15 minutes (with 401)."""
PROGRESS_STEP = 0.2
"""The deferred reply is edited each time another fifth of the positions is done."""
REPLAY_WIDTH = 420
"""The annotated replay's width: small enough for a phone and a light GIF."""

Progress = Callable[[float], Awaitable[None]]


class AnalysisFlow:
    """Analysing sets for /analyse."""

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot
        self._running: dict[int, asyncio.Future[GameReview]] = {}

    async def analyse(self, interaction: discord.Interaction[Any], set_id: int | None) -> None:
        """Answer /analyse: defer, choose the set, analyse (or read) it, post the review."""
        assert interaction.guild_id is not None
        # Choosing is a quick read: a refusal is answered privately before anything is deferred
        # (or, if the read is slow, after a private deferral: the progress is then shown to the
        # asker alone, and the review posted apart).
        guild_id = interaction.guild_id

        async def choose() -> SetToAnalyse:
            # Read for the channel, in the server's language (names included).
            words = await self.bot.flow.server_language(guild_id)
            # Who may see the set's place may be asked of Discord: inside the deadline too.
            return await self.bot.services.analyses.choose(
                guild_id,
                set_id=set_id,
                channel_id=None if set_id is not None else interaction.channel_id,
                hidden=await hidden_for(interaction, set_id),
                unnamed=words._("a player"),
                at_level=words.gettext(AT_LEVEL),
            )

        chosen = await within_deadline(interaction, choose(), ephemeral=True)
        # One game at a time per member (each position's search takes a turn of the workers
        # the computer's moves need too), claimed in the database: it holds across shard
        # processes. The same game asked twice shares one analysis: the member's turn ends
        # with the last.
        asker = interaction.user.id
        analyses = self.bot.services.analyses

        async def unanswered(running: int | None) -> None:
            if running is None:  # claimed, but the asker cannot be answered: given up
                await analyses.release(asker, chosen.set_id)

        running = await within_deadline(
            interaction,
            analyses.claim(asker, chosen.set_id),
            ephemeral=True,
            unanswered=unanswered,
        )
        if running is not None:
            raise GameError(
                _(
                    "Your analysis of game {game} is still running: wait for it before asking "
                    "for another.",
                    game=running,
                )
            )
        try:
            await self._answer(interaction, chosen)
        finally:
            try:
                await analyses.release(asker, chosen.set_id)
            except StorageError as error:  # the claim lapses on its own
                _log.warning("Could not release %s's analysis claim: %s", asker, error)

    async def _answer(self, interaction: discord.Interaction[Any], chosen: SetToAnalyse) -> None:
        """:meth:`analyse` once the set is chosen: the progress, then the review."""
        assert interaction.guild_id is not None
        reply = _Reply()
        if not interaction.response.is_done():
            deferred = await interaction.response.defer(thinking=True)
            # Known now, not only from a progress edit: an asker sharing a running analysis
            # sees none, and past the 15 minutes the reply is edited through the channel.
            reply.message_id = None if deferred is None else deferred.message_id
        # The review is posted for the channel: it is said in the server's language.
        lang = await self.bot.flow.server_language(interaction.guild_id)

        async def progress(done: float) -> None:
            if not reply.editable:
                return
            try:
                shown = await edit_answer_reopening(
                    interaction,
                    content=lang._(
                        "Analysing game {game}… {percent} %",
                        game=chosen.set_id,
                        percent=round(done * 100),
                    ),
                )
                reply.message_id = shown.id
            except discord.HTTPException as error:
                reply.refused(error)
                _log.info("Could not show the analysis's progress: %s", error)

        try:
            review = await self.review(chosen, progress)
        except (asyncio.CancelledError, PoolClosed):
            # The bot is stopping (a restart or deploy): say so rather than leave the reply
            # at "Analysing… 67 %" for good.
            with contextlib.suppress(discord.HTTPException):
                await interaction.edit_original_response(
                    content=lang._(
                        "The analysis of game {game} was interrupted by a restart: run "
                        "{analyse_command} again.",
                        game=chosen.set_id,
                        analyse_command=command("analyse"),
                    )
                )
            raise
        text = review_text(chosen, review, lang)
        graph, replay = await asyncio.to_thread(
            _pictures, chosen, review, lang, interaction.filesize_limit
        )
        if replay is None:
            text += "\n" + lang._(
                "The annotated replay is too large to post here; the moves above say what it "
                "would show."
            )
        pictures = _review_files(chosen, review, lang, graph, replay)
        if deferred_privately(interaction):
            await answer(interaction, text, files=pictures(), allowed_mentions=NO_PINGS)
            return
        try:
            await self._show(interaction, reply, text, pictures)
        except discord.Forbidden as refused:
            # The asker is told why privately (the error handler); everyone else would see
            # the progress line stuck for good.
            await self._not_shown(interaction, reply, chosen, refused, lang)
            raise

    async def _not_shown(
        self,
        interaction: discord.Interaction[Any],
        reply: _Reply,
        chosen: SetToAnalyse,
        refused: discord.Forbidden,
        lang: Language,
    ) -> None:
        """Discord ``refused`` the review here (Attach Files taken away while the engine
        worked, say): its public progress line says so in one line, and why, and whether
        /analyse shows it elsewhere — best effort, pinging nobody."""
        missing = refused_permissions(interaction, refused)
        if missing is None or not reply.editable:
            return  # a locked thread (its own refusal says so), or the line is out of reach
        line = lang.n_(
            "The analysis of game {game} could not be posted here: I need the {permissions} "
            "permission here.",
            "The analysis of game {game} could not be posted here: I need the {permissions} "
            "permissions here.",
            len(missing),
            game=chosen.set_id,
            permissions=permission_names(missing, lang),
        )
        nodes = chosen.nodes(self.bot.settings.analysis_nodes)
        try:
            if await self.bot.services.analyses.stored(chosen, nodes) is not None:
                line += " " + lang._(
                    "It is stored: {analyse_command} shows it at once in a channel where I can "
                    "attach files.",
                    analyse_command=command("analyse", game=chosen.set_id),
                )
        except StorageError as error:  # not known to be stored: not said to be
            _log.info("Could not tell whether game %s's review is stored: %s", chosen.set_id, error)
        try:
            await interaction.edit_original_response(content=line, allowed_mentions=NO_PINGS)
        except discord.HTTPException as error:
            _log.info("Could not say the analysis's review was refused: %s", error)

    async def _show(
        self,
        interaction: discord.Interaction[Any],
        reply: _Reply,
        text: str,
        pictures: Callable[[], list[discord.File]],
    ) -> None:
        """The review in the deferred reply; in a message of its own when a moderator deleted
        the reply; and, past the 15 minutes an answer can be edited in (the engine was busy),
        in the reply (or the channel) through the channel's own routes."""
        try:
            if reply.editable:
                try:
                    await edit_answer_reopening(
                        interaction, content=text, attachments=pictures(), allowed_mentions=NO_PINGS
                    )
                    return
                except discord.NotFound as error:
                    if not unknown_message(error):
                        raise
                    reply.deleted = True
            if not reply.expired:
                await interaction.followup.send(text, files=pictures(), allowed_mentions=NO_PINGS)
                return
        except discord.HTTPException as error:
            reply.refused(error)
            if not reply.expired:
                raise
        assert interaction.channel_id is not None
        _log.info("The analysis's answer expired before it was ready: shown through the channel")
        channel = self.bot.get_partial_messageable(
            interaction.channel_id, guild_id=interaction.guild_id
        )
        if reply.message_id is not None and not reply.deleted:
            try:
                await edit_reopening(
                    self.bot,
                    channel.get_partial_message(reply.message_id),
                    content=text,
                    attachments=pictures(),
                    allowed_mentions=NO_PINGS,
                )
                return
            except discord.NotFound as error:
                if not unknown_message(error):
                    raise
        await channel.send(text, files=pictures(), allowed_mentions=NO_PINGS)

    async def review(self, chosen: SetToAnalyse, progress: Progress | None = None) -> GameReview:
        """The review of ``chosen``: stored, shared with a running analysis, or made now."""
        nodes = chosen.nodes(self.bot.settings.analysis_nodes)
        stored = await self.bot.services.analyses.stored(chosen, nodes)
        if stored is not None:
            return stored
        running = self._running.get(chosen.set_id)
        if running is not None:
            return await asyncio.shield(running)
        task = asyncio.ensure_future(self._search(chosen, nodes, progress))
        self._running[chosen.set_id] = task
        try:
            return await asyncio.shield(task)
        finally:
            if task.done():
                self._running.pop(chosen.set_id, None)
            else:
                task.add_done_callback(lambda done: self._search_over(chosen.set_id, done))

    def _search_over(self, set_id: int, task: asyncio.Future[GameReview]) -> None:
        """A search whose asker stopped waiting (the bot stopping) ended: forget it, and note
        how it ended (never an unretrieved exception)."""
        self._running.pop(set_id, None)
        if not task.cancelled() and task.exception() is not None:
            _log.info("The analysis of game %s stopped: %r", set_id, task.exception())

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
        try:
            return await self.bot.services.analyses.store(chosen, nodes, scores)
        except StorageError as error:
            # Not kept (another program held the database too long, say): the review is shown
            # all the same, and searched again if asked for again.
            _log.warning("Could not keep the analysis of game %s: %s", chosen.set_id, error)
            return judge_game(game, scores)


@dataclass
class _Reply:
    """What is known of an /analyse's deferred public reply while the engine works."""

    message_id: int | None = None
    """Its message, as the deferral (or an edit of it) said."""
    deleted: bool = False
    """A moderator deleted it (404 Unknown Message)."""
    expired: bool = False
    """The interaction's token is past its 15 minutes (401 Invalid Webhook Token): nothing
    can be edited or sent with it any more."""

    @property
    def editable(self) -> bool:
        """Whether the reply can still be edited through the interaction."""
        return not (self.deleted or self.expired)

    def refused(self, error: discord.HTTPException) -> None:
        """Note what Discord's ``error``, answering a request with the token, says of it."""
        self.deleted = self.deleted or unknown_message(error)
        self.expired = self.expired or (error.status == 401 and error.code == INVALID_WEBHOOK_TOKEN)


def _review_files(
    chosen: SetToAnalyse, review: GameReview, lang: Language, graph: bytes, replay: bytes | None
) -> Callable[[], list[discord.File]]:
    """What makes the review's attachments (the graph, and the replay unless left out): new
    ones for each try, as a refused one has read them."""

    def files() -> list[discord.File]:
        made = [
            discord.File(
                io.BytesIO(graph),
                filename=f"analysis-{chosen.set_id}.png",
                description=graph_alt_text(chosen, review, lang),
            )
        ]
        if replay is not None:
            made.append(
                discord.File(
                    io.BytesIO(replay),
                    filename=f"analysis-{chosen.set_id}.gif",
                    description=replay_alt_text(chosen, review, lang),
                )
            )
        return made

    return files


def _pictures(
    chosen: SetToAnalyse, review: GameReview, lang: Language, upload_limit: int
) -> tuple[bytes, bytes | None]:
    """The win-chance graph and the annotated replay, which is drawn smaller or left out
    (None) if both would pass ``upload_limit`` together (in a worker thread)."""
    marked = marked_moves(review)
    graph = render_win_chance(
        review.chances,
        marked,
        attacker_name=chosen.attacker_name or None,
        defender_name=chosen.defender_name or None,
        title=lang._("Game {game}: win chance", game=chosen.set_id),
        words=lang,
    )
    annotations = [
        Annotation(
            ply=each.ply,
            played=each.move,
            better=each.better,
            note=annotation_note(each, lang),
        )
        for each in marked
    ]

    def draw(width: int | None) -> bytes:
        return render_replay(
            chosen.game,
            attacker_name=chosen.attacker_name or None,
            defender_name=chosen.defender_name or None,
            set_number=chosen.set_number if chosen.sets_total > 1 else None,
            sets_total=chosen.sets_total if chosen.sets_total > 1 else None,
            width=width or REPLAY_WIDTH,
            annotations=annotations,
            words=lang,
            left_server=chosen.left_by is not None,
        )

    [replay] = fit_pictures([draw], picture_budget(upload_limit, graph))
    return graph, replay
