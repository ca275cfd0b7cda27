"""Abalone evaluation: material first, then the centre, cohesion and pushing threats.

Each term is a difference between black and white (the value is black's; white's is its
negation), in centi-marbles: 100 is one marble pushed off.

- material: marbles pushed off by black minus marbles pushed off by white. Dominant: no
  sum of the other terms in a real position comes near a marble.
- centre: the hex distance of every marble from the centre cell, summed per side,
  counted against its owner. A marble in the middle cannot be pushed off and supports
  the lines around it.
- cohesion: adjacent pairs of own marbles (each pair once, along the three axes). Lines
  of two and three push and resist pushes; a scattered side does neither.
- danger: own marbles that an enemy column can push off the board with its next move
  (a 2-against-1 or 3-against-1 with the marble on the rim, or a 3-against-2 with the
  second marble on the rim), counted against their owner.
- tempo: a side that can push a marble off and is to move takes it before the other
  side can answer, so a pending push-off for the side to move counts almost a marble;
  the other side's pending push-offs count only as danger to the side to move.
- pushes: the sumito moves (2v1, 3v1, 3v2) a side has, pushing off or not. Pressure on
  enemy lines makes them give way.

Weights: a start after the scale in the design notes (a marble worth ten times a danger
and fifty to a hundred times a step towards the centre, a pair or a push), adjusted by
self-play matches of 2-ply searches from random openings (see WEIGHTS). Every term is a
popcount of a few shifted and ANDed boards: no loop over cells.
"""

from __future__ import annotations

from games.abalone.hexboard import (
    AXIS_STEPS,
    NEGATIVE_DIRECTIONS,
    ON_BOARD,
    POSITIVE_DIRECTIONS,
    RIM,
    RINGS,
)

MATERIAL_WEIGHT = 100
CENTRE_WEIGHT = 3
COHESION_WEIGHT = 2
DANGER_WEIGHT = 30
TEMPO_WEIGHT = 60
PUSH_WEIGHT = 3

_RING1, _RING2, _RING3, _RING4 = RINGS[1], RINGS[2], RINGS[3], RINGS[4]
#: Per axis: its positive step, the cells whose neighbour +u / -u is off the board.
_AXES = tuple((AXIS_STEPS[a], RIM[POSITIVE_DIRECTIONS[a]], RIM[NEGATIVE_DIRECTIONS[a]])
              for a in range(3))


def centre_distance(board: int) -> int:
    """The summed hex distance of the marbles of `board` from the centre."""
    return ((board & _RING1).bit_count() + 2 * (board & _RING2).bit_count()
            + 3 * (board & _RING3).bit_count() + 4 * (board & _RING4).bit_count())


def cohesion(board: int) -> int:
    """The adjacent pairs of marbles of `board`."""
    return ((board & (board << 1)).bit_count() + (board & (board << 10)).bit_count()
            + (board & (board << 11)).bit_count())


def attacks(own: int, opp: int, empty: int) -> tuple[int, int]:
    """(the sumito moves of the side owning `own`, the enemy marbles it can push off the
    board with one of them)."""
    pushes = 0
    off = 0
    for u, rim_plus, rim_minus in _AXES:
        pairs = own & (own << u)
        if not pairs:
            continue
        triples = pairs & (pairs << u)
        # Moving +u: the front marble of a pair or triple is its anchor cell.
        if pairs & (opp >> u):
            edge = opp & rim_plus
            heads = (opp & (empty >> u) | edge) >> u
            pushes += (pairs & heads).bit_count()
            off |= edge & (pairs << u)
            if triples & (opp >> u):
                pushes += (triples & heads).bit_count()
                two = opp & heads
                pushes += (triples & (two >> u)).bit_count()
                off |= edge & ((two & (triples << u)) << u)
        # Moving -u: the front marble is the lower end.
        pairs >>= u
        if pairs & (opp << u):
            triples >>= u + u
            edge = opp & rim_minus
            heads = (opp & (empty << u) | edge) << u
            pushes += (pairs & heads).bit_count()
            off |= edge & (pairs >> u)
            if triples & (opp << u):
                pushes += (triples & heads).bit_count()
                two = opp & heads
                pushes += (triples & (two << u)).bit_count()
                off |= edge & ((two & (triples >> u)) >> u)
    return pushes, off


def evaluate(black: int, white: int, to_move: int, black_score: int,
             white_score: int) -> tuple[int, int]:
    """(black's value, white's value) of a position; they sum to zero."""
    empty = ON_BOARD ^ black ^ white
    black_pushes, white_in_danger = attacks(black, white, empty)
    white_pushes, black_in_danger = attacks(white, black, empty)
    value = (MATERIAL_WEIGHT * (black_score - white_score)
             + CENTRE_WEIGHT * (centre_distance(white) - centre_distance(black))
             + COHESION_WEIGHT * (cohesion(black) - cohesion(white))
             + DANGER_WEIGHT * (white_in_danger.bit_count() - black_in_danger.bit_count())
             + PUSH_WEIGHT * (black_pushes - white_pushes))
    if to_move == 0:
        if white_in_danger:
            value += TEMPO_WEIGHT
    elif black_in_danger:
        value -= TEMPO_WEIGHT
    return value, -value
