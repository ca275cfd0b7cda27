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
  moves there ends it) and two of them cancel, so an odd number of them is a bonus;
- won parts: the small live parts (up to 8 stones, from SMALL_PARTS_STONES stones on the
  board down) that the table of parts (`parts`) says it wins whoever moves first there,
  less those it loses so;
- fuzzy parity: 1 if an odd number of the small parts is won by whoever moves first in
  it (a domino is one).

Weights in centi-stones, as data (`weights.json`, by the number of stones on the board).
"""

from __future__ import annotations

import numpy as np

from games.clobber.parts import BLACK_FIRST_WINS, TABLE_STONES, WHITE_FIRST_WINS, part_class
from games.clobber.rules import FULL, NOT_FILE_A, NOT_FILE_H, U0, U1, U8, WHITE, groups_of, live_stones
from games.kernel import kernel, lowest_bit, popcount
from games.weights import load_weights

#: The terms, in the order of the weights, each the side to move's count minus the other
#: side's: movers, reserves, dangling stones (counted against their owner), and the
#: side to move's tempo and odd-dominoes bonus (1 or 0), the small parts it wins
#: whoever starts less those it loses, and 1 if an odd number of small parts is fuzzy.
FEATURES = ("movers", "reserves", "dangling", "tempo", "odd_dominoes", "won_parts", "odd_fuzzy")
#: The weights, by number of stones on the board (`weights.json`, see `games.weights`).
WEIGHTS_DATA = load_weights(__file__, FEATURES)
#: WEIGHTS[stones, term].
WEIGHTS = WEIGHTS_DATA.table()
#: The small parts are looked for from this many stones on the board down: above it
#: the board is one group but for 0.3 small parts on average (at 48 stones, in games
#: against OpenSpiel's MCTS), and the search would pay a flood fill of it at every leaf.
SMALL_PARTS_STONES = 48


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


@kernel(inline=True)
def _small_parts(own, opp):
    """(won, odd): over the live parts of up to TABLE_STONES stones whose class the table
    of parts holds, those the side owning `own` wins whoever moves first less those it
    loses so, and 1 if an odd number of them is won by the side moving first."""
    occupied = own | opp
    left = occupied
    won = 0
    fuzzy = 0
    while left != U0:
        group = groups_of(U1 << np.uint64(lowest_bit(left)), occupied)
        left &= group ^ FULL
        if popcount(group) <= TABLE_STONES and (group & own) != U0 and (group & opp) != U0:
            found = part_class(own & group, opp & group)  # own in White's place
            if found == WHITE_FIRST_WINS:
                won += 1
            elif found == BLACK_FIRST_WINS:
                won -= 1
            elif found == WHITE_FIRST_WINS | BLACK_FIRST_WINS:
                fuzzy += 1
    return np.int64(won), np.int64(fuzzy & 1)


@kernel(inline=True)
def terms(own, opp):
    """The terms (`FEATURES`) for the side owning `own`, to move."""
    own_movers, own_lone = _contacts(own, opp)
    opp_movers, opp_lone = _contacts(opp, own)
    live = live_stones(own, opp)
    own_dangling = own_lone & (_neighbours(own) ^ FULL)
    opp_dangling = opp_lone & (_neighbours(opp) ^ FULL)
    dominoes = popcount(own_dangling & _neighbours(opp_dangling))
    won = odd_fuzzy = np.int64(0)
    if popcount(own | opp) <= SMALL_PARTS_STONES:
        won, odd_fuzzy = _small_parts(own, opp)
    return (np.int64(popcount(own_movers) - popcount(opp_movers)),
            np.int64(popcount(own & live & (own_movers ^ FULL)) - popcount(opp & live & (opp_movers ^ FULL))),
            np.int64(popcount(opp_dangling) - popcount(own_dangling)),
            np.int64(1), np.int64(dominoes & 1), won, odd_fuzzy)


@kernel
def evaluate(s):
    """The value for the side to move: its terms times the weights of the number of
    stones on the board."""
    own, opp = (s[0], s[1]) if s[2] == WHITE else (s[1], s[0])
    weights = WEIGHTS[popcount(own | opp)]
    t = terms(own, opp)
    return (weights[0] * t[0] + weights[1] * t[1] + weights[2] * t[2] + weights[3] * t[3]
            + weights[4] * t[4] + weights[5] * t[5] + weights[6] * t[6])


@kernel
def features(s):
    """The phase (stones on the board) and the terms of `evaluate`, for tuning."""
    own, opp = (s[0], s[1]) if s[2] == WHITE else (s[1], s[0])
    return popcount(own | opp), terms(own, opp)
