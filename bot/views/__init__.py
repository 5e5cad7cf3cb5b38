"""Buttons and selects. Every interactive item is a ``DynamicItem`` with its ids in the
``custom_id``, registered in ``setup_hook``, so messages posted before a restart keep working."""

from __future__ import annotations

from typing import Any

import discord

from bot.views.challenge import ChallengeButton
from bot.views.confirm import ConfirmAbort, ConfirmRepetition, ConfirmResign, ResignButton
from bot.views.games import GamesButton
from bot.views.leaderboard import LeaderboardButton, OffsetLeaderboardButton
from bot.views.picker import MoveButton, PickDestination, PickPiece
from bot.views.puzzle import GiveUp, NextPuzzle, PuzzlePiece, PuzzleTarget, SolveButton
from bot.views.puzzle_board import OffsetSolversButton, SolversButton
from bot.views.rematch import RematchButton
from bot.views.takeback import TakebackAnswer, TakebackButton
from bot.views.waiting import WaitingButton

DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    ChallengeButton,
    MoveButton,
    PickPiece,
    PickDestination,
    ConfirmRepetition,
    ConfirmResign,
    ConfirmAbort,
    LeaderboardButton,
    OffsetLeaderboardButton,
    GamesButton,
    WaitingButton,
    RematchButton,
    ResignButton,
    TakebackButton,
    TakebackAnswer,
    SolveButton,
    NextPuzzle,
    PuzzlePiece,
    PuzzleTarget,
    GiveUp,
    SolversButton,
    OffsetSolversButton,
)

__all__ = ["DYNAMIC_ITEMS"]
