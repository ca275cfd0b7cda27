"""Knight Isolation evaluation, one value per player.

A player stays in as long as it has squares to jump to, so every term measures room:

- territory: the free squares the player's knight reaches strictly before every other
  knight still in (a breadth-first race of knight jumps over the free squares, all
  knights stepping together; squares reached first by two knights at once count for
  none). Once the knights are walled off from each other this is the player's whole
  region.
- mobility: the squares the knight can jump to now; a knight with few exits is close to
  being shut in whatever its territory.
- trapped: a knight with no exit at all is out at its next turn.

Players already out get OUT_VALUE, below any player still in, plus their score (the
later out, the better). Weights in centi-squares, set by hand.

Once no two knights can meet again, the position is decided by the moves each knight
has left in its own region (see `endgame`): the values are then the final scores the
players will get, times DECIDED_RANK, plus the moves left as a tie-breaker.
"""

from __future__ import annotations

from games.isolation.bitboards import FULL, knight_spread
from games.isolation.endgame import elimination_order, moves_left, separated_regions

TERRITORY_WEIGHT = 100
MOBILITY_WEIGHT = 40
TRAPPED_PENALTY = 3000
OUT_VALUE = -20000
OUT_SCORE_STEP = 1000
#: The value of one rank of final score in a decided position (terminal positions of
#: the search are worth a little more per rank).
DECIDED_RANK = 90_000

def territories(free: int, knights: tuple[int, int, int], alive: int) -> list[int]:
    """For each player, the free squares its knight reaches first (0 for players out)."""
    fronts = [1 << square if alive >> player & 1 else 0 for player, square in enumerate(knights)]
    owned = [0, 0, 0]
    unclaimed = free
    while True:
        reach = [knight_spread(front) & unclaimed for front in fronts]
        if not (reach[0] | reach[1] | reach[2]):
            return owned
        contested = (reach[0] & reach[1]) | (reach[0] & reach[2]) | (reach[1] & reach[2])
        for player in range(3):
            fronts[player] = reach[player] & ~contested
            owned[player] |= fronts[player]
        unclaimed &= ~(reach[0] | reach[1] | reach[2])


def evaluate(blocked: int, knights: tuple[int, int, int], to_move: int, alive: int,
             scores: tuple[int, int, int]) -> tuple[int, int, int]:
    """(red's, green's, blue's) value of a position; `scores` holds the final scores of
    the players already out (-1 for those still in)."""
    occupied = blocked | (1 << knights[0]) | (1 << knights[1]) | (1 << knights[2])
    free = FULL & ~occupied
    decided = _decided(knights, to_move, alive, scores, free)
    if decided is not None:
        return decided
    owned = territories(free, knights, alive)
    values = []
    for player in range(3):
        if not alive >> player & 1:
            values.append(OUT_VALUE + OUT_SCORE_STEP * scores[player])
            continue
        exits = (knight_spread(1 << knights[player]) & free).bit_count()
        value = TERRITORY_WEIGHT * owned[player].bit_count() + MOBILITY_WEIGHT * exits
        if not exits:
            value -= TRAPPED_PENALTY
        values.append(value)
    return values[0], values[1], values[2]


def _decided(knights: tuple[int, int, int], to_move: int, alive: int,
             scores: tuple[int, int, int], free: int) -> tuple[int, int, int] | None:
    """The values of a position whose knights are walled off from each other, else None."""
    if separated_regions(knights, alive, free) is None:
        return None
    left = [0, 0, 0]
    for player in range(3):
        if alive >> player & 1:
            left[player] = moves_left(knights[player], free)[0]
    final = list(scores)
    out = 3 - alive.bit_count()
    for rank, player in enumerate(elimination_order(left, alive, to_move)):
        final[player] = out + rank
    return tuple(DECIDED_RANK * final[player] + left[player] for player in range(3))  # type: ignore[return-value]
