"""Whether and on what terms a new match may start: the server's settings for the channel,
the match's options, and a channel already busy with a game."""

from __future__ import annotations

from datetime import timedelta

from bot.i18n import _
from bot.services.domain import GuildSettings
from bot.services.errors import ChannelBusy, ChannelNotAllowed, InvalidOption
from bot.services.settings import check_ruleset, check_time_per_move
from bot.storage.sets import SetRow


def busy(playing: SetRow, *, threads: bool = True, threads_here: bool = True) -> ChannelBusy:
    """The refusal of a second game where ``playing`` is played: a game thread's names the
    channel to challenge from instead, where (``threads`` on) each game gets a thread; a
    channel's suggests a thread only if a member's thread could host the game
    (``threads_here``)."""
    if threads and playing.parent_channel_id is not None:
        return ChannelBusy(ChannelBusy.IN_THREAD)
    return ChannelBusy() if threads_here else ChannelBusy(ChannelBusy.NO_THREADS)


def check_terms(
    settings: GuildSettings,
    channel_id: int,
    ruleset: str | None,
    time_per_move: timedelta | None,
    sets_total: int,
    *,
    thread_of: int | None = None,
) -> tuple[str, timedelta]:
    """The ruleset's name and the time per move of a match in ``channel_id`` (``thread_of``:
    a thread of that channel) under the server's ``settings`` (which give the defaults).
    Raises ChannelNotAllowed, InvalidOption (ruleset, time per move, sets)."""
    if not settings.allows(channel_id, thread_of):
        raise ChannelNotAllowed(settings.allowed_channel_ids)
    name = check_ruleset(ruleset or settings.default_ruleset)
    per_move = check_time_per_move(time_per_move or settings.time_per_move)
    check_sets(sets_total)
    return name, per_move


def check_sets(sets: int) -> int:
    """``sets`` if it is 1 or 2, else InvalidOption."""
    if sets not in (1, 2):
        raise InvalidOption(_("A match has 1 or 2 sets."))
    return sets
