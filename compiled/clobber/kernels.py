"""Clobber kernels: `games.clobber.rules` and `games.clobber.evaluation` in numba.

A compiled state is the tuple `(white, black, to_move, key)`: the two bitboards
(np.uint64, a1 = bit 0, h8 = bit 63), the side to move (np.int64, 0 white, 1 black) and
the Zobrist key (np.uint64), the fields of `ClobberState` in its order. Moves are the
reference's ints `from << 6 | to`, listed by direction (north, south, east, west) and
within one direction by ascending from-square, as `generate_moves` lists them. The
evaluation is `evaluation.evaluate` term for term in integer arithmetic; the game ends
when the side to move has no capture, which loses (no margin, no draw).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from compiled.bits import lowest_bit, popcount
from compiled.core import ONGOING
from games.clobber import evaluation, rules

U0 = np.uint64(0)
U1 = np.uint64(1)
U8 = np.uint64(8)
FULL = np.uint64(rules.FULL)
NOT_FILE_A = np.uint64(rules.NOT_FILE_A)
NOT_FILE_H = np.uint64(rules.NOT_FILE_H)

STONE_KEYS = np.array([list(rules._STONE_KEYS[0]), list(rules._STONE_KEYS[1])], dtype=np.uint64)
SIDE_KEY = np.uint64(rules._SIDE_KEY)

MOVER_WEIGHT = evaluation.MOVER_WEIGHT
RESERVE_WEIGHT = evaluation.RESERVE_WEIGHT
RESERVE_FLOOR = evaluation.RESERVE_FLOOR
DANGLING_WEIGHT = evaluation.DANGLING_WEIGHT
TEMPO = evaluation.TEMPO
ODD_DOMINOES = evaluation.ODD_DOMINOES
SOLVE_STONES = rules.SOLVE_STONES

#: Every move is one of the own-enemy adjacent pairs, at most the 112 edges of the grid
#: (all of them in the start position).
MAX_MOVES = 112
#: from << 6 | to with both squares below 64.
MOVE_LIMIT = 64 * 64
#: Moves index the history table as they are (see `compiled.__init__`).
HISTORY_MASK = MOVE_LIMIT - 1


def pack(state: rules.ClobberState) -> tuple:
    """The compiled state of a reference `ClobberState`."""
    return (np.uint64(state.white), np.uint64(state.black), np.int64(state.to_move), np.uint64(state.key))


def unpack(s: tuple) -> rules.ClobberState:
    """The reference `ClobberState` of a compiled state."""
    return rules.ClobberState(int(s[0]), int(s[1]), int(s[2]), int(s[3]))


@njit(cache=True, nogil=True, inline="always")
def _sides(s):
    """(own, opp) boards of the side to move."""
    if s[2] == 0:
        return s[0], s[1]
    return s[1], s[0]


@njit(cache=True, nogil=True, inline="always")
def _emit(mask, step, out, n):
    while mask != U0:
        frm = lowest_bit(mask)
        out[n] = (frm << 6) | (frm + step)
        n += 1
        mask &= mask - U1
    return n


@njit(cache=True, nogil=True)
def legal_moves(s, out):
    """`state.legal_moves()` into out[:n]; returns n."""
    own, opp = _sides(s)
    n = _emit(own & (opp >> U8), 8, out, 0)
    n = _emit(own & (opp << U8), -8, out, n)
    n = _emit(own & (opp >> U1) & NOT_FILE_H, 1, out, n)
    return _emit(own & (opp << U1) & NOT_FILE_A, -1, out, n)


@njit(cache=True, nogil=True, inline="always")
def count_moves(own, opp):
    """`rules.count_moves`: the number of legal moves of the side owning `own`."""
    return (popcount(own & (opp >> U8)) + popcount(own & (opp << U8))
            + popcount(own & (opp >> U1) & NOT_FILE_H) + popcount(own & (opp << U1) & NOT_FILE_A))


@njit(cache=True, nogil=True)
def move_count(s):
    """len(state.legal_moves()) without listing them."""
    own, opp = _sides(s)
    return count_moves(own, opp)


@njit(cache=True, nogil=True)
def play(s, move):
    """`state.play(move)`, key included."""
    white, black, side, key = s
    frm = move >> 6
    to = move & 63
    from_bit = U1 << np.uint64(frm)
    to_bit = U1 << np.uint64(to)
    key ^= STONE_KEYS[side, frm] ^ STONE_KEYS[side, to] ^ STONE_KEYS[side ^ 1, to] ^ SIDE_KEY
    if side == 0:
        return (white ^ from_bit ^ to_bit, black ^ to_bit, np.int64(1), key)
    return (white ^ to_bit, black ^ from_bit ^ to_bit, np.int64(0), key)


@njit(cache=True, nogil=True)
def key(s):
    return s[3]


@njit(cache=True, nogil=True)
def to_move(s):
    return s[2]


@njit(cache=True, nogil=True)
def result(s):
    """ONGOING while the side to move can capture, else -1: it has lost."""
    own, opp = _sides(s)
    if count_moves(own, opp) != 0:
        return np.int64(ONGOING)
    return np.int64(-1)


@njit(cache=True, nogil=True)
def margin(s):
    """returns[to_move] of a finished position: always -1, the mover has lost."""
    return np.int64(-1)


@njit(cache=True, nogil=True)
def solvable(s):
    """`ClobberGame.solvable`: at most SOLVE_STONES stones on the board."""
    return popcount(s[0] | s[1]) <= SOLVE_STONES


@njit(cache=True, nogil=True, inline="always")
def _neighbours(stones):
    return ((stones << U8) | (stones >> U8)
            | ((stones << U1) & NOT_FILE_A) | ((stones >> U1) & NOT_FILE_H))


@njit(cache=True, nogil=True, inline="always")
def _contacts(own, opp):
    north = own & (opp >> U8)
    south = own & (opp << U8)
    east = own & (opp >> U1) & NOT_FILE_H
    west = own & (opp << U1) & NOT_FILE_A
    movers = north | south | east | west
    twice = (north & south) | ((north | south) & (east | west)) | (east & west)
    return movers, movers & (twice ^ FULL)


@njit(cache=True, nogil=True)
def evaluate_sides(white, black, side):
    """White's value of `evaluation.evaluate(white, black, side)` (Black's is minus it)."""
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
    if side == 0:
        return value + tempo
    return value - tempo


@njit(cache=True, nogil=True)
def evaluate(s):
    """`GAME.evaluate(state)[state.to_move]`."""
    value = evaluate_sides(s[0], s[1], s[2])
    if s[2] == 0:
        return value
    return -value
