"""Discord's published API contract: every request the bot sends is checked against it.

The contract is Discord's OpenAPI specification (``openapi.json`` from Discord's
``discord-api-spec`` repository). Tests read it from ``../shared/discord/openapi.json`` beside
the repository (or the file named by ``DISCORD_OPENAPI_SPEC``); when it is absent the check is
skipped and :func:`contract_status` says why, which the test session prints.
"""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

JSON = dict[str, Any]

SPEC_ENV = "DISCORD_OPENAPI_SPEC"
SPEC_URI = "urn:discord-openapi"
REPOSITORY = Path(__file__).resolve().parents[2]


def spec_path() -> Path | None:
    """Where the specification is: ``$DISCORD_OPENAPI_SPEC``, else ``shared/`` beside the repo.

    A git worktree may sit one folder deeper than the clone, so the folder above is tried too.
    """
    named = os.environ.get(SPEC_ENV, "").strip()
    if named:
        return Path(named) if Path(named).is_file() else None
    for folder in (REPOSITORY.parent, REPOSITORY.parent.parent):
        candidate = folder / "shared" / "discord" / "openapi.json"
        if candidate.is_file():
            return candidate
    return None


def contract_status() -> str:
    """One line for the test report: which contract requests are checked against, or why not."""
    path = spec_path()
    if path is None:
        return (
            "Discord API contract NOT checked: ../shared/discord/openapi.json is absent beside "
            f"the repository (or set {SPEC_ENV})"
        )
    return f"Discord API contract checked against {path}"


@dataclass(frozen=True)
class Operation:
    """One documented route: its path template and the request-body schemas by content type."""

    template: str
    pattern: re.Pattern[str]
    literal_parts: int
    bodies: dict[str, str]
    """Content type -> a ``$ref`` (into the specification) to the body's schema."""
    body_required: bool


def _allow_integer_snowflakes(spec: JSON) -> None:
    """Let a snowflake be sent as a JSON number as well as a string.

    The one tolerance: discord.py sends ids it writes (``allowed_mentions.users``, a new
    upload's ``attachments[].id``) as numbers, Discord accepts them, and Discord's own upload
    example sends ``"id": 0``; the specification only lists the string form it answers with.
    """
    schemas = spec["components"]["schemas"]
    snowflake = schemas["SnowflakeType"]
    schemas["SnowflakeType"] = {
        "anyOf": [snowflake, {"type": "integer", "minimum": 0, "maximum": 2**64 - 1}]
    }


def _pointer(*parts: str) -> str:
    return "/".join(part.replace("~", "~0").replace("/", "~1") for part in parts)


class Contract:
    """The routes and request-body schemas of Discord's specification."""

    def __init__(self, spec: JSON) -> None:
        _allow_integer_snowflakes(spec)
        resource = Resource.from_contents(spec, default_specification=DRAFT202012)
        self._registry: Registry[Any] = Registry().with_resource(SPEC_URI, resource)
        self._operations: dict[str, list[Operation]] = {}
        for template, item in spec["paths"].items():
            pattern = re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$")
            literal_parts = sum(1 for p in template.split("/") if p and not p.startswith("{"))
            for method, operation in item.items():
                if method in ("parameters", "summary", "description"):
                    continue
                body = operation.get("requestBody") or {}
                bodies = {
                    content_type: SPEC_URI
                    + "#/"
                    + _pointer(
                        "paths", template, method, "requestBody", "content", content_type, "schema"
                    )
                    for content_type in body.get("content", {})
                }
                self._operations.setdefault(method.upper(), []).append(
                    Operation(
                        template,
                        pattern,
                        literal_parts,
                        bodies,
                        bool(body.get("required")),
                    )
                )
        for operations in self._operations.values():
            # ``/users/@me`` before ``/users/{user_id}``: the most literal template wins.
            operations.sort(key=lambda op: -op.literal_parts)

    def operation(self, method: str, path: str) -> Operation | None:
        """The documented operation for ``method`` on ``path`` (``/channels/1/messages``)."""
        for operation in self._operations.get(method.upper(), []):
            if operation.pattern.match(path):
                return operation
        return None

    def violations(self, method: str, path: str, content_type: str, body: Any) -> list[str]:
        """What is wrong with this request by the contract (empty when it is fine).

        ``body`` is the parsed JSON (for multipart, ``payload_json``), or None without a body.
        """
        operation = self.operation(method, path)
        if operation is None:
            return [f"{method} {path}: Discord documents no such route"]
        if body is None:
            if operation.body_required:
                return [f"{method} {path} ({operation.template}): a body is required"]
            return []
        if not operation.bodies:
            return [f"{method} {path} ({operation.template}): Discord documents no body here"]
        ref = operation.bodies.get(content_type) or operation.bodies.get("application/json")
        if ref is None:
            return [f"{method} {path} ({operation.template}): {content_type} is not accepted"]
        validator = Draft202012Validator({"$ref": ref}, registry=self._registry)
        problems: list[str] = []
        for error in sorted(validator.iter_errors(body), key=lambda e: list(e.absolute_path)):
            problems.append(f"{method} {path} ({operation.template}) at {_deepest(error)}")
        return problems


def _deepest(error: Any) -> str:
    """The specific reason inside an ``anyOf``: the branch whose ``type`` discriminator matches
    (else the one with fewest failures), followed down; a readable line, not 200."""
    while error.context:
        branches: dict[Any, list[Any]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        errors = min(
            branches.values(),
            key=lambda found: (
                any(_wrong_kind(e) for e in found),
                any(e.validator == "type" and e.validator_value == "null" for e in found),
                len(found),
            ),
        )
        error = errors[0]
    where = "/".join(str(p) for p in error.absolute_path) or "(the body)"
    return f"{where}: {str(error.message)[:200]}"


def _wrong_kind(error: Any) -> bool:
    """Whether ``error`` says the instance is another kind of thing than this branch describes
    (another JSON type, or another value of the ``type`` discriminator)."""
    path = list(error.relative_path)
    if not path and error.validator == "type":
        return True
    return path == ["type"] and error.validator in ("enum", "const")


@functools.cache
def load_contract() -> Contract | None:
    """The contract, read once per process; None when the specification file is absent."""
    path = spec_path()
    if path is None:
        return None
    return Contract(json.loads(path.read_text(encoding="utf-8")))
