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
later out, the better). Weights in centi-squares, set by hand, as data (`weights.json`,
read by `games.weights`, by the number of free squares).

Once no two knights can meet again, the position is decided by the moves each knight
has left in its own region (see `endgame`): the values are then the final scores the
players will get, times DECIDED_RANK, plus the moves left as a tie-breaker.
"""

from __future__ import annotations

from games.isolation.endgame import final_scores, moves_left, region, region_apart
from games.isolation.rules import KNIGHT, SQUARE, U0, knight_spread
from games.kernel import kernel, popcount
from games.weights import load_weights

#: The terms of a player still in, in the order of the weights: its territory, its
#: exits, and 1 if it has none.
FEATURES = ("territory", "mobility", "trapped")
#: The weights, by free squares (`weights.json`, see `games.weights`).
WEIGHTS_DATA = load_weights(__file__, FEATURES)
#: WEIGHTS[free squares, term].
WEIGHTS = WEIGHTS_DATA.table()
OUT_VALUE = -20000
OUT_SCORE_STEP = 1000
#: The value of one rank of final score in a decided position (terminal positions of
#: the search are worth a little more per rank).
DECIDED_RANK = 90_000


@kernel
def decided(s, free, out):
    """The values of a position whose knights are walled off from each other into
    out[:3]; False (out untouched) when two knights still in can meet.

    Two knights' regions meet exactly when one holds a square next to the other knight
    (a region is the union of the free components around its knight), so each region is
    filled only until it reaches a square next to a later knight."""
    k0, k1, k2, alive = s[1], s[2], s[3], s[5]
    n1 = KNIGHT[k1] & free if alive & 2 else U0
    n2 = KNIGHT[k2] & free if alive & 4 else U0
    r0 = r1 = r2 = U0
    if alive & 1:
        r0, met = region_apart(k0, free, n1 | n2)
        if met:
            return False
    if alive & 2:
        r1, met = region_apart(k1, free, n2)
        if met:
            return False
    if alive & 4:
        r2 = region(k2, free)
    left0 = moves_left(k0, r0) if alive & 1 else 0
    left1 = moves_left(k1, r1) if alive & 2 else 0
    left2 = moves_left(k2, r2) if alive & 4 else 0
    final0, final1, final2 = final_scores(left0, left1, left2, s[4], alive, s[6], s[7], s[8])
    out[0] = DECIDED_RANK * final0 + left0
    out[1] = DECIDED_RANK * final1 + left1
    out[2] = DECIDED_RANK * final2 + left2
    return True


@kernel(inline=True)
def _value(alive_bit, knight, owned, free, score, weights):
    """The value of one player: its knight on `knight`, `owned` its territory."""
    if not alive_bit:
        return OUT_VALUE + OUT_SCORE_STEP * score
    exits = popcount(KNIGHT[knight] & free)
    value = weights[0] * popcount(owned) + weights[1] * exits
    if exits == 0:
        value += weights[2]
    return value


@kernel(inline=True)
def territories(s, free):
    """Each knight's territory (a breadth-first race of all knights still in over the
    free squares), as three boards."""
    k0, k1, k2, alive = s[1], s[2], s[3], s[5]
    f0 = SQUARE[k0] if alive & 1 else U0
    f1 = SQUARE[k1] if alive & 2 else U0
    f2 = SQUARE[k2] if alive & 4 else U0
    o0 = o1 = o2 = U0
    unclaimed = free
    while True:
        a = knight_spread(f0) & unclaimed
        b = knight_spread(f1) & unclaimed
        c = knight_spread(f2) & unclaimed
        reach = a | b | c
        if reach == U0:
            break
        contested = (a & b) | (a & c) | (b & c)
        f0 = a & ~contested
        f1 = b & ~contested
        f2 = c & ~contested
        o0 |= f0
        o1 |= f1
        o2 |= f2
        unclaimed &= ~reach
    return o0, o1, o2


@kernel(inline=True)
def free_squares(s):
    """The squares neither blocked nor under a knight."""
    return ~(s[0] | SQUARE[s[1]] | SQUARE[s[2]] | SQUARE[s[3]])


@kernel
def evaluate(s, out):
    """Each player's value of the position into out[:3] (red's, green's, blue's)."""
    k0, k1, k2, alive = s[1], s[2], s[3], s[5]
    free = free_squares(s)
    if decided(s, free, out):
        return
    o0, o1, o2 = territories(s, free)
    weights = WEIGHTS[popcount(free)]
    out[0] = _value(alive & 1, k0, o0, free, s[6], weights)
    out[1] = _value(alive & 2, k1, o1, free, s[7], weights)
    out[2] = _value(alive & 4, k2, o2, free, s[8], weights)


@kernel
def player_terms(s, out):
    """out[p, :3]: player p's terms (`FEATURES`, unweighted: territory squares, exits,
    1 if it has none), for a player still in; the phase (free squares) of their weights.
    -1 (out untouched) when the knights are walled off from each other: `evaluate` then
    gives the final scores instead."""
    free = free_squares(s)
    values = out[:, 0].copy()
    if decided(s, free, values):
        return -1
    owned = territories(s, free)
    for player in range(3):
        exits = popcount(KNIGHT[s[1 + player]] & free)
        out[player, 0] = popcount(owned[player])
        out[player, 1] = exits
        out[player, 2] = 1 if exits == 0 else 0
    return popcount(free)
