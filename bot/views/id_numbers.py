"""The numbers a button's or select's ``custom_id`` carries, as pieces of its template, bounded
to what the database's columns hold (PostgreSQL's BIGINT and INTEGER, SQLite's 64-bit integers).

An id carrying a larger number (forged, garbled) does not match its template: it is answered as a
button that is not mine (any more), like any id that does not parse, and never reaches SQL.
"""

from __future__ import annotations

ID = r"[1-8]?\d{1,18}"
"""A set, match, challenge, takeback or attempt id, or a Discord id (a server's, a player's):
at most 8,999,999,999,999,999,999, below BIGINT's 2**63 (Discord's ids reach it around 2083)."""

PLY = r"\d{1,6}"
"""A ply (an INTEGER column): at most 999,999."""

COUNT = r"\d{1,9}"
"""A page's offset, or a count in a leaderboard's key: below INTEGER's 2**31."""
