"""Puzzles: a private board with a move picker, moves proven in the process pool, the daily post.

A player's moves are judged by :func:`engine.puzzles.answer_move` in the pool (a proof search
never runs on the event loop): a correct move is answered by the longest defence and the board
shows both; a wrong move ends the attempt with the refutation; the winning move solves it. Every
step edits the same private message. The daily post is made by the timer loop: the service
claims the day first, so a restart can neither skip it nor post it twice.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

import discord

from bot.channel_waits import Route
from bot.flow.posts import NO_PINGS, outcome_text, pictures_or_text, pictures_posted
from bot.flow.vanished import Gone, unknown_channel
from bot.i18n import ENGLISH, Language, _
from bot.i18n.audience import reader
from bot.i18n.text import engine_sentence
from bot.names import player_name
from bot.services.daily_puzzle import DailyPost
from bot.services.errors import IllegalMove, PuzzleOver, StaleGameError
from bot.services.puzzles import Attempt, by_id
from bot.storage import puzzles as stored
from bot.storage.errors import StorageError
from bot.views.common import answer, update_message, within_deadline
from bot.views.puzzle import attempt_game, next_view, picker_view, solve_day, solve_view
from engine import Game, IllegalMoveError, Side, parse_square
from engine.puzzles import Answer, Difficulty, Puzzle, Verdict, answer_move
from renderer import describe_board, render_board

if TYPE_CHECKING:
    from bot.client import BrandubhBot

_log = logging.getLogger(__name__)


DIFFICULTY_NAMES = {
    Difficulty.EASY: _("easy"),
    Difficulty.MEDIUM: _("medium"),
    Difficulty.HARD: _("hard"),
}


def puzzle_heading(puzzle: Puzzle, lang: Language = ENGLISH) -> str:
    """``**Puzzle p1a2b3c4** · medium (rating 1205) · you play the defenders: win in 2``."""
    difficulty = lang.render(DIFFICULTY_NAMES[puzzle.difficulty])
    params = {"puzzle": puzzle.puzzle_id, "difficulty": difficulty, "rating": puzzle.rating}
    if puzzle.to_move is Side.ATTACKERS:
        return lang.n_(
            "**Puzzle {puzzle}** · {difficulty} (rating {rating}) · you play the **attackers**: "
            "win in {count} move",
            "**Puzzle {puzzle}** · {difficulty} (rating {rating}) · you play the **attackers**: "
            "win in {count} moves",
            puzzle.moves,
            **params,
        )
    return lang.n_(
        "**Puzzle {puzzle}** · {difficulty} (rating {rating}) · you play the **defenders**: "
        "win in {count} move",
        "**Puzzle {puzzle}** · {difficulty} (rating {rating}) · you play the **defenders**: "
        "win in {count} moves",
        puzzle.moves,
        **params,
    )


def board_file(
    puzzle: Puzzle, game: Game, highlight: str | None = None, lang: Language = ENGLISH
) -> discord.File:
    """The puzzle's board as it stands (both last moves marked), with alt text."""
    # Translators: the two names of a puzzle's board: the solver, and the side the bot plays
    # (the attackers or the defenders, whichever the solver is not).
    you, engine = lang._("You"), lang._("Opponent")
    attacker, defender = (you, engine) if puzzle.to_move is Side.ATTACKERS else (engine, you)
    frm = parse_square(highlight, game.ruleset.size) if highlight else None
    png = render_board(
        game,
        attacker_name=attacker,
        defender_name=defender,
        highlight_from=frm,
        mark_earlier=game.ply >= 2,
        words=lang,
        you=puzzle.to_move,
    )
    alt = describe_board(
        game,
        attacker_name=attacker,
        defender_name=defender,
        highlight_from=frm,
        words=lang,
        you=puzzle.to_move,
    )
    return discord.File(io.BytesIO(png), filename="puzzle.png", description=alt[:1024])


def why_wrong(answer: Answer, lang: Language = ENGLISH) -> str:
    """The engine's reason a move fails, in ``lang``: "After a4-a1, the answer b2-b1 wins. …"."""
    outcome = lang.render(outcome_text(answer.outcome)) if answer.outcome is not None else ""
    return lang._(answer.why, move=answer.move, reply=answer.reply, outcome=outcome).strip()


class PuzzleFlow:
    """Showing puzzles, judging moves, posting the daily puzzle."""

    def __init__(self, bot: BrandubhBot) -> None:
        self.bot = bot

    # ---------------------------------------------------------------- solving

    async def play(
        self,
        interaction: discord.Interaction[Any],
        difficulty: Difficulty | None,
        *,
        edit: bool = False,
    ) -> None:
        """/puzzle play (or "Another puzzle"): the player's puzzle, privately."""
        assert interaction.guild_id is not None
        await self.bot.remember(interaction.user)  # the puzzle leaderboard names them
        # Starting one is a write, which another program's lock makes wait: deferred in time
        # (privately, as the puzzle is shown; a press of "Another puzzle" edits its message).
        attempt = await within_deadline(
            interaction,
            self.bot.services.puzzles.start(
                guild_id=interaction.guild_id, user_id=interaction.user.id, difficulty=difficulty
            ),
            ephemeral=True,
            thinking=not edit,
        )
        lang = reader(interaction)
        await self._show(interaction, attempt, self._prompt(attempt, lang), edit=edit)

    async def solve_daily(
        self, interaction: discord.Interaction[Any], puzzle_id: str, day: str
    ) -> None:
        """The Solve button of a daily post: the presser's attempt at it, privately."""
        assert interaction.guild_id is not None
        await self.bot.remember(interaction.user)  # the puzzle leaderboard names them
        message = interaction.message
        # A write, deferred in time as /puzzle play: privately, never editing the public post.
        attempt = await within_deadline(
            interaction,
            self.bot.services.puzzles.start_daily(
                guild_id=interaction.guild_id,
                user_id=interaction.user.id,
                puzzle_id=puzzle_id,
                day=day,
                shown_in=(
                    (message.channel.id, message.id)
                    if message is not None and self._shows_daily(message, puzzle_id, day)
                    else None
                ),
            ),
            ephemeral=True,
        )
        lang = reader(interaction)
        await self._show(interaction, attempt, self._prompt(attempt, lang), edit=False)

    def _shows_daily(self, message: discord.Message, puzzle_id: str, day: str) -> bool:
        """Whether ``message`` is this bot's daily post of ``day`` showing ``puzzle_id``: told
        by its text (a forged press names any id, but cannot change the text), by the day in
        its first line and the puzzle's id in its second, which no language nor rewording
        changes (:func:`daily_text`)."""
        me = self.bot.user
        if me is None or puzzle_id not in by_id() or message.author.id != me.id:
            return False
        lines = message.content.split("\n", 2)
        return len(lines) >= 2 and day in lines[0] and puzzle_id in lines[1]

    async def pick_piece(
        self, interaction: discord.Interaction[Any], attempt_id: int, ply: int, from_name: str
    ) -> None:
        """The first picker step: show the chosen piece's moves."""
        lang = reader(interaction)

        async def drawn() -> tuple[Attempt, Game, discord.File]:
            attempt = await self._current(interaction, attempt_id, ply)
            game = attempt_game(attempt)
            picture = await asyncio.to_thread(board_file, attempt.puzzle, game, from_name, lang)
            return attempt, game, picture

        # A read queued behind others, or a drawing behind others, is deferred in time.
        try:
            attempt, game, picture = await within_deadline(
                interaction, drawn(), ephemeral=True, thinking=False
            )
        except _Behind:
            await self._as_it_stands(interaction, attempt_id, ply)
            return
        where = lang._("Where does {square} go?", square=from_name)
        content, pictures = pictures_or_text(
            interaction, f"{puzzle_heading(attempt.puzzle, lang)}\n{where}", [picture], lang
        )
        view = picker_view(attempt, game, from_name, lang)
        await update_message(interaction, content, view=view, attachments=pictures)

    async def play_move(
        self, interaction: discord.Interaction[Any], attempt_id: int, ply: int, move: str
    ) -> None:
        """The second picker step: judge the move (in the pool) and show what follows."""
        try:
            await self._judge(interaction, attempt_id, ply, move)
        except (StaleGameError, PuzzleOver) as error:
            # A double click: the other press of this square played it (before this one was
            # handled, or while it was judged), and the message, edited, shows that move.
            line = await within_deadline(
                interaction,
                self.bot.services.puzzles.line(attempt_id, interaction.user.id),
                ephemeral=True,
                thinking=False,
            )
            if line is not None and len(line) > ply and line[ply] == move:
                raise StaleGameError(_("You played {move} already.", move=move)) from None
            if not isinstance(error, _Behind):  # another press, answered now: it shows it
                raise
            await self._as_it_stands(interaction, attempt_id, ply)

    async def _judge(
        self, interaction: discord.Interaction[Any], attempt_id: int, ply: int, move: str
    ) -> None:
        """:meth:`play_move`; a StaleGameError when the attempt moved on from ``ply``."""
        # A read queued behind others is deferred in time, as a piece chosen is.
        attempt = await within_deadline(
            interaction,
            self._current(interaction, attempt_id, ply),
            ephemeral=True,
            thinking=False,
        )
        try:
            attempt_game(attempt).parse_move(move)
        except IllegalMoveError as error:
            raise IllegalMove(engine_sentence(error)) from None
        text = await within_deadline(
            interaction,
            # The solver waits on it: ahead of any analysis's searches.
            self.bot.engine.run(
                answer_move, str(attempt.puzzle), list(attempt.line), move, first=True
            ),
            ephemeral=True,
            thinking=False,
        )
        judged = Answer.parse(text)
        service = self.bot.services.puzzles
        lang = reader(interaction)
        if judged.verdict is Verdict.SOLVED:
            done = await self._record(interaction, attempt, (move,), stored.SOLVED)
            stats = await within_deadline(
                interaction, service.stats(interaction.user.id), ephemeral=True, thinking=False
            )
            line = lang.n_(
                "**Solved!** {move} wins. Streak: {count} puzzle.",
                "**Solved!** {move} wins. Streak: {count} puzzles.",
                stats.streak,
                move=move,
            )
            await self._show(
                interaction, done, f"{puzzle_heading(done.puzzle, lang)}\n{line}", edit=True
            )
        elif judged.verdict is Verdict.CORRECT:
            assert judged.reply is not None
            left = attempt.moves_left - 1
            done = await self._record(interaction, attempt, (move, str(judged.reply)), stored.OPEN)
            line = lang.n_(
                "**Good:** {move}. Your opponent answers {reply}. Win in {count} more move.",
                "**Good:** {move}. Your opponent answers {reply}. Win in {count} more moves.",
                left,
                move=move,
                reply=str(judged.reply),
            )
            await self._show(
                interaction, done, f"{puzzle_heading(done.puzzle, lang)}\n{line}", edit=True
            )
        else:
            played = (move, str(judged.reply)) if judged.reply is not None else (move,)
            done = await self._record(interaction, attempt, played, stored.FAILED)
            solution = " ".join(str(m) for m in attempt.puzzle.solution)
            line = lang._(
                "**Not this time:** {why} The solution: {solution}. Your streak starts again.",
                why=why_wrong(judged, lang),
                solution=solution,
            )
            await self._show(
                interaction, done, f"{puzzle_heading(done.puzzle, lang)}\n{line}", edit=True
            )

    async def give_up(
        self, interaction: discord.Interaction[Any], attempt_id: int, ply: int
    ) -> None:
        """Give up: the attempt fails where it stands and the solution is shown (it counts as
        a wrong move would: a puzzle tried, the streak ended)."""
        try:
            await self._give_up(interaction, attempt_id, ply)
        except (StaleGameError, PuzzleOver) as error:
            # A double click: the other press gave it up (before this one was handled, or
            # while it was), and the message, edited, shows the solution. Only a give-up ends
            # an attempt where it stands (a move, played or wrong, lengthens its line).
            line = await within_deadline(
                interaction,
                self.bot.services.puzzles.line(attempt_id, interaction.user.id),
                ephemeral=True,
                thinking=False,
            )
            if line is not None and len(line) == ply:
                raise StaleGameError(_("You gave up on this puzzle already.")) from None
            if not isinstance(error, _Behind):
                raise
            await self._as_it_stands(interaction, attempt_id, ply)

    async def _give_up(
        self, interaction: discord.Interaction[Any], attempt_id: int, ply: int
    ) -> None:
        """:meth:`give_up`; a StaleGameError or PuzzleOver when the attempt moved on or
        ended."""
        attempt = await within_deadline(
            interaction,
            self._current(interaction, attempt_id, ply),
            ephemeral=True,
            thinking=False,
        )
        done = await self._record(interaction, attempt, (), stored.FAILED)
        lang = reader(interaction)
        line = lang._(
            "**You gave up.** The solution: {solution}. Your streak starts again.",
            solution=" ".join(str(m) for m in attempt.puzzle.solution),
        )
        await self._show(
            interaction, done, f"{puzzle_heading(done.puzzle, lang)}\n{line}", edit=True
        )

    async def _record(
        self,
        interaction: discord.Interaction[Any],
        attempt: Attempt,
        played: tuple[str, ...],
        status: str,
    ) -> Attempt:
        """The service's :meth:`record`, a write another program's lock makes wait: the press
        is deferred in time (if the engine's answer came quickly and it was not yet)."""
        return await within_deadline(
            interaction,
            self.bot.services.puzzles.record(
                attempt, played, status, guild_id=interaction.guild_id
            ),
            ephemeral=True,
            thinking=False,
        )

    async def _current(
        self, interaction: discord.Interaction[Any], attempt_id: int, ply: int
    ) -> Attempt:
        attempt = await self.bot.services.puzzles.attempt(attempt_id, interaction.user.id)
        if len(attempt.line) != ply:
            raise _Behind(_("This puzzle moved on since: look at its newest message."))
        return attempt

    async def _as_it_stands(
        self, interaction: discord.Interaction[Any], attempt_id: int, ply: int
    ) -> None:
        """A press on a picker behind its open attempt: the pressed message, made at ``ply``,
        shows the puzzle as it stands, with every move and answer played since. Those may
        never have been shown (a restart, or Discord refusing the edit, after a move was
        stored), or shown in another message (an older message pressed), or in this one by a
        press just before, whose text this edit replaces: said so, it is true in each case and
        nothing is lost."""
        attempt = await within_deadline(
            interaction,
            self.bot.services.puzzles.attempt(attempt_id, interaction.user.id),
            ephemeral=True,
            thinking=False,
        )
        lang = reader(interaction)
        since = attempt.line[ply:]
        if ply < 0 or ply % 2 or not since:  # not behind a move (a forged press): a start
            await self._show(interaction, attempt, self._prompt(attempt, lang), edit=True)
            return
        pairs = [
            (
                lang._("you played {move}, your opponent answered {reply}", move=move, reply=reply)
                if number == 0
                else lang._(
                    "then you played {move}, your opponent answered {reply}",
                    move=move,
                    reply=reply,
                )
            )
            for number, (move, reply) in enumerate(zip(since[::2], since[1::2], strict=True))
        ]
        text = f"{puzzle_heading(attempt.puzzle, lang)}\n" + lang.n_(
            "The puzzle had moved on since this message: {played}. Win in {count} more move.",
            "The puzzle had moved on since this message: {played}. Win in {count} more moves.",
            attempt.moves_left,
            played="; ".join(pairs),
        )
        await self._show(interaction, attempt, text, edit=True)

    def _prompt(self, attempt: Attempt, lang: Language) -> str:
        left = attempt.moves_left
        heading = puzzle_heading(attempt.puzzle, lang)
        if not attempt.line:
            return f"{heading}\n" + lang._("Find the move: choose a piece.")
        return f"{heading}\n" + lang.n_(
            "Welcome back: win in {count} more move.",
            "Welcome back: win in {count} more moves.",
            left,
        )

    async def _show(
        self, interaction: discord.Interaction[Any], attempt: Attempt, content: str, *, edit: bool
    ) -> None:
        """Send (or edit into) the attempt's private message: board and picker or next (the
        board as text where I may not attach files)."""
        game = attempt_game(attempt)
        lang = reader(interaction)
        picture = await within_deadline(
            interaction,
            asyncio.to_thread(board_file, attempt.puzzle, game, None, lang),
            ephemeral=True,
            thinking=not edit,
        )
        view = next_view(lang) if attempt.finished else picker_view(attempt, game, None, lang)
        content, pictures = pictures_or_text(interaction, content, [picture], lang)
        # Filled into a "thinking…" deferral; a press deferred without a message (a slow
        # first read, bot/client.py ``came``) is answered privately as an undeferred one is.
        thinking = discord.InteractionResponseType.deferred_channel_message
        if edit or interaction.response.type is thinking:
            await update_message(interaction, content, view=view, attachments=pictures)
        else:
            await answer(interaction, content, files=pictures, view=view, ephemeral=True)

    # ---------------------------------------------------------------- the daily post

    async def post_daily(self, now: datetime) -> None:
        """Claim due days and post every claimed day Discord does not have yet. A server's
        post the database fails (its language unread, a write) stays owed, tried again at the
        next check, and the other servers' posts go on."""
        service = self.bot.services.puzzles
        await service.claim_due(now)
        for post in await service.posts_owed(now):
            try:
                await self._post_daily(post, now)
            except StorageError as error:
                # The database failed this server's post (its language, say): it stays owed,
                # tried again at the next check, and the other servers' posts go on.
                _log.warning(
                    "The daily puzzle of server %s (%s) stays owed: %r",
                    post.guild_id,
                    post.day,
                    error,
                )

    async def _post_daily(self, post: DailyPost, now: datetime) -> None:
        """Post ``post``, the daily puzzle a server is owed, unless Discord has it already
        (:meth:`post_daily`); raises StorageError if the database fails it. Not while Discord
        asks my posts there to wait (a long 429, :mod:`bot.channel_waits`): tried at the first
        check after, not counted as a refusal whose pause would double past the wait."""
        if self.bot.channel_waits.waiting(Route.POST, post.channel_id) is not None:
            return
        service = self.bot.services.puzzles
        channel = self.bot.get_partial_messageable(post.channel_id)
        lang = await self.bot.flow.server_language(post.guild_id)
        # Named as stored: a mention shows bare digits for a solver who left the server.
        found = await self.bot.display_names(post.guild_id, *post.previous_solvers[:SOLVERS_NAMED])
        # Two solvers shown alike ("solved by alex, alex") are told apart by their usernames.
        names = await self.bot.names_told_apart(found)
        try:
            # A post Discord took just before a restart (its id never stored) is found,
            # not posted again.
            earlier = await self._already_posted(channel, post.day)
            if earlier is not None:
                await service.daily_posted(post.guild_id, post.day, earlier)
                return
            # Where I may not attach files (taken since the channel was set), the board
            # as text: a picture would be refused, and the post retried, every day.
            content, files = pictures_posted(
                self.bot,
                post.channel_id,
                None,
                daily_text(post, names, lang),
                [board_file(post.puzzle, post.puzzle.game(), None, lang)],
                lang,
            )
            message = await channel.send(
                content,
                files=files,
                view=solve_view(post.puzzle.puzzle_id, post.day, lang),
                allowed_mentions=NO_PINGS,
            )
        except (discord.HTTPException, discord.RateLimited) as error:  # a long 429 as a 5xx
            _log.warning(
                "Could not post the daily puzzle in channel %s: %r", post.channel_id, error
            )
            if unknown_channel(error):  # deleted while the bot was away: switched off
                await self.bot.flow.vanished.channel_gone(post.channel_id, Gone.UNKNOWN)
                return
            await service.daily_refused(post.guild_id, post.day, now)
            return
        await service.daily_posted(post.guild_id, post.day, message.id)

    async def _already_posted(self, channel: discord.PartialMessageable, day: str) -> int | None:
        """The id of this bot's post of ``day`` among the channel's latest messages."""
        me = self.bot.user
        if me is None:
            return None
        async for message in channel.history(limit=HISTORY_LOOKED_AT):
            if message.author.id == me.id and is_daily_post(message, day):
                return message.id
        return None


class _Behind(StaleGameError):
    """A press on a picker made for an earlier point of its attempt, found so as it was read
    (not one another press beat to the write, whose own answer shows what it did)."""


def is_daily_post(message: discord.Message, day: str) -> bool:
    """Whether ``message`` is a daily post of ``day``: known by its Solve button's id, which
    does not change with the server's language (nor with a reworded translation)."""
    for row in message.components:
        for item in getattr(row, "children", ()):
            custom_id = getattr(item, "custom_id", None)
            if custom_id and solve_day(custom_id) == day:
                return True
    return False


HISTORY_LOOKED_AT = 50
"""Messages of the channel looked at for a post of the day that was never marked."""


def daily_marker(day: str, lang: Language = ENGLISH) -> str:
    """How a daily post begins."""
    return lang._("**Daily puzzle, {day}**", day=day)


SOLVERS_NAMED = 30
"""The most solvers a daily post names: the rest are counted ("and 12 more players")."""

SOLVERS_LENGTH = 1000
"""The most characters their names take in the post: 30 escaped names of 32 characters may
take over 2,000, more than Discord lets a message hold."""


def daily_text(post: DailyPost, names: Mapping[int, str], lang: Language = ENGLISH) -> str:
    """The daily post: the day, the puzzle, and who solved the one before (by their ``names``
    as stored, "a player" for one the bot was never told the name of)."""
    lines = [
        daily_marker(post.day, lang),
        f"{puzzle_heading(post.puzzle, lang)}.",
        lang._("Press **Solve** to try it privately; your moves are checked as you play."),
    ]
    if post.previous is not None:
        day = post.previous.day
        if post.previous_solvers:
            shown = solvers_shown(post.previous_solvers, names, lang)
            solvers = ", ".join(f"**{name}**" for name in shown)
            more = len(post.previous_solvers) - len(shown)
            if more > 0:
                lines.append(
                    lang.n_(
                        "The puzzle of {day} was solved by {names} and {count} more player.",
                        "The puzzle of {day} was solved by {names} and {count} more players.",
                        more,
                        day=day,
                        names=solvers,
                    )
                )
            else:
                lines.append(
                    lang._("The puzzle of {day} was solved by {names}.", day=day, names=solvers)
                )
        else:
            lines.append(lang._("Nobody solved the puzzle of {day}.", day=day))
    return "\n".join(lines)


def solvers_shown(solvers: tuple[int, ...], names: Mapping[int, str], lang: Language) -> list[str]:
    """The names of the first ``solvers`` a daily post names, escaped: at most
    :data:`SOLVERS_NAMED`, in :data:`SOLVERS_LENGTH` characters."""
    shown: list[str] = []
    length = 0
    for solver in solvers[:SOLVERS_NAMED]:
        name = player_name(names.get(solver), lang)
        length += len(name) + len("**, **")
        if length > SOLVERS_LENGTH:
            break
        shown.append(name)
    return shown
