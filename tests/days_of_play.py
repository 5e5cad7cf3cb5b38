"""Days of play through the production services, to count what the database keeps: each day
some matches of a few moves a set (every board noted delivered, as the flow does), a challenge
declined and one withdrawn, then the clock a day on."""

from __future__ import annotations

from datetime import timedelta

from bot.services import Services
from tests.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, FakeClock

TABLES = (
    "announcements",
    "challenges",
    "matches",
    "sets",
    "moves",
    "given_back",
    "takebacks",
    "undone_moves",
    "match_lines_owed",
    "takeback_answers_owed",
    "member_names",
)
"""The tables counted: those a day of play writes to."""


async def play_day(
    services: Services, clock: FakeClock, *, matches: int = 2, moves: int = 6
) -> None:
    """A day in one channel: ``matches`` matches of two sets of ``moves`` moves each, ended
    by resignation, a challenge declined and one withdrawn; then the clock a day on."""
    await services.settings.change(GUILD, threads=False)
    for _ in range(matches):
        challenge = await services.challenges.create(GUILD, CHANNEL, ALICE, BOB)
        active = await services.challenges.accept(challenge.challenge_id, BOB)
        await services.announcements.delivered(active.set_id, 0, None)
        while True:
            for _ in range(moves):
                move = str(active.game.legal_moves()[0])
                active = (await services.games.play(CHANNEL, active.player_to_move, move)).game
                await services.announcements.delivered(active.set_id, active.ply, None)
            ended = await services.games.resign(CHANNEL, active.player_to_move)
            await services.announcements.delivered(ended.game.set_id, ended.game.ply, None)
            if ended.next_game is None:
                break
            active = ended.next_game
            await services.announcements.delivered(active.set_id, 0, None)
        clock.advance(timedelta(minutes=30))  # past the 15 minutes between pings
    declined = await services.challenges.create(GUILD, CHANNEL, ALICE, CAROL)
    await services.challenges.decline(declined.challenge_id, CAROL)
    withdrawn = await services.challenges.create(GUILD, CHANNEL, BOB, CAROL)
    await services.challenges.withdraw(withdrawn.challenge_id, BOB)
    clock.advance(timedelta(days=1))


async def count_rows(services: Services) -> dict[str, int]:
    """How many rows each of :data:`TABLES` holds."""
    counts = {}
    async with services.database.snapshot() as db:
        for table in TABLES:
            row = await db.fetch_one(f"SELECT count(*) FROM {table}")
            counts[table] = 0 if row is None else int(row[0])
    return counts
