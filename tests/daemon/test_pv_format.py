"""The pv formatter of `info` lines: the lines it keeps give the same tokens as playing
each pv out from the root."""

from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from daemon.session import PvFormatter
from games import all_games


def plain(root, pv) -> list[str]:
    tokens, position = [], root
    for move in pv:
        tokens.append(root.game.format_move(position, move))
        position = position.play(move)
    return tokens


def random_line(root, rng: random.Random, prefix=(), length: int = 12) -> tuple[int, ...]:
    position, line = root, []
    for move in prefix:
        line.append(move)
        position = position.play(move)
    while len(line) < length and position.outcome() is None:
        move = rng.choice(position.legal_moves())
        line.append(move)
        position = position.play(move)
    return tuple(line)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(all_games())), st.integers(0, 2**16))
def test_kept_lines_format_as_playing_out_each_pv(name: str, seed: int) -> None:
    game = all_games()[name]
    rng = random.Random(seed)
    root = game.initial_state({"seed": "3"} if "seed" in game.parameters else {})
    formatter = PvFormatter(root)
    line = random_line(root, rng)
    for _ in range(12):
        # The next pv: a prefix of an earlier one, then new moves (or another first move).
        line = random_line(root, rng, line[:rng.randint(0, len(line))], rng.randint(0, 14))
        assert formatter(line) == plain(root, line)
    assert formatter(()) == []
