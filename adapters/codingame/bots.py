"""Example CodinGame bots: they read the referee's turns on stdin exactly as a bot on
CodinGame does and print one move a line.

    python -m adapters.codingame.bots random GAME [--seed S]
    python -m adapters.codingame.bots greedy GAME [--seed S]
    python -m adapters.codingame.bots paranoid isolation [--seed S]

- random (every game): a uniformly random legal move.
- greedy (every game): one ply deep: a move that wins at once if there is one, else the
  move after which the game's own evaluation is best for the mover; ties broken at
  random.
- paranoid (Knight Isolation only): a paranoid alpha-beta search with iterative
  deepening for 80 ms a move; see `paranoid_move`.

The legal moves are the referee's list (or the game's own move generator, where the
referee sends only a count). The seed defaults to the environment variable
ARENA_SEED, which the arena sets per game and seat, else to a random one.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from typing import Callable, Sequence

# These bots read the rules interpreted and start no engine: without numba, whose
# import costs a third of a second, they are ready for their first turn sooner.
os.environ.setdefault("ENGINE_NO_NUMBA", "1")

from adapters.codingame import game_name, turn_format  # noqa: E402
from adapters.codingame.common import read_turn  # noqa: E402
from games.base import Game, Position  # noqa: E402

Chooser = Callable[[Game, Position, Sequence[str], random.Random], str]


def random_move(game: Game, state: Position, legal: Sequence[str], rng: random.Random) -> str:
    """A uniformly random token of `legal`."""
    return rng.choice(list(legal))


def greedy_move(game: Game, state: Position, legal: Sequence[str], rng: random.Random) -> str:
    """An immediate win if any, else a token whose position `game.evaluate` rates best
    for the mover."""
    me = state.to_move
    best: list[str] = []
    best_value = -math.inf
    for token in legal:
        child = state.play(game.parse_move(state, token))
        outcome = child.outcome()
        if outcome is not None and outcome.winner == me:
            return token
        if outcome is not None:
            value = outcome.returns[me] * 1_000_000
        else:
            value = game.evaluate(child)[me]
        if value > best_value:
            best, best_value = [token], value
        elif value == best_value:
            best.append(token)
    return rng.choice(best)


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


def _knight_jumps() -> list[int]:
    jumps = []
    for square in range(64):
        rank, file = divmod(square, 8)
        mask = 0
        for step_rank, step_file in ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)):
            if 0 <= rank + step_rank < 8 and 0 <= file + step_file < 8:
                mask |= 1 << ((rank + step_rank) * 8 + file + step_file)
        jumps.append(mask)
    return jumps


_JUMPS = _knight_jumps()


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

    def evaluate(self, occupied: int, knights: tuple[int, int, int], alive: int) -> int:
        value = 0
        for player in range(3):
            if alive >> player & 1:
                jumps = (_JUMPS[knights[player]] & ~occupied).bit_count()
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
            jumps = _JUMPS[knights[to_move]] & ~occupied
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
                  moves: list[int]) -> tuple[int, int]:
        """The best of `moves` (squares of `me`, to move) by iterative deepening until
        the deadline, and the depth of the last finished iteration."""
        order = list(moves)
        best, finished = order[0], 0
        after = self._next(self.me, alive)
        depth = 1
        while depth <= 64:
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
                  budget: float = PARANOID_BUDGET) -> str:
    """Knight Isolation only: the token `ParanoidSearch` picks within `budget` seconds
    (ties among the first iteration's moves broken at random)."""
    if game.name != "isolation":
        raise ValueError(f"the paranoid bot plays only Knight Isolation, not {game.name}")
    deadline = time.perf_counter() + budget
    me = state.to_move
    squares = {game.parse_move(state, token): token for token in legal}
    moves = list(squares)
    rng.shuffle(moves)
    search = ParanoidSearch(me, deadline)
    best, _ = search.best_move(game.blocked(state), game.knights(state), game.alive(state), moves)
    return squares[best]


BOTS: dict[str, Chooser] = {"random": random_move, "greedy": greedy_move, "paranoid": paranoid_move}
#: The bots that play only some games.
ONLY_FOR = {"paranoid": ("isolation",)}


def play(game_name: str, choose: Chooser, rng: random.Random, stdin=None, stdout=None) -> int:
    """Answer turns until the input ends; returns the number of turns played."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    fmt = turn_format(game_name)
    player: int | None = None
    turns = 0
    while True:
        try:
            lines = read_turn(stdin.readline, fmt.framer(player is None))
        except EOFError:
            return turns
        turn = fmt.parse_turn(lines, player, turns)
        player = turn.player
        state = fmt.GAME.parse_board(turn.board_text.split())
        token = choose(fmt.GAME, state, fmt.legal_tokens(turn), rng)
        stdout.write(fmt.format_output(token) + "\n")
        stdout.flush()
        turns += 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m adapters.codingame.bots",
                                     description="Example CodinGame bots: random, greedy and (Knight Isolation) paranoid.")
    parser.add_argument("bot", choices=sorted(BOTS))
    parser.add_argument("game", type=game_name, metavar="GAME", help="the game, by its engine name")
    parser.add_argument("--seed", type=int, default=None,
                        help="RNG seed (default: $ARENA_SEED, else random)")
    args = parser.parse_args(argv)
    if args.game not in ONLY_FOR.get(args.bot, (args.game,)):
        parser.error(f"the {args.bot} bot plays only {', '.join(ONLY_FOR[args.bot])}, not {args.game}")
    seed = args.seed
    if seed is None and os.environ.get("ARENA_SEED", "").lstrip("-").isdigit():
        seed = int(os.environ["ARENA_SEED"])
    play(args.game, BOTS[args.bot], random.Random(seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
