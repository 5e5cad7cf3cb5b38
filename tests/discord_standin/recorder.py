"""What the bot did to the stand-in: messages, interaction answers, synced commands, REST calls."""

from __future__ import annotations

import asyncio
import logging
import re
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from . import payloads
from .model import MENTION_EVERYONE, VIEW_CHANNEL, FakeChannel, FakeUser, iso, utc_now

_log = logging.getLogger(__name__)

JSON = dict[str, Any]

EPHEMERAL = 1 << 6
LOADING = 1 << 7

# Interaction callback types, as Discord numbers them.
CHANNEL_MESSAGE = 4
DEFERRED_CHANNEL_MESSAGE = 5
DEFERRED_UPDATE_MESSAGE = 6
UPDATE_MESSAGE = 7
AUTOCOMPLETE_RESULT = 8
MODAL = 9

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class InteractionNotAnswered(AssertionError):
    """The bot did not acknowledge an interaction in time (Discord shows "interaction failed")."""


@dataclass(eq=False)
class StoredAttachment:
    """A file the bot uploaded, with its bytes."""

    id: int
    filename: str
    data: bytes
    url: str
    content_type: str | None = None
    description: str | None = None

    @property
    def size(self) -> int:
        """Size in bytes."""
        return len(self.data)

    @property
    def image_size(self) -> tuple[int, int] | None:
        """(width, height) read from a PNG header, or None for anything else."""
        if self.data.startswith(PNG_SIGNATURE) and len(self.data) >= 24:
            width, height = struct.unpack(">II", self.data[16:24])
            return int(width), int(height)
        return None

    def to_payload(self) -> JSON:
        """The attachment object Discord returns."""
        payload: JSON = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
            "description": self.description,
            "flags": 0,
        }
        dimensions = self.image_size
        if dimensions is not None:
            payload["width"], payload["height"] = dimensions
        return payload


@dataclass(eq=False)
class StoredMessage:
    """A message the bot posted (in a channel, as an interaction answer or as a followup)."""

    id: int
    channel: FakeChannel
    author: FakeUser
    content: str = ""
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    attachments: list[StoredAttachment] = field(default_factory=list)
    flags: int = 0
    message_type: int = 0
    created_at: datetime = field(default_factory=utc_now)
    edited_at: datetime | None = None
    edit_count: int = 0
    deleted: bool = False
    reference: JSON | None = None
    interaction: InteractionRecord | None = None
    application_id: int | None = None
    thread: FakeChannel | None = None
    """The thread started from this message, if any."""
    allowed_mentions: JSON | None = None
    """The ``allowed_mentions`` the message was sent with (None: Discord's default, parse all);
    for a deferred answer, those of the answer that filled it in."""
    sent_content: str = ""
    """The text as Discord first showed it (created, or a deferred answer filled in): mentions
    notify for that text only, never for a later edit."""
    nonce: str | None = None
    """The ``nonce`` it was created with (Discord echoes it in the message it returns)."""

    @property
    def channel_id(self) -> int:
        """Id of the channel the message is in."""
        return self.channel.id

    @property
    def ephemeral(self) -> bool:
        """Whether only the interacting user can see the message."""
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """Whether this is a deferred answer still showing "Bot is thinking..."."""
        return bool(self.flags & LOADING)

    def pinged_user_ids(self) -> set[int]:
        """Whom Discord notifies for this message: mentioned users that allowed_mentions permits.

        Only a new message pings (an edit never does); an ephemeral one pings nobody.
        """
        if self.ephemeral:
            return set()
        mentioned = {int(found) for found in re.findall(r"<@!?(\d+)>", self.sent_content)}
        allowed = self.allowed_mentions
        if allowed is not None and "users" not in (allowed.get("parse") or []):
            mentioned &= {int(user) for user in allowed.get("users") or []}
        guild = self.channel.guild
        if guild is None:
            return mentioned
        # A member who cannot see the channel is not notified (nor is a non-member).
        return {
            user_id
            for user_id in mentioned
            if (member := guild.member(user_id)) is not None
            and member.effective_permissions_in(self.channel) & VIEW_CHANNEL
        }

    def allowed_user_ids(self) -> set[int]:
        """The users the message allows Discord to notify (whether or not they are members,
        mentioned or not); it must name them: one that lets Discord notify every mentioned
        user (``parse: ["users"]``) fails the test."""
        allowed = self.allowed_mentions or {}
        assert "users" not in (allowed.get("parse") or []), allowed
        return {int(user) for user in allowed.get("users") or []}

    def pinged_role_ids(self) -> set[int]:
        """Roles whose members Discord notifies for this message: mentioned roles that
        allowed_mentions permits and that may be pinged — mentionable ones, or any when the
        author holds Mention @everyone, @here and All Roles in the channel. Only a new, public
        message pings."""
        guild = self.channel.guild
        if self.ephemeral or guild is None:
            return set()
        mentioned = {int(found) for found in re.findall(r"<@&(\d+)>", self.sent_content)}
        allowed = self.allowed_mentions
        if allowed is not None and "roles" not in (allowed.get("parse") or []):
            mentioned &= {int(role) for role in allowed.get("roles") or []}
        author = guild.member(self.author.id)
        may_ping_all = author is not None and bool(
            author.effective_permissions_in(self.channel) & MENTION_EVERYONE
        )
        return {
            role.id
            for role in guild.roles
            if role.id in mentioned and (role.mentionable or may_ping_all)
        }

    def walk_components(self) -> Iterator[JSON]:
        """Every component in the message, rows and their children alike."""
        stack = list(reversed(self.components))
        while stack:
            component = stack.pop()
            yield component
            stack.extend(reversed(component.get("components", [])))
            accessory = component.get("accessory")
            if isinstance(accessory, dict):
                stack.append(accessory)

    def custom_ids(self) -> list[str]:
        """custom_id of every interactive component, in display order."""
        return [c["custom_id"] for c in self.walk_components() if "custom_id" in c]

    def component(self, custom_id: str) -> JSON | None:
        """The component with this custom_id, if the message has one."""
        for candidate in self.walk_components():
            if candidate.get("custom_id") == custom_id:
                return candidate
        return None

    def button(self, label: str) -> JSON:
        """The button with this label."""
        for candidate in self.walk_components():
            if candidate.get("type") == 2 and candidate.get("label") == label:
                return candidate
        labels = [c.get("label") for c in self.walk_components() if c.get("type") == 2]
        raise LookupError(f"message {self.id} has no button {label!r}; buttons: {labels}")

    def to_payload(self) -> JSON:
        """The message object Discord returns."""
        guild = self.channel.guild
        payload: JSON = {
            "id": str(self.id),
            "type": self.message_type,
            "channel_id": str(self.channel.id),
            "author": payloads.user(self.author),
            "content": self.content,
            "timestamp": iso(self.created_at),
            "edited_timestamp": None if self.edited_at is None else iso(self.edited_at),
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.to_payload() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "reactions": [],
            "pinned": False,
            "flags": self.flags,
        }
        if guild is not None:
            payload["guild_id"] = str(guild.id)
        if self.nonce is not None:
            payload["nonce"] = self.nonce
        if self.reference is not None:
            payload["message_reference"] = self.reference
        if self.application_id is not None:
            payload["application_id"] = str(self.application_id)
        if self.thread is not None:
            payload["thread"] = payloads.thread(self.thread)
        source = self.interaction
        if source is not None:
            payload["webhook_id"] = str(source.application_id)
            payload["interaction_metadata"] = {
                "id": str(source.id),
                "type": source.type,
                "user": payloads.user(source.user),
                "authorizing_integration_owners": source.payload["authorizing_integration_owners"],
            }
        return payload


@dataclass(eq=False)
class InteractionRecord:
    """One interaction the stand-in sent, and how the bot answered it."""

    id: int
    token: str
    type: int
    name: str
    payload: JSON
    channel: FakeChannel
    user: FakeUser
    application_id: int
    sent_at: datetime
    sent_clock: float
    recorder: Recorder = field(repr=False)
    source_message: StoredMessage | None = None
    answered_at: datetime | None = None
    answered_clock: float | None = None
    response_type: int | None = None
    response_data: JSON = field(default_factory=dict)
    rejected: str | None = None
    original: StoredMessage | None = None
    followups: list[StoredMessage] = field(default_factory=list)
    shown_clock: float | None = None
    """When (``time.perf_counter()``) the answer itself arrived: the callback's message, or the
    deferred "thinking..." placeholder filled in by the first followup or edit."""

    @property
    def answered(self) -> bool:
        """Whether the bot's callback arrived (and was accepted)."""
        return self.response_type is not None

    @property
    def response_time(self) -> timedelta | None:
        """Time from sending INTERACTION_CREATE to receiving the bot's callback."""
        if self.answered_clock is None:
            return None
        return timedelta(seconds=self.answered_clock - self.sent_clock)

    @property
    def shown_time(self) -> timedelta | None:
        """Time from sending INTERACTION_CREATE to the answer itself (after a deferral, the
        followup or edit that replaced "thinking..."); None until then."""
        if self.shown_clock is None:
            return None
        return timedelta(seconds=self.shown_clock - self.sent_clock)

    @property
    def message(self) -> StoredMessage | None:
        """The message the player sees as the answer (@original), if there is one."""
        return self.original

    @property
    def ephemeral(self) -> bool:
        """Whether the answer is visible only to the interacting user."""
        if self.original is not None:
            return self.original.ephemeral
        return bool(self.response_data.get("flags", 0) & EPHEMERAL)

    @property
    def choices(self) -> list[JSON]:
        """Autocomplete choices the bot returned (callback type 8)."""
        choices: list[JSON] = self.response_data.get("choices", [])
        return choices

    async def wait_followups(self, count: int = 1, *, timeout: float = 15.0) -> list[StoredMessage]:
        """Wait until the bot has sent at least ``count`` followups; return them all."""
        await self.recorder.wait_until(
            lambda: len(self.followups) >= count,
            timeout=timeout,
            waiting_for=f"{count} followup(s) to interaction {self.name!r}",
        )
        return list(self.followups)

    async def wait_followup(self, *, timeout: float = 15.0) -> StoredMessage:
        """Wait for the first followup and return it."""
        return (await self.wait_followups(1, timeout=timeout))[0]

    async def wait_original(
        self, predicate: Callable[[StoredMessage], bool] | None = None, *, timeout: float = 15.0
    ) -> StoredMessage:
        """Wait until @original exists, is not loading, and matches ``predicate``; return it."""

        def ready() -> bool:
            message = self.original
            if message is None or message.loading:
                return False
            return predicate is None or predicate(message)

        await self.recorder.wait_until(
            ready, timeout=timeout, waiting_for=f"original response of {self.name!r}"
        )
        assert self.original is not None
        return self.original


@dataclass(frozen=True)
class RestCall:
    """One HTTP request the bot made."""

    method: str
    path: str
    status: int
    at: datetime
    client_port: int | None = None
    """The TCP port the request came from: which process sent it, when several share the bot."""


class Recorder:
    """Everything observable about the bot, plus a way to wait for it to change."""

    def __init__(self) -> None:
        self.messages: dict[int, StoredMessage] = {}
        self.interactions: dict[int, InteractionRecord] = {}
        self.interaction_log: list[InteractionRecord] = []
        self.rest_log: list[RestCall] = []
        self.unknown_requests: list[str] = []
        self.contract_violations: list[str] = []
        """Requests that break Discord's published API contract (see ``contract.py``)."""
        self.global_commands: list[JSON] = []
        self.guild_commands: dict[int, list[JSON]] = {}
        self.command_syncs = 0
        self.attachments: dict[int, StoredAttachment] = {}
        self._by_token: dict[str, InteractionRecord] = {}
        self._waiters: list[tuple[Callable[[], bool], asyncio.Future[None]]] = []
        self._check_scheduled = False

    def notify(self) -> None:
        """Something changed: every waiter's condition is checked again, once, soon after.

        One check of the conditions serves any number of changes made before it runs, and a
        waiter costs nothing more until its condition holds (hundreds can wait at once).
        """
        if self._check_scheduled or not self._waiters:
            return
        self._check_scheduled = True
        self._waiters[0][1].get_loop().call_soon(self._check_waiters)

    def _check_waiters(self) -> None:
        self._check_scheduled = False
        waiting = []
        for condition, future in self._waiters:
            if future.done():
                continue  # timed out or cancelled
            try:
                holds = condition()
            except Exception as error:  # raised where the waiter waits
                future.set_exception(error)
                continue
            if holds:
                future.set_result(None)
            else:
                waiting.append((condition, future))
        self._waiters = waiting

    async def wait_until(
        self, condition: Callable[[], bool], *, timeout: float, waiting_for: str
    ) -> None:
        """Wait until ``condition()`` holds; raise AssertionError naming ``waiting_for`` if not."""
        if condition():
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((condition, future))
        try:
            await asyncio.wait_for(future, timeout)
        except TimeoutError:
            if not condition():
                raise AssertionError(
                    f"timed out after {timeout}s waiting for {waiting_for}"
                ) from None

    def add_interaction(self, record: InteractionRecord) -> None:
        """Keep an interaction sent to the bot (found again by its id or its token)."""
        self.interactions[record.id] = record
        self.interaction_log.append(record)
        self._by_token[record.token] = record

    def add_message(self, message: StoredMessage) -> StoredMessage:
        """Store a new message."""
        self.messages[message.id] = message
        for attachment in message.attachments:
            self.attachments[attachment.id] = attachment
        self.notify()
        return message

    def messages_in(self, channel: FakeChannel, *, include_deleted: bool) -> list[StoredMessage]:
        """Messages in a channel, oldest first."""
        return [
            m
            for m in self.messages.values()
            if m.channel.id == channel.id and (include_deleted or not m.deleted)
        ]

    def interaction_by_token(self, token: str) -> InteractionRecord | None:
        """The interaction with this token."""
        return self._by_token.get(token)
