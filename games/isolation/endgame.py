"""Knight Isolation endgames: once the knights are walled off from each other, each
player's future is the longest knight's tour it can make in its own region, and the
order in which the players run out of moves is decided.

Longest paths are found exactly by depth-first search with a memo for regions up to
EXACT_REGION_LIMIT squares; larger regions are estimated by their size (an upper bound).
"""

from __future__ import annotations

from functools import lru_cache

from games.isolation.bitboards import knight_spread

#: Regions up to this many squares are solved exactly.
EXACT_REGION_LIMIT = 16


def region(start: int, free: int) -> int:
    """The free squares a knight on square `start` can ever reach."""
    reached = 0
    front = 1 << start
    while front:
        front = knight_spread(front) & free & ~reached
        reached |= front
    return reached


@lru_cache(maxsize=1 << 18)
def longest_path(start: int, free: int) -> int:
    """The most jumps a knight on `start` can make over the squares of `free`, each used
    once (exact; exponential in the size of `free`, so keep it small)."""
    best = 0
    targets = knight_spread(1 << start) & free
    while targets:
        low = targets & -targets
        targets ^= low
        length = 1 + longest_path(low.bit_length() - 1, free ^ low)
        if length > best:
            best = length
    return best


def moves_left(start: int, free: int) -> tuple[int, bool]:
    """(moves the knight can still make, whether that count is exact)."""
    own = region(start, free)
    if own.bit_count() <= EXACT_REGION_LIMIT:
        return longest_path(start, own), True
    return own.bit_count(), False


def separated_regions(knights: tuple[int, int, int], alive: int, free: int) -> list[int] | None:
    """Each alive player's region if no two alive knights can ever meet, else None."""
    regions = [0, 0, 0]
    seen = 0
    for player in range(3):
        if alive >> player & 1:
            own = region(knights[player], free)
            if own & seen:
                return None
            regions[player] = own
            seen |= own
    return regions


def elimination_order(moves: list[int], alive: int, to_move: int) -> list[int]:
    """The order in which the alive players run out of moves when each makes `moves[p]`
    more: turns go round from `to_move`; a player is out at its turn with none left."""
    left = list(moves)
    order = []
    player = to_move
    remaining = alive
    while remaining & (remaining - 1):
        if remaining >> player & 1:
            if left[player] == 0:
                order.append(player)
                remaining &= ~(1 << player)
            else:
                left[player] -= 1
        player = (player + 1) % 3
    return order + [remaining.bit_length() - 1]
