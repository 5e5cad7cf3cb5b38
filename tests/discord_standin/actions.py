"""Playing the players: sending slash commands, autocomplete, clicks, selects and modal submits."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Mapping, Sequence
from typing import Any

from . import payloads
from .command_options import OptionValue, command_data
from .gateway import Gateway
from .model import (
    ALL_PERMISSIONS,
    MANAGE_THREADS,
    VIEW_CHANNEL,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeUser,
    World,
    utc_now,
)
from .recorder import InteractionNotAnswered, InteractionRecord, Recorder, StoredMessage

JSON = dict[str, Any]

APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
AUTOCOMPLETE = 4
MODAL_SUBMIT = 5
BUTTON = 2
STRING_SELECT = 3
MODAL = 9

NEVER_DELIVERED = "never delivered: no gateway session of the bot's serves its place"
"""An interaction's :attr:`InteractionRecord.rejected` when the bot's gateway session that
would receive it had ended (Discord sends it to nobody; the player's client says it failed)."""


class PlayerActions:
    """Builds interactions as a player's client would and waits for the bot to answer them."""

    world: World
    recorder: Recorder
    gateway: Gateway
    delivery_delay: float = 0.0
    """Seconds Discord takes to deliver each interaction to the bot (a slow gateway, a busy
    shard): its id's time, and Discord's 3 seconds for an answer, count from before."""

    @property
    def application_id(self) -> int:
        """The application id the bot syncs commands under."""
        return self.world.application_id

    def _as_actor(self, channel: FakeChannel, who: FakeMember | FakeUser) -> FakeMember | FakeUser:
        guild = channel.guild
        if guild is None:
            return who.user if isinstance(who, FakeMember) else who
        if isinstance(who, FakeMember):
            if who.guild is not guild:
                raise ValueError(f"{who.name} is a member of {who.guild.name}, not {guild.name}")
            return who
        member = guild.member(who.id)
        if member is None:
            raise ValueError(f"{who.name} is not a member of {guild.name}")
        return member

    def _app_permissions(self, channel: FakeChannel) -> int:
        if channel.guild is None:
            return ALL_PERMISSIONS
        return self.world.bot_member(channel.guild).permissions_in(channel)

    async def _send(
        self,
        *,
        interaction_type: int,
        name: str,
        channel: FakeChannel,
        who: FakeMember | FakeUser,
        data: JSON,
        source: StoredMessage | None = None,
        wait: bool,
        timeout: float,
        message_payload: JSON | None = None,
    ) -> InteractionRecord:
        if channel.id not in self.world.channels:
            raise ValueError(f"#{channel.name} was deleted: no interaction from there")
        if channel.guild is not None and not self.world.bot_is_in(channel.guild):
            raise ValueError(f"the bot was removed from {channel.guild.name}: no interactions")
        actor = self._as_actor(channel, who)
        if isinstance(actor, FakeMember) and not (
            actor.effective_permissions_in(channel) & VIEW_CHANNEL
        ):
            # Their client does not show the channel: Discord never sends such an interaction.
            raise ValueError(f"{actor.name} cannot see #{channel.name}: no interaction from there")
        timed_out = isinstance(actor, FakeMember) and actor.communication_disabled_until
        if timed_out and timed_out > self.world.clock():
            # Discord's clients let a timed-out member use no command or component.
            raise ValueError(f"{actor.name} is timed out: no interaction from them")
        if channel.is_thread and channel.archived:
            await self._open_archived_thread(channel, actor, interaction_type)
        if message_payload is None and source is not None:
            message_payload = source.to_payload()
        interaction_id = self.world.snowflakes.next()
        token = f"interaction.{secrets.token_urlsafe(32)}"
        payload = payloads.interaction(
            interaction_id=interaction_id,
            interaction_type=interaction_type,
            token=token,
            application_id=self.application_id,
            where=channel,
            who=actor,
            app_permissions=self._app_permissions(channel),
            data=data,
            message=message_payload,
        )
        record = InteractionRecord(
            id=interaction_id,
            token=token,
            type=interaction_type,
            name=name,
            payload=payload,
            channel=channel,
            user=actor.user if isinstance(actor, FakeMember) else actor,
            application_id=self.application_id,
            sent_at=utc_now(),
            sent_clock=time.perf_counter(),
            recorder=self.recorder,
            source_message=source,
            original=source,
        )
        self.recorder.add_interaction(record)
        if self.delivery_delay:
            await asyncio.sleep(self.delivery_delay)
        try:
            await self.gateway.dispatch("INTERACTION_CREATE", payload)
        except RuntimeError:
            # No session of the bot's serves the place (its gateway dropped it and the session
            # ended): Discord delivers the interaction to nobody, and the player's client
            # shows that it failed once its 3 seconds pass.
            record.rejected = NEVER_DELIVERED
            self.recorder.notify()
        if wait:
            await self.wait_answered(record, timeout=timeout)
        return record

    async def _open_archived_thread(
        self, thread: FakeChannel, actor: FakeMember | FakeUser, interaction_type: int
    ) -> None:
        """What a player's client does before an interaction in an archived thread. Discord's
        Threads topic: "Users cannot ... use application commands ... in archived threads"
        (their client does not offer them there: write a message first, see
        :meth:`DiscordStandin.member_writes`). A press of a component: the client first
        unarchives the thread as the player (PATCH archived=false; reported in
        discord/discord-api-docs#8474), which a locked thread refuses to anyone without
        Manage Threads, and then the interaction is never sent."""
        if interaction_type != MESSAGE_COMPONENT:
            raise ValueError(
                f"#{thread.name} is archived: Discord's clients offer no commands there"
            )
        may_manage = isinstance(actor, FakeMember) and bool(
            actor.effective_permissions_in(thread) & MANAGE_THREADS
        )
        if thread.locked and not may_manage:
            raise ValueError(
                f"#{thread.name} is locked and archived: {actor.name}'s client cannot open it"
            )
        thread.archived = False
        thread.archived_at = self.world.clock()
        await self.gateway.dispatch("THREAD_UPDATE", payloads.thread(thread))

    async def wait_answered(self, record: InteractionRecord, *, timeout: float = 5.0) -> None:
        """Wait for the bot's callback; raise InteractionNotAnswered if none came in time."""
        try:
            await self.recorder.wait_until(
                lambda: record.answered or record.rejected is not None,
                timeout=timeout,
                waiting_for=f"an answer to {record.name!r}",
            )
        except AssertionError:
            raise InteractionNotAnswered(
                f"the bot did not answer {record.name!r} within {timeout}s"
            ) from None
        if record.rejected == NEVER_DELIVERED:
            raise InteractionNotAnswered(f"{record.name!r} was {NEVER_DELIVERED}")
        if record.rejected is not None:
            raise InteractionNotAnswered(
                f"the bot answered {record.name!r} too late: {record.rejected}"
            )

    def _check_place(self, guild: FakeGuild | None, channel: FakeChannel) -> None:
        if channel.guild is not guild:
            where = "a DM" if channel.guild is None else channel.guild.name
            raise ValueError(f"#{channel.name} is in {where}, not in the guild given")

    async def slash(
        self,
        guild: FakeGuild | None,
        channel: FakeChannel,
        member: FakeMember | FakeUser,
        name: str,
        options: Mapping[str, OptionValue] | None = None,
        *,
        wait: bool = True,
        timeout: float = 5.0,
    ) -> InteractionRecord:
        """Run ``/name`` (``"game move"`` for a subcommand) and wait for the bot's callback."""
        self._check_place(guild, channel)
        data = command_data(
            world=self.world,
            recorder=self.recorder,
            guild=guild,
            channel=channel,
            name=name,
            options=options or {},
        )
        return await self._send(
            interaction_type=APPLICATION_COMMAND,
            name=f"/{name}",
            channel=channel,
            who=member,
            data=data,
            wait=wait,
            timeout=timeout,
        )

    async def autocomplete(
        self,
        guild: FakeGuild | None,
        channel: FakeChannel,
        member: FakeMember | FakeUser,
        name: str,
        *,
        focused: str,
        value: str,
        options: Mapping[str, OptionValue] | None = None,
        timeout: float = 5.0,
    ) -> list[JSON]:
        """Type ``value`` into option ``focused`` of ``/name``; return the bot's choices."""
        self._check_place(guild, channel)
        given = {**(options or {}), focused: value}
        data = command_data(
            world=self.world,
            recorder=self.recorder,
            guild=guild,
            channel=channel,
            name=name,
            options=given,
            focused=focused,
        )
        record = await self._send(
            interaction_type=AUTOCOMPLETE,
            name=f"/{name} {focused}=",
            channel=channel,
            who=member,
            data=data,
            wait=True,
            timeout=timeout,
        )
        return record.choices

    def _component(
        self, message: StoredMessage, custom_id: str, who: FakeMember | FakeUser
    ) -> JSON:
        if message.deleted:
            raise ValueError(f"message {message.id} was deleted")
        component = message.component(custom_id)
        if component is None:
            raise LookupError(
                f"message {message.id} has no component {custom_id!r};"
                f" it has {message.custom_ids()}"
            )
        if component.get("disabled"):
            raise ValueError(f"component {custom_id!r} is disabled")
        source = message.interaction
        if message.ephemeral and source is not None and source.user.id != who.id:
            raise ValueError(f"only {source.user.name} can see ephemeral message {message.id}")
        return component

    async def click(
        self,
        message: StoredMessage,
        custom_id: str,
        user: FakeMember | FakeUser,
        *,
        wait: bool = True,
        timeout: float = 5.0,
    ) -> InteractionRecord:
        """Press the button ``custom_id`` on ``message`` and wait for the bot's callback."""
        component = self._component(message, custom_id, user)
        if component.get("type") != BUTTON:
            raise ValueError(f"{custom_id!r} is not a button")
        data: JSON = {"custom_id": custom_id, "component_type": BUTTON}
        if "id" in component:
            data["id"] = component["id"]
        return await self._send(
            interaction_type=MESSAGE_COMPONENT,
            name=custom_id,
            channel=message.channel,
            who=user,
            data=data,
            source=message,
            wait=wait,
            timeout=timeout,
        )

    async def send_command_data(
        self,
        channel: FakeChannel,
        member: FakeMember | FakeUser,
        data: JSON,
        *,
        wait: bool = True,
        timeout: float = 5.0,
    ) -> InteractionRecord:
        """A chat-input command with exactly this ``data`` (say, without a required option, as
        an outdated client sends it), unchecked against what the bot synced."""
        return await self._send(
            interaction_type=APPLICATION_COMMAND,
            name=f"/{data.get('name')} (raw)",
            channel=channel,
            who=member,
            data=data,
            wait=wait,
            timeout=timeout,
        )

    async def forged_click(
        self,
        message: StoredMessage,
        custom_id: str,
        user: FakeMember | FakeUser,
        *,
        channel: FakeChannel | None = None,
        wait: bool = True,
        timeout: float = 5.0,
    ) -> InteractionRecord:
        """A press of a button ``custom_id`` that the bot never put on ``message`` (as a forged
        or garbled message would carry it); ``channel`` places the press elsewhere."""
        data: JSON = {"custom_id": custom_id, "component_type": BUTTON}
        payload = message.to_payload()
        button = {"type": BUTTON, "style": 2, "label": "?", "custom_id": custom_id}
        payload["components"] = [
            *payload.get("components", []),
            {"type": 1, "components": [button]},
        ]
        return await self._send(
            message_payload=payload,
            interaction_type=MESSAGE_COMPONENT,
            name=custom_id,
            channel=channel or message.channel,
            who=user,
            data=data,
            source=message,
            wait=wait,
            timeout=timeout,
        )

    async def select(
        self,
        message: StoredMessage,
        custom_id: str,
        user: FakeMember | FakeUser,
        values: Sequence[str],
        *,
        wait: bool = True,
        timeout: float = 5.0,
    ) -> InteractionRecord:
        """Pick ``values`` in the string select ``custom_id`` and wait for the bot's callback."""
        component = self._component(message, custom_id, user)
        if component.get("type") != STRING_SELECT:
            raise ValueError(f"{custom_id!r} is not a string select (the stand-in's only kind)")
        offered = [o["value"] for o in component.get("options", [])]
        unknown = [v for v in values if v not in offered]
        if unknown:
            raise ValueError(f"select {custom_id!r} offers {offered}, not {unknown}")
        data: JSON = {
            "custom_id": custom_id,
            "component_type": STRING_SELECT,
            "values": list(values),
        }
        return await self._send(
            interaction_type=MESSAGE_COMPONENT,
            name=custom_id,
            channel=message.channel,
            who=user,
            data=data,
            source=message,
            wait=wait,
            timeout=timeout,
        )

    async def submit_modal(
        self,
        opened: InteractionRecord,
        values: Mapping[str, str],
        *,
        wait: bool = True,
        timeout: float = 5.0,
    ) -> InteractionRecord:
        """Fill in and submit the modal the bot opened in answer to ``opened``."""
        if opened.response_type != MODAL:
            raise ValueError(f"the bot did not answer {opened.name!r} with a modal")
        modal = opened.response_data
        submitted = [_submitted(c, values) for c in modal.get("components", [])]
        data: JSON = {"custom_id": modal["custom_id"], "components": submitted}
        return await self._send(
            interaction_type=MODAL_SUBMIT,
            name=modal["custom_id"],
            channel=opened.channel,
            who=opened.user,
            data=data,
            source=opened.source_message,
            wait=wait,
            timeout=timeout,
        )


def _submitted(component: JSON, values: Mapping[str, str]) -> JSON:
    """What Discord sends back for one modal component: text inputs carry their value."""
    kind = component.get("type")
    if kind == 4:
        return {
            "type": 4,
            "custom_id": component["custom_id"],
            "value": values.get(component["custom_id"], component.get("value", "")),
        }
    result: JSON = {"type": kind}
    if "id" in component:
        result["id"] = component["id"]
    if "components" in component:
        result["components"] = [_submitted(c, values) for c in component["components"]]
    if "component" in component:
        result["component"] = _submitted(component["component"], values)
    return result
