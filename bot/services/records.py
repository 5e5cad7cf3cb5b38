"""Records of what is and was played: the games in progress in a server, the terms a match was
played with (for a rematch), and OpenTafl exports of sets and whole matches (a record per set:
OpenTafl opens one game per file).

Reads only. Positions come from the games' shared :class:`GameCache` (rebuilt from the moves
when not kept), so exporting a game that this process drives costs no replay.
"""

from __future__ import annotations

from functools import partial

from bot.alike_names import read_apart
from bot.i18n import _, command
from bot.services.domain import (
    GameExport,
    GameInProgress,
    GamesPage,
    HiddenPlaces,
    MatchExport,
    MatchTerms,
    Place,
    Unshown,
    last_page,
)
from bot.services.errors import NoGameHere
from bot.services.game_cache import GameCache
from bot.storage import Database, places, players, sets
from bot.storage.connection import Connection
from bot.storage.sets import SetRow
from bot.storage.times import duration, from_us
from engine import Side, write_record
from engine.record import DATE_FORMAT, LEFT_SERVER_TAG

AT_LEVEL = "{name} (level {level})"
"""The computer named with its level, as every line names it ("Brandubh (level 4)"): the
catalogs' message, which a caller passes translated (``lang.gettext(AT_LEVEL)``)."""


class RecordService:
    """The games in progress, match terms, and OpenTafl exports."""

    def __init__(self, database: Database, cache: GameCache) -> None:
        self._database = database
        self._cache = cache

    async def match_terms(self, match_id: int) -> MatchTerms:
        """The terms a match was played with (for a rematch). Raises NoGameHere if unknown."""
        async with self._database.snapshot() as db:
            match = await sets.match(db, match_id)
            parent, line = await places.thread_parent(db, match_id)
        if match is None:
            raise NoGameHere(_("That match is unknown."))
        return MatchTerms(
            match_id=match.match_id,
            guild_id=match.guild_id,
            channel_id=match.channel_id,
            parent_channel_id=parent,
            line_message_id=line,
            player1_id=match.player1_id,
            player2_id=match.player2_id,
            player1_side=Side(match.player1_side),
            ruleset=match.ruleset,
            sets_total=match.sets_total,
            time_per_move=duration(match.time_per_move_us),
            computer_id=match.computer_id,
            computer_level=match.computer_level,
            finished=match.status == sets.FINISHED,
        )

    async def places_in_progress(self, guild_id: int) -> list[Place]:
        """Where ``guild_id``'s games in progress are played: each channel (or thread) and,
        for a thread the bot started, its parent channel."""
        async with self._database.snapshot() as db:
            return await places.in_progress(db, guild_id)

    async def place_of(self, set_id: int, guild_id: int) -> Place | None:
        """Where the set ``set_id`` was played (as :meth:`places_in_progress`), if it is a set
        of ``guild_id`` (nothing is said of another server's sets)."""
        async with self._database.snapshot() as db:
            return await places.of_set(db, set_id, guild_id)

    async def in_progress(
        self,
        guild_id: int,
        *,
        player_id: int | None = None,
        offset: int = 0,
        limit: int = 10,
        hidden_channel_ids: frozenset[int] = frozenset(),
        after_match: int | None = None,
        before_match: int | None = None,
    ) -> GamesPage:
        """A page of the server's games in progress, oldest match first (``player_id``:
        theirs), leaving out those in ``hidden_channel_ids`` and their threads: from
        ``offset``, or the page after match ``after_match`` or before ``before_match`` (the
        last and first games of the page shown, which keep their places however many games
        ended since: an offset would skip or repeat as many)."""
        limit = max(1, min(25, limit))
        hidden = hidden_channel_ids
        async with self._database.snapshot() as db:
            if after_match is not None:  # the games up to and with it are on earlier pages
                offset = await sets.in_progress_before(
                    db, guild_id, player_id, after_match + 1, hidden
                )
            elif before_match is not None:
                earlier = await sets.in_progress_before(
                    db, guild_id, player_id, before_match, hidden
                )
                offset = earlier - limit
            offset = max(0, offset)
            total, rows = await sets.in_progress(db, guild_id, player_id, offset, limit, hidden)
            if not rows and (last := last_page(offset, total, limit)) != offset:
                offset = last  # the list shrank below the page asked for
                total, rows = await sets.in_progress(db, guild_id, player_id, offset, limit, hidden)
        listed = tuple(
            GameInProgress(
                set_id=row.set_id,
                match_id=row.match_id,
                channel_id=row.channel_id,
                ruleset=row.ruleset,
                set_number=row.set_number,
                sets_total=row.sets_total,
                attacker_id=row.attacker_id,
                defender_id=row.defender_id,
                ply=row.ply,
                to_move_id=row.to_move_id,
                computer_id=row.computer_id,
                computer_level=row.computer_level,
                parent_channel_id=row.parent_channel_id,
            )
            for row in rows
        )
        return GamesPage(guild_id, player_id, offset, limit, total, listed)

    async def export(
        self,
        *,
        set_id: int | None = None,
        channel_id: int | None = None,
        unnamed: str,
        at_level: str = AT_LEVEL,
    ) -> GameExport:
        """A set's OpenTafl record (player names, set, date and game number as tags) and
        engine game for a replay; a player whose name the bot was never told is called
        ``unnamed`` ("a player" in the reader's language), never by an id, and the computer
        by its name and level as ``at_level`` (:data:`AT_LEVEL` in the reader's language).

        Give ``set_id``, or ``channel_id`` for the channel's current or latest game. Raises
        NoGameHere when there is none.
        """
        async with self._database.snapshot() as db:
            if set_id is not None:
                row = await sets.by_id(db, set_id)
            elif channel_id is not None:
                row = await sets.latest_in_channel(db, channel_id)
            else:
                raise NoGameHere(_("Say which game to export."))
            if row is None:
                raise NoGameHere(_("There is no game to export here."))
            return await self._export(db, row, unnamed, at_level)

    async def export_match(
        self,
        guild_id: int,
        *,
        set_id: int | None = None,
        channel_id: int | None = None,
        hidden: HiddenPlaces | None = None,
        unnamed: str,
        at_level: str = AT_LEVEL,
    ) -> MatchExport:
        """Every set of a match: the channel's latest match (or, if newer, the latest finished
        match of a thread the bot started there), or the match of a finished set; a player
        whose name the bot was never told is called ``unnamed``, and the computer named with
        its level as ``at_level``, as in :meth:`export`.

        With ``set_id`` the set must be a finished set of ``guild_id``, not played in (a thread
        of) one of the places ``hidden``, and only the match's finished sets are exported (a
        game in progress cannot be exported by id, so a player cannot study it elsewhere; in
        its own channel it can). Raises NoGameHere.
        """
        async with self._database.snapshot() as db:
            if set_id is not None:
                row = await sets.by_id(db, set_id)
                if row is None or row.guild_id != guild_id:
                    raise NoGameHere(_("There is no game {game} in this server.", game=set_id))
                check_shown(row, hidden or {})
                if row.status == sets.ACTIVE:
                    raise NoGameHere(
                        _("Game {game} is still being played: export it after.", game=set_id)
                    )
            elif channel_id is not None:
                row = await sets.latest_in_channel(db, channel_id)
                if row is None:
                    raise NoGameHere(
                        _(
                            "There is no game to export in this channel: {games_command} lists "
                            "where the games are.",
                            games_command=command("games"),
                        )
                    )
            else:
                raise NoGameHere(_("Say which game to export."))
            # A set still being played is exported only from its own channel or thread.
            here = set_id is None and row.channel_id == channel_id
            exported = [
                each
                for each in await sets.match_sets(db, row.match_id)
                if here or each.status != sets.ACTIVE
            ]
            exports = tuple([await self._export(db, each, unnamed, at_level) for each in exported])
        return MatchExport(row.match_id, exports)

    async def _export(self, db: Connection, row: SetRow, unnamed: str, at_level: str) -> GameExport:
        game = await self._cache.load(db, row)
        pair = [row.attacker_id, row.defender_id]
        shown = await players.names(db, row.guild_id, pair)
        # Two players shown alike ("alex" and "alex") are tagged apart: "alex (@alex_w)".
        names = await read_apart(shown, partial(players.usernames, db))
        attacker = names.get(row.attacker_id, unnamed)
        defender = names.get(row.defender_id, unnamed)
        if row.computer_id is not None and row.computer_level is not None:
            if row.computer_id == row.attacker_id:
                attacker = at_level.format(name=attacker, level=row.computer_level)
            else:
                defender = at_level.format(name=defender, level=row.computer_level)
        tags = {
            "attackers": attacker,
            "defenders": defender,
            "set": f"{row.set_number}/{row.sets_total}",
            "date": from_us(row.started_us).strftime(DATE_FORMAT),
            "game-id": str(row.set_id),
        }
        copy = game.copy()
        left_by = None
        if row.left_server and copy.outcome is not None and copy.outcome.winner is not None:
            # Recorded as lost on time ([termination:timeout], a code OpenTafl knows); this
            # tag, which OpenTafl and read_record pass over, says why.
            left_by = copy.outcome.winner.opponent
            tags[LEFT_SERVER_TAG] = left_by.value
        computer_side = None
        if row.computer_id is not None:
            computer_side = Side.ATTACKERS if row.computer_id == row.attacker_id else Side.DEFENDERS
        return GameExport(
            row.set_id,
            write_record(copy, tags),
            copy,
            attacker,
            defender,
            computer_side,
            set_number=row.set_number,
            sets_total=row.sets_total,
            left_by=left_by,
            not_played=row.walkover,
        )


def check_shown(row: SetRow, hidden: HiddenPlaces) -> None:
    """Refuse ``row`` if it was played in (a thread of) a place of ``hidden``, in a sentence
    saying why: a channel not everyone can see, whose games are shown only inside it; one
    deleted since, whose audience nobody can tell any more; one Discord keeps from the bot, or
    could not say about just now."""
    why = hidden.get(row.channel_id)
    if why is None and row.parent_channel_id is not None:
        why = hidden.get(row.parent_channel_id)
    if why is None:
        return
    game = row.set_id
    if why is Unshown.DELETED:
        raise NoGameHere(
            _(
                "Game {game} was played in a channel or thread that has since been deleted: I "
                "cannot tell who could see it there, so I do not share it anywhere.",
                game=game,
            )
        )
    if why is Unshown.OUT_OF_SIGHT:
        raise NoGameHere(
            _(
                "Game {game} was played in a channel or thread Discord does not let me see: I "
                "cannot tell who can see it, so I do not share it anywhere.",
                game=game,
            )
        )
    if why is Unshown.UNKNOWN_KIND:
        raise NoGameHere(
            _(
                "Game {game} was played in a kind of channel I do not know: I cannot tell who "
                "can see it, so I do not share it anywhere.",
                game=game,
            )
        )
    if why is Unshown.UNANSWERED:
        raise NoGameHere(
            _(
                "Discord could not tell me just now who can see the channel or thread where game "
                "{game} was played: try again in a minute.",
                game=game,
            )
        )
    raise NoGameHere(
        _(
            "Game {game} was played in a channel not everyone here can see: ask for it there.",
            game=game,
        )
    )
