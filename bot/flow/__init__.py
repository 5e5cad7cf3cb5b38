"""The game's flow: what happens, and what is posted where, as a game moves on.

Cogs, components and timers call it through ``bot.flow`` (a :class:`GameFlow`); components never
import it, so ``views`` only present and collect.
"""

from bot.flow.game_flow import GameFlow

__all__ = ["GameFlow"]
