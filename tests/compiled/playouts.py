"""What the kernel tests of several games share: playing a move through a game's
compiled `play` from Python, and random playouts checked position by position."""

from __future__ import annotations

import random
from types import ModuleType
from typing import Callable

import numpy as np

from games.base import Game, Position


def compiled_play(kernels: ModuleType, s: tuple, move: int) -> tuple:
    """`kernels.play` called from Python: numba hands the tuple back as Python ints, so
    it is packed again (passed in as they are, they would compile a signed twin)."""
    return kernels.pack(kernels.unpack(kernels.play(s, np.int64(move))))


def random_playouts(game: Game, kernels: ModuleType, check_position: Callable[[Position], None],
                    games: int, seed: int) -> None:
    """Play `games` uniformly random games (seeded); check every position, and that the
    compiled state follows the reference's move by move."""
    rng = random.Random(seed)
    for _ in range(games):
        state = game.initial_state({})
        s = kernels.pack(state)
        while True:
            check_position(state)
            moves = state.legal_moves()
            if not moves:
                break
            move = rng.choice(moves)
            state = state.play(move)
            s = compiled_play(kernels, s, move)
            assert kernels.unpack(s) == state
