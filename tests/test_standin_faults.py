"""The stand-in holds the bot to Discord's published contract and can have Discord's bad days."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import aiohttp
import discord
import pytest

from tests.discord_standin import DiscordStandin, payloads
from tests.discord_standin.contract import Contract, contract_status, load_contract
from tests.test_standin import Table, running

pytest_plugins = ["tests.discord_standin.fixtures"]


@pytest.fixture
def contract() -> Contract:
    """Discord's contract, or a skip that says why it is absent."""
    loaded = load_contract()
    if loaded is None:
        pytest.skip(contract_status())
    return loaded


@pytest.fixture
async def table(discord_standin: DiscordStandin) -> AsyncIterator[Table]:
    """A small connected bot (the stand-in's own test bot)."""
    async with running(discord_standin) as table:
        yield table


def test_contract_names_the_field_that_breaks_it(contract: Contract) -> None:
    """A too-long custom_id inside a reply is reported at its exact place."""
    body = {
        "type": 4,
        "data": {
            "content": "Your move",
            "components": [
                {
                    "type": 1,
                    "components": [
                        {"type": 2, "style": 1, "label": "Move", "custom_id": "x" * 101}
                    ],
                }
            ],
        },
    }
    [problem] = contract.violations("POST", "/interactions/1/t/callback", "application/json", body)
    assert "data/components/0/components/0/custom_id" in problem
    assert "too long" in problem


def test_contract_knows_its_routes(contract: Contract) -> None:
    """An undocumented route or a body where none belongs is a violation; /users/@me is fine."""
    assert contract.violations("GET", "/users/@me", "", None) == []
    [unknown] = contract.violations("GET", "/games/1", "", None)
    assert "documents no such route" in unknown
    [needs_body] = contract.violations("POST", "/channels/1/messages/2/threads", "", None)
    assert "a body is required" in needs_body


def test_a_good_reply_passes(contract: Contract) -> None:
    """What the bot sends every day (a deferral, a message with a file) passes."""
    deferral = {"type": 5, "data": {"flags": 64}}
    assert (
        contract.violations("POST", "/interactions/1/t/callback", "application/json", deferral)
        == []
    )
    upload = {"content": "Board", "attachments": [{"id": 0, "filename": "board.png"}]}
    assert contract.violations("POST", "/channels/1/messages", "multipart/form-data", upload) == []


async def test_bad_request_is_recorded(
    table: Table, discord_standin: DiscordStandin, contract: Contract
) -> None:
    """A request breaking the contract is recorded with the route and the field."""
    route = discord.http.Route(
        "POST", "/channels/{channel_id}/messages", channel_id=table.channel.id
    )
    await table.bot.http.request(route, json={"content": "hello", "tts": "loudly"})
    assert len(discord_standin.contract_violations) == 1
    assert "at tts" in discord_standin.contract_violations[0]
    discord_standin.contract_violations.clear()  # seen: the fixture must not fail this test


async def test_a_nonce_returns_the_message_made_only_when_enforced(table: Table) -> None:
    """As Discord's Create Message documents: a post whose ``nonce`` another of the same
    author's recent posts carried returns that message with ``enforce_nonce``, and is made
    anew without it."""
    route = discord.http.Route(
        "POST", "/channels/{channel_id}/messages", channel_id=table.channel.id
    )
    enforced = {"content": "Board", "nonce": "1.1.42", "enforce_nonce": True}
    first = await table.bot.http.request(route, json=enforced)
    again = await table.bot.http.request(route, json=enforced)
    loose = await table.bot.http.request(route, json={"content": "Board", "nonce": "1.1.42"})
    assert again["id"] == first["id"]
    assert loose["id"] != first["id"]


async def test_rate_limit_is_waited_out(table: Table, discord_standin: DiscordStandin) -> None:
    """A 429 with retry_after makes discord.py wait that long and try again."""
    discord_standin.rate_limit(retry_after=0.4, matching=lambda method, path: path == "/users/@me")
    started = time.monotonic()
    await table.bot.http.request(discord.http.Route("GET", "/users/@me"))
    assert time.monotonic() - started >= 0.4
    statuses = [c.status for c in discord_standin.rest_log if c.path.endswith("/users/@me")]
    assert statuses[-2:] == [429, 200]


async def test_outage_window_then_recovery(table: Table, discord_standin: DiscordStandin) -> None:
    """During a 5xx window requests fail; discord.py's retry succeeds once it is over."""
    discord_standin.fail_rest(500, seconds=0.5)
    await table.bot.http.request(discord.http.Route("GET", "/users/@me"))
    statuses = [c.status for c in discord_standin.rest_log if c.path.endswith("/users/@me")]
    assert statuses[-2:] == [500, 200]


async def test_dropped_gateway_is_resumed(table: Table, discord_standin: DiscordStandin) -> None:
    """After the gateway drops without a close frame the bot resumes and answers again."""
    await discord_standin.drop_gateway(refuse_for=0.5)
    await discord_standin.wait_until(
        lambda: discord_standin.gateway.resume_count == 1, timeout=15, waiting_for="a RESUME"
    )
    reply = await discord_standin.slash(table.guild, table.channel, table.alice, "rules")
    assert reply.answered


async def test_a_resume_replays_what_the_session_missed(
    table: Table, discord_standin: DiscordStandin
) -> None:
    """Events dispatched while the gateway is down reach the bot when it resumes: replayed in
    order, numbered on from the session's last sequence, before RESUMED."""
    await discord_standin.drop_gateway(refuse_for=0.5)
    await discord_standin.dispatch("GUILD_DELETE", {"id": str(table.guild.id), "unavailable": True})
    renamed = {**payloads.channel(table.channel), "name": "tafl-only"}
    await discord_standin.dispatch("CHANNEL_UPDATE", renamed)
    await discord_standin.wait_until(
        lambda: discord_standin.gateway.resume_count == 1, timeout=15, waiting_for="a RESUME"
    )
    replayed = [event for _, event in discord_standin.gateway.replayed]
    assert replayed[-2:] == ["GUILD_DELETE", "CHANNEL_UPDATE"]
    numbers = [seq for seq, _ in discord_standin.gateway.replayed]
    assert numbers == sorted(numbers)
    guild = table.bot.get_guild(table.guild.id)
    assert guild is not None
    assert guild.unavailable


async def test_a_session_that_ended_loses_what_it_missed(
    table: Table, discord_standin: DiscordStandin
) -> None:
    """A session that cannot be resumed is answered INVALID_SESSION: the bot identifies again,
    nothing is replayed, and the new GUILD_CREATE carries the state."""
    await discord_standin.drop_gateway(refuse_for=0.5, resumable=False)
    with pytest.raises(RuntimeError, match="no bot session"):
        await discord_standin.dispatch("CHANNEL_UPDATE", payloads.channel(table.channel))
    table.channel.name = "tafl-only"
    await discord_standin.wait_until(
        lambda: discord_standin.gateway.identify_count == 2,
        timeout=15,
        waiting_for="a second IDENTIFY",
    )
    assert discord_standin.gateway.resume_count == 0
    assert discord_standin.gateway.replayed == []
    await discord_standin.wait_until(
        lambda: getattr(table.bot.get_channel(table.channel.id), "name", None) == "tafl-only",
        waiting_for="the channel's new name",
    )


async def test_a_client_that_closes_with_1000_ends_its_session(
    discord_standin: DiscordStandin,
) -> None:
    """A client closing with 1000 ends its session, as Discord documents, so nothing is kept
    for it; one closing otherwise (discord.py sends 4000 as it stops) can still resume."""
    guild = discord_standin.add_guild()
    async with aiohttp.ClientSession() as http:
        for code, ended in ((4000, False), (1000, True)):
            async with http.ws_connect(discord_standin.gateway_url) as socket:
                await socket.receive_json()  # HELLO
                identify = {"token": discord_standin.token, "intents": 1, "properties": {}}
                await socket.send_json({"op": 2, "d": identify})
                ready = await socket.receive_json()
                assert ready["t"] == "READY"
                await socket.close(code=code)
            await discord_standin.wait_until(lambda: not discord_standin.gateway.connections)
            session = discord_standin.gateway.sessions[ready["d"]["session_id"]]
            assert session.resumable is not ended
            session.resumable = False  # the next round starts with no session kept
    with pytest.raises(RuntimeError, match="no bot session"):
        await discord_standin.dispatch("GUILD_DELETE", {"id": str(guild.id), "unavailable": True})


async def test_a_message_in_an_archived_thread_cannot_be_edited_until_one_is_sent(
    table: Table, discord_standin: DiscordStandin
) -> None:
    """Discord's Threads topic: "Users cannot edit messages ... in archived threads", and
    "Sending a message will automatically unarchive the thread, unless the thread has been
    locked": an edit there is refused with 50083, a new message unarchives it."""
    thread = await discord_standin.start_member_thread(table.channel, "chat", table.alice)
    posted = await table.bot.http.send_message(thread.id, params=_content("hello"))
    await discord_standin.edit_thread(thread, archived=True)
    edit = discord.http.Route(
        "PATCH",
        "/channels/{channel_id}/messages/{message_id}",
        channel_id=thread.id,
        message_id=posted["id"],
    )
    with pytest.raises(discord.HTTPException) as refused:
        await table.bot.http.request(edit, json={"content": "edited"})
    assert refused.value.code == 50083
    await table.bot.http.send_message(thread.id, params=_content("still here"))
    assert not thread.archived
    await table.bot.http.request(edit, json={"content": "edited"})


def _content(text: str) -> discord.http.MultipartParameters:
    return discord.http.handle_message_parameters(content=text)


async def test_a_resume_cut_again_is_replayed_with_one_resumed_at_the_end(
    discord_standin: DiscordStandin,
) -> None:
    """A client cut again during its replay resumes once more from the same ``seq``: it is
    sent what it missed "finishing with a Resumed event", not the first RESUME's RESUMED in
    the middle (discord.py would take the replay as finished there)."""
    guild = discord_standin.add_guild()
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(discord_standin.gateway_url) as socket:
            await socket.receive_json()  # HELLO
            identify = {"token": discord_standin.token, "intents": 1, "properties": {}}
            await socket.send_json({"op": 2, "d": identify})
            session_id = (await socket.receive_json())["d"]["session_id"]
            seq = (await socket.receive_json())["s"]  # GUILD_CREATE
            await socket.close(code=4000)
        await discord_standin.wait_until(lambda: not discord_standin.gateway.connections)
        await discord_standin.dispatch("GUILD_DELETE", payloads.guild_unavailable(guild))
        resume = {"token": discord_standin.token, "session_id": session_id, "seq": seq}
        received: list[tuple[str, int]] = []
        for _ in range(2):
            async with http.ws_connect(discord_standin.gateway_url) as socket:
                await socket.receive_json()  # HELLO
                await socket.send_json({"op": 6, "d": resume})
                received = []
                while not received or received[-1][0] != "RESUMED":
                    frame = await socket.receive_json()
                    received.append((frame["t"], frame["s"]))
                await socket.close(code=4000)
    last = discord_standin.gateway.sessions[session_id].sequence
    assert received == [("GUILD_DELETE", seq + 1), ("RESUMED", last)]
