"""The stand-in's REST routes for interactions: the callback (the first answer), followups,
and the webhook routes that read, edit and delete an answer."""

from __future__ import annotations

import time
from datetime import timedelta

from aiohttp import web

from .messages import read_body, validate_autocomplete, validate_modal
from .model import utc_now
from .recorder import (
    AUTOCOMPLETE_RESULT,
    CHANNEL_MESSAGE,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE_MESSAGE,
    MODAL,
    UPDATE_MESSAGE,
    InteractionRecord,
)
from .rest_routes import JSON, RestRoutes, error, json_response, path_int

# Which callback types each interaction type accepts (2 command, 3 component, 4 autocomplete,
# 5 modal submit).
ALLOWED_CALLBACKS: dict[int, set[int]] = {
    2: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL},
    3: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE, MODAL},
    4: {AUTOCOMPLETE_RESULT},
    5: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE},
}


TOKEN_LIFETIME = timedelta(minutes=15)
"""How long an interaction's token answers (Discord's "Receiving and Responding": "Interaction
tokens are valid for 15 minutes"); past it every webhook request with the token is answered
401 Invalid Webhook Token (50027), as reported in discord/discord-api-docs#6851."""


def _ephemeral(data: JSON) -> bool:
    """Whether a message's body asks for it to be ephemeral (flag 64)."""
    return bool(int(data.get("flags") or 0) & 64)


class InteractionRoutes(RestRoutes):
    """POST /interactions/{id}/{token}/callback and /webhooks/{app}/{token}[/messages/{id}]."""

    async def callback(self, request: web.Request) -> web.StreamResponse:
        """POST /interactions/{id}/{token}/callback — the bot's first answer to an interaction."""
        record = self._recorder.interactions.get(path_int(request, "interaction_id"))
        if record is None or record.token != request.match_info["token"]:
            return error(404, 10062, "Unknown interaction")
        arrived = time.perf_counter()
        body, uploads = await read_body(request)
        if record.response_type is not None:
            return error(400, 40060, "Interaction has already been acknowledged.")
        if self._deadline is not None and arrived - record.sent_clock > self._deadline:
            record.rejected = f"callback arrived {arrived - record.sent_clock:.2f}s after sending"
            return error(404, 10062, "Unknown interaction")
        kind = int(body["type"])
        if kind not in ALLOWED_CALLBACKS.get(record.type, set()):
            return error(400, 50035, f"callback type {kind} is invalid for this interaction")
        if self._answer_refused(record, uploads):
            return error(403, 50013, "Missing Permissions")
        data: JSON = body.get("data") or {}
        if kind == AUTOCOMPLETE_RESULT:
            validate_autocomplete(data)
        elif kind == MODAL:
            validate_modal(data)
        source = record.source_message
        if kind == UPDATE_MESSAGE and source is not None and not source.ephemeral:
            refused = await self._thread_refuses(source.channel, creates=False, answering=True)
        elif kind in (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE) and not _ephemeral(data):
            refused = await self._thread_refuses(record.channel, creates=True, answering=True)
        else:
            refused = None
        if refused is not None:
            return refused
        resource: JSON = {"type": kind}
        info: JSON = {"id": str(record.id), "type": record.type}
        if kind == CHANNEL_MESSAGE:
            message = self._messages.create(
                record.channel,
                data,
                uploads,
                interaction=record,
                message_type=20 if record.type == 2 else 0,
                allow_ephemeral=True,
            )
            record.original = self._recorder.add_message(message)
            resource["message"] = message.to_payload()
        elif kind == DEFERRED_CHANNEL_MESSAGE:
            flags = int(data.get("flags") or 0)
            placeholder = self._messages.loading(record.channel, record, flags)
            record.original = self._recorder.add_message(placeholder)
        elif kind == UPDATE_MESSAGE:
            target = record.source_message
            if target is None:
                return error(400, 50035, "UPDATE_MESSAGE needs a message to update")
            self._messages.edit(target, data, uploads)
            resource["message"] = target.to_payload()
        if record.original is not None and kind in (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE):
            info.update(
                response_message_id=str(record.original.id),
                response_message_loading=record.original.loading,
                response_message_ephemeral=record.original.ephemeral,
            )
        record.response_type = kind
        record.response_data = data
        record.answered_at = utc_now()
        record.answered_clock = arrived
        if kind not in (DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE):
            record.shown_clock = arrived
        self._recorder.notify()
        if request.query.get("with_response", "").lower() in ("1", "true"):
            return json_response({"interaction": info, "resource": resource})
        return web.Response(status=204)

    def _expired(self, record: InteractionRecord) -> bool:
        """Whether ``record``'s token is past its lifetime (by the world's token clock)."""
        return self._world.token_clock() - record.sent_at >= TOKEN_LIFETIME

    def _webhook_interaction(self, request: web.Request) -> InteractionRecord | None:
        record = self._recorder.interaction_by_token(request.match_info["token"])
        if record is None or path_int(request, "app_id") != record.application_id:
            return None
        return record

    async def followup(self, request: web.Request) -> web.StreamResponse:
        """POST /webhooks/{app}/{token} — a followup; the first one after a defer fills it in."""
        record = self._webhook_interaction(request)
        if record is None or record.response_type is None:
            return error(404, 10015, "Unknown Webhook")
        if self._expired(record):
            return error(401, 50027, "Invalid Webhook Token")
        body, uploads = await read_body(request)
        if self._answer_refused(record, uploads):
            return error(403, 50013, "Missing Permissions")
        original = record.original
        if original is not None and original.loading:  # the followup fills it in
            seen_by_all = not original.ephemeral
        else:
            seen_by_all = not _ephemeral(body)
        if seen_by_all and (
            refused := await self._thread_refuses(record.channel, creates=True, answering=True)
        ):
            return refused
        if (
            original is not None
            and original.loading
            and record.response_type == DEFERRED_CHANNEL_MESSAGE
        ):
            self._messages.edit(original, body, uploads)
            message = original
        else:
            message = self._messages.create(
                record.channel, body, uploads, interaction=record, allow_ephemeral=True
            )
            self._recorder.add_message(message)
        record.followups.append(message)
        self._recorder.notify()
        return json_response(message.to_payload())

    async def webhook_message(self, request: web.Request) -> web.StreamResponse:
        """GET/PATCH/DELETE of @original or a followup."""
        record = self._webhook_interaction(request)
        if record is None:
            return error(404, 10015, "Unknown Webhook")
        if self._expired(record):
            return error(401, 50027, "Invalid Webhook Token")
        wanted = request.match_info["message_id"]
        candidates = [] if record.original is None else [record.original]
        candidates += record.followups
        if wanted == "@original":
            message = record.original
        else:
            message = next((m for m in candidates if str(m.id) == wanted), None)
        if message is None or message.deleted:
            return error(404, 10008, "Unknown Message")
        return await self._message_operation(request, message, answering=record)
