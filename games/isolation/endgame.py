"""Knight Isolation endgames as kernels: once the knights are walled off from each other,
each player's future is the longest knight's tour it can make in its own region, and the
order in which the players run out of moves is decided.

Longest paths are found by a depth-first search in Warnsdorff's order, cut by a colour
bound (a knight's jumps alternate the squares' colours), within a node budget: exact
when it finishes, which it does for most regions of the endgame, else the longest path
found (a lower bound).
"""

from __future__ import annotations

import numpy as np

from games.isolation.rules import KNIGHT, PLAYERS, SQUARE, U0, U1, following, knight_spread
from games.kernel import kernel, lowest_bit, popcount

#: The nodes a longest-path search in one region may visit (`moves_left`).
TOUR_NODES = 2000
#: The squares of one colour (a1's): a knight's jump always lands on the other colour.
EVEN_SQUARES = np.uint64(0xAA55AA55AA55AA55)


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


@kernel(inline=True)
def tour_bound(start, reach):
    """An upper bound on the jumps a knight on `start` can make over `reach` (squares it
    can reach), each square once: a jump always changes the square's colour, so a path
    alternates the colour opposite the start's and the start's own."""
    if SQUARE[start] & EVEN_SQUARES:
        other = popcount(reach & ~EVEN_SQUARES)
    else:
        other = popcount(reach & EVEN_SQUARES)
    same = popcount(reach) - other
    if other > same:
        return 2 * same + 1
    return 2 * other


@kernel
def _extend(square, free, length, best, nodes, goal):
    """Extend a path of `length` jumps ending on `square` over the squares `free`; `best`
    is the longest path found so far, `nodes` the visits left, `goal` a path length none
    can beat. Returns (best, nodes) after the search below this node: exhaustive (with
    admissible bounds) unless `nodes` runs out or a path reaches `goal`.

    Jumps are tried in Warnsdorff's order (the target with the fewest onward jumps
    first), which finds long paths first; a node whose colour bound over the squares it
    can still reach cannot beat `best` is cut."""
    nodes -= 1
    if length > best:
        best = length
    targets = KNIGHT[square] & free
    if targets == U0 or nodes <= 0 or best >= goal:
        return best, nodes
    if length + tour_bound(square, region(square, free)) <= best:
        return best, nodes
    while targets != U0:
        pick = np.int64(-1)
        fewest = np.int64(9)
        rest = targets
        while rest != U0:
            target = lowest_bit(rest)
            rest &= rest - U1
            onward = popcount(KNIGHT[target] & free)
            if onward < fewest:
                fewest = onward
                pick = target
        targets &= ~SQUARE[pick]
        best, nodes = _extend(pick, free ^ SQUARE[pick], length + 1, best, nodes, goal)
        if nodes <= 0 or best >= goal:
            break
    return best, nodes


@kernel
def longest_path(start, own, budget):
    """(the most jumps found from `start` over its region `own`, each square once, and
    whether that is exact): a search of at most `budget` nodes (exact when it ends
    within them, else the longest path found, a lower bound)."""
    goal = tour_bound(start, own)
    best, nodes = _extend(start, own, np.int64(0), np.int64(0), np.int64(budget), goal)
    return best, best >= goal or nodes > 0


@kernel(inline=True)
def moves_left(start, own):
    """The moves a knight on `start` can still make in its region `own`: the longest
    path over its squares, each used once, by a search of at most TOUR_NODES nodes
    (`longest_path`: exact when it finishes, else the longest path it found)."""
    return longest_path(start, own, TOUR_NODES)[0]


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
