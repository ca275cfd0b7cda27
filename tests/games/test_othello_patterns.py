"""The Othello pattern evaluation: its instances, its kernel against a square-by-square
reading of the same patterns, its symmetry, and its weights compiled and interpreted."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from games import find_game
from games.kernel import COMPILING, interpreted, interpreted_namespace
from games.othello import patterns, rules
from games.othello.patterns import (PHASE_EMPTIES, SYMMETRIES, TYPE_OFFSETS, TYPE_SIZES, TYPE_SYMMETRIES,
                                    TYPES, WEIGHTS_SIZE, canonical_indices, instance_squares,
                                    mirror_index, symmetric_square)

OTHELLO = find_game("othello")
RULES = interpreted_namespace(OTHELLO.rules)


def random_boards(seed: int, plies: int) -> tuple[int, int, int]:
    """(own, opp, own moves) after `plies` random moves from the start (fewer when the
    game ends)."""
    rng = random.Random(seed)
    position = OTHELLO.initial_state({})
    for _ in range(plies):
        if position.outcome() is not None:
            break
        position = position.play(rng.choice(position.legal_moves()))
    s = position.s
    return int(s[0]), int(s[1]), int(s[2])


def reference_pattern_sum(weights: np.ndarray, own: int, opp: int) -> int:
    """The pattern sum read square by square: every type's instances (`instance_squares`)
    as base-3 numbers, 1 for `own`, 2 for `opp`."""
    total = 0
    for type_index, symmetries in enumerate(TYPE_SYMMETRIES):
        for g in symmetries:
            index = 0
            for digit, square in enumerate(instance_squares(type_index, g)):
                value = 1 if own >> square & 1 else 2 if opp >> square & 1 else 0
                index += value * 3 ** digit
            total += int(weights[TYPE_OFFSETS[type_index] + index])
    return total


def symmetric_weights(seed: int) -> np.ndarray:
    """Random weights for one phase in which each configuration and its mirror image
    within its pattern share a weight, as trained weights do."""
    rng = np.random.default_rng(seed)
    weights = rng.integers(-3000, 3000, WEIGHTS_SIZE).astype(np.int16)
    for type_index in range(len(TYPES)):
        table = weights[TYPE_OFFSETS[type_index]:TYPE_OFFSETS[type_index] + TYPE_SIZES[type_index]]
        table[:] = table[canonical_indices(type_index)]
    return weights


def board_image(g: int, board: int) -> int:
    return sum(1 << symmetric_square(g, square) for square in range(64) if board >> square & 1)


def test_each_type_reads_its_distinct_instances_and_46_in_all() -> None:
    count = 0
    for type_index, symmetries in enumerate(TYPE_SYMMETRIES):
        orbit = {frozenset(instance_squares(type_index, g)) for g in range(SYMMETRIES)}
        read = [frozenset(instance_squares(type_index, g)) for g in symmetries]
        assert len(set(read)) == len(read) == len(orbit), TYPES[type_index][0]
        assert set(read) == orbit
        count += len(read)
    assert count == 46


def test_mirror_index_is_an_involution_matching_the_type_symmetry() -> None:
    for type_index in range(len(TYPES)):
        rng = random.Random(type_index)
        for index in rng.sample(range(TYPE_SIZES[type_index]), 50):
            assert mirror_index(type_index, mirror_index(type_index, index)) == index
    # A row read backwards: own on a2 only is own on h2 only.
    assert mirror_index(3, 1) == 3 ** 7
    # corner2x5 has no symmetry of its own.
    assert all(mirror_index(1, index) == index for index in range(0, 3 ** 10, 997))


@pytest.mark.parametrize("seed", range(6))
def test_kernel_matches_the_square_by_square_reading(seed: int) -> None:
    weights = np.random.default_rng(seed).integers(-3000, 3000, WEIGHTS_SIZE).astype(np.int16)
    kernels = [patterns.pattern_sum, interpreted(patterns.pattern_sum)] if COMPILING else [patterns.pattern_sum]
    for plies in (0, 5, 20, 40, 58):
        own, opp, _ = random_boards(seed * 100 + plies, plies)
        expected = reference_pattern_sum(weights, own, opp)
        for pattern_sum in kernels:
            assert pattern_sum(weights, np.uint64(own), np.uint64(opp)) == expected


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), plies=st.integers(0, 60), weight_seed=st.integers(0, 20))
def test_the_pattern_sum_is_the_same_on_the_eight_images_of_a_board(seed: int, plies: int, weight_seed: int) -> None:
    weights = symmetric_weights(weight_seed)
    own, opp, _ = random_boards(seed, plies)
    value = patterns.pattern_sum(weights, np.uint64(own), np.uint64(opp))
    for g in range(1, SYMMETRIES):
        assert patterns.pattern_sum(weights, np.uint64(board_image(g, own)), np.uint64(board_image(g, opp))) == value


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), plies=st.integers(0, 60))
def test_the_shipped_evaluation_is_symmetric_and_the_same_compiled_and_interpreted(seed: int, plies: int) -> None:
    own, opp, _ = random_boards(seed, plies)
    values = set()
    for g in range(SYMMETRIES):
        image_own, image_opp = board_image(g, own), board_image(g, opp)
        moves = RULES.move_mask(np.uint64(image_own), np.uint64(image_opp))
        state = (np.uint64(image_own), np.uint64(image_opp), np.uint64(moves), np.uint64(0), np.int64(0), np.int64(0))
        values.add(int(patterns.evaluate(state)))
        if COMPILING and g == 0:
            assert int(interpreted(patterns.evaluate)(state)) == int(patterns.evaluate(state))
    assert len(values) == 1


def test_transforms_are_the_board_symmetries() -> None:
    rng = random.Random(7)
    for _ in range(20):
        board = rng.getrandbits(64)
        b = np.uint64(board)
        assert int(patterns.mirror_files(b)) == board_image(1, board)
        assert int(patterns.mirror_rows(b)) == board_image(2, board)
        assert int(patterns.transpose(b)) == board_image(4, board)


def test_shipped_weights_have_the_shape_the_kernel_reads() -> None:
    weights = patterns.load_pattern_weights()
    assert weights.shape == (60 // PHASE_EMPTIES + 1, WEIGHTS_SIZE) and weights.dtype == np.int16
    for type_index in range(len(TYPES)):
        for phase in range(len(weights)):
            table = weights[phase, TYPE_OFFSETS[type_index]:TYPE_OFFSETS[type_index] + TYPE_SIZES[type_index]]
            assert np.array_equal(table, table[canonical_indices(type_index)]), (phase, TYPES[type_index][0])


@pytest.mark.parametrize("seed", range(4))
def test_instance_indices_are_the_slots_the_pattern_sum_adds(seed: int) -> None:
    weights = np.random.default_rng(seed).integers(-3000, 3000, WEIGHTS_SIZE).astype(np.int16)
    out = np.zeros(patterns.INSTANCES, dtype=np.int64)
    for plies in (0, 9, 31, 57):
        own, opp, _ = random_boards(seed * 7 + plies, plies)
        assert patterns.instance_indices(np.uint64(own), np.uint64(opp), out) == patterns.INSTANCES
        expected = int(patterns.pattern_sum(weights, np.uint64(own), np.uint64(opp)))
        assert int(weights[out].astype(np.int64).sum()) == expected
        reference = []
        for type_index, symmetries in enumerate(TYPE_SYMMETRIES):
            for g in symmetries:
                squares = instance_squares(type_index, g)
                reference.append(TYPE_OFFSETS[type_index] + sum(
                    (1 if own >> square & 1 else 2 if opp >> square & 1 else 0) * 3 ** digit
                    for digit, square in enumerate(squares)))
        assert reference == out.tolist()


def expected_accumulator(s) -> np.ndarray:
    """The accumulator of `s` from `instance_indices`: each view's slots less their offsets."""
    views = np.zeros((2, patterns.INSTANCES), dtype=np.int64)
    patterns.instance_indices(np.uint64(s[0]), np.uint64(s[1]), views[0])
    patterns.instance_indices(np.uint64(s[1]), np.uint64(s[0]), views[1])
    acc = np.zeros((2, patterns.LANES), dtype=np.uint16)
    acc[:, :patterns.INSTANCES] = views - patterns.INSTANCE_OFFSETS[:patterns.INSTANCES].astype(np.int64)
    return acc.reshape(-1)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_accumulators_carried_through_moves_agree_with_accumulators_read_again_on_random_games(seed: int) -> None:
    forms = [(patterns.accumulate, patterns.accumulate_play, patterns.evaluate_accumulated)]
    if COMPILING:
        forms.append(tuple(interpreted(kernel) for kernel in forms[0]))
    rng = random.Random(seed)
    position = OTHELLO.initial_state({})
    rows = np.zeros((2, patterns.ACCUMULATOR), dtype=np.uint16)
    for accumulate, _, _ in forms:
        accumulate(position.s, rows, np.int64(1))
        assert np.array_equal(rows[1], expected_accumulator(position.s))
    while position.outcome() is None:
        move = rng.choice(position.legal_moves())
        after = position.play(move)
        expected = expected_accumulator(after.s)
        for _, accumulate_play, evaluate_accumulated in forms:
            rows[0] = expected_accumulator(position.s)
            rows[1] = 0
            accumulate_play(position.s, after.s, np.int64(move), rows, np.int64(0), np.int64(1))
            assert np.array_equal(rows[1], expected), (position.s, move)
            if after.outcome() is None:
                assert evaluate_accumulated(after.s, rows, np.int64(1)) == patterns.evaluate(after.s)
        position = after


def test_a_pass_swaps_the_views() -> None:
    s = OTHELLO.initial_state({}).s
    passed = rules.play(s, rules.PASS_MOVE)
    rows = np.zeros((2, patterns.ACCUMULATOR), dtype=np.uint16)
    rows[0] = expected_accumulator(s)
    patterns.accumulate_play(s, passed, rules.PASS_MOVE, rows, np.int64(0), np.int64(1))
    assert np.array_equal(rows[1], np.concatenate([rows[0, patterns.LANES:], rows[0, :patterns.LANES]]))
    assert np.array_equal(rows[1], expected_accumulator(passed))


def test_leaf_sums_carried_and_read_again_agree() -> None:
    from games.othello import training

    rows = np.array([training.row_of(OTHELLO.initial_state({}).s)]
                    + [random_boards(seed, plies)[:2] for seed, plies in ((1, 12), (2, 30), (3, 51))], dtype=np.uint64)
    recomputed, incremental = training.leaf_pattern_sums(rows, False), training.leaf_pattern_sums(rows, True)
    assert recomputed == incremental and recomputed[1] > 4
