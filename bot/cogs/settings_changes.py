"""What a ``/settings`` command changes: the channels games are allowed in after it
(:func:`allowed_after`), those whose games it gave threads of their own (:func:`newly_threaded`),
and a sentence for each option that changes nothing (:func:`unchanged_by`)."""

from __future__ import annotations

from datetime import timedelta

from bot.i18n import Language, _, option
from bot.i18n import language as spoken
from bot.services.domain import GuildSettings
from bot.services.errors import InvalidOption
from bot.services.settings import FOLLOW_SERVER, SettingsChange, check_ruleset
from bot.views.challenge import time_per_move_text
from engine import get_ruleset


def _chosen(value: str) -> str | None:
    """The stored language for a ``language:`` choice (``None``: the server's own)."""
    return None if value == FOLLOW_SERVER else value


def newly_threaded(change: SettingsChange, allow: int | None = None) -> list[int]:
    """The channels whose games ``change`` gave threads of their own, as stored when it was
    written: every allowed channel when it turned threads on, those it allowed when threads
    were on already; ``allow`` (the channel ``allow:`` named) first. A channel without a
    thread's permissions there has its games played in the channel itself, as /challenge does,
    which :func:`bot.cogs.admin.no_thread_lines` says once, when it begins."""
    before, after = change.before, change.after
    if not after.threads:
        return []
    channels = after.allowed_channel_ids
    if before.threads:
        channels -= before.allowed_channel_ids
    return sorted(channels, key=lambda channel_id: (channel_id != allow, channel_id))


def allowed_after(
    allowed: frozenset[int],
    *,
    allow: int | None,
    disallow: int | None,
    everywhere: bool,
    gone: frozenset[int] = frozenset(),
) -> frozenset[int]:
    """The channels games are allowed in after ``/settings allow: disallow: everywhere:`` (none:
    every channel). Options that contradict each other, or one that would do the opposite of
    what it says, are refused in one sentence; allowing a listed channel, disallowing one not
    listed (or any while every channel is allowed: the settings hold a list of the channels
    allowed, not of those closed), or allowing every channel when every one is, changes
    nothing (:func:`unchanged_by` says so). Allowing a channel takes the ``gone`` (deleted)
    ones off the list; disallowing may not leave only deleted ones."""
    if everywhere and (allow is not None or disallow is not None):
        raise InvalidOption(
            _(
                "Give {everywhere_option} alone to allow every channel, not with {allow_option} "
                "or {disallow_option}.",
                everywhere_option=option("everywhere"),
                allow_option=option("allow"),
                disallow_option=option("disallow"),
            )
        )
    if everywhere:
        return frozenset()
    if allow is not None and allow == disallow:
        raise InvalidOption(_("Allow a channel or disallow it, not both at once."))
    channels = set(allowed)
    if allow is not None:
        channels -= gone
        channels.add(allow)
    if disallow is not None:
        if disallow not in allowed:
            # Every channel allowed (no list) included: there is no list to take it off, and
            # the settings cannot hold "every channel but this one" (:func:`unchanged_by` says
            # what to do instead, and the command's other options are saved).
            return frozenset(channels)
        channels.discard(disallow)
        if not channels - gone:
            raise InvalidOption(
                _(
                    "{channel} is the only channel games are allowed in: allow another first, "
                    "or give {everywhere_option} to allow every channel.",
                    channel=f"<#{disallow}>",
                    everywhere_option=option("everywhere"),
                )
            )
    return frozenset(channels)


def unchanged_by(
    before: GuildSettings,
    lang: Language,
    *,
    ruleset: str | None = None,
    time: int | None = None,
    allow: int | None = None,
    disallow: int | None = None,
    everywhere: bool = False,
    threads: str | None = None,
    language: str | None = None,
    open_challenge_role: int | None = None,
    no_open_challenge_role: bool = False,
) -> list[str]:
    """A sentence for each ``/settings`` option given that changes nothing of the settings
    ``before`` it (as stored when the change was written), saying so, in the order of the
    command's options; none when every option given changes something. A valid command that
    changes nothing at all has at least one."""
    lines = []
    if ruleset is not None and check_ruleset(ruleset) == before.default_ruleset:
        lines.append(
            lang._(
                "The default ruleset is already **{ruleset}**: nothing changed.",
                ruleset=lang.gettext(get_ruleset(before.default_ruleset).title),
            )
        )
    if time is not None and timedelta(minutes=time) == before.time_per_move:
        lines.append(
            lang._(
                "The time per move is already **{time}**: nothing changed.",
                time=time_per_move_text(before.time_per_move, lang),
            )
        )
    if allow is not None and allow in before.allowed_channel_ids:
        lines.append(
            lang._(
                "{channel} is already one of the channels games are allowed in: nothing changed.",
                channel=f"<#{allow}>",
            )
        )
    if disallow is not None and not before.allowed_channel_ids:
        # With allow: too the list it starts leaves the channel out: that is what was asked.
        if allow is None:
            lines.append(
                lang._(
                    "Games are allowed in every channel, so {channel} stays open: list the "
                    "channels games may use with {allow_option}, and every other channel is "
                    "closed to them.",
                    channel=f"<#{disallow}>",
                    allow_option=option("allow"),
                )
            )
    elif disallow is not None and disallow not in before.allowed_channel_ids:
        lines.append(
            lang._(
                "{channel} is not one of the channels games are allowed in: nothing changed.",
                channel=f"<#{disallow}>",
            )
        )
    if everywhere and not before.allowed_channel_ids:
        lines.append(lang._("Games are already allowed in every channel: nothing changed."))
    if threads is not None and (threads == "on") == before.threads:
        lines.append(
            lang._("Each game already gets a thread of its own: nothing changed.")
            if before.threads
            else lang._("Games are already played in their channel: nothing changed.")
        )
    if language is not None and _chosen(language) == before.language:
        lines.append(
            lang._("Public messages already follow the server's own language: nothing changed.")
            if before.language is None
            else lang._(
                "Public messages are already in {language}: nothing changed.",
                language=spoken(before.language).name,
            )
        )
    if open_challenge_role is not None and open_challenge_role == before.open_challenge_role_id:
        lines.append(
            lang._(
                "Open challenges already ping {role}: nothing changed.",
                role=f"<@&{open_challenge_role}>",
            )
        )
    if no_open_challenge_role and before.open_challenge_role_id is None:
        lines.append(lang._("Open challenges already ping nobody: nothing changed."))
    return lines
