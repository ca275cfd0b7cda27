"""Clobber evaluation: who has more stones that can still take part.

Every orthogonally adjacent pair of opposite stones gives each side exactly one move, so
the raw move counts of the two sides are always equal and say nothing. What differs is
which stones are still in play and how exposed they are. A region is a connected group
of stones; one holding a single colour is dead (nothing in it can ever move again). The
terms, each White's count minus Black's:

- movers: stones with at least one enemy neighbour;
- reserves: the other stones of regions holding both colours, which can recapture and
  move later; worth less as the board empties (nothing below RESERVE_FLOOR stones);
- dangling stones: stones whose only neighbour is one enemy stone, which can take them
  and leave nothing to recapture; counted against their owner.

And for the side to move:

- tempo: a small bonus, against the swing of the counts between odd and even depths;
- domino parity: an isolated pair of opposite stones is a game of value `*` (whoever
  moves there ends it) and two of them cancel, so an odd number of them is a bonus.

Weights in centi-stones: fitted to self-play results and to solved endgames, then checked
in matches (scripts/strength).
"""

from __future__ import annotations

NOT_FILE_A = 0xFEFEFEFEFEFEFEFE
NOT_FILE_H = 0x7F7F7F7F7F7F7F7F
FULL = (1 << 64) - 1

MOVER_WEIGHT = 100
#: A reserve stone is worth RESERVE_WEIGHT per stone on the board above RESERVE_FLOOR.
RESERVE_WEIGHT = 2
RESERVE_FLOOR = 24
DANGLING_WEIGHT = 130
TEMPO = 40
ODD_DOMINOES = 100


def _neighbours(stones: int) -> int:
    """The squares orthogonally adjacent to any of `stones`."""
    return ((stones << 8) & FULL | stones >> 8
            | (stones << 1) & NOT_FILE_A | (stones >> 1) & NOT_FILE_H)


def _contacts(own: int, opp: int) -> tuple[int, int]:
    """(own stones touching an enemy, own stones touching exactly one enemy)."""
    north = own & (opp >> 8)
    south = own & (opp << 8)
    east = own & (opp >> 1) & NOT_FILE_H
    west = own & (opp << 1) & NOT_FILE_A
    movers = north | south | east | west
    # A stone is in exactly one of the four masks iff it has exactly one enemy neighbour.
    twice = (north & south) | ((north | south) & (east | west)) | (east & west)
    return movers, movers & ~twice


def evaluate(white: int, black: int, to_move: int) -> tuple[int, int]:
    """(white's value, black's value) of a position; they sum to zero."""
    occupied = white | black
    white_movers, white_lone = _contacts(white, black)
    black_movers, black_lone = _contacts(black, white)
    live = white_movers | black_movers
    if live != occupied:
        while True:
            grown = (live | _neighbours(live)) & occupied
            if grown == live:
                break
            live = grown
    white_dangling = white_lone & ~_neighbours(white)
    black_dangling = black_lone & ~_neighbours(black)
    value = (
        MOVER_WEIGHT * (white_movers.bit_count() - black_movers.bit_count())
        + RESERVE_WEIGHT * max(occupied.bit_count() - RESERVE_FLOOR, 0)
        * ((white & live & ~white_movers).bit_count() - (black & live & ~black_movers).bit_count())
        - DANGLING_WEIGHT * (white_dangling.bit_count() - black_dangling.bit_count())
    )
    # A dangling stone whose one neighbour dangles too is half of an isolated pair.
    dominoes = (white_dangling & _neighbours(black_dangling)).bit_count()
    tempo = TEMPO + (ODD_DOMINOES if dominoes & 1 else 0)
    value += tempo if to_move == 0 else -tempo
    return value, -value
