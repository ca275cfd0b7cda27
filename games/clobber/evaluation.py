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

from games.clobber.rules import FULL, NOT_FILE_A, NOT_FILE_H, U1, U8, WHITE
from games.kernel import kernel, popcount

MOVER_WEIGHT = 100
#: A reserve stone is worth RESERVE_WEIGHT per stone on the board above RESERVE_FLOOR.
RESERVE_WEIGHT = 2
RESERVE_FLOOR = 24
DANGLING_WEIGHT = 130
TEMPO = 40
ODD_DOMINOES = 100


@kernel(inline=True)
def _neighbours(stones):
    return ((stones << U8) | (stones >> U8)
            | ((stones << U1) & NOT_FILE_A) | ((stones >> U1) & NOT_FILE_H))


@kernel(inline=True)
def _contacts(own, opp):
    north = own & (opp >> U8)
    south = own & (opp << U8)
    east = own & (opp >> U1) & NOT_FILE_H
    west = own & (opp << U1) & NOT_FILE_A
    movers = north | south | east | west
    twice = (north & south) | ((north | south) & (east | west)) | (east & west)
    return movers, movers & (twice ^ FULL)


@kernel
def evaluate_sides(white, black, side):
    """White's value of a position with `side` to move (Black's is minus it)."""
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
    white_dangling = white_lone & (_neighbours(white) ^ FULL)
    black_dangling = black_lone & (_neighbours(black) ^ FULL)
    value = MOVER_WEIGHT * (popcount(white_movers) - popcount(black_movers))
    stones = popcount(occupied)
    if stones > RESERVE_FLOOR:
        value += (RESERVE_WEIGHT * (stones - RESERVE_FLOOR)
                  * (popcount(white & live & (white_movers ^ FULL))
                     - popcount(black & live & (black_movers ^ FULL))))
    value -= DANGLING_WEIGHT * (popcount(white_dangling) - popcount(black_dangling))
    dominoes = popcount(white_dangling & _neighbours(black_dangling))
    tempo = TEMPO + (ODD_DOMINOES if dominoes & 1 else 0)
    if side == WHITE:
        return value + tempo
    return value - tempo


@kernel
def evaluate(s):
    """The value for the side to move."""
    value = evaluate_sides(s[0], s[1], s[2])
    if s[2] == WHITE:
        return value
    return -value
