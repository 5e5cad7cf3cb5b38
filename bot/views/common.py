"""What every button and select shares: errors go to the one handler, and answers come in time."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Self, TypeVar

import discord
from discord.utils import utcnow

from bot.errors import report_error
from bot.followups_once import followup_once
from bot.i18n import ENGLISH, Language, Text
from bot.locked_refusals import locked_for_me, locked_refusal, still_locked_for_me
from bot.unreachable import UNREACHABLE
from bot.views.embed_text import embed_as_text

if TYPE_CHECKING:
    from bot.client import BrandubhBot

_log = logging.getLogger(__name__)

T = TypeVar("T")
ItemT = TypeVar("ItemT", bound="discord.ui.Item[Any]")
KeyT = TypeVar("KeyT")
RowT = TypeVar("RowT")

ANSWER_BEFORE = 1.5
"""The age (seconds since Discord created it) at which an interaction still at work is deferred
rather than answered directly.

Discord drops an interaction that is not acknowledged within 3 seconds of its creation.
Answering directly saves a round trip, so slow work (a busy database, a long render queue) is
only deferred when half of that time is gone, counted from the interaction's creation (its
id's timestamp): time it spent reaching the bot or waiting for a busy event loop counts too.
"""


BUSY = 10
"""Interactions at work at once in this process from which one more is deferred at once.

That many answers under way wait for the same database connections and renderer threads, so
one more will not be ready within ANSWER_BEFORE either; deferring it at once (as it would be
later anyway) keeps its acknowledgement clear of Discord's 3 seconds, however long the queue.
"""


_at_work: set[asyncio.Future[Any]] = set()
"""The interactions' work under way in this process."""


_PRIVATE_DEFERRAL = "brandubh.private_deferral"
"""Key in ``Interaction.extras``: :func:`within_deadline` deferred the interaction privately
(``"private"``), and the private answer was taken away once the public one was out
(``"gone"``)."""


EMBED_TITLE_LIMIT = 256
"""Discord's limit on an embed's title, in characters."""
EMBED_FIELD_LIMIT = 1024
"""Discord's limit on an embed field's value."""


def embed_title(text: str) -> str:
    """``text`` cut to an embed title's 256 characters, with an ellipsis: a list's title names
    the server, whose 100 characters of Markdown escaped are twice as many."""
    if len(text) <= EMBED_TITLE_LIMIT:
        return text
    return text[: EMBED_TITLE_LIMIT - 1] + "…"


def bot_of(interaction: discord.Interaction[Any]) -> BrandubhBot:
    """The bot that received ``interaction``."""
    return interaction.client  # type: ignore[no-any-return]


async def within_deadline(
    interaction: discord.Interaction[Any],
    work: Awaitable[T],
    *,
    ephemeral: bool = False,
    thinking: bool = True,
    unanswered: Callable[[T], Awaitable[None]] | None = None,
) -> T:
    """Await ``work``; if ``interaction`` reaches the age ANSWER_BEFORE meanwhile, defer it
    (at once when the process already has BUSY interactions at work).

    ``ephemeral`` defers privately: for a private answer, and for ``work`` that may still
    refuse, whose public answer comes only on success. A deferral's visibility is fixed when
    it is sent and its first followup fills it in, so a refusal after a public deferral would
    be shown to everyone; after a private one, :func:`answer` posts a public answer as a
    message of its own in the channel.

    After a deferral the caller must answer with ``interaction.followup`` (or
    ``edit_original_response``); :func:`answer` does the right thing either way. If the
    deferral fails (Discord unreachable, the interaction expired), ``work`` still goes on to
    its end and the deferral's error is raised; when ``work`` succeeded, ``unanswered`` is
    first given its result, to announce without the interaction what it stored.
    """
    task = asyncio.ensure_future(work)
    age = (utcnow() - interaction.created_at).total_seconds()
    wait = 0.0 if len(_at_work) >= BUSY else min(ANSWER_BEFORE, max(0.0, ANSWER_BEFORE - age))
    _at_work.add(task)
    task.add_done_callback(_at_work.discard)
    done, _ = await asyncio.wait({task}, timeout=wait)
    if not done and not interaction.response.is_done():
        try:
            if interaction.type is discord.InteractionType.component and not thinking:
                await interaction.response.defer()
            else:
                await interaction.response.defer(ephemeral=ephemeral, thinking=True)
                if ephemeral:
                    interaction.extras[_PRIVATE_DEFERRAL] = "private"
        except BaseException:
            # The deferral failed (Discord unreachable, the interaction expired): the work goes
            # on to its end, so what it stores is stored (the outbox announces it), and its own
            # error, if any, is retrieved here rather than left unobserved.
            await asyncio.wait({task})
            if not task.cancelled() and task.exception() is not None:
                _log.info("Work behind a failed deferral also failed", exc_info=task.exception())
            elif not task.cancelled() and unanswered is not None:
                await unanswered(task.result())
            raise
    return await task


async def locked_by_discords_word(interaction: discord.Interaction[Any]) -> bool:
    """:func:`still_locked_for_me`, whose question to Discord (up to ``LOCK_CHECK_WAITS``) is
    deferred in time like a slow read: a command privately (a public answer is then posted
    apart), a press without a message. Asked when the interaction is already late (a busy
    process), it would otherwise leave too little of Discord's 3 seconds for what follows."""
    if not locked_for_me(interaction):  # the cache shows it open: nothing to ask
        return False
    return await within_deadline(
        interaction, still_locked_for_me(interaction), ephemeral=True, thinking=False
    )


def pressed_on(interaction: discord.Interaction[Any]) -> tuple[int, int]:
    """The channel and message a component was pressed on, for the services to check against
    what its ``custom_id`` names (a forged id may name another challenge or request)."""
    assert interaction.channel_id is not None
    return interaction.channel_id, interaction.message.id if interaction.message else 0


def thread_of(interaction: discord.Interaction[Any]) -> int | None:
    """The channel ``interaction`` came from a thread of (whose allowance counts for a game
    there), or None outside a thread."""
    channel = interaction.channel
    return channel.parent_id if isinstance(channel, discord.Thread) else None


async def answer(
    interaction: discord.Interaction[Any],
    content: str | None = None,
    *,
    ephemeral: bool = False,
    file: discord.File | None = None,
    files: list[discord.File] | None = None,
    view: discord.ui.View | None = None,
    embed: discord.Embed | None = None,
    allowed_mentions: discord.AllowedMentions | None = None,
    nonce: str | None = None,
) -> int | None:
    """Send the answer to ``interaction``, as a first response or as the followup after a defer.

    Returns the id of the message sent (None if Discord did not say). ``nonce`` (an owed
    board's, which the outbox posts it with) goes with a public answer posted apart, in the
    channel: an interaction's answers cannot carry one, so a public followup (after a public
    deferral, or one updating a message) is sent once, not tried again by discord.py after a
    5xx that may have landed (:func:`followup_once`).
    """
    kwargs: dict[str, Any] = {"ephemeral": ephemeral}
    if allowed_mentions is not None:
        kwargs["allowed_mentions"] = allowed_mentions
    if content is not None:
        kwargs["content"] = content
    all_files = ([file] if file else []) + (files or [])
    if all_files:
        kwargs["files"] = all_files
    if view is not None:
        kwargs["view"] = view
    if embed is not None:
        kwargs["embed"] = embed
    if interaction.response.is_done():
        if not ephemeral and deferred_privately(interaction):
            if nonce is not None:
                kwargs["nonce"] = nonce
            return await _post_apart(interaction, kwargs)
        if not ephemeral:  # a 5xx that landed would show it twice: sent once
            return await followup_once(interaction, **kwargs)
        message = await interaction.followup.send(wait=True, **kwargs)
        return message.id
    response = await interaction.response.send_message(**kwargs)
    return response.message_id


def deferred_privately(interaction: discord.Interaction[Any]) -> bool:
    """Whether :func:`within_deadline` deferred ``interaction`` privately: a public answer
    cannot fill in that deferral (:func:`answer` posts it apart)."""
    return _PRIVATE_DEFERRAL in interaction.extras


async def _post_apart(interaction: discord.Interaction[Any], kwargs: dict[str, Any]) -> int:
    """Post the public answer to ``interaction``, deferred privately, as a message of its own
    in the interaction's channel, then take the private "thinking…" (or progress) away. An
    embed goes as text where the bot lacks Embed Links (bot/views/embed_text.py)."""
    assert interaction.channel_id is not None
    kwargs = {key: value for key, value in kwargs.items() if key != "ephemeral"}
    if "embed" in kwargs and not interaction.app_permissions.embed_links:
        # Discord would drop the embed from a post without a word: its text instead.
        kwargs["content"] = embed_as_text(kwargs.pop("embed"), kwargs.get("content"))
    channel = bot_of(interaction).get_partial_messageable(
        interaction.channel_id, guild_id=interaction.guild_id
    )
    message = await channel.send(**kwargs)
    await take_private_answer_away(interaction)
    return message.id


async def take_private_answer_away(interaction: discord.Interaction[Any]) -> None:
    """Delete the private "thinking…" (or progress) of ``interaction``, deferred privately,
    once its public answer is posted apart (once: a second call does nothing)."""
    if interaction.extras.get(_PRIVATE_DEFERRAL) == "private":
        interaction.extras[_PRIVATE_DEFERRAL] = "gone"
        try:
            await interaction.delete_original_response()
        except (discord.HTTPException, *UNREACHABLE) as error:
            _log.info(
                "Could not take the private answer of interaction %s away: %s",
                interaction.id,
                error,
            )


async def update_message(
    interaction: discord.Interaction[Any],
    content: str,
    *,
    view: discord.ui.View | None = None,
    attachments: Sequence[discord.File] | None = None,
) -> None:
    """Replace the message whose component was pressed (its buttons go unless ``view``; its
    files are replaced by ``attachments`` if given): as the first response, or by editing it
    once the press was deferred (:func:`within_deadline`)."""
    kwargs: dict[str, Any] = {"content": content, "view": view}
    if attachments is not None:
        kwargs["attachments"] = attachments
    await _edit_pressed(interaction, kwargs)


async def turn_page(
    interaction: discord.Interaction[Any],
    page: Awaitable[tuple[discord.Embed, discord.ui.View | None]],
    *,
    allowed_mentions: discord.AllowedMentions | None = None,
) -> None:
    """Show another page of a list in the message whose Previous or Next was pressed: its
    embed and buttons, as ``page`` reads them; the press is deferred in time when the read
    waits (behind other reads, or a busy process), and the message then edited.

    A list posted as text (:func:`_post_apart`, where the bot lacked Embed Links) turns its
    page as text while the press's ``app_permissions`` still lack them; else the embed takes
    the text's place (``content=None``: left, the old page's text would show above it)."""
    embed, view = await within_deadline(interaction, page, thinking=False)
    kwargs: dict[str, Any] = {"embed": embed, "content": None, "view": view}
    shown = interaction.message
    if shown is not None and not shown.embeds and not interaction.app_permissions.embed_links:
        kwargs["content"] = embed_as_text(kwargs.pop("embed"))
    if allowed_mentions is not None:
        kwargs["allowed_mentions"] = allowed_mentions
    await _edit_pressed(interaction, kwargs)


async def _edit_pressed(interaction: discord.Interaction[Any], kwargs: dict[str, Any]) -> None:
    """Edit the message whose component was pressed with ``kwargs``: as the first response, or
    once the press was deferred, through its original response."""
    if interaction.response.is_done():
        await interaction.edit_original_response(**kwargs)
    else:
        await interaction.response.edit_message(**kwargs)


Handler = Callable[[discord.Interaction[Any]], Awaitable[None]]


async def guarded(
    interaction: discord.Interaction[Any], handler: Handler, *, private: bool = False
) -> None:
    """Run a component's handler, unless it came from a thread locked for me (nothing it did
    could be answered there, unless only its presser sees it: ``private``); any error goes to
    the one error handler. One answered for all to see is told as ``component_completion``
    (its thread, if held, is open after all: bot/cogs/server_changes.py)."""
    try:
        # A player shut out of this channel can play after all: their clock runs from here.
        await bot_of(interaction).came(interaction)
        if not private and await locked_by_discords_word(interaction):
            raise await locked_refusal(interaction)
        await handler(interaction)
    except Exception as error:  # every error is answered or logged by report_error
        await report_error(interaction, error)
    else:
        if not private:  # answered for all to see: a hold of its thread may end
            interaction.client.dispatch("component_completion", interaction)


class GuardedItem(discord.ui.DynamicItem[ItemT], Generic[ItemT], template=r"(?!)"):
    """A persistent button or select whose ids live in its ``custom_id``.

    Subclasses give their own ``template`` and implement :meth:`handle`; any error it raises goes
    to the one error handler (a sentence for the player, a logged traceback for the unexpected).
    """

    answers_privately: ClassVar[bool] = False
    """Whether all it shows is seen by its presser alone (ephemeral answers), which a thread
    locked for me still takes (:func:`bot.locked_refusals.locked_for_me`)."""

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await guarded(interaction, self.handle, private=self.answers_privately)

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        """What pressing (or choosing in) this component does."""
        raise NotImplementedError


class GameButton(GuardedItem[discord.ui.Button[Any]], template=r"(?!)"):
    """A button about one game (a set): its ``custom_id`` is ``<prefix>:<set id>``.

    Subclasses set ``prefix``, ``button_label`` and ``button_style``, give a ``template`` that
    matches ``<prefix>:<set id>`` with the id in the group ``game``, and implement
    :meth:`handle`.
    """

    prefix: ClassVar[str]
    button_label: ClassVar[Text]
    button_style: ClassVar[discord.ButtonStyle] = discord.ButtonStyle.secondary

    def __init__(self, set_id: int, lang: Language = ENGLISH) -> None:
        super().__init__(
            discord.ui.Button(
                label=lang.render(self.button_label),
                style=self.button_style,
                custom_id=f"{self.prefix}:{set_id}",
            )
        )
        self.set_id = set_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(int(match["game"]))


def page_button(direction: str, custom_id: str, lang: Language = ENGLISH) -> discord.ui.Button[Any]:
    """The Previous (``direction`` "prev") or Next button of a list shown a page at a time."""
    return discord.ui.Button(
        label=lang._("Previous") if direction == "prev" else lang._("Next"),
        style=discord.ButtonStyle.secondary,
        custom_id=custom_id,
    )


class KeyedPageButton(GuardedItem[discord.ui.Button[Any]], Generic[KeyT], template=r"(?!)"):
    """The Previous or Next button of a list turned from its page's first (Previous) or last
    (Next) row, whose ``key`` its ``custom_id`` carries: the page it turns to ends right before
    that row (:attr:`before`) or starts right after it (:attr:`after`), wherever the list
    changed meanwhile.

    Subclasses give a ``template`` and :meth:`from_custom_id` that read their id back, and
    implement :meth:`handle`."""

    def __init__(self, direction: str, key: KeyT, custom_id: str, lang: Language = ENGLISH) -> None:
        super().__init__(page_button(direction, custom_id, lang))
        self.direction = direction
        self.key = key

    @property
    def after(self) -> KeyT | None:
        """The key the page turned to starts right after (Next), or None."""
        return self.key if self.direction == "next" else None

    @property
    def before(self) -> KeyT | None:
        """The key the page turned to ends right before (Previous), or None."""
        return None if self.direction == "next" else self.key


def keyset_view(
    offset: int,
    rows: Sequence[RowT],
    total: int,
    button: Callable[[str, RowT], GuardedItem[discord.ui.Button[Any]]],
) -> discord.ui.View | None:
    """Previous / Next buttons for a page of ``rows`` from ``offset`` of ``total``, each made
    by ``button(direction, row)`` to turn from the page's first (Previous) or last (Next) row,
    or None when the page holds every row."""
    if not rows or (offset == 0 and len(rows) >= total):
        return None
    earlier = button("prev", rows[0])
    later = button("next", rows[-1])
    earlier.item.disabled = offset == 0
    later.item.disabled = offset + len(rows) >= total
    view = discord.ui.View(timeout=None)
    view.add_item(earlier)
    view.add_item(later)
    return view
