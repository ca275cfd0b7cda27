"""Clobber's kernels for the compiled searches: `games.clobber.rules` and its evaluation."""

from games.base import Position
from games.clobber import GAME
from games.clobber.evaluation import evaluate  # noqa: F401
from games.clobber.rules import *  # noqa: F401,F403


def pack(position: Position) -> tuple:
    return position.s


def unpack(s: tuple) -> Position:
    return Position(GAME, s)
