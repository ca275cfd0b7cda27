"""The paranoid Knight Isolation bot: legal moves within its time budget, through the
CodinGame turn input too, and a clear refusal of other games.

The budget is wall time, which a loaded machine stretches; what the tests hold to it is
the CPU time a move takes: a search that stops at its clock spends no more than its
budget and the nodes between two looks at the clock, however long it waits for a core.
"""

from __future__ import annotations

import io
import random
import time

import pytest

import importlib.util

from adapters.bot import bots
from adapters.codingame import turn_format
from tests.conftest import ROOT

_SPEC = importlib.util.spec_from_file_location("paranoid", ROOT / "scripts" / "sparring" / "paranoid.py")
paranoid = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(paranoid)  # type: ignore[union-attr]

FMT = turn_format("isolation")
GAME = FMT.GAME
#: CPU time over the budget: on average (the search checks its clock every 128 nodes, a
#: fraction of a millisecond), and for any one move (a garbage collection).
AVERAGE_SLACK = 0.02
MOVE_SLACK = 0.25


def test_paranoid_plays_legal_moves_within_its_budget():
    rng = random.Random(5)
    state = GAME.initial_state({"seed": "7"})
    history: list[tuple[int, str]] = []
    paranoid_turns = 0
    times: list[float] = []
    while state.outcome() is None:
        player = state.to_move
        legal = FMT.referee_moves(state, history)
        if player == 0:
            started = time.thread_time()
            token = paranoid.paranoid_move(GAME, state, legal, rng)
            times.append(time.thread_time() - started)
            assert token in legal
            paranoid_turns += 1
        else:
            token = rng.choice(legal)
        history.append((player, token))
        state = state.play(GAME.parse_move(state, token))
    assert paranoid_turns >= 3
    assert sum(times) / len(times) <= paranoid.PARANOID_BUDGET + AVERAGE_SLACK, times
    assert max(times) <= paranoid.PARANOID_BUDGET + MOVE_SLACK, times


def test_paranoid_answers_a_codingame_turn():
    state = GAME.initial_state({"seed": "2"})
    lines = FMT.format_turn(state, state.to_move, True, [])
    stdout = io.StringIO()
    turns = bots.play("isolation", paranoid.paranoid_move, 1,
                      stdin=io.StringIO("\n".join(lines) + "\n"), stdout=stdout)
    assert turns == 1
    assert stdout.getvalue().strip() in FMT.referee_moves(state, [])


def test_paranoid_refuses_other_games():
    othello = turn_format("othello").GAME
    state = othello.initial_state({})
    with pytest.raises(ValueError, match="only Knight Isolation"):
        paranoid.paranoid_move(othello, state, ["d3"], random.Random(0))
    with pytest.raises(SystemExit) as exit_info:
        paranoid.main(["othello"])
    assert exit_info.value.code == 2
