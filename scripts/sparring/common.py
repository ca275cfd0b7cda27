"""What the sparring wrappers share: the project's own turn reading, a turn loop, and
the Othello move history that a GTP or OpenSpiel opponent needs.

The wrappers run under interpreters of their own (a venv with OpenSpiel or
TensorFlow), not the project's: importing this module puts the project's root on
sys.path, and `main_guard` has the process run the rules and the turn formats
interpreted (`games.kernel.interpret_kernels`), with nothing but attrs and numpy (the
installer puts both in each venv).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
# One BLAS thread: a bot has one core of a two-core match, and idle BLAS threads spin.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

from adapters.codingame import turn_format  # noqa: E402
from adapters.codingame.common import Turn, read_turn  # noqa: E402
from games.base import Position  # noqa: E402
from games.kernel import interpret_kernels  # noqa: E402

#: A wrapper's move: (turn, position, legal tokens in the referee's order) -> a token of
#: the legal list.
Chooser = Callable[[Turn, Position, Sequence[str]], str]


class WrapperError(RuntimeError):
    """The wrapped program and the referee disagree: the wrapper stops rather than play on
    from a position it does not know."""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def play(game: str, choose: Chooser, expert: bool = False, stdin=None, stdout=None) -> int:
    """Answer the referee's turns until the input ends; returns the turns played.

    `expert` asks for Othello's EXPERT line (the opponent's moves since the last turn)
    with the first answer. Each answer is checked against the turn's legal list; the
    time spent choosing goes to stderr.
    """
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    fmt = turn_format(game)
    player: int | None = None
    expert_on = False
    turns = 0
    while True:
        try:
            lines = read_turn(stdin.readline, fmt.framer(player is None, expert_on))
        except EOFError:
            return turns
        started = time.perf_counter()
        turn = fmt.parse_turn(lines, player, turns, expert=expert_on)
        player = turn.player
        state = fmt.GAME.parse_board(turn.board_text.split())
        legal = fmt.legal_tokens(turn)
        token = choose(turn, state, legal)
        if token not in legal:
            raise WrapperError(f"the chosen move {token!r} is not in the legal list {list(legal)}")
        line = fmt.format_output(token)
        if expert and not expert_on:
            line += " EXPERT"
            expert_on = True
        stdout.write(line + "\n")
        stdout.flush()
        log(f"turn {turns}: {token} in {(time.perf_counter() - started) * 1000:.1f} ms")
        turns += 1


def main_guard(run: Callable[[], int]) -> int:
    """Run a wrapper, its kernels interpreted (first: nothing has made one yet); a
    WrapperError ends it with its message on stderr and exit code 3."""
    interpret_kernels()
    try:
        return run()
    except WrapperError as error:
        log(f"{Path(sys.argv[0]).name}: {error}")
        return 3


class OthelloHistory:
    """Every move since the start position (the engine's tokens, `pass` for a forced
    pass), rebuilt from the referee's turns: on the first turn from the board (white's
    first turn follows one black move), later from the EXPERT line, with the reader's
    own forced passes, which that line leaves out, put back. Each turn the replayed
    position must be the referee's board."""

    PASS = "pass"

    def __init__(self) -> None:
        self.fmt = turn_format("othello")
        self.game = self.fmt.GAME
        self.state = self.game.initial_state({})
        self.moves: list[str] = []
        #: The player who made each move of `moves`.
        self.movers: list[int] = []

    def _apply(self, token: str) -> None:
        try:
            move = self.game.parse_move(self.state, token)
        except ValueError as error:
            raise WrapperError(f"move {token!r} after {self.moves} is not legal: {error}") from None
        self.movers.append(self.state.to_move)
        self.state = self.state.play(move)
        self.moves.append(token)

    def _tokens(self) -> list[str]:
        return [self.game.format_move(self.state, move) for move in self.state.legal_moves()]

    def catch_up(self, turn) -> list[tuple[int, str]]:
        """Bring the history up to this turn; returns the moves added (passes included)
        as (player, token) pairs."""
        start = len(self.moves)
        me = turn.player
        if turn.expert_actions is None:
            if self.moves:
                raise WrapperError("a later turn came without the EXPERT line")
            if me == 1:
                for token in self._tokens():
                    child = self.state.play(self.game.parse_move(self.state, token))
                    if self.game.format_board(child) == turn.board_text:
                        self._apply(token)
                        break
        else:
            for action in turn.expert_actions:
                if self.state.to_move == me:
                    self._apply(self.PASS)  # the reader's own forced pass
                self._apply(action)
        if self.game.format_board(self.state) != turn.board_text:
            raise WrapperError(f"after {self.moves} the position is {self.game.format_board(self.state)},"
                               f" the referee's board is {turn.board_text}")
        return list(zip(self.movers[start:], self.moves[start:]))

    def play_own(self, token: str) -> None:
        self._apply(token)
