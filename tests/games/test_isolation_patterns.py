"""Knight Isolation's pattern evaluation: the jump tuple's symmetries, the values as the
sum of their features' weights, symmetric boards valued alike, players out and decided
positions valued as the hand-set evaluation values them, and the compiled kernel against
the interpreted one."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import find_game
from games.isolation import patterns, training
from games.kernel import COMPILING
from tests.games.test_isolation import random_games
from tests.games.test_kernels import check_position

CLASSIC = find_game("isolation")
GAME = CLASSIC.with_evaluation("patterns")
POSITIONS = random_games(5, 12)


def test_the_trained_weights_are_there_and_not_all_zero() -> None:
    weights = patterns.read_weights()
    assert weights.shape == (patterns.PHASES, patterns.WEIGHTS_SIZE)
    assert np.count_nonzero(weights) > patterns.WEIGHTS_SIZE


def test_the_jump_symmetries_form_the_group_of_the_square() -> None:
    perms = patterns._jump_symmetries()
    assert len(set(perms)) == 8
    for a in perms:
        for b in perms:
            assert tuple(b[a[j]] for j in range(patterns.JUMPS)) in perms
    # Burnside: the slots are the orbits of the 3^8 configurations under the group.
    cycles = []
    for perm in perms:
        seen, count = set(), 0
        for start in range(patterns.JUMPS):
            if start not in seen:
                count += 1
                while start not in seen:
                    seen.add(start)
                    start = perm[start]
        cycles.append(count)
    assert patterns.EXIT_SLOTS == sum(3 ** count for count in cycles) // 8


@settings(max_examples=200, deadline=None)
@given(st.integers(0, patterns.EXIT_CONFIGS - 1), st.integers(0, 7))
def test_a_jump_configuration_turned_or_mirrored_keeps_its_slot(config: int, g: int) -> None:
    perm = patterns._jump_symmetries()[g]
    digits = [config // 3 ** j % 3 for j in range(patterns.JUMPS)]
    moved = [0] * patterns.JUMPS
    for j, digit in enumerate(digits):
        moved[perm[j]] = digit
    image = sum(digit * 3 ** j for j, digit in enumerate(moved))
    assert patterns.EXIT_SLOT[image] == patterns.EXIT_SLOT[config]


def test_a_value_is_the_sum_of_its_features_weights() -> None:
    checked = 0
    for position in POSITIONS:
        values = GAME.evaluate(position)
        found = training.open_rows(position.s)
        if found is None:
            continue
        phase, players = found
        for player, slots, amounts in players:
            assert values[player] == round(float(np.dot(patterns.WEIGHTS[phase][slots], amounts)))
            assert len(slots) <= patterns.MAX_FEATURES
        checked += 1
    assert checked > 100


def test_players_out_and_decided_positions_are_valued_as_the_hand_set_evaluation_does() -> None:
    decided = out = 0
    for position in POSITIONS:
        values, classic = GAME.evaluate(position), CLASSIC.evaluate(position)
        if training.open_rows(position.s) is None:
            assert values == classic
            decided += 1
        for player in range(3):
            if not CLASSIC.alive(position) >> player & 1:
                assert values[player] == classic[player]
                out += 1
    assert decided > 20 and out > 10


def _mirrored(position, transform) -> object:
    """`position` with every square moved by `transform` (rank, file) -> (rank, file),
    through its board text."""
    grid, *rest = GAME.format_board(position).split()
    rows = grid.split("/")
    cells = {transform(7 - row, file): rows[row][file] for row in range(8) for file in range(8)}
    image = "/".join("".join(cells[(rank, file)] for file in range(8)) for rank in range(7, -1, -1))
    return GAME.parse_board([image, *rest])


TRANSFORMS = (lambda r, f: (r, 7 - f), lambda r, f: (7 - r, f), lambda r, f: (f, r), lambda r, f: (7 - f, 7 - r))


@pytest.mark.parametrize("transform", range(len(TRANSFORMS)))
def test_symmetric_boards_are_valued_alike(transform: int) -> None:
    for position in POSITIONS[::3]:
        assert GAME.evaluate(_mirrored(position, TRANSFORMS[transform])) == GAME.evaluate(position)


def test_the_terms_add_up_to_the_values() -> None:
    for position in POSITIONS[::5]:
        terms = GAME.evaluation_terms(position)
        values = GAME.evaluate(position)
        if terms[0][0] in ("decided", "out") and len(terms) == 1:
            assert terms[0][1] == values
            continue
        for player in range(3):
            total = sum(row[player] for _, row in terms)
            assert abs(total - values[player]) <= len(terms)


@pytest.mark.skipif(not COMPILING, reason="numba is not available")
def test_the_compiled_evaluation_agrees_with_the_interpreted_one() -> None:
    for position in POSITIONS[::4]:
        check_position(GAME, position)
