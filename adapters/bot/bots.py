"""Two example CodinGame bots for every game: they read the referee's turns on stdin
exactly as a bot on CodinGame does and print one move a line.

    python -m adapters.bot.bots random GAME [--seed S]
    python -m adapters.bot.bots greedy GAME [--seed S]

- random: a uniformly random legal move.
- greedy: one ply deep: a move that wins at once if there is one, else the move after
  which the game's own evaluation is best for the mover; ties broken at random.

The legal moves are the referee's list (or the game's own move generator, where the
referee sends only a count). The seed defaults to the environment variable
ARENA_SEED, which the arena sets per game and seat, else to a random one. Each turn's
random draws come from the seed and the position (`position_rng`), so that a bot is a
function of the position it is asked about: an analysis can compute its replies.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
from typing import Callable, Sequence

from adapters.codingame import game_name, turn_format
from adapters.codingame.common import read_turn
from games.base import Game, Position
from games.kernel import interpret_kernels

Chooser = Callable[[Game, Position, Sequence[str], random.Random], str]
#: What a finished game is worth to the mover, per unit of its return: beyond any
#: evaluation.
WIN_VALUE = 1_000_000


def random_move(game: Game, state: Position, legal: Sequence[str], rng: random.Random) -> str:
    """A uniformly random token of `legal`."""
    return rng.choice(list(legal))


def one_ply(game: Game, state: Position, token: str) -> tuple[float, bool]:
    """The value for the mover of the position after the move `token` (a finished game's
    return to the mover times WIN_VALUE, else `game.evaluate`'s), and whether the mover
    has won there; raises GameError for a move the rules refuse."""
    me = state.to_move
    child = state.play(game.parse_move(state, token))
    outcome = child.outcome()
    if outcome is None:
        return game.evaluate(child)[me], False
    return outcome.returns[me] * WIN_VALUE, outcome.winner == me


def greedy_move(game: Game, state: Position, legal: Sequence[str], rng: random.Random) -> str:
    """An immediate win if any, else a token whose position `game.evaluate` rates best
    for the mover (`one_ply`)."""
    best: list[str] = []
    best_value = -math.inf
    for token in legal:
        value, won = one_ply(game, state, token)
        if won:
            return token
        if value > best_value:
            best, best_value = [token], value
        elif value == best_value:
            best.append(token)
    return rng.choice(best)


BOTS: dict[str, Chooser] = {"random": random_move, "greedy": greedy_move}


def position_rng(seed: int, state: Position) -> random.Random:
    """The random draws of one turn of a bot seeded with `seed`: a function of the seed
    and the position (its key), whatever the turns before it."""
    return random.Random(seed * (1 << 64) + state.key)


def play(game_name: str, choose: Chooser, seed: int | None, stdin=None, stdout=None) -> int:
    """Answer turns until the input ends, each with `position_rng(seed, position)` (a
    random seed when `seed` is None); returns the number of turns played."""
    if seed is None:
        seed = random.SystemRandom().getrandbits(63)
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
        token = choose(fmt.GAME, state, fmt.legal_tokens(turn), position_rng(seed, state))
        stdout.write(fmt.format_output(token) + "\n")
        stdout.flush()
        turns += 1


def arena_seed(seed: int | None) -> int | None:
    """`seed`, else the arena's ARENA_SEED, else None (a random seed)."""
    if seed is None and os.environ.get("ARENA_SEED", "").lstrip("-").isdigit():
        return int(os.environ["ARENA_SEED"])
    return seed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m adapters.bot.bots",
                                     description="Example CodinGame bots: random and greedy.")
    parser.add_argument("bot", choices=sorted(BOTS))
    parser.add_argument("game", type=game_name, metavar="GAME", help="the game, by its engine name")
    parser.add_argument("--seed", type=int, default=None,
                        help="RNG seed (default: $ARENA_SEED, else random)")
    args = parser.parse_args(argv)
    # The bots read the rules interpreted and start no engine: without numba, whose
    # import costs a third of a second, they are ready for their first turn sooner.
    interpret_kernels()
    play(args.game, BOTS[args.bot], arena_seed(args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
