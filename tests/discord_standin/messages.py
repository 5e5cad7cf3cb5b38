"""Turning the bot's message payloads (JSON or multipart with files) into stored messages."""

from __future__ import annotations

import json
import mimetypes
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import BodyPartReader, web

from .model import FakeChannel, FakeUser, Snowflakes, utc_now
from .payloads import ATTACHMENT_SIZE_LIMIT
from .recorder import (
    EPHEMERAL,
    LOADING,
    PNG_SIGNATURE,
    InteractionRecord,
    StoredAttachment,
    StoredMessage,
)

JSON = dict[str, Any]

SUPPRESS_EMBEDS = 1 << 2
SUPPRESS_NOTIFICATIONS = 1 << 12
IS_COMPONENTS_V2 = 1 << 15
SETTABLE_FLAGS = EPHEMERAL | SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | IS_COMPONENTS_V2
MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_ROWS = 5
MAX_ROW_WIDTH = 5
MAX_CUSTOM_ID = 100
EMBED_LIMITS = {"title": 256, "description": 4096}
"""Discord's limits on an embed's text (characters); its fields, footer and author below."""
MAX_EMBED_FIELDS = 25
MAX_FIELD_NAME = 256
MAX_FIELD_VALUE = 1024
MAX_FOOTER = 2048
MAX_AUTHOR = 256
MAX_EMBEDS_TOTAL = 6000
MAX_BUTTON_LABEL = 80
MAX_PLACEHOLDER = 150
MAX_OPTIONS = 25
MAX_OPTION_TEXT = 100
REQUEST_TOO_LARGE = 40005
"""Discord's code (with 413) for an upload past the attachment size limit."""

_FILE_FIELD = re.compile(r"files\[(\d+)\]")


@dataclass(frozen=True)
class Upload:
    """One ``files[n]`` part of a multipart request."""

    index: int
    filename: str
    data: bytes


class MessageRejected(Exception):
    """The payload would be refused by Discord; carries Discord's error code and message."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _sniff_content_type(filename: str, data: bytes) -> str | None:
    if data.startswith(PNG_SIGNATURE):
        return "image/png"
    guessed, _ = mimetypes.guess_type(filename)
    return guessed


BODY_KEY = web.RequestKey("standin.body", tuple)
"""Where a request's parsed body is kept once read (the body stream can be read only once)."""


async def read_body(request: web.Request) -> tuple[Any, dict[int, Upload]]:
    """Parse a JSON body, or a multipart body with ``payload_json`` and ``files[n]`` parts."""
    if BODY_KEY not in request:
        request[BODY_KEY] = await _parse_body(request)
    body, uploads = request[BODY_KEY]
    return body, uploads


async def _parse_body(request: web.Request) -> tuple[Any, dict[int, Upload]]:
    if request.content_type == "multipart/form-data":
        payload: Any = {}
        uploads: dict[int, Upload] = {}
        reader = await request.multipart()
        while True:
            part = await reader.next()
            if part is None:
                break
            if not isinstance(part, BodyPartReader):
                raise web.HTTPBadRequest(text="nested multipart is not supported")
            raw = await part.read(decode=True)
            if part.name == "payload_json":
                payload = json.loads(raw)
                continue
            match = _FILE_FIELD.fullmatch(part.name or "")
            if match is None:
                raise web.HTTPBadRequest(text=f"unexpected multipart field {part.name!r}")
            index = int(match.group(1))
            uploads[index] = Upload(index, part.filename or f"file{index}", bytes(raw))
        return payload, uploads
    if not request.can_read_body:
        return None, {}
    return await request.json(), {}


class MessageFactory:
    """Creates and edits stored messages the way Discord would, refusing what Discord refuses."""

    def __init__(
        self, *, snowflakes: Snowflakes, author: FakeUser, base_url: Callable[[], str]
    ) -> None:
        self._snowflakes = snowflakes
        self._author = author
        self._base_url = base_url

    def _attachment(self, upload: Upload, entry: JSON) -> StoredAttachment:
        attachment_id = self._snowflakes.next()
        filename = entry.get("filename") or upload.filename
        return StoredAttachment(
            id=attachment_id,
            filename=filename,
            data=upload.data,
            url=f"{self._base_url()}/attachments/{attachment_id}/{filename}",
            content_type=_sniff_content_type(filename, upload.data),
            description=entry.get("description"),
        )

    def _attachments(
        self,
        channel: FakeChannel,
        payload: JSON,
        uploads: dict[int, Upload],
        existing: list[StoredAttachment],
    ) -> list[StoredAttachment] | None:
        """New attachment list, or None if the payload leaves attachments untouched."""
        limit = (
            ATTACHMENT_SIZE_LIMIT if channel.guild is None else channel.guild.attachment_size_limit
        )
        if any(len(upload.data) > limit for upload in uploads.values()):
            raise MessageRejected(REQUEST_TOO_LARGE, "Request entity too large")
        entries: list[JSON] | None = payload.get("attachments")
        if entries is None:
            if not uploads:
                return None
            new = [self._attachment(uploads[i], {}) for i in sorted(uploads)]
            return [*existing, *new]
        kept = {a.id: a for a in existing}
        result: list[StoredAttachment] = []
        used: set[int] = set()
        for entry in entries:
            raw_id = int(entry["id"])
            if raw_id in kept:
                result.append(kept[raw_id])
            elif raw_id in uploads:
                result.append(self._attachment(uploads[raw_id], entry))
                used.add(raw_id)
            else:
                raise MessageRejected(50035, f"attachments: unknown attachment id {raw_id}")
        for index in sorted(set(uploads) - used):
            result.append(self._attachment(uploads[index], {}))
        return result

    def create(
        self,
        channel: FakeChannel,
        payload: JSON,
        uploads: dict[int, Upload],
        *,
        interaction: InteractionRecord | None = None,
        message_type: int = 0,
        allow_ephemeral: bool = False,
    ) -> StoredMessage:
        """A new message from a create payload (not yet stored)."""
        flags = int(payload.get("flags") or 0) & SETTABLE_FLAGS
        if not allow_ephemeral:
            flags &= ~EPHEMERAL
        message = StoredMessage(
            id=self._snowflakes.next(),
            channel=channel,
            author=self._author,
            content=payload.get("content") or "",
            embeds=list(payload.get("embeds") or []),
            components=list(payload.get("components") or []),
            attachments=self._attachments(channel, payload, uploads, []) or [],
            flags=flags,
            message_type=message_type,
            reference=payload.get("message_reference"),
            interaction=interaction,
            application_id=None if interaction is None else interaction.application_id,
            allowed_mentions=payload.get("allowed_mentions"),
            nonce=None if payload.get("nonce") is None else str(payload["nonce"]),
            sent_content=payload.get("content") or "",
        )
        validate(message)
        return message

    def loading(
        self, channel: FakeChannel, interaction: InteractionRecord, flags: int
    ) -> StoredMessage:
        """The "Bot is thinking..." placeholder a deferred answer (callback type 5) shows."""
        return StoredMessage(
            id=self._snowflakes.next(),
            channel=channel,
            author=self._author,
            flags=LOADING | (flags & EPHEMERAL),
            message_type=20 if interaction.type == 2 else 0,
            interaction=interaction,
            application_id=interaction.application_id,
        )

    def edit(self, message: StoredMessage, payload: JSON, uploads: dict[int, Upload]) -> None:
        """Apply an edit payload; a loading placeholder becomes a real message without "edited"."""
        if message.deleted:
            raise MessageRejected(10008, "Unknown Message")
        attachments = self._attachments(message.channel, payload, uploads, message.attachments)
        was_loading = message.loading
        before = (message.content, message.embeds, message.components, message.attachments)
        if "content" in payload:
            message.content = payload["content"] or ""
        if "embeds" in payload:
            message.embeds = list(payload["embeds"] or [])
        if "components" in payload:
            message.components = list(payload["components"] or [])
        if attachments is not None:
            message.attachments = attachments
        if "flags" in payload and payload["flags"] is not None:
            changeable = SUPPRESS_EMBEDS | IS_COMPONENTS_V2
            message.flags = (message.flags & ~changeable) | (int(payload["flags"]) & changeable)
        message.flags &= ~LOADING
        try:
            validate(message)
        except MessageRejected:
            message.content, message.embeds, message.components, message.attachments = before
            if was_loading:
                message.flags |= LOADING
            raise
        if not was_loading:
            message.edited_at = utc_now()
            message.edit_count += 1
            return
        # A deferred answer filled in is shown for the first time: it notifies as a new message
        # would, with the allowed mentions of the answer that filled it.
        message.sent_content = message.content
        message.allowed_mentions = payload.get("allowed_mentions")
        if message.interaction is not None and message.interaction.shown_clock is None:
            message.interaction.shown_clock = time.perf_counter()


def validate(message: StoredMessage) -> None:
    """Refuse messages Discord would refuse: empty, too long, malformed components."""
    v2 = bool(message.flags & IS_COMPONENTS_V2)
    if not (message.content or message.embeds or message.attachments or message.components):
        raise MessageRejected(50006, "Cannot send an empty message")
    if len(message.content) > MAX_CONTENT:
        raise MessageRejected(50035, f"content: must be {MAX_CONTENT} or fewer in length")
    if len(message.embeds) > MAX_EMBEDS:
        raise MessageRejected(50035, f"embeds: must be {MAX_EMBEDS} or fewer in length")
    if sum(_validate_embed(embed) for embed in message.embeds) > MAX_EMBEDS_TOTAL:
        raise MessageRejected(50035, f"embeds: must be {MAX_EMBEDS_TOTAL} or fewer characters")
    if not v2:
        if len(message.components) > MAX_ROWS:
            raise MessageRejected(50035, f"components: must be {MAX_ROWS} or fewer in length")
        for row in message.components:
            if row.get("type") != 1:
                raise MessageRejected(50035, "components: top level must be action rows")
            if len(row.get("components", [])) > MAX_ROW_WIDTH:
                raise MessageRejected(50035, "components: an action row holds at most 5 items")
    seen: set[str] = set()
    for component in message.walk_components():
        _validate_component(component)
        custom_id = component.get("custom_id")
        if custom_id is None:
            continue
        if len(custom_id) > MAX_CUSTOM_ID:
            raise MessageRejected(50035, f"custom_id {custom_id!r} is longer than 100 characters")
        if custom_id in seen:
            raise MessageRejected(50035, f"custom_id {custom_id!r} is used twice in one message")
        seen.add(custom_id)


def _validate_embed(embed: dict[str, Any]) -> int:
    """Refuse an embed Discord would refuse: a title, description, field, footer or author
    past its limit, or more than 25 fields; return its characters (a message's embeds hold
    6,000 in all)."""
    total = 0
    for key, limit in EMBED_LIMITS.items():
        text = embed.get(key) or ""
        if len(text) > limit:
            raise MessageRejected(50035, f"embeds.0.{key}: must be {limit} or fewer in length")
        total += len(text)
    fields = embed.get("fields") or []
    if len(fields) > MAX_EMBED_FIELDS:
        raise MessageRejected(50035, f"embeds.0.fields: must be {MAX_EMBED_FIELDS} or fewer")
    for field in fields:
        name, value = field.get("name") or "", field.get("value") or ""
        if len(name) > MAX_FIELD_NAME or len(value) > MAX_FIELD_VALUE:
            raise MessageRejected(50035, "embeds.0.fields: a field's name or value is too long")
        total += len(name) + len(value)
    footer = (embed.get("footer") or {}).get("text") or ""
    author = (embed.get("author") or {}).get("name") or ""
    if len(footer) > MAX_FOOTER or len(author) > MAX_AUTHOR:
        raise MessageRejected(50035, "embeds.0: the footer or author is too long")
    return total + len(footer) + len(author)


def _validate_component(component: dict[str, Any]) -> None:
    """Refuse a button label past 80 characters, or a select with a placeholder past 150,
    more than 25 options, or an option's label, value or description past 100."""
    if len(component.get("label") or "") > MAX_BUTTON_LABEL:
        raise MessageRejected(50035, f"a button's label must be {MAX_BUTTON_LABEL} or fewer")
    if len(component.get("placeholder") or "") > MAX_PLACEHOLDER:
        raise MessageRejected(50035, f"a placeholder must be {MAX_PLACEHOLDER} or fewer")
    options = component.get("options") or []
    if len(options) > MAX_OPTIONS:
        raise MessageRejected(50035, f"a select holds at most {MAX_OPTIONS} options")
    for option in options:
        for key in ("label", "value", "description"):
            if len(option.get(key) or "") > MAX_OPTION_TEXT:
                raise MessageRejected(50035, f"an option's {key} is over {MAX_OPTION_TEXT}")
