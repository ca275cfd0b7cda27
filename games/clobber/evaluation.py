"""Clobber evaluation: who has more stones that can still move.

Every orthogonally adjacent pair of opposite stones gives each side exactly one move, so
the raw move counts of the two sides are always equal and say nothing. What differs is
how those moves are spread: a stone touching several enemy stones is one mover for its
side against several for the other. The terms, each a difference between the side in
question and its opponent:

- movers: stones with at least one enemy neighbour (stones with none are dead: they can
  never move nor be captured);
- lone contacts: movers with exactly one enemy neighbour, which keep a reply in reserve
  less often than stones in a cluster; counted against the side that owns them.

Weights in centi-stones; chosen by hand and checked by scripts/strength.
"""

from __future__ import annotations

NOT_FILE_A = 0xFEFEFEFEFEFEFEFE
NOT_FILE_H = 0x7F7F7F7F7F7F7F7F
FULL = (1 << 64) - 1

MOVER_WEIGHT = 100
LONE_CONTACT_WEIGHT = 30


def _contacts(own: int, opp: int) -> tuple[int, int]:
    """(own stones touching an enemy, own stones touching exactly one enemy)."""
    north = own & (opp >> 8)
    south = own & (opp << 8) & FULL
    east = own & (opp >> 1) & NOT_FILE_H
    west = own & (opp << 1) & NOT_FILE_A
    movers = north | south | east | west
    # A stone is in exactly one of the four masks iff it has exactly one enemy neighbour.
    twice = (north & south) | ((north | south) & (east | west)) | (east & west)
    return movers.bit_count(), (movers & ~twice).bit_count()


def evaluate(white: int, black: int, to_move: int) -> tuple[int, int]:
    """(white's value, black's value) of a position; they sum to zero."""
    white_movers, white_lone = _contacts(white, black)
    black_movers, black_lone = _contacts(black, white)
    value = MOVER_WEIGHT * (white_movers - black_movers) - LONE_CONTACT_WEIGHT * (
        white_lone - black_lone
    )
    return value, -value
