"""OpenSpiel's C++ MCTS (`pyspiel.MCTSBot`, random rollouts) as a CodinGame bot for
Clobber and Othello.

    /work/sparring-venvs/openspiel/bin/python scripts/sparring/openspiel_mcts.py GAME
        [--ms 80] [--uct 2.0] [--rollouts 1] [--seed S]

It runs under the OpenSpiel venv (scripts/sparring/install makes it) and reads the
referee's turns with the project's turn formats (interpreted rules: attrs and numpy are
all they need). It keeps an OpenSpiel state of the game in step with the referee: the
opponent's last move (Clobber's `lastAction` line) or moves (Othello's EXPERT line,
asked for with the first answer) are applied to it, and every turn the OpenSpiel legal
moves, mapped to CodinGame's names, must be exactly the legal moves of the referee's
position (and the boards must agree), or the bot stops with a message on stderr.

The search: `pyspiel.MCTSBot` with `pyspiel.RandomRolloutEvaluator(rollouts)`, UCT
constant `--uct`, the exact solver on, no simulation cap, and OpenSpiel's own wall-clock
stop `max_wall_clock_time` = `--ms` / 1000 (checked between simulations, so one move
takes the budget plus at most one simulation).

The mapping. Clobber is `clobber(rows=8,columns=8)`; OpenSpiel's first player `o` owns
a1 where CodinGame's first player (white) owns a8, so a square of rank r on one side is
rank 9 - r on the other (a vertical flip, which keeps adjacency), `o` is white and `x`
black. Othello names squares as CodinGame does (row 1 the top row, black `x` first,
action = 8 * (row - 1) + file); OpenSpiel's pass (action 64) stands for a forced pass,
which the referee plays without asking.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

from common import OthelloHistory, WrapperError, log, main_guard, play

import pyspiel  # noqa: E402  (after common: the project's path comes first)

OPENSPIEL_GAMES = {"clobber": "clobber(rows=8,columns=8)", "othello": "othello"}


def flip_rank(token: str) -> str:
    """A Clobber move with every rank r turned into 9 - r (`b8c8` <-> `b1c1`)."""
    return "".join(str(9 - int(char)) if char.isdigit() else char for char in token)


class Mapper:
    """The OpenSpiel state of one game and the CodinGame names of its actions."""

    def __init__(self, game: str):
        self.game = game
        self.spiel_game = pyspiel.load_game(OPENSPIEL_GAMES[game])
        self.state = self.spiel_game.new_initial_state()

    def name(self, action: int) -> str:
        text = self.state.action_to_string(self.state.current_player(), action)
        return flip_rank(text) if self.game == "clobber" else text.lower()

    def actions(self) -> dict[str, int]:
        """The legal actions of the OpenSpiel state by their CodinGame names."""
        return {self.name(action): action for action in self.state.legal_actions()}

    def apply(self, token: str) -> None:
        if self.game == "othello" and token == OthelloHistory.PASS:
            actions = {OthelloHistory.PASS: 64} if self.state.legal_actions() == [64] else {}
        else:
            actions = self.actions()
        if token not in actions:
            raise WrapperError(f"OpenSpiel does not allow {token!r} here; it allows {sorted(actions)}")
        self.state.apply_action(actions[token])

    def rows(self) -> list[str]:
        """OpenSpiel's board as the referee's board lines."""
        lines = [line for line in str(self.state).splitlines() if line[:1].isdigit()]
        if self.game == "clobber":
            cells = {int(line[0]): line[1:9] for line in lines}
            return ["".join({"o": "w", "x": "b"}.get(cell, ".") for cell in cells[9 - rank])
                    for rank in range(8, 0, -1)]
        # Othello: "1 - - - o x - - - 1", row 1 first, x black.
        return ["".join({"x": "0", "o": "1"}.get(cell, ".") for cell in line.split()[1:9])
                for line in lines]

    def check(self, turn, legal) -> dict[str, int]:
        """The legal actions by name, after checking them and the board against the
        referee's turn."""
        if self.state.is_terminal() or self.state.current_player() != turn.player:
            raise WrapperError(f"OpenSpiel's state has player {self.state.current_player()} to move,"
                               f" the referee asks player {turn.player}")
        rows = turn.board_text.split()[0].split("/")
        if self.rows() != rows:
            raise WrapperError(f"OpenSpiel's board {self.rows()} is not the referee's {rows}")
        actions = self.actions()
        if set(actions) != set(legal) or len(legal) != turn.legal_count:
            raise WrapperError(f"legal moves differ: OpenSpiel {sorted(actions)},"
                               f" the referee {sorted(legal)} ({turn.legal_count} announced)")
        return actions


class MctsBot:
    def __init__(self, game: str, ms: float, uct: float, rollouts: int, seed: int):
        self.game = game
        self.mapper = Mapper(game)
        evaluator = pyspiel.RandomRolloutEvaluator(rollouts, seed)
        self.bot = pyspiel.MCTSBot(self.mapper.spiel_game, evaluator, uct, 1 << 30, 1000, True, seed,
                                   False, pyspiel.ChildSelectionPolicy.UCT, ms / 1000)
        self.history = OthelloHistory() if game == "othello" else None

    def choose(self, turn, state, legal) -> str:
        if self.history is not None:
            for _, token in self.history.catch_up(turn):
                self.mapper.apply(token)
        elif turn.last_action is not None:
            self.mapper.apply(turn.last_action)
        actions = self.mapper.check(turn, legal)
        started = time.perf_counter()
        action = self.bot.step(self.mapper.state)
        log(f"mcts: {(time.perf_counter() - started) * 1000:.1f} ms")
        token = next((name for name, value in actions.items() if value == action), None)
        if token is None:
            raise WrapperError(f"MCTS chose action {action}, not a legal one")
        self.mapper.apply(token)
        if self.history is not None:
            self.history.play_own(token)
        return token


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=sorted(OPENSPIEL_GAMES))
    parser.add_argument("--ms", type=float, default=80.0, help="search time per move in ms (default 80)")
    parser.add_argument("--uct", type=float, default=2.0, help="UCT exploration constant (default 2)")
    parser.add_argument("--rollouts", type=int, default=1, help="random rollouts per leaf (default 1)")
    parser.add_argument("--seed", type=int, default=None, help="seed (default: $ARENA_SEED, else random)")
    args = parser.parse_args(argv)
    seed = args.seed
    if seed is None:
        text = os.environ.get("ARENA_SEED", "")
        seed = int(text) % (1 << 31) if text.lstrip("-").isdigit() else random.randrange(1 << 31)
    log(f"OpenSpiel MCTS {args.game}: {args.ms:g} ms a move, uct {args.uct:g},"
        f" {args.rollouts} rollout(s), seed {seed}")
    bot = MctsBot(args.game, args.ms, args.uct, args.rollouts, seed)
    play(args.game, bot.choose, expert=args.game == "othello")
    return 0


if __name__ == "__main__":
    sys.exit(main_guard(main))
