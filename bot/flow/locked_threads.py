"""Threads a moderator locked so that nobody but a moderator can play in them: their games'
clocks stand still (bot/holds.py).

Discord's Threads topic: "Users won't be able to create or update messages in locked threads"
unless they have Manage Threads, and an archived thread a moderator locked only a moderator
may open again. So a game's thread is closed to its players when it is locked and archived
(whatever my permissions: its players cannot write there), or locked where I lack Manage
Threads: Discord then takes no message of mine there, not even an interaction's visible
answer, so every command and press from it is refused (bot/locked_refusals.py
``still_locked_for_me``: the cache's lock confirmed by Discord, which an unlock missed would
otherwise make a lasting refusal), as is one whose post Discord refuses as locked (``Thread is
locked``: ``refused_as_locked``, the cache showing the thread open or not). A
thread locked where I have Manage Threads stays playable: I answer there as ever.

Discord does not say since when an active thread was locked. One found so in a server's
GUILD_CREATE (at start-up, or when the gateway connects anew) is held from then: the time
before was given back already, as the bot's absence or the dropped shard's hold. One the bot
missed otherwise, found when its game's deadline passes, a reminder there is refused (the
cache showing it open is then not taken at its word: Discord is asked) or a player's
command or press there is refused, is held from when its player's turn began — the turn's
real start, its last move (or the takeback that gave the turn back, or the set's start), not
its deadline less the time per move, which time given back during the turn makes later: the
lock may be as old as that, and held from when it is found its player would be left, once it
is unlocked, with no time (at the deadline) or less than the turn had when it was locked.
That may give back time in which the thread was still open (the player did not try), at most
one turn's, to the player who could not play: the other way round, the player would lose
time to a lock nobody told the bot of.

Which threads are closed (bot/thread_locks.py) reads my Manage Threads from one place: an
interaction from a thread carries Discord's own word on it (``app_permissions``), which a
refusal reads; the cache, which the holds otherwise follow, may lag behind it (an event
missed). So the last interaction's word on a thread's parent is kept (bot/holds.py
``Holds.told``) and preferred to the cache until an event changes the server's permissions; a
refused interaction from a game thread not held begins its hold, and one from a held thread
answered for all to see (Discord took my message there) ends it, its time given back once —
both in the order of the thread's other changes (``Holds.in_turn``).
"""

from __future__ import annotations

from collections.abc import Iterator

import discord


def locked_threads(guild: discord.Guild) -> Iterator[discord.Thread]:
    """The active threads of ``guild`` the cache holds as locked (an archived one is not in
    the cache: discord.py drops it)."""
    return (thread for thread in guild.threads if thread.locked)
