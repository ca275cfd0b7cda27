"""pyai-abalone's AlphaZero-style network (PyPI `pyai-abalone`, TensorFlow) as a CodinGame
Abalone bot.

    /work/sparring-venvs/abalone/bin/python scripts/sparring/pyai_abalone_bot.py
        [--backend numpy|keras] [--self-check]

It runs under the abalone venv (scripts/sparring/install makes it) and reads the
referee's turns with the project's turn format. The network is the package's trained
MagisterZero (a residual CNN with a policy head over 1506 moves and a value head, its
weights in the package's `ai_files/mz-weights.h5`). By default it runs as a numpy
transcription of the package's Keras model: the package imports TensorFlow, which with
the model takes about 4 s of CPU to load, four times CodinGame's 1000 ms first turn,
while numpy and the weights load in about half a second; one network call then takes
about 8 ms instead of 17 to 200 ms. `--self-check` compares the two on 30 positions
(logits agree within 5e-5); `--backend keras` plays with the Keras model itself, which
needs a longer first turn (the arena's `--time-scale`).

A move: pyai-abalone's own generator lists the moves that do not push one's own marble
off (`NumpyAbalone.calc_nonlosing_moves`, as positions after the move with their move
ids), the policy head rates them, and the bot plays the best rated one that is a move of
the referee's list. The package's own player (`MagisterPlay`) adds a Monte-Carlo search
of network-guided playouts (hundreds of network calls a move), which does not fit in
CodinGame's 75 ms a move: the bot plays the policy alone.

The mapping: pyai-abalone's board is an 11x11 array (`0` empty, `1` white, `2` black, `3`
off the board) whose row y + 1 is CodinGame's printed line y and whose column is the
index x in that line plus 5 - y on the top five lines, plus 1 below. The colours and the
side that starts (black) are CodinGame's, and white sits on the top rows in both (the
package's CLASSIC layout is the project's start position). Moves are matched by the
position they lead to: each move of the referee's list is played with the project's
rules, and a network move is played only if its position is one of those; the share of
network moves without a referee move goes to stderr.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
import types
from pathlib import Path

from common import WrapperError, log, main_guard, play

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# The package's constants module opens a pygame display and audio: headless stand-ins.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import numpy as np  # noqa: E402

ROW_LENGTHS = (5, 6, 7, 8, 9, 8, 7, 6, 5)
OFF = 3


def to_array(rows: list[str]) -> np.ndarray:
    """CodinGame's 9 board lines as pyai-abalone's 11x11 array."""
    board = np.full((11, 11), OFF, dtype=np.int16)
    for y, (row, length) in enumerate(zip(rows, ROW_LENGTHS)):
        if len(row) != length:
            raise WrapperError(f"board line {y} {row!r} does not have {length} cells")
        shift = 5 - y if y <= 4 else 1
        for x, cell in enumerate(row):
            board[y + 1, x + shift] = int(cell)
    return board


def rows_of(board_text: str) -> list[str]:
    return board_text.split(" ", 1)[0].split("/")


def import_pyai():
    """pyai-abalone's modules without its package __init__, which imports TensorFlow (3 s
    or more) and the GUI: the move generator needs neither."""
    if "pyai_abalone" not in sys.modules:
        spec = importlib.util.find_spec("pyai_abalone")
        if spec is None or not spec.submodule_search_locations:
            raise WrapperError("pyai-abalone is not installed: run scripts/sparring/install")
        package = types.ModuleType("pyai_abalone")
        package.__path__ = list(spec.submodule_search_locations)
        sys.modules["pyai_abalone"] = package
    from pyai_abalone.abalone_ai import NumpyAbalone

    return NumpyAbalone, Path(sys.modules["pyai_abalone"].__path__[0]) / "ai_files" / "mz-weights.h5"


class NumpyNetwork:
    """The trained MagisterZero network (`model_ai.build_magister_zero(2, 64, 1506)` with
    the package's weights) computed with numpy: a 3x3 convolution to 64 filters, two
    residual blocks, then a policy head (convolution, dense to 1506 logits) and a value
    head. Its BatchNormalization layers normalise along axis 1, the board's rows, as the
    package builds them. `--self-check` compares it with the package's Keras model."""

    def __init__(self, path: Path):
        import h5py

        self.weights: dict[str, np.ndarray] = {}

        def keep(name: str, item) -> None:
            if isinstance(item, h5py.Dataset):
                self.weights[name.removeprefix("model/").replace(":0", "")] = item[()]

        with h5py.File(path, "r") as file:
            file.visititems(keep)

    def _conv(self, x: np.ndarray, name: str) -> np.ndarray:
        kernel = self.weights[name + "/kernel"]
        channels = x.shape[2]
        padded = np.pad(x, ((1, 1), (1, 1), (0, 0)))
        columns = np.concatenate([padded[i:i + 11, j:j + 11, :] for i in range(3) for j in range(3)], axis=2)
        out = columns.reshape(121, 9 * channels) @ kernel.reshape(9 * channels, -1) + self.weights[name + "/bias"]
        return out.reshape(11, 11, -1)

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        w = self.weights
        scale = w[name + "/gamma"] / np.sqrt(w[name + "/moving_variance"] + 1e-3)
        return ((x - w[name + "/moving_mean"][:, None, None]) * scale[:, None, None]
                + w[name + "/beta"][:, None, None])

    def __call__(self, board: np.ndarray) -> tuple[np.ndarray, float]:
        """(policy logits, value) of a board seen from the side to move (white)."""
        relu = lambda x: np.maximum(x, 0)  # noqa: E731
        w = self.weights
        x = np.eye(4, dtype=np.float32)[board]
        x = relu(self._norm(self._conv(x, "conv2d"), "batch_normalization"))
        for block, first, second in (("residual_block", 1, 2), ("residual_block_1", 3, 4)):
            y = relu(self._norm(self._conv(x, f"{block}/conv2d_{first}"), f"{block}/batch_normalization_{first}"))
            y = self._norm(self._conv(y, f"{block}/conv2d_{second}"), f"{block}/batch_normalization_{second}")
            x = relu(y + x)
        policy = relu(self._norm(self._conv(x, "conv2d_5"), "batch_normalization_5")).reshape(-1)
        logits = policy @ w["pol_prediction/kernel"] + w["pol_prediction/bias"]
        value = relu(self._norm(self._conv(x, "conv2d_6"), "batch_normalization_6")).reshape(-1)
        value = relu(value @ w["dense/kernel"] + w["dense/bias"])
        return logits, float(np.tanh(value @ w["val_prediction/kernel"] + w["val_prediction/bias"])[0])


class KerasNetwork:
    """The package's own Keras model (`get_trained_magister_zero`): about 4 s to load."""

    def __init__(self, threads: int):
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
        from pyai_abalone.model_ai import get_trained_magister_zero

        self.model = get_trained_magister_zero()

    def __call__(self, board: np.ndarray) -> tuple[np.ndarray, float]:
        logits, value = self.model(np.eye(4, dtype=np.float32)[board][None])
        return logits.numpy()[0], float(value.numpy()[0][0])


def softmax(values: np.ndarray) -> np.ndarray:
    exp = np.exp(values - values.max())
    return exp / exp.sum()


class PolicyBot:
    def __init__(self, backend: str, threads: int):
        started = time.perf_counter()
        self.NumpyAbalone, weights = import_pyai()
        self.network = NumpyNetwork(weights) if backend == "numpy" else KerasNetwork(threads)
        self.unmatched = 0
        self.rated = 0
        log(f"pyai-abalone network ({backend}) loaded in {time.perf_counter() - started:.2f} s")

    def choose(self, turn, state, legal) -> str:
        from adapters.codingame import turn_format

        game = turn_format("abalone").GAME
        black = turn.player == 0
        abalone = self.NumpyAbalone(to_array(rows_of(turn.board_text)), black_tomove=black,
                                    move_hist_save=False)
        states, move_ids = abalone.calc_nonlosing_moves()
        if not states:
            raise WrapperError("pyai-abalone finds no move that keeps its marbles on the board")
        started = time.perf_counter()
        logits, _ = self.network(abalone.get_current_state_reversed())
        chances = softmax(logits[np.asarray(move_ids)])
        network_ms = (time.perf_counter() - started) * 1000
        # The referee's moves by the position they lead to (first in its list wins).
        referee: dict[bytes, str] = {}
        by_token = {game.format_move(state, move): move for move in state.legal_moves()}
        for token in legal:
            move = by_token.get(token)
            child = state.play(game.parse_move(state, token) if move is None else move)
            referee.setdefault(to_array(rows_of(game.format_board(child))).tobytes(), token)
        keys = [(abalone.rotate_board(next_state) if black else next_state).astype(np.int16).tobytes()
                for next_state in states]
        unmatched = sum(1 for key in keys if key not in referee)
        self.unmatched += unmatched
        self.rated += len(keys)
        if unmatched:
            log(f"{unmatched} of {len(keys)} network moves are not in the referee's list")
        for index in np.argsort(-chances, kind="stable"):
            token = referee.get(keys[index])
            if token is not None:
                log(f"network {network_ms:.1f} ms, chance {chances[index]:.3f}")
                return token
        raise WrapperError(f"none of pyai-abalone's {len(keys)} moves is in the referee's list")


def self_check(positions: int = 30) -> int:
    """Compare the numpy network with the package's Keras model on positions of a random
    game from the CLASSIC start; exit code 0 when the logits agree within 1e-3."""
    NumpyAbalone, weights = import_pyai()
    from pyai_abalone.starting_positions import CLASSIC

    ours, theirs = NumpyNetwork(weights), KerasNetwork(1)
    game = NumpyAbalone(CLASSIC, move_hist_save=False)
    rng = np.random.default_rng(1)
    worst_logit = worst_value = 0.0
    same = 0
    for _ in range(positions):
        board = game.get_current_state_reversed()
        (mine, my_value), (keras, keras_value) = ours(board), theirs(board)
        worst_logit = max(worst_logit, float(np.abs(mine - keras).max()))
        worst_value = max(worst_value, abs(my_value - keras_value))
        same += int(np.argmax(mine) == np.argmax(keras))
        states, _ = game.calc_nonlosing_moves()
        game.set_board_state(states[rng.integers(len(states))])
        if game.game_ended:
            break
    print(f"numpy vs Keras: max logit difference {worst_logit:.2e}, max value difference"
          f" {worst_value:.2e}, same best move in {same} of {positions} positions")
    return 0 if worst_logit < 1e-3 else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("numpy", "keras"), default="numpy",
                        help="run the network with numpy (default; loads in a fraction of a second)"
                             " or with the package's Keras model (about 4 s to load)")
    parser.add_argument("--threads", type=int, default=1,
                        help="TensorFlow's threads with --backend keras (default 1)")
    parser.add_argument("--self-check", action="store_true",
                        help="compare the numpy network with the Keras model and exit")
    args = parser.parse_args(argv)
    if args.self_check:
        return self_check()
    bot = PolicyBot(args.backend, args.threads)
    play("abalone", bot.choose)
    if bot.rated:
        log(f"network moves without a referee move: {bot.unmatched} of {bot.rated}")
    return 0


if __name__ == "__main__":
    sys.exit(main_guard(main))
