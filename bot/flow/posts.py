"""The public board post: picture with alt text, last move, whose turn with a mention, Move button.

Rendering runs in a worker thread (``asyncio.to_thread``): Pillow never runs on the event loop.
"""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import discord

from bot.alike_names import NamesToldApart, cut
from bot.i18n import ENGLISH, Language, Text, _, command, verbatim
from bot.my_permissions import my_permissions
from bot.names import escaped, mention, player_name
from bot.services.domain import ActiveGame, MatchEnd, RatingChange, SetEnd
from bot.views.confirm import ResignButton
from bot.views.leaderboard import rating_text as shown_rating
from bot.views.picker import MoveButton
from bot.views.takeback import TakebackButton
from engine import (
    Game,
    MatchReason,
    MoveRecord,
    Outcome,
    Reason,
    Side,
    get_ruleset,
    square_name,
)
from renderer import ALT_TEXT_LIMIT, describe_board, render_board

NO_PINGS = discord.AllowedMentions.none()
"""Allowed mentions of a message that notifies nobody."""


def or_missing(view: discord.ui.View | None) -> discord.ui.View:
    """``view``, or discord.py's MISSING (no components) when there is none."""
    return view if view is not None else discord.utils.MISSING


def pinging(
    user_ids: tuple[int, ...] | list[int], *, roles: tuple[int, ...] | list[int] = ()
) -> discord.AllowedMentions:
    """Allowed mentions that notify exactly ``user_ids`` and the members of ``roles`` (no one
    else, no other role, no @everyone)."""
    return discord.AllowedMentions(
        everyone=False,
        roles=[discord.Object(role_id) for role_id in roles] if roles else False,
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
    text: str = ""
    """The alt text as a message shows it in place of the picture (the names escaped); if
    empty, the whole alt text escaped."""
    shorter: tuple[str, ...] = ()
    """:attr:`text`'s shorter forms, for a message that would not fit Discord's limit
    otherwise: without the usernames telling the names apart, then with the names cut too."""
    tags: tuple[str, ...] = ()
    """The username tags (" (@alex\\_w)", escaped) telling its players' names and mentions
    apart, which the shorter forms of the message it is in leave out."""
    filename: str = "board.png"
    """The picture's file name: a board's names its set, ply and moves taken back
    (:func:`board_picture_name`), a set's final board its set (:func:`final_picture`)."""

    def allowed_mentions(self) -> discord.AllowedMentions:
        """discord.py's allowed_mentions naming exactly :attr:`pings`."""
        return pinging(self.pings)

    def file(self, filename: str | None = None) -> BoardFile:
        """A fresh file of the picture (a File can be sent once), named :attr:`filename`
        unless ``filename`` says."""
        return BoardFile(
            io.BytesIO(self.png),
            filename=filename or self.filename,
            description=self.alt_text[:ALT_TEXT_LIMIT],
            text=(self.text or escaped(self.alt_text))[:ALT_TEXT_LIMIT],
            shorter=tuple(text[:ALT_TEXT_LIMIT] for text in self.shorter),
            tags=self.tags,
        )


def board_picture_name(set_id: int, ply: int, undone: int) -> str:
    """The file name of the picture of ``set_id``'s board after move ``ply`` with ``undone``
    moves taken back in the set so far, as its Takeback button names it: a board whose buttons
    came off (the game moved on), or one posted late without them, is known by it among the
    channel's newest messages (:mod:`bot.flow.boards_shown`). Players see the picture, not
    its name."""
    return f"board-{set_id}-{ply}-{undone}.png"


def final_picture(set_id: int) -> str:
    """The file name of the picture of ``set_id``'s final board: it carries no button that
    would name it, and the outbox, owing that board after a restart, knows it by this name
    among the channel's newest messages (:mod:`bot.flow.boards_shown`)."""
    return f"end-{set_id}.png"


_FINAL_PICTURE = re.compile(r"end-(\d+)\.png")


def final_board_mark(set_id: int, lang: Language) -> str:
    """What ends the text standing in for ``set_id``'s final picture where I may not attach
    files (:func:`pictures_as_text`): the game's number, as ``/stats`` lists it and ``/export``
    and ``/analyse`` take it (" · game 12"). The picture's name says it where it is shown; so
    that the outbox, owing that board after a restart, knows it shown as text too."""
    return " · " + lang._("game {game}", game=set_id)


class BoardFile(discord.File):
    """A board's picture, which knows how a message shows it where I may not attach files."""

    def __init__(
        self,
        fp: io.BytesIO,
        *,
        filename: str,
        description: str,
        text: str,
        shorter: tuple[str, ...] = (),
        tags: tuple[str, ...] = (),
    ) -> None:
        super().__init__(fp, filename=filename, description=description)
        self.text = text
        self.shorter = shorter
        """:attr:`text`'s shorter forms (:attr:`BoardPost.shorter`)."""
        self.tags = tags
        """The username tags its names are told apart by (:attr:`BoardPost.tags`)."""


MESSAGE_LIMIT = 2000
"""Discord's limit on a message's content."""

CUT_NAMES = 16
"""How many characters of a player's name a board shown as text keeps, where the message
would not fit Discord's limit otherwise (:func:`pictures_as_text`)."""


def pictures_as_text(content: str, files: list[discord.File], lang: Language) -> str:
    """``content`` with each picture's alt text after it, quoted, in place of the pictures: how
    a board is shown where I may not attach files. Past Discord's limit on a message, the
    usernames telling two names alike apart are left out (in ``content`` too), then the boards'
    names are cut (:attr:`BoardPost.shorter`); past it even so (it is not for two boards of any
    preset), one line says so and points to ``/board``, which shows the game's board alone."""
    tags = {tag for file in files if isinstance(file, BoardFile) for tag in file.tags}
    for shorter in range(3):  # as told; without the usernames; the names cut too
        told = content
        if shorter:
            for tag in tags:
                told = told.replace(tag, "")
        described = [
            f"> {_text(file, shorter)}" + _mark(file, lang) for file in files if file.description
        ]
        shown = "\n".join([line for line in (told, *described) if line])
        if len(shown) <= MESSAGE_LIMIT:
            return shown
    too_long = lang._(
        "The board is too long to show as text here: {board_command} shows it.",
        board_command=command("board"),
    )
    return f"{content}\n{too_long}"[:MESSAGE_LIMIT]


def _text(file: discord.File, shorter: int) -> str:
    """``file``'s text in place of the picture: its alt text escaped, or a board's own text,
    in its ``shorter``-th shorter form if it has one (:attr:`BoardPost.shorter`)."""
    if not isinstance(file, BoardFile):
        return escaped(file.description or "")
    forms = (file.text, *file.shorter)
    return forms[min(shorter, len(forms) - 1)]


def _mark(file: discord.File, lang: Language) -> str:
    """What ends ``file``'s text in place of the picture: a set's final board's number
    (:func:`final_board_mark`), or nothing."""
    final = _FINAL_PICTURE.fullmatch(file.filename)
    return "" if final is None else final_board_mark(int(final[1]), lang)


def pictures_or_text(
    interaction: discord.Interaction[Any],
    content: str,
    files: list[discord.File],
    lang: Language,
) -> tuple[str, list[discord.File]]:
    """What answers ``interaction`` with these pictures: themselves, or where its
    ``app_permissions`` lack Attach Files (Discord refuses an answer with files there) the
    content with their alt text (:func:`pictures_as_text`) and no files."""
    if interaction.app_permissions.attach_files:
        return content, files
    return pictures_as_text(content, files, lang), []


def pictures_posted(
    client: discord.Client,
    channel_id: int,
    interaction: discord.Interaction[Any] | None,
    content: str,
    files: list[discord.File],
    lang: Language,
) -> tuple[str, list[discord.File]]:
    """What a post of these pictures in ``channel_id`` shows: as :func:`pictures_or_text` if it
    answers ``interaction``; posted on my own, the pictures where my permissions there let me
    attach them (:func:`may_attach_files`), else their alt text (:func:`pictures_as_text`)."""
    if interaction is not None:
        return pictures_or_text(interaction, content, files, lang)
    if may_attach_files(client, channel_id):
        return content, files
    return pictures_as_text(content, files, lang), []


def may_attach_files(client: discord.Client, channel_id: int) -> bool:
    """Whether I may attach files in ``channel_id`` (a channel or a thread) as Discord last told
    me: for what I post on my own, which no interaction's ``app_permissions`` describe. True
    when the channel is not cached (a post with files then says in the log why it failed)."""
    mine = my_permissions(client, channel_id)
    if mine is None:
        return True
    # discord.py takes Attach Files away where I may not send messages (Discord's implicit
    # permissions; in a thread, its channel's Send Messages counts too), which an interaction's
    # app_permissions do not: there Attach Files is not known, and the picture stays as it
    # would in an answer (a post fails on Send Messages anyway; an edit of mine goes through).
    # Not my_permissions.may_post: in a thread that one counts Send Messages in Threads alone,
    # and this asks whether discord.py kept Attach Files as Discord set it.
    in_thread = isinstance(client.get_channel(channel_id), discord.Thread)
    kept = mine.send_messages and (mine.send_messages_in_threads or not in_thread)
    return mine.attach_files or not kept


def side_name(side: Side, lang: Language = ENGLISH) -> str:
    """``attackers`` / ``defenders``, as players of ``lang`` say it."""
    return lang.render(SIDE_NAMES[side])


SIDE_NAMES = {Side.ATTACKERS: _("attackers"), Side.DEFENDERS: _("defenders")}

_OUTCOMES = {
    (Side.ATTACKERS, Reason.KING_CAPTURED): _("The attackers win: the king was captured."),
    (Side.DEFENDERS, Reason.KING_ESCAPED): _("The defenders win: the king escaped."),
    (Side.ATTACKERS, Reason.ENCIRCLED): _(
        "The attackers win: they encircled the king and every defender."
    ),
    (Side.DEFENDERS, Reason.ALL_CAPTURED): _("The defenders win: every attacker was captured."),
    (Side.ATTACKERS, Reason.REPETITION): _(
        "The attackers win: the defenders repeated a position for the third time."
    ),
    (Side.DEFENDERS, Reason.REPETITION): _(
        "The defenders win: the attackers repeated a position for the third time."
    ),
    (Side.ATTACKERS, Reason.NO_MOVES): _("The attackers win: the defenders had no legal move."),
    (Side.DEFENDERS, Reason.NO_MOVES): _("The defenders win: the attackers had no legal move."),
    (Side.ATTACKERS, Reason.RESIGNED): _("The attackers win: the defenders resigned."),
    (Side.DEFENDERS, Reason.RESIGNED): _("The defenders win: the attackers resigned."),
    (Side.ATTACKERS, Reason.TIMEOUT): _("The attackers win: the defenders ran out of time."),
    (Side.DEFENDERS, Reason.TIMEOUT): _("The defenders win: the attackers ran out of time."),
}


_LEFT_SERVER = {
    Side.ATTACKERS: _("The attackers win: the defenders left the server."),
    Side.DEFENDERS: _("The defenders win: the attackers left the server."),
}


def outcome_text(outcome: Outcome, *, left_server: bool = False) -> Text:
    """How a set ended, as a sentence to say in any language ("The defenders win: ...");
    ``left_server``: the loser had left the server (the set is recorded as lost on time)."""
    if outcome.winner is None:
        return _("No winner: the game was aborted.")
    if left_server:
        return _LEFT_SERVER[outcome.winner]
    found = _OUTCOMES.get((outcome.winner, outcome.reason))
    return found if found is not None else verbatim(str(outcome))


def describe_move(record: MoveRecord, mover_name: str, lang: Language = ENGLISH) -> str:
    """ "**alice** (attackers) played d1-d3, capturing c4." """
    player = f"**{escaped(mover_name)}**"
    move = str(record.move)
    if not record.captures:
        if record.side is Side.ATTACKERS:
            return lang._("{player} (attackers) played {move}.", player=player, move=move)
        return lang._("{player} (defenders) played {move}.", player=player, move=move)
    taken = ", ".join(square_name(sq) for sq in record.captures)
    if record.side is Side.ATTACKERS:
        return lang._(
            "{player} (attackers) played {move}, capturing {squares}.",
            player=player,
            move=move,
            squares=taken,
        )
    return lang._(
        "{player} (defenders) played {move}, capturing {squares}.",
        player=player,
        move=move,
        squares=taken,
    )


def set_label(active: ActiveGame, lang: Language = ENGLISH) -> str:
    """ "Set 1 of 2" (or nothing for a one-set match)."""
    if active.sets_total <= 1:
        return ""
    return lang._("Set {number} of {total}", number=active.set_number, total=active.sets_total)


def turn_line(
    active: ActiveGame, lang: Language = ENGLISH, names: NamesToldApart | None = None
) -> str:
    """Whose turn it is, mentioning them (with their username where ``names`` tells them
    apart by it: :func:`mention`), with the time left as a Discord timestamp."""
    to_move = active.player_to_move
    label = set_label(active, lang)
    if label:
        move = lang._("move {number}", number=active.ply + 1)
        where = f"{label} · {move}"
    else:  # the line begins with the move: "Move 1 · …"
        where = lang._("Move {number}", number=active.ply + 1)
    attackers = active.to_move is Side.ATTACKERS
    if active.computer_to_move:
        if attackers:
            return lang._("{where} · I am thinking as the attackers…", where=where)
        return lang._("{where} · I am thinking as the defenders…", where=where)
    # Discord shows the relative time in each reader's own language.
    deadline = f"<t:{int(active.deadline.timestamp())}:R>"
    player = mention(to_move, names)
    if attackers:
        return lang._(
            "{where} · {player}, your move as the attackers (time runs out {deadline}).",
            where=where,
            player=player,
            deadline=deadline,
        )
    return lang._(
        "{where} · {player}, your move as the defenders (time runs out {deadline}).",
        where=where,
        player=player,
        deadline=deadline,
    )


async def board_post(
    active: ActiveGame,
    names: NamesToldApart,
    lang: Language = ENGLISH,
    *,
    headline: str = "",
    with_turn: bool = True,
    mark_earlier: bool = False,
    left_server: bool = False,
    again: bool = False,
) -> BoardPost:
    """The post showing ``active``'s board, rendered in a worker thread (``left_server``: its
    set was lost by a player who had left the server, which its caption says; ``again``: it
    answers ``/board``, and is not the board owed at that position, which the outbox, owing it
    after a restart, knows by its Takeback button and its picture's name: its button is marked,
    its picture named ``board.png``)."""
    game = active.game
    attacker = names.get(active.attacker_id, side_name(Side.ATTACKERS, lang))
    defender = names.get(active.defender_id, side_name(Side.DEFENDERS, lang))

    # A match of one set is one game: its picture says no "Set 1 of 1".
    one_set = active.sets_total == 1
    png, alt = await asyncio.to_thread(
        board_picture,
        game,
        attacker,
        defender,
        None if one_set else active.set_number,
        None if one_set else active.sets_total,
        lang,
        mark_earlier=mark_earlier,
        left_server=left_server,
    )
    with_turn = with_turn and game.outcome is None
    lines = [
        line for line in (headline, turn_line(active, lang, names) if with_turn else "") if line
    ]
    view: discord.ui.View | None = None
    if with_turn:
        view = discord.ui.View(timeout=None)
        view.add_item(MoveButton(active.set_id, lang))
        view.add_item(
            TakebackButton(active.set_id, lang, ply=active.ply, undone=active.undone, again=again)
        )
        view.add_item(ResignButton(active.set_id, lang))
    pings = (active.player_to_move,) if with_turn and not active.computer_to_move else ()
    # The same words, to stand in a message for the picture: the names made inert there; and
    # shorter, for a message that would not fit otherwise: the usernames left out, then the
    # names cut too.
    alike = names.shown_alike()
    texts = [
        describe_board(
            game,
            attacker_name=escaped(shown.get(active.attacker_id, attacker)),
            defender_name=escaped(shown.get(active.defender_id, defender)),
            set_number=None if one_set else active.set_number,
            sets_total=None if one_set else active.sets_total,
            words=lang,
            left_server=left_server,
        )
        for shown in (
            names,
            alike,
            {uid: cut(name, CUT_NAMES) for uid, name in alike.items()},
        )
    ]
    return BoardPost(
        content="\n".join(lines),
        png=png,
        alt_text=alt,
        view=view,
        pings=pings,
        text=texts[0],
        shorter=tuple(texts[1:]),
        tags=tuple(f" (@{escaped(username)})" for username in names.usernames.values()),
        filename="board.png"
        if again
        else board_picture_name(active.set_id, active.ply, active.undone)
        if game.outcome is None
        else final_picture(active.set_id),
    )


def board_picture(
    game: Game,
    attacker: str | None,
    defender: str | None,
    set_number: int | None,
    sets_total: int | None,
    lang: Language = ENGLISH,
    *,
    mark_earlier: bool = False,
    left_server: bool = False,
) -> tuple[bytes, str]:
    """The picture of ``game``'s board and its alt text, as a board post shows them (Pillow:
    call it in a worker thread)."""
    png = render_board(
        game,
        attacker_name=attacker,
        defender_name=defender,
        set_number=set_number,
        sets_total=sets_total,
        mark_earlier=mark_earlier,
        words=lang,
        left_server=left_server,
    )
    alt = describe_board(
        game,
        attacker_name=attacker,
        defender_name=defender,
        set_number=set_number,
        sets_total=sets_total,
        words=lang,
        left_server=left_server,
    )
    return png, alt


def player_named(user_id: int, computer_id: int | None, names: NamesToldApart) -> str:
    """A player as a set's or a match's end names them: a member by their mention (with their
    username where ``names`` tells them apart by it: :func:`mention`), the computer by its
    name and level in bold, as every other line names it (a mention of me shows neither the
    level nor that it is the computer)."""
    if user_id == computer_id:
        return f"**{escaped(names.get(user_id, 'Brandubh'))}**"
    return mention(user_id, names)


def set_end_text(end: SetEnd, names: NamesToldApart, lang: Language = ENGLISH) -> str:
    """The announcement of a finished set, and of the match if it is over."""
    active = end.game
    outcome = lang.render(outcome_text(end.outcome, left_server=end.left_server))
    if end.moves == 0:
        # "after 0 moves" reads as a count nobody asked for: say no move was played.
        if active.sets_total > 1:
            over = lang._(
                "**Set {number} of {total} is over** before any move. {outcome}",
                number=active.set_number,
                total=active.sets_total,
                outcome=outcome,
            )
        else:
            over = lang._("**The game is over** before any move. {outcome}", outcome=outcome)
    elif active.sets_total > 1:
        over = lang.n_(
            "**Set {number} of {total} is over** after {count} move. {outcome}",
            "**Set {number} of {total} is over** after {count} moves. {outcome}",
            end.moves,
            number=active.set_number,
            total=active.sets_total,
            outcome=outcome,
        )
    else:
        over = lang.n_(
            "**The game is over** after {count} move. {outcome}",
            "**The game is over** after {count} moves. {outcome}",
            end.moves,
            outcome=outcome,
        )
    lines = [over]
    if end.winner_id is not None:
        winner = player_named(end.winner_id, active.computer_id, names)
        if active.sets_total > 1:
            lines.append(lang._("{player} wins the set.", player=winner))
        else:
            lines.append(lang._("{player} wins the game.", player=winner))
        if end.loser_never_moved and end.loser_id is not None and active.computer_id is None:
            lines.append(
                lang._(
                    "It is not rated: {player} never moved in it.",
                    player=mention(end.loser_id, names),
                )
            )
    if end.walkover is not None and end.walkover.loser_id is not None:
        walkover = {
            "player": player_named(end.walkover.loser_id, active.computer_id, names),
            "number": end.walkover.game.set_number,
            "winner": (
                "?"
                if end.walkover.winner_id is None
                else player_named(end.walkover.winner_id, active.computer_id, names)
            ),
        }
        if end.left_server and end.walkover.loser_id == end.loser_id:  # said in the outcome
            lines.append(
                lang._("Set {number} is not played: {winner} wins it without a move.", **walkover)
            )
        else:
            lines.append(
                lang._(
                    "{player} has left the server, so set {number} is not played: {winner} wins "
                    "it without a move.",
                    **walkover,
                )
            )
    if end.match_end is not None:
        if active.sets_total == 1 and end.match_end.aborted:
            lines.append(lang._("**Game aborted:** it has no result and is unrated."))
        elif active.sets_total > 1 or end.winner_id is None:
            # (A match of one set is won with its game: the line above says so.)
            lines.append(match_end_text(end.match_end, names, lang, computer_id=active.computer_id))
        if end.rating_changes:
            lines.append(rating_text(end.rating_changes, names, lang))
    elif end.next_game is not None:
        nxt = end.next_game
        lines.append(
            lang._(
                "Set {number} starts with sides swapped: {attacker} attacks, {defender} defends.",
                number=nxt.set_number,
                attacker=player_named(nxt.attacker_id, active.computer_id, names),
                defender=player_named(nxt.defender_id, active.computer_id, names),
            )
        )
        if end.rating_changes:
            lines.append(rating_text(end.rating_changes, names, lang))
    return "\n".join(lines)


def match_end_pings(end: SetEnd, actor: int | None = None) -> discord.AllowedMentions:
    """Whom the post of a match's end may ping: if its last set ended on time, by leaving
    the server or by resignation (``end``'s, or its walkover's), the player who did not cause
    it — the one who may not be watching — unless that is ``actor`` (who caused the post) or
    the computer; in a match against the computer, nobody. A match an admin aborted pings its
    players (an admin may abort it from anywhere), never ``actor`` nor the computer. A match
    ended by a move pings nobody: both players were just playing."""
    last = end.walkover or end
    if last.outcome.reason is Reason.ABORTED:
        return pinging([p for p in end.game.player_ids if p not in (actor, end.game.computer_id)])
    if end.game.computer_id is not None or last.winner_id in (None, actor):
        return NO_PINGS
    if last.outcome.reason not in (Reason.TIMEOUT, Reason.RESIGNED):
        return NO_PINGS
    return pinging([last.winner_id])


_MATCH_REASONS = {
    MatchReason.FEWER_MOVES: _("with one set each, by winning their set in fewer moves"),
    MatchReason.EQUAL_MOVES: _("one set each, won in the same number of moves"),
    MatchReason.NO_WINS: _("no set had a winner"),
}


def match_end_text(
    end: MatchEnd,
    names: NamesToldApart,
    lang: Language = ENGLISH,
    *,
    computer_id: int | None = None,
) -> str:
    """ "**Match over:** alice wins the match 2–0." per docs/rules.md §11, saying the
    tie-break only when the sets were level ("1–1, with one set each, by winning their set in
    fewer moves"; ``computer_id``: the computer's, named with its level)."""
    if end.aborted or end.result is None or end.reason is None:
        return lang._(
            "**Match aborted:** it ends without a match result, and the aborted set is unrated."
        )
    first, second = end.player_ids
    wins = end.result.wins
    if end.winner_id == second:
        first, second = second, first
    score = f"{wins.get(first, 0)}–{wins.get(second, 0)}"
    if (gone := end.forfeited_by) is not None:  # not "in fewer moves": the other one left
        how = lang._(
            "with one set each, by forfeit: {player} left the server", player=mention(gone, names)
        )
    elif end.reason is MatchReason.MORE_WINS and end.winner_id is not None:
        # 2–0 or 1–0 says who won more sets: the tie-break is told when they were level.
        return lang._(
            "**Match over:** {player} wins the match {score}.",
            player=player_named(end.winner_id, computer_id, names),
            score=score,
        )
    else:
        how = lang.render(_MATCH_REASONS[end.reason])
    if end.winner_id is None:
        return lang._("**Match drawn** ({score}): {how}.", score=score, how=how)
    return lang._(
        "**Match over:** {player} wins the match {score}, {how}.",
        player=player_named(end.winner_id, computer_id, names),
        score=score,
        how=how,
    )


def rating_text(
    changes: tuple[RatingChange, ...], names: Mapping[int, str], lang: Language = ENGLISH
) -> str:
    """ "Ratings: alice 1500 → 1662 (+162), bob 1500 → 1338 (−162)". The change is the
    difference of the ratings as shown (1662.3 → 1720.6 is "1662 → 1721 (+59)"), so that the
    line adds up for anyone checking it."""
    parts = []
    for change in changes:
        name = player_name(names.get(change.user_id), lang)
        delta = round(change.rating_after) - round(change.rating_before)
        sign = "+" if delta >= 0 else "−"
        before = shown_rating(change.rating_before, change.deviation_before)
        after = shown_rating(change.rating_after, change.deviation_after)
        parts.append(f"{name} {before} → {after} ({sign}{abs(delta)})")
    return lang._("Ratings: {changes}.", changes=", ".join(parts))


def opening_headline(
    active: ActiveGame, names: NamesToldApart, lang: Language, headline: str | None = None
) -> str:
    """The headline of the first board of ``active``'s match (``headline``, else that its
    ruleset begins), saying who attacks and who defends when it has a thread of its own."""
    title = lang.gettext(get_ruleset(active.ruleset).title)
    headline = headline or lang._("**{ruleset}** begins.", ruleset=title)
    if active.parent_channel_id is not None:
        headline += " " + lang._(
            "{attacker} attacks, {defender} defends. Good game!",
            attacker=player_named(active.attacker_id, active.computer_id, names),
            defender=player_named(active.defender_id, active.computer_id, names),
        )
    return headline


def opening_pings(active: ActiveGame, pings: discord.AllowedMentions) -> discord.AllowedMentions:
    """Whom the first board of ``active``'s match pings: in a thread of its own both players
    (which adds them to it), else ``pings`` (its board's: the player to move)."""
    players = [p for p in active.player_ids if p != active.computer_id]
    return pinging(players) if active.parent_channel_id is not None else pings
