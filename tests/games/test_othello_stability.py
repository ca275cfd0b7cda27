"""Othello's stable discs (`games.othello.stability`): every disc it calls stable keeps its
colour through every continuation tried, the edge table knows the classic cases, and the
margin bound never falls below the exact margin; compiled and interpreted alike."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings

from games import find_game
from games.kernel import interpreted
from games.othello import stability
from tests.search.test_othello_ending import exact_margin, near_full_boards

OTHELLO = find_game("othello")
FORMS = {"compiled": stability.stable_discs, "interpreted": interpreted(stability.stable_discs)}


def board(squares: str) -> int:
    """The bit pattern of squares named like "a1 h8"."""
    return sum(1 << (8 * (int(name[1]) - 1) + "abcdefgh".index(name[0])) for name in squares.split())


def stable(form: str, own: int, opp: int) -> int:
    return int(FORMS[form](np.uint64(own), np.uint64(opp)))


def random_positions(count: int, seed: int):
    """Positions of seeded random games, at every stage from the opening to the end."""
    rng = random.Random(seed)
    for _ in range(count):
        position = OTHELLO.initial_state({})
        for _ in range(rng.randrange(8, 60)):
            if not position.legal_moves():
                break
            position = position.play(rng.choice(position.legal_moves()))
        yield rng, position


def discs_of(position, colour: int) -> int:
    """The discs of `colour` (the kernel state's side-to-move index) in `position`."""
    own, opp, to_move = int(position.s[0]), int(position.s[1]), int(position.s[4])
    return own if to_move == colour else opp


@pytest.mark.parametrize("form", FORMS)
def test_stable_discs_keep_their_colour_in_every_continuation_tried(form: str) -> None:
    found = 0
    for rng, position in random_positions(300, 7):
        colour, other = int(position.s[4]), 1 - int(position.s[4])
        own, opp = discs_of(position, colour), discs_of(position, other)
        kept = {colour: stable(form, own, opp), other: stable(form, opp, own)}
        assert kept[colour] & ~own == 0 and kept[other] & ~opp == 0
        found += bin(kept[colour]).count("1") + bin(kept[other]).count("1")
        for _ in range(4):
            line = position
            while line.legal_moves():
                line = line.play(rng.choice(line.legal_moves()))
                for side in (colour, other):
                    assert kept[side] & ~discs_of(line, side) == 0, (OTHELLO.format_board(position), side)
    assert found > 1000  # the check had stable discs to hold


@pytest.mark.parametrize("form", FORMS)
def test_the_edges_and_full_lines(form: str) -> None:
    # A corner is stable, and so is a run of one colour from it along the edge.
    assert stable(form, board("a1 b1 c1"), board("d1")) == board("a1 b1 c1")
    assert stable(form, board("h8 h7"), board("a1")) == board("h8 h7")
    # Off the corner, a disc between empty squares can be taken.
    assert stable(form, board("b1"), board("c1")) == 0
    # A full edge: every disc of it stays.
    row = board("a8 b8 c8 d8 e8 f8 g8 h8")
    own = board("a8 c8 d8 h8")
    assert stable(form, own, row & ~own) == own
    # A full board: every disc stays.
    full = (1 << 64) - 1
    own = random.Random(3).getrandbits(64)
    assert stable(form, own, full & ~own) == own
    # An inner disc whose row, file and diagonals are full is stable (a8 lies on none of
    # d4's lines); with a line open and no stable neighbour on it, it is not found so.
    opp = full & ~board("d4") & ~board("a8")
    assert stable(form, board("d4"), opp) == board("d4")
    assert stable(form, board("d4"), opp & ~board("h8")) == 0
    # A stable neighbour on the open line makes it stable again.
    assert stable(form, board("d4 c3 b2 a1"), opp & ~board("h8 c3 b2 a1")) == board("d4 c3 b2 a1")


@settings(max_examples=60, deadline=None)
@given(text=near_full_boards())
def test_the_margin_ceiling_is_never_below_the_exact_margin(text: str) -> None:
    position = OTHELLO.parse_board(text.split())
    own, opp = position.s[0], position.s[1]
    ceiling = int(stability.margin_ceiling(own, opp, np.int64(64)))
    assert ceiling >= exact_margin(text)
    # Where the other side has too few discs for a bound of alpha or less, it is not computed.
    assert int(stability.margin_ceiling(own, opp, np.int64(64 - 2 * bin(int(opp)).count("1") - 1))) \
        == stability.NO_CEILING


def test_the_stored_edge_table_is_the_one_the_rules_build() -> None:
    assert np.array_equal(stability.EDGE_STABLE, stability.build_edge_table())
