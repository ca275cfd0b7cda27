"""Knight Isolation kernels: the mirror of `games.isolation` (rules, evaluation, endgame).

A compiled state is the tuple

    (blocked, knight0, knight1, knight2, to_move, alive, score0, score1, score2, key)

with `blocked` and `key` as np.uint64 and the rest as np.int64: the fields of
`IsolationState` in its order, the knights and the scores spread out. Moves are the
reference's ints (the destination square, 0..63).

Besides the two-player contract's functions (`legal_moves`, `play`, `key`, `to_move`),
a three-player game gives its outcome and evaluation as per-player triples:
`returns(s, out)` and `evaluate(s, out)` write into `out[:3]`; and, for the best-reply
search, `moves_for(s, player, out)` and `play_for(s, player, move, next_player)`.
"""

from __future__ import annotations

import numpy as np
from games.kernel import kernel

from games.kernel import lowest_bit, popcount
from games.isolation import rules
from games.isolation.endgame import EXACT_REGION_LIMIT
from games.isolation.evaluation import (
    DECIDED_RANK,
    MOBILITY_WEIGHT,
    OUT_SCORE_STEP,
    OUT_VALUE,
    TERRITORY_WEIGHT,
    TRAPPED_PENALTY,
)
from games.isolation.rules import IsolationState

#: A knight has at most eight jumps.
MAX_MOVES = 8
#: Moves are squares.
MOVE_LIMIT = 64
PLAYERS = 3
MAX_TURNS = rules.MAX_TURNS

U0 = np.uint64(0)
U1 = np.uint64(1)
U6 = np.uint64(6)
U10 = np.uint64(10)
U15 = np.uint64(15)
U17 = np.uint64(17)
FULL = np.uint64(0xFFFFFFFFFFFFFFFF)
NOT_A = np.uint64(0xFEFEFEFEFEFEFEFE)
NOT_AB = np.uint64(0xFCFCFCFCFCFCFCFC)
NOT_H = np.uint64(0x7F7F7F7F7F7F7F7F)
NOT_GH = np.uint64(0x3F3F3F3F3F3F3F3F)

#: The single-square boards, so that no shift by a variable amount is needed.
SQUARE = np.array([1 << square for square in range(64)], dtype=np.uint64)
KNIGHT = np.array(rules.KNIGHT, dtype=np.uint64)
#: The Zobrist keys in the reference's layout: 0..63 blocked squares, 64 + 64 * player +
#: square a knight, 256 + player to move, 259 + player out.
KEYS = np.array(rules._KEYS, dtype=np.uint64)
BLOCKED_KEY = 0
KNIGHT_KEY = 64
TURN_KEY = 256
OUT_KEY = 259


def pack(state: IsolationState) -> tuple:
    """The compiled state of a reference state."""
    knights, scores = state.knights, state.scores
    return (np.uint64(state.blocked), np.int64(knights[0]), np.int64(knights[1]), np.int64(knights[2]),
            np.int64(state.to_move), np.int64(state.alive), np.int64(scores[0]), np.int64(scores[1]),
            np.int64(scores[2]), np.uint64(state.key))


def unpack(s: tuple) -> IsolationState:
    """The reference state of a compiled state."""
    return IsolationState(int(s[0]), (int(s[1]), int(s[2]), int(s[3])), int(s[4]), int(s[5]),
                          (int(s[6]), int(s[7]), int(s[8])), int(s[9]))


@kernel(inline=True)
def _next(player):
    return player + 1 if player < 2 else 0


@kernel(inline=True)
def _turns_used(blocked, alive):
    return popcount(blocked) + PLAYERS - popcount(np.uint64(alive))


@kernel(inline=True)
def _move_mask(blocked, k0, k1, k2, player):
    occupied = blocked | SQUARE[k0] | SQUARE[k1] | SQUARE[k2]
    square = k0 if player == 0 else (k1 if player == 1 else k2)
    return KNIGHT[square] & ~occupied


@kernel(inline=True)
def knight_spread(squares):
    """Every square a knight jump away from one of `squares`."""
    return (((squares << U17) & NOT_A) | ((squares << U15) & NOT_H)
            | ((squares << U10) & NOT_AB) | ((squares << U6) & NOT_GH)
            | ((squares >> U17) & NOT_H) | ((squares >> U15) & NOT_A)
            | ((squares >> U10) & NOT_GH) | ((squares >> U6) & NOT_AB))


@kernel(inline=True)
def _write_moves(mask, out):
    n = 0
    while mask != U0:
        out[n] = lowest_bit(mask)
        n += 1
        mask &= mask - U1
    return n


@kernel
def key(s):
    return s[9]


@kernel
def to_move(s):
    return s[4]


@kernel
def legal_moves(s, out):
    """The reference `legal_moves()` into out[:n] (ascending squares); returns n."""
    blocked, alive = s[0], s[5]
    if alive & (alive - 1) == 0 or _turns_used(blocked, alive) >= MAX_TURNS:
        return 0
    return _write_moves(_move_mask(blocked, s[1], s[2], s[3], s[4]), out)


@kernel
def move_count(s):
    """len(legal_moves()), without listing them (perft's last ply)."""
    blocked, alive = s[0], s[5]
    if alive & (alive - 1) == 0 or _turns_used(blocked, alive) >= MAX_TURNS:
        return 0
    return popcount(_move_mask(blocked, s[1], s[2], s[3], s[4]))


@kernel
def moves_for(s, player, out):
    """The reference `moves_for(player)` into out[:n]; returns n."""
    if (s[5] >> player) & 1 == 0:
        return 0
    return _write_moves(_move_mask(s[0], s[1], s[2], s[3], player), out)


@kernel
def _settle(blocked, k0, k1, k2, to_move, alive, s0, s1, s2, key):
    """The reference `settle`: `key` holds no side-to-move key yet."""
    while alive & (alive - 1) != 0 and _turns_used(blocked, alive) < MAX_TURNS:
        if (alive >> to_move) & 1 == 0:
            to_move = _next(to_move)
            continue
        if _move_mask(blocked, k0, k1, k2, to_move) != U0:
            break
        out = PLAYERS - popcount(np.uint64(alive))
        if to_move == 0:
            s0 = out
        elif to_move == 1:
            s1 = out
        else:
            s2 = out
        alive &= ~(1 << to_move)
        key ^= KEYS[OUT_KEY + to_move]
        to_move = _next(to_move)
    while (alive >> to_move) & 1 == 0:
        to_move = _next(to_move)
    return (blocked, k0, k1, k2, to_move, alive, s0, s1, s2, key ^ KEYS[TURN_KEY + to_move])


@kernel
def play_for(s, player, move, next_player):
    """The reference `play_for`: `player` jumps to `move`, the turn goes to `next_player`."""
    blocked, k0, k1, k2 = s[0], s[1], s[2], s[3]
    origin = k0 if player == 0 else (k1 if player == 1 else k2)
    blocked |= SQUARE[origin]
    base = KNIGHT_KEY + 64 * player
    key = s[9] ^ KEYS[BLOCKED_KEY + origin] ^ KEYS[base + origin] ^ KEYS[base + move] ^ KEYS[TURN_KEY + s[4]]
    if player == 0:
        k0 = move
    elif player == 1:
        k1 = move
    else:
        k2 = move
    return _settle(blocked, k0, k1, k2, next_player, s[5], s[6], s[7], s[8], key)


@kernel
def play(s, move):
    """The reference `play`."""
    player = s[4]
    return play_for(s, player, move, _next(player))


@kernel
def returns(s, out):
    """False while the reference `outcome()` is None; else writes its returns into
    out[:3] and returns True."""
    blocked, alive = s[0], s[5]
    used = _turns_used(blocked, alive)
    if alive & (alive - 1) != 0 and used < MAX_TURNS:
        return False
    out[0], out[1], out[2] = s[6], s[7], s[8]
    if alive & (alive - 1) == 0:
        winner = lowest_bit(np.uint64(alive))
        out[winner] = PLAYERS - 1 if used + 1 <= MAX_TURNS else 0
    for player in range(PLAYERS):
        if out[player] < 0:
            out[player] = 0
    return True


@kernel
def region(start, free):
    """The free squares a knight on `start` can ever reach."""
    reached = U0
    front = SQUARE[start]
    while front != U0:
        front = knight_spread(front) & free & ~reached
        reached |= front
    return reached


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


@kernel
def longest_path(start, free):
    """The reference `endgame.longest_path`."""
    return _longest(start, free, popcount(free))


@kernel(inline=True)
def _moves_left(start, own):
    count = popcount(own)
    if count <= EXACT_REGION_LIMIT:
        return _longest(start, own, count)
    return count


@kernel(inline=True)
def _region_apart(start, free, others):
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
def _decided(s, free, out):
    """The reference `evaluation._decided` into out[:3]; False when the knights can meet.

    Two knights' regions meet exactly when one holds a square next to the other knight
    (a region is the union of the free components around its knight), so each region is
    filled only until it reaches a square next to a later knight."""
    k0, k1, k2, alive = s[1], s[2], s[3], s[5]
    n1 = KNIGHT[k1] & free if alive & 2 else U0
    n2 = KNIGHT[k2] & free if alive & 4 else U0
    r0 = r1 = r2 = U0
    if alive & 1:
        r0, met = _region_apart(k0, free, n1 | n2)
        if met:
            return False
    if alive & 2:
        r1, met = _region_apart(k1, free, n2)
        if met:
            return False
    if alive & 4:
        r2 = region(k2, free)
    left0 = _moves_left(k0, r0) if alive & 1 else 0
    left1 = _moves_left(k1, r1) if alive & 2 else 0
    left2 = _moves_left(k2, r2) if alive & 4 else 0
    final0, final1, final2 = s[6], s[7], s[8]
    rank = PLAYERS - popcount(np.uint64(alive))
    # elimination_order: turns go round from the side to move; out with none left
    c0, c1, c2 = left0, left1, left2
    player = s[4]
    remaining = alive
    while remaining & (remaining - 1) != 0:
        if (remaining >> player) & 1:
            if player == 0:
                if c0 == 0:
                    final0 = rank
                    rank += 1
                    remaining &= ~1
                else:
                    c0 -= 1
            elif player == 1:
                if c1 == 0:
                    final1 = rank
                    rank += 1
                    remaining &= ~2
                else:
                    c1 -= 1
            else:
                if c2 == 0:
                    final2 = rank
                    rank += 1
                    remaining &= ~4
                else:
                    c2 -= 1
        player = _next(player)
    if remaining == 1:
        final0 = rank
    elif remaining == 2:
        final1 = rank
    else:
        final2 = rank
    out[0] = DECIDED_RANK * final0 + left0
    out[1] = DECIDED_RANK * final1 + left1
    out[2] = DECIDED_RANK * final2 + left2
    return True


@kernel(inline=True)
def _value(alive_bit, knight, owned, free, score):
    if not alive_bit:
        return OUT_VALUE + OUT_SCORE_STEP * score
    exits = popcount(KNIGHT[knight] & free)
    value = TERRITORY_WEIGHT * popcount(owned) + MOBILITY_WEIGHT * exits
    if exits == 0:
        value -= TRAPPED_PENALTY
    return value


@kernel
def evaluate(s, out):
    """The reference `game.evaluate(state)` (per player) into out[:3]."""
    blocked, k0, k1, k2, alive = s[0], s[1], s[2], s[3], s[5]
    free = ~(blocked | SQUARE[k0] | SQUARE[k1] | SQUARE[k2])
    if _decided(s, free, out):
        return
    # territories: a breadth-first race of all knights still in over the free squares
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
    out[0] = _value(alive & 1, k0, o0, free, s[6])
    out[1] = _value(alive & 2, k1, o1, free, s[7])
    out[2] = _value(alive & 4, k2, o2, free, s[8])
