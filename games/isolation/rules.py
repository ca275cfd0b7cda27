"""Knight Isolation rules as kernels (`games.kernel`) over a bitboard of blocked squares
and three knight squares.

A kernel state is the tuple

    (blocked, knight0, knight1, knight2, to_move, alive, score0, score1, score2, key)

`blocked` (the squares knights have left, a1 = bit 0, h8 = bit 63) and `key` (the
Zobrist key) are np.uint64, the rest np.int64: each player's knight square, the player
to move, the players still in (bit p for player p), and the final score of each player
already out (-1 while it is in). Moves are destination squares (0..63), listed in
ascending order.

Eliminations need no decision, so `play` carries them out at once: after a move the turn
passes to the next player still in, and a player found without a move there is out
before anyone else moves, exactly when the referee would find it. So a state's side to
move always has a move unless the game is over; a finished game names its survivor (or a
player still in) to move.

Three players: besides `legal_moves`, `play`, `key` and `to_move`, the game's outcome is
`returns(s, out)` and, for the best-reply search, any player can move out of turn
(`moves_for`, `play_for`).
"""

from __future__ import annotations

import numpy as np

from games.base import zobrist_keys
from games.kernel import kernel, lowest_bit, popcount

PLAYERS = 3
#: Global turns the referee plays at most.
MAX_TURNS = 62
ALL_IN = 0b111
STATE_TYPES = (np.uint64, np.int64, np.int64, np.int64, np.int64, np.int64, np.int64, np.int64,
               np.int64, np.uint64)

#: A knight has at most eight jumps.
MAX_MOVES = 8
#: Moves are squares.
MOVE_LIMIT = 64
#: Moves index the history table as they are.
HISTORY_MASK = MOVE_LIMIT - 1

U0 = np.uint64(0)
U1 = np.uint64(1)
U6 = np.uint64(6)
U10 = np.uint64(10)
U15 = np.uint64(15)
U17 = np.uint64(17)
NOT_A = np.uint64(0xFEFEFEFEFEFEFEFE)
NOT_AB = np.uint64(0xFCFCFCFCFCFCFCFC)
NOT_H = np.uint64(0x7F7F7F7F7F7F7F7F)
NOT_GH = np.uint64(0x3F3F3F3F3F3F3F3F)


def _knight_masks() -> list[int]:
    masks = []
    for square in range(64):
        rank, file = divmod(square, 8)
        mask = 0
        for dr, df in ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)):
            if 0 <= rank + dr < 8 and 0 <= file + df < 8:
                mask |= 1 << ((rank + dr) * 8 + file + df)
        masks.append(mask)
    return masks


#: The single-square boards, so that no shift by a variable amount is needed.
SQUARE = np.array([1 << square for square in range(64)], dtype=np.uint64)
#: The squares a knight on each square attacks.
KNIGHT = np.array(_knight_masks(), dtype=np.uint64)

# Keys: 0..63 blocked squares, 64 + 64 * player + square a knight, 256 + player to move,
# 259 + player out. Changing the seed or this layout invalidates saved hash files: bump
# KEY_SCHEME with it.
KEY_SCHEME = 1
KEYS = np.array(zobrist_keys(0x150_1A7E, 262), dtype=np.uint64)
BLOCKED_KEY = 0
KNIGHT_KEY = 64
TURN_KEY = 256
OUT_KEY = 259


@kernel(inline=True)
def knight_spread(squares):
    """Every square a knight jump away from one of `squares`."""
    return ((((squares << U17) | (squares >> U15)) & NOT_A)
            | (((squares << U15) | (squares >> U17)) & NOT_H)
            | (((squares << U10) | (squares >> U6)) & NOT_AB)
            | (((squares << U6) | (squares >> U10)) & NOT_GH))


@kernel(inline=True)
def following(player):
    """The player after `player` in turn order, in or out."""
    return player + 1 if player < 2 else 0


@kernel(inline=True)
def turns_used(blocked, alive):
    """Global turns played: one per move (a blocked square) and one per elimination."""
    return popcount(blocked) + PLAYERS - popcount(np.uint64(alive))


@kernel(inline=True)
def move_mask(blocked, k0, k1, k2, player):
    """The squares `player`'s knight can jump to."""
    occupied = blocked | SQUARE[k0] | SQUARE[k1] | SQUARE[k2]
    square = k0 if player == 0 else (k1 if player == 1 else k2)
    return KNIGHT[square] & ~occupied


@kernel(inline=True)
def _write_moves(mask, out):
    n = 0
    while mask != U0:
        out[n] = lowest_bit(mask)
        n += 1
        mask &= mask - U1
    return n


@kernel
def settle(blocked, k0, k1, k2, to_move, alive, s0, s1, s2, key):
    """The state where `to_move`'s turn comes: players without a move are put out, in
    turn order, until one can move or the game is over. `key` must not include a
    side-to-move key yet."""
    while alive & (alive - 1) != 0 and turns_used(blocked, alive) < MAX_TURNS:
        if (alive >> to_move) & 1 == 0:
            to_move = following(to_move)
            continue
        if move_mask(blocked, k0, k1, k2, to_move) != U0:
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
        to_move = following(to_move)
    while (alive >> to_move) & 1 == 0:
        to_move = following(to_move)
    return (blocked, k0, k1, k2, to_move, alive, s0, s1, s2, key ^ KEYS[TURN_KEY + to_move])


@kernel
def make_state(blocked, k0, k1, k2, to_move, alive, s0, s1, s2):
    """The settled state of a position, its key computed from scratch; `s0..s2` are the
    scores of the players out (-1 for those in)."""
    key = U0
    board = blocked
    while board != U0:
        key ^= KEYS[BLOCKED_KEY + lowest_bit(board)]
        board &= board - U1
    key ^= KEYS[KNIGHT_KEY + k0] ^ KEYS[KNIGHT_KEY + 64 + k1] ^ KEYS[KNIGHT_KEY + 128 + k2]
    for player in range(PLAYERS):
        if (alive >> player) & 1 == 0:
            key ^= KEYS[OUT_KEY + player]
    return settle(blocked, k0, k1, k2, to_move, alive, s0, s1, s2, key)


@kernel
def key(s):
    return s[9]


@kernel
def to_move(s):
    return s[4]


@kernel
def players_in(s):
    """How many players are still in."""
    return popcount(np.uint64(s[5]))


@kernel
def legal_moves(s, out):
    """The moves of the side to move into out[:n] (ascending squares), none once the game
    is over; returns n."""
    blocked, alive = s[0], s[5]
    if alive & (alive - 1) == 0 or turns_used(blocked, alive) >= MAX_TURNS:
        return 0
    return _write_moves(move_mask(blocked, s[1], s[2], s[3], s[4]), out)


@kernel
def moves_for(s, player, out):
    """The moves `player` would have if it were its turn (none when it is out) into
    out[:n]; returns n."""
    if (s[5] >> player) & 1 == 0:
        return 0
    return _write_moves(move_mask(s[0], s[1], s[2], s[3], player), out)


@kernel
def play_for(s, player, move, next_player):
    """`player` jumps to `move`, then the turn goes to `next_player` (who is put out if
    it cannot move, and so on in turn order). With `next_player` the rules' next player
    this is `play`; searches that let players move out of turn pass another."""
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
    return settle(blocked, k0, k1, k2, next_player, s[5], s[6], s[7], s[8], key)


@kernel
def play(s, move):
    """The position after the side to move jumps to `move`, eliminations settled."""
    player = s[4]
    return play_for(s, player, move, following(player))


@kernel
def returns(s, out):
    """False while the game goes on; else writes each player's final score into out[:3]
    and returns True. The players out keep their scores (0 for the first out, 1 for the
    next); a lone survivor scores 2 when its winner declaration fits in MAX_TURNS, else
    0, as do players still in when the turn cap ends the game."""
    blocked, alive = s[0], s[5]
    used = turns_used(blocked, alive)
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
