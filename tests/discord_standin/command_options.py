"""Building the ``data`` of application-command and autocomplete interactions from plain values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import payloads
from .model import (
    EVERYONE_PERMISSIONS,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeRole,
    FakeUser,
    World,
)
from .recorder import Recorder

JSON = dict[str, Any]

SUB_COMMAND = 1
SUB_COMMAND_GROUP = 2
STRING = 3
INTEGER = 4
BOOLEAN = 5
USER = 6
CHANNEL = 7
ROLE = 8
NUMBER = 10

OptionValue = str | int | float | bool | FakeUser | FakeMember | FakeChannel | FakeRole


def find_command(recorder: Recorder, guild: FakeGuild | None, name: str) -> JSON | None:
    """The synced chat-input command with this name: the guild's own first, then global."""
    scopes = [] if guild is None else [recorder.guild_commands.get(guild.id, [])]
    scopes.append(recorder.global_commands)
    for commands in scopes:
        for command in commands:
            if command["name"] == name and command.get("type", 1) == 1:
                return command
    return None


def _as_int(value: OptionValue) -> int:
    if isinstance(value, int | str):
        return int(value)
    raise TypeError(f"expected an id, got {value!r}")


def _number(value: OptionValue) -> float:
    if isinstance(value, int | float | str):
        return float(value)
    raise TypeError(f"expected a number, got {value!r}")


def _infer_type(value: OptionValue) -> int:
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int):
        return INTEGER
    if isinstance(value, float):
        return NUMBER
    if isinstance(value, FakeUser | FakeMember):
        return USER
    if isinstance(value, FakeRole):
        return ROLE
    if isinstance(value, FakeChannel):
        return CHANNEL
    return STRING


class OptionBuilder:
    """Turns ``{"opponent": bob, "sets": 2}`` into Discord's options list plus ``resolved``."""

    def __init__(self, world: World, guild: FakeGuild | None, channel: FakeChannel) -> None:
        self._world = world
        self._guild = guild
        self._channel = channel
        self.resolved: JSON = {}

    def _resolve_user(self, value: OptionValue) -> str:
        if isinstance(value, FakeMember):
            user = value.user
        elif isinstance(value, FakeUser):
            user = value
        else:
            found = self._world.users.get(_as_int(value))
            if found is None:
                raise LookupError(f"no stand-in user has id {value}")
            user = found
        self.resolved.setdefault("users", {})[str(user.id)] = payloads.user(user)
        member = None if self._guild is None else self._guild.member(user.id)
        if member is not None:
            # Discord sends a resolved member's permissions in the interaction's channel.
            member_json = payloads.member(member, channel_for_permissions=self._channel)
            del member_json["user"]
            self.resolved.setdefault("members", {})[str(user.id)] = member_json
        return str(user.id)

    def _resolve_channel(self, value: OptionValue, definition: JSON | None) -> str:
        channel = (
            value if isinstance(value, FakeChannel) else self._world.channels.get(_as_int(value))
        )
        if not isinstance(channel, FakeChannel):
            raise LookupError(f"no stand-in channel has id {value}")
        offered = [] if definition is None else definition.get("channel_types", [])
        if definition is not None and offered and channel.type not in offered:
            # "If the option is a channel type, the channels shown will be restricted to these
            # types" (Discord's Application Commands topic): no member could pick it.
            raise ValueError(
                f"option {definition['name']!r} offers channels of types {offered}, "
                f"not #{channel.name} (type {channel.type})"
            )
        entry = {**payloads.channel(channel), "permissions": str(EVERYONE_PERMISSIONS)}
        self.resolved.setdefault("channels", {})[str(channel.id)] = entry
        return str(channel.id)

    def _resolve_role(self, value: OptionValue) -> str:
        found = self._world.role(value.id if isinstance(value, FakeRole) else _as_int(value))
        if found is None:
            raise LookupError(f"no stand-in role has id {value}")
        guild, role = found
        self.resolved.setdefault("roles", {})[str(role.id)] = payloads.role(guild, role)
        return str(role.id)

    def option(self, name: str, value: OptionValue, definition: JSON | None) -> JSON:
        """One option entry; user and channel values are added to ``resolved``."""
        kind = _infer_type(value) if definition is None else int(definition["type"])
        converted: Any
        if kind == USER:
            converted = self._resolve_user(value)
        elif kind == CHANNEL:
            converted = self._resolve_channel(value, definition)
        elif kind == ROLE:
            converted = self._resolve_role(value)
        elif kind == STRING:
            converted = str(value)
        elif kind == INTEGER:
            converted = _as_int(value)
        elif kind == NUMBER:
            converted = _number(value)
        else:
            converted = value
        if definition is not None and definition.get("choices"):
            allowed = [c["value"] for c in definition["choices"]]
            if converted not in allowed:
                raise ValueError(f"option {name!r} must be one of {allowed}, not {converted!r}")
        return {"name": name, "type": kind, "value": converted}

    def options(
        self,
        given: Mapping[str, OptionValue],
        definitions: list[JSON] | None,
        *,
        focused: str | None = None,
    ) -> list[JSON]:
        """The options list, checked against the synced definition when there is one."""
        known = {d["name"]: d for d in definitions or []}
        if definitions is not None:
            unknown = set(given) - set(known)
            if unknown:
                raise ValueError(f"options {sorted(unknown)} are not in the synced command")
            missing = [
                d["name"]
                for d in definitions
                if d.get("required") and d["name"] not in given and d["name"] != focused
            ]
            if missing:
                raise ValueError(f"required options {missing} were not given")
        built: list[JSON] = []
        for name, value in given.items():
            definition = known.get(name)
            if name == focused:
                kind = STRING if definition is None else int(definition["type"])
                built.append({"name": name, "type": kind, "value": str(value), "focused": True})
            else:
                built.append(self.option(name, value, definition))
        return built


def command_data(
    *,
    world: World,
    recorder: Recorder,
    guild: FakeGuild | None,
    channel: FakeChannel,
    name: str,
    options: Mapping[str, OptionValue],
    focused: str | None = None,
) -> JSON:
    """The ``data`` object of a chat-input command (or autocomplete) interaction.

    ``name`` may be ``"game move"`` for a subcommand; the command id comes from what the bot
    synced (a fresh snowflake if it synced nothing by that name).
    """
    top, *sub = name.split()
    command = find_command(recorder, guild, top)
    builder = OptionBuilder(world, guild, channel)
    definitions: list[JSON] | None = None if command is None else command.get("options", [])
    data: JSON = {
        "id": str(world.snowflakes.next()) if command is None else command["id"],
        "name": top,
        "type": 1,
    }
    if command is not None and "guild_id" in command:
        data["guild_id"] = command["guild_id"]
    if sub:
        if len(sub) > 1:
            raise ValueError("subcommand groups are not supported by the stand-in")
        sub_definition = next((d for d in definitions or [] if d["name"] == sub[0]), None)
        if definitions is not None and sub_definition is None:
            raise ValueError(f"/{top} has no subcommand {sub[0]!r}")
        inner = builder.options(
            options,
            None if sub_definition is None else sub_definition.get("options", []),
            focused=focused,
        )
        data["options"] = [{"name": sub[0], "type": SUB_COMMAND, "options": inner}]
    else:
        data["options"] = builder.options(options, definitions, focused=focused)
    if builder.resolved:
        data["resolved"] = builder.resolved
    return data
