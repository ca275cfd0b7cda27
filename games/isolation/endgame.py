"""Knight Isolation endgames as kernels: once the knights are walled off from each other,
each player's future is the longest knight's tour it can make in its own region, and the
order in which the players run out of moves is decided.

Longest paths are found exactly by depth-first search for regions up to
EXACT_REGION_LIMIT squares; larger regions are estimated by their size (an upper bound).
"""

from __future__ import annotations

import numpy as np

from games.isolation.rules import KNIGHT, PLAYERS, SQUARE, U0, U1, following, knight_spread
from games.kernel import kernel, lowest_bit, popcount

#: Regions up to this many squares are solved exactly.
EXACT_REGION_LIMIT = 16


@kernel
def region(start, free):
    """The free squares a knight on square `start` can ever reach."""
    reached = U0
    front = SQUARE[start]
    while front != U0:
        front = knight_spread(front) & free & ~reached
        reached |= front
    return reached


@kernel(inline=True)
def region_apart(start, free, others):
    """(the region of a knight on `start`, whether it holds one of the squares `others`),
    the fill stopping at the first of them."""
    reached = U0
    front = SQUARE[start]
    while front != U0:
        front = knight_spread(front) & free & ~reached
        if front & others != U0:
            return reached, True
        reached |= front
    return reached, False


@kernel
def _longest(start, free, limit):
    """The most jumps from `start` over `free`, each square once; the search stops once
    a path of `limit` jumps (all of free) is found, which none can beat."""
    best = 0
    targets = KNIGHT[start] & free
    while targets != U0:
        square = lowest_bit(targets)
        targets &= targets - U1
        length = 1 + _longest(square, free ^ SQUARE[square], limit - 1)
        if length > best:
            best = length
            if best >= limit:
                break
    return best


@kernel(inline=True)
def moves_left(start, own):
    """The moves a knight on `start` can still make in its region `own`: the longest
    path over its squares, each used once, up to EXACT_REGION_LIMIT squares (exact;
    exponential in the size of the region), else the region's size (an upper bound)."""
    count = popcount(own)
    if count <= EXACT_REGION_LIMIT:
        return _longest(start, own, count)
    return count


@kernel(inline=True)
def final_scores(left0, left1, left2, to_move, alive, s0, s1, s2):
    """The final scores (s0, s1, s2) when each player still in makes `left_p` more moves
    and no more: turns go round from `to_move`, a player is out at its turn with none
    left, and each one out scores the number of players out before it (the survivor
    too). The players already out keep their scores."""
    rank = PLAYERS - popcount(np.uint64(alive))
    player = to_move
    remaining = alive
    while remaining & (remaining - 1) != 0:
        if (remaining >> player) & 1:
            if player == 0:
                if left0 == 0:
                    s0 = rank
                    rank += 1
                    remaining &= ~1
                else:
                    left0 -= 1
            elif player == 1:
                if left1 == 0:
                    s1 = rank
                    rank += 1
                    remaining &= ~2
                else:
                    left1 -= 1
            else:
                if left2 == 0:
                    s2 = rank
                    rank += 1
                    remaining &= ~4
                else:
                    left2 -= 1
        player = following(player)
    if remaining == 1:
        s0 = rank
    elif remaining == 2:
        s1 = rank
    else:
        s2 = rank
    return s0, s1, s2
