#!/usr/bin/env python3
"""A paranoid alpha-beta bot for Knight Isolation, a measuring stick of the kind public
CodinGame bots are: it reads the referee's turns on stdin as a CodinGame bot does.

    python scripts/sparring/paranoid.py [--seed S] [--depth D]

Paranoid alpha-beta with iterative deepening, 80 ms a move: the bot maximises, both
rivals minimise its value, and the value is 10 x its own knight's jumps - 6 x each
rival's. It runs on the project's rules, interpreted, with the example bots' turn loop
(`adapters.bot.bots.play`). With `--depth D` it deepens to D plies whatever the clock:
it is then a function of the position and its seed, whose replies an analysis can
compute (`scripts/sparring/ceiling.py`).
"""

from __future__ import annotations

import argparse
import functools
import math
import random
import sys
import time
from pathlib import Path
from typing import Sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from adapters.bot.bots import arena_seed, play  # noqa: E402
from games.base import Game, Position  # noqa: E402
from games.kernel import interpret_kernels  # noqa: E402

GAME_NAME = "isolation"


#: The paranoid bot's search time per move, in seconds (CodinGame gives 100 ms).
PARANOID_BUDGET = 0.080
#: Its evaluation's weights: own mobility, and each rival's.
OWN_MOBILITY, RIVAL_MOBILITY = 10, 6
#: Its scores of decided games, beyond any evaluation; an elimination is worth more the
#: later it comes (ranks count: second beats third).
_WON, _OUT = 1_000_000, -1_000_000
_PLACE = 10_000
#: Global turns the Knights referee plays at most (each move and each elimination).
_MAX_TURNS = 62


@functools.cache
def knight_jumps() -> tuple[int, ...]:
    """The squares a knight jumps to from each square, as Python ints (the rules' table,
    imported on first use: importing this module makes no kernel)."""
    from games.isolation.rules import KNIGHT

    return tuple(int(mask) for mask in KNIGHT)


class _OutOfTime(Exception):
    pass


class ParanoidSearch:
    """Paranoid alpha-beta for three-player Knight Isolation: the player `me` maximises,
    both rivals minimise its value, in the referee's turn order (red, green, blue,
    skipping players out). A player to move without a jump is out at once, as the
    referee does it; the knights of players out still block their squares.

    A position is (blocked squares, the three knight squares, the players in as bits,
    the player to move), squares numbered a1 = 0 to h8 = 63 as in the project's rules,
    from which the root is read. Value: `OWN_MOBILITY` x own jumps - `RIVAL_MOBILITY` x
    the jumps of each rival still in; a decided game scores beyond any of those.
    """

    def __init__(self, me: int, deadline: float):
        self.me = me
        self.deadline = deadline
        self.nodes = 0
        self.jumps = knight_jumps()

    def evaluate(self, occupied: int, knights: tuple[int, int, int], alive: int) -> int:
        value = 0
        for player in range(3):
            if alive >> player & 1:
                jumps = (self.jumps[knights[player]] & ~occupied).bit_count()
                value += OWN_MOBILITY * jumps if player == self.me else -RIVAL_MOBILITY * jumps
        return value

    def value(self, blocked: int, knights: tuple[int, int, int], alive: int, to_move: int,
              depth: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        if not self.nodes & 127 and time.perf_counter() > self.deadline:
            raise _OutOfTime
        occupied = blocked | 1 << knights[0] | 1 << knights[1] | 1 << knights[2]
        # Put out players without a jump, in turn order, as the referee does.
        while True:
            if alive == 1 << self.me:
                return _WON + depth
            if blocked.bit_count() + 3 - alive.bit_count() >= _MAX_TURNS:
                return self.evaluate(occupied, knights, alive)
            jumps = self.jumps[knights[to_move]] & ~occupied
            if jumps:
                break
            if to_move == self.me:
                return _OUT + _PLACE * (3 - alive.bit_count()) - depth
            alive &= ~(1 << to_move)
            to_move = self._next(to_move, alive)
        if depth == 0:
            return self.evaluate(occupied, knights, alive)
        after = self._next(to_move, alive)
        maximise = to_move == self.me
        best = -math.inf if maximise else math.inf
        source = 1 << knights[to_move]
        while jumps:
            bit = jumps & -jumps
            jumps ^= bit
            moved = list(knights)
            moved[to_move] = bit.bit_length() - 1
            child = self.value(blocked | source, tuple(moved), alive, after, depth - 1, alpha, beta)
            if maximise:
                best = max(best, child)
                alpha = max(alpha, best)
            else:
                best = min(best, child)
                beta = min(beta, best)
            if alpha >= beta:
                break
        return int(best)

    @staticmethod
    def _next(player: int, alive: int) -> int:
        for step in (1, 2, 3):
            following = (player + step) % 3
            if alive >> following & 1:
                return following
        return player

    def best_move(self, blocked: int, knights: tuple[int, int, int], alive: int,
                  moves: list[int], max_depth: int = 64) -> tuple[int, int]:
        """The best of `moves` (squares of `me`, to move) by iterative deepening until
        the deadline or `max_depth`, and the depth of the last finished iteration."""
        order = list(moves)
        best, finished = order[0], 0
        after = self._next(self.me, alive)
        depth = 1
        while depth <= max_depth:
            scores: dict[int, int] = {}
            alpha = -math.inf
            try:
                for move in order:
                    moved = list(knights)
                    moved[self.me] = move
                    score = self.value(blocked | 1 << knights[self.me], tuple(moved), alive, after,
                                       depth - 1, alpha, math.inf)
                    scores[move] = score
                    alpha = max(alpha, score)
            except _OutOfTime:
                break
            # Stable: among equal scores the earlier (the previous best first) stays first.
            order.sort(key=lambda move: -scores[move])
            best, finished = order[0], depth
            if scores[best] >= _WON or all(score <= _OUT + 3 * _PLACE for score in scores.values()):
                break  # decided either way
            depth += 1
        return best, finished


def paranoid_move(game: Game, state: Position, legal: Sequence[str], rng: random.Random,
                  budget: float = PARANOID_BUDGET, depth: int | None = None) -> str:
    """Knight Isolation only: the token `ParanoidSearch` picks within `budget` seconds,
    or, with `depth`, after the iteration of `depth` plies whatever the time (ties among
    the first iteration's moves broken at random)."""
    if game.name != "isolation":
        raise ValueError(f"the paranoid bot plays only Knight Isolation, not {game.name}")
    deadline = math.inf if depth is not None else time.perf_counter() + budget
    me = state.to_move
    squares = {game.parse_move(state, token): token for token in legal}
    moves = list(squares)
    rng.shuffle(moves)
    search = ParanoidSearch(me, deadline)
    best, _ = search.best_move(game.blocked(state), game.knights(state), game.alive(state), moves,
                               max_depth=64 if depth is None else depth)
    return squares[best]


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive depth")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="paranoid.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("game", nargs="?", default=GAME_NAME, choices=[GAME_NAME])
    parser.add_argument("--seed", type=int, default=None,
                        help="RNG seed (default: $ARENA_SEED, else random)")
    parser.add_argument("--depth", type=positive, default=None,
                        help="search this many plies whatever the clock (default: 80 ms a move)")
    args = parser.parse_args(argv)
    # The bot reads the rules interpreted: without numba it is ready sooner.
    interpret_kernels()
    play(GAME_NAME, functools.partial(paranoid_move, depth=args.depth), arena_seed(args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
