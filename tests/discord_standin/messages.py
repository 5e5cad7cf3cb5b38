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
STRING_SELECT = 3
MAX_ATTACHMENT_TEXT = 1024
"""An attachment's filename and description (its alt text)."""
MAX_NONCE = 25
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
    """The payload would be refused by Discord; carries Discord's error code and message, and
    for a form Discord finds invalid (50035) the ``errors`` naming each field refused."""

    def __init__(self, code: int, message: str, errors: JSON | None = None) -> None:
        super().__init__(message if errors is None else f"{message}: {errors}")
        self.code = code
        self.message = message
        self.errors = errors


INVALID_FORM_BODY = 50035
MAX_LENGTH = "BASE_TYPE_MAX_LENGTH"


def form_errors(path: str, code: str, message: str) -> JSON:
    """Discord's ``errors`` object for one refused field: ``embeds.0.title`` nests as
    ``{"embeds": {"0": {"title": {"_errors": [{"code", "message"}]}}}}``."""
    errors: JSON = {"_errors": [{"code": code, "message": message}]}
    for key in reversed(path.split(".")):
        errors = {key: errors}
    return errors


def invalid(path: str, code: str, message: str) -> MessageRejected:
    """A 50035 Invalid Form Body naming the field at ``path``, as Discord answers it."""
    return MessageRejected(INVALID_FORM_BODY, "Invalid Form Body", form_errors(path, code, message))


def too_long(path: str, limit: int) -> MessageRejected:
    """Discord's refusal of a text (or list) at ``path`` longer than ``limit``."""
    return invalid(path, MAX_LENGTH, f"Must be {limit} or fewer in length.")


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
        for position, entry in enumerate(entries):
            for key in ("filename", "description"):
                if len(entry.get(key) or "") > MAX_ATTACHMENT_TEXT:
                    raise too_long(f"attachments.{position}.{key}", MAX_ATTACHMENT_TEXT)
            raw_id = int(entry["id"])
            if raw_id in kept:
                result.append(kept[raw_id])
            elif raw_id in uploads:
                result.append(self._attachment(uploads[raw_id], entry))
                used.add(raw_id)
            else:
                raise invalid(
                    f"attachments.{position}.id",
                    "ATTACHMENT_NOT_FOUND",
                    f"Unknown attachment id {raw_id}.",
                )
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
        if len(str(payload.get("nonce") or "")) > MAX_NONCE:
            raise too_long("nonce", MAX_NONCE)
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
    """Refuse messages Discord would refuse: empty, too long, malformed components. A refusal
    of the form is Discord's 50035 "Invalid Form Body" naming the field, its ``errors`` as
    Discord nests them (discord.py's HTTPException reads "In embeds.0.title: Must be 256 or
    fewer in length.")."""
    v2 = bool(message.flags & IS_COMPONENTS_V2)
    if not (message.content or message.embeds or message.attachments or message.components):
        raise MessageRejected(50006, "Cannot send an empty message")
    if len(message.content) > MAX_CONTENT:
        raise too_long("content", MAX_CONTENT)
    if len(message.embeds) > MAX_EMBEDS:
        raise too_long("embeds", MAX_EMBEDS)
    total = sum(validate_embed(index, embed) for index, embed in enumerate(message.embeds))
    if total > MAX_EMBEDS_TOTAL:
        raise invalid(
            "embeds",
            "MAX_EMBED_SIZE_EXCEEDED",
            f"Embed size exceeds maximum size of {MAX_EMBEDS_TOTAL}",
        )
    if not v2:
        if len(message.components) > MAX_ROWS:
            raise too_long("components", MAX_ROWS)
        for row_index, row in enumerate(message.components):
            if row.get("type") != 1:
                raise invalid(
                    f"components.{row_index}",
                    "UNION_TYPE_CHOICES",
                    'Value of field "type" must be one of (1,).',
                )
            items = row.get("components", [])
            if len(items) > MAX_ROW_WIDTH:
                raise too_long(f"components.{row_index}.components", MAX_ROW_WIDTH)
            for index, item in enumerate(items):
                _validate_component(f"components.{row_index}.components.{index}", item)
    seen: set[str] = set()
    for component in message.walk_components():
        if v2:
            _validate_component("components", component)
        custom_id = component.get("custom_id")
        if custom_id is None:
            continue
        if len(custom_id) > MAX_CUSTOM_ID:
            raise too_long("components.custom_id", MAX_CUSTOM_ID)
        if custom_id in seen:
            raise invalid(
                "components",
                "COMPONENT_CUSTOM_ID_DUPLICATED",
                "Component custom id cannot be duplicated",
            )
        seen.add(custom_id)


def validate_embed(index: int, embed: dict[str, Any]) -> int:
    """Refuse an embed Discord would refuse: a title, description, field, footer or author
    past its limit, a field without a name or a value, or more than 25 fields; return its
    characters (a message's embeds hold 6,000 in all)."""
    where = f"embeds.{index}"
    total = 0
    for key, limit in EMBED_LIMITS.items():
        text = embed.get(key) or ""
        if len(text) > limit:
            raise too_long(f"{where}.{key}", limit)
        total += len(text)
    fields = embed.get("fields") or []
    if len(fields) > MAX_EMBED_FIELDS:
        raise too_long(f"{where}.fields", MAX_EMBED_FIELDS)
    for number, field in enumerate(fields):
        name, value = field.get("name") or "", field.get("value") or ""
        for key, text in (("name", name), ("value", value)):
            if not text:
                path = f"{where}.fields.{number}.{key}"
                raise invalid(path, "BASE_TYPE_REQUIRED", "This field is required")
        if len(name) > MAX_FIELD_NAME:
            raise too_long(f"{where}.fields.{number}.name", MAX_FIELD_NAME)
        if len(value) > MAX_FIELD_VALUE:
            raise too_long(f"{where}.fields.{number}.value", MAX_FIELD_VALUE)
        total += len(name) + len(value)
    footer = (embed.get("footer") or {}).get("text") or ""
    author = (embed.get("author") or {}).get("name") or ""
    if len(footer) > MAX_FOOTER:
        raise too_long(f"{where}.footer.text", MAX_FOOTER)
    if len(author) > MAX_AUTHOR:
        raise too_long(f"{where}.author.name", MAX_AUTHOR)
    return total + len(footer) + len(author)


def _validate_component(where: str, component: dict[str, Any]) -> None:
    """Refuse a button label past 80 characters, or a select with a placeholder past 150,
    no option or more than 25, or an option's label, value or description past 100."""
    if len(component.get("label") or "") > MAX_BUTTON_LABEL:
        raise too_long(f"{where}.label", MAX_BUTTON_LABEL)
    if len(component.get("placeholder") or "") > MAX_PLACEHOLDER:
        raise too_long(f"{where}.placeholder", MAX_PLACEHOLDER)
    options = component.get("options") or []
    if component.get("type") == STRING_SELECT and not 1 <= len(options) <= MAX_OPTIONS:
        raise invalid(
            f"{where}.options",
            "BASE_TYPE_BAD_LENGTH",
            f"Must be between 1 and {MAX_OPTIONS} in length.",
        )
    for number, option in enumerate(options):
        for key in ("label", "value", "description"):
            if len(option.get(key) or "") > MAX_OPTION_TEXT:
                raise too_long(f"{where}.options.{number}.{key}", MAX_OPTION_TEXT)


MAX_CHOICES = 25
MAX_CHOICE_TEXT = 100
"""An autocomplete choice's name, and its value when a string."""
MAX_MODAL_TITLE = 45
MAX_MODAL_ROWS = 5
MAX_INPUT_LABEL = 45
MAX_INPUT_PLACEHOLDER = 100
MAX_INPUT_VALUE = 4000


def validate_autocomplete(data: JSON) -> None:
    """Refuse an autocomplete answer past Discord's limits: 25 choices, each named in 1 to 100
    characters, a string value at most 100."""
    choices = data.get("choices") or []
    if len(choices) > MAX_CHOICES:
        raise too_long("data.choices", MAX_CHOICES)
    for number, choice in enumerate(choices):
        name = str(choice.get("name") or "")
        if not 1 <= len(name) <= MAX_CHOICE_TEXT:
            raise invalid(
                f"data.choices.{number}.name",
                "BASE_TYPE_BAD_LENGTH",
                f"Must be between 1 and {MAX_CHOICE_TEXT} in length.",
            )
        value = choice.get("value")
        if isinstance(value, str) and len(value) > MAX_CHOICE_TEXT:
            raise too_long(f"data.choices.{number}.value", MAX_CHOICE_TEXT)


def validate_modal(data: JSON) -> None:
    """Refuse a modal past Discord's limits: a title of 45 characters, 5 rows, a text input's
    label 45, placeholder 100 and value 4000, custom ids 100."""
    if len(data.get("title") or "") > MAX_MODAL_TITLE:
        raise too_long("data.title", MAX_MODAL_TITLE)
    if len(data.get("custom_id") or "") > MAX_CUSTOM_ID:
        raise too_long("data.custom_id", MAX_CUSTOM_ID)
    rows = data.get("components") or []
    if len(rows) > MAX_MODAL_ROWS:
        raise too_long("data.components", MAX_MODAL_ROWS)
    for row_index, row in enumerate(rows):
        for index, item in enumerate(row.get("components") or [row.get("component") or {}]):
            where = f"data.components.{row_index}.components.{index}"
            for key, limit in (
                ("label", MAX_INPUT_LABEL),
                ("placeholder", MAX_INPUT_PLACEHOLDER),
                ("value", MAX_INPUT_VALUE),
                ("custom_id", MAX_CUSTOM_ID),
            ):
                if len(str(item.get(key) or "")) > limit:
                    raise too_long(f"{where}.{key}", limit)


MAX_COMMAND_NAME = 32
MAX_COMMAND_DESCRIPTION = 100
MAX_COMMAND_OPTIONS = 25
CHAT_INPUT = 1


def _bad_length(path: str, limit: int) -> MessageRejected:
    return invalid(path, "BASE_TYPE_BAD_LENGTH", f"Must be between 1 and {limit} in length.")


def _valid_command_name(name: str) -> bool:
    """Discord's rule for a slash command's (or option's) name: 1 to 32 letters, digits, ``-``,
    ``_`` or ``'``, lowercase where the letter has a lowercase."""
    return (
        1 <= len(name) <= MAX_COMMAND_NAME
        and all(ch.isalnum() or ch in "-_'" for ch in name)
        and name == name.lower()
    )


def validate_commands(commands: list[JSON]) -> None:
    """Refuse a bulk overwrite of commands Discord would refuse: a name or its translation
    not a valid name, a description or its translation outside 1 to 100 characters, more
    than 25 options or choices, a choice's name (or translation) outside 1 to 100, a string
    value past 100."""
    for index, command in enumerate(commands):
        chat_input = int(command.get("type") or CHAT_INPUT) == CHAT_INPUT
        _validate_command_part(str(index), command, names_checked=chat_input)


def _validate_command_part(where: str, part: JSON, *, names_checked: bool) -> None:
    names = {"name": part.get("name")} | {
        f"name_localizations.{locale}": name
        for locale, name in (part.get("name_localizations") or {}).items()
    }
    for key, name in names.items():
        if names_checked and not _valid_command_name(str(name or "")):
            raise invalid(
                f"{where}.{key}", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"
            )
    descriptions = {"description": part.get("description")} | {
        f"description_localizations.{locale}": text
        for locale, text in (part.get("description_localizations") or {}).items()
    }
    for key, text in descriptions.items():
        if names_checked and not 1 <= len(str(text or "")) <= MAX_COMMAND_DESCRIPTION:
            raise _bad_length(f"{where}.{key}", MAX_COMMAND_DESCRIPTION)
    options = part.get("options") or []
    if len(options) > MAX_COMMAND_OPTIONS:
        raise too_long(f"{where}.options", MAX_COMMAND_OPTIONS)
    for number, option in enumerate(options):
        _validate_command_part(f"{where}.options.{number}", option, names_checked=True)
    choices = part.get("choices") or []
    if len(choices) > MAX_CHOICES:
        raise too_long(f"{where}.choices", MAX_CHOICES)
    for number, choice in enumerate(choices):
        texts = {"name": choice.get("name")} | {
            f"name_localizations.{locale}": name
            for locale, name in (choice.get("name_localizations") or {}).items()
        }
        for key, text in texts.items():
            if not 1 <= len(str(text or "")) <= MAX_CHOICE_TEXT:
                raise _bad_length(f"{where}.choices.{number}.{key}", MAX_CHOICE_TEXT)
        value = choice.get("value")
        if isinstance(value, str) and not 1 <= len(value) <= MAX_CHOICE_TEXT:
            raise _bad_length(f"{where}.choices.{number}.value", MAX_CHOICE_TEXT)
